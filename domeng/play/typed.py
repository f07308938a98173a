"""What a person types at the table, read without ever crashing.

:func:`parse_move` turns a line into one of the legal moves the session
offers (:meth:`domeng.play.session.Session.moves`) or raises
:class:`InputError` with a one-line reason; :func:`clean` refuses what no
move or command can be (control characters, over-long lines) first.
The legal moves come from the engine: nothing here decides a rule.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from domeng.core.errors import (
    InputError,
    TileError,
)
from domeng.core.tiles import numbers, parse_tile, tile_str
from domeng.play.session import Move

MAX_INPUT = 200  # characters: no move or command is longer


def clean(text: str) -> str:
    """``text`` lower-cased with its spaces collapsed; :class:`InputError`
    for control characters or a line longer than any move or command."""
    if len(text) > MAX_INPUT:
        raise InputError(f"that line is {len(text)} characters long: type a move number or a tile")
    if any(not c.isprintable() for c in text.replace("\t", " ")):
        raise InputError("that line holds control characters: type a move number or a tile")
    return " ".join(text.strip().lower().split())


_END_WORDS = {"l": "left", "left": "left", "r": "right", "right": "right"}
_END_RE = re.compile(
    r"^(?P<tile>.*?)\s*(?:\bon\s+)?(?:\bthe\s+)?"
    r"(?P<end>left|right|l|r)(?:\s+end)?\s*$"
)


def _split_end(s: str) -> tuple[str, str | None]:
    """``"5-3 left"`` -> ``("5-3", "left")``; ``"[5|3]"`` -> ``("[5|3]", None)``."""
    m = _END_RE.match(s)
    if m and m.group("tile"):
        return m.group("tile"), _END_WORDS[m.group("end")]
    return s, None


def parse_move(
    text: str,
    moves: Sequence[Move],
    hand: Sequence[int],
    ends: tuple[int, int] | None,
    must_lead: int | None = None,
    chain: Sequence[int] = (),
) -> Move:
    """What a person typed -> one of ``moves`` (in the numbered order shown),
    or :class:`InputError` with a short reason.

    Accepted: a move number (``2``); a tile, either order, with an optional
    end (``5-3 left``, ``[5|3] r``, ``53``, ``3-5 on the right``); the end may
    be left out when the tile goes only one way.  Enter (an empty line) plays
    the only move when there is exactly one."""
    s = clean(text)
    n = len(moves)
    choose = f"a move number 1-{n}" if n > 1 else "1 or Enter (the only move)"
    if not s:
        if n == 1:
            return moves[0]
        raise InputError(f"type {choose}, or a tile like 5-3 left (help for more)")
    if s.isascii() and s.isdigit():
        if len(s) <= 3 and 1 <= int(s) <= n:
            return moves[int(s) - 1]
        if not (len(s) == 2 and all(c in "0123456" for c in s)):
            raise InputError(
                f"there is no move {s if len(s) <= 6 else s[:6] + '...'}: type {choose}"
            )
    tile_text, end = _split_end(s)
    try:
        if not tile_text.isascii():
            raise TileError(tile_text)
        t = parse_tile(tile_text)
    except (TileError, ValueError):
        shown = text.strip() if len(text.strip()) <= 20 else text.strip()[:20] + "..."
        raise InputError(
            f"cannot read {shown!r}: type {choose}, or a tile like 5-3 left (help for more)"
        ) from None
    ts = tile_str(t)
    if t not in hand:
        if t in chain:
            raise InputError(f"{ts} is already on the chain; your tiles are listed above")
        raise InputError(f"you do not hold {ts}")
    fitting = [m for m in moves if m.tile == t]
    if not fitting:
        if ends is None and must_lead is not None:
            raise InputError(f"the first round must be opened with {tile_str(must_lead)} (D3)")
        where = f"the open ends are {ends[0]} and {ends[1]}" if ends else "it cannot lead"
        raise InputError(f"{ts} does not fit: {where}")
    if len(fitting) == 1 and (
        end is None or ends is None or ends[0] == ends[1] or fitting[0].end == end
    ):
        return fitting[0]  # a lead, or a tile with one way to go
    if end is None:
        a, b = numbers(t)
        raise InputError(f"{ts} fits both ends: type {a}-{b} left or {a}-{b} right")
    for m in fitting:
        if m.end == end:
            return m
    assert ends is not None
    num = ends[0] if end == "left" else ends[1]
    raise InputError(f"{ts} does not fit the {end} end ({num}); it goes on the {fitting[0].end}")
