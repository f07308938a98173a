"""Bad input: every mistake a user can make raises a DomengError subclass with a
readable one-line message, and leaves the game exactly as it was (D5, D9, D3)."""

from __future__ import annotations

import pytest
from _util import H, T, make_table, snapshot

from domeng.core.errors import (
    DomengError,
    IllegalMoveError,
    PlayerError,
    RulesError,
    TileError,
)
from domeng.core.rules import Rules
from domeng.core.tiles import parse_tile
from domeng.engine.reference import LEFT, RIGHT, Move, Round, Table
from domeng.players.registry import RandomPlayer, make_player, parse_players


def position() -> Round:
    """Seat 0 to move on open ends 3 and 5, holding [5|3] [3|3] [5|1] [0|0]."""
    table = make_table(stones=[2, 2, 2, 2, 2], table_stones=15)
    return Round.from_position(
        table,
        [
            H("3-5", "3-3", "5-1", "0-0"),
            H("1-1", "6-6"),
            H("2-2", "6-5"),
            H("4-4", "6-4"),
            H("6-0", "6-2"),
        ],
        to_move=0,
        ends=(3, 5),
        last_mappano=4,
        has_played=[True] * 5,
    )


def assert_rejected(rnd, action, error=IllegalMoveError, match=None):
    """``action`` raises ``error`` (a DomengError) with a readable message and
    changes nothing."""
    before = snapshot(rnd)
    with pytest.raises(error) as info:
        action()
    assert isinstance(info.value, DomengError)
    msg = str(info.value)
    assert msg and "\n" not in msg and len(msg) < 400
    if match is not None:
        assert match in msg, msg
    assert snapshot(rnd) == before
    return msg


@pytest.mark.parametrize(
    "move,match",
    [
        (Move(T("6-6"), LEFT), "seat 0 does not hold [6|6]"),  # not in hand
        (Move(T("0-0"), LEFT), "[0|0] does not fit the left end"),  # fits no end
        (Move(T("5-1"), LEFT), "[5|1] does not fit the left end (open ends 3 and 5)"),
        (Move(T("3-3"), RIGHT), "[3|3] does not fit the right end"),
        (Move(99, LEFT), "no tile with id 99"),
        (Move(-1, LEFT), "no tile with id -1"),
        (Move(T("5-3"), 2), "the end must be left (0) or right (1)"),
        ((T("5-1"), 0), "does not fit the left end"),  # a plain tuple
    ],
)
def test_illegal_move(move, match):
    """D5: only (tile, end) moves that fit are accepted."""
    rnd = position()
    assert_rejected(rnd, lambda: rnd.play(move), match=match)
    rnd.play(Move(T("5-1"), RIGHT))  # the round still works afterwards
    assert (rnd.left, rnd.right) == (3, 1)


def test_equal_ends_right_placement_rejected():
    """D5: with L == R a tile is one move (left); the right placement is refused."""
    table = make_table()
    rnd = Round.from_position(
        table,
        [H("4-1", "0-0"), H("1-1"), H("2-2"), H("3-3"), H("6-6")],
        to_move=0,
        ends=(4, 4),
        last_mappano=4,
    )
    assert_rejected(rnd, lambda: rnd.play(Move(T("4-1"), RIGHT)), match="play it left")


@pytest.mark.parametrize("bad", [None, "6-3", (1,), ("a", 0), object()])
def test_malformed_move_object(bad):
    """A move that is not (tile id, end) at all is an IllegalMoveError too."""
    rnd = position()
    assert_rejected(rnd, lambda: rnd.play(bad), match="move")


def test_move_by_the_wrong_seat():
    """D1: only the seat to move may play or pass."""
    rnd = position()
    assert_rejected(
        rnd,
        lambda: rnd.play(Move(T("5-3"), LEFT), seat=2),
        match="it is seat 0's turn, not seat 2's",
    )
    assert_rejected(rnd, lambda: rnd.pass_turn(seat=3), match="not seat 3's")
    rnd.play(Move(T("5-3"), LEFT), seat=0)  # the right seat may
    assert rnd.to_move == 1


def test_first_lead_must_be_the_double():
    """D3: the first round's opener leading another tile is refused."""
    table = Table(seed=4)
    rnd = table.new_round()
    other = next(t for t in rnd.hands[rnd.starter] if t != rnd.must_lead)
    assert_rejected(rnd, lambda: rnd.play(Move(other, LEFT)), match="(D3)")


def test_pass_when_a_tile_is_playable():
    """D5: a seat holding a playable tile cannot pass."""
    rnd = position()
    assert_rejected(rnd, rnd.pass_turn, match="seat 0 has a playable tile and must play")


def test_play_when_a_seat_must_pass():
    rnd = position()
    rnd.play(Move(T("5-1"), RIGHT))  # ends 3, 1: seat 1 holds [1|1]
    rnd.play(Move(T("1-1"), RIGHT))
    assert rnd.to_move == 2 and rnd.legal_moves() == []
    assert_rejected(
        rnd,
        lambda: rnd.play(Move(T("2-2"), LEFT)),
        match="seat 2 has no playable tile and must pass",
    )


