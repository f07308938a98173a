"""``domeng trace``: the event log of table T of a study (issue 9)."""

from __future__ import annotations

import json

from domeng.batch.tables import trace_table
from domeng.cli.main import main
from domeng.core.events import render_events, typed
from domeng.core.rules import Rules


def test_trace_json_lines_are_the_tables_events(capsys):
    assert (
        main(
            [
                "trace",
                "--seed",
                "5",
                "--table",
                "3",
                "--rounds",
                "2",
                "--players",
                "hunter,keeper,heavy,random,random",
                "--rule",
                "pollo=4",
                "--json",
            ]
        )
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    got = [json.loads(x) for x in lines]
    rounds, _, _ = trace_table("hunter,keeper,heavy,random,random", Rules.parse("pollo=4"), 5, 3, 2)
    events = [e for e in got if e["type"] not in ("players", "holdings")]
    plain = [{k: v for k, v in e.items() if not k.endswith(("_name", "_names"))} for e in events]
    assert plain == [e for r in rounds for e in r]
    assert all(typed(e).type == e["type"] for e in plain)  # every event line is a typed event
    assert got[0] == {
        "type": "players",
        "players": ["hunter", "keeper", "heavy", "random", "random"],
    }
    assert [e["type"] for e in got].count("holdings") == 2


def test_trace_json_names_tiles_and_shows_the_holdings(capsys):
    """Issue 23 item 6: tiles as "6-4" beside their ids, the players, and the
    stones held after each round (D7 transfers applied, D15 a CAMAT's return)."""
    argv = ["trace", "--seed", "3", "--rounds", "6", "--rule", "stones=7", "--json"]
    assert main(argv) == 0
    got = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    from domeng.core.tiles import numbers

    def name(t):
        hi, lo = numbers(t)
        return f"{hi}-{lo}"

    deal = got[1]
    assert deal["type"] == "deal"
    assert deal["hands_names"] == [[name(t) for t in h] for h in deal["hands"]]
    assert deal["out_names"] == [name(t) for t in deal["out"]]
    plays = [e for e in got if e["type"] in ("lead", "play")]
    assert plays and all(e["tile_name"] == name(e["tile"]) for e in plays)
    assert name(27) == "6-6" and name(0) == "0-0"
    # the holdings follow from the transfers, and a CAMAT returns every stone
    held, table, camats, seen = [0] * 5, 7, 0, 0
    for e in got[1:]:
        if e["type"] == "transfer":
            held[e["to"]] += e["amount"]
            if e["source"] == "table":
                table -= e["amount"]
            else:
                held[e["source"]] -= e["amount"]
        elif e["type"] == "camat":
            held, table, camats = [0] * 5, e["table_stones"], camats + 1
        elif e["type"] == "holdings":
            assert e["stones"] == held and e["table_stones"] == table
            assert (e["camat"] is not None) == (camats > 0)
            seen, camats = seen + camats, 0
    assert [e["round"] for e in got if e["type"] == "holdings"] == [1, 2, 3, 4, 5, 6]
    assert seen > 0  # a CAMAT was among them (this seed has three)
    assert list(plays[0])[:3] == ["type", "seat", "tile"] and list(plays[0])[3] == "tile_name"


def test_trace_json_for_one_seat_keeps_other_hands_hidden(capsys):
    assert main(["trace", "--seed", "2", "--rounds", "1", "--seat", "1", "--json"]) == 0
    deal = json.loads(capsys.readouterr().out.splitlines()[1])
    assert [h is not None for h in deal["hands_names"]] == [False, True, False, False, False]
    assert deal["out_names"] is None


def test_trace_text_is_the_shared_renderer(capsys):
    assert main(["trace", "--seed", "1", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    from domeng.study.simulate import DEFAULT_PLAYERS

    rounds, _, _ = trace_table(",".join(DEFAULT_PLAYERS), Rules(), 1, 0, 1)
    assert out == render_events(rounds[0]) + "\n\n"


def test_trace_for_one_seat_shows_only_its_hand(capsys):
    assert main(["trace", "--seed", "2", "--rounds", "1", "--seat", "3", "--json"]) == 0
    deal = json.loads(capsys.readouterr().out.splitlines()[1])
    assert deal["type"] == "deal" and deal["out"] is None
    assert [h is not None for h in deal["hands"]] == [False, False, False, True, False]


def test_trace_bad_input_is_one_line(capsys):
    for argv in (
        ["trace", "--players", "nobody"],
        ["trace", "--seat", "5"],
        ["trace", "--rounds", "0"],
        ["trace", "--rule", "pollo=x"],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
