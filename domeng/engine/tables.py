"""The N-table driver: many tables of the step API stepped in one compiled loop.

A *stack* is a :class:`domeng.engine.step.State` whose fields carry a
leading table axis: row ``i`` of each field is table ``i``'s record, and
:func:`table_at` gives it as a one-table :class:`~domeng.engine.step.State`
of views (no copy), so every rule is the step API's (:mod:`domeng.engine.step`).
A field stacked with ONE row is shared by every table: the scratch a step
writes and nobody reads back (the legal moves, the deal's permutation, the
payers), and the rules, identical at every table.  A caller that does not
read the aggregates, records or trace shares those too (:data:`SCRATCH`):
a table's own rows then shrink from 12 KB to 5 KB, and to 2.2 KB with the
history rows as ``int8`` (:func:`new_stack`'s ``hist``, the environments'
stack), so that 4096 tables stay in a core's caches nearly as well as 256
(``benchmarks/README.md``).

:func:`drive` is the loop over tables: the environments
(:mod:`domeng.envs.tables`) hand it a *turn* function, compiled with it,
that does their per-table work; while table ``i`` plays, the next table's
hot rows are fetched from memory ahead (:func:`prefetch_table`).
:func:`drive_parallel` is the same loop in parallel over tables, each table
played as long as its *game* function likes: the studies' round loop
(:mod:`domeng.batch.loop`) plays a table's rounds so, over a stack made of
the study's own table states (:func:`stack_of`).  :func:`play_until` is the
one loop of turns within a table: it starts rounds (D2..D4) and steps the
seats' choices until a given seat is to move or the game is over (D16).

    >>> import numpy as np
    >>> from domeng.core.rules import Rules
    >>> from domeng.engine import tables as T
    >>> B = T.new_stack(Rules().to_array(), seed=5, table_start=10, n=4)
    >>> int(T.table_at(B, 2).obs[T.OBS_TABLE])  # table 12: every stone on the table
    25

Table ``table_start + i`` draws from the same streams as that table of a
study with the same seed (:func:`fresh_game`).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from domeng.core import layout as L
from domeng.core.kept import kept_row, when_kept
from domeng.core.kept import row_of as _row  # a field of one row is shared by every table
from domeng.core.nbrng import seat_state, table_state
from domeng.core.observation import OBS_TABLE, OBS_TURN
from domeng.core.rules import R_STONES
from domeng.engine import kernel as K
from domeng.engine import step as E

__all__ = [
    "OBS_TABLE",
    "OWN",
    "SCRATCH",
    "Layout",
    "Limits",
    "drive",
    "drive_parallel",
    "new_stack",
    "play_until",
    "stack_of",
    "table_at",
]

#: fields shared by every table of any stack: the rules and a step's scratch
SHARED = ("rules", "perm", "payers", "moves")
#: fields a caller may share too when it never reads them back per table
SCRATCH = SHARED + ("agg", "rec", "tr", "tn")

#: the fields a stack played in parallel (:func:`drive_parallel`) shares:
#: the rules only (read, never written), so each table has its own scratch
OWN = ("rules",)

#: when a game ends (D16): after ``rounds`` rounds (if > 0) or at the
#: ``camats``-th CAMAT (if > 0), :func:`domeng.engine.step.game_over`
Limits = namedtuple("Limits", ("rounds", "camats"))


def new_stack(rules, seed, table_start, n, full=1, shared=SHARED, hist=np.int64, kept=None):
    """A stack of tables ``table_start .. table_start + n - 1`` of ``seed``,
    no round dealt yet (``full``: keep the observation fields players read;
    ``shared``: the fields stacked with one row, at least :data:`SHARED`;
    ``hist``: the dtype of the history rows, whose values (seat, tile, end,
    -1) fit ``int8``: a table's history then takes 384 bytes, not 3 KB;
    ``kept``: what each table keeps beyond the play, a
    :class:`~domeng.engine.step.Keep` (default: the record and the deltas, no
    trace); a field not kept is ``None`` in the stack too)."""
    st = K.init_states(np.uint64(seed), table_start, n, rules[R_STONES])
    return stack_of(rules, st, Layout(full, shared, hist), kept)


#: how a stack is laid out (:func:`stack_of`): ``full``, keep the observation
#: fields players read; ``shared``, the fields stacked with one row; ``hist``,
#: the dtype of the history rows
Layout = namedtuple("Layout", ("full", "shared", "hist"))


def stack_of(rules, st, layout=None, kept=None, agg=None):
    """A stack over the table states ``st`` (``int64[n, ST_LEN]``, rows of
    :func:`domeng.engine.kernel.init_states` between rounds), which it uses
    in place: its ``st`` field *is* ``st`` (and its ``agg`` field ``agg``,
    ``int64[n, AGG_LEN]``, when given), so a batch that plays the stack
    leaves each table's state and aggregates where it keeps them.
    ``layout``: :class:`Layout` (default: full, :data:`SHARED`, ``int64``
    history); ``kept``: as for :func:`new_stack`."""
    if st.ndim != 2 or st.dtype != np.int64 or not st.flags.c_contiguous:
        raise ValueError("table states: a C-contiguous int64 array of rows")
    n = st.shape[0]
    full, shared, hist = Layout(1, SHARED, np.int64) if layout is None else layout
    row0 = st[0] if n else np.zeros(st.shape[1], dtype=np.int64)
    one = E.new_state(rules, row0, full, E.keep() if kept is None else kept)
    own = {"st": st} if agg is None else {"st": st, "agg": agg}
    B = E.State(
        *[
            own[k]
            if k in own
            else None
            if f is None
            else np.ascontiguousarray(
                np.repeat(np.asarray(f)[None], 1 if k in shared else n, axis=0),
                dtype=hist if k == "hist" else f.dtype,
            )
            for k, f in zip(E.State._fields, one)
        ]
    )
    load_tables(B)
    return B


@njit(cache=True)
def load_tables(B):
    """:func:`domeng.engine.step.load_table` at every table."""
    for i in range(B.ctl.shape[0]):
        E.load_table(table_at(B, i))


@njit(cache=True, inline="always")
def table_at(B, i):
    """Table ``i`` of the stack ``B`` as a one-table state (views, no copy)."""
    return E.State(
        _row(B.rules, i),
        B.hands[i],
        B.obs[i],
        B.hist[i],
        B.w[i],
        B.st[i],
        B.rng[i],
        B.prng[i],
        _row(B.agg, i),
        kept_row(B.rec, i),
        kept_row(B.tr, i),
        _row(B.tn, i),
        B.ctl[i],
        kept_row(B.delta, i),
        _row(B.perm, i),
        _row(B.payers, i),
        _row(B.moves, i),
    )


# ---------------------------------------------------------------- memory ahead
@intrinsic
def prefetch(typingctx, arr, idx):
    """Ask the memory for the cache line of ``arr[idx]`` (1-d ``arr``), for
    writing; a hint (``llvm.prefetch``): no effect on any value."""
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        aryty, _ = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        rw, locality, data = ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)
        builder.call(fn, [builder.bitcast(ptr, i8p), rw, locality, data])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline="always")
def prefetch_row(a, j):
    """Fetch ahead row ``j`` of the 2-d array ``a``, a cache line (64 bytes) at a time."""
    for k in range(0, a.shape[1], max(64 // a.itemsize, 1)):
        prefetch(a[j], k)


@njit(cache=True, inline="always")
def prefetch_table(B, j, j2):
    """Fetch ahead the rows a turn at table ``j`` touches, and table
    ``j2``'s public state (whose turn number says which history rows
    :func:`prefetch_table` fetches for it next)."""
    prefetch_row(B.obs, j2)
    prefetch_row(B.w, j)
    prefetch(B.hands[j], 0)
    prefetch(B.ctl[j], 0)
    prefetch(B.st[j], 0)
    prefetch(B.st[j], 8)
    prefetch(B.prng[j], 0)
    _prefetch_first(B.delta, j)
    prefetch(B.rng[j], 0)
    # the history rows up to the turn (the environments' observation reads them all)
    step = max(64 // (3 * B.hist.itemsize), 1)
    for r in range(0, min(B.obs[j, OBS_TURN] + 6, B.hist.shape[1]), step):
        prefetch(B.hist[j, r], 0)


@when_kept
def _prefetch_first(a, j):
    prefetch(a[j], 0)


# ---------------------------------------------------------------- the loops
@njit(cache=True, inline="always")
def drive(B, turn, ctx, fns):
    """``turn(S, i, ctx, fns)`` at every table ``i`` of the stack ``B`` in
    order (``S``: :func:`table_at`), the next tables' rows fetched ahead;
    returns the sum of what ``turn`` returns (an ``int``).  ``fns``: the
    compiled players' functions or ``None``, passed apart from ``ctx`` so
    that ``fns is None`` is known when compiled (the code for built-in
    players alone is then all that is compiled)."""
    n = B.ctl.shape[0]
    total = 0
    for i in range(n):
        prefetch_table(B, min(i + 1, n - 1), min(i + 2, n - 1))
        total += turn(table_at(B, i), i, ctx, fns)
    return total


@njit(cache=True, inline="always")
def drive_parallel(B, game, ctx, fns):
    """``game(S, i, ctx, fns)`` at every table ``i`` of the stack ``B``, in
    parallel over tables (numba's threads, when the caller is compiled with
    ``parallel=True``); returns the sum of what ``game`` returns (an
    ``int``).  Each call has a table to itself for as long as it likes (a
    study's table plays all its rounds), so the stack must share nothing a
    step writes: made with ``shared=``:data:`OWN` (checked).  ``fns``: as
    for :func:`drive`.  What a table does depends only on its own rows, so
    the result is the same on any number of threads."""
    n = B.ctl.shape[0]
    if min(B.moves.shape[0], B.perm.shape[0], B.payers.shape[0], B.tn.shape[0], B.agg.shape[0]) < n:
        raise ValueError("a stack played in parallel shares only the rules (OWN)")
    total = 0
    for k in prange(n):
        i = np.int64(k)  # numba's parallel loop counts unsigned
        total += game(table_at(B, i), i, ctx, fns)
    return total


@njit(cache=True, inline="always")
def play_until(S, seat, limits, act, ctx, fns, on_step):
    """Play table ``S`` until ``seat`` is to move (``-1``: never) or the
    game is over (:class:`Limits`, D16), dealing each round as the last
    ends (D2..D4).  ``act(S, ctx, fns)`` is the action of the seat to move
    (``fns`` as for :func:`drive`); ``on_step(S, ended, ctx)`` runs after
    each step (``ended``: the round ended) and returns a float; returns
    ``(their sum, game over)``."""
    total = 0.0
    while True:
        if S.ctl[E.C_OVER]:
            if E.game_over(S, limits.rounds, limits.camats):
                return total, True
            E.new_round(S)
        if S.ctl[E.C_SEAT] == seat:
            return total, False
        ended = E.step(S, act(S, ctx, fns))
        total += on_step(S, ended, ctx)


@njit(cache=True, _nrt=False)
def fresh_game(S, seed, table):
    """Start ``S`` afresh as table ``table`` of ``seed`` (no round yet), as
    row ``table`` of :func:`domeng.engine.kernel.init_states` (without its
    allocation): its aggregates and trace emptied."""
    for c in range(L.ST_LEN):
        S.st[c] = 0
    S.st[L.ST_TABLE] = S.rules[R_STONES]
    S.st[L.ST_CAMAT] = -1
    S.st[L.ST_NEXT_STARTER] = -1
    t = np.uint64(table)
    S.st[L.ST_RNG] = np.int64(table_state(seed, t))
    for p in range(5):
        S.st[L.ST_SEAT_RNG + p] = np.int64(seat_state(seed, t, np.uint64(p)))
    E.load_table(S)
    S.ctl[E.C_SEAT] = -1
    S.ctl[E.C_OVER] = 1
    S.ctl[E.C_ROUND] = 0
    S.ctl[E.C_LAST_SEAT] = -1
    E.zero_deltas(S.delta)
    for i in range(S.agg.shape[0]):
        S.agg[i] = 0
    S.tn[0] = 0
