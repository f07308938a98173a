"""The 28 tiles of a double-six set, with stable ids 0..27.

Tile ids are ordered by (high, low): ``id = high*(high+1)//2 + low`` with
``high >= low``, so ``[0|0]`` is 0, ``[1|0]`` is 1, ``[1|1]`` is 2, ... and
``[6|6]`` is 27.  Hands and sets of tiles are often held as 28-bit masks
(bit ``id`` set when the tile is present); the batch engine uses these masks
throughout, and the reference engine exposes them for convenience.
"""

from __future__ import annotations

import re

import numpy as np

from domeng.core.errors import TileError

N_TILES = 28
N_NUMBERS = 7  # pips 0..6

#: TILE_HIGH[id], TILE_LOW[id]: the two numbers of each tile (high >= low).
TILE_HIGH = np.zeros(N_TILES, dtype=np.int64)
TILE_LOW = np.zeros(N_TILES, dtype=np.int64)
for _hi in range(N_NUMBERS):
    for _lo in range(_hi + 1):
        _t = _hi * (_hi + 1) // 2 + _lo
        TILE_HIGH[_t] = _hi
        TILE_LOW[_t] = _lo
#: pip sum of each tile
TILE_PIPS = TILE_HIGH + TILE_LOW
#: True for a LEMPA (a double)
TILE_IS_DOUBLE = TILE_HIGH == TILE_LOW
#: NUMBER_MASK[n]: 28-bit mask of the 7 tiles that show number n
NUMBER_MASK = np.zeros(N_NUMBERS, dtype=np.int64)
for _t in range(N_TILES):
    NUMBER_MASK[TILE_HIGH[_t]] |= 1 << _t
    NUMBER_MASK[TILE_LOW[_t]] |= 1 << _t
#: DOUBLE_OF[n]: the id of the double [n|n]
DOUBLE_OF = np.array([n * (n + 1) // 2 + n for n in range(N_NUMBERS)], dtype=np.int64)
ALL_TILES_MASK = (1 << N_TILES) - 1

for _arr in (TILE_HIGH, TILE_LOW, TILE_PIPS, TILE_IS_DOUBLE, NUMBER_MASK, DOUBLE_OF):
    _arr.setflags(write=False)


def tile_id(a: int, b: int) -> int:
    """The id of the tile showing numbers ``a`` and ``b`` (either order)."""
    if not (0 <= a <= 6 and 0 <= b <= 6):
        raise TileError(f"tile numbers must be 0..6, got {a} and {b}")
    hi, lo = max(a, b), min(a, b)
    return hi * (hi + 1) // 2 + lo


def numbers(t: int) -> tuple[int, int]:
    """The two numbers (high, low) of tile ``t``."""
    return int(TILE_HIGH[t]), int(TILE_LOW[t])


def pips(t: int) -> int:
    """Pip sum of tile ``t``."""
    return int(TILE_PIPS[t])


def is_double(t: int) -> bool:
    """True if tile ``t`` is a LEMPA (a double)."""
    return bool(TILE_IS_DOUBLE[t])


def other_end(t: int, n: int) -> int:
    """The number at the free end once tile ``t`` is joined on number ``n``."""
    hi, lo = numbers(t)
    if n == hi:
        return lo
    if n == lo:
        return hi
    raise TileError(f"{tile_str(t)} does not show {n}")


def tile_str(t: int) -> str:
    """Text form of a tile, high number first: ``[6|3]``."""
    if not 0 <= t < N_TILES:
        raise TileError(f"no tile with id {t}; ids are 0..27")
    hi, lo = numbers(t)
    return f"[{hi}|{lo}]"


def hand_str(tiles) -> str:
    """Text form of a collection of tile ids, in id order."""
    return " ".join(tile_str(t) for t in sorted(tiles))


def mask_of(tiles) -> int:
    """28-bit mask of a collection of tile ids."""
    m = 0
    for t in tiles:
        m |= 1 << int(t)
    return m


def tiles_of(mask: int) -> list[int]:
    """Tile ids present in a 28-bit mask, ascending (bits past 27 ignored).

    >>> tiles_of(0b1011), tiles_of(-1) == list(range(28))
    ([0, 1, 3], True)
    """
    m = int(mask) & ALL_TILES_MASK
    out = []
    while m:  # the lowest set bit each time: one step a tile, not 28
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


_TILE_RE = re.compile(r"^\s*\[?\s*([0-6])\s*[|\-/:,\s]?\s*([0-6])\s*\]?\s*$")


def parse_tile(text: str) -> int:
    """Parse what a person types for a tile: ``6-3``, ``6|3``, ``[6|3]``, ``63``,
    ``3 6`` (either order).  Returns the tile id; raises :class:`TileError`
    with a readable message on anything else."""
    if not isinstance(text, str):
        raise TileError(f"a tile is written like 6-3 or [6|3], got {text!r}")
    m = _TILE_RE.match(text)
    if not m:
        raise TileError(
            f"cannot read {text!r} as a tile: write two numbers 0..6, like 6-3, 6|3, [6|3] or 63"
        )
    return tile_id(int(m.group(1)), int(m.group(2)))
