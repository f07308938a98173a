"""Checkpoints and resume: a study killed with SIGKILL continues where it
stopped and ends with the numbers of an uninterrupted run; chunk files are
written atomically; resuming with other parameters, or a folder from
another version, is refused with one line and exit 2."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import domeng
from domeng.cli.main import main
from domeng.results.results import Results
from domeng.study.checkpoint import Checkpoint, CheckpointError, durable_write
from domeng.study.simulate import simulate

MIXED = "random,heavy,keeper,hunter,random"
ROOT = Path(__file__).resolve().parents[2]
STUDY = dict(tables=11, rounds=13, players=MIXED, seed=8, rules="passebunge_every_pass=false")


class Stop(Exception):
    """Stands for a crash in the middle of a study."""


def stop_after(k):
    def progress(done, total):
        if done >= k:
            raise Stop

    return progress


def same(a, b) -> None:
    assert np.array_equal(a.group_agg, b.group_agg)
    assert np.array_equal(a.group_state, b.group_state)
    assert np.array_equal(a.group_tables, b.group_tables)
    assert a.summary() == b.summary()


def chunk_files(folder: Path) -> list[Path]:
    return sorted((folder / "chunks").glob("chunk-*.npz"))


@pytest.fixture(scope="module")
def whole():
    return simulate(progress=False, **STUDY)


def interrupted(folder: Path, k: int = 4, **kw) -> None:
    """Start a checkpointed study in ``folder`` and 'crash' after ``k`` tables."""
    args = dict(STUDY, chunk_tables=2, checkpoint=folder, progress=stop_after(k))
    args.update(kw)
    with pytest.raises(Stop):
        simulate(**args)


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(capsys, argv, expect: str) -> str:
    code, out, err = cli(capsys, *argv)
    assert code == 2, (code, out, err)
    assert out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert expect in err, err
    return err


# ---------------------------------------------------------------- kill -9
#: the child of the kill -9 test: a real `domeng simulate` whose 3rd chunk
#: write signals "ready" and then waits to be killed (no race with the parent)
_CHILD = """
import sys, time
from pathlib import Path
from domeng.study import checkpoint
from domeng.cli.main import main

real = checkpoint.Checkpoint.write_chunk
written = []

def write_chunk(self, r):
    real(self, r)
    written.append(r.index)
    if len(written) == 3:
        Path(sys.argv[1]).write_text("ready")
        while True:
            time.sleep(60)  # killed here, in the middle of the study

