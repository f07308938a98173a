"""What every command writes on stderr (issue 23 item 2): under ``--json``
nothing unless ``--progress`` asks; off a terminal plain lines (no carriage
return); one bar for a comparison or a sweep, each line labelled; a compile
said only when one happens, in ``trace`` too."""

from __future__ import annotations

import json

import pytest

from domeng.cli.main import main
from domeng.infra.progress import COMPILING

STUDIES = {
    "simulate": ["simulate", "-t", "4", "-r", "5"],
    "compare": ["compare", "--variant", "pollo=4", "-t", "4", "-r", "5"],
    "sweep": ["sweep", "--vary", "pollo=3,4", "-t", "4", "-r", "5"],
    "tournament": ["tournament", "-p", "random,heavy,keeper,hunter,random", "--deals", "2"],
    "ladder": ["ladder", "-p", "random,heavy,keeper,hunter,random,heavy", "--deals", "1"],
    "trace": ["trace", "--rounds", "1"],
}


@pytest.mark.parametrize("command", sorted(STUDIES))
def test_json_keeps_stderr_empty(command, capsys):
    assert main([*STUDIES[command], "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    out = captured.out.splitlines()[0] if command == "trace" else captured.out
    json.loads(out)  # stdout: JSON only (trace: one object a line)


@pytest.mark.parametrize("command", ["simulate", "compare", "tournament", "ladder"])
def test_progress_forces_plain_lines_beside_json(command, capsys):
    assert main([*STUDIES[command], "--json", "--progress"]) == 0
    captured = capsys.readouterr()
    json.loads(captured.out)
    assert "\r" not in captured.err  # stderr is not a terminal here
    last = captured.err.splitlines()[-1]
    assert "100.0% |" in last and "rounds/s" in last


def test_progress_and_no_progress_are_refused_together(capsys):
    assert main([*STUDIES["simulate"], "--progress", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "not allowed with argument" in err and len(err.strip().splitlines()) == 1


def test_a_sweep_has_one_bar_each_line_labelled(capsys):
    assert main([*STUDIES["sweep"], "--progress", "--json"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1  # one bar over both points (a log: its last line here)
    assert lines[0].startswith("point 2/2 pollo_award=4: 100.0% |") and "8/8 tables" in lines[0]


def test_a_compare_has_one_bar_over_its_arms(capsys):
    assert main([*STUDIES["compare"], "--progress", "--json"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arm 2/2 pollo_award=4: 100.0% |")
    assert "8/8 tables" in lines[0]


def test_a_warm_trace_says_nothing_of_compiling(capsys):
    assert main(STUDIES["trace"]) == 0  # the first call may compile (then said once)
    first = capsys.readouterr().err
    assert first.count(COMPILING) <= 1
    assert main(STUDIES["trace"]) == 0
    assert capsys.readouterr().err == ""  # warm: nothing compiles, nothing said
