"""The ``expert`` player: a handful of weighted features, tuned by simulation.

For every legal move it adds up ``weights[i] * feature[i]`` and plays the
move with the highest score (a tie between k moves is broken with one draw
``randbelow(k)`` from the seat's stream, as the other scoring players do).
It reads only its observation (D17): its own hand, the chain, the open
ends, every seat's hand size, the numbers each seat has shown it lacks by
passing (``OBS_VOID``) and the stones.

The features of a move (tile ``t`` on an end, leaving ends ``nl``, ``nr``):

==================  ===========================================================
``pips``            pip sum of ``t`` (shedding weight lowers the hand's sum in a
                    block: MANGUNO and MATTIKKENG, D12..D14)
``options``         tiles left in hand that fit ``nl`` or ``nr`` (keeping numbers)
``finisher``        1 if the one tile left could close with a MAPPAKULING
                    (CEKI or POLLO: the CUCUQ gets 3 or 5 stones, D8)
``pass_table``      1 if the next seat is known to lack both new ends, so it
                    must PASS, while the table still has stones to pay it
``pass_mine``       the same with an empty table: the LAST MAPPANO (this seat)
                    gives the stone (D7), which is good for it
``next_fits``       unseen tiles the next seat may hold (not excluded by its
                    passes) that fit the new ends: its easy plays
``double``          1 if ``t`` is a LEMPA (doubles fit only one number)
``threat``          1 if the next seat holds one tile and may be able to play
                    it: this seat would be its CUCUQ
``race_options``    ``options`` when the table is empty and this seat holds no
                    stone: going out first now makes it CAMAT (D15)
``mappakuling``     1 if the move itself is a MAPPAKULING (both ends equal)
``numbers``         distinct numbers among the tiles left in hand
==================  ===========================================================

The weights (:data:`EXPERT_WEIGHTS`) come from
``analysis/expert_tuning/run.py`` (cross-entropy method over duplicate
matches on the batch engine); ``pips`` is fixed at 1 (the scale of a score
does not change the argmax).  :func:`make_expert_strategy` compiles the
player for other weights (the tuning script's candidates).
"""

from __future__ import annotations

import numpy as np
from numba import carray, njit, types
from numba.extending import intrinsic

from domeng.core.bits import lowest_bit, popcount
from domeng.core.observation import (
    OBS_CHAIN,
    OBS_HAND,
    OBS_HAND_SIZE,
    OBS_LEFT,
    OBS_RIGHT,
    OBS_SEAT,
    OBS_STONES,
    OBS_TABLE,
    OBS_VOID,
)
from domeng.core.tiles import NUMBER_MASK, TILE_HIGH, TILE_IS_DOUBLE, TILE_LOW, TILE_PIPS
from domeng.engine.kernel import ends_after
from domeng.players.scoring import best_moves, compile_player, pick_best

FEATURES = (
    "pips",
    "options",
    "finisher",
    "pass_table",
    "pass_mine",
    "next_fits",
    "double",
    "threat",
    "race_options",
    "mappakuling",
    "numbers",
)
N_FEATURES = len(FEATURES)

#: Hand-set starting point of the tuning (hunter-like).
START_WEIGHTS = (1.0, 1.5, 50.0, 6.0, 6.0, -0.6, 1.0, -2.0, 0.0, 0.0, 0.5)

#: The tuned weights, in the order of :data:`FEATURES` (see the module docstring):
#: ``analysis/expert_tuning/run.py --iterations 12 --population 24 --deals 3000``
#: (seed 2026, against four hunters; output/results.json has the validation).
EXPERT_WEIGHTS = (
    1.0,
    6.6148,
    48.0759,
    1.1473,
    2.1343,
    -6.2497,
    3.1456,
    -7.9697,
    -1.6233,
    2.4477,
    5.1804,
)

