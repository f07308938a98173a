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
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from domeng.core.bits import lowest_bit, popcount
from domeng.core.nbrng import randbelow
from domeng.core.observation import (
    OBS_CHAIN, OBS_HAND, OBS_LEFT, OBS_RIGHT, OBS_SEAT, OBS_TABLE, OBS_VOID,
)
from domeng.core.tiles import NUMBER_MASK, TILE_HIGH, TILE_IS_DOUBLE, TILE_LOW, TILE_PIPS

P_RANDOM = 0
P_HEAVY = 1
P_KEEPER = 2
P_HUNTER = 3
PLAYER_IDS = {"random": P_RANDOM, "heavy": P_HEAVY, "keeper": P_KEEPER, "hunter": P_HUNTER}
N_BUILTIN = 4

_NUM = NUMBER_MASK.copy()
_HI = TILE_HIGH.copy()
_LO = TILE_LOW.copy()
_PIPS = TILE_PIPS.copy()
_DBL = TILE_IS_DOUBLE.astype(np.int64)


@njit(cache=True, inline="always")
def ends_after(tile, end, left, right):
    """Open ends (left, right) after playing ``tile`` on ``end``."""
    if left < 0:
        return _HI[tile], _LO[tile]
    if end == 0:
        n = left
        return (_LO[tile] if _HI[tile] == n else _HI[tile]), right
    n = right
    return left, (_LO[tile] if _HI[tile] == n else _HI[tile])


@njit(cache=True, inline="always")
def pick_best(score, obs, moves, n_moves, rng):
    """Index of the move with the highest ``score(obs, move)``; a tie between
    k moves is broken uniformly with one draw ``randbelow(k)`` (k > 1 only)."""
    best = score(obs, moves[0])
    best_i = 0
    k = 1
    for i in range(1, n_moves):
        sc = score(obs, moves[i])
        if sc > best:
            best = sc
            best_i = i
            k = 1
        elif sc == best:
            k += 1
    if k == 1:
        return best_i
    j = randbelow(rng, k)
    for i in range(best_i, n_moves):
        if score(obs, moves[i]) == best:
            if j == 0:
                return i
            j -= 1
    return best_i


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


@njit(cache=True, inline="always")
def builtin_choose_inline(pid, obs, hist, moves, n_moves, rng):
    """Dispatch to a built-in strategy by id (inlined into the engine's
    aggregate-mode loop: no call with a dozen words of array arguments)."""
    if pid == P_RANDOM:
        return random_strategy(obs, hist, moves, n_moves, rng)
    if pid == P_HEAVY:
        return heavy_strategy(obs, hist, moves, n_moves, rng)
    if pid == P_KEEPER:
        return keeper_strategy(obs, hist, moves, n_moves, rng)
    return hunter_strategy(obs, hist, moves, n_moves, rng)


@njit(cache=True, _nrt=False)
def builtin_choose(pid, obs, hist, moves, n_moves, rng):
    """Dispatch to a built-in strategy by id."""
    return builtin_choose_inline(pid, obs, hist, moves, n_moves, rng)


#: The signature every compiled player has (see the module docstring).
STRATEGY_SIG = types.int64(types.int64[::1], types.int64[:, ::1], types.int64[::1], types.int64,
                           types.uint64[::1])
P_CUSTOM = N_BUILTIN  #: kernel id of a seat whose player is a compiled function


@njit(STRATEGY_SIG, cache=True)
def unused_strategy(obs, hist, moves, n_moves, rng):
    """Placeholder in the kernel's table of compiled players for built-in seats."""
    return 0
