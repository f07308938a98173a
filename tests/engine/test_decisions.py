"""At least one test per decision D1..D17 of RULES.md."""

from __future__ import annotations

import copy
import itertools

import pytest
from _util import (
    H,
    T,
    block_position,
    check_stones,
    check_tiles,
    events_of,
    make_table,
    transfers,
    two_pass_round,
)
from hypothesis import given
from hypothesis import strategies as st

from domeng.core.errors import IllegalMoveError
from domeng.core.observation import (
    H_END,
    H_SEAT,
    H_TILE,
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
    OBS_SEAT,
    OBS_STARTER,
    OBS_STONES,
    OBS_TABLE,
    OBS_TURN,
    OBS_VOID,
)
from domeng.core.rng import SplitMix64
from domeng.core.rules import Rules
from domeng.core.tiles import DOUBLE_OF, N_TILES, mask_of, numbers, other_end
from domeng.engine.reference import (
    CAPPU,
    CEKI,
    LEFT,
    MANGUNO,
    MATTIKKENG,
    PASS,
    PASSEBUNGE,
    POLLO,
    RIGHT,
    TABLE,
    Move,
    Round,
    Table,
    pay,
)
from domeng.players.registry import RandomPlayer

RANDOM5 = [RandomPlayer()] * 5


def seats_of_turns(rnd: Round) -> list[int]:
    return [h[0] for h in rnd.history]


def run_random(rnd: Round, seed: int) -> None:
    """Finish ``rnd`` with uniformly random legal moves."""
    rng = SplitMix64(seed)
    while not rnd.ended:
        moves = rnd.legal_moves()
        if moves:
            rnd.play(moves[rng.randbelow(len(moves))])
        else:
            rnd.pass_turn()


# =========================================================================== D1
def test_D1_turn_passes_clockwise_and_wraps():
    """D1: the turn passes from seat s to (s+1) mod 5, from 4 back to 0."""
    table = make_table()
    rnd = Round.from_position(
        table,
        [H("2-1", "5-3"), H("3-2", "4-4"), H("4-3", "4-1"), H("6-0", "5-5"), H("1-0", "5-4")],
        to_move=3,
        ends=(6, 6),
        last_mappano=2,
        has_played=[True] * 5,
    )
    order = []
    for tile in ["6-0", "1-0", "2-1", "3-2", "4-3"]:  # seats 3, 4, 0, 1, 2
        order.append(rnd.to_move)
        rnd.play(Move(T(tile), LEFT))
    assert order == [3, 4, 0, 1, 2]
    assert rnd.to_move == 3 and (rnd.left, rnd.right) == (4, 6)
    rnd.pass_turn()  # seat 3 ([5|5]) cannot play; a pass also hands the turn on
    assert rnd.to_move == 4


@given(st.integers(0, 2**32))
def test_D1_every_round_moves_clockwise(seed):
    """D1: in any played round, turn k+1 belongs to the seat after turn k's."""
    table = Table(seed=seed)
    for _ in range(3):
        table.play_round(RANDOM5)
        seats = seats_of_turns(table.round)
        assert seats[0] == table.round.starter
        assert all(b == (a + 1) % 5 for a, b in itertools.pairwise(seats))


def test_D1_seat_before_seat_0_is_seat_4():
    """D1/D10: "the player before" seat 0 is seat 4 (CUCUQ of a FIRST CAPPU at seat 0)."""
    table = make_table(stones=[0] * 5)
    rnd = Round.from_position(
        table,
        [H("6-1"), H("5-5"), H("4-4"), H("3-3"), H("2-2")],
        to_move=0,
        ends=(6, 0),
        last_mappano=4,
    )
    rnd.play(Move(T("6-1"), LEFT))
    assert rnd.result.kind == CAPPU and rnd.result.cucuq == 4
    assert transfers(rnd) == [("table", 4, 1, CAPPU)]


# =========================================================================== D2
@pytest.mark.parametrize("seed,index", [(0, 0), (1, 5), (12345, 99)])
def test_D2_deal_shape(seed, index):
    """D2: each seat gets 5 tiles; 3 are out of play; nothing is dealt twice."""
    table = Table(seed=seed, table_index=index)
    rnd = table.new_round()
    assert all(len(h) == 5 for h in rnd.hands)
    assert len(rnd.out_of_play) == 3
    check_tiles(rnd)
    deal = rnd.events[0]
    assert deal["type"] == "deal"
    assert deal["hands"] == [sorted(h) for h in rnd.hands]
    assert deal["out"] == sorted(rnd.out_of_play)


def test_D2_deal_is_fisher_yates_on_the_table_stream():
    """D2: the deal is a Fisher-Yates permutation drawn from the table's SplitMix64
    stream; seat i gets positions 5i..5i+4 and the last 3 are out of play."""
    for seed, index in [(0, 0), (3, 1), (2**40, 7)]:
        rng = SplitMix64.for_table(seed, index)
        tiles = list(range(N_TILES))
        for i in range(N_TILES - 1, 0, -1):
            j = rng.randbelow(i + 1)
            tiles[i], tiles[j] = tiles[j], tiles[i]
        table = Table(seed=seed, table_index=index)
        assert table.deal() == [sorted(tiles[5 * i : 5 * i + 5]) for i in range(5)]
        assert table.rng.state == rng.state


def test_D2_splitmix64_reference_values():
    """D2: the generator is SplitMix64 (published outputs for state 0)."""
    r = SplitMix64(0)
    assert r.next64() == 0xE220A8397B1DCDAF
    assert r.next64() == 0x6E789E6AA1B965F4


