"""What a person types at the move prompt (``domeng.play.typed``): every old
accepted form and refusal of ``parse_move`` kept, and no line of text ever
raises anything but :class:`InputError` (issue 10, item 6)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domeng.core.tiles import parse_tile, tile_str
from domeng.engine.game import Game, Preview, action_of
from domeng.play.session import Move
from domeng.play.typed import MAX_INPUT, InputError, clean, parse_move


def T(text: str) -> int:
    return parse_tile(text)


def mv(tile: str, end: str) -> Move:
    t = T(tile)
    return Move(
        action_of(t, 0 if end in ("left", "lead") else 1),
        t,
        end,
        Preview(0, 0, False, False, None, None),
    )


# seat to move holds 5-3, 3-3, 5-1, 0-0 on open ends 3 | 5 with [6|3] on the chain
MOVES = [mv("3-3", "left"), mv("5-1", "right"), mv("5-3", "left"), mv("5-3", "right")]
HAND = sorted(T(x) for x in ("5-3", "3-3", "5-1", "0-0"))
CHAIN = [T("6-3")]


def pm(text, moves=MOVES, hand=HAND, ends=(3, 5), must_lead=None, chain=CHAIN):
    return parse_move(text, moves, hand, ends, must_lead, chain)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("1", 0),
        ("2", 1),
        (" 4 ", 3),
        ("5-3 left", 2),
        ("[5|3] r", 3),
        ("3-5 right", 3),
        ("53l", 2),
        ("5 3 on the left", 2),
        ("5|3 RIGHT", 3),
        ("51", 1),
        ("[1|5]", 1),
        ("5-1 right", 1),
        ("33", 0),
    ],
)
def test_parse_move_accepts(text, expected):
    assert pm(text) == MOVES[expected]


@pytest.mark.parametrize(
    "text,reason",
    [
        ("", "type a move number 1-4"),
        ("xyz", "cannot read 'xyz'"),
        ("5-9", "cannot read"),
        ("left", "cannot read"),
        ("9", "there is no move 9: type a move number 1-4"),
        ("0", "there is no move 0"),
        ("99", "there is no move 99"),
        ("66", "you do not hold [6|6]"),
        ("6-3 left", "[6|3] is already on the chain"),
        ("0-0", "[0|0] does not fit: the open ends are 3 and 5"),
        ("5-3", "[5|3] fits both ends: type 5-3 left or 5-3 right"),
        ("5-1 left", "[5|1] does not fit the left end (3); it goes on the right"),
        ("3-3 r", "[3|3] does not fit the right end (5); it goes on the left"),
        ("²", "cannot read '²'"),
        ("٣", "cannot read"),
        ("9" * 5000, "characters long"),
        ("1" * 150, "there is no move 111111..."),
        ("\x1b[2J", "control characters"),
        ("1\x00", "control characters"),
    ],
)
def test_parse_move_refuses_with_a_reason(text, reason):
    with pytest.raises(InputError) as info:
        pm(text)
    assert reason in str(info.value) and "\n" not in str(info.value)


def test_enter_plays_a_single_move_and_equal_ends_take_any_end():
    only = [mv("3-1", "left")]
    hand = [T("3-1"), T("0-0")]
    for text in ("", "3-1", "3-1 left", "3-1 right", "13 r", "1"):
        assert pm(text, only, hand, ends=(3, 3)) == only[0]


def test_the_first_lead_and_a_free_lead():
    g = Game(seed=4)
    g.new_round()
    s = g.seat
    hand = g.hand(s)
    moves = [Move(a, a >> 1, "lead", g.preview(a)) for a in g.legal_actions()]
    double = tile_str(g.must_lead)
    assert pm(double + " right", moves, hand, None, g.must_lead, []) == moves[0]
    other = next(t for t in hand if t != g.must_lead)
    with pytest.raises(InputError, match=re.escape(f"must be opened with {double}")):
        pm(tile_str(other), moves, hand, None, g.must_lead, [])
    free = [mv("0-0", "lead"), mv("5-3", "lead")]
    assert pm("0-0", free, HAND, None, None, []) == free[0]


@given(st.text(max_size=300))
def test_any_text_is_a_move_or_one_line_refusal(text):
    try:
        m = pm(text)
    except InputError as e:
        assert "\n" not in str(e)
    else:
        assert m in MOVES


@given(st.text(max_size=MAX_INPUT + 50))
def test_clean_never_raises_anything_else(text):
    try:
        out = clean(text)
    except InputError:
        return
    assert out.isprintable()