checkpoint.Checkpoint.write_chunk = write_chunk
sys.exit(main(sys.argv[2:]))
"""


def test_kill_9_then_resume_equals_an_uninterrupted_run(tmp_path, capsys):
    out = tmp_path / "study"
    ready = tmp_path / "ready"
    study = [
        "--tables",
        "40",
        "--rounds",
        "40000",
        "--chunk-tables",
        "2",
        "--players",
        MIXED,
        "--seed",
        "3",
    ]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _CHILD,
            str(ready),
            "simulate",
            *study,
            "--workers",
            "1",
            "--no-progress",
            "--json",
            "--out",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None and not ready.exists():
            time.sleep(0.02)
        assert ready.exists(), "the study never wrote its third chunk"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:  # pragma: no cover
            proc.kill()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL  # killed, it did not finish
    n = len(chunk_files(out))
    assert 3 <= n < 20
    assert not (out / "results.npz").exists() and not (out / "summary.json").exists()
    manifest = json.loads((out / "manifest.json").read_text())
    assert (
        manifest["tables"],
        manifest["rounds"],
        manifest["seed"],
        manifest["chunk_tables"],
        manifest["n_chunks"],
    ) == (40, 40000, 3, 2, 20)
    assert manifest["players"] == MIXED.split(",") and manifest["version"] == domeng.__version__

    # the folder is not taken for a new study by mistake
    one_line_error(capsys, ["simulate", *study, "--out", out], "--resume")
    assert len(chunk_files(out)) == n

    code, text, err = cli(capsys, "simulate", "--resume", out, "--json", "--no-progress")
    assert code == 0, err
    ref = simulate(tables=40, rounds=40000, players=MIXED, seed=3, progress=False)
    assert json.loads(text) == ref.summary()
    back = Results.load(out)
    same(back, ref)
    # finished: the chunk files were pruned (issue 12), results.npz holds their sums
    assert len(chunk_files(out)) == 0 and (out / "chunks" / "pruned").is_file()
    assert (out / "report.html").is_file() and (out / "summary.json").is_file()
    assert not list((out / "chunks").glob("*.partial"))


# ---------------------------------------------------------------- API
def test_resume_computes_only_the_missing_chunks(tmp_path, whole):
    d = tmp_path / "s"
    interrupted(d, k=4)
    first = [p.stat().st_mtime_ns for p in chunk_files(d)]
    assert len(first) == 2 and not (d / "results.npz").exists()
    calls, seen = [], []

    def progress(done, total):
        calls.append(done)
        seen.append([p.stat().st_mtime_ns for p in chunk_files(d)][:2])

    res = domeng.resume(d, progress=progress)
    same(res, whole)
    assert calls == [6, 8, 10, 11]  # only chunks 2..5 were played
    assert all(s == first for s in seen)  # untouched while the study ran
    assert chunk_files(d) == [] and (d / "chunks" / "pruned").is_file()  # then pruned
    same(Results.load(d), whole)
    # resuming a finished study plays nothing and writes the same results again
    calls.clear()
    same(domeng.resume(d, progress=lambda done, total: calls.append(done)), whole)
    assert calls == []


def test_checkpointed_run_equals_plain_run_and_is_loadable(tmp_path, whole):
    d = tmp_path / "s"
    res = simulate(checkpoint=d, chunk_tables=3, progress=False, **STUDY)
    same(res, whole)
    same(Results.load(d), whole)
    assert len(chunk_files(d)) == 0 and (d / "chunks" / "pruned").is_file()  # finished: pruned
    m = json.loads((d / "manifest.json").read_text())
    assert m["rules"]["passebunge_every_pass"] is False and m["groups"] == 11
    for key in ("format", "version", "engine", "layout"):
        assert m[key]


def test_records_survive_a_crash(tmp_path):
    kw = dict(tables=7, rounds=5, players=MIXED, seed=2)
    plain = tmp_path / "plain.parquet"
    simulate(records=plain, progress=False, **kw)
    d = tmp_path / "s"
    with pytest.raises(Stop):
        simulate(
            checkpoint=d,
            records=d / "records.parquet",
            chunk_tables=2,
            progress=stop_after(4),
            **kw,
        )
    assert len(list((d / "chunks").glob("records-*.parquet"))) == 2
    assert not (d / "records.parquet").exists()
    res = domeng.resume(d, progress=False)
    assert res.meta["records_rows"] == 35
    pd.testing.assert_frame_equal(pd.read_parquet(d / "records.parquet"), pd.read_parquet(plain))
    assert not list((d / "chunks").glob("records-*.parquet"))  # merged, then removed
    domeng.resume(d, progress=False)  # again: the records are already merged
    pd.testing.assert_frame_equal(pd.read_parquet(d / "records.parquet"), pd.read_parquet(plain))


def test_a_damaged_chunk_is_computed_again_and_partial_files_are_ignored(tmp_path, whole):
    d = tmp_path / "s"
    interrupted(d, k=6)
    files = chunk_files(d)
    assert len(files) == 3
    files[1].write_bytes(b"not a zip")  # e.g. a disk error
    (d / "chunks" / ".chunk-0000004.npz.1234.partial").write_bytes(b"half")  # a killed write
    with pytest.warns(RuntimeWarning, match="damaged checkpoint file"):
        res = domeng.resume(d, progress=False)
    same(res, whole)
    assert not list((d / "chunks").glob("*.partial"))


def test_durable_write_is_atomic(tmp_path):
    p = tmp_path / "f.bin"
    durable_write(p, b"one")

    def boom(f):
        f.write(b"half")
        raise Stop

    with pytest.raises(Stop):
        durable_write(p, boom)
    assert p.read_bytes() == b"one"
    assert [q.name for q in tmp_path.iterdir()] == ["f.bin"]


# ---------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    "argv,expect",
    [
        (["--tables", "12"], "tables=11"),
        (["--rounds", "5"], "rounds=13"),
        (["--seed", "9"], "seed=8"),
        (["--players", "random"], "players=random,heavy"),
        (["--rule", "pollo=4"], "other rules"),
        (["--chunk-tables", "3"], "chunk_tables=2"),
        (["--records"], "records=False"),
    ],
)
def test_resume_with_other_parameters_is_refused(tmp_path, capsys, argv, expect):
    d = tmp_path / "s"
    interrupted(d)
    before = [p.read_bytes() for p in chunk_files(d)]
    one_line_error(capsys, ["simulate", "--resume", d, *argv], expect)
    assert [p.read_bytes() for p in chunk_files(d)] == before and not (d / "results.npz").exists()


def test_resume_with_the_same_parameters_is_accepted(tmp_path, capsys, whole):
    d = tmp_path / "s"
    interrupted(d)
    code, out, err = cli(
        capsys,
        "simulate",
        "--resume",
        d,
        "--tables",
        "11",
        "--rounds",
        "13",
        "--seed",
        "8",
        "--players",
        MIXED,
        "--rule",
        "passebunge_every_pass=false",
        "--chunk-tables",
        "2",
        "--json",
        "--no-progress",
    )
    assert code == 0, err
    assert json.loads(out) == whole.summary()


@pytest.mark.parametrize(
    "change,expect",
    [
        (lambda m: m.update(version="0.0.1"), "written by domeng 0.0.1"),
        (lambda m: m.update(engine="0123456789abcdef"), "another build of the engine"),
        (lambda m: m.update(format="domeng.study.checkpoint/0"), "incompatible"),
        (lambda m: m["layout"].update(agg_len=1), "layout"),
        (lambda m: m.update(n_chunks=99), "corrupt manifest"),
        (lambda m: m.pop("tables"), "corrupt manifest"),
    ],
)
def test_a_folder_from_another_version_is_refused(tmp_path, capsys, change, expect):
    d = tmp_path / "s"
    interrupted(d)
    m = json.loads((d / "manifest.json").read_text())
    change(m)
    (d / "manifest.json").write_text(json.dumps(m))
    one_line_error(capsys, ["simulate", "--resume", d], expect)
    with pytest.raises(CheckpointError, match=expect.split("=")[0]):
        domeng.resume(d)


def test_folders_that_cannot_be_resumed(tmp_path, capsys, whole):
    one_line_error(capsys, ["simulate", "--resume", tmp_path / "missing"], "no study folder")
    saved = tmp_path / "saved"
    whole.save(saved)  # results without a manifest
    one_line_error(capsys, ["simulate", "--resume", saved], "no manifest.json")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "manifest.json").write_text("{not json")
    one_line_error(capsys, ["simulate", "--resume", bad], "corrupt manifest")
    d = tmp_path / "s"
    interrupted(d)
    one_line_error(
        capsys,
        ["simulate", "--resume", d, "--out", tmp_path / "elsewhere"],
        "do not give another --out",
    )
    with pytest.raises(CheckpointError, match="unfinished study"):
        simulate(checkpoint=d, progress=False, **STUDY)
    with pytest.raises(TypeError):
        Checkpoint.open(d).check(colour="red")


def test_out_replaces_a_finished_study_and_leaves_nothing_beside_it(tmp_path, capsys):
    d = tmp_path / "study"
    assert (
        cli(capsys, "simulate", "-t", "3", "-r", "4", "--seed", "1", "--out", d, "--no-progress")[0]
        == 0
    )
    assert (
        cli(
            capsys,
            "simulate",
            "-t",
            "5",
            "-r",
            "2",
            "--seed",
            "2",
            "--out",
            d,
            "--no-progress",
            "--chunk-tables",
            "2",
            "--force",  # without it the finished study is refused (issue 23)
        )[0]
        == 0
    )
    res = Results.load(d)
    assert (res.tables, res.rounds, res.seed) == (5, 2, 2)
    assert len(chunk_files(d)) == 0  # the old study's chunk is gone (and the new ones pruned)
    assert json.loads((d / "manifest.json").read_text())["n_chunks"] == 3
    assert [p.name for p in tmp_path.iterdir()] == ["study"]


def test_a_failed_run_over_a_finished_study_keeps_the_old_results(tmp_path, monkeypatch):
    """--out on a finished study: the old results stay (as DIR.previous) until
    the new study has finished, so a failure or an interrupt loses nothing."""
    from domeng.study import chunks as chunks_mod

    d = tmp_path / "study"
    old = simulate(checkpoint=d, progress=False, **STUDY)
    real = chunks_mod.run_tables
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) > 1:
            raise KeyboardInterrupt  # as if the user pressed Ctrl-C mid-study
        return real(*args, **kwargs)

    monkeypatch.setattr(chunks_mod, "run_tables", failing)
    with pytest.raises(KeyboardInterrupt):
        simulate(
            checkpoint=d, progress=False, chunk_tables=2, overwrite=True, **{**STUDY, "seed": 9}
        )
    kept = tmp_path / "study.previous"
    assert Results.load(kept).equals(old)
    # the new study can be resumed; once it has finished the old results go
    monkeypatch.setattr(chunks_mod, "run_tables", real)
    new = domeng.resume(d, progress=False)
    assert new.seed == 9 and not kept.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["study"]
