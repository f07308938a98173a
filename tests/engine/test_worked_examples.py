"""The eight worked examples of RULES.md, each built from its exact situation.

Stone counts the example does not name are filled in so that every position
holds all 25 stones (D7); they do not affect the example.  Each test checks
every stone moved (source, dest, amount, reason), the unpaid part, how the
round ended, CAMAT (D15) and who starts next (D4).
"""

from __future__ import annotations

import pytest
from _util import H, T, check_stones, events_of, make_table, transfers

from domeng.core.errors import IllegalMoveError
from domeng.engine.reference import (
    CEKI,
    LEFT,
    MANGUNO,
    MATTIKKENG,
    PASS,
    PASSEBUNGE,
    POLLO,
    RIGHT,
    Move,
    Round,
)
from domeng.players.registry import RandomPlayer


# ---------------------------------------------------------------- 1. CEKI
@pytest.mark.parametrize("end,ends_after", [(LEFT, (5, 5)), (RIGHT, (2, 2))])
def test_example_1_ceki(end, ends_after):
    """Ex. 1 (D8, D10, D7, D15): ends 2 and 5; seat 3 plays his last tile [2|5] on
    either end; CEKI; CUCUQ seat 2 gets up to 3: 2 from the table, 1 from seat 3."""
    table = make_table(stones=[5, 5, 4, 4, 5], table_stones=2)
    rnd = Round.from_position(
        table,
        [H("6-6", "0-0"), H("6-5"), H("4-4"), H("2-5"), H("1-1")],
        to_move=3,
        ends=(2, 5),
        last_mappano=2,
    )
    # D5: [L|R] with L != R fits both ends: two moves
    assert rnd.legal_moves() == [Move(T("2-5"), LEFT), Move(T("2-5"), RIGHT)]
    rnd.play(Move(T("2-5"), end))
    assert (rnd.left, rnd.right) == ends_after
    play_ev = events_of(rnd, "play")[-1]
    assert play_ev["mappakuling"] is True
    res = rnd.result
    assert rnd.ended and res is not None
    assert (res.kind, res.winner, res.first_cappu, res.cucuq) == (CEKI, 3, 3, 2)
    assert res.manguno is None and res.mattikkeng == []
    assert transfers(res) == [("table", 2, 2, CEKI), (3, 2, 1, CEKI)]
    assert res.unpaid == {}
    assert table.table_stones == 0
    assert table.stones == [5, 5, 7, 3, 5]
    assert res.camat is None and table.camat is None  # seat 3 still holds 3
    assert table.next_starter == 3  # D4: the winner starts next
    check_stones(table)


# ---------------------------------------------------------------- 2. POLLO and CAMAT
def test_example_2_pollo_and_camat():
    """Ex. 2 (D8, D7, D15, D4): ends 4 and 4; seat 1's last tile [4|4]: POLLO; CUCUQ
    seat 0 gets up to 5: 3 from seat 1, 2 unpaid; seat 1 holds 0 and the table is
    empty: seat 1 is CAMAT, all 25 stones return, seat 1 starts every round."""
    table = make_table(stones=[5, 3, 6, 6, 5], table_stones=0)
    rnd = Round.from_position(
        table,
        [H("6-6", "0-0"), H("4-4"), H("6-5", "1-0"), H("3-3"), H("2-1")],
        to_move=1,
        ends=(4, 4),
        last_mappano=0,
    )
    assert rnd.legal_moves() == [Move(T("4-4"), LEFT)]  # D5: one move when L == R
    rnd.play(Move(T("4-4"), LEFT))
    res = rnd.result
    assert (res.kind, res.winner, res.first_cappu, res.cucuq) == (POLLO, 1, 1, 0)
    assert transfers(res) == [(1, 0, 3, POLLO)]
    assert res.unpaid == {POLLO: 2}
    unpaid_ev = events_of(rnd, "unpaid")
    assert unpaid_ev == [{"type": "unpaid", "reason": POLLO, "to": 0, "amount": 2}]
    # D15: CAMAT, then every stone returns to the table
    assert res.camat == 1 and table.camat == 1
    assert table.stones == [0, 0, 0, 0, 0] and table.table_stones == 25
    assert events_of(rnd, "camat") == [{"type": "camat", "seat": 1, "table_stones": 25}]
    assert [e["type"] for e in rnd.events] == ["play", "end", "transfer", "unpaid", "camat"]
    assert table.next_starter == 1
    # D4: the CAMAT starts every round until a new CAMAT is chosen
    players = [RandomPlayer()] * 5
    for _ in range(12):
        camat_before = table.camat
        table.play_round(players)
        assert table.round.starter == camat_before
        if table.round.result.camat is not None:
            assert table.next_starter == table.round.result.camat
        else:
            assert table.next_starter == camat_before
        check_stones(table)


