"""The round's event log: JSON-serialisable, complete, and rendered as text in the
game's terms (terms 2..14; D6 passes, D7 payments, D11 block, D15 CAMAT)."""

from __future__ import annotations

import json
from dataclasses import fields, replace

import pytest
from _util import H, T, block_position, make_table, two_pass_round
from hypothesis import given, settings
from hypothesis import strategies as st

from domeng.core.events import (
    BLOCKED_ENDS,
    Deal,
    Event,
    Lead,
    Pass,
    Play,
    RoundEnd,
    for_seat,
    from_dict,
    render_items,
    to_dict,
)
from domeng.core.rules import Rules
from domeng.engine.reference import LEFT, REASONS, Move, Round, Table, render_events
from domeng.play.session import Session
from domeng.players.registry import RandomPlayer

RANDOM5 = [RandomPlayer()] * 5
EVENT_TYPES = {"deal", "lead", "play", "pass", "transfer", "unpaid", "block", "end", "camat"}
KEYS = {
    "deal": {"type", "round", "starter", "hands", "out", "must_lead"},
    "lead": {"type", "seat", "tile", "left", "right"},
    "play": {"type", "seat", "tile", "end", "left", "right", "mappakuling"},
    "pass": {"type", "seat", "passebunge", "left", "right"},
    "transfer": {"type", "reason", "source", "to", "amount"},
    "unpaid": {"type", "reason", "to", "amount"},
    "block": {"type", "seat", "left", "right"},
    "end": {
        "type",
        "kind",
        "winner",
        "first_cappu",
        "cucuq",
        "manguno",
        "mattikkeng",
        "pip_sums",
        "award",
    },
    "camat": {"type", "seat", "table_stones"},
}


def example_2() -> Round:
    """POLLO with 2 stones unpaid, then CAMAT (RULES.md example 2)."""
    table = make_table(stones=[5, 3, 6, 6, 5], table_stones=0)
    rnd = Round.from_position(
        table,
        [H("6-6", "0-0"), H("4-4"), H("6-5", "1-0"), H("3-3"), H("2-1")],
        to_move=1,
        ends=(4, 4),
        last_mappano=0,
    )
    rnd.play(Move(T("4-4"), LEFT))
    return rnd


def example_3() -> Round:
    """PASSEBUNGE paid 1 by the table and 1 by the LAST MAPPANO (example 3)."""
    table = make_table(stones=[6, 6, 6, 0, 6], table_stones=1)
    rnd = Round.from_position(
        table,
        [H("6-2"), H("5-5"), H("6-3"), H("0-0", "2-0", "3-2", "4-3", "5-4"), H("4-4")],
        to_move=3,
        ends=(6, 1),
        last_mappano=2,
        has_played=[True, True, True, False, True],
    )
    rnd.pass_turn()
    return rnd


def example_4() -> Round:
    """Seat 4 plays, four passes, block with two MATTIKKENG (example 4)."""
    table = make_table(stones=[4, 4, 4, 4, 4], table_stones=5)
    rnd = Round.from_position(
        table,
        [H("4-2", "3-3"), H("4-1", "3-1"), H("4-4", "4-3"), H("2-2"), H("6-5", "3-2", "4-0")],
        to_move=4,
        ends=(6, 6),
        last_mappano=3,
        has_played=[True] * 5,
    )
    rnd.play(Move(T("6-5"), LEFT))
    for _ in range(5):
        rnd.pass_turn()
    return rnd


def example_7() -> Round:
    """MANGUNO without MATTIKKENG (example 7), with the D11 option on."""
    rnd = block_position(
        2,
        [H("5-5"), H("4-0"), H("2-1"), H("5-3"), H("4-4")],
        stones=(5, 5, 5, 5, 4),
        table_stones=1,
        rules=Rules(penalize_manguno_pass=True),
    )
    rnd.pass_turn()
    return rnd


def game_events(seed: int, rounds: int) -> list[list[dict]]:
    table = Table(seed=seed)
    logs = []
    for _ in range(rounds):
        table.play_round(RANDOM5)
        logs.append(table.round.events)
    return logs