def test_D2_reproducible_from_seed():
    """D2/D16: a table's deals and whole history are a function of (seed, table index)."""

    def history(seed, index):
        t = Table(seed=seed, table_index=index)
        t.play(RANDOM5, 4)
        return t.round.events, [(r.kind, r.winner, r.turns, r.transfers) for r in t.history]

    assert Table(seed=9, table_index=2).deal() == Table(seed=9, table_index=2).deal()
    assert history(9, 2) == history(9, 2)
    assert history(9, 2) != history(9, 3)
    deals = {str(Table(seed=9, table_index=i).deal()) for i in range(20)}
    deals |= {str(Table(seed=s, table_index=0).deal()) for s in range(20)}
    assert len(deals) == 39  # (9, 0) is in both sets; every other deal differs


def test_D2_out_of_play_tiles_are_used_by_nobody():
    """D2: the 3 tiles out of play never reach the chain."""
    for seed in range(30):
        table = Table(seed=seed)
        table.play_round(RANDOM5)
        rnd = table.round
        out = set(rnd.events[0]["out"])
        assert out == rnd.out_of_play and len(out) == 3
        assert not out & {t for _, t, _ in rnd.chain}


# =========================================================================== D3
def _deal_with(out: list[int], holder: int, double: int, seed: int = 0) -> list[list[int]]:
    """A deal with the given 3 tiles out of play and ``double`` held by ``holder``."""
    rest = [t for t in range(N_TILES) if t not in out and t != double]
    SplitMix64(seed).shuffle(rest)
    hands = []
    for seat in range(5):
        k = 4 if seat == holder else 5
        hands.append(rest[:k] + ([double] if seat == holder else []))
        rest = rest[k:]
    assert rest == []
    return hands


@pytest.mark.parametrize("n,holder", [(6, 2), (5, 4), (4, 0), (3, 1)])
def test_D3_first_round_opener_must_lead_highest_double(n, holder):
    """D3: the holder of [6|6] (else [5|5], [4|4], [3|3]) starts the first round and
    must lead that very double."""
    double = int(DOUBLE_OF[n])
    out = [int(DOUBLE_OF[m]) for m in range(6, n, -1)]  # the higher doubles are out
    out += [T("1-0"), T("2-1"), T("2-0")][: 3 - len(out)]
    table = Table()
    rnd = table.new_round(hands=_deal_with(out, holder, double))
    assert sorted(rnd.out_of_play) == sorted(out)
    assert rnd.starter == holder == rnd.to_move
    assert rnd.must_lead == double
    assert rnd.legal_moves() == [Move(double, LEFT)]
    other = next(t for t in rnd.hands[holder] if t != double)
    with pytest.raises(IllegalMoveError, match="D3"):
        rnd.play(Move(other, LEFT))
    rnd.play(Move(double, LEFT))
    assert (rnd.left, rnd.right) == (n, n) and rnd.to_move == (holder + 1) % 5


def test_D3_only_in_the_first_round():
    """D3/D4: from the second round on, the starter leads any tile."""
    for seed in range(10):
        table = Table(seed=seed)
        r1 = table.new_round()
        assert r1.must_lead is not None
        run_random(r1, seed)
        r2 = table.new_round()
        assert r2.must_lead is None and r2.events[0]["must_lead"] is None
        assert r2.starter == table.history[-1].winner
        assert r2.legal_moves() == [Move(t, LEFT) for t in sorted(r2.hands[r2.starter])]


# =========================================================================== D4
def test_D4_winner_starts_next_round():
    """D4: without a CAMAT the previous round's winner starts and leads any tile."""
    table = make_table(stones=[1, 1, 1, 4, 1], table_stones=17)
    rnd = Round.from_position(
        table,
        [H("6-6"), H("6-5"), H("4-4"), H("2-5"), H("1-1")],
        to_move=3,
        ends=(2, 5),
        last_mappano=2,
    )
    rnd.play(Move(T("2-5"), LEFT))
    assert rnd.result.winner == 3 and table.camat is None
    r2 = table.new_round()
    assert r2.starter == 3 == r2.to_move and r2.must_lead is None
    assert len(r2.legal_moves()) == 5


def test_D4_mattikkeng_winner_starts_not_the_manguno():
    """D4/D14: after a block won by a MATTIKKENG, that MATTIKKENG starts."""
    table = make_table(stones=[5] * 5, table_stones=0)
    rnd = Round.from_position(
        table,
        [H("5-5"), H("5-4", "2-0"), H("4-3"), H("5-3", "4-4"), H("5-2", "4-2")],
        to_move=0,
        ends=(6, 6),
        last_mappano=0,
        passes_since_play=4,
        has_played=[True] * 5,
    )
    rnd.pass_turn()
    assert rnd.result.kind == MATTIKKENG and rnd.result.winner == 2
    assert table.new_round().starter == 2


def test_D4_camat_starts_every_round():
    """D4: once there is a CAMAT he starts every round, whoever wins."""
    camat_rounds = 0
    for seed in range(40):
        table = Table(seed=seed)
        for _ in range(60):
            camat, nxt = table.camat, table.next_starter
            table.play_round(RANDOM5)
            rnd = table.round
            if camat is not None:
                assert rnd.starter == camat
                camat_rounds += 1
            if nxt is not None:
                assert rnd.starter == nxt
            expected = table.camat if table.camat is not None else rnd.result.winner
            assert table.next_starter == expected
        if camat_rounds > 20:
            break
    assert camat_rounds > 20  # the check above really ran


