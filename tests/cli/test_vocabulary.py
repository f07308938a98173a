"""One vocabulary across the study commands (issue 23 item 5): the JSON
schema and estimate shape of every command, --list-metrics wherever a metric
is named, report of every kind of folder, reprs and loads, estimates()."""

from __future__ import annotations

import pytest

from domeng.cli.main import main


@pytest.mark.parametrize(
    "argv",
    [["simulate"], ["compare", "-V", "pollo=4"], ["sweep"], ["sweep", "-p", "expert"]],
    ids=["simulate", "compare", "sweep", "sweep-one-player"],
)
def test_list_metrics_on_every_command_that_names_one(argv, capsys):
    assert main([*argv, "--list-metrics"]) == 0
    out, err = capsys.readouterr()
    names = out.splitlines()
    assert err == "" and len(names) == len(set(names)) > 50
    assert {"passebunge_per_round", "end_kind.CEKI", "stones_per_round.total"} <= set(names)
    player = "expert" if "expert" in argv else "heavy"
    assert f"win_rate_by_player.{player}" in names


def test_target_ci_points_to_the_commands_own_list(capsys):
    assert main(["simulate", "--target-ci", "foo=1"]) == 2
    err = capsys.readouterr().err
    assert "domeng simulate --list-metrics" in err and err.count("\n") == 1
