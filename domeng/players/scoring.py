"""Small compiled helpers the built-in players share.

``pick_best`` is the one tie-breaking rule of the scoring players (``heavy``,
``keeper``, ``hunter``, ``expert``): the highest score wins, a tie between
k moves is broken with one draw ``randbelow(k)`` from the seat's stream.
The players ask the engine which ends are open after a move
(:func:`domeng.engine.kernel.ends_after`); they do not work it out (issue 9).
"""

from __future__ import annotations

from numba import njit, types

from domeng.core.nbrng import randbelow

#: The signature every compiled player has: ``(obs, hist, moves, n_moves, rng) -> index``
#: (see :mod:`domeng.players.heuristics`).
STRATEGY_SIG = types.int64(types.int64[::1], types.int64[:, ::1], types.int64[::1], types.int64,
                           types.uint64[::1])


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