# =========================================================================== D5
def test_D5_moves_are_tile_end_pairs():
    """D5: a tile fitting one end is one move on that end; [L|R] (L != R) is two."""
    table = make_table()
    rnd = Round.from_position(
        table,
        [H("3-5", "3-3", "5-1", "0-0", "3-6"), H("1-1"), H("2-2"), H("4-4"), H("6-6")],
        to_move=0,
        ends=(3, 5),
        last_mappano=4,
    )
    assert rnd.legal_moves() == sorted(
        [
            Move(T("3-3"), LEFT),
            Move(T("5-3"), LEFT),
            Move(T("5-3"), RIGHT),  # [L|R]: two moves
            Move(T("5-1"), RIGHT),
            Move(T("6-3"), LEFT),
        ]
    )
    with pytest.raises(IllegalMoveError, match="does not fit the right end"):
        rnd.play(Move(T("3-3"), RIGHT))
    rnd.play(Move(T("5-3"), RIGHT))  # right end 5 -> 3
    assert (rnd.left, rnd.right) == (3, 3)


def test_D5_one_move_when_both_ends_equal():
    """D5: with L == R both placements leave the same ends: one move per tile."""
    table = make_table()
    rnd = Round.from_position(
        table,
        [H("4-1", "4-4", "4-6", "0-0"), H("1-1"), H("2-2"), H("3-3"), H("6-6")],
        to_move=0,
        ends=(4, 4),
        last_mappano=4,
    )
    assert rnd.legal_moves() == [Move(T("4-1"), LEFT), Move(T("4-4"), LEFT), Move(T("6-4"), LEFT)]
    before = copy.deepcopy((rnd.hands, rnd.left, rnd.right, rnd.events))
    with pytest.raises(IllegalMoveError, match="leave the same ends: play it left"):
        rnd.play(Move(T("4-1"), RIGHT))
    assert before == (rnd.hands, rnd.left, rnd.right, rnd.events)


def test_D5_lead_moves_are_the_tiles_in_hand():
    """D5/D4: on a lead (not the first round's) every tile in hand is one move."""
    table = make_table()
    rnd = Round.from_position(
        table, [H("1-0", "6-6"), H("1-1"), H("2-2"), H("3-3"), H("6-5")], to_move=0
    )
    assert rnd.legal_moves() == [Move(T("1-0"), LEFT), Move(T("6-6"), LEFT)]


def test_D5_cannot_pass_with_a_playable_tile():
    """D5: a player who can play must play."""
    table = make_table()
    rnd = Round.from_position(
        table,
        [H("6-1", "0-0"), H("1-1"), H("2-2"), H("3-3"), H("4-4")],
        to_move=0,
        ends=(6, 2),
        last_mappano=4,
    )
    with pytest.raises(IllegalMoveError, match="must play"):
        rnd.pass_turn()
    assert rnd.to_move == 0 and rnd.events == [] and rnd.n_passes == 0
    rnd.play(Move(T("6-1"), LEFT))
    assert rnd.to_move == 1


def _brute_force_moves(hand, left, right) -> list[Move]:
    """Every placement (tile, end) of D5, two placements leaving the same
    unordered pair of open ends counted once (the first, LEFT, is kept)."""
    if left is None:
        return [Move(t, LEFT) for t in sorted(hand)]
    found: dict = {}
    for t in sorted(hand):
        for end, n in ((LEFT, left), (RIGHT, right)):
            if n in numbers(t):
                after = (other_end(t, n), right) if end == LEFT else (left, other_end(t, n))
                found.setdefault((t, frozenset([after, after[::-1]])), Move(t, end))
    return sorted(found.values())


@given(st.integers(0, 2**32))
def test_D5_legal_moves_match_brute_force(seed):
    """D5: legal moves are exactly the distinct (tile, end) placements."""
    table = Table(seed=seed, rules=Rules(opener_leads_double=False))
    rnd = table.new_round()
    rng = SplitMix64(seed)
    while not rnd.ended:
        moves = rnd.legal_moves()
        assert moves == _brute_force_moves(rnd.hands[rnd.to_move], rnd.left, rnd.right)
        assert rnd.can_play() == bool(moves)
        if moves:
            rnd.play(moves[rng.randbelow(len(moves))])
        else:
            rnd.pass_turn()


# =========================================================================== D6
def test_D6_several_passebunge_in_one_round():
    """D6: every pass made before the passer's first play is a PASSEBUNGE."""
    rnd = two_pass_round()
    passes = events_of(rnd, "pass")
    assert [(e["seat"], e["passebunge"]) for e in passes] == [(3, True), (3, True)]
    assert [(e["left"], e["right"]) for e in passes] == [(5, 4), (3, 3)]
    assert transfers(rnd) == [("table", 3, 2, PASSEBUNGE), ("table", 3, 2, PASSEBUNGE)]
    assert rnd.n_passebunge == 2 and rnd.n_passes == 2
    assert rnd.table.stones[3] == 3 + 4 and rnd.table.table_stones == 6


def test_D6_pass_after_playing_is_a_plain_pass():
    """D6: once a seat has played a tile this round its passes are ordinary PASSes."""
    table = make_table(stones=[2, 2, 2, 2, 2], table_stones=15)
    rnd = Round.from_position(
        table,
        [H("6-6"), H("0-0", "1-1"), H("2-2"), H("3-3"), H("4-4")],
        to_move=1,
        ends=(5, 5),
        last_mappano=0,
        has_played=[True, True, False, True, True],
    )
    rnd.pass_turn()  # seat 1 has played: PASS
    rnd.pass_turn()  # seat 2 has not: PASSEBUNGE
    assert [(e["seat"], e["passebunge"]) for e in events_of(rnd, "pass")] == [(1, False), (2, True)]
    assert transfers(rnd) == [("table", 1, 1, PASS), ("table", 2, 2, PASSEBUNGE)]
    assert rnd.n_passes == 2 and rnd.n_passebunge == 1


