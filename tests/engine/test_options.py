"""The three rule options (D3, D6, D11) and the award sizes: each changes
exactly what it should and nothing else.  Method: play the same position (or
the same seed) with and without the option and compare the event logs."""

from __future__ import annotations

import dataclasses

import pytest
from _util import (
    H,
    T,
    block_position,
    check_stones,
    events_of,
    make_table,
    transfers,
    two_pass_round,
)
from hypothesis import given
from hypothesis import strategies as st

from domeng.core.rules import Rules
from domeng.engine.reference import (
    CAPPU,
    CEKI,
    LEFT,
    MANGUNO,
    MATTIKKENG,
    PASS,
    PASSEBUNGE,
    POLLO,
    Move,
    Round,
    Table,
)
from domeng.players.registry import RandomPlayer

RANDOM5 = [RandomPlayer()] * 5
OPENING_DOUBLES = (T("6-6"), T("5-5"), T("4-4"), T("3-3"))


def diff_indices(a: list[dict], b: list[dict]) -> list[int]:
    assert len(a) == len(b), (len(a), len(b))
    return [i for i, (x, y) in enumerate(zip(a, b)) if x != y]


def play_first_legal(table: Table, rounds: int, lead_double: bool) -> list[list[dict]]:
    """Play ``rounds`` rounds choosing the first legal move (on the first round's
    lead: the opener's double if ``lead_double``)."""
    logs = []
    for _ in range(rounds):
        rnd = table.new_round()
        while not rnd.ended:
            moves = rnd.legal_moves()
            if not moves:
                rnd.pass_turn()
                continue
            if lead_double and rnd.left is None and table.rounds_played == 0:
                # the double that made this seat the opener (D3): its highest of 6-6..3-3
                d = max(t for t in rnd.hands[rnd.to_move] if t in OPENING_DOUBLES)
                rnd.play(Move(d, LEFT))
            else:
                rnd.play(moves[0])
        logs.append(rnd.events)
    return logs


# ===================================================================== D3 option
@pytest.mark.parametrize("seed", range(8))
def test_opener_leads_double_changes_only_the_first_lead(seed):
    """D3 option: with opener_leads_double=false the same opener (same deal) may lead
    any tile; nothing else changes (same opener, same log when he leads the double)."""
    on = Table(Rules(), seed=seed)
    off = Table(Rules(opener_leads_double=False), seed=seed)
    r_on, r_off = on.new_round(), off.new_round()
    assert r_on.hands == r_off.hands and r_on.out_of_play == r_off.out_of_play
    assert r_on.starter == r_off.starter
    double = r_on.must_lead
    assert double is not None and r_off.must_lead is None
    assert r_on.legal_moves() == [Move(double, LEFT)]
    assert r_off.legal_moves() == [Move(t, LEFT) for t in sorted(r_off.hands[r_off.starter])]
    assert len(r_off.legal_moves()) == 5
    obs_on, obs_off = r_on.observation(0), r_off.observation(0)
    assert obs_on.must_lead == double and obs_off.must_lead is None
    fa, fb = dataclasses.asdict(obs_on), dataclasses.asdict(obs_off)
    rules_field = {"rules"} if "rules" in fa else set()  # the rules in force, if observed
    # d3_double: which double D3 made the opener lead, public while the option holds (the
    # determinizer's D3 inference, players/determinize.py); with "any lead" there is none
    d3 = {"d3_double"} if "d3_double" in fa else set()
    assert {k for k in fa if fa[k] != fb[k]} == {"must_lead"} | rules_field | d3
    # the opener leads the double in both: every later event is identical
    on2 = Table(Rules(), seed=seed)
    off2 = Table(Rules(opener_leads_double=False), seed=seed)
    logs_on = play_first_legal(on2, 4, lead_double=True)
    logs_off = play_first_legal(off2, 4, lead_double=True)
    assert diff_indices(logs_on[0], logs_off[0]) == [0]  # only the deal event ...
    d_on, d_off = dict(logs_on[0][0]), dict(logs_off[0][0])
    assert d_on.pop("must_lead") == double and d_off.pop("must_lead") is None
    assert d_on == d_off  # ... and in it only must_lead
    assert logs_on[1:] == logs_off[1:]
    assert on2.stones == off2.stones and on2.table_stones == off2.table_stones


def test_opener_leads_double_off_allows_another_lead():
    """D3 option: leading a non-double is legal only with the option off."""
    for rules, legal in [(Rules(), False), (Rules(opener_leads_double=False), True)]:
        table = Table(rules, seed=3)
        rnd = table.new_round()
        other = next(t for t in sorted(rnd.hands[rnd.starter]) if t not in OPENING_DOUBLES)
        assert (Move(other, LEFT) in rnd.legal_moves()) == legal


