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


FIVE = "random,heavy,keeper,hunter,expert"
COMMANDS = {
    "simulate": (["simulate", "-t", "6", "-r", "3"], "domeng.summary/1"),
    "compare": (["compare", "-V", "pollo=4", "-t", "6", "-r", "3"], "domeng.compare/1"),
    "sweep": (["sweep", "--vary", "pollo=3,4", "-t", "6", "-r", "3"], "domeng.sweep/1"),
    "tournament": (
        ["tournament", "-p", FIVE, "-d", "3", "-r", "2", "--orders", "rotations"],
        "domeng.tournament/1",
    ),
    "ladder": (
        ["ladder", "-p", FIVE + ",random", "-d", "2", "-r", "2", "--orders", "rotations"],
        "domeng.ladder/1",
    ),
}
ESTIMATE = {"value", "se", "ci_low", "ci_high"}


def _estimates(x, path=""):
    """Every dict of the JSON that holds an estimate (a ``value`` or an ``se``)."""
    if isinstance(x, dict):
        if "value" in x or "se" in x:
            yield path, x
        for k, v in x.items():
            yield from _estimates(v, f"{path}.{k}")
    elif isinstance(x, list):
        for v in x:
            yield from _estimates(v, f"{path}[]")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_json_has_a_schema_and_one_estimate_shape(command, capsys):
    import json

    argv, schema = COMMANDS[command]
    assert main([*argv, "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["schema"] == schema
    if command in ("tournament", "ladder"):
        assert out["kind"] == command  # kept for one release beside "schema"
    found = list(_estimates(out))
    assert len(found) > 20
    for path, est in found:
        assert ESTIMATE <= set(est), (path, sorted(est))
        v, lo, hi = est["value"], est["ci_low"], est["ci_high"]
        if v is None:  # undefined (a mean over no events): nothing is made up
            assert est["se"] is None and lo is None and hi is None, (path, est)
            continue
        assert lo is not None and hi is not None and lo <= v <= hi, (path, est)
        if "ci95" in est:  # the tournament's old spelling, kept for one release
            assert est["ci95"] == [lo, hi]