def all_logs() -> list[list[dict]]:
    return [
        example_2().events,
        example_3().events,
        example_4().events,
        example_7().events,
        two_pass_round().events,
    ] + game_events(1, 30)


def test_every_event_type_appears():
    """Each event type occurs in the logs (deal, lead, play, pass, transfer, unpaid,
    block, end, camat) and has exactly its documented fields."""
    seen = set()
    for log in all_logs():
        for e in log:
            assert e["type"] in EVENT_TYPES
            assert set(e) == KEYS[e["type"]], e
            seen.add(e["type"])
            if e["type"] in ("transfer", "unpaid"):
                assert e["reason"] in REASONS and e["amount"] > 0
    assert seen == EVENT_TYPES


@settings(max_examples=30)
@given(st.integers(0, 2**32), st.integers(1, 5))
def test_event_log_json_round_trip(seed, rounds):
    """The log is plain JSON: dumps/loads gives it back equal, and renders the same."""
    for log in game_events(seed, rounds):
        text = json.dumps(log)
        back = json.loads(text)
        assert back == log
        assert render_events(back) == render_events(log)


def test_constructed_logs_json_round_trip():
    for rnd in (example_2(), example_3(), example_4(), example_7(), two_pass_round()):
        assert json.loads(rnd.to_json()) == rnd.events
        assert rnd.describe() == render_events(json.loads(rnd.to_json()))


def test_render_passebunge_line():
    """Term 3 / D7: "seat 3 passes: PASSEBUNGE, +1 from the table, +1 from seat 2"."""
    assert example_3().describe() == "seat 3 passes: PASSEBUNGE, +1 from the table, +1 from seat 2"


def test_render_pass_unpaid_and_plain_pass():
    rnd = example_4()
    lines = rnd.describe().splitlines()
    assert lines[0] == "seat 4 plays [6|5] on the left  (ends 5, 6)"
    assert lines[1:5] == [f"seat {s} passes: PASS, +1 from the table" for s in range(4)]
    assert lines[5] == "seat 4 cannot play either: the round is blocked"
    assert lines[6] == (
        "seat 4 is MANGUNO; MATTIKKENG: seat 1, seat 3; seat 3 wins; MANGUNO gets up to 1  "
        "[pip sums: seat 0 12, seat 1 9, seat 2 15, seat 3 4, seat 4 9]"
    )
    assert lines[7] == "  MATTIKKENG: seat 4 gets 1 stone from the table"
    assert len(lines) == 8


def test_render_ceki_and_payments():
    table = make_table(stones=[5, 5, 4, 4, 5], table_stones=2)
    rnd = Round.from_position(
        table,
        [H("6-6", "0-0"), H("6-5"), H("4-4"), H("2-5"), H("1-1")],
        to_move=3,
        ends=(2, 5),
        last_mappano=2,
    )
    rnd.play(Move(T("2-5"), LEFT))
    assert rnd.describe().splitlines() == [
        "seat 3 plays [5|2] on the left  (ends 5, 5): MAPPAKULING",
        "seat 3 is FIRST CAPPU by CEKI and wins; CUCUQ is seat 2, who gets up to 3",
        "  CEKI: seat 2 gets 2 stones from the table",
        "  CEKI: seat 2 gets 1 stone from seat 3",
    ]


def test_render_pollo_unpaid_and_camat():
    assert example_2().describe().splitlines() == [
        "seat 1 plays [4|4] on the left  (ends 4, 4): MAPPAKULING",
        "seat 1 is FIRST CAPPU by POLLO and wins; CUCUQ is seat 0, who gets up to 5",
        "  POLLO: seat 0 gets 3 stones from seat 1",
        "  POLLO: 2 stones owed to seat 0 cannot be paid",
        "seat 1 becomes CAMAT; all 25 stones return to the table",
    ]