# ---------------------------------------------------------------- 3. PASSEBUNGE
def test_example_3_passebunge():
    """Ex. 3 (D6, D7): table 1; seat 2 is LAST MAPPANO holding 6; seat 3 has played
    nothing and cannot play: PASSEBUNGE, 1 from the table, 1 from seat 2."""
    table = make_table(stones=[6, 6, 6, 0, 6], table_stones=1)
    rnd = Round.from_position(
        table,
        [H("6-2"), H("5-5"), H("6-3"), H("0-0", "2-0", "3-2", "4-3", "5-4"), H("4-4")],
        to_move=3,
        ends=(6, 1),
        last_mappano=2,
        has_played=[True, True, True, False, True],
    )
    assert rnd.legal_moves() == []
    rnd.pass_turn()
    assert events_of(rnd, "pass") == [
        {"type": "pass", "seat": 3, "passebunge": True, "left": 6, "right": 1}
    ]
    assert transfers(rnd) == [("table", 3, 1, PASSEBUNGE), (2, 3, 1, PASSEBUNGE)]
    assert rnd.unpaid[PASSEBUNGE] == 0
    assert table.table_stones == 0
    assert table.stones == [6, 6, 5, 2, 6]
    assert not rnd.ended and rnd.to_move == 4
    assert rnd.n_passebunge == 1 and rnd.n_passes == 1
    check_stones(table)


# ---------------------------------------------------------------- 4. two MATTIKKENG
# Seat 4 holds [6|5] [3|2] [4|0] (sum 9 after [6|5]); no other hand shows 5 or 6.
EX4_HANDS = [H("4-2", "3-3"), H("4-1", "3-1"), H("4-4", "4-3"), H("2-2"), H("6-5", "3-2", "4-0")]


def _example_4(stones, table_stones):
    table = make_table(stones=stones, table_stones=table_stones)
    rnd = Round.from_position(
        table,
        EX4_HANDS,
        to_move=4,
        ends=(6, 6),
        last_mappano=3,
        has_played=[True] * 5,
        chain=[(3, T("6-6"), LEFT)],
    )
    rnd.play(Move(T("6-5"), LEFT))  # ends 5 and 6: nobody else shows 5 or 6
    assert (rnd.left, rnd.right) == (5, 6)
    for seat in (0, 1, 2, 3):
        assert rnd.to_move == seat and rnd.legal_moves() == []
        rnd.pass_turn()
        assert not rnd.ended
    assert rnd.to_move == 4 and rnd.legal_moves() == []
    rnd.pass_turn()  # seat 4 cannot play either: MANGUNO
    res = rnd.result
    assert res.pip_sums == [12, 9, 15, 4, 9]
    assert (res.kind, res.winner, res.manguno, res.mattikkeng) == (MATTIKKENG, 3, 4, [1, 3])
    assert res.first_cappu is None and res.cucuq is None
    assert res.camat is None and table.camat is None  # D15: not a FIRST CAPPU
    assert table.next_starter == 3
    # four penalised passes (D11: seat 4's closing pass is not one)
    passes = events_of(rnd, "pass")
    assert [(e["seat"], e["passebunge"]) for e in passes] == [(s, False) for s in range(4)]
    assert res.passes == 4
    check_stones(table)
    return table, rnd, res


def test_example_4_two_mattikkeng_paid_from_table():
    """Ex. 4 (D11, D12, D14): seat 4 gets up to 1 from the table."""
    table, _rnd, res = _example_4([4, 4, 4, 4, 4], 5)
    assert transfers(res) == [("table", s, 1, PASS) for s in range(4)] + [
        ("table", 4, 1, MATTIKKENG)
    ]
    assert res.unpaid == {}
    assert table.table_stones == 0 and table.stones == [5, 5, 5, 5, 5]


