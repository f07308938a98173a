"""Output folders of compare and sweep under the one folder policy, studies
that stop on the data checkpointed and resumed, and `domeng report` of
compare and sweep folders (issue 12)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from domeng.cli.main import main
from domeng.results.results import Results

CMP = ["compare", "-t", "30", "-r", "8", "--variant", "pollo=4", "--no-progress"]
SWEEP = ["sweep", "-t", "30", "-r", "8", "--vary", "pollo=3,4", "--no-progress"]
#: a study that stops on the data after several chunks (60 tables each)
SEQ = [
    "--target-ci",
    "passebunge_per_round=0.02",
    "-r",
    "20",
    "--max-rounds",
    "40000",
    "-s",
    "3",
    "--no-progress",
]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, argv, message: str) -> str:
    code, _out, err = run(capsys, *argv)
    assert code == 2, err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def snapshot(root: Path) -> dict:
    """Every path under ``root`` with its bytes (links: their target)."""
    out = {}
    for p in sorted(root.rglob("*")):
        key = str(p.relative_to(root))
        if p.is_symlink():
            out[key] = ("link", str(p.readlink()))
        elif p.is_file():
            out[key] = p.read_bytes()
        else:
            out[key] = "dir"
    return out


def no_temporaries(root: Path) -> bool:
    return not [p for p in root.rglob("*") if p.name.endswith(".partial")]


@pytest.fixture
def interrupt(monkeypatch):
    """``interrupt(n)``: the engine raises KeyboardInterrupt (a kill between
    chunks) when asked for chunk n+1; returns the list of chunks played.
    ``interrupt(None)`` counts the chunks played without stopping."""
    import domeng.study.chunks as C
    import domeng.study.sequential as S

    real = C.chunk_task

    def arm(n):
        calls: list = []

        def task(plan, index, threads=None, **kw):
            if n is not None and len(calls) >= n:
                raise KeyboardInterrupt
            calls.append(index)
            return real(plan, index, threads, **kw)

        monkeypatch.setattr(C, "chunk_task", task)
        monkeypatch.setattr(S, "chunk_task", task)
        return calls

    return arm


def study_json(folder: Path, name: str) -> dict:
    obj = json.loads((folder / name).read_text())
    obj.pop("command", None)  # the command line names the folder
    return obj


# ---------------------------------------------------------------- the folder policy
@pytest.mark.parametrize("argv", [CMP, SWEEP], ids=["compare", "sweep"])
def test_a_folder_holding_a_study_or_other_files_is_refused_untouched(tmp_path, capsys, argv):
    study = tmp_path / "study"
    assert run(capsys, "simulate", "-t", "4", "-r", "3", "--no-progress", "--out", study)[0] == 0
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    for folder in (study, mine):
        before = snapshot(folder)
        refused(capsys, [*argv, "--out", folder], "refusing")
        assert snapshot(folder) == before
    # and a study folder is not taken for a comparison by `domeng report` either
    assert Results.load(study).tables == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "study"]


@pytest.mark.parametrize(
    "argv, marker", [(CMP, "compare.json"), (SWEEP, "sweep.json")], ids=["compare", "sweep"]
)
def test_killed_run_over_its_previous_output_loses_nothing_then_resumes(
    tmp_path, capsys, interrupt, argv, marker
):
    ref, d = tmp_path / "ref", tmp_path / "out"
    assert run(capsys, *argv, "-s", "2", "--out", ref)[0] == 0
    assert run(capsys, *argv, "-s", "1", "--out", d)[0] == 0
    first = snapshot(d)
    interrupt(1)  # the second arm's chunk is never played
    refused(capsys, [*argv, "-s", "2", "--out", d], "--force")  # nothing overwritten (issue 23)
    code, _, err = run(capsys, *argv, "-s", "2", "--out", d, "--force")
    assert code == 130, err
    interrupt(None)
    # the previous output is intact beside it; the new folder is unfinished, not half-written
    previous = tmp_path / "out.previous"
    assert snapshot(previous) == first
    assert not (d / marker).exists() and not (d / "report.html").exists()
    assert (d / "previous-results.txt").read_text().strip() == "out.previous"
    assert Results.load(d / "arms" / "0").seed == 2 and no_temporaries(tmp_path)
    # a new run there is refused (one line), the resume finishes it and drops the previous
    kind = argv[0]
    refused(capsys, [*argv, "-s", "2", "--out", d], f"domeng {kind} --resume")
    code, _, err = run(capsys, kind, "--resume", d, "--no-progress")
    assert code == 0, err
    assert not previous.exists() and not (d / "previous-results.txt").exists()
    assert study_json(d, marker) == study_json(ref, marker)
    assert (d / "tables").is_dir() and (d / "report.html").is_file() and no_temporaries(tmp_path)
    # run again into its own finished output: refused, then replaced with --force
    refused(capsys, [*argv, "-s", "1", "--out", d], f"domeng {kind} --resume")
    assert run(capsys, *argv, "-s", "1", "--out", d, "--force")[0] == 0
    assert json.loads((d / marker).read_text())["seed"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "ref"]


def test_resume_refuses_other_parameters_and_arms(tmp_path, capsys, interrupt):
    d = tmp_path / "out"
    interrupt(1)
    assert run(capsys, *CMP, "--out", d)[0] == 130
    interrupt(None)
    before = snapshot(d)
    refused(capsys, ["compare", "--resume", d, "-t", "31"], "tables=31")
    refused(capsys, ["compare", "--resume", d, "--variant", "pollo=3"], "--variant")
    refused(capsys, ["sweep", "--resume", d], "no sweep study")
    refused(capsys, ["compare", "--resume", tmp_path / "nothing"], "no compare study")
    assert snapshot(d) == before


def test_symlinked_subfolders_are_refused(tmp_path, capsys, interrupt):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    before = snapshot(outside)
    d = tmp_path / "cmp"
    assert run(capsys, *CMP, "--out", d)[0] == 0
    import shutil

    shutil.rmtree(d / "plots")
    (d / "plots").symlink_to(outside)
    refused(capsys, ["report", d], "symbolic link")
    # an unfinished comparison whose arm folder was replaced by a link
    u = tmp_path / "unfinished"
    interrupt(1)
    assert run(capsys, *CMP, "--out", u)[0] == 130
    interrupt(None)
    shutil.rmtree(u / "arms" / "0")
    (u / "arms" / "0").symlink_to(outside)
    refused(capsys, ["compare", "--resume", u, "--no-progress"], "symbolic link")
    (u / "arms" / "0").unlink()
    shutil.rmtree(u / "arms")
    (u / "arms").symlink_to(outside)
    refused(capsys, ["compare", "--resume", u, "--no-progress"], "symbolic link")
    assert snapshot(outside) == before


# ---------------------------------------------------------------- stopping rules, resumed
def test_target_ci_study_interrupted_and_resumed_equals_an_uninterrupted_one(tmp_path, interrupt):
    from domeng.study.sequential import resume_until, simulate_until

    kw = dict(
        target_ci={"passebunge_per_round": 0.02},
        rounds=20,
        max_rounds=40_000,
        seed=3,
        progress=False,
    )
    whole = simulate_until(**kw)
    n_chunks = -(-whole.meta["stopping"]["blocks"] // 30)
    assert n_chunks > 4  # the kill below falls in the middle of the study
    d = tmp_path / "s"
    interrupt(3)
    with pytest.raises(KeyboardInterrupt):
        simulate_until(**kw, checkpoint=d)
    assert sorted(p.name for p in (d / "chunks").iterdir()) == [
        f"chunk-000000{i}.npz" for i in range(3)
    ]
    assert not (d / "results.npz").exists()
    played = interrupt(None)
    res = resume_until(d, progress=False)
    assert played == list(range(3, n_chunks))  # only the missing chunks were played
    for r in (res, Results.load(d)):
        assert np.array_equal(r.group_agg, whole.group_agg)
        assert np.array_equal(r.group_state, whole.group_state)
        assert np.array_equal(r.group_tables, whole.group_tables)
        assert r.meta["stopping"] == whole.meta["stopping"]
        assert r.summary() == whole.summary()
    # a finished folder resumes to the same results without playing anything
    assert (
        resume_until(d, progress=False).summary() == whole.summary()
        and played[-1] == n_chunks - 1
        and len(played) == n_chunks - 3
    )


def test_simulate_target_ci_out_then_resume_cli(tmp_path, capsys, interrupt):
    ref, d = tmp_path / "ref", tmp_path / "s"
    assert run(capsys, "simulate", *SEQ, "--out", ref)[0] == 0
    interrupt(4)
    assert run(capsys, "simulate", *SEQ, "--out", d)[0] == 130
    interrupt(None)
    refused(capsys, ["simulate", *SEQ, "--out", d], "--resume")
    refused(
        capsys,
        ["simulate", "--resume", d, "--target-ci", "passebunge_per_round=0.03"],
        "other --target-ci",
    )
    refused(capsys, ["simulate", "--resume", d, "--max-rounds", "50000"], "--max-rounds")
    import domeng

    with pytest.raises(domeng.DomengError, match="stops on the data"):
        domeng.resume(d)
    code, out, err = run(capsys, "simulate", "--resume", d, "--no-progress")
    assert code == 0, err
    assert "stopped: target reached" in out
    assert (d / "summary.json").read_text() == (ref / "summary.json").read_text()
    assert (d / "report.html").is_file() and (d / "chunks" / "pruned").is_file()
    assert run(capsys, "report", d)[0] == 0


def test_compare_target_ci_out_then_resume_cli(tmp_path, capsys, interrupt):
    argv = ["compare", "--variant", "passebunge_every_pass=false", *SEQ]
    ref, d = tmp_path / "ref", tmp_path / "c"
    assert run(capsys, *argv, "--out", ref)[0] == 0
    interrupt(5)  # two arms: in the middle of the third chunk
    assert run(capsys, *argv, "--out", d)[0] == 130
    interrupt(None)
    assert not (d / "compare.json").exists()
    code, out, err = run(capsys, "compare", "--resume", d, "--no-progress", "--json")
    assert code == 0, err
    assert json.loads(out)["stopping"] == study_json(ref, "compare.json")["stopping"]
    assert study_json(d, "compare.json") == study_json(ref, "compare.json")
    for k in ("0", "1"):
        assert (d / "arms" / k / "results.npz").read_bytes() != b""
        a, b = Results.load(d / "arms" / k), Results.load(ref / "arms" / k)
        assert np.array_equal(a.group_agg, b.group_agg) and a.summary() == b.summary()


def test_unreachable_target_with_out_writes_nothing(tmp_path, capsys):
    d = tmp_path / "c"
    refused(
        capsys,
        [
            "compare",
            "--variant",
            "passebunge_every_pass=false",
            "--target-ci",
            "passebunge_per_round=0.0000001",
            "-r",
            "10",
            "--max-rounds",
            "2000",
            "--no-progress",
            "--out",
            d,
        ],
        "out of reach",
    )
    assert not d.exists() and list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- domeng report
@pytest.mark.parametrize(
    "argv, marker", [(CMP, "compare.json"), (SWEEP, "sweep.json")], ids=["compare", "sweep"]
)
def test_report_renders_compare_and_sweep_folders_again(tmp_path, capsys, argv, marker):
    import shutil

    d = tmp_path / "out"
    assert run(capsys, *argv, "--out", d)[0] == 0
    obj = (d / marker).read_text()
    tables = {p.name: p.read_bytes() for p in (d / "tables").iterdir() if p.suffix == ".csv"}
    shutil.rmtree(d / "plots")
    shutil.rmtree(d / "tables")
    (d / "report.html").unlink()
    (d / "notes.txt").write_text("mine")
    code, out, err = run(capsys, "report", d, "--format", "svg", "--dpi", "60")
    assert code == 0, err
    assert (d / marker).read_text() == obj  # the same study, rendered again
    assert {
        p.name: p.read_bytes() for p in (d / "tables").iterdir() if p.suffix == ".csv"
    } == tables
    assert list((d / "plots").glob("*.svg")) and list((d / "plots").glob("*.png"))
    html = (d / "report.html").read_text()
    assert "<table" in html and "Glossary" in html
    assert (d / "notes.txt").read_text() == "mine"  # files it does not write are kept
    assert "report:" in out
    code, out, _ = run(capsys, "report", d, "--json")
    assert code == 0 and json.loads(out)["schema"] == json.loads(obj)["schema"]


def test_report_names_what_it_cannot_render_in_one_line(tmp_path, capsys, interrupt):
    interrupt(1)
    assert run(capsys, *CMP, "--out", tmp_path / "u")[0] == 130
    interrupt(None)
    refused(capsys, ["report", tmp_path / "u"], "domeng compare --resume")
    other = tmp_path / "other"
    other.mkdir()
    (other / "compare.json").write_text('{"schema": "something else"}')
    refused(capsys, ["report", other], "not a domeng results folder")
    assert [p.name for p in other.iterdir()] == ["compare.json"]


#: a real `domeng ...` whose Nth chunk write (argv[2]) signals "ready" (argv[1]) and
#: then waits to be killed, so the parent's kill -9 falls between two chunks
_KILLED_CHILD = """
import sys, time
from pathlib import Path
from domeng.study import checkpoint
from domeng.cli.main import main

