"""The built-in computer players, as small compiled functions over the
observation layout of :mod:`domeng.observation`.

Every strategy has the same signature, the one user-written compiled players
follow too::

    strategy(obs, hist, moves, n_moves, rng) -> index into moves

* ``obs``: ``int64[OBS_LEN]``, the seat's D17 observation;
* ``hist``: ``int64[MAX_TURNS, 3]``, the round's public history;
* ``moves``: ``int64[:]``, the legal moves encoded ``tile * 2 + end``
  (end 0 left, 1 right), sorted ascending, ``n_moves >= 1`` of them in use;
* ``rng``: ``uint64[1]``, the table's generator (draw only with
  :func:`domeng.nbrng.randbelow`).

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
from numba import njit

from .bits import lowest_bit, popcount
from .nbrng import randbelow
from .observation import (
    OBS_CHAIN, OBS_HAND, OBS_LEFT, OBS_RIGHT, OBS_SEAT, OBS_TABLE, OBS_VOID,
)
from .tiles import NUMBER_MASK, TILE_HIGH, TILE_IS_DOUBLE, TILE_LOW, TILE_PIPS

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
def pick_best(scores, n_moves, rng):
    """Index of the highest score; a tie is broken uniformly with one draw."""
    best = scores[0]
    for i in range(1, n_moves):
        if scores[i] > best:
            best = scores[i]
    k = 0
    for i in range(n_moves):
        if scores[i] == best:
            k += 1
    if k == 1:
        for i in range(n_moves):
            if scores[i] == best:
                return i
    j = randbelow(rng, k)
    for i in range(n_moves):
        if scores[i] == best:
            if j == 0:
                return i
            j -= 1
    return 0


@njit(cache=True)
def random_strategy(obs, hist, moves, n_moves, rng):
    if n_moves == 1:
        return 0
    return randbelow(rng, n_moves)


@njit(cache=True)
def heavy_strategy(obs, hist, moves, n_moves, rng):
    if n_moves == 1:
        return 0
    scores = np.empty(n_moves, dtype=np.int64)
    for i in range(n_moves):
        scores[i] = _PIPS[moves[i] >> 1]
    return pick_best(scores, n_moves, rng)


@njit(cache=True)
def keeper_strategy(obs, hist, moves, n_moves, rng):
    if n_moves == 1:
        return 0
    hand = obs[OBS_HAND]
    left = obs[OBS_LEFT]
    right = obs[OBS_RIGHT]
    scores = np.empty(n_moves, dtype=np.int64)
    for i in range(n_moves):
        t = moves[i] >> 1
        nl, nr = ends_after(t, moves[i] & 1, left, right)
        rest = hand & ~(np.int64(1) << t)
        fits = popcount(rest & (_NUM[nl] | _NUM[nr]))
        scores[i] = fits * 16 + _PIPS[t]
    return pick_best(scores, n_moves, rng)


@njit(cache=True)
def hunter_strategy(obs, hist, moves, n_moves, rng):
    if n_moves == 1:
        return 0
    hand = obs[OBS_HAND]
    left = obs[OBS_LEFT]
    right = obs[OBS_RIGHT]
    seat = obs[OBS_SEAT]
    nxt = (seat + 1) % 5
    void = obs[OBS_VOID + nxt]
    seen_base = obs[OBS_CHAIN] | hand
    scores = np.empty(n_moves, dtype=np.int64)
    for i in range(n_moves):
        t = moves[i] >> 1
        nl, nr = ends_after(t, moves[i] & 1, left, right)
        rest = hand & ~(np.int64(1) << t)
        score = _PIPS[t]
        if popcount(rest) == 1:
            x = lowest_bit(rest)
            if _DBL[x] == 1:
                if nl == nr and _HI[x] == nl:
                    score += 1000  # POLLO is set up
            elif nl != nr and ((_HI[x] == nl and _LO[x] == nr) or (_HI[x] == nr and _LO[x] == nl)):
                score += 1000  # CEKI is set up
        if (void >> nl) & 1 and (void >> nr) & 1:
            if obs[OBS_TABLE] > 0:
                score += 200  # the next seat must pass, paid by the table
            else:
                score -= 50  # ... but I, the LAST MAPPANO, would pay it
        else:
            # fewer unseen tiles on the open ends = fewer easy plays for others
            seen = seen_base | (np.int64(1) << t)
            unseen = popcount((_NUM[nl] | _NUM[nr]) & ~seen)
            score -= 8 * unseen
        scores[i] = score
    return pick_best(scores, n_moves, rng)


@njit(cache=True)
def builtin_choose(pid, obs, hist, moves, n_moves, rng):
    """Dispatch to a built-in strategy by id."""
    if pid == P_RANDOM:
        return random_strategy(obs, hist, moves, n_moves, rng)
    if pid == P_HEAVY:
        return heavy_strategy(obs, hist, moves, n_moves, rng)
    if pid == P_KEEPER:
        return keeper_strategy(obs, hist, moves, n_moves, rng)
    return hunter_strategy(obs, hist, moves, n_moves, rng)