# =========================================================================== D7
@given(
    stones=st.lists(st.integers(0, 30), min_size=5, max_size=5),
    table_stones=st.integers(0, 30),
    size=st.integers(0, 12),
    dest=st.integers(0, 4),
    payers=st.lists(st.integers(0, 4), max_size=5, unique=True),
)
def test_D7_pay_table_first_then_payers_in_order(stones, table_stones, size, dest, payers):
    """D7: an award is paid from the table while it has stones, then from each
    payer in order while he has any; the rest is not paid; nothing is created."""
    before = list(stones)
    total = sum(stones) + table_stones
    new_table, trs, unpaid = pay(stones, table_stones, size, dest, payers, PASS)
    assert sum(stones) + new_table == total
    assert new_table >= 0 and all(s >= 0 for s in stones)
    # the expected payment, stone by stone
    due = size
    exp_table = min(due, table_stones)
    due -= exp_table
    exp = [(TABLE, exp_table)] if exp_table else []
    for p in payers:
        if p == dest:
            continue  # nobody pays himself
        g = min(due, before[p])
        if g:
            exp.append((p, g))
        due -= g
    assert [(t.source, t.amount) for t in trs] == exp
    assert all(t.dest == dest and t.reason == PASS for t in trs)
    assert unpaid == due
    assert stones[dest] - before[dest] == size - unpaid
    # a later source only pays once every earlier one is exhausted
    for src, _ in exp[:-1]:
        assert (new_table if src == TABLE else stones[src]) == 0


def test_D7_pass_paid_by_last_mappano_when_table_short():
    """D7 / term 2: a PASS is paid by the table, then by the LAST MAPPANO."""
    table = make_table(stones=[0, 0, 24, 0, 0], table_stones=1)
    rnd = Round.from_position(
        table,
        [H("6-6"), H("5-5"), H("4-4"), H("0-0", "1-1"), H("2-2")],
        to_move=3,
        ends=(6, 5),
        last_mappano=2,
        has_played=[True, True, True, False, True],
    )
    rnd.pass_turn()  # PASSEBUNGE: 1 from the table, 1 from seat 2
    assert transfers(rnd) == [("table", 3, 1, PASSEBUNGE), (2, 3, 1, PASSEBUNGE)]
    assert table.stones == [0, 0, 23, 2, 0] and table.table_stones == 0
    check_stones(table)


# =========================================================================== D8
def _last_tile(tile: str, end: int, left: int, right: int, table_stones: int = 20):
    table = make_table(stones=[1] * 5, table_stones=table_stones)
    rnd = Round.from_position(
        table,
        [H("0-0"), H(tile), H("1-1"), H("3-1"), H("2-1")],
        to_move=1,
        ends=(left, right),
        last_mappano=0,
    )
    rnd.play(Move(T(tile), end))
    return rnd


@pytest.mark.parametrize(
    "tile,end,left,right,kind,award",
    [
        ("2-5", LEFT, 2, 5, CEKI, 3),  # ends become 5, 5
        ("2-5", RIGHT, 2, 5, CEKI, 3),  # ends become 2, 2
        ("6-4", LEFT, 6, 4, CEKI, 3),  # ends become 4, 4
        ("4-4", LEFT, 4, 4, POLLO, 5),  # a double on equal ends: POLLO
        ("4-4", LEFT, 4, 2, CAPPU, 1),  # a double on unequal ends: plain
        ("4-4", RIGHT, 2, 4, CAPPU, 1),
        ("6-3", LEFT, 6, 2, CAPPU, 1),  # ends 3, 2: plain
        ("6-3", LEFT, 6, 6, CAPPU, 1),  # ends 3, 6: plain
    ],
)
def test_D8_ceki_pollo_plain(tile, end, left, right, kind, award):
    """D8: MAPPAKULING judged right after the play; POLLO with a double, CEKI with a
    non-double, otherwise plain; the CUCUQ gets 5 / 3 / 1 (D10)."""
    rnd = _last_tile(tile, end, left, right)
    res = rnd.result
    assert (res.kind, res.winner, res.first_cappu, res.cucuq) == (kind, 1, 1, 0)
    assert events_of(rnd, "play")[0]["mappakuling"] == (kind != CAPPU)
    assert (rnd.left == rnd.right) == (kind != CAPPU)
    assert transfers(rnd) == [("table", 0, award, kind)]


def test_D8_mappakuling_with_tiles_left_does_not_end_the_round():
    """D8/D9: a MAPPAKULING by a player who still holds tiles is only a play."""
    table = make_table()
    rnd = Round.from_position(
        table,
        [H("0-0"), H("2-5", "1-1"), H("3-3"), H("3-1"), H("2-1")],
        to_move=1,
        ends=(2, 5),
        last_mappano=0,
    )
    rnd.play(Move(T("2-5"), LEFT))
    assert events_of(rnd, "play")[0]["mappakuling"] is True
    assert not rnd.ended and rnd.to_move == 2 and transfers(rnd) == []


def test_D8_lead_is_never_a_mappakuling():
    """D8 / term 7: a lead joins nothing; leading a double is not a MAPPAKULING."""
    table = make_table()
    rnd = Round.from_position(
        table, [H("4-4", "0-0"), H("1-1"), H("2-2"), H("3-3"), H("6-6")], to_move=0
    )
    rnd.play(Move(T("4-4"), LEFT))
    assert rnd.events[-1]["type"] == "lead" and "mappakuling" not in rnd.events[-1]
    assert (rnd.left, rnd.right) == (4, 4)


def test_D8_last_tile_led_is_plain():
    """D8: POLLO needs both ends equal to the double's number *before* the play, so a
    last tile that is led (no ends yet) makes a plain FIRST CAPPU, even a double."""
    table = make_table(stones=[0] * 5, table_stones=25)
    rnd = Round.from_position(table, [H("0-0"), H("1-1"), H("4-4"), H("3-3"), H("6-6")], to_move=2)
    rnd.play(Move(T("4-4"), LEFT))
    assert rnd.result.kind == CAPPU and rnd.result.first_cappu == 2
    assert transfers(rnd) == [("table", 1, 1, CAPPU)]


