"""What the reference engine records: a move, a transfer of stones, and a
round's result.  (The rules themselves are in :mod:`domeng.engine.reference`.)"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from domeng.core.events import END_NAMES, LEFT, TABLE
from domeng.core.tiles import tile_str


class Move(NamedTuple):
    """A move (D5): a tile and the end of the chain it goes on."""

    tile: int
    end: int = LEFT

    def __str__(self) -> str:
        return f"{tile_str(self.tile)} {END_NAMES[self.end]}"


@dataclass(frozen=True)
class Transfer:
    """Stones moved from ``source`` (a seat, or :data:`TABLE`) to seat ``dest``."""

    source: int
    dest: int
    amount: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "transfer",
            "reason": self.reason,
            "source": "table" if self.source == TABLE else self.source,
            "to": self.dest,
            "amount": self.amount,
        }


@dataclass
class RoundResult:
    """How a round ended and what it moved."""

    kind: str  # one of END_KINDS
    winner: int
    first_cappu: int | None
    cucuq: int | None
    manguno: int | None
    mattikkeng: list[int]
    pip_sums: list[int]
    transfers: list[Transfer]
    unpaid: dict[str, int]
    camat: int | None  # a CAMAT designated at the end of this round (D15)
    turns: int
    tiles_played: int
    passes: int
    passebunge: int
