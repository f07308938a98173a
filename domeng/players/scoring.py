"""Small compiled helpers the built-in players share.

``pick_best`` is the one tie-breaking rule of the scoring players (``heavy``,
``keeper``, ``hunter``, ``expert``): the highest score wins, a tie between
k moves is broken with one draw ``randbelow(k)`` from the seat's stream.
The players ask the engine which ends are open after a move
(:func:`domeng.engine.kernel.ends_after`); they do not work it out (issue 9).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from domeng.core.bits import lowest_bit, popcount
from domeng.core.nbrng import randbelow
from domeng.engine.fast import kth_bit

#: The signature every compiled player has: ``(obs, hist, moves, n_moves, rng) -> index``
#: (see :mod:`domeng.players.heuristics`).
STRATEGY_SIG = types.int64(
    types.int64[::1], types.int64[:, ::1], types.int64[::1], types.int64, types.uint64[::1]
)


def compile_player(fn):
    """``fn`` compiled for :data:`STRATEGY_SIG`, now.  The cache of the
    package is checked first (:func:`domeng.core.numba_cache.prepare`): the
    compile loads the machine code of the functions ``fn`` calls, which must
    not be code built from other sources, nor be deleted just after."""
    from domeng.core.numba_cache import prepare

    prepare()
    return njit(STRATEGY_SIG)(fn)


def runtime_ints(*values: int) -> np.ndarray:
    """Whole numbers a compiled player's closure reads at run time (a budget,
    a player id).  A plain int in a closure is typed as a literal, and numba
    then compiles the search it is passed to once per value (~20 s for each
    new budget, issue 11); read from an array it is an ``int64``: one search,
    and each budget only a small function."""
    return np.array(values, dtype=np.int64)


@njit(cache=True, inline="always")
def best_moves(score, ctx, mv):
    """The moves of the mask ``mv`` (bit ``tile*2+end`` per move, two or
    more) with the highest ``score(ctx, move)``, as a mask of the same
    kind: one scoring pass, no move list."""
    m = mv
    code = lowest_bit(m)
    best = score(ctx, code)
    ties = np.int64(1) << code
    m &= m - 1
    while m:
        code = lowest_bit(m)
        sc = score(ctx, code)
        if sc > best:
            best = sc
            ties = np.int64(1) << code
        elif sc == best:
            ties |= np.int64(1) << code
        m &= m - 1
    return ties


@njit(cache=True, inline="always")
def pick_best(score, obs, moves, n_moves, rng):
    """Index of the move with the highest ``score(obs, move)``; a tie between
    k moves is broken uniformly with one draw ``randbelow(k)`` (k > 1 only),
    the k-th of the tied moves in ascending order."""
    mask = np.int64(0)
    for i in range(n_moves):
        mask |= np.int64(1) << moves[i]
    ties = best_moves(score, obs, mask)
    k = popcount(ties)
    code = lowest_bit(ties) if k == 1 else kth_bit(ties, randbelow(rng, k))
    return popcount(mask & ((np.int64(1) << code) - 1))
