"""The batch round loop: many rounds at many tables, every turn through the
step API (:mod:`domeng.engine.step`), players chosen inside the compiled
code.  The tables are a stack of the N-table driver over the study's own
table states (:func:`study_stack`), played in parallel, each through all
its rounds (:func:`domeng.engine.tables.drive_parallel`, issue 21 item 3).  Aggregate mode with only built-in players (a study's usual case: no
per-round records, no trace) runs on the engine's aggregate-mode loop
(:mod:`domeng.engine.fast`) instead: the same aggregates and table states,
draw for draw (``tests/batch/test_kernel.py`` compares the two), about 1.7 times
as fast.

Players arrive as ids (:data:`domeng.core.defaults.PLAYER_IDS`) plus a
tuple of five compiled functions for seats whose player is a compiled
function (numba first-class functions: a new player needs no new kernel).
Each seat's player sees only its D17 view and draws only from its own
stream ``S.prng[s]`` (never the deal stream).

Speed notes.  The round loop allocates nothing and is compiled with
``_nrt=False`` (no reference counting in the hot path); the per-turn steps
are inlined.  The observation fields that only players read (history, tiles
by seat, hand sizes, voids) are kept only when some seat's player reads them.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types

from domeng.core import layout as L
from domeng.core.kept import when_kept
from domeng.core.nbrng import randbelow_at
from domeng.core.observation import MAX_TURNS, OBS_HAND, OBS_LEN, OBS_SEAT, OBS_TURN
from domeng.engine import fast as F
from domeng.engine import step as E
from domeng.engine import tables as T
from domeng.players.heuristics import N_BUILTIN, P_EXPERT, builtin_best_inline, builtin_choose


@njit(cache=True, inline="always")
def seat_view(S, s, crng):
    """Make ``S.obs`` seat ``s``'s D17 view (its seat and hand) and hand its
    generator ``S.prng[s]`` over in the one-word array ``crng``."""
    S.obs[OBS_SEAT] = s
    S.obs[OBS_HAND] = S.hands[s]
    crng[0] = S.prng[s]


@njit(cache=True, inline="always")
def builtin_pick(pid, S, s, n, crng):
    """Seat ``s``'s built-in player (``pid < N_BUILTIN``) picks an index into
    its ``n`` legal moves (``S.moves``), seeing only its D17 view and drawing
    only from its own generator ``S.prng[s]`` (handed over in ``crng``)."""
    if pid == 0:
        return 0 if n == 1 else randbelow_at(S.prng, s, n)  # the random player, inline
    seat_view(S, s, crng)
    idx = builtin_choose(pid, S.obs, S.hist, S.moves, n, crng)
    S.prng[s] = crng[0]
    return idx


@njit(cache=True, inline="always")
def choose(pids, fns, S, s, n, scratch):
    """Seat ``s``'s player picks an index into its ``n`` legal moves
    (``S.moves``).  It sees only its D17 view and draws only from its own
    generator ``S.prng[s]``, handed over in the one-word array ``crng`` of
    ``scratch`` (``(crng, pobs, phist, pmoves)``, :func:`player_action`'s)."""
    pid = pids[s]
    crng = scratch[0]
    if pid < N_BUILTIN:
        return builtin_pick(pid, S, s, n, crng)
    seat_view(S, s, crng)
    idx = call_compiled_player(fns[s], (S.obs, S.hist, S.moves), n, scratch)
    S.prng[s] = crng[0]
    return idx


@njit(cache=True, inline="always")
def copy_view(obs, hist, moves, n, pobs, phist, pmoves):
    """Copy a seat's view into a compiled player's arrays (``pobs``,
    ``phist``, ``pmoves``): the history up to this turn, the ``n`` legal
    moves, ``-1`` past them."""
    for i in range(OBS_LEN):
        pobs[i] = obs[i]
    k = obs[OBS_TURN]
    for i in range(MAX_TURNS):
        for c in range(3):
            phist[i, c] = hist[i, c] if i < k else -1
    for i in range(pmoves.shape[0]):
        pmoves[i] = moves[i] if i < n else -1


@njit(cache=True, _nrt=False)
def call_compiled_player(fn, view, n, scratch):
    """A user's compiled player ``fn`` gets copies of the seat's ``view``
    (``(obs, hist, moves)``, its ``n`` legal moves) in ``scratch``'s
    arrays (``(crng, pobs, phist, pmoves)``): it can read nothing past its
    own legal moves and change nothing."""
    crng, pobs, phist, pmoves = scratch
    obs, hist, moves = view
    copy_view(obs, hist, moves, n, pobs, phist, pmoves)
    return fn(pobs, phist, pmoves, n, crng)


@njit(cache=True, inline="always")
def checked_move(S, idx, n):
    """Move ``idx`` of the ``n`` legal moves; a compiled player's out-of-range
    answer is counted in ``ST_BAD_MOVES`` and replaced by move 0."""
    if idx < 0 or idx >= n:
        S.st[L.ST_BAD_MOVES] += 1
        idx = 0
    return S.moves[idx]


@njit(cache=True, inline="always", nogil=True)
def player_action(pids, fns, S, crng, pobs, phist, pmoves):
    """The action the seat to move's player takes: a legal move, or ``PASS``
    when it has none.  A compiled player's out-of-range answer is counted in
    ``ST_BAD_MOVES`` and replaced by its first legal move (never played)."""
    s = S.ctl[E.C_SEAT]
    n = E.legal_moves(S)
    if n == 0:
        return E.PASS
    return checked_move(S, choose(pids, fns, S, s, n, (crng, pobs, phist, pmoves)), n)


@njit(cache=True, inline="always", nogil=True)
def builtin_action(pids, S, crng):
    """The action of the seat to move's built-in player (``pids[s] <
    N_BUILTIN``): :func:`player_action` without the tuple of compiled
    functions, so a call from Python types three plain arguments (the same
    move and draws: ``tests/engine/test_step_api.py``)."""
    s = S.ctl[E.C_SEAT]
    n = E.legal_moves(S)
    if n == 0:
        return E.PASS
    return S.moves[builtin_pick(pids[s], S, s, n, crng)]


@njit(cache=True, _nrt=False)
def keep_record(records, r, rec):
    """Round ``r``'s record ``rec`` into ``records`` (``(recs, base)``: row
    ``base + r`` of ``recs``); nothing for ``records`` None, a choice made
    when the caller is compiled (numba prunes the branch for a None)."""
    if records is not None:
        recs, base = records
        for c in range(L.REC_LEN):
            recs[base + r, c] = rec[c]


@njit(cache=True, inline="always")
def _act(S, ctx, fns):
    # the seat to move's player (ctx: the game's, see play_game)
    crng, pobs, phist, pmoves = ctx[1]
    return player_action(ctx[0], fns, S, crng, pobs, phist, pmoves)


@njit(cache=True, inline="always")
def _on_step(S, ended, ctx):
    # a round's record kept as it ends (round r of this call: ctx[3] is the
    # table's rounds before it)
    if ended:
        keep_record(ctx[2], S.st[L.ST_ROUNDS] - ctx[3] - 1, S.rec)
    return 0.0


@njit(cache=True, _nrt=False)
def play_game(S, players, scratch, limits, records):
    """Play table ``S`` (a one-table state, between rounds) for ``rounds``
    more rounds, or until ``camat_target`` CAMATs if > 0 (``limits``:
    ``(rounds, camat_target)``), through the N-table driver's loop of turns
    (:func:`domeng.engine.tables.play_until`: :func:`step.new_round`, then
    :func:`step.step` until the round ends; the twin of ``Table.play_round``
    in the reference engine), and store its state in ``S.st``.
    ``players``: ``(pids, fns)``; ``scratch``: the arrays of
    :func:`player_action`; each round's record into ``records`` as
    :func:`keep_record` takes them (None: none kept).  Returns the rounds
    played."""
    rounds, camat_target = limits
    start = S.st[L.ST_ROUNDS]
    if rounds <= 0:
        return 0
    pids, fns = players
    T.play_until(
        S,
        -1,
        T.Limits(start + rounds, camat_target),
        _act,
        (pids, scratch, records, start),
        fns,
        _on_step,
    )
    E.store_table(S)
    return S.st[L.ST_ROUNDS] - start


@njit(cache=True, inline="always")
def new_scratch():
    """The arrays :func:`player_action` lends a seat's player: its generator's
    word, and copies of the view for a compiled player."""
    return (
        np.zeros(1, dtype=np.uint64),
        np.zeros(OBS_LEN, dtype=np.int64),
        np.full((MAX_TURNS, 3), -1, dtype=np.int64),
        np.full(64, -1, dtype=np.int64),
    )


@when_kept
def _rows_of(recs, base):
    # the records' rows of a table, from row base (recs None: none kept)
    return (recs, base)


@njit(cache=True)
def _study_game(S, i, ctx, fns):
    # table i of a study's stack, through all its rounds of this call
    pids, lim, recs, rec_n = ctx
    played = play_game(S, (pids, fns), new_scratch(), (lim[0], lim[1]), _rows_of(recs, i * lim[0]))
    rec_n[i] = played
    return played


_stack_obs = F.stack_array(types.int64, OBS_LEN)


@njit(cache=True, _nrt=False)
def play_rounds_random(rules, st, rounds, camat_target, agg):
    """The engine's aggregate-mode loop when every seat is ``random``
    (compiled without the players' observation)."""
    wk = F.stack_scratch()
    return F.play_rounds(
        rules, st, agg, (rounds, camat_target), wk, F.no_choice, (wk, wk), (False, False)
    )


@njit(cache=True, _nrt=False)
def play_table_fast(pids, rules, st, rounds, camat_target, agg):
    """:func:`play_game` in aggregate mode for built-in players, on the
    engine's aggregate-mode loop (:func:`domeng.engine.fast.play_rounds`):
    the same aggregates and state, draw for draw; returns the rounds played.
    """
    obs = _stack_obs()
    wk = F.stack_scratch()
    full_obs = False
    for p in range(5):
        if pids[p] == P_EXPERT:
            full_obs = True
    return F.play_rounds(
        rules,
        st,
        agg,
        (rounds, camat_target),
        pids,
        builtin_best_inline,
        (obs, wk),
        (True, full_obs),
    )


def fast_path(pids, do_rec) -> bool:
    """Aggregate mode with only the built-in players of the engine's fast loop."""
    return not do_rec and all(0 <= int(p) < N_BUILTIN for p in pids)


@njit(cache=True, parallel=True, nogil=True)
def run_fast_players(pids, rules, state, rounds, camat_target, agg, rec_n):
    """:func:`run_fast` with some built-in player other than ``random``."""
    for i in prange(state.shape[0]):
        rec_n[i] = play_table_fast(pids, rules, state[i], rounds, camat_target, agg[i])


@njit(cache=True, parallel=True, nogil=True)
def run_fast_random(rules, state, rounds, camat_target, agg, rec_n):
    """:func:`run_fast` with ``random`` at every seat."""
    for i in prange(state.shape[0]):
        rec_n[i] = play_rounds_random(rules, state[i], rounds, camat_target, agg[i])


def run_fast(pids, rules, state, rounds, camat_target, agg, rec_n):
    """:func:`run_kernel` on the aggregate-mode loop, in parallel over tables
    (a loop compiled without the players' observation when every seat is
    ``random``: only the one needed is compiled)."""
    if not np.any(pids):
        run_fast_random(rules, state, rounds, camat_target, agg, rec_n)
    else:
        run_fast_players(pids, rules, state, rounds, camat_target, agg, rec_n)


@njit(cache=True, parallel=True, nogil=True)
def run_steps(players, B, limits, recs, rec_n):
    """:func:`run_kernel` through the step API, in parallel over the tables
    of the stack ``B`` (:func:`study_stack`), each through all its rounds
    (:func:`domeng.engine.tables.drive_parallel`; ``players``: ``(pids,
    fns)``; ``limits``: ``(rounds, camat_target)``; ``recs`` None: no
    records, a variant compiled only when used); rounds played into
    ``rec_n``."""
    pids, fns = players
    # the limits as an array: a tuple of numbers does not pass into a
    # parallel loop's body (numba 0.68)
    lim = np.array(limits, dtype=np.int64)
    return T.drive_parallel(B, _study_game, (pids, lim, recs, rec_n), fns)


def study_stack(pids, rules, state, agg, kept):
    """The N-table driver's stack over a study's tables: their states
    ``state`` and aggregates ``agg`` used in place, nothing shared but the
    rules (:data:`domeng.engine.tables.OWN`), the observation fields players
    read kept when some seat's player is not ``random``; ``kept``: a
    :class:`~domeng.engine.step.Keep` (the batch keeps no deltas)."""
    full = int(np.any(np.asarray(pids) != 0))
    return T.stack_of(rules, state, T.Layout(full, T.OWN, np.int64), kept, agg)


def run_kernel(pids, fns, rules, state, rounds, camat_target, agg, out):
    """Play every table of ``state`` (in place) in parallel over tables:
    aggregates into ``agg``; ``out`` is ``(recs, rec_n)``: per-round records
    into ``recs`` (None: none kept), rounds played into ``rec_n``.
    Aggregate mode with built-in players runs on the engine's aggregate-mode
    loop (only it is compiled then); everything else steps through the step
    API."""
    recs, rec_n = out
    if fast_path(pids, recs is not None):
        run_fast(pids, rules, state, rounds, camat_target, agg, rec_n)
    else:
        B = study_stack(pids, rules, state, agg, E.keep(0, record=recs is not None, deltas=False))
        run_steps((pids, fns), B, (rounds, camat_target), recs, rec_n)


@njit(cache=True, nogil=True)
def trace_kernel(players, B, rounds, recs):
    """Play the one table of the stack ``B`` (:func:`study_stack`, which
    keeps a trace) for ``rounds`` rounds, each round's record into ``recs``
    (``[rounds, REC_LEN]``); returns the trace rows written (rows past the
    trace's length are counted but not written)."""
    S = T.table_at(B, 0)
    play_game(S, players, new_scratch(), (rounds, 0), (recs, 0))
    return S.tn[0]