# ===================================================================== D6 option
def test_passebunge_every_pass_false_changes_only_later_passes():
    """D6 option: only a seat's first pass before its first play is a PASSEBUNGE;
    the second is an ordinary PASS (1 stone).  Nothing else in the log differs."""
    a = two_pass_round(Rules())
    b = two_pass_round(Rules(passebunge_every_pass=False))
    idx = diff_indices(a.events, b.events)
    passes_a = [i for i, e in enumerate(a.events) if e["type"] == "pass"]
    second = passes_a[1]
    assert idx == [second, second + 1]  # the second pass and its transfer
    assert a.events[second]["passebunge"] is True and b.events[second]["passebunge"] is False
    assert a.events[second + 1] == {
        "type": "transfer",
        "reason": PASSEBUNGE,
        "source": "table",
        "to": 3,
        "amount": 2,
    }
    assert b.events[second + 1] == {
        "type": "transfer",
        "reason": PASS,
        "source": "table",
        "to": 3,
        "amount": 1,
    }
    assert a.events[passes_a[0]] == b.events[passes_a[0]]  # the first is a PASSEBUNGE in both
    assert (a.n_passes, a.n_passebunge) == (2, 2)
    assert (b.n_passes, b.n_passebunge) == (2, 1)
    assert a.table.stones[3] - b.table.stones[3] == 1
    assert b.table.table_stones - a.table.table_stones == 1


@given(st.integers(0, 2**32))
def test_passebunge_every_pass_false_on_random_rounds(seed):
    """D6 option, on whole rounds: random players ignore stones, so the plays are the
    same; pass kinds differ exactly at a seat's second and later passes before its
    first play; nothing but stones depends on it."""
    a, b = Table(Rules(), seed=seed), Table(Rules(passebunge_every_pass=False), seed=seed)
    ra, rb = a.play_round(RANDOM5), b.play_round(RANDOM5)
    key = lambda e: {k: v for k, v in e.items() if k != "passebunge"}  # noqa: E731
    acts_a = [
        key(e) for e in a.round.events if e["type"] in ("deal", "lead", "play", "pass", "block")
    ]
    acts_b = [
        key(e) for e in b.round.events if e["type"] in ("deal", "lead", "play", "pass", "block")
    ]
    assert acts_a == acts_b
    assert (ra.kind, ra.winner, ra.manguno, ra.mattikkeng, ra.cucuq, ra.turns, ra.passes) == (
        rb.kind,
        rb.winner,
        rb.manguno,
        rb.mattikkeng,
        rb.cucuq,
        rb.turns,
        rb.passes,
    )
    played, pb_seen = [False] * 5, [0] * 5
    for ea, eb in zip(
        events_of(a.round, "lead", "play", "pass"), events_of(b.round, "lead", "play", "pass")
    ):
        s = ea["seat"]
        if ea["type"] != "pass":
            played[s] = True
            continue
        assert ea["passebunge"] == (not played[s])  # default: every pass before a play
        assert eb["passebunge"] == (not played[s] and pb_seen[s] == 0)  # option: only the first
        pb_seen[s] += not played[s]
    check_stones(a)
    check_stones(b)


# ===================================================================== D11 option
MATT_HANDS = [H("5-5"), H("5-4", "2-0"), H("4-3"), H("5-3", "4-4"), H("5-2", "4-2")]
MANGUNO_HANDS = [H("5-5"), H("4-0"), H("2-1"), H("5-3"), H("4-4")]


@pytest.mark.parametrize("manguno,hands", [(0, MATT_HANDS), (2, MANGUNO_HANDS)])
def test_penalize_manguno_pass_adds_only_the_closing_pass(manguno, hands):
    """D11 option: the MANGUNO's closing pass becomes a PASS of up to 1 from the table,
    logged before the block; the settlement is otherwise the same."""
    a = block_position(manguno, hands, table_stones=10, stones=(3, 3, 3, 3, 3))
    b = block_position(
        manguno,
        hands,
        table_stones=10,
        stones=(3, 3, 3, 3, 3),
        rules=Rules(penalize_manguno_pass=True),
    )
    a.pass_turn()
    b.pass_turn()
    extra = [
        {"type": "pass", "seat": manguno, "passebunge": False, "left": 6, "right": 6},
        {"type": "transfer", "reason": PASS, "source": "table", "to": manguno, "amount": 1},
    ]
    assert b.events == extra + a.events
    assert transfers(b) == [("table", manguno, 1, PASS)] + transfers(a)
    ra, rb = a.result, b.result
    assert rb.passes == ra.passes + 1 and rb.passebunge == ra.passebunge
    assert (ra.kind, ra.winner, ra.mattikkeng, ra.cucuq) == (
        rb.kind,
        rb.winner,
        rb.mattikkeng,
        rb.cucuq,
    )
    assert rb.turns == ra.turns
    assert b.table.stones[manguno] == a.table.stones[manguno] + 1
    assert [s for i, s in enumerate(b.table.stones) if i != manguno] == [
        s for i, s in enumerate(a.table.stones) if i != manguno
    ]
    check_stones(b.table)


