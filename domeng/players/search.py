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

It plays the move with the best total (ties: the first).  ``search-N`` is
a configuration of the one search core (:mod:`domeng.players.searchcore`):
``heavy`` rollouts, uniform deals, this round's value only.  Every draw comes
from its seat's generator, so games with a search player are reproducible.
The player sees nothing beyond its observation.
"""

from __future__ import annotations

from domeng.core.defaults import P_HEAVY
from domeng.players.searchcore import config, make_strategy

DEFAULT_SAMPLES = 400


def make_search_strategy(samples: int | None = None):
    """The search player with ``samples`` determinizations per decision
    (default :data:`DEFAULT_SAMPLES`), compiled for the player signature:
    :func:`domeng.players.searchcore.search_core` with ``heavy`` rollouts."""
    n = DEFAULT_SAMPLES if samples is None else int(samples)
    if n < 1:
        raise ValueError("samples must be >= 1")
    return make_strategy(config(n, P_HEAVY), f"search_{n}")


__all__ = ["DEFAULT_SAMPLES", "make_search_strategy"]