_W = np.array(EXPERT_WEIGHTS, dtype=np.float64)
_NUM = NUMBER_MASK.copy()
_HI = TILE_HIGH.copy()
_LO = TILE_LOW.copy()
_PIPS = TILE_PIPS.copy()
_DBL = TILE_IS_DOUBLE.astype(np.int64)
_ALL = np.int64((1 << 28) - 1)


@njit(cache=True, inline="always")
def decision_context(obs):
    """What every move's features share: (hand, tiles the next seat may
    hold, its void numbers, table stones, race flag, next seat holds one tile)."""
    me = obs[OBS_SEAT]
    nxt = me + 1 if me < 4 else 0
    hand = obs[OBS_HAND]
    void = obs[OBS_VOID + nxt]
    possible = _ALL & ~(obs[OBS_CHAIN] | hand)
    for n in range(7):
        if (void >> n) & 1:
            possible &= ~_NUM[n]
    race = 1 if obs[OBS_TABLE] == 0 and obs[OBS_STONES + me] == 0 else 0
    one_left = 1 if obs[OBS_HAND_SIZE + nxt] == 1 else 0
    return hand, possible, void, obs[OBS_TABLE], race, one_left


@njit(cache=True, inline="always")
def move_features(obs, move, hand, possible, void, table, race, one_left):
    """The features of ``move`` (see :data:`FEATURES`), as a tuple of floats."""
    t = move >> 1
    nl, nr = ends_after(t, move & 1, obs[OBS_LEFT], obs[OBS_RIGHT])
    rest = hand & ~(np.int64(1) << t)
    ends = _NUM[nl] | _NUM[nr]
    options = popcount(rest & ends)
    n_rest = popcount(rest)
    finisher = 0
    if n_rest == 1:
        x = lowest_bit(rest)
        if _DBL[x] == 1:
            finisher = 1 if (nl == nr and _HI[x] == nl) else 0
        elif nl != nr and ((_HI[x] == nl and _LO[x] == nr) or (_HI[x] == nr and _LO[x] == nl)):
            finisher = 1
    blocked_next = 1 if (n_rest > 0 and (void >> nl) & 1 and (void >> nr) & 1) else 0
    next_fits = popcount(possible & ends)
    numbers = 0
    for n in range(7):
        if rest & _NUM[n]:
            numbers += 1
    return (
        float(_PIPS[t]),
        float(options),
        float(finisher),
        float(blocked_next * (table > 0)),
        float(blocked_next * (table == 0)),
        float(next_fits),
        float(_DBL[t]),
        float(one_left * (next_fits > 0) * (n_rest > 0)),
        float(race * options),
        float((nl == nr) * (n_rest > 0)),
        float(numbers),
    )


@njit(cache=True, inline="always")
def move_score(w, obs, move, ctx):
    """The score of ``move`` under weights ``w``: :func:`linear_score` of its
    features; ``ctx`` is the decision's :func:`decision_context` (a tuple)."""
    hand, possible, void, table, race, one_left = ctx
    return linear_score(w, move_features(obs, move, hand, possible, void, table, race, one_left))


@njit(cache=True, inline="always")
def linear_score(w, f):
    """``sum(w[i] * f[i])`` over the features, in their order (``w`` may be
    longer: the learned player's parameters start with these weights)."""
    return (
        w[0] * f[0]
        + w[1] * f[1]
        + w[2] * f[2]
        + w[3] * f[3]
        + w[4] * f[4]
        + w[5] * f[5]
        + w[6] * f[6]
        + w[7] * f[7]
        + w[8] * f[8]
        + w[9] * f[9]
        + w[10] * f[10]
    )


@njit(cache=True, inline="always")
def _context_score(ctx, move):
    w, obs, context = ctx
    return move_score(w, obs, move, context)


@njit(cache=True, inline="always")
def expert_best(w, obs, mv):
    """The moves of the mask ``mv`` (two or more) with the highest weighted
    score under weights ``w``, as a mask (see
    :func:`domeng.players.scoring.best_moves`)."""
    return best_moves(_context_score, (w, obs, decision_context(obs)), mv)