def test_penalize_manguno_pass_table_only():
    """D11 option: the closing PASS is paid from the table only (M would pay himself)."""
    b = block_position(
        2,
        MANGUNO_HANDS,
        table_stones=0,
        stones=(5, 5, 5, 5, 5),
        rules=Rules(penalize_manguno_pass=True),
    )
    b.pass_turn()
    assert b.events[:3] == [
        {"type": "pass", "seat": 2, "passebunge": False, "left": 6, "right": 6},
        {"type": "unpaid", "reason": PASS, "to": 2, "amount": 1},
        {"type": "block", "seat": 2, "left": 6, "right": 6},
    ]
    assert b.result.unpaid == {PASS: 1}
    assert transfers(b) == [(2, 1, 1, MANGUNO)]


def test_penalize_manguno_pass_is_charged_before_the_settlement():
    """D11 option: the closing PASS takes the table's last stone first, so the
    MATTIKKENG award then comes from the winner."""
    a = block_position(0, MATT_HANDS, table_stones=1, stones=(6, 6, 6, 6, 0))
    b = block_position(
        0,
        MATT_HANDS,
        table_stones=1,
        stones=(6, 6, 6, 6, 0),
        rules=Rules(penalize_manguno_pass=True),
    )
    a.pass_turn()
    b.pass_turn()
    assert transfers(a) == [("table", 0, 1, MATTIKKENG), (2, 0, 4, MATTIKKENG)]
    assert transfers(b) == [("table", 0, 1, PASS), (2, 0, 5, MATTIKKENG)]


@given(st.integers(0, 2**32))
def test_penalize_manguno_pass_no_effect_without_block(seed):
    """D11 option: rounds that end by FIRST CAPPU are untouched; blocked rounds gain
    exactly one pass event (with its payment) before the block."""
    a = Table(Rules(), seed=seed)
    b = Table(Rules(penalize_manguno_pass=True), seed=seed)
    ra, rb = a.play_round(RANDOM5), b.play_round(RANDOM5)
    if ra.manguno is None:
        assert a.round.events == b.round.events
    else:
        ia = next(i for i, e in enumerate(a.round.events) if e["type"] == "block")
        assert b.round.events[:ia] == a.round.events[:ia]
        pass_ev = b.round.events[ia]
        assert pass_ev == {
            "type": "pass",
            "seat": ra.manguno,
            "passebunge": False,
            "left": a.round.left,
            "right": a.round.right,
        }
        pay_ev = b.round.events[ia + 1]
        assert pay_ev["reason"] == PASS and pay_ev["to"] == ra.manguno
        assert pay_ev.get("source", "table") == "table" and pay_ev["amount"] == 1
        assert b.round.events[ia + 2] == a.round.events[ia]  # the block
        assert b.round.events[ia + 3] == a.round.events[ia + 1]  # the end
        if a.table_stones >= 1:  # the table never ran short: the settlement is the same
            assert b.round.events[ia + 2 :] == a.round.events[ia:]
        assert rb.passes == ra.passes + 1
        assert (ra.kind, ra.winner) == (rb.kind, rb.winner)


# ===================================================================== award sizes
def _pass_after_play(rules):
    table = make_table(stones=[3] * 5, table_stones=10, rules=rules)
    rnd = Round.from_position(
        table,
        [H("6-6"), H("0-0", "1-1"), H("2-2"), H("3-3"), H("4-4")],
        to_move=1,
        ends=(5, 5),
        last_mappano=0,
        has_played=[True] * 5,
    )
    rnd.pass_turn()
    return rnd


def _passebunge(rules):
    table = make_table(stones=[3] * 5, table_stones=10, rules=rules)
    rnd = Round.from_position(
        table,
        [H("6-6"), H("0-0", "1-1"), H("2-2"), H("3-3"), H("4-4")],
        to_move=1,
        ends=(5, 5),
        last_mappano=0,
    )
    rnd.pass_turn()
    return rnd


def _last_tile(tile, left, right):
    def build(rules):
        table = make_table(stones=[3] * 5, table_stones=10, rules=rules)
        rnd = Round.from_position(
            table,
            [H("0-0"), H(tile), H("1-1"), H("3-1"), H("2-1")],
            to_move=1,
            ends=(left, right),
            last_mappano=0,
        )
        rnd.play(Move(T(tile), LEFT))
        return rnd

    return build