# =========================================================================== D9
def test_D9_first_cappu_ends_the_round_at_once():
    """D9: the moment a player plays his last tile the round ends; nobody moves after."""
    table = make_table()
    hands = [H("0-0", "6-6"), H("6-2"), H("2-2", "2-3"), H("2-4"), H("2-5")]
    rnd = Round.from_position(table, hands, to_move=1, ends=(6, 1), last_mappano=0)
    rnd.play(Move(T("6-2"), LEFT))
    assert rnd.ended and rnd.result.first_cappu == 1
    assert rnd.legal_moves() == []  # seat 2 could have played [2|2]: no more turns
    assert rnd.to_move == 1  # the turn does not pass on
    assert [e["type"] for e in rnd.events] == ["play", "end", "transfer"]
    assert table.rounds_played == 1 and table.history == [rnd.result]
    with pytest.raises(IllegalMoveError, match="ended"):
        rnd.play(Move(T("2-2"), LEFT))
    with pytest.raises(IllegalMoveError, match="ended"):
        rnd.pass_turn()


# =========================================================================== D10
def test_D10_cucuq_gets_whatever_it_did_last():
    """D10: the CUCUQ receives the FIRST CAPPU's award, even if it just passed;
    with the table empty the FIRST CAPPU gives it."""
    table = make_table(stones=[5, 5, 5, 10, 0], table_stones=0)
    rnd = Round.from_position(
        table,
        [H("6-5"), H("4-4"), H("3-3"), H("2-2", "0-0"), H("3-2", "2-0")],
        to_move=4,
        ends=(6, 1),
        last_mappano=3,
        has_played=[True] * 5,
    )
    rnd.pass_turn()  # seat 4 passes: PASS, paid by the LAST MAPPANO (seat 3)
    rnd.play(Move(T("6-5"), LEFT))  # seat 0's last tile: plain FIRST CAPPU, CUCUQ seat 4
    res = rnd.result
    assert (res.kind, res.first_cappu, res.cucuq) == (CAPPU, 0, 4)
    assert transfers(rnd) == [(3, 4, 1, PASS), (0, 4, 1, CAPPU)]
    assert table.stones == [4, 5, 5, 9, 2]


def test_D10_cucuq_of_manguno_without_mattikkeng():
    """D10/D13: with no MATTIKKENG the CUCUQ is the seat before the MANGUNO."""
    table = make_table(stones=[0, 5, 5, 5, 5], table_stones=5)
    rnd = Round.from_position(
        table,
        [H("1-0"), H("5-5"), H("4-4"), H("3-3"), H("5-4")],
        to_move=0,
        ends=(6, 6),
        last_mappano=0,
        passes_since_play=4,
        has_played=[True] * 5,
    )
    rnd.pass_turn()
    res = rnd.result
    assert (res.kind, res.winner, res.manguno, res.cucuq) == (MANGUNO, 0, 0, 4)
    assert transfers(rnd) == [("table", 4, 1, MANGUNO)]


# =========================================================================== D11
BLOCK_HANDS = [H("4-2", "3-3"), H("4-1", "3-1"), H("4-4", "4-3"), H("2-2"), H("6-5", "3-2", "4-0")]


def test_D11_block_after_four_passes_closing_pass_not_penalised():
    """D11: M plays, the next four pass (each penalised as it happens), M cannot
    play: blocked; M's closing pass is neither counted nor penalised."""
    table = make_table(stones=[0, 0, 0, 0, 5], table_stones=20)
    rnd = Round.from_position(
        table,
        BLOCK_HANDS,
        to_move=4,
        ends=(6, 6),
        last_mappano=3,
        has_played=[True, True, False, True, True],
    )
    rnd.play(Move(T("6-5"), LEFT))
    for k, _seat in enumerate((0, 1, 2, 3)):
        assert rnd.passes_since_play == k and not rnd.ended
        rnd.pass_turn()
    assert rnd.to_move == 4 and rnd.passes_since_play == 4 and not rnd.ended
    rnd.pass_turn()
    assert rnd.ended
    res = rnd.result
    assert res.manguno == 4 and res.kind == MATTIKKENG
    assert [e["seat"] for e in events_of(rnd, "pass")] == [0, 1, 2, 3]
    assert res.passes == 4 and res.passebunge == 1 and res.turns == 6
    assert transfers(rnd) == [
        ("table", 0, 1, PASS),
        ("table", 1, 1, PASS),
        ("table", 2, 2, PASSEBUNGE),
        ("table", 3, 1, PASS),
        ("table", 4, 1, MATTIKKENG),
    ]  # nothing for M's own pass
    assert [e["type"] for e in rnd.events][-4:] == ["transfer", "block", "end", "transfer"]


def test_D11_not_blocked_when_the_last_mappano_can_play():
    """D11: after four passes M plays again if he can; the round goes on."""
    table = make_table()
    hands = [H("4-2", "3-3"), H("4-1", "3-1"), H("4-4", "4-3"), H("2-2"), H("6-5", "5-0", "2-0")]
    rnd = Round.from_position(
        table, hands, to_move=4, ends=(6, 6), last_mappano=3, has_played=[True] * 5
    )
    rnd.play(Move(T("6-5"), LEFT))
    for _ in range(4):
        rnd.pass_turn()
    assert rnd.to_move == 4 and rnd.legal_moves() == [Move(T("5-0"), LEFT)]
    with pytest.raises(IllegalMoveError):
        rnd.pass_turn()
    rnd.play(Move(T("5-0"), LEFT))
    assert not rnd.ended and rnd.to_move == 0 and rnd.passes_since_play == 0
    assert (rnd.left, rnd.right) == (0, 6)


