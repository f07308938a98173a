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
        ["sweep", "--rule", "pollo=3,4"],
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
        "--rule",
        "pollo=3,4",
        "--fixed",
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
        "domeng sweep: error: pollo_award is both swept (--rule) and held "
        "fixed (--fixed); give it once"
    )


def test_sweep_fixed_other_option_still_runs(capsys):
    argv = [
        "sweep",
        "--rule",
        "pollo=3,4",
        "--fixed",
        "ceki=2",
        "--tables",
        "2",
        "--rounds",
        "2",
        "--json",
        "--no-progress",
    ]
    assert main(argv) == 0, capsys.readouterr().err
    import json

    s = json.loads(capsys.readouterr().out)
    assert s["schema"] == "domeng.sweep/1" and s["grid"] == {"pollo_award": [3, 4]}
    assert s["rules"]["ceki_award"] == 2  # the fixed value holds at every point


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
