"""The step API: the one way to advance a game of Domeng, compiled.

Small ``@njit`` functions over one table-state record, :class:`State` (a
namedtuple of arrays, so numba passes it as one argument and keeps every
field a plain array).  In the manner of pgx: :func:`new_round` deals,
:func:`legal_action_mask` / :func:`legal_actions` say what the seat to move
may do, :func:`step` plays or passes and settles the round when it ends
(D7..D15), :func:`observe` gives a seat exactly its D17 view.

The action space is fixed: ``tile * 2 + end`` for the 56 placements of the
28 tiles (end 0 left, 1 right) plus :data:`PASS` (56), legal only when
nothing else is (D5).  When both placements of a tile leave the same ends,
only ``end 0`` is legal (D5's one move); a lead is ``end 0``.

Every surface steps through these functions: the batch round loop
(:mod:`domeng.batch.loop`), the search players' rollouts, the terminal and
browser tables (through :class:`domeng.engine.game.Game`) and the
environments.  The rules themselves are the kernel's functions
(:mod:`domeng.engine.kernel`), each the twin of the reference engine's.

Fields of :class:`State` (``int64`` unless noted):

``rules[R_LEN]``        the rules in force (:meth:`domeng.core.rules.Rules.to_array`)
``hands[5]``            each seat's tiles, 28-bit masks (private)
``obs[OBS_LEN]``        the public state in the observation layout
                        (:mod:`domeng.core.observation`); the truth for stones
                        and ends while the table plays
``hist[MAX_TURNS, 3]``  the round's public history
``w[W_LEN]``            the round's counters and outcome (``kernel.W_*``)
``st[ST_LEN]``          what carries over between rounds (:mod:`domeng.core.layout`),
                        synced from ``obs``/generators by :func:`store_table`
``rng`` (``uint64[1]``) the deal stream; ``prng`` (``uint64[5]``) the seats' streams
``agg[AGG_LEN]``        the table's aggregates; ``rec[REC_LEN]`` the last round's record
``tr[rows, TR_WIDTH]``, ``tn[1]``  the round's event rows (rows written ``tn[0]``)
``ctl[CTL_LEN]``        control: seat to move, flags (``C_*`` below)
``delta[6]``            stones gained by each seat (and the table, index 5) in the last step
``perm[28]``, ``payers[8]``, ``moves[64]``  scratch

``tr``, ``rec`` and ``delta`` are kept only for the callers that read them
(:class:`Keep`, given to :func:`new_state`): each is an array or ``None``,
and numba compiles what is not kept to nothing (issue 21 item 2: chosen
when the code is compiled, not by a flag of the state; ``core/kept.py``).

A whole round through the step API (a :class:`~domeng.engine.game.Game` makes
the record; every seat plays its first legal action):

>>> import numpy as np
>>> from domeng.engine import step as E
>>> from domeng.engine.game import Game
>>> S = Game(seed=7).state
>>> E.new_round(S)  # the starter (D3)
3
>>> mask = np.zeros(E.N_ACTIONS, dtype=np.int64)
>>> while not E.round_over(S):
...     n = E.legal_action_mask(S, mask)
...     ended = E.step(S, int(np.flatnonzero(mask)[0]))
>>> int(S.obs[E.OBS_TABLE]) + int(S.obs[E.OBS_STONES : E.OBS_STONES + 5].sum())
25
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from domeng.core import layout as L
from domeng.core.bits import lowest_bit
from domeng.core.events import EV_DEAL, TR_WIDTH
from domeng.core.kept import when_kept
from domeng.core.observation import (
    MAX_TURNS,
    OBS_HAND,
    OBS_LEN,
    OBS_RULES,
    OBS_SEAT,
    OBS_STONES,
    OBS_TABLE,
)
from domeng.core.tiles import NUMBER_MASK
from domeng.engine import kernel as K
from domeng.engine import rulebook as RB

#: the pass action; actions 0..55 are ``tile * 2 + end``
PASS = 56
N_ACTIONS = 57

# ctl slots
C_SEAT = 0  # seat to move, -1 when no round is in progress
C_STARTER = 1  # this round's starter
C_ROUND = 2  # this round's number (1 = first)
C_OVER = 3  # 1 when no round is in progress (before the first, after the end)
C_FULL = 4  # keep the observation fields only players read (history, voids...)
C_LAST_SEAT = 5  # the seat that took the last step
CTL_LEN = 6

#: what a state keeps beyond the play (:func:`new_state`), each an array or
#: ``None`` (not kept, compiled to nothing): the event rows ``tr``
#: (``[rows, TR_WIDTH]``), the last round's record ``rec`` (``[REC_LEN]``), the
#: last step's stone deltas ``delta`` (``[6]``); :func:`keep` makes one
Keep = namedtuple("Keep", ("tr", "rec", "delta"))

State = namedtuple(
    "State",
    (
        "rules",
        "hands",
        "obs",
        "hist",
        "w",
        "st",
        "rng",
        "prng",
        "agg",
        "rec",
        "tr",
        "tn",
        "ctl",
        "delta",
        "perm",
        "payers",
        "moves",
    ),
)

_NUM = NUMBER_MASK.copy()


def keep(trace_rows: int = 0, record: bool = True, deltas: bool = True) -> Keep:
    """A :class:`Keep` of new arrays: room for ``trace_rows`` event rows a
    round (0: no trace; ``core.events.TR_ROWS_PER_ROUND`` always suffices),
    the round's record when ``record``, the step's deltas when ``deltas``.

    >>> k = keep(trace_rows=0, record=True, deltas=False)
    >>> k.tr is None, k.rec.shape == (L.REC_LEN,), k.delta is None
    (True, True, True)
    """
    return Keep(
        np.zeros((trace_rows, TR_WIDTH), dtype=np.int64) if trace_rows > 0 else None,
        np.zeros(L.REC_LEN, dtype=np.int64) if record else None,
        np.zeros(6, dtype=np.int64) if deltas else None,
    )


#: nothing kept beyond the play (the search players' rollouts)
KEEP_NOTHING = Keep(None, None, None)


def copy_state(S: State) -> State:
    """A copy of the state record ``S`` (its fields not kept stay ``None``).

    >>> from domeng.core.rules import Rules
    >>> S = new_rollout_state(Rules().to_array())
    >>> C = copy_state(S)
    >>> C.obs is not S.obs, C.tr is None
    (True, True)
    """
    return State(*[None if f is None else f.copy() for f in S])


# ---------------------------------------------------------------- a new table
@njit(cache=True)
def new_state(rules, st, full, kept):
    """A table's state record, continuing the table state ``st`` (a row of
    :func:`domeng.engine.kernel.init_states`, copied).  ``full``: keep the
    observation fields players read; ``kept``: the trace, record and deltas
    kept (:class:`Keep`: arrays, used as they are, or ``None``).

    Parameters
    ----------
    rules:
        ``int64[R_LEN]``, :meth:`domeng.core.rules.Rules.to_array`.
    st:
        ``int64[ST_LEN]``: stones, CAMAT, next starter and the generators'
        states carried from round to round.
    full:
        1 to keep the fields players read (history, voids), 0 for speed.
    kept:
        :class:`Keep`: what is kept beyond the play; its type (array or
        ``None``, field by field) chooses the code compiled.

    Returns
    -------
    State
        A new record, no round in progress.

    Examples
    --------
    >>> from domeng.core.rules import Rules
    >>> from domeng.engine import kernel as K
    >>> st = K.init_states(np.uint64(7), 0, 1, 25)[0]  # table 0 of seed 7
    >>> S = new_state(Rules().to_array(), st, 1, keep())
    >>> bool(round_over(S)), new_round(S), S.tr is None
    (True, 3, True)
    """
    ctl = np.zeros(CTL_LEN, dtype=np.int64)
    ctl[C_SEAT] = -1
    ctl[C_OVER] = 1
    ctl[C_FULL] = full
    ctl[C_LAST_SEAT] = -1
    S = State(
        rules.copy(),
        np.zeros(5, dtype=np.int64),
        np.zeros(OBS_LEN, dtype=np.int64),
        np.full((MAX_TURNS, 3), -1, dtype=np.int64),
        np.zeros(K.W_LEN, dtype=np.int64),
        st.copy(),
        np.zeros(1, dtype=np.uint64),
        np.zeros(5, dtype=np.uint64),
        np.zeros(L.AGG_LEN, dtype=np.int64),
        kept.rec,
        kept.tr,
        np.zeros(1, dtype=np.int64),
        ctl,
        kept.delta,
        np.zeros(28, dtype=np.int64),
        np.zeros(8, dtype=np.int64),
        np.zeros(64, dtype=np.int64),
    )
    load_table(S)
    return S


@njit(cache=True, _nrt=False)
def load_table(S):
    """Stones, table and generators from ``S.st`` into the live fields
    (:func:`new_state` calls it; returns nothing)."""
    S.rng[0] = np.uint64(S.st[L.ST_RNG])
    for p in range(5):
        S.prng[p] = np.uint64(S.st[L.ST_SEAT_RNG + p])
    for i in range(S.rules.shape[0]):
        S.obs[OBS_RULES + i] = S.rules[i]
    for p in range(5):
        S.obs[OBS_STONES + p] = S.st[L.ST_STONES + p]
    S.obs[OBS_TABLE] = S.st[L.ST_TABLE]


@njit(cache=True, _nrt=False)
def store_table(S):
    """The live stones, table and generators back into ``S.st`` (returns
    nothing; a batch loop calls it before it saves the table's state)."""
    for p in range(5):
        S.st[L.ST_STONES + p] = S.obs[OBS_STONES + p]
    S.st[L.ST_TABLE] = S.obs[OBS_TABLE]
    S.st[L.ST_RNG] = np.int64(S.rng[0])
    for p in range(5):
        S.st[L.ST_SEAT_RNG + p] = np.int64(S.prng[p])


# ---------------------------------------------------------------- a new round
@njit(cache=True, inline="always")
def _start(S, must, starter, rnd):
    # D3 chose the starter when no round came before (no next starter yet)
    d3 = 1 if S.st[L.ST_NEXT_STARTER] < 0 else 0
    K.begin_round(S.obs, S.hands, S.w, S.st, must, starter, rnd, d3)
    _trace_deal(K.trace_of(S.tr, S.tn), (rnd, starter, must), S.hands)
    S.ctl[C_SEAT] = starter
    S.ctl[C_STARTER] = starter
    S.ctl[C_ROUND] = rnd
    S.ctl[C_OVER] = 0
    S.ctl[C_LAST_SEAT] = -1
    zero_deltas(S.delta)


@when_kept
def _trace_deal(trace, row, hands):
    """The deal's row (EV_DEAL: ``row`` is ``(round, starter, must)``, then
    the five hands) into the trace (as :func:`domeng.engine.kernel._trace`)."""
    tr, tn = trace
    k = tn[0]
    if k < tr.shape[0]:
        tr[k, 0] = EV_DEAL
        tr[k, 1] = row[0]
        tr[k, 2] = row[1]
        tr[k, 3] = row[2]
        for s in range(5):
            tr[k, 4 + s] = hands[s]
    tn[0] = k + 1


@when_kept
def zero_deltas(delta):
    """The step's stone deltas back to 0 (``None``: none kept)."""
    for i in range(6):
        delta[i] = 0


@when_kept
def _deltas_before(delta, obs):
    # the stones before the step; :func:`_deltas_after` makes them the change
    for p in range(5):
        delta[p] = obs[OBS_STONES + p]
    delta[5] = obs[OBS_TABLE]


@when_kept
def _deltas_after(delta, obs):
    for p in range(5):
        delta[p] = obs[OBS_STONES + p] - delta[p]
    delta[5] = obs[OBS_TABLE] - delta[5]


@njit(cache=True, inline="always")
def _starter(S):
    """D3 (first round: the holder of the highest double, who must lead it
    unless the option says otherwise) or D4 (the CAMAT, else the winner)."""
    return RB.starter(S.st[L.ST_NEXT_STARTER], S.hands, 0, 0, S.rules, 0)


@njit(cache=True, _nrt=False)
def new_round(S):
    """Deal the next round from the table's deal stream (D2) and start it
    (D3, D4); returns the starter.  ``S``: a record with no round in progress.

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> new_round(S), int(S.ctl[C_SEAT])
    (3, 3)
    """
    K.deal(S.rng, S.perm, S.hands)
    starter, must = _starter(S)
    _start(S, must, starter, S.st[L.ST_ROUNDS] + 1)
    return starter


@njit(cache=True, _nrt=False)
def new_round_from_hands(S, hands):
    """Start the next round with the given five hands (``int64[5]``, 28-bit
    masks; the deal stream is not drawn from); returns the starter.

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> from domeng.core.tiles import mask_of
    >>> hands = np.array([mask_of(range(5 * s, 5 * s + 5)) for s in range(5)])
    >>> new_round_from_hands(S, hands)  # D3: tile 27, [6|6], is out: [5|5] opens
    4
    """
    for s in range(5):
        S.hands[s] = hands[s]
    starter, must = _starter(S)
    _start(S, must, starter, S.st[L.ST_ROUNDS] + 1)
    return starter


# ---------------------------------------------------------------- what may be done (D5)
@njit(cache=True, inline="always")
def legal_moves(S):
    """The seat to move's legal moves into ``S.moves`` (actions, ascending);
    returns their number (0: it must pass).  A round must be in progress.

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> new_round(S)
    3
    >>> n = legal_moves(S)
    >>> S.moves[:n].tolist()  # D3: the opener leads [6|6]
    [54]
    """
    return K.legal_moves(S.hands[S.ctl[C_SEAT]], S.obs, S.moves)


@njit(cache=True)
def legal_action_bits(S):
    """The legal actions of the seat to move as the bits of one ``int64``
    (bit ``a`` set: action ``a`` is legal; the 57 actions fit): its legal moves,
    or ``PASS`` alone when it has none (D5); 0 when no round is in progress.
    :func:`legal_action_mask` writes these bits out and :func:`is_legal`
    reads one of them (the vector environment keeps them per table, so that
    checking N actions reads 8 bytes a table).

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> int(legal_action_bits(S))  # between rounds
    0
    >>> new_round(S)
    3
    >>> int(legal_action_bits(S)) == 1 << 54  # D3: the opener leads [6|6]
    True
    """
    if S.ctl[C_OVER]:
        return np.int64(0)
    n = legal_moves(S)
    if n == 0:
        return np.int64(1) << PASS
    bits = np.int64(0)
    for i in range(n):
        bits |= np.int64(1) << S.moves[i]
    return bits


@njit(cache=True, inline="always")
def mask_of_bits(bits, mask):
    """``mask[a]`` = bit ``a`` of ``bits`` for every action (``mask`` of
    ``N_ACTIONS`` entries, overwritten); returns how many are set."""
    for a in range(N_ACTIONS):
        mask[a] = 0
    n = 0
    m = bits
    while m:
        mask[lowest_bit(m)] = 1
        m &= m - 1
        n += 1
    return n


@njit(cache=True)
def legal_action_mask(S, mask):
    """``mask[a] = 1`` for every legal action of the seat to move (``PASS``
    only when nothing else is), 0 elsewhere; all 0 when no round is in progress
    (:func:`legal_action_bits` written out).
    ``mask``: ``int64[N_ACTIONS]``, overwritten.  Returns the number of legal
    actions.

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> mask = np.zeros(N_ACTIONS, dtype=np.int64)
    >>> legal_action_mask(S, mask)  # between rounds
    0
    >>> new_round(S)
    3
    >>> legal_action_mask(S, mask), np.flatnonzero(mask).tolist()
    (1, [54])
    """
    return mask_of_bits(legal_action_bits(S), mask)


@njit(cache=True, inline="always")
def bit_is_set(bits, action):
    """Whether ``action`` is one of the actions in ``bits``
    (:func:`legal_action_bits`); False for anything out of ``0..N_ACTIONS-1``."""
    if action < 0 or action >= N_ACTIONS:
        return False
    return (bits >> action) & 1 != 0


@njit(cache=True)
def is_legal(S, action):
    """Whether the seat to move may take ``action`` now (D5): False between
    rounds and for anything out of ``0..N_ACTIONS-1``.

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> new_round(S)
    3
    >>> bool(is_legal(S, 54)), bool(is_legal(S, PASS))
    (True, False)
    """
    return bit_is_set(legal_action_bits(S), action)  # False out of range too


# ---------------------------------------------------------------- step
@njit(cache=True, inline="always")
def step(S, action):
    """The seat to move plays ``action`` (a legal one: callers check with
    :func:`is_legal` or take it from :func:`legal_moves`) or passes
    (``PASS``).  A play that empties the hand ends the round (D9, D8, D10);
    a pass by the LAST MAPPANO blocks it (D11..D14); a pass by anyone else is
    a PASS or PASSEBUNGE (D6) paid at once (D7).  When the round ends it is
    settled: CAMAT (D15), the next starter (D4), the aggregates and record.
    Returns 1 when the round has ended, else 0.

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> new_round(S)
    3
    >>> step(S, 54), int(S.ctl[C_SEAT])  # [6|6] led; seat 4 to move
    (0, 4)
    """
    s = S.ctl[C_SEAT]
    _deltas_before(S.delta, S.obs)
    full = S.ctl[C_FULL]
    bk = (S.agg, S.w, K.trace_of(S.tr, S.tn))  # the bookkeeping (kernel.book)
    if action == PASS:
        ended = K.pass_turn(S.hands, S.obs, S.hist, s, full, bk)
    else:
        ended = K.play_move(S.hands, S.obs, S.hist, s, action, full, bk)
    S.ctl[C_LAST_SEAT] = s
    if ended:
        K.finish_round(S.rules, S.obs, S.st, S.rec, bk, S.ctl[C_STARTER], S.ctl[C_ROUND])
        K.record_seats(S.rec, S.obs, S.w, S.hands)
        S.ctl[C_SEAT] = -1
        S.ctl[C_OVER] = 1
    else:
        S.ctl[C_SEAT] = (s + 1) * (s < 4)  # D1: the next seat clockwise
    _deltas_after(S.delta, S.obs)
    return 1 if ended else 0


@njit(cache=True)
def clear_trace(S):
    """Forget the event rows written so far (the rows buffer is reused);
    returns nothing.

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> _ = new_round(S)
    >>> clear_trace(S)
    >>> int(S.tn[0])
    0
    """
    S.tn[0] = 0


@njit(cache=True)
def step_checked(S, action):
    """:func:`step` after a legality check: returns -1 (state unchanged)
    for an illegal action, else what :func:`step` returns.

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> new_round(S)
    3
    >>> step_checked(S, PASS)  # seat 3 can play: refused
    -1
    """
    if not is_legal(S, action):
        return -1
    return step(S, action)


# ---------------------------------------------------------------- what a seat sees (D17)
@njit(cache=True)
def observe(S, seat, out):
    """Seat ``seat``'s D17 view into ``out`` (``int64[OBS_LEN]``): the
    public state and its own hand, nothing else.  Returns nothing.

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> from domeng.core.observation import OBS_HAND, OBS_LEN
    >>> _ = new_round(S)
    >>> out = np.zeros(OBS_LEN, dtype=np.int64)
    >>> observe(S, 4, out)
    >>> int(out[OBS_HAND]) == int(S.hands[4])  # its own hand; no other
    True
    """
    for i in range(OBS_LEN):
        out[i] = S.obs[i]
    out[OBS_SEAT] = seat
    out[OBS_HAND] = S.hands[seat]


@njit(cache=True)
def observe_history(S, out):
    """The round's public history into ``out`` (``int64[MAX_TURNS, 3]``):
    rows past the turns taken are -1.  Returns nothing.

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> _ = new_round(S)
    >>> _ = step(S, 54)
    >>> out = np.zeros((MAX_TURNS, 3), dtype=np.int64)
    >>> observe_history(S, out)
    >>> int((out[:, 0] >= 0).sum())  # one turn taken
    1
    """
    k = S.obs[K.OBS_TURN]
    for i in range(MAX_TURNS):
        for c in range(3):
            out[i, c] = S.hist[i, c] if i < k else -1


# ---------------------------------------------------------------- state of play
# ---------------------------------------------------------------- positions (search)
@njit(cache=True)
def new_rollout_state(rules):
    """A state record for search rollouts: no trace, record or deltas
    (:data:`KEEP_NOTHING`, compiled out).  ``rules``: ``int64[R_LEN]``;
    returns a :class:`State` to be placed with :func:`set_position`.

    >>> from domeng.core.rules import Rules
    >>> S = new_rollout_state(Rules().to_array())
    >>> bool(round_over(S)), S.tr is None, S.rec is None, S.delta is None
    (True, True, True, True)
    """
    st = np.zeros(L.ST_LEN, dtype=np.int64)
    st[L.ST_CAMAT] = -1
    st[L.ST_NEXT_STARTER] = -1
    return new_state(rules, st, 0, Keep(None, None, None))


@njit(cache=True, _nrt=False)
def set_position(S, obs, w0, hands):
    """Put ``S`` at the position a seat observes (``obs``, with the round's
    counters ``w0`` from :func:`domeng.engine.kernel.counters_from_history`)
    with ``hands`` for all five seats (a determinization): the observer
    ``obs[OBS_SEAT]`` is to move.  Returns nothing.  The search players call it
    from compiled code (:mod:`domeng.players.search`); it is not for Python
    callers, whose positions come from :class:`~domeng.engine.game.Game`."""
    for i in range(OBS_LEN):
        S.obs[i] = obs[i]
    for s in range(5):
        S.hands[s] = hands[s]
    for i in range(K.W_LEN):
        S.w[i] = w0[i]
    S.st[L.ST_CAMAT] = obs[K.OBS_CAMAT]
    S.st[L.ST_ROUNDS] = obs[K.OBS_ROUND] - 1
    S.ctl[C_SEAT] = obs[OBS_SEAT]
    S.ctl[C_STARTER] = obs[K.OBS_STARTER]
    S.ctl[C_ROUND] = obs[K.OBS_ROUND]
    S.ctl[C_OVER] = 0
    S.ctl[C_FULL] = 0


@njit(cache=True, inline="always")
def held_at_settlement(S, seat):
    """Stones ``seat`` held when the last round was settled (before a
    CAMAT returned them to the table, D15).

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> held_at_settlement(S, 0)  # before any round: what the seat holds
    0
    """
    if S.w[K.W_CAMAT] >= 0:
        return S.w[K.W_HELD + seat]
    return S.obs[OBS_STONES + seat]


@njit(cache=True, inline="always")
def next_starter(S):
    """The seat that starts the next round, once this one is settled (D4:
    the CAMAT if there is one, else this round's winner), as the engine set
    it; -1 before the first round.

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> next_starter(S)
    -1
    """
    return S.st[L.ST_NEXT_STARTER]


@njit(cache=True)
def round_over(S):
    """True when no round is in progress (before the first, after the end).

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> bool(round_over(S)), new_round(S), bool(round_over(S))
    (True, 3, False)
    """
    return S.ctl[C_OVER] == 1


@njit(cache=True)
def game_over(S, rounds, camats):
    """D16: the game is over after ``rounds`` rounds (if > 0) or at the
    ``camats``-th CAMAT (if > 0), between rounds only.

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> bool(game_over(S, 1, 0))  # no round played yet
    False
    """
    if not S.ctl[C_OVER]:
        return False
    if rounds > 0 and S.st[L.ST_ROUNDS] >= rounds:
        return True
    if camats > 0 and S.st[L.ST_CAMATS] >= camats:
        return True
    return False


@njit(cache=True)
def preview(S, action, out):
    """What ``action`` would do, without doing it (the engine's answer for
    surfaces): ``out = [left, right, mappakuling, ends_round, kind, size]``
    after the play (``kind``/``size``: the round's end kind and award size
    if the tile is the seat's last, else -1).  ``PASS``: the current ends,
    ``ends_round`` 1 if the pass blocks the round (D11).  ``out``:
    ``int64[6]``, overwritten; returns nothing.

    >>> from domeng.engine.game import Game
    >>> S = Game(seed=7).state  # a fresh table's record
    >>> _ = new_round(S)
    >>> out = np.zeros(6, dtype=np.int64)
    >>> preview(S, 54, out)  # [6|6] led: ends 6 and 6
    >>> out.tolist()
    [6, 6, 0, 0, -1, -1]
    """
    s = S.ctl[C_SEAT]
    left = S.obs[K.OBS_LEFT]
    right = S.obs[K.OBS_RIGHT]
    for i in range(6):
        out[i] = -1
    if action == PASS:
        out[0] = left
        out[1] = right
        out[2] = 0
        out[3] = 1 if RB.is_block(s, S.obs[K.OBS_LAST_MAPPANO]) else 0  # D11
        return
    t = action >> 1
    nl, nr = RB.ends_after(t, action & 1, left, right)  # D5
    out[0] = nl
    out[1] = nr
    mk = 1 if (left >= 0 and nl == nr) else 0  # D8
    out[2] = mk
    last = S.hands[s] == (np.int64(1) << t)
    out[3] = 1 if last else 0
    if last:
        kind, size, _ = RB.cappu_end(s, t, mk, S.rules, 0)  # D8..D10
        out[4] = kind
        out[5] = size