def test_example_4_two_mattikkeng_paid_by_winner():
    """Ex. 4 (D14): table empty: the winner (seat 3) pays first."""
    table, _rnd, res = _example_4([4, 5, 4, 2, 6], 4)
    assert transfers(res) == [("table", s, 1, PASS) for s in range(4)] + [(3, 4, 1, MATTIKKENG)]
    assert res.unpaid == {}
    assert table.table_stones == 0 and table.stones == [5, 6, 5, 2, 7]


def test_example_4_two_mattikkeng_paid_by_other_mattikkeng():
    """Ex. 4 (D14): table empty and seat 3 holds nothing: seat 1 pays."""
    table, _rnd, res = _example_4([10, 5, 7, 0, 0], 3)
    assert transfers(res) == [
        ("table", 0, 1, PASS),
        ("table", 1, 1, PASS),
        ("table", 2, 1, PASS),
        (1, 4, 1, MATTIKKENG),
    ]
    # seat 3's PASS: table empty and the LAST MAPPANO (seat 4) holds nothing
    assert res.unpaid == {PASS: 1}
    assert table.stones == [11, 5, 8, 0, 1] and table.table_stones == 0


def test_example_4_nobody_can_pay():
    """Ex. 4 (D7): what neither the table nor the MATTIKKENG can cover is not paid."""
    table, _rnd, res = _example_4([12, 0, 13, 0, 0], 0)
    assert transfers(res) == []
    assert res.unpaid == {PASS: 4, MATTIKKENG: 1}
    assert table.stones == [12, 0, 13, 0, 0]


# ---------------------------------------------------------------- block positions
def _blocked(manguno, hands, stones, table_stones):
    """The moment the MANGUNO, after four passes, finds he cannot play either
    (open ends 6 and 6; no hand shows a 6)."""
    table = make_table(stones=stones, table_stones=table_stones)
    rnd = Round.from_position(
        table,
        hands,
        to_move=manguno,
        ends=(6, 6),
        last_mappano=manguno,
        has_played=[True] * 5,
        passes_since_play=4,
    )
    assert rnd.legal_moves() == []
    rnd.pass_turn()
    assert rnd.ended
    assert events_of(rnd, "pass") == []  # D11: the closing pass is not a PASS
    assert events_of(rnd, "block") == [{"type": "block", "seat": manguno, "left": 6, "right": 6}]
    check_stones(table)
    return table, rnd, rnd.result


def test_example_5_one_lower_mattikkeng():
    """Ex. 5 (D12, D14): MANGUNO seat 0 sum 10, seat 2 sum 7, others above 10:
    seat 2 wins; seat 0 gets up to 5: 3 from the table, 2 from seat 2."""
    hands = [H("5-5"), H("5-4", "2-0"), H("4-3"), H("5-3", "4-4"), H("5-2", "4-2")]
    table, _rnd, res = _blocked(0, hands, [5, 4, 4, 4, 5], 3)
    assert res.pip_sums == [10, 11, 7, 16, 13]
    assert (res.kind, res.winner, res.manguno, res.mattikkeng) == (MATTIKKENG, 2, 0, [2])
    assert res.cucuq is None and res.first_cappu is None
    assert transfers(res) == [("table", 0, 3, MATTIKKENG), (2, 0, 2, MATTIKKENG)]
    assert res.unpaid == {}
    assert table.table_stones == 0 and table.stones == [10, 4, 2, 4, 5]
    assert table.camat is None and table.next_starter == 2


EX6_HANDS = [H("5-5"), H("5-3"), H("5-4"), H("4-3", "1-0"), H("5-2", "3-3")]


def test_example_6_equal_mattikkeng_from_table():
    """Ex. 6 (D14): MANGUNO sum 8 (seat 1) and exactly one other with 8 (seat 3):
    seat 3 wins; the MANGUNO gets only up to 1."""
    table, _rnd, res = _blocked(1, EX6_HANDS, [3, 3, 3, 3, 3], 10)
    assert res.pip_sums == [10, 8, 9, 8, 13]
    assert (res.kind, res.winner, res.manguno, res.mattikkeng) == (MATTIKKENG, 3, 1, [3])
    assert transfers(res) == [("table", 1, 1, MATTIKKENG)]
    assert res.unpaid == {}
    assert table.table_stones == 9 and table.stones == [3, 4, 3, 3, 3]