def _block(manguno, hands):
    def build(rules):
        rnd = block_position(manguno, hands, stones=(3, 3, 3, 3, 3), table_stones=10, rules=rules)
        rnd.pass_turn()
        return rnd

    return build


AWARD_CASES = [
    ("pass_award", "pass", PASS, _pass_after_play),
    ("passebunge_award", "passebunge", PASSEBUNGE, _passebunge),
    ("cappu_award", "cappu", CAPPU, _last_tile("6-3", 6, 2)),
    ("ceki_award", "ceki", CEKI, _last_tile("2-5", 2, 5)),
    ("pollo_award", "pollo", POLLO, _last_tile("4-4", 4, 4)),
    ("manguno_award", "manguno", MANGUNO, _block(2, MANGUNO_HANDS)),
    ("mattikkeng_award", "mattikkeng", MATTIKKENG, _block(0, MATT_HANDS)),
    (
        "mattikkeng_reduced_award",
        "mattikkeng_reduced",
        MATTIKKENG,
        _block(0, [H("5-5"), H("4-3"), H("5-2"), H("5-3", "4-4"), H("5-4", "4-2")]),
    ),
]


@pytest.mark.parametrize("name,short,reason,build", AWARD_CASES, ids=[c[0] for c in AWARD_CASES])
@pytest.mark.parametrize("change", ["up", "down"])
def test_award_size_changes_only_that_award(name, short, reason, build, change):
    """Award options: changing one award size changes only that award's transfer
    (an award of 0 moves nothing and logs nothing)."""
    base = build(Rules())
    default = getattr(Rules(), name)
    new = default + 2 if change == "up" else default - 1
    rules = Rules.parse(f"{short}={new}")
    assert rules.changed() == {name: new}
    changed = build(rules)

    def strip(events):
        # the award's transfer goes, and so does the size the end event announces
        return [
            {k: v for k, v in e.items() if not (e["type"] == "end" and k == "award")}
            for e in events
            if not (e["type"] == "transfer" and e["reason"] == reason)
        ]

    assert strip(base.events) == strip(changed.events)
    for e_base, e_new in zip(base.events, changed.events):
        if e_base["type"] == "end" and e_base["kind"] == reason:
            assert (e_base["award"], e_new["award"]) == (default, new)
    mine_base = [t for t in transfers(base) if t[3] == reason]
    mine_new = [t for t in transfers(changed) if t[3] == reason]
    assert len(mine_base) == 1 and mine_base[0][0] == "table" and mine_base[0][2] == default
    dest = mine_base[0][1]
    assert mine_new == ([("table", dest, new, reason)] if new else [])
    assert changed.table.table_stones == base.table.table_stones - (new - default)
    assert changed.table.stones[dest] == base.table.stones[dest] + (new - default)
    if base.result is None:
        assert changed.result is None and not changed.ended
    else:
        assert (base.result.kind, base.result.winner) == (
            changed.result.kind,
            changed.result.winner,
        )
    check_stones(changed.table)


def test_pollo_4_example_2_situation():
    """pollo=4: the CUCUQ of a POLLO gets up to 4 instead of 5; nothing else changes."""
    logs = []
    for rules in (Rules(), Rules.parse("pollo=4")):
        table = make_table(stones=[5, 3, 6, 6, 5], table_stones=0, rules=rules)
        rnd = Round.from_position(
            table,
            [H("6-6"), H("4-4"), H("6-5"), H("3-3"), H("2-1")],
            to_move=1,
            ends=(4, 4),
            last_mappano=0,
        )
        rnd.play(Move(T("4-4"), LEFT))
        logs.append((rnd, table))
    (a, ta), (b, tb) = logs
    assert transfers(a) == transfers(b) == [(1, 0, 3, POLLO)]
    assert a.result.unpaid == {POLLO: 2} and b.result.unpaid == {POLLO: 1}
    # the end event announces the award's size; the unpaid event shows the rest
    assert diff_indices(a.events, b.events) == [1, 3]
    assert (a.events[1]["award"], b.events[1]["award"]) == (5, 4)
    assert ta.camat == tb.camat == 1


def test_stones_option_sets_the_game_and_the_camat_reset():
    """stones=N: N stones start on the table and return there at each CAMAT (D15)."""
    rules = Rules.parse("stones=40")
    table = Table(rules, seed=1)
    assert table.table_stones == 40 and table.total_stones() == 40
    table.stones, table.table_stones = [10, 0, 10, 10, 10], 0
    rnd = Round.from_position(
        table,
        [H("0-0"), H("6-1"), H("2-2"), H("3-3"), H("4-4")],
        to_move=1,
        ends=(6, 0),
        last_mappano=0,
    )
    rnd.play(Move(T("6-1"), LEFT))
    assert table.camat == 1 and table.table_stones == 40 and table.stones == [0] * 5