def test_D11_emptying_hand_that_blocks_is_first_cappu():
    """D11/D9: a last tile that also blocks the chain makes a FIRST CAPPU, not a MANGUNO."""
    table = make_table()
    hands = [H("4-2", "3-3"), H("4-1", "3-1"), H("4-4", "4-3"), H("2-2"), H("6-5")]
    rnd = Round.from_position(
        table, hands, to_move=4, ends=(6, 6), last_mappano=3, has_played=[True] * 5
    )
    rnd.play(Move(T("6-5"), LEFT))
    assert all(not any(n in numbers(t) for t in h for n in (5, 6)) for h in rnd.hands)
    res = rnd.result
    assert (res.kind, res.first_cappu, res.manguno, res.cucuq) == (CAPPU, 4, None, 3)
    assert events_of(rnd, "block") == []


# =========================================================================== D12..D14
def _block(manguno, hands, stones=(5, 5, 5, 5, 5), table_stones=0, rules=None):
    rnd = block_position(manguno, hands, stones, table_stones, rules)
    rnd.pass_turn()
    check_stones(rnd.table)
    return rnd.table, rnd.result


def test_D12_mattikkeng_are_those_at_or_below_m_in_turn_order():
    """D12: MATTIKKENG = the other players with pip sum <= M's, listed in turn order
    after M; D14: the lowest wins; two or more: M gets up to 1."""
    hands = [H("2-1"), H("5-3", "4-0"), H("5-4"), H("5-5"), H("4-3", "2-0")]
    _table, res = _block(2, hands, table_stones=5, stones=(4, 4, 4, 4, 4))
    assert res.pip_sums == [3, 12, 9, 10, 9]
    assert res.mattikkeng == [4, 0]  # seat 4 (9 == 9) and seat 0 (3), in order 3, 4, 0, 1
    assert res.winner == 0 and res.manguno == 2 and res.kind == MATTIKKENG
    assert transfers(res) == [("table", 2, 1, MATTIKKENG)]


def test_D14_tie_goes_to_first_after_manguno():
    """D14: on a tie for the lowest sum the winner is the first in turn order after M."""
    hands = [H("4-1"), H("5-3", "4-0"), H("5-4"), H("5-5"), H("3-2")]
    table, res = _block(2, hands)
    assert res.pip_sums == [5, 12, 9, 10, 5]
    assert res.mattikkeng == [4, 0] and res.winner == 4
    assert transfers(res) == [(4, 2, 1, MATTIKKENG)]  # the winner pays first
    # M = 4: order 0, 1, 2, 3; seats 1 and 3 tie at 5 -> seat 1
    hands4 = [H("5-5"), H("4-1"), H("5-3", "4-0"), H("3-2"), H("5-4")]
    _table, res = _block(4, hands4)
    assert res.pip_sums == [10, 5, 12, 5, 9]
    assert res.mattikkeng == [1, 3] and res.winner == 1
    assert transfers(res) == [(1, 4, 1, MATTIKKENG)]


@pytest.mark.parametrize(
    "hands,expected_size,matt",
    [
        # one MATTIKKENG, lower: up to 5
        ([H("5-5"), H("5-4", "2-0"), H("4-3"), H("5-3", "4-4"), H("5-2", "4-2")], 5, [2]),
        # one MATTIKKENG, equal: up to 1
        ([H("5-5"), H("5-4", "2-0"), H("5-2", "3-0"), H("5-3", "4-4"), H("4-2", "4-3")], 1, [2]),
        # two MATTIKKENG, both lower: up to 1
        ([H("5-5"), H("4-3"), H("5-2"), H("5-3", "4-4"), H("5-4", "4-2")], 1, [1, 2]),
    ],
)
def test_D14_award_size(hands, expected_size, matt):
    """D14: M gets up to 5, or up to 1 with two or more MATTIKKENG or one with an equal sum."""
    _table, res = _block(0, hands, stones=(0, 0, 0, 0, 0), table_stones=25)
    assert res.mattikkeng == matt
    assert transfers(res) == [("table", 0, expected_size, MATTIKKENG)]


def test_D14_payment_order_winner_then_others_after_m():
    """D14: the rest is given first by the winner, then by the other MATTIKKENG in
    turn order after M, each as far as he has stones (a larger award shows the order)."""
    rules = Rules(mattikkeng_reduced_award=9)
    hands = [H("5-5"), H("5-3"), H("5-4", "3-0"), H("4-1"), H("4-4")]
    #        M=0 (10)  8 (MATT)  12              5 (MATT, wins) 8 (MATT)
    table, res = _block(0, hands, stones=(0, 1, 17, 2, 5), table_stones=0, rules=rules)
    assert res.pip_sums == [10, 8, 12, 5, 8]
    assert res.mattikkeng == [1, 3, 4] and res.winner == 3
    assert transfers(res) == [(3, 0, 2, MATTIKKENG), (1, 0, 1, MATTIKKENG), (4, 0, 5, MATTIKKENG)]
    assert res.unpaid == {MATTIKKENG: 1}
    assert table.stones == [8, 0, 17, 0, 0]


def test_D13_no_mattikkeng_m_wins_cucuq_gets_rest_from_m():
    """D13: M wins; the CUCUQ gets up to 1 from the table, then from M."""
    hands = [H("5-5"), H("4-0"), H("2-1"), H("5-3"), H("4-4")]
    _table, res = _block(2, hands, stones=(5, 5, 3, 6, 6), table_stones=0)
    assert (res.kind, res.winner, res.cucuq) == (MANGUNO, 2, 1)
    assert transfers(res) == [(2, 1, 1, MANGUNO)]