real, written = checkpoint.Checkpoint.write_chunk, []

def write_chunk(self, r):
    real(self, r)
    written.append(r.index)
    if len(written) == int(sys.argv[2]):
        Path(sys.argv[1]).write_text("ready")
        time.sleep(600)

checkpoint.Checkpoint.write_chunk = write_chunk
sys.exit(main(sys.argv[3:]))
"""


@pytest.mark.slow
def test_kill_9_of_compare_target_ci_then_resume(tmp_path, capsys):
    import os
    import signal
    import subprocess
    import sys
    import time

    argv = ["compare", "--variant", "passebunge_every_pass=false", *SEQ]
    ref, d, ready = tmp_path / "ref", tmp_path / "c", tmp_path / "ready"
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _KILLED_CHILD,
            str(ready),
            "5",
            *argv,
            "--workers",
            "1",
            "--out",
            str(d),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None and not ready.exists():
            time.sleep(0.02)
        assert ready.exists(), "the comparison never wrote its fifth chunk"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:  # pragma: no cover
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    # killed between chunks: an unfinished comparison, every file in it complete
    assert not (d / "compare.json").exists() and (d / "compare-manifest.json").is_file()
    assert len(list((d / "arms").glob("*/chunks/chunk-*.npz"))) == 5
    refused(capsys, [*argv, "--out", d], "domeng compare --resume")
    code, _, err = run(capsys, "compare", "--resume", d, "--no-progress")
    assert code == 0, err
    assert run(capsys, *argv, "--out", ref)[0] == 0
    assert study_json(d, "compare.json") == study_json(ref, "compare.json")
    assert no_temporaries(d)


def test_python_api_saves_and_loads_the_same_folders(tmp_path, capsys):
    """domeng.compare/sweep(out=...) and save_comparison/save_sweep of a result
    in memory write the same kind of folder, read back by load_*; an arm folder
    that is a link is refused when the folder is read."""
    import domeng
    from domeng.results.compare_report import (
        load_comparison,
        load_sweep,
        save_comparison,
        save_sweep,
    )

    cmp = domeng.compare(["pollo=4"], tables=12, rounds=5, seed=4, progress=False)
    save_comparison(cmp, tmp_path / "c")
    assert load_comparison(tmp_path / "c").to_json() == cmp.to_json()
    direct = domeng.compare(
        ["pollo=4"], tables=12, rounds=5, seed=4, progress=False, out=tmp_path / "c2"
    )
    assert study_json(tmp_path / "c2", "compare.json") == study_json(tmp_path / "c", "compare.json")
    assert direct.to_json() == cmp.to_json()
    sw = domeng.sweep(["pollo=3,4"], tables=12, rounds=5, progress=False)
    save_sweep(sw, tmp_path / "s")
    assert load_sweep(tmp_path / "s").to_json() == sw.to_json()
    # a finished folder resumed is only written again
    assert run(capsys, "sweep", "--resume", tmp_path / "s", "--no-progress")[0] == 0
    import shutil

    shutil.move(tmp_path / "c" / "arms" / "1", tmp_path / "elsewhere")
    (tmp_path / "c" / "arms" / "1").symlink_to(tmp_path / "elsewhere")
    refused(capsys, ["report", tmp_path / "c"], "symbolic link")


@pytest.mark.parametrize(
    "edit",
    [
        {"max_rounds": "many"},
        {"rounds": -1},
        {"arms": "x"},
        {"target_ci": [1]},
        {"points": [{"pollo_award": 3}]},
        {"grid": {"pollo_award": 3}},
        {"format": "other"},
    ],
)
def test_a_crafted_manifest_is_refused_in_one_line(tmp_path, capsys, interrupt, edit):
    d = tmp_path / "sw"
    interrupt(1)
    assert run(capsys, *SWEEP, "--out", d)[0] == 130
    interrupt(None)
    path = d / "sweep-manifest.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **edit}))
    before = snapshot(d)
    refused(capsys, ["sweep", "--resume", d, "--no-progress"], "corrupt manifest")
    assert snapshot(d) == before
