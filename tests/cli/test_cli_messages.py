"""One-line errors name the command they belong to (found by the walk4 docs
walk): an unknown option of ``domeng simulate`` is reported by ``domeng
simulate`` and points at its own ``--help``."""

from __future__ import annotations

import pytest

from domeng.cli.main import main


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate"],
        ["rules"],
        ["report", "some-folder"],
        ["trace"],
        ["play"],
        ["serve"],
        ["sweep", "--vary", "pollo=3,4"],
    ],
)
def test_unknown_option_names_the_command(argv, capsys):
    command = argv[0]
    assert main(argv + ["--frobnicate", "--tabels=3"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip() == (
        f"domeng {command}: error: unrecognized arguments: --frobnicate "
        f"--tabels=3 (see domeng {command} --help)"
    )


def test_unknown_option_before_the_command_is_domengs(capsys):
    assert main(["--frobnicate"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("domeng: error: unrecognized arguments: --frobnicate")
    assert err.endswith("(see domeng --help)")


@pytest.mark.parametrize("fixed", ["pollo=3", "pollo_award=5", "ceki=2,POLLO=4"])
def test_sweep_refuses_an_option_both_swept_and_fixed(fixed, capsys, tmp_path):
    out_dir = tmp_path / "sweep"
    argv = [
        "sweep",
        "--vary",
        "pollo=3,4",
        "--rule",
        fixed,
        "--tables",
        "2",
        "--rounds",
        "2",
        "--out",
        str(out_dir),
        "--no-progress",
    ]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and not out_dir.exists()  # refused before anything is played or written
    assert err.strip() == (
        "domeng sweep: error: pollo_award is both swept (--vary) and held "
        "fixed (--rule); give it once"
    )


def _sweep_json(capsys, *argv: str) -> tuple[dict, str]:
    import json

    assert main(["sweep", *argv, "-t", "2", "-r", "2", "--json", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    return json.loads(out), err


def test_sweep_vary_sweeps_and_rule_fixes(capsys):
    """--rule fixes an option at every point, as in every other command; the
    swept axis is --vary (issue 23 item 5); no note on stderr."""
    s, err = _sweep_json(capsys, "--vary", "pollo=3,4", "--rule", "ceki=2")
    assert err == ""
    assert s["schema"] == "domeng.sweep/1" and s["grid"] == {"pollo_award": [3, 4]}
    assert s["rules"]["ceki_award"] == 2  # the fixed value holds at every point
    assert s["points"] == [{"pollo_award": 3}, {"pollo_award": 4}]
    # a single-valued --rule is a fixed option, not "an empty sweep"
    s, err = _sweep_json(capsys, "--rule", "pollo=4", "--vary", "ceki=2,3")
    assert s["grid"] == {"ceki_award": [2, 3]} and s["rules"]["pollo_award"] == 4


def test_sweep_old_spelling_works_with_one_note(capsys):
    """The spelling of the last release (--rule as the swept axis, --fixed for
    the held values) gives the same sweep, with one note line each on stderr."""
    new, _ = _sweep_json(capsys, "--vary", "pollo=3,4", "--rule", "ceki=2")
    old, err = _sweep_json(capsys, "--rule", "pollo=3,4", "--fixed", "ceki=2")
    lines = err.splitlines()
    assert len(lines) == 2 and all(x.startswith("domeng sweep: note: ") for x in lines)
    assert "--vary pollo=3,4" in lines[0] and "--rule ceki=2" in lines[1]
    strip = ("command",)
    assert {k: v for k, v in old.items() if k not in strip} == {
        k: v for k, v in new.items() if k not in strip
    }


def _help(command: str) -> str:
    import argparse

    from domeng.cli.main import build_parser

    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    return " ".join(subs[command].format_help().split())


@pytest.mark.parametrize(
    "command",
    [
        "simulate",
        "compare",
        "sweep",
        "tournament",
        "ladder",
        "report",
        "rules",
        "play",
        "trace",
        "serve",
    ],
)
def test_help_shows_no_doubled_percent(command):
    """argparse %-formats help strings but not descriptions: a description's
    "95%%" was printed as such (tournament, ladder)."""
    assert "%%" not in _help(command)


@pytest.mark.parametrize(
    "command", ["simulate", "compare", "sweep", "tournament", "ladder", "play"]
)
def test_players_help_lists_every_built_in_player(command):
    """Every player that may sit where the command seats players is in its
    --help with the catalogue's own line (description, budget range, options)."""
    from domeng.players import catalogue

    place = {"tournament": "tournament", "ladder": "tournament", "play": "terminal"}.get(
        command, "study"
    )
    text = " ".join(_help(command).split())
    lines = catalogue.describe(place, plugins=False)
    assert set(lines) == set(catalogue.builtin_names(place)) and lines
    missing = [n for n, line in lines.items() if " ".join(line.split()) not in text]
    assert not missing, missing
    assert ("omniscient:" in text) == (place in catalogue.lookup("omniscient").places)
