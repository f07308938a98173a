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
    assert got == [e for r in rounds for e in r]
    assert all(typed(e).type == e["type"] for e in got)  # every line is a typed event


def test_trace_text_is_the_shared_renderer(capsys):
    assert main(["trace", "--seed", "1", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    from domeng.study.simulate import DEFAULT_PLAYERS

    rounds, _, _ = trace_table(",".join(DEFAULT_PLAYERS), Rules(), 1, 0, 1)
    assert out == render_events(rounds[0]) + "\n\n"


def test_trace_for_one_seat_shows_only_its_hand(capsys):
    assert main(["trace", "--seed", "2", "--rounds", "1", "--seat", "3", "--json"]) == 0
    deal = json.loads(capsys.readouterr().out.splitlines()[0])
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