def test_render_manguno_and_penalised_closing_pass():
    assert example_7().describe().splitlines() == [
        "seat 2 passes: PASS, +1 from the table",
        "seat 2 cannot play either: the round is blocked",
        "seat 2 is MANGUNO and wins (no MATTIKKENG); CUCUQ is seat 1, who gets up to 1  "
        "[pip sums: seat 0 10, seat 1 4, seat 2 3, seat 3 8, seat 4 8]",
        "  MANGUNO: seat 1 gets 1 stone from seat 2",
    ]


def test_render_unpaid_pass():
    table = make_table(stones=[0, 0, 25, 0, 0], table_stones=0)
    rnd = Round.from_position(
        table,
        [H("6-6"), H("5-5"), H("4-4"), H("0-0", "1-1"), H("2-2")],
        to_move=3,
        ends=(6, 5),
        last_mappano=4,
        has_played=[True] * 5,
    )
    rnd.pass_turn()
    assert rnd.describe() == "seat 3 passes: PASS, 1 unpaid"


def test_render_deal_lead_and_plain_cappu():
    hands = [
        H("0-0", "1-0", "1-1", "2-0", "2-1"),
        H("2-2", "3-0", "3-1", "3-2", "3-3"),
        H("4-0", "4-1", "4-2", "4-3", "4-4"),
        H("5-0", "5-1", "5-2", "5-3", "5-4"),
        H("5-5", "6-0", "6-1", "6-2", "6-3"),
    ]
    rnd = make_table().new_round(hands=hands)
    rnd.play(Move(T("5-5"), LEFT))
    lines = rnd.describe().splitlines()
    assert lines == [
        "round 1: seat 4 starts",
        "  seat 0: [0|0] [1|0] [1|1] [2|0] [2|1]",
        "  seat 1: [2|2] [3|0] [3|1] [3|2] [3|3]",
        "  seat 2: [4|0] [4|1] [4|2] [4|3] [4|4]",
        "  seat 3: [5|0] [5|1] [5|2] [5|3] [5|4]",
        "  seat 4: [5|5] [6|0] [6|1] [6|2] [6|3]",
        "  out of play: [6|4] [6|5] [6|6]",
        "seat 4 leads [5|5]  (ends 5, 5)",
    ]
    table = make_table()
    rnd = Round.from_position(
        table,
        [H("0-0"), H("6-3"), H("1-1"), H("3-1"), H("2-1")],
        to_move=1,
        ends=(6, 2),
        last_mappano=0,
    )
    rnd.play(Move(T("6-3"), LEFT))
    assert rnd.describe().splitlines()[1:] == [
        "seat 1 is FIRST CAPPU and wins; CUCUQ is seat 0, who gets up to 1",
        "  CAPPU: seat 0 gets 1 stone from the table",
    ]


@pytest.mark.parametrize("seed", range(5))
def test_render_has_one_line_per_step(seed):
    """Every play, lead and pass is one line; pass payments are on the pass's line."""
    table = Table(seed=seed)
    table.play_round(RANDOM5)
    ev = table.round.events
    text = table.round.describe()
    lines = text.splitlines()
    n_moves = sum(e["type"] in ("lead", "play") for e in ev)
    n_pass = sum(e["type"] == "pass" for e in ev)
    assert sum(" leads " in s or " plays " in s for s in lines) == n_moves
    assert sum(" passes: " in s for s in lines) == n_pass
    assert sum(s.startswith("  PASS") for s in lines) == 0  # never a separate line
    assert any(("FIRST CAPPU" in s) or ("MANGUNO" in s) for s in lines)


# ---------------------------------------------------------------- typed events
VIEWERS = [None, 0, 1, 2, 3, 4]
SEATS = ["human", "hunter", "heavy", "keeper", "random"]
#: the fields a typed event may carry beyond its JSON keys (KEYS): the
#: stand-in mark of a browser table's step and a seat's view of a deal
EXTRA = {"lead": {"stand_in"}, "play": {"stand_in"}, "pass": {"stand_in"}, "deal": {"hand_sizes"}}