@njit(cache=True, inline="always")
def expert_best_tuned(obs, mv):
    """:func:`expert_best` with the tuned weights (the ``expert`` player)."""
    return expert_best(_W, obs, mv)


@njit(cache=True, _nrt=False, nogil=True)
def expert_best_called(obs, mv):
    """:func:`expert_best_tuned` compiled once as a function of its own, for
    the engine's aggregate-mode loop to *call* rather than inline at each
    of its two choice sites (issue 11: the cold compile of a study; the
    expert's scoring is large and slow enough that a call costs little)."""
    return expert_best_tuned(obs, mv)


@njit(cache=True, inline="always")
def expert_pick(w, obs, moves, n_moves, rng):
    """Index of the move with the highest weighted score under weights ``w``;
    ties broken as :func:`domeng.players.scoring.pick_best` does."""
    if n_moves == 1:
        return 0
    return pick_best(_context_score, (w, obs, decision_context(obs)), moves, n_moves, rng)


@njit(cache=True, inline="always")
def expert_strategy(obs, hist, moves, n_moves, rng):
    """The ``expert`` player with the tuned weights."""
    return expert_pick(_W, obs, moves, n_moves, rng)


@njit(cache=True)
def features_of(obs, move):
    """The feature vector of ``move`` in the observation ``obs`` (for tests
    and analysis; the player itself never allocates)."""
    hand, possible, void, table, race, one_left = decision_context(obs)
    f = move_features(obs, move, hand, possible, void, table, race, one_left)
    out = np.empty(N_FEATURES)
    for i in range(N_FEATURES):
        out[i] = f[i]
    return out


_MADE: dict[tuple[float, ...], object] = {}


@intrinsic
def f64_pointer(typingctx, addr):
    """The ``float64*`` at integer address ``addr`` (the tunable players' buffers)."""
    sig = types.CPointer(types.float64)(types.intp)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

    return sig, codegen


def compile_buffered(pick, params: np.ndarray) -> object:
    """A compiled player that plays ``pick(p, obs, moves, n_moves, rng)``
    with ``p`` read from the buffer ``params`` (float64) at every decision,
    so Python may change the parameters between games without a new
    compile.  The caller keeps ``params`` alive while the player plays."""
    addr = params.ctypes.data
    n = len(params)

    def tunable(obs, hist, moves, n_moves, rng):
        p = carray(f64_pointer(addr), (n,))
        return pick(p, obs, moves, n_moves, rng)

    return compile_player(tunable)


class TunableExpert:
    """One compiled expert player whose weights live in a buffer that Python
    sets between games (:meth:`set`), so a tuning run compiles the player
    once instead of once per candidate.  ``player`` is the compiled function
    to hand to :func:`domeng.study.tournament.tournament`; keep this object
    alive while it plays (it owns the buffer)."""

    def __init__(self) -> None:
        self.weights = np.array(START_WEIGHTS, dtype=np.float64)
        self.player = compile_buffered(expert_pick, self.weights)

    def set(self, weights) -> None:
        """Play with ``weights`` from now on (a sequence of :data:`N_FEATURES` numbers)."""
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (N_FEATURES,) or not np.isfinite(w).all():
            raise ValueError(f"expert weights: give {N_FEATURES} finite numbers")
        self.weights[:] = w


def make_expert_strategy(weights) -> object:
    """The expert player compiled for the player signature with other
    ``weights`` (a sequence of :data:`N_FEATURES` numbers)."""
    key = tuple(float(x) for x in weights)
    if len(key) != N_FEATURES or not all(np.isfinite(key)):
        raise ValueError(
            f"expert weights: give {N_FEATURES} finite numbers ({', '.join(FEATURES)})"
        )
    if key not in _MADE:
        w = np.array(key, dtype=np.float64)

        def expert_custom(obs, hist, moves, n_moves, rng):
            return expert_pick(w, obs, moves, n_moves, rng)

        _MADE[key] = compile_player(expert_custom)
    return _MADE[key]