def test_actions_after_the_round_ended():
    """D9: after the FIRST CAPPU nothing more can be played or passed."""
    table = make_table()
    rnd = Round.from_position(
        table,
        [H("0-0"), H("6-3"), H("3-3"), H("3-1"), H("2-1")],
        to_move=1,
        ends=(6, 2),
        last_mappano=0,
    )
    rnd.play(Move(T("6-3"), LEFT))
    assert rnd.ended
    assert_rejected(rnd, lambda: rnd.play(Move(T("3-3"), LEFT)), match="the round has ended")
    assert_rejected(rnd, rnd.pass_turn, match="the round has ended")
    assert_rejected(rnd, lambda: rnd.play(Move(T("3-3"), LEFT), seat=2), match="ended")


def test_new_round_while_a_round_is_in_play():
    table = Table(seed=1)
    rnd = table.new_round()
    assert_rejected(rnd, table.new_round, match="has not ended")
    assert table.round is rnd


@pytest.mark.parametrize(
    "hands,match",
    [
        ([[0, 1, 2, 3, 4]] * 5, "dealt twice"),
        (
            [
                [0, 1, 2, 3],
                [5, 6, 7, 8, 9],
                [10, 11, 12, 13, 14],
                [15, 16, 17, 18, 19],
                [20, 21, 22, 23, 24],
            ],
            "seat 0 must be dealt 5 tiles",
        ),
        ([[0, 1, 2, 3, 4]] * 4, "a deal has 5 hands"),
        (
            [
                [0, 1, 2, 3, 40],
                [5, 6, 7, 8, 9],
                [10, 11, 12, 13, 14],
                [15, 16, 17, 18, 19],
                [20, 21, 22, 23, 24],
            ],
            "no tile with id 40",
        ),
    ],
)
def test_bad_deal(hands, match):
    """D2: a hand-made deal must give 5 distinct tiles to each of the 5 seats."""
    table = Table(seed=2)
    before = (
        table.rng.state,
        table.stones[:],
        table.table_stones,
        table.round,
        table.next_starter,
        table.rounds_played,
    )
    with pytest.raises(IllegalMoveError, match=match):
        table.new_round(hands=hands)
    assert (
        table.rng.state,
        table.stones,
        table.table_stones,
        table.round,
        table.next_starter,
        table.rounds_played,
    ) == before


@pytest.mark.parametrize("text", ["7-1", "abc", "", "6", "1-2-3"])
def test_malformed_tile_text(text):
    """Tile text that is not a tile raises TileError before anything is played."""
    rnd = position()
    assert_rejected(
        rnd, lambda: rnd.play(Move(parse_tile(text), LEFT)), error=TileError, match=repr(text)
    )


@pytest.mark.parametrize(
    "spec,match",
    [
        ("polo=4", "unknown rule option 'polo'; known options: stones"),
        ("pollo=abc", "pollo_award must be a whole number from 0 to"),
        ("pollo=-2", "pollo_award must be a whole number from 0 to"),
        ("opener_leads_double=maybe", "opener_leads_double must be true or false"),
        ("pollo", "name=value"),
    ],
)
def test_invalid_rule_option(spec, match):
    """Rule options: a bad option raises RulesError; the running game keeps its rules."""
    rnd = position()
    rules_before = rnd.table.rules
    assert_rejected(rnd, lambda: Rules.parse(spec), error=RulesError, match=match)
    assert rnd.table.rules is rules_before and rules_before == Rules()


def test_players_bad_input():
    with pytest.raises(
        PlayerError, match="player 'nobody' refused: unknown player; players here: random"
    ):
        make_player("nobody")
    with pytest.raises(PlayerError, match="five"):
        parse_players("random,heavy")
    table = Table(seed=3)
    with pytest.raises(PlayerError, match="exactly 5 players"):
        table.play_round([RandomPlayer()] * 4)
    assert table.round is None and table.rounds_played == 0


def test_player_returning_an_illegal_move():
    class Cheater:
        def choose(self, obs, moves, rng):
            return Move(moves[0].tile, 5)

    table = Table(seed=3)
    with pytest.raises(PlayerError, match="chose an illegal move"):
        table.play_round([Cheater()] * 5)
    rnd = table.round
    assert rnd.chain == [] and all(len(h) == 5 for h in rnd.hands)
    assert table.total_stones() == 25 and table.table_stones == 25


def test_every_error_class_is_a_domeng_error():
    for cls in (TileError, RulesError, IllegalMoveError, PlayerError):
        assert issubclass(cls, DomengError) and issubclass(cls, ValueError)


def test_a_float_tile_or_a_bad_seat_is_refused_not_truncated():
    """Issue 10 (Low): ``play((3.7, 0))`` must not play tile 3, ``observation(-1)``
    must not give seat 4's view; both are one clear IllegalMoveError."""
    import pytest

    from domeng.core.errors import IllegalMoveError
    from domeng.engine.reference import Table

    rnd = Table(seed=1).new_round()
    before = snapshot(rnd)
    for bad in [(3.7, 0), (3, 0.0), (True, 0), ("3", 0)]:
        with pytest.raises(IllegalMoveError):
            rnd.play(bad)
        assert snapshot(rnd) == before
    for seat in (-1, 5, True, 2.0, "1"):
        with pytest.raises(IllegalMoveError):
            rnd.observation(seat)
