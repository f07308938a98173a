"""Every built-in player of the catalogue runs in a study written to
a folder, and resumes from it; the research player ``omniscient`` (it sees
every hand, D17) is refused before anything runs; a study that cannot
start leaves no folder behind (walk4 findings, fixes4a item 1)."""

from __future__ import annotations

import json

import pytest

import domeng
from domeng.cli.main import main
from domeng.core.errors import PlayerError, ResultsWriteError
from domeng.players.catalogue import BUILTINS, MAX_SAMPLES, builtin_names
from domeng.study import checkpoint as ck_mod
from domeng.study.names import check_player_names

#: every name a study takes: each player, and each with a budget
STUDY_NAMES = [e.name for e in BUILTINS if "study" in e.places] + [
    f"{e.name}-3" for e in BUILTINS if e.budget and "study" in e.places
]


@pytest.mark.parametrize("name", STUDY_NAMES)
def test_every_built_in_player_is_accepted_from_a_manifest(name):
    names = [name] + ["random"] * 4
    assert check_player_names(names, source="manifest.json") == names


def test_an_unknown_player_in_a_manifest_lists_every_built_in_player():
    with pytest.raises(PlayerError) as e:
        check_player_names(["nobody"] + ["random"] * 4, source="manifest.json")
    text = str(e.value)
    assert "player 'nobody' refused in a study (read from manifest.json): unknown player" in text
    assert all(n in text for n in builtin_names("study"))


@pytest.mark.parametrize("name", ["omniscient", "OMNISCIENT"])
def test_the_omniscient_player_stays_refused_in_a_manifest(name):
    with pytest.raises(PlayerError, match="research player that sees every hand"):
        check_player_names([name] + ["random"] * 4, source="manifest.json")


@pytest.mark.parametrize(
    "name, cap",
    [
        ("search", MAX_SAMPLES),
        ("esearch", MAX_SAMPLES),
        ("isearch", MAX_SAMPLES),
        ("ismcts", 200_000),
    ],
)
def test_search_budgets_have_their_caps(name, cap):
    ok = [f"{name}-{cap}"] + ["random"] * 4
    assert check_player_names(ok, source="manifest.json") == ok
    for bad in (f"{name}-{cap + 1}", f"{name}-0", f"{name}-x"):
        with pytest.raises(PlayerError, match=f"{name} takes N from 1 to {cap:,}"):
            check_player_names([bad] + ["random"] * 4, source="manifest.json")


def test_expert_study_written_to_a_folder_runs_and_resumes(tmp_path, capsys):
    out = tmp_path / "x"
    assert (
        main(
            [
                "simulate",
                "--tables",
                "4",
                "--rounds",
                "3",
                "--players",
                "expert",
                "--out",
                str(out),
                "--no-progress",
                "--json",
            ]
        )
        == 0
    )
    first = json.loads(capsys.readouterr().out)
    assert first["players"] == ["expert"] * 5
    assert json.loads((out / "manifest.json").read_text())["players"] == ["expert"] * 5
    assert main(["simulate", "--resume", str(out), "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == first


def test_expert_comparison_written_to_a_folder_resumes(tmp_path, capsys):
    out = tmp_path / "c"
    assert (
        main(
            [
                "compare",
                "--players",
                "expert",
                "--variant",
                "pollo=4",
                "-t",
                "4",
                "-r",
                "2",
                "--out",
                str(out),
                "--no-progress",
                "--json",
            ]
        )
        == 0
    )
    first = json.loads(capsys.readouterr().out)
    assert main(["compare", "--resume", str(out), "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == first


def test_checkpoint_of_every_search_player_opens_again(tmp_path):
    """The manifest of a study of search players is written and read back
    (no round is played: the players compile only when they play)."""
    from domeng.study.chunks import Plan

    players = ("search-2", "esearch-2", "isearch-2", "ismcts-5", "expert")
    plan = Plan(tables=2, rounds=1, seed=0, players=players, rules=domeng.Rules(), chunk_tables=2)
    ck_mod.Checkpoint.create(tmp_path / "s", plan).close()
    with ck_mod.Checkpoint.open(tmp_path / "s") as ck:
        assert ck.plan.players == players


def test_omniscient_refused_before_the_progress_bar(tmp_path, capsys):
    out = tmp_path / "o"
    assert (
        main(
            [
                "simulate",
                "-t",
                "2",
                "-r",
                "2",
                "--players",
                "omniscient",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "research player that sees every hand" in err
    assert not out.exists()
    with pytest.raises(PlayerError, match="research player"):
        domeng.simulate(tables=2, rounds=2, players="omniscient", progress=True)
    assert capsys.readouterr().err == ""  # refused before any bar was drawn


def test_a_study_whose_manifest_is_refused_leaves_no_folder(tmp_path, monkeypatch):
    def refuse(*a, **k):
        raise PlayerError("refused")

    monkeypatch.setattr(ck_mod, "check_player_names", refuse)
    out = tmp_path / "new" / "x"
    with pytest.raises(PlayerError):
        domeng.simulate(tables=2, rounds=2, checkpoint=out, progress=False)
    assert not out.exists()


def test_a_study_that_cannot_write_its_manifest_leaves_no_folder(tmp_path, monkeypatch):
    def fail(path, write):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ck_mod, "durable_write", fail)
    out = tmp_path / "x"
    with pytest.raises(ResultsWriteError, match="No space left"):
        domeng.simulate(tables=2, rounds=2, checkpoint=out, progress=False)
    assert not out.exists()
    # an existing empty folder given by the user stays
    out.mkdir()
    with pytest.raises(ResultsWriteError):
        domeng.simulate(tables=2, rounds=2, checkpoint=out, progress=False)
    assert out.is_dir()