# =========================================================================== D15
def _cappu(stones, table_stones, tile="6-1", left=6, right=0, rules=None, camat=None):
    """Seat 1 plays its last tile ``tile`` on the left of ``left``/``right``."""
    table = make_table(stones=stones, table_stones=table_stones, rules=rules)
    table.camat = camat
    rnd = Round.from_position(
        table,
        [H("0-0"), H(tile), H("2-2"), H("3-3"), H("4-4")],
        to_move=1,
        ends=(left, right),
        last_mappano=0,
    )
    rnd.play(Move(T(tile), LEFT))
    check_stones(table)
    return table, rnd


def test_D15_plain_cappu_with_empty_table_and_no_stones_is_camat():
    """D15: plain FIRST CAPPU, table empty, he holds 0: CAMAT; every stone returns."""
    rules = Rules(stones=30)
    table, rnd = _cappu([10, 0, 10, 5, 5], 0, rules=rules)
    assert rnd.result.kind == CAPPU and rnd.result.unpaid == {CAPPU: 1}
    assert rnd.result.camat == 1 and table.camat == 1
    assert table.stones == [0] * 5 and table.table_stones == 30
    assert table.next_starter == 1


def test_D15_checked_after_settlement():
    """D15: the CEKI award itself can empty the table and the FIRST CAPPU's stones."""
    table, rnd = _cappu([10, 1, 10, 2, 0], 2, tile="6-1", left=6, right=1)
    assert rnd.result.kind == CEKI
    assert transfers(rnd) == [("table", 0, 2, CEKI), (1, 0, 1, CEKI)]
    assert rnd.result.camat == 1 and table.camat == 1 and table.table_stones == 25


@pytest.mark.parametrize(
    "stones,table_stones",
    [
        ([10, 0, 5, 5, 0], 5),  # the table still holds stones after the award
        ([10, 2, 10, 3, 0], 0),  # the FIRST CAPPU still holds a stone after paying
    ],
)
def test_D15_no_camat_otherwise(stones, table_stones):
    """D15: no CAMAT unless the table is empty AND the FIRST CAPPU holds nothing."""
    table, rnd = _cappu(stones, table_stones)
    assert rnd.result.camat is None and table.camat is None
    assert table.table_stones + table.stones[1] > 0
    assert events_of(rnd, "camat") == []


def test_D15_not_for_a_block_win():
    """D15: a round won by a MANGUNO or a MATTIKKENG never makes a CAMAT."""
    # MATTIKKENG seat 2 holds 0, table 0, and M's award cannot be paid
    hands = [H("5-5"), H("5-4", "2-0"), H("4-3"), H("5-3", "4-4"), H("5-2", "4-2")]
    table, res = _block(0, hands, stones=(0, 9, 0, 8, 8), table_stones=0)
    assert res.kind == MATTIKKENG and res.winner == 2
    assert table.table_stones == 0 and table.stones[2] == 0
    assert res.camat is None and table.camat is None
    # MANGUNO seat 2 holds 0, table 0
    hands = [H("5-5"), H("4-0"), H("2-1"), H("5-3"), H("4-4")]
    table, res = _block(2, hands, stones=(5, 5, 0, 10, 5), table_stones=0)
    assert res.kind == MANGUNO and table.stones[2] == 0 and table.table_stones == 0
    assert res.camat is None and table.camat is None


def test_D15_new_camat_replaces_old_and_same_seat_again():
    """D15: a new CAMAT replaces the old one; the same player may be CAMAT again."""
    table, rnd = _cappu([10, 0, 10, 5, 0], 0, camat=3)
    assert table.camat == 1 and table.next_starter == 1
    table.stones, table.table_stones = [10, 0, 10, 5, 0], 0
    rnd = Round.from_position(
        table,
        [H("0-0"), H("6-1"), H("2-2"), H("3-3"), H("4-4")],
        to_move=1,
        ends=(6, 0),
        last_mappano=0,
    )
    rnd.play(Move(T("6-1"), LEFT))
    assert rnd.result.camat == 1 and table.camat == 1 and table.table_stones == 25


# =========================================================================== D16
@given(st.integers(0, 2**32), st.integers(2, 8))
def test_D16_stones_camat_starter_carry_over(seed, rounds):
    """D16: stones, CAMAT and the next starter carry over from round to round."""
    table = Table(seed=seed)
    prev = None
    for r in range(1, rounds + 1):
        stones_before, table_before = list(table.stones), table.table_stones
        camat_before, starter_before = table.camat, table.next_starter
        rnd = table.new_round()
        assert rnd.number == r
        if prev is None:
            assert stones_before == [0] * 5 and table_before == 25
        else:
            assert (stones_before, table_before) == prev
            assert rnd.starter == starter_before
        assert table.camat == camat_before
        run_random(rnd, seed + r)
        # the round's moved stones explain the change exactly
        moved = [0] * 5
        table_delta = 0
        for tr in rnd.transfers:
            moved[tr.dest] += tr.amount
            if tr.source == TABLE:
                table_delta -= tr.amount
            else:
                moved[tr.source] -= tr.amount
        if rnd.result.camat is None:
            assert table.stones == [a + b for a, b in zip(stones_before, moved)]
            assert table.table_stones == table_before + table_delta
        else:
            assert table.stones == [0] * 5 and table.table_stones == 25
        prev = (list(table.stones), table.table_stones)
        assert table.rounds_played == r and len(table.history) == r