def test_example_6_equal_mattikkeng_paid_by_it():
    """Ex. 6 (D14): table empty: the single MATTIKKENG gives the 1."""
    table, _rnd, res = _blocked(1, EX6_HANDS, [5, 5, 5, 5, 5], 0)
    assert transfers(res) == [(3, 1, 1, MATTIKKENG)]
    assert table.stones == [5, 6, 5, 4, 5]


EX7_HANDS = [H("5-5"), H("4-0"), H("2-1"), H("5-3"), H("4-4")]


@pytest.mark.parametrize(
    "stones,table_stones,expected,unpaid,after",
    [
        # from the table
        ([5, 5, 5, 5, 4], 1, [("table", 1, 1, MANGUNO)], {}, ([5, 6, 5, 5, 4], 0)),
        # else from seat 2, the MANGUNO
        ([5, 5, 3, 6, 6], 0, [(2, 1, 1, MANGUNO)], {}, ([5, 6, 2, 6, 6], 0)),
        # neither: not paid (D7)
        ([5, 5, 0, 10, 5], 0, [], {MANGUNO: 1}, ([5, 5, 0, 10, 5], 0)),
    ],
)
def test_example_7_no_mattikkeng(stones, table_stones, expected, unpaid, after):
    """Ex. 7 (D13, D10): MANGUNO seat 2 sum 3, all others above: seat 2 wins; CUCUQ
    seat 1 gets up to 1 from the table, else from seat 2."""
    table, _rnd, res = _blocked(2, EX7_HANDS, stones, table_stones)
    assert res.pip_sums == [10, 4, 3, 8, 8]
    assert (res.kind, res.winner, res.manguno, res.cucuq, res.mattikkeng) == (MANGUNO, 2, 2, 1, [])
    assert res.first_cappu is None
    assert transfers(res) == expected
    assert res.unpaid == unpaid
    assert (table.stones, table.table_stones) == after
    # D15: a MANGUNO win never makes a CAMAT, even with the table empty and M at 0
    assert res.camat is None and table.camat is None
    assert table.next_starter == 2


# ---------------------------------------------------------------- 8. first round
def test_example_8_first_round_without_double_six():
    """Ex. 8 (D3, D1): [6|6] is out of play and seat 4 holds [5|5]: seat 4 starts
    by leading [5|5]; seat 0 plays next."""
    hands = [
        H("0-0", "1-0", "1-1", "2-0", "2-1"),
        H("2-2", "3-0", "3-1", "3-2", "3-3"),
        H("4-0", "4-1", "4-2", "4-3", "4-4"),
        H("5-0", "5-1", "5-2", "5-3", "5-4"),
        H("5-5", "6-0", "6-1", "6-2", "6-3"),
    ]
    table = make_table()
    rnd = table.new_round(hands=hands)
    assert sorted(rnd.out_of_play) == H("6-4", "6-5", "6-6")
    assert rnd.starter == 4 and rnd.to_move == 4
    assert rnd.must_lead == T("5-5")
    deal = rnd.events[0]
    assert deal["type"] == "deal" and deal["starter"] == 4 and deal["must_lead"] == T("5-5")
    assert deal["out"] == sorted(H("6-4", "6-5", "6-6"))
    assert rnd.legal_moves() == [Move(T("5-5"), LEFT)]
    with pytest.raises(IllegalMoveError, match=r"\[5\|5\]"):
        rnd.play(Move(T("6-3"), LEFT))
    rnd.play(Move(T("5-5"), LEFT))
    assert rnd.events[-1] == {"type": "lead", "seat": 4, "tile": T("5-5"), "left": 5, "right": 5}
    assert (rnd.left, rnd.right) == (5, 5)
    assert rnd.to_move == 0
    assert rnd.legal_moves() == []  # seat 0 holds no 5 ...
    rnd.pass_turn()  # ... so its first turn is a PASSEBUNGE, paid by the table
    assert transfers(rnd) == [("table", 0, 2, PASSEBUNGE)]
    assert rnd.to_move == 1
