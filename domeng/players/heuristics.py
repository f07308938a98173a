"""The built-in computer players, as small compiled functions over the
observation layout of :mod:`domeng.core.observation`.

Every strategy has the same signature, the one user-written compiled players
follow too::

    strategy(obs, hist, moves, n_moves, rng) -> index into moves

* ``obs``: ``int64[OBS_LEN]``, the seat's D17 observation;
* ``hist``: ``int64[MAX_TURNS, 3]``, the round's public history;
* ``moves``: ``int64[:]``, the legal moves encoded ``tile * 2 + end``
  (end 0 left, 1 right), sorted ascending, ``n_moves >= 1`` of them in use;
* ``rng``: ``uint64[1]``, the seat's own generator (draw only with
  :func:`domeng.core.nbrng.randbelow`).

A strategy draws a random number only to break a tie between two or more
moves, and a single legal move is played without a draw, so its draws are
part of the table's reproducible stream.

Built-ins (ids in :data:`PLAYER_IDS`):

``random``
    uniform over the legal moves (on a lead, over the tiles in hand).
``heavy``
    sheds the tile with the highest pip sum (a low hand is what counts in a
    block: MANGUNO and MATTIKKENG, D12..D14).
``keeper``
    keeps its options: plays the move after which most of its remaining
    tiles still fit an open end; among those, the heavier tile.
``hunter``
    aims for CEKI and POLLO: with two tiles left, plays the one that leaves
    its last tile able to make a MAPPAKULING; otherwise leaves ends the next
    seat is known to lack (when the table can still pay the PASS), or ends
    whose numbers are scarce; among those, the heavier tile.
``expert``
    a weighted sum of a handful of features, the weights tuned by
    simulation (:mod:`domeng.players.expert`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domeng.core.bits import lowest_bit, popcount
from domeng.core.defaults import N_BUILTIN, P_EXPERT, P_HEAVY, P_KEEPER, P_RANDOM
from domeng.core.nbrng import randbelow
from domeng.core.observation import (
    OBS_CHAIN,
    OBS_HAND,
    OBS_LEFT,
    OBS_RIGHT,
    OBS_SEAT,
    OBS_TABLE,
    OBS_VOID,
)
from domeng.core.tiles import NUMBER_MASK, TILE_HIGH, TILE_IS_DOUBLE, TILE_LOW, TILE_PIPS
from domeng.engine.kernel import ends_after
from domeng.players.expert import expert_best_called, expert_strategy
from domeng.players.scoring import best_moves, pick_best

_NUM = NUMBER_MASK.copy()
_HI = TILE_HIGH.copy()
_LO = TILE_LOW.copy()
_PIPS = TILE_PIPS.copy()
_DBL = TILE_IS_DOUBLE.astype(np.int64)


@njit(cache=True, inline="always")
def random_strategy(obs, hist, moves, n_moves, rng):
    if n_moves == 1:
        return 0
    return randbelow(rng, n_moves)


@njit(cache=True, inline="always")
def heavy_score(obs, move):
    return _PIPS[move >> 1]


@njit(cache=True, inline="always")
def heavy_strategy(obs, hist, moves, n_moves, rng):
    if n_moves == 1:
        return 0
    return pick_best(heavy_score, obs, moves, n_moves, rng)


@njit(cache=True, inline="always")
def keeper_score(obs, move):
    t = move >> 1
    nl, nr = ends_after(t, move & 1, obs[OBS_LEFT], obs[OBS_RIGHT])
    rest = obs[OBS_HAND] & ~(np.int64(1) << t)
    return popcount(rest & (_NUM[nl] | _NUM[nr])) * 16 + _PIPS[t]


@njit(cache=True, inline="always")
def keeper_strategy(obs, hist, moves, n_moves, rng):
    if n_moves == 1:
        return 0
    return pick_best(keeper_score, obs, moves, n_moves, rng)


@njit(cache=True, inline="always")
def hunter_score(obs, move):
    hand = obs[OBS_HAND]
    t = move >> 1
    nl, nr = ends_after(t, move & 1, obs[OBS_LEFT], obs[OBS_RIGHT])
    rest = hand & ~(np.int64(1) << t)
    score = _PIPS[t]
    if popcount(rest) == 1:
        x = lowest_bit(rest)
        if _DBL[x] == 1:
            if nl == nr and _HI[x] == nl:
                score += 1000  # POLLO is set up
        elif nl != nr and ((_HI[x] == nl and _LO[x] == nr) or (_HI[x] == nr and _LO[x] == nl)):
            score += 1000  # CEKI is set up
    void = obs[OBS_VOID + (obs[OBS_SEAT] + 1) % 5]
    if (void >> nl) & 1 and (void >> nr) & 1:
        if obs[OBS_TABLE] > 0:
            score += 200  # the next seat must pass, paid by the table
        else:
            score -= 50  # ... but I, the LAST MAPPANO, would pay it
    else:
        # fewer unseen tiles on the open ends = fewer easy plays for others
        seen = obs[OBS_CHAIN] | hand
        score -= 8 * popcount((_NUM[nl] | _NUM[nr]) & ~seen)
    return score


@njit(cache=True, inline="always")
def hunter_strategy(obs, hist, moves, n_moves, rng):
    if n_moves == 1:
        return 0
    return pick_best(hunter_score, obs, moves, n_moves, rng)


@njit(cache=True, _nrt=False)
def builtin_choose(pid, obs, hist, moves, n_moves, rng):
    """Dispatch to a built-in strategy by id."""
    if pid == P_RANDOM:
        return random_strategy(obs, hist, moves, n_moves, rng)
    if pid == P_HEAVY:
        return heavy_strategy(obs, hist, moves, n_moves, rng)
    if pid == P_KEEPER:
        return keeper_strategy(obs, hist, moves, n_moves, rng)
    if pid == P_EXPERT:
        return expert_strategy(obs, hist, moves, n_moves, rng)
    return hunter_strategy(obs, hist, moves, n_moves, rng)


@njit(cache=True, inline="always")
def builtin_best_inline(pid, obs, mv):
    """For the engine's aggregate-mode loop (inlined there): the best moves
    of the mask ``mv`` (two or more) for built-in player ``pid`` (not
    ``random``), as a mask; the loop breaks a tie with the seat's own
    stream exactly as :func:`domeng.players.scoring.pick_best` does.  No
    move list and one scoring pass."""
    if pid == P_HEAVY:
        return best_moves(heavy_score, obs, mv)
    if pid == P_KEEPER:
        return best_moves(keeper_score, obs, mv)
    if pid == P_EXPERT:
        return expert_best_called(obs, mv)  # called, not inlined (compile time)
    return best_moves(hunter_score, obs, mv)


P_CUSTOM = N_BUILTIN  #: kernel id of a seat whose player is a compiled function


@njit(cache=True)
def unused_strategy(obs, hist, moves, n_moves, rng):
    """Placeholder in the kernel's table of compiled players for built-in seats
    (compiled for ``STRATEGY_SIG`` by :func:`domeng.batch.tables.kernel_players`
    when first needed, not at import: issue 11)."""
    return 0
