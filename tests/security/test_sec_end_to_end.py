"""Issue 10, end to end: a study folder from someone else -- finished or
not, with a player module of theirs beside it and links and paths planted
in it -- can be inspected, reported and resumed without running their code
or touching anything outside the folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _crafted import STUDY, cli, one_line, snapshot, unfinished

import domeng
from domeng.results.results import Results
from domeng.study.checkpoint import Checkpoint

ROOT = Path(__file__).resolve().parents[2]

THEIRS = """
import numba
from pathlib import Path
Path({marker!r}).write_text("their code ran")

@numba.njit
def first(obs, hist, moves, n_moves, rng):
    return 0
"""


@pytest.mark.slow
def test_someone_elses_folders_are_inspected_reported_and_resumed_safely(
    tmp_path, capsys, monkeypatch
):
    home = tmp_path / "home"  # everything of ours outside their folders
    home.mkdir()
    (home / "notes.txt").write_text("mine")
    marker = home / "their-code-ran"
    received = tmp_path / "received"
    received.mkdir()

    # 1. "their" machine: a study with a player of their own, interrupted
    mods = tmp_path / "their-mods"
    mods.mkdir()
    (mods / "theirplayer.py").write_text(THEIRS.format(marker=str(marker)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(mods)]))
    code = (
        f"import domeng; domeng.simulate(tables=4, rounds=3, seed=1, chunk_tables=1, "
        f"players='theirplayer:first,random,random,random,random', progress=False, "
        f"checkpoint={str(received / 'custom')!r})"
    )
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=tmp_path)
    marker.unlink()  # it ran on their machine, as it should
    (received / "custom" / "results.npz").unlink()  # "interrupted" before the end
    (received / "custom" / "theirplayer.py").write_text(THEIRS.format(marker=str(marker)))

    # 2. a builtin-player study, interrupted, with planted links and paths
    b = unfinished(received / "builtin", records=received / "builtin" / "records.parquet")
    (b / ".results.npz.partial").symlink_to(home / "notes.txt")
    (b / "previous-results.txt").write_text(str(home) + "\n")

    # 3. a finished one with links planted at the names report writes
    f = received / "finished"
    domeng.simulate(checkpoint=f, progress=False, **STUDY)
    (f / "summary.json").unlink()
    (f / "summary.json").symlink_to(home / "notes.txt")

    before = snapshot(tmp_path, skip=received)
    monkeypatch.chdir(received / "custom")  # their module in the current folder
    monkeypatch.syspath_prepend(str(received / "custom"))

    # inspect: open every folder, read its plan (no code runs)
    ck = Checkpoint.open(b)
    assert ck.plan.players == tuple(STUDY["players"].split(","))
    with pytest.raises(domeng.DomengError, match="would import"):
        Checkpoint.open(received / "custom")
    assert (
        json.loads((received / "custom" / "manifest.json").read_text())["players"][0]
        == "theirplayer:first"
    )
    # report the finished one; resume the builtin one; refuse to run their code
    code, out, err = cli(capsys, "report", f)
    assert code == 0, err
    code, out, err = cli(capsys, "simulate", "--resume", b, "--no-progress", "--json")
    assert code == 0, err
    assert Results.load(b).summary() == json.loads(out)
    one_line(capsys, ["simulate", "--resume", received / "custom", "--no-progress"], "theirplayer")

    assert not marker.exists() and "theirplayer" not in sys.modules
    assert snapshot(tmp_path, skip=received) == before
    assert (home / "notes.txt").read_text() == "mine"
