"""The ``search`` player: determinized Monte Carlo search on the batch engine.

At each decision with two or more legal moves it repeats, ``samples`` times:

1. **Determinize.** Deal the tiles it cannot see (other hands and the 3 out of
   play) uniformly among the deals consistent with everything it knows
   (D17): each seat gets exactly its number of tiles, a seat that passed
   holds neither number that was open at its pass (``OBS_VOID``), and in
   the first round what D3 shows (:mod:`domeng.players.determinize`, the
   one determinizer of every search player).
2. **Roll out.** For every legal move, play it and then the rest of the
   round with fast ``heavy``-style rollout players for every seat (shed the
   heaviest playable tile, ties at random), through the step API
   (:func:`domeng.engine.step.step`), so the rollouts follow exactly the
   rules in force (``OBS_RULES``).  All
   moves of one sample share the deal and the rollout's random numbers
   (common random numbers), so their difference is mostly the move's effect.
3. **Score.** A rollout's value is minus the stones the seat gains by the end
   of the round (stones are penalties), plus ``CAMAT_BONUS`` if the engine
   makes it CAMAT (D15).

It plays the move with the best total (ties: the first).  Every draw comes
from its seat's generator, so games with a search player are reproducible.
The player sees nothing beyond its observation.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domeng.core.bits import popcount
from domeng.core.nbrng import next64, randbelow
from domeng.core.observation import OBS_RULES, OBS_SEAT, OBS_STONES
from domeng.core.rules import R_LEN
from domeng.core.tiles import TILE_PIPS
from domeng.engine import kernel as K
from domeng.engine import step as E
from domeng.players.determinize import draw, new_dealer, prepare
from domeng.players.scoring import compile_player, runtime_ints

DEFAULT_SAMPLES = 400
CAMAT_BONUS = 10.0
_PIPS = TILE_PIPS.copy()


@njit(cache=True, inline="always")
def rollout_choice(moves, n, rng):
    """The rollout policy: the heaviest tile, ties at random."""
    if n == 1:
        return 0
    best = -1
    k = 0
    for i in range(n):
        pv = _PIPS[moves[i] >> 1]
        if pv > best:
            best = pv
            k = 1
        elif pv == best:
            k += 1
    j = randbelow(rng, k) if k > 1 else 0
    for i in range(n):
        if _PIPS[moves[i] >> 1] == best:
            if j == 0:
                return i
            j -= 1
    return 0


@njit(cache=True)
def search_core(obs, hist, moves, n_moves, rng, samples):
    if n_moves == 1:
        return 0
    me = obs[OBS_SEAT]
    hands = np.zeros(5, dtype=np.int64)
    dealer = new_dealer()
    if not prepare(obs, dealer):
        raise ValueError("no deal of the unseen tiles is consistent with the observation")
    w0 = np.zeros(K.W_LEN, dtype=np.int64)
    s_rng = np.zeros(1, dtype=np.uint64)
    totals = np.zeros(n_moves, dtype=np.float64)
    S = E.new_rollout_state(obs[OBS_RULES : OBS_RULES + R_LEN].copy())
    # the round's counters the rules read (the D6 option), as the engine rebuilds them
    K.counters_from_history(obs, hist, w0)
    my_stones = obs[OBS_STONES + me]
    for _d in range(samples):
        draw(obs, dealer, rng, hands)
        seed = next64(rng)
        for i in range(n_moves):
            E.set_position(S, obs, w0, hands)
            s_rng[0] = seed
            ended = E.step(S, moves[i])
            while not ended:
                n = E.legal_moves(S)
                if n > 0:
                    ended = E.step(S, S.moves[rollout_choice(S.moves, n, s_rng)])
                else:
                    ended = E.step(S, E.PASS)
            # stones are penalties; the engine says who became CAMAT (D15)
            value = float(my_stones - E.held_at_settlement(S, me))
            if S.w[K.W_CAMAT] == me:
                value += CAMAT_BONUS
            totals[i] += value
    best = 0
    for i in range(1, n_moves):
        if totals[i] > totals[best]:
            best = i
    return best


_STRATEGIES: dict[int, object] = {}


def make_search_strategy(samples: int | None = None):
    """The search player with ``samples`` determinizations per decision
    (default :data:`DEFAULT_SAMPLES`), compiled for the player signature."""
    n = DEFAULT_SAMPLES if samples is None else int(samples)
    if n < 1:
        raise ValueError("samples must be >= 1")
    if n not in _STRATEGIES:
        budget = runtime_ints(n)

        def search_strategy(obs, hist, moves, n_moves, rng):
            return search_core(obs, hist, moves, n_moves, rng, budget[0])

        search_strategy.__name__ = f"search_{n}"
        _STRATEGIES[n] = compile_player(search_strategy)
    return _STRATEGIES[n]


__all__ = ["DEFAULT_SAMPLES", "make_search_strategy", "popcount", "search_core"]
