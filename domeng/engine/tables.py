"""N tables at once: the one driver (issue 21 item 3).

The tables live in one ``int64`` array ``T[n, ROW]``: row ``i`` holds every
field of table ``i``'s step-API state (:class:`domeng.engine.step.State`)
side by side, the fields a step touches first.  :func:`table_at` makes row
``i`` a :class:`~domeng.engine.step.State` of views (no copy; the same numba
type as any other state, so the step API's compiled code is shared), and
every function here is a loop over tables calling the one-table step API:
the rules stay in :mod:`domeng.engine.step` and the kernel.

Why one row per table: a step touches a few cache lines of many fields; in
one array per field (the former ``engine/batched.py`` and
``envs/tables.py``) those lines lie in 17 places far apart, and from about
1,000 tables on they came from memory, not the cache (the vectorised env at
4,096 tables ran at half its rate at 256; ``benchmarks/README.md``).

Two ways to drive them:

* all seats from outside (search, tests, custom loops): :func:`new_rounds`,
  :func:`legal_action_masks`, :func:`step_all`, :func:`observe_all`,
  :func:`seats_to_move`;
* one seat from outside, the others by a compiled policy (the vectorised
  environments, :mod:`domeng.envs.tables`): :func:`reset_tables` and
  :func:`step_tables`, which take records: :class:`Run` (the seed, the seat,
  the game's end, D16), :class:`Outputs` (what a step writes) and
  :class:`Hooks` (the policy, the score of a step and the view written,
  compiled functions), each hook with its own context record.

Table ``table_start + i`` draws from the same streams as that table of a
study with the same seed.

>>> import numpy as np
>>> from domeng.core.rules import Rules
>>> T = new_tables(Rules().to_array(), seed=5, table_start=10, n=3)
>>> new_rounds(T, np.ones(3, np.int64))
>>> masks = np.zeros((3, 57), np.int64)
>>> legal_action_masks(T, masks)
>>> ended = np.zeros(3, np.int64)
>>> step_all(T, masks.argmax(axis=1), ended)  # each table's first legal action
>>> ended.tolist()
[0, 0, 0]
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from domeng.core import layout as L
from domeng.core.events import TR_WIDTH
from domeng.core.nbrng import seat_state, table_state
from domeng.core.observation import MAX_TURNS, OBS_LEN
from domeng.core.rules import R_LEN, R_STONES
from domeng.engine import kernel as K
from domeng.engine import step as E

State = E.State

#: each field's shape in a row (the step API's fields)
SHAPES = {
    "rules": (R_LEN,),
    "hands": (5,),
    "obs": (OBS_LEN,),
    "hist": (MAX_TURNS, 3),
    "w": (K.W_LEN,),
    "st": (L.ST_LEN,),
    "rng": (1,),
    "prng": (5,),
    "agg": (L.AGG_LEN,),
    "rec": (L.REC_LEN,),
    "tr": (1, TR_WIDTH),
    "tn": (1,),
    "ctl": (E.CTL_LEN,),
    "delta": (6,),
    "perm": (28,),
    "payers": (8,),
    "moves": (64,),
}
#: the generators' states are ``uint64`` (a view of the same words)
UNSIGNED = ("rng", "prng")
#: the order in a row: what every step touches first, what a round's end
#: touches (the record, the aggregates) last
ROW_ORDER = (
    "ctl",
    "hands",
    "delta",
    "rng",
    "prng",
    "tn",
    "st",
    "obs",
    "w",
    "moves",
    "payers",
    "hist",
    "perm",
    "rules",
    "tr",
    "rec",
    "agg",
)


def _offsets() -> dict[str, int]:
    out, k = {}, 0
    for name in ROW_ORDER:
        out[name] = k
        k += int(np.prod(SHAPES[name]))
    out["ROW"] = k + (-k) % 8  # whole cache lines
    return out


_OFF = _offsets()
#: words in a table's row
ROW = _OFF["ROW"]
# the offsets as plain globals (numba freezes them into the code)
_RULES, _HANDS, _OBS, _HIST = _OFF["rules"], _OFF["hands"], _OFF["obs"], _OFF["hist"]
_W, _ST, _RNG, _PRNG = _OFF["w"], _OFF["st"], _OFF["rng"], _OFF["prng"]
_AGG, _REC, _TR, _TN = _OFF["agg"], _OFF["rec"], _OFF["tr"], _OFF["tn"]
_CTL, _DELTA, _PERM, _PAYERS, _MOVES = (
    _OFF["ctl"],
    _OFF["delta"],
    _OFF["perm"],
    _OFF["payers"],
    _OFF["moves"],
)
_H = MAX_TURNS * 3

#: how the tables' games run (:func:`reset_tables`, :func:`step_tables`):
#: ``seed`` (``uint64``), the ``seat`` played from outside, the game's end
#: (``rounds`` / ``camats``, D16, :func:`domeng.engine.step.game_over`) and
#: whether a finished game is followed by the next at once (``autoreset``)
Run = namedtuple("Run", ("seed", "seat", "rounds", "camats", "autoreset"))
#: what :func:`step_tables` writes, per table: ``views``/``final_views``
#: (what the ``write`` hook writes; ``final_views``: a finished game's last), ``mask``
#: (``N_ACTIONS`` per table), ``score`` (the outside seat's, since its last
#: action), ``over`` (the game ended), ``pending`` (score not yet returned),
#: ``bad`` (an illegal action); ``next_table`` (``int64[1]``: the next
#: game's table index) and ``scratch`` (``int64[OBS_LEN]``, for the view)
Outputs = namedtuple(
    "Outputs",
    ("views", "final_views", "mask", "score", "over", "pending", "bad", "next_table", "scratch"),
)
#: the compiled functions :func:`step_tables` calls: ``act(ctx, S)`` the
#: action of the seat to move (not the outside seat), ``score(ctx, S,
#: ended)`` the outside seat's score for the step just taken, ``write(S,
#: seat, scratch, view_row, mask_row)`` what the outside seat is given,
#: ``start(S, run, next_table, act_ctx, score_ctx)`` a new game
#: (:func:`start_game` with these hooks, compiled on its own; None inside it)
Hooks = namedtuple("Hooks", ("act", "score", "write", "start"))

# The step API's own functions, compiled inline into the loops below (the
# same source, so no rule is restated here): a call that passes the whole
# state record costs more than the step itself otherwise.
_inline = njit(inline="always")
is_legal = _inline(E.is_legal.py_func)
game_over = _inline(E.game_over.py_func)
legal_action_mask = _inline(E.legal_action_mask.py_func)
observe = _inline(E.observe.py_func)


# ---------------------------------------------------------------- the record
@njit(cache=True, inline="always")
def table_at(T, i):
    """Table ``i`` of ``T`` as a step-API state (views of row ``i``, no copy).

    >>> from domeng.core.rules import Rules
    >>> T = new_tables(Rules().to_array(), seed=7, table_start=0, n=2)
    >>> E.new_round(table_at(T, 1))  # table 1's starter (D3)
    0
    """
    r = T[i]
    return State(
        r[_RULES : _RULES + R_LEN],
        r[_HANDS : _HANDS + 5],
        r[_OBS : _OBS + OBS_LEN],
        r[_HIST : _HIST + _H].reshape((MAX_TURNS, 3)),
        r[_W : _W + K.W_LEN],
        r[_ST : _ST + L.ST_LEN],
        r[_RNG : _RNG + 1].view(np.uint64),
        r[_PRNG : _PRNG + 5].view(np.uint64),
        r[_AGG : _AGG + L.AGG_LEN],
        r[_REC : _REC + L.REC_LEN],
        r[_TR : _TR + TR_WIDTH].reshape((1, TR_WIDTH)),
        r[_TN : _TN + 1],
        r[_CTL : _CTL + E.CTL_LEN],
        r[_DELTA : _DELTA + 6],
        r[_PERM : _PERM + 28],
        r[_PAYERS : _PAYERS + 8],
        r[_MOVES : _MOVES + 64],
    )


def fields(T: np.ndarray) -> State:
    """Every field of ``T`` stacked over its tables (``fields(T).hands[i]``
    is table ``i``'s hands), as numpy views of ``T``.

    Parameters
    ----------
    T:
        ``int64[n, ROW]``, from :func:`new_tables`.

    Returns
    -------
    State
        Each field with a leading table axis (views; writing one writes ``T``).

    Examples
    --------
    >>> from domeng.core.rules import Rules
    >>> T = new_tables(Rules().to_array(), seed=7, table_start=0, n=2)
    >>> fields(T).hist.shape, int(fields(T).obs[1, E.OBS_TABLE])
    ((2, 128, 3), 25)
    """
    n = T.shape[0]
    out = []
    for name in State._fields:
        a = T[:, _OFF[name] : _OFF[name] + int(np.prod(SHAPES[name]))]
        a = a.reshape((n, *SHAPES[name]))
        out.append(a.view(np.uint64) if name in UNSIGNED else a)
    return State(*out)


def table(T: np.ndarray, i: int) -> State:
    """Table ``i``'s state record from Python (numpy views of row ``i``).

    Parameters
    ----------
    T:
        ``int64[n, ROW]``, from :func:`new_tables`.
    i:
        The table's row.

    Returns
    -------
    State
        Views: writing a field writes ``T``.

    Examples
    --------
    >>> from domeng.core.rules import Rules
    >>> T = new_tables(Rules().to_array(), seed=7, table_start=0, n=2)
    >>> table(T, 1).hands.shape, bool(E.round_over(table(T, 1)))
    ((5,), True)
    """
    return State(*[f[i] for f in fields(T)])


def new_tables(rules: np.ndarray, seed: int, table_start: int, n: int, full: int = 1) -> np.ndarray:
    """``n`` fresh tables ``table_start .. table_start + n - 1`` of ``seed``,
    no round dealt yet: each row as :func:`domeng.engine.step.new_state`
    makes a table (no trace rows; records and per-step deltas on).

    Parameters
    ----------
    rules:
        ``int64[R_LEN]``, :meth:`domeng.core.rules.Rules.to_array`.
    seed, table_start, n:
        Which tables.
    full:
        1 to keep the observation fields players read (history, voids), 0
        for speed.

    Returns
    -------
    numpy.ndarray
        ``int64[n, ROW]``; :func:`table_at` reads a row as a state.

    Examples
    --------
    >>> from domeng.core.rules import Rules
    >>> T = new_tables(Rules().to_array(), seed=5, table_start=0, n=4)
    >>> T.shape == (4, ROW), fields(T).ctl[:, E.C_OVER].tolist()
    (True, [1, 1, 1, 1])
    """
    rules = np.ascontiguousarray(rules, dtype=np.int64)
    st = K.init_states(np.uint64(seed), table_start, n, rules[R_STONES])
    one = E.new_state(rules, st[0], full, 0)
    T = np.zeros((n, ROW), dtype=np.int64)
    for dst, src in zip(fields(T), one):
        dst[:] = src
    fields(T).st[:] = st
    _load_all(T)
    return T


@njit(cache=True, _nrt=False)
def _load_all(T):
    for i in range(T.shape[0]):
        E.load_table(table_at(T, i))


# ---------------------------------------------------------------- all seats from outside
@njit(cache=True, _nrt=False)
def new_rounds(T, which):
    """Deal the next round at every table ``i`` with ``which[i] != 0``
    (D2..D4); returns nothing.  See the module's example."""
    for i in range(T.shape[0]):
        if which[i]:
            E.new_round(table_at(T, i))


@njit(cache=True, _nrt=False)
def legal_action_masks(T, out):
    """``out[i, a] = 1`` for the legal actions at table ``i`` (D5; all 0
    between rounds), ``out``: ``[n, N_ACTIONS]``; returns nothing."""
    for i in range(T.shape[0]):
        legal_action_mask(table_at(T, i), out[i])


@njit(cache=True, _nrt=False)
def step_all(T, actions, ended):
    """Table ``i``'s seat to move takes ``actions[i]``; ``ended[i] = 1`` if
    the round ended, -1 if the action was illegal (that table unchanged),
    else 0.  Tables with no round in progress are skipped (``ended[i] = 0``)."""
    for i in range(T.shape[0]):
        S = table_at(T, i)
        if S.ctl[E.C_OVER]:
            ended[i] = 0
        elif not is_legal(S, actions[i]):
            ended[i] = -1
        else:
            ended[i] = E.step(S, actions[i])


@njit(cache=True, _nrt=False)
def observe_all(T, seats, out):
    """Seat ``seats[i]``'s D17 view of table ``i`` into ``out[i]``
    (``int64[n, OBS_LEN]``); returns nothing."""
    for i in range(T.shape[0]):
        observe(table_at(T, i), seats[i], out[i])


@njit(cache=True, _nrt=False)
def seats_to_move(T, out):
    """The seat to move at each table into ``out`` (-1 between rounds)."""
    for i in range(T.shape[0]):
        out[i] = T[i, _CTL + E.C_SEAT]


# ---------------------------------------------------------------- one seat from outside
@njit(cache=True, _nrt=False)
def fresh_game(S, seed, table):
    """Start ``S`` afresh as table ``table`` of ``seed`` (no round yet), as
    row ``table`` of :func:`domeng.engine.kernel.init_states` (without its
    allocation); its aggregates and trace are cleared."""
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
    for i in range(6):
        S.delta[i] = 0
    for i in range(S.agg.shape[0]):
        S.agg[i] = 0
    S.tn[0] = 0


@njit(cache=True, inline="always")
def play_until(S, run, hooks, act_ctx, score_ctx):
    """``hooks.act`` plays for every seat but ``run.seat`` (new rounds are
    dealt as the game goes on) until ``run.seat`` is to move or the game is
    over (D16); returns ``(the sum of hooks.score over the steps, over)``."""
    total = 0.0
    while True:
        if S.ctl[E.C_OVER]:
            if game_over(S, run.rounds, run.camats):
                return total, True
            E.new_round(S)
        if S.ctl[E.C_SEAT] == run.seat:
            return total, False
        ended = E.step(S, hooks.act(act_ctx, S))
        total += hooks.score(score_ctx, S, ended)


@njit(cache=True, inline="always")
def start_game(S, run, next_table, hooks, act_ctx, score_ctx):
    """A fresh game at ``S`` (table ``next_table[0]`` of ``run.seed``, then
    counted on), played by ``hooks.act`` until ``run.seat`` is to move;
    returns the score meanwhile.  The body of a ``hooks.start``: called,
    not inlined, in the step loops (a new game is rare, and an inlined copy
    of :func:`play_until` doubled their compile: an env's first use, 101 ->
    47 s); hooks are never passed to a call that is not inlined (numba
    would then embed the functions' addresses, and the code could not be
    cached)."""
    fresh_game(S, run.seed, next_table[0])
    next_table[0] += 1
    r, _ = play_until(S, run, hooks, act_ctx, score_ctx)
    return r


@njit(cache=True, inline="always")
def reset_tables(T, run, out, hooks, act_ctx, score_ctx):
    """A fresh game at every table (table ``out.next_table[0]`` of the seed
    onwards, in row order), played until ``run.seat`` is to move: what it
    is given written (``hooks.write``), the score meanwhile in ``out.pending``."""
    for i in range(T.shape[0]):
        S = table_at(T, i)
        out.pending[i] = hooks.start(S, run, out.next_table, act_ctx, score_ctx)
        hooks.write(S, run.seat, out.scratch, out.views[i], out.mask[i])


@njit(cache=True, inline="always")
def check_all(T, actions, bad):
    """``bad[i] = 1`` where ``actions[i]`` is not legal at table ``i``; returns how many."""
    n = 0
    for i in range(T.shape[0]):
        ok = is_legal(table_at(T, i), actions[i])
        bad[i] = 0 if ok else 1
        n += 0 if ok else 1
    return n


@njit(cache=True, inline="always")
def step_tables(T, actions, run, out, hooks, act_ctx, score_ctx):
    """``run.seat`` plays ``actions[i]`` at every table, then ``hooks.act``
    until it is to move again or the game is over; ``out.score[i]`` its
    score since its last action, ``out.over[i]`` whether the game ended.
    With ``run.autoreset`` a finished table's last view goes to
    ``out.final_views[i]`` and the next game starts at once (its view in
    ``out.views[i]``).  Returns the number of games that ended; but first
    every action is checked, and if any is illegal nothing is played:
    ``out.bad[i] = 1`` marks them and the return is minus their number."""
    n_bad = check_all(T, actions, out.bad)
    if n_bad:
        return -n_bad
    done = 0
    seat = run.seat
    for i in range(T.shape[0]):
        S = table_at(T, i)
        ended = E.step(S, actions[i])
        own = hooks.score(score_ctx, S, ended)
        r, over = play_until(S, run, hooks, act_ctx, score_ctx)
        out.score[i] = out.pending[i] + own + r
        out.pending[i] = 0.0
        out.over[i] = over
        if over:
            done += 1
            if run.autoreset:
                hooks.write(S, seat, out.scratch, out.final_views[i], out.mask[i])
                out.pending[i] = hooks.start(S, run, out.next_table, act_ctx, score_ctx)
        hooks.write(S, seat, out.scratch, out.views[i], out.mask[i])
    return done