# =========================================================================== D17
def _history_from_events(events) -> list[tuple]:
    out = []
    for e in events:
        if e["type"] in ("lead", "play"):
            end = LEFT if e["type"] == "lead" or e["end"] == "left" else RIGHT
            out.append((e["seat"], e["tile"], end, e["left"], e["right"]))
        elif e["type"] == "pass":
            out.append((e["seat"], None, LEFT, e["left"], e["right"]))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_D17_observation_contents(seed):
    """D17: own hand; every tile played (by whom, which end, in order); every pass
    with the open ends then; hand sizes; stones; table count; CAMAT; seat; round."""
    table = Table(seed=seed)
    table.camat = None
    rnd = table.new_round()
    rng = SplitMix64(seed)
    steps = 0
    while not rnd.ended:
        for seat in range(5):
            obs = rnd.observation(seat)
            assert obs.seat == seat and obs.round == rnd.number == 1
            assert obs.starter == rnd.starter
            assert obs.hand == tuple(sorted(rnd.hands[seat]))
            assert obs.hand_sizes == tuple(len(h) for h in rnd.hands)
            assert obs.stones == tuple(table.stones) and obs.table_stones == table.table_stones
            assert obs.camat == table.camat
            assert (obs.left, obs.right) == (rnd.left, rnd.right)
            assert list(obs.history) == _history_from_events(rnd.events)
            assert obs.chain == tuple(t for _, t, _ in rnd.chain)
            assert obs.last_mappano == rnd.last_mappano
            assert obs.has_played == tuple(rnd.has_played)
            assert obs.must_lead == (rnd.must_lead if rnd.left is None else None)
            for s in range(5):
                assert obs.played_by(s) == tuple(t for q, t, _ in rnd.chain if q == s)
                void = set()
                for e in events_of(rnd, "pass"):
                    if e["seat"] == s:
                        void |= {e["left"], e["right"]}
                assert obs.void_numbers(s) == void
                # a passer really holds neither number (what the observation lets others infer)
                assert not any(n in numbers(t) for t in rnd.hands[s] for n in void)
            unseen = set(range(N_TILES)) - set(rnd.hands[seat]) - set(obs.chain)
            assert set(obs.unseen_tiles()) == unseen
            _check_obs_array(obs, rnd, table)
        moves = rnd.legal_moves()
        if moves:
            rnd.play(moves[rng.randbelow(len(moves))])
        else:
            rnd.pass_turn()
        steps += 1
    assert steps > 5


def _check_obs_array(obs, rnd, table):
    a, hist = obs.to_array()
    s = obs.seat
    assert a[OBS_SEAT] == s and a[OBS_ROUND] == rnd.number and a[OBS_STARTER] == rnd.starter
    assert a[OBS_CAMAT] == (-1 if table.camat is None else table.camat)
    assert a[OBS_TABLE] == table.table_stones
    assert list(a[OBS_STONES : OBS_STONES + 5]) == table.stones
    assert list(a[OBS_HAND_SIZE : OBS_HAND_SIZE + 5]) == [len(h) for h in rnd.hands]
    assert a[OBS_HAND] == mask_of(rnd.hands[s])
    assert a[OBS_LEFT] == (-1 if rnd.left is None else rnd.left)
    assert a[OBS_RIGHT] == (-1 if rnd.right is None else rnd.right)
    assert a[OBS_CHAIN] == mask_of(t for _, t, _ in rnd.chain)
    for q in range(5):
        assert a[OBS_PLAYED_BY + q] == mask_of(t for p, t, _ in rnd.chain if p == q)
        assert a[OBS_HAS_PLAYED + q] == int(rnd.has_played[q])
        assert a[OBS_VOID + q] == sum(1 << n for n in obs.void_numbers(q))
    assert a[OBS_LAST_MAPPANO] == (-1 if rnd.last_mappano is None else rnd.last_mappano)
    assert a[OBS_TURN] == len(rnd.history)
    assert a[OBS_PASSES] == rnd.passes_since_play
    assert a[OBS_MUST_LEAD] == (-1 if obs.must_lead is None else obs.must_lead)
    n = len(rnd.history)
    for i, (q, t, e, _, _) in enumerate(rnd.history):
        assert hist[i, H_SEAT] == q and hist[i, H_TILE] == (-1 if t is None else t)
        assert hist[i, H_END] == e
    assert (hist[n:] == -1).all()


def test_D17_camat_and_round_number_are_visible():
    """D17: who is CAMAT and the round number are public."""
    table, _rnd = _cappu([10, 0, 10, 5, 0], 0)
    assert table.camat == 1
    r2 = table.new_round()
    for seat in range(5):
        obs = r2.observation(seat)
        assert obs.camat == 1 and obs.round == 2 and obs.starter == 1
        assert obs.table_stones == 25 and obs.stones == (0,) * 5
        assert obs.to_array()[0][OBS_CAMAT] == 1


def test_D17_observation_never_shows_hidden_tiles():
    """D17: another player's tiles and the 3 out of play never appear: the
    observation is unchanged when the hidden tiles are shuffled among their owners."""
    for seed in range(20):
        table = Table(seed=seed)
        rnd = table.new_round()
        rng = SplitMix64(seed)
        while not rnd.ended:
            for seat in range(5):
                obs = rnd.observation(seat)
                other = copy.copy(rnd)
                hidden = sorted(
                    set().union(*(rnd.hands[q] for q in range(5) if q != seat)) | rnd.out_of_play
                )
                SplitMix64(seed * 7 + seat).shuffle(hidden)
                hands = [set(h) for h in rnd.hands]
                for q in range(5):
                    if q != seat:
                        k = len(hands[q])
                        hands[q], hidden = set(hidden[:k]), hidden[k:]
                other.hands, other.out_of_play = hands, set(hidden)
                twin = other.observation(seat)
                assert twin == obs
                a1, h1 = obs.to_array()
                a2, h2 = twin.to_array()
                assert (a1 == a2).all() and (h1 == h2).all()
            moves = rnd.legal_moves()
            if moves:
                rnd.play(moves[rng.randbelow(len(moves))])
            else:
                rnd.pass_turn()
