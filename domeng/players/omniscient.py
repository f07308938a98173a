"""The ``omniscient`` research player: it sees every hand (issue 13).

It exists to bound what information is worth: the gap between it and the
best player that sees only its observation is the most that reading the
other hands could give.  It breaks D17 on purpose, so it never gets the
hands through the observation: they come through a separate, clearly named
argument (``true_hands`` of :func:`domeng.players.searchcore.search_core`,
:meth:`OmniscientPlayer.choose_seeing_all`), and only the research harness
:func:`domeng.study.omniscient.omniscient_match` passes them.  Anywhere else
it refuses to play: its :meth:`~OmniscientPlayer.choose` raises, ``domeng
play`` refuses it in one line, and the batch engine (studies, tournaments,
ladders) cannot run it.

Its decision is perfect-information Monte Carlo: every legal move is played
and the round rolled out ``samples`` times with the ``expert`` at every
seat, on the true hands; the best mean value wins.  It is the configuration
of the one search core (:mod:`domeng.players.searchcore`) whose deals are
the true hands (``DEALS_TRUE``), which only this module asks for.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from domeng.core.errors import PlayerError
from domeng.core.observation import Observation
from domeng.core.rng import SplitMix64
from domeng.engine.records import Move
from domeng.players.heuristics import P_EXPERT
from domeng.players.searchcore import DEALS_TRUE, config, search_core

NAME = "omniscient"
DEFAULT_SAMPLES = 20
#: the mark every output of a match with this player carries
MARK = "OMNISCIENT research player: sees every hand (breaks D17 on purpose)"


class OmniscientPlayer:
    """The omniscient player for the reference engine (research only)."""

    name = NAME
    omniscient = True  #: marks it everywhere: the play front end and the harness check it

    def __init__(self, samples: int = DEFAULT_SAMPLES) -> None:
        if samples < 1:
            raise ValueError("samples must be >= 1")
        self.samples = int(samples)
        self.config = config(self.samples, P_EXPERT, deals=DEALS_TRUE)

    def choose(self, obs: Observation, moves: list[Move], rng: SplitMix64) -> Move:
        raise PlayerError(
            "the omniscient player sees every hand: it plays only in "
            "domeng.study.omniscient.omniscient_match (research), never at a "
            "game, study or tournament"
        )

    def choose_seeing_all(
        self,
        obs: Observation,
        moves: list[Move],
        rng: SplitMix64,
        all_hands: Sequence[Sequence[int]],
    ) -> Move:
        """Choose a move seeing ``all_hands`` (every seat's tiles)."""
        o, hist = obs.to_array()
        enc = np.array([m.tile * 2 + m.end for m in moves], dtype=np.int64)
        hands = np.array([sum(1 << int(t) for t in h) for h in all_hands], dtype=np.int64)
        state = np.array([rng.state], dtype=np.uint64)
        i = int(search_core(self.config, o, hist, enc, len(moves), state, hands))
        rng.state = int(state[0])
        return moves[i]
