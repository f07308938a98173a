"""The environments' observation vector: one seat's D17 view as a fixed-size
``float32`` array, built from that seat's view in the observation layout
(:func:`domeng.engine.step.observe`: the public state and its own hand) and
the round's public history (:func:`domeng.engine.step.observe_history`).
Nothing else is read, so nothing else can leak (D17): never another seat's
tiles, never the 3 tiles out of play.

Seats are *relative*: block ``r`` of a per-seat field is seat
``(me + r) % 5`` (``r = 0`` the observer, ``r = 1`` the next seat clockwise,
D1), so one policy serves every seat.  :data:`FIELDS` lists every field
(name, offset, size, meaning); ``docs/environments.md`` prints the same table.
Counts are raw (not scaled); one-hot blocks are all 0 for "none".
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domeng.core.bits import lowest_bit
from domeng.core.observation import (
    MAX_TURNS,
    OBS_CAMAT,
    OBS_CHAIN,
    OBS_HAND,
    OBS_HAND_SIZE,
    OBS_HAS_PLAYED,
    OBS_LAST_MAPPANO,
    OBS_LEFT,
    OBS_MUST_LEAD,
    OBS_PASSES,
    OBS_PLAYED_BY,
    OBS_RIGHT,
    OBS_ROUND,
    OBS_RULES,
    OBS_SEAT,
    OBS_STARTER,
    OBS_STONES,
    OBS_TABLE,
    OBS_TURN,
    OBS_VOID,
)
from domeng.core.rules import R_LEN
from domeng.core.tiles import TILE_HIGH

#: (name, size, meaning), in order; offsets follow from the sizes
_SPEC = (
    ("hand", 28, "1 for each tile (id 0..27) in the observer's hand"),
    ("chain", 28, "1 for each tile on the chain"),
    ("played_by", 5 * 28, "[seat r][tile]: 1 if relative seat r played the tile this round"),
    (
        "play_order",
        28,
        "(k+1)/25 if the tile was the k-th tile played this round (0-based), else 0",
    ),
    ("play_end", 28, "1 if the tile was played on the right end (a lead counts as left)"),
    ("left", 7, "one-hot of the left open end (all 0 before the lead)"),
    ("right", 7, "one-hot of the right open end (all 0 before the lead)"),
    ("void", 5 * 7, "[seat r][number]: 1 if seat r is known not to hold the number (its passes)"),
    ("passes", 5, "[seat r]: passes seat r made this round (PASS and PASSEBUNGE)"),
    (
        "has_played",
        5,
        "[seat r]: 1 once seat r has played a tile this round (else its passes are PASSEBUNGE, D6)",
    ),
    ("hand_size", 5, "[seat r]: tiles left in seat r's hand"),
    ("stones", 5, "[seat r]: stones seat r holds (penalties)"),
    ("table", 1, "stones on the table"),
    ("camat", 5, "one-hot relative seat of the CAMAT (all 0: none yet)"),
    ("starter", 5, "one-hot relative seat that started this round"),
    ("last_mappano", 5, "one-hot relative seat of the LAST MAPPANO (all 0 before the lead)"),
    (
        "passes_since_play",
        1,
        "passes since the LAST DOMINO (the fourth lets the LAST MAPPANO block, D11)",
    ),
    ("must_lead", 7, "one-hot number of the double the opener must lead (D3), else 0"),
    ("round", 1, "round number in the game (1 = first)"),
    ("turn", 1, "turns taken this round"),
    ("seat", 5, "one-hot absolute seat of the observer"),
    ("rules", R_LEN, "the rules in force (Rules.to_array(): stones, award sizes, options)"),
)

FIELDS: tuple[tuple[str, int, int, str], ...] = tuple(
    (name, sum(s for _, s, _ in _SPEC[:i]), size, text)
    for i, (name, size, text) in enumerate(_SPEC)
)
OFFSET = {name: off for name, off, _, _ in FIELDS}
#: length of the observation vector
OBS_SIZE = sum(s for _, s, _ in _SPEC)

_HAND = OFFSET["hand"]
_CHAIN = OFFSET["chain"]
_PLAYED_BY = OFFSET["played_by"]
_ORDER = OFFSET["play_order"]
_PEND = OFFSET["play_end"]
_LEFT = OFFSET["left"]
_RIGHT = OFFSET["right"]
_VOID = OFFSET["void"]
_PASSES = OFFSET["passes"]
_HAS_PLAYED = OFFSET["has_played"]
_HAND_SIZE = OFFSET["hand_size"]
_STONES = OFFSET["stones"]
_TABLE = OFFSET["table"]
_CAMAT = OFFSET["camat"]
_STARTER = OFFSET["starter"]
_LAST_M = OFFSET["last_mappano"]
_PSP = OFFSET["passes_since_play"]
_MUST = OFFSET["must_lead"]
_ROUND = OFFSET["round"]
_TURN = OFFSET["turn"]
_SEAT = OFFSET["seat"]
_RULES = OFFSET["rules"]

_HIGH = TILE_HIGH.copy()


@njit(cache=True, inline="always")
def _rel(seat, me):
    return (seat - me + 5) % 5


@njit(cache=True, inline="always")
def _bits(out, base, mask):
    """``out[base + b] = 1`` for each set bit ``b`` of ``mask`` (out is zeroed)."""
    m = mask
    while m:
        out[base + lowest_bit(m)] = 1.0
        m &= m - 1


@njit(cache=True, _nrt=False)
def encode(obs, hist, out):
    """Write the observation vector of the seat ``obs[OBS_SEAT]`` into
    ``out`` (``float32[OBS_SIZE]``) from its view ``obs`` (observation
    layout) and the public history ``hist`` (rows below ``obs[OBS_TURN]``)."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    me = obs[OBS_SEAT]
    _bits(out, _HAND, obs[OBS_HAND])
    _bits(out, _CHAIN, obs[OBS_CHAIN])
    for s in range(5):
        r = _rel(s, me)
        _bits(out, _PLAYED_BY + r * 28, obs[OBS_PLAYED_BY + s])
        _bits(out, _VOID + r * 7, obs[OBS_VOID + s])
        out[_HAS_PLAYED + r] = float(obs[OBS_HAS_PLAYED + s])
        out[_HAND_SIZE + r] = float(obs[OBS_HAND_SIZE + s])
        out[_STONES + r] = float(obs[OBS_STONES + s])
    out[_SEAT + me] = 1.0
    turns = obs[OBS_TURN]
    k = 0
    for i in range(turns):
        t = hist[i, 1]
        if t < 0:
            out[_PASSES + _rel(hist[i, 0], me)] += 1.0
        else:
            k += 1
            out[_ORDER + t] = k / 25.0
            out[_PEND + t] = float(hist[i, 2])
    left = obs[OBS_LEFT]
    if left >= 0:
        out[_LEFT + left] = 1.0
        out[_RIGHT + obs[OBS_RIGHT]] = 1.0
    else:
        must = obs[OBS_MUST_LEAD]
        if must >= 0:
            out[_MUST + _HIGH[must]] = 1.0
    out[_TABLE] = float(obs[OBS_TABLE])
    if obs[OBS_CAMAT] >= 0:
        out[_CAMAT + _rel(obs[OBS_CAMAT], me)] = 1.0
    out[_STARTER + _rel(obs[OBS_STARTER], me)] = 1.0
    if obs[OBS_LAST_MAPPANO] >= 0:
        out[_LAST_M + _rel(obs[OBS_LAST_MAPPANO], me)] = 1.0
    out[_PSP] = float(obs[OBS_PASSES])
    out[_ROUND] = float(obs[OBS_ROUND])
    out[_TURN] = float(turns)
    for i in range(R_LEN):
        out[_RULES + i] = float(obs[OBS_RULES + i])


def describe(vec: np.ndarray) -> dict[str, np.ndarray]:
    """The observation vector split into its named fields (for reading and
    tests): field name -> a view of ``vec``.

    >>> import numpy as np
    >>> fields = describe(np.zeros(OBS_SIZE, dtype=np.float32))
    >>> fields["played_by"].shape
    (140,)
    """
    return {name: np.asarray(vec[off : off + size]) for name, off, size, _ in FIELDS}


def fields_table() -> str:
    """The fields as a Markdown table (``docs/environments.md`` shows it).

    >>> fields_table().splitlines()[0]
    '| field | offset | size | meaning |'
    """
    rows = ["| field | offset | size | meaning |", "| --- | --- | --- | --- |"]
    rows += [f"| `{n}` | {o} | {s} | {t} |" for n, o, s, t in FIELDS]
    return "\n".join(rows)


__all__ = ["FIELDS", "MAX_TURNS", "OBS_SIZE", "OFFSET", "describe", "encode", "fields_table"]