def test_the_dataclasses_hold_the_documented_fields_and_no_other():
    """A field added to an event must be added here too, and so checked for D17 below."""
    for log in all_logs():
        for e in log:
            t = from_dict(e)
            assert isinstance(t, Event) and t.type == e["type"]
            assert {f.name for f in fields(t)} == KEYS[t.type] | EXTRA.get(t.type, set())


def test_to_dict_gives_back_the_engines_json_key_for_key():
    """The JSON edge is byte-identical: to_dict(from_dict(d)) is d in the same key
    order, for the reference engine's events, the compiled engine's (a session's
    game) and every seat's filtered view of each (for_seat on either form)."""
    s = Session(SEATS, seed=3, rounds=3)
    compiled = []
    while not s.game_over:
        s.deal()
        while not s.round_over:
            s.play(s.moves()[0].action) if s.human_to_move() else s.auto_step()
        compiled.append(list(s.game.events))
    for log in all_logs() + compiled:
        for e in log:
            t = from_dict(e)
            assert json.dumps(to_dict(t)) == json.dumps(e)
            for seat in VIEWERS:
                seen = for_seat(e, seat)
                assert json.dumps(to_dict(for_seat(t, seat))) == json.dumps(seen)
                assert from_dict(seen) == for_seat(t, seat)
    deal = for_seat(from_dict(compiled[0][0]), 2)
    assert list(to_dict(deal)) == ["type", "round", "starter", "hands", "hand_sizes", "out"] + [
        "must_lead"
    ]


def test_a_stand_in_step_is_marked_in_both_forms():
    p = Pass(seat=2, passebunge=False, left=3, right=4, stand_in=True)
    d = to_dict(p)
    assert list(d)[-1] == "stand_in" and d["stand_in"] is True and from_dict(d) == p
    assert "stand_in" not in to_dict(replace(p, stand_in=False))
    assert render_items([p])[0]["k"] == "log.stand_in" == render_items([d])[0]["k"]
    assert render_items([replace(p, stand_in=False)])[0]["k"] == "log.pass"


@pytest.mark.parametrize("bad", [{}, {"type": "holdings", "round": 1}, {"type": 3}])
def test_from_dict_refuses_what_is_not_an_event(bad):
    with pytest.raises(ValueError, match="not an event"):
        from_dict(bad)


def _tiles_held(ev: Event) -> set:
    """Every tile id a typed event names (only a deal, a lead and a play name tiles)."""
    match ev:
        case Deal():
            held = {t for h in ev.hands if h is not None for t in h} | set(ev.out or ())
            return held | ({ev.must_lead} - {None})
        case Lead() | Play():
            return {ev.tile}
    return set()


@pytest.mark.parametrize("seed", range(4))
def test_a_seats_typed_view_carries_nothing_it_may_not_know(seed):
    """D17 on typed events (Session.view, for_seat): at every step, each seat's
    events name only its own hand, the tiles played and the opener's double (D3);
    no deal shows another hand or the 3 tiles out of play; a round end shows the
    others' pip sums only where the rules compare them (a blocked round)."""
    s = Session(SEATS, seed=seed, rounds=2)
    while not s.game_over:
        s.deal()
        while True:
            full = from_dict(s.game.events[0])
            assert isinstance(full, Deal)
            for seat in VIEWERS:
                v = s.view(seat)
                own = set(full.hands[seat]) if seat is not None else set()
                played = {e.tile for e in v.events if isinstance(e, Lead | Play)}
                known = own | played | ({full.must_lead} - {None})
                for ev in v.events:
                    assert isinstance(ev, Event)
                    assert _tiles_held(ev) <= known, (seat, ev)
                    if isinstance(ev, Deal):
                        assert ev.out is None
                        assert ev.hand_sizes == [len(h) for h in full.hands]
                    if isinstance(ev, RoundEnd) and ev.kind not in BLOCKED_ENDS:
                        assert all(p is None for i, p in enumerate(ev.pip_sums) if i != seat)
                ends = [e for e in v.events if isinstance(e, RoundEnd)]
                assert v.result == (ends[-1] if ends else None)
            if s.round_over:
                break
            s.play(s.moves()[0].action) if s.human_to_move() else s.auto_step()
