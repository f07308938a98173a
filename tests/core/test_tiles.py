"""The double-six set: 28 tiles with stable ids, pips, doubles, text forms
(the tile vocabulary every decision D1..D17 is written in; D2 deals these 28)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domeng.core import tiles
from domeng.core.errors import DomengError, TileError
from domeng.core.tiles import (
    ALL_TILES_MASK,
    DOUBLE_OF,
    N_TILES,
    NUMBER_MASK,
    TILE_HIGH,
    TILE_IS_DOUBLE,
    TILE_LOW,
    TILE_PIPS,
    hand_str,
    is_double,
    mask_of,
    numbers,
    other_end,
    parse_tile,
    pips,
    tile_id,
    tile_str,
    tiles_of,
)

ALL_PAIRS = [(hi, lo) for hi in range(7) for lo in range(hi + 1)]


def test_28_tiles_one_per_unordered_pair():
    assert N_TILES == 28 == len(ALL_PAIRS)
    assert sorted(numbers(t) for t in range(N_TILES)) == sorted(ALL_PAIRS)
    assert ALL_TILES_MASK == (1 << 28) - 1


@pytest.mark.parametrize("hi,lo", ALL_PAIRS)
def test_stable_id_formula(hi, lo):
    t = hi * (hi + 1) // 2 + lo
    assert tile_id(hi, lo) == t
    assert tile_id(lo, hi) == t  # either order
    assert numbers(t) == (hi, lo)
    assert int(TILE_HIGH[t]) == hi and int(TILE_LOW[t]) == lo


def test_known_ids():
    assert tile_id(0, 0) == 0
    assert tile_id(1, 0) == 1
    assert tile_id(1, 1) == 2
    assert tile_id(6, 3) == 24
    assert tile_id(6, 6) == 27
    assert list(DOUBLE_OF) == [0, 2, 5, 9, 14, 20, 27]


def test_pips_and_doubles():
    for t in range(N_TILES):
        hi, lo = numbers(t)
        assert pips(t) == hi + lo == int(TILE_PIPS[t])
        assert is_double(t) == (hi == lo) == bool(TILE_IS_DOUBLE[t])
    assert sum(pips(t) for t in range(N_TILES)) == 168  # each number appears 8 times
    assert [t for t in range(N_TILES) if is_double(t)] == list(DOUBLE_OF)
    assert pips(tile_id(6, 6)) == 12 and pips(tile_id(0, 0)) == 0


def test_tables_are_read_only():
    with pytest.raises(ValueError):
        TILE_PIPS[0] = 5
    with pytest.raises(ValueError):
        NUMBER_MASK[0] = 0


@pytest.mark.parametrize("n", range(7))
def test_number_mask(n):
    members = tiles_of(int(NUMBER_MASK[n]))
    assert len(members) == 7  # [n|0]..[n|6]
    assert members == sorted(tile_id(n, m) for m in range(7))
    assert all(n in numbers(t) for t in members)
    # no other tile shows n
    others = [t for t in range(N_TILES) if t not in members]
    assert all(n not in numbers(t) for t in others)


def test_other_end():
    t = tile_id(6, 3)
    assert other_end(t, 6) == 3
    assert other_end(t, 3) == 6
    assert other_end(tile_id(4, 4), 4) == 4
    with pytest.raises(TileError):
        other_end(t, 5)


def test_tile_str_high_first():
    assert tile_str(tile_id(3, 6)) == "[6|3]"
    assert tile_str(tile_id(0, 0)) == "[0|0]"
    assert tile_str(27) == "[6|6]"
    for hi, lo in ALL_PAIRS:
        assert tile_str(tile_id(lo, hi)) == f"[{hi}|{lo}]"
    assert hand_str([27, 0, 24]) == "[0|0] [6|3] [6|6]"


@pytest.mark.parametrize("bad", [-1, 28, 100])
def test_tile_str_rejects_bad_ids(bad):
    with pytest.raises(TileError, match="no tile with id"):
        tile_str(bad)


@pytest.mark.parametrize("text", ["6-3", "6|3", "[6|3]", "63", "3-6", "3|6", " [ 6 | 3 ] ", "6 3"])
def test_parse_tile_accepts(text):
    assert parse_tile(text) == tile_id(6, 3) == 24


@pytest.mark.parametrize(
    "bad", ["7-1", "abc", "", "6", "1-2-3", "6-", "-6", "66-", "[7|7]", "6--3", "x6-3"]
)
def test_parse_tile_rejects_junk(bad):
    with pytest.raises(TileError) as info:
        parse_tile(bad)
    assert isinstance(info.value, DomengError)
    msg = str(info.value)
    assert repr(bad) in msg and "6-3" in msg  # readable: echoes the input and shows the form


@pytest.mark.parametrize("bad", [None, 63, 6.3, b"6-3"])
def test_parse_tile_rejects_non_text(bad):
    with pytest.raises(TileError):
        parse_tile(bad)


def test_tile_id_rejects_numbers_outside_0_6():
    for a, b in [(7, 1), (-1, 0), (0, 7)]:
        with pytest.raises(TileError):
            tile_id(a, b)


def test_tile_error_is_a_domeng_error():
    assert issubclass(TileError, DomengError)
    assert issubclass(TileError, ValueError)


@given(st.integers(0, 27))
def test_round_trip_text(t):
    assert parse_tile(tile_str(t)) == t
    hi, lo = numbers(t)
    assert parse_tile(f"{lo}-{hi}") == t
    assert parse_tile(f"{hi}{lo}") == t


@given(st.sets(st.integers(0, 27)))
def test_masks_round_trip(ids):
    m = mask_of(ids)
    assert 0 <= m <= ALL_TILES_MASK
    assert tiles_of(m) == sorted(ids)
    assert bin(m).count("1") == len(ids)


def test_module_constants_agree():
    assert tiles.N_NUMBERS == 7
    for n in range(7):
        assert int(DOUBLE_OF[n]) == tile_id(n, n)
