"""Issue 10, items 1, 2, 3, 9, 10 and the Low list: a study or results folder
from someone else runs no code, writes nothing outside itself, follows no
planted link, cannot relabel its numbers, and has one writer at a time.
Each test crafts the folder of one finding (each failed on the old code)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from _crafted import STUDY, cli, edit_manifest, finished, one_line, snapshot, unfinished

import domeng
from domeng.core.errors import (
    FolderBusyError,
    PlayerError,
    UnsafePathError,
)
from domeng.infra.fs import FolderLock, atomic_write, resolve_inside
from domeng.results.results import Results
from domeng.study.checkpoint import Checkpoint, resume

# ---------------------------------------------------------------- 1. no code named in a file runs
EVIL = """
from pathlib import Path
Path({marker!r}).write_text("ran")
def x(obs, hist, moves, n_moves, rng):
    return 0
"""


def _plant_module(where: Path, name: str, marker: Path) -> None:
    (where / f"{name}.py").write_text(EVIL.format(marker=str(marker)))


def test_a_manifest_naming_a_module_imports_nothing(tmp_path, capsys, monkeypatch):
    d = unfinished(tmp_path / "theirs")
    marker = tmp_path / "marker"
    _plant_module(d, "evilmod", marker)
    monkeypatch.syspath_prepend(str(d))  # as with `python -m domeng` run from their folder
    monkeypatch.chdir(d)
    for players in (["this:x", "random", "random", "random", "random"], ["evilmod:x"] * 5):
        # a consistent folder: the digest is recomputed as an attacker would
        m = edit_manifest(d, players=players)
        from domeng.study.cluster import fingerprint
        from domeng.study.plan import study_digest

        edit_manifest(
            d,
            digest=study_digest(
                m["tables"], m["rounds"], m["seed"], players, m["rules"], fingerprint()[1]
            ),
        )
        err = one_line(capsys, ["simulate", "--resume", d, "--no-progress"], "would import")
        assert repr(players[0].split(":")[0]) in err
        with pytest.raises(PlayerError, match="allow_import"):
            resume(d, progress=False)
    assert not marker.exists() and "evilmod" not in sys.modules and "this" not in sys.modules


def test_a_module_named_again_by_the_user_may_be_imported(tmp_path, monkeypatch):
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "mine.py").write_text(
        "import numba\n@numba.njit\ndef first(obs, hist, moves, n_moves, rng):\n    return 0\n"
    )
    monkeypatch.syspath_prepend(str(mods))
    players = "mine:first,random,random,random,random"
    d = unfinished(tmp_path / "study", players=players)
    with pytest.raises(PlayerError, match="'mine'"):
        resume(d, progress=False)
    res = resume(d, progress=False, players=players)  # named again: allowed
    assert res.players[0] == "mine:first"
    d2 = unfinished(tmp_path / "study2", players=players)
    again = resume(d2, progress=False, allow_import=["mine"])
    assert again.equals(res) and not again.equals(res, timings=True)  # elapsed differs
    assert Results.load(d2).summary() == res.summary()


# ---------------------------------------------------------------- 2. paths from files stay inside
@pytest.mark.parametrize(
    "records", ["/etc/passwd-copy", "../victim.parquet", "a/../../x", "chunks/../../y"]
)
def test_a_manifest_cannot_write_outside_its_folder(tmp_path, capsys, records):
    d = unfinished(tmp_path / "s", records=tmp_path / "s" / "records.parquet")
    victim = tmp_path / "victim.parquet"
    victim.write_text("precious")
    edit_manifest(d, records=records)
    before = snapshot(tmp_path, skip=d)
    one_line(capsys, ["simulate", "--resume", d, "--no-progress"], "refusing the records path")
    assert snapshot(tmp_path, skip=d) == before and victim.read_text() == "precious"


def test_a_records_link_out_of_the_folder_is_refused(tmp_path):
    d = unfinished(tmp_path / "s", records=tmp_path / "s" / "records.parquet")
    victim = tmp_path / "victim"
    victim.write_text("precious")
    (d / "records.parquet").symlink_to(victim)
    with pytest.raises(UnsafePathError):
        Checkpoint.open(d)
    assert victim.read_text() == "precious"


def test_resolve_inside():
    base = Path("/some/folder")
    assert resolve_inside(base, "a/b.parquet") == base / "a/b.parquet"
    for bad in ["/abs", "../x", "a/../../x", "", "a\x00b", ".", 5]:
        with pytest.raises(UnsafePathError):
            resolve_inside(base, bad)


# ---------------------------------------------------------------- 3. writes follow no link
def test_report_follows_no_planted_link(tmp_path, capsys):
    d = tmp_path / "res"
    finished(d)
    victim = tmp_path / "victim"
    victim.write_text("precious")
    # the old fixed temporary names, and final names, as links to the victim
    for name in (".results.npz.partial", "summary.json", "report.html"):
        p = d / name
        p.unlink(missing_ok=True)
        p.symlink_to(victim)
    (d / "tables" / ".end_kinds.parquet.partial").symlink_to(victim)
    code, _out, err = cli(capsys, "report", d)
    assert code == 0, err
    assert victim.read_text() == "precious"
    assert not (d / "summary.json").is_symlink() and (d / "summary.json").is_file()
    assert not (d / "report.html").is_symlink()
    assert not list(d.glob(".*.partial")) and not list((d / "tables").glob(".*.partial"))


@pytest.mark.parametrize("sub", ["tables", "plots"])
def test_a_fixed_subfolder_that_is_a_link_is_refused(tmp_path, capsys, sub):
    d = tmp_path / "res"
    finished(d)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    import shutil

    shutil.rmtree(d / sub, ignore_errors=True)
    (d / sub).symlink_to(outside)
    before = snapshot(outside)
    one_line(capsys, ["report", d], "symbolic link")
    assert snapshot(outside) == before


def test_a_chunks_link_is_refused_on_resume(tmp_path, capsys):
    d = unfinished(tmp_path / "s")
    outside = tmp_path / "outside"
    (d / "chunks").rename(outside)
    (d / "chunks").symlink_to(outside)
    before = snapshot(outside)
    one_line(capsys, ["simulate", "--resume", d, "--no-progress"], "symbolic link")
    assert snapshot(outside) == before


def test_atomic_write_replaces_a_link_and_never_its_target(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    link = tmp_path / "out.json"
    link.symlink_to(victim)
    atomic_write(link, "new")
    assert victim.read_text() == "precious" and not link.is_symlink()
    assert link.read_text() == "new" and oct(link.stat().st_mode & 0o777) == "0o644"
    assert [p.name for p in tmp_path.iterdir()] != [] and not list(tmp_path.glob(".*partial"))


def test_an_output_folder_that_is_a_link_is_refused(tmp_path, capsys):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "out").symlink_to(real)
    one_line(
        capsys,
        ["simulate", "--tables", "2", "--rounds", "2", "--no-progress", "--out", tmp_path / "out"],
        "symbolic link",
    )
    assert list(real.iterdir()) == []


# ---------------------------------------------------------------- 9. wrong results are noticed
def test_a_chunk_from_another_seed_is_refused(tmp_path, capsys):
    a = unfinished(tmp_path / "a")
    b = unfinished(tmp_path / "b", seed=STUDY["seed"] + 1)
    other = sorted((b / "chunks").glob("chunk-*.npz"))[0]
    mine = a / "chunks" / other.name
    mine.write_bytes(other.read_bytes())  # same chunking, another seed
    one_line(capsys, ["simulate", "--resume", a, "--no-progress"], "not produced by the study")
    assert not (a / "results.npz").exists()


@pytest.mark.parametrize(
    "change",
    [
        {"seed": 99},
        {"players": ["heavy"] * 5},
        {"rules": {**domeng.Rules().to_dict(), "pollo_award": 9}},
    ],
)
def test_an_edited_manifest_is_refused(tmp_path, capsys, change):
    d = unfinished(tmp_path / "s")
    edit_manifest(d, **change)
    one_line(capsys, ["simulate", "--resume", d, "--no-progress"], "edited")


@pytest.mark.parametrize("change", [{"seed": 99}, {"players": ["heavy"] * 5}])
def test_edited_results_are_refused_by_report(tmp_path, capsys, change):
    d = tmp_path / "res"
    finished(d)
    with np.load(d / "results.npz") as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta.update(change)
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(d / "results.npz", **arrays)
    one_line(capsys, ["report", d], "edited")


# ---------------------------------------------------------------- 10. one writer per folder
def test_a_second_writer_is_refused_with_one_line(tmp_path, capsys):
    d = unfinished(tmp_path / "s")
    with FolderLock(d):
        one_line(
            capsys,
            ["simulate", "--resume", d, "--no-progress"],
            "being written by another domeng run",
            code=1,
        )
        with pytest.raises(FolderBusyError):
            resume(d, progress=False)
    assert not (d / "results.npz").exists()
    resume(d, progress=False)  # the lock went with its holder
    assert (d / "results.npz").exists()


def test_the_lock_is_released_when_its_process_dies(tmp_path):
    import subprocess

    d = tmp_path / "s"
    d.mkdir()
    code = (
        "import sys, os; from domeng.infra.fs import FolderLock; "
        f"FolderLock({str(d)!r}).acquire(); os._exit(0)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    with FolderLock(d):
        pass


# ---------------------------------------------------------------- Low
@pytest.mark.parametrize(
    "text", ["../victim.previous", "/tmp/x.previous", "s.previous/../../v", "s.previousX"]
)
def test_a_crafted_previous_marker_deletes_nothing_else(tmp_path, text):
    d = tmp_path / "s"
    finished(d)
    finished(d, seed=5, overwrite=True)  # the old one went to s.previous and was then deleted
    victim = tmp_path / "victim.previous"
    victim.mkdir()
    (victim / "keep").write_text("x")
    other = tmp_path / "s.previousX"
    other.mkdir()
    unfinished(tmp_path / "new")
    (tmp_path / "new" / "previous-results.txt").write_text(text + "\n")
    resume(tmp_path / "new", progress=False)
    assert (victim / "keep").exists() and other.exists()
    assert not (tmp_path / "new" / "previous-results.txt").exists()


def test_player_names_with_terminal_escapes_are_refused(tmp_path, capsys):
    d = tmp_path / "res"
    finished(d)
    with np.load(d / "results.npz") as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta["players"] = ["\x1b[2J\x1b[31mrandom"] + meta["players"][1:]
    meta.pop("digest")
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(d / "results.npz", **arrays)
    err = one_line(capsys, ["report", d], "printable")
    assert "\x1b" not in err


def test_temporaries_of_a_crash_are_cleaned_on_the_next_run(tmp_path):
    d = unfinished(tmp_path / "s")
    for p in (
        d / ".manifest.json.deadbeef.partial",
        d / "chunks" / ".chunk-0000003.npz.1.partial",
        d / ".results.npz.partial",
    ):
        p.write_bytes(b"half")
    resume(d, progress=False)
    left = [p for p in d.rglob("*") if p.name.endswith(".partial")]
    assert left == []


@pytest.mark.parametrize("text", ["٣", "３", "1" * 5000])
def test_unicode_and_giant_numbers_are_refused(capsys, text):
    one_line(capsys, ["simulate", "--tables", text, "--no-progress"], "--tables")
    one_line(
        capsys, ["simulate", "--tables", "2", "--rule", f"pollo={text}", "--no-progress"], "pollo"
    )
