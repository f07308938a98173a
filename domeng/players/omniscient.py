"""The ``omniscient`` research player: it sees every hand (issue 13).

It exists to bound what information is worth: the gap between it and the
best player that sees only its observation is the most that reading the
other hands could give.  It breaks D17 on purpose, so it never gets the
hands through the observation: they come through a separate, clearly named
argument (``all_hands`` of :func:`omniscient_core`,
:meth:`OmniscientPlayer.choose_seeing_all`), and only the research harness
:func:`domeng.study.omniscient.omniscient_match` passes them.  Anywhere else
it refuses to play: its :meth:`~OmniscientPlayer.choose` raises, ``domeng
play`` refuses it in one line, and the batch engine (studies, tournaments,
ladders) cannot run it.

Its decision is perfect-information Monte Carlo: every legal move is played
and the round rolled out ``samples`` times with the ``expert`` at every
seat, on the true hands; the best mean value wins (value as in
:mod:`domeng.players.isearch`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from domeng.core.errors import PlayerError
from domeng.core.nbrng import next64
from domeng.core.observation import OBS_RULES, OBS_SEAT, Observation
from domeng.core.rng import SplitMix64
from domeng.core.rules import R_LEN
from domeng.engine import kernel as K
from domeng.engine import step as E
from domeng.engine.records import Move
from domeng.players.heuristics import P_EXPERT
from domeng.players.isearch import _NO_NEXT, rollout

NAME = "omniscient"
DEFAULT_SAMPLES = 20
#: the mark every output of a match with this player carries
MARK = "OMNISCIENT research player: sees every hand (breaks D17 on purpose)"


@njit(cache=True)
def omniscient_core(obs, hist, moves, n_moves, rng, all_hands, samples):
    """Index of the move with the best mean rollout value on the true hands
    ``all_hands`` (five 28-bit masks)."""
    if n_moves == 1:
        return 0
    me = obs[OBS_SEAT]
    w0 = np.zeros(K.W_LEN, dtype=np.int64)
    s_rng = np.zeros(1, dtype=np.uint64)
    totals = np.zeros(n_moves)
    S = E.new_rollout_state(obs[OBS_RULES : OBS_RULES + R_LEN].copy())
    K.counters_from_history(obs, hist, w0)
    for _d in range(samples):
        seed = next64(rng)
        for i in range(n_moves):
            totals[i] += rollout(
                S, all_hands, obs, w0, me, moves[i], seed, P_EXPERT, s_rng, _NO_NEXT
            )
    best = 0
    for i in range(1, n_moves):
        if totals[i] > totals[best]:
            best = i
    return best


class OmniscientPlayer:
    """The omniscient player for the reference engine (research only)."""

    name = NAME
    omniscient = True  #: marks it everywhere: the play front end and the harness check it

    def __init__(self, samples: int = DEFAULT_SAMPLES) -> None:
        if samples < 1:
            raise ValueError("samples must be >= 1")
        self.samples = int(samples)

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
        i = int(omniscient_core(o, hist, enc, len(moves), state, hands, self.samples))
        rng.state = int(state[0])
        return moves[i]
