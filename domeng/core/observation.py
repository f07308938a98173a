"""What a player may know (D17), as one flat layout shared by every player.

An observation is an ``int64`` vector of length :data:`OBS_LEN` plus the
round's public history, an ``int64`` array of shape ``(MAX_TURNS, 3)`` whose
first ``obs[OBS_TURN]`` rows are ``(seat, tile or -1 for a pass, end)``.
The same layout is built by the reference engine (:meth:`Observation.to_array`),
by the batch engine for compiled players, by the search player and by the
terminal UI, so a player written against it runs everywhere.

Slots (``OBS_*`` below; ``[5]`` marks five slots, one per seat):

=====================  ======================================================
``OBS_SEAT``           the observing seat
``OBS_ROUND``          round number in the game (1 = first round)
``OBS_STARTER``        seat that led this round
``OBS_CAMAT``          the CAMAT's seat, or -1
``OBS_TABLE``          stones on the table
``OBS_STONES`` [5]     stones held by each seat
``OBS_HAND_SIZE`` [5]  tiles left in each seat's hand
``OBS_HAND``           28-bit mask of the observer's own tiles
``OBS_LEFT``           left open end, or -1 before the lead
``OBS_RIGHT``          right open end, or -1 before the lead
``OBS_CHAIN``          28-bit mask of the tiles on the chain
``OBS_PLAYED_BY`` [5]  28-bit mask of the tiles each seat played this round
``OBS_VOID`` [5]       7-bit mask of numbers each seat is known not to hold
                       (each pass shows that the passer holds neither open number)
``OBS_HAS_PLAYED`` [5] 1 once the seat has played a tile this round
``OBS_LAST_MAPPANO``   seat that played the LAST DOMINO, or -1
``OBS_TURN``           turns taken this round (= rows of history in use)
``OBS_PASSES``         passes since the LAST DOMINO
``OBS_MUST_LEAD``      the double the opener must lead (D3), or -1
``OBS_D3_OPENER``      1 if this round's starter is the holder of the highest
                       of [6|6], [5|5], [4|4], [3|3] dealt (D3: the first
                       round of a game), else 0
``OBS_D3_DOUBLE``      the double the opener must lead or has led (D3 with
                       ``opener_leads_double``), for the whole round, or -1
``OBS_RULES`` [12]     the rules in force (:meth:`domeng.core.rules.Rules.to_array`)
=====================  ======================================================

Never in it (D17): another seat's tiles, or the 3 tiles out of play.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from domeng.core.layout import N_SEATS
from domeng.core.tiles import NUMBER_MASK, mask_of, tiles_of

MAX_TURNS = 128  # a round has at most 25 plays, each followed by at most 4 passes, + 1

OBS_SEAT = 0
OBS_ROUND = 1
OBS_STARTER = 2
OBS_CAMAT = 3
OBS_TABLE = 4
OBS_STONES = 5
OBS_HAND_SIZE = 10
OBS_HAND = 15
OBS_LEFT = 16
OBS_RIGHT = 17
OBS_CHAIN = 18
OBS_PLAYED_BY = 19
OBS_VOID = 24
OBS_HAS_PLAYED = 29
OBS_LAST_MAPPANO = 34
OBS_TURN = 35
OBS_PASSES = 36
OBS_MUST_LEAD = 37
OBS_D3_OPENER = 38
OBS_D3_DOUBLE = 39
OBS_RULES = 40
OBS_LEN = 56

# history columns
H_SEAT = 0
H_TILE = 1  # -1 for a pass
H_END = 2  # 0 left, 1 right (a lead is recorded as left)


@dataclass(frozen=True)
class Observation:
    """One seat's view of the game (D17), readable form.

    ``history`` lists every turn of this round in order as
    ``(seat, tile or None, end, left, right)``: the open ends after a play,
    or at the moment of a pass.
    """

    seat: int
    round: int
    starter: int
    camat: int | None
    table_stones: int
    stones: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    hand: tuple[int, ...]
    left: int | None
    right: int | None
    history: tuple[tuple[int, int | None, int, int | None, int | None], ...]
    last_mappano: int | None
    passes_since_play: int
    must_lead: int | None = None
    has_played: tuple[bool, ...] = field(default=(False,) * N_SEATS)
    rules: tuple[int, ...] = ()  # Rules.to_array(), public knowledge
    d3_opener: bool = False  # the starter holds the highest double dealt (D3)
    d3_double: int | None = None  # the double the opener must lead / led (D3)

    @property
    def chain(self) -> tuple[int, ...]:
        """Tiles on the chain, in the order played."""
        return tuple(t for (_, t, _, _, _) in self.history if t is not None)

    def played_by(self, seat: int) -> tuple[int, ...]:
        return tuple(t for (s, t, _, _, _) in self.history if t is not None and s == seat)

    def void_numbers(self, seat: int) -> frozenset[int]:
        """Numbers ``seat`` is known not to hold (from its passes this round)."""
        out: set[int] = set()
        for s, t, _, left, right in self.history:
            if t is None and s == seat and left is not None and right is not None:
                out.update((left, right))  # a pass comes after the lead: both ends exist
        return frozenset(out)

    def unseen_tiles(self) -> tuple[int, ...]:
        """Tiles this seat cannot see: other hands plus the 3 out of play."""
        seen = set(self.hand) | set(self.chain)
        return tuple(t for t in range(28) if t not in seen)

    def to_array(self) -> tuple[np.ndarray, np.ndarray]:
        """The flat layout ``(obs, history)`` documented in this module."""
        obs = np.zeros(OBS_LEN, dtype=np.int64)
        hist = np.full((MAX_TURNS, 3), -1, dtype=np.int64)
        obs[OBS_SEAT] = self.seat
        obs[OBS_ROUND] = self.round
        obs[OBS_STARTER] = self.starter
        obs[OBS_CAMAT] = -1 if self.camat is None else self.camat
        obs[OBS_TABLE] = self.table_stones
        obs[OBS_STONES : OBS_STONES + N_SEATS] = self.stones
        obs[OBS_HAND_SIZE : OBS_HAND_SIZE + N_SEATS] = self.hand_sizes
        obs[OBS_HAND] = mask_of(self.hand)
        obs[OBS_LEFT] = -1 if self.left is None else self.left
        obs[OBS_RIGHT] = -1 if self.right is None else self.right
        obs[OBS_CHAIN] = mask_of(self.chain)
        for s in range(N_SEATS):
            obs[OBS_PLAYED_BY + s] = mask_of(self.played_by(s))
            v = 0
            for n in self.void_numbers(s):
                v |= 1 << n
            obs[OBS_VOID + s] = v
            obs[OBS_HAS_PLAYED + s] = int(self.has_played[s])
        obs[OBS_LAST_MAPPANO] = -1 if self.last_mappano is None else self.last_mappano
        obs[OBS_TURN] = len(self.history)
        obs[OBS_PASSES] = self.passes_since_play
        obs[OBS_MUST_LEAD] = -1 if self.must_lead is None else self.must_lead
        obs[OBS_D3_OPENER] = int(self.d3_opener)
        obs[OBS_D3_DOUBLE] = -1 if self.d3_double is None else self.d3_double
        obs[OBS_RULES : OBS_RULES + len(self.rules)] = self.rules
        for i, (s, t, e, _, _) in enumerate(self.history):
            hist[i, H_SEAT] = s
            hist[i, H_TILE] = -1 if t is None else t
            hist[i, H_END] = e
        return obs, hist


def playable_mask(hand_mask: int, left: int, right: int) -> int:
    """Tiles of ``hand_mask`` that fit an open end (all of them before the lead)."""
    if left < 0:
        return hand_mask
    return hand_mask & (int(NUMBER_MASK[left]) | int(NUMBER_MASK[right]))


__all__ = [name for name in dir() if name.startswith(("OBS_", "H_"))] + [
    "Observation",
    "MAX_TURNS",
    "N_SEATS",
    "playable_mask",
    "tiles_of",
]
