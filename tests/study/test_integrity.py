"""Nothing mixed, nothing stale (issue 23, item 7; probes 7 to 10).

Every reader of a study folder checks its parts against the folder's
manifest and refuses a mismatch in one line naming the file; writers take
the folder's lock; ``--resume`` of a finished folder verifies and rewrites
its outputs; an interrupted prune is finished by the next run; damaged
chunks are one line each, summarised; a full disk names the path."""

from __future__ import annotations

import errno
import json
import shutil
import threading
import warnings
from pathlib import Path

import pytest

import domeng
from domeng.cli.main import main
from domeng.core.errors import DomengError
from domeng.results.compare_report import load_comparison, load_sweep
from domeng.results.results import Results
from domeng.study import checkpoint as C

STUDY = dict(tables=6, rounds=5, seed=3, progress=False)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("domeng: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def compare_folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("cmp") / "c"
    domeng.compare(["pollo=4", "passebunge_every_pass=false"], out=d, **STUDY)
    return d


@pytest.fixture(scope="module")
def sweep_folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("sw") / "s"
    domeng.sweep(["pollo=3,4"], out=d, **STUDY)
    return d


def copy_of(folder: Path, tmp_path: Path) -> Path:
    d = tmp_path / folder.name
    shutil.copytree(folder, d)
    return d


# ---------------------------------------------------------------- probe 7
@pytest.mark.parametrize("which", ["compare_folder", "sweep_folder"])
def test_report_refuses_swapped_arm_names(request, tmp_path, capsys, which):
    d = copy_of(request.getfixturevalue(which), tmp_path)
    assert run(capsys, "report", d)[0] == 0  # the folder as written renders
    names_file = d / "arms" / "arms.json"
    names = json.loads(names_file.read_text())
    listed = names if isinstance(names, list) else [a["name"] for a in names["arms"]]
    listed[0], listed[1] = listed[1], listed[0]
    if isinstance(names, list):
        names = listed
    else:
        for a, n in zip(names["arms"], listed):
            a["name"] = n
    names_file.write_text(json.dumps(names))
    before = (d / "report.html").read_bytes()
    code, out, err = run(capsys, "report", d)
    assert code == 2 and out == ""
    assert "arms.json" in one_line_error(err)
    assert (d / "report.html").read_bytes() == before  # nothing rewritten
    with pytest.raises(DomengError, match=r"arms\.json"):
        (load_comparison if which == "compare_folder" else load_sweep)(d)


@pytest.mark.parametrize("which", ["compare_folder", "sweep_folder"])
def test_report_refuses_one_arms_results_copied_over_another(request, tmp_path, capsys, which):
    d = copy_of(request.getfixturevalue(which), tmp_path)
    shutil.copyfile(d / "arms" / "0" / "results.npz", d / "arms" / "1" / "results.npz")
    code, out, err = run(capsys, "report", d)
    assert code == 2 and out == ""
    line = one_line_error(err)
    assert str(Path("arms") / "1" / "results.npz") in line
    # --resume refuses it too (it always did)
    kind = "compare" if which == "compare_folder" else "sweep"
    code, _, err = run(capsys, kind, "--resume", d, "--no-progress")
    assert code != 0 and "Traceback" not in err


def test_report_refuses_a_results_file_of_another_arm_with_the_same_rules(tmp_path, capsys):
    """The digest written beside the arms catches what the rules cannot: a
    results.npz of the same arm from another run (here: another seed)."""
    a, b = tmp_path / "a", tmp_path / "b"
    domeng.compare(["pollo=4"], out=a, **STUDY)
    domeng.compare(["pollo=4"], out=b, **{**STUDY, "seed": 4})
    shutil.copyfile(b / "arms" / "1" / "results.npz", a / "arms" / "1" / "results.npz")
    code, _, err = run(capsys, "report", a)
    assert code == 2 and "results.npz" in one_line_error(err)


def test_report_of_a_study_folder_refuses_results_of_another_study(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    assert run(capsys, "simulate", "-t", 4, "-r", 3, "--no-progress", "--out", a)[0] == 0
    assert run(capsys, "simulate", "-t", 4, "-r", 3, "-s", 9, "--no-progress", "--out", b)[0] == 0
    shutil.copyfile(b / "results.npz", a / "results.npz")
    code, _, err = run(capsys, "report", a)
    assert code == 2 and "results.npz" in one_line_error(err) and "manifest.json" in err
    code, _, err = run(capsys, "simulate", "--resume", a, "--no-progress")
    assert code == 2 and "results.npz" in one_line_error(err)


def test_resume_refuses_the_records_of_another_study(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    for d, seed in ((a, 3), (b, 4)):
        argv = ["simulate", "-t", 3, "-r", 3, "-s", seed, "--records", "--no-progress"]
        assert run(capsys, *argv, "--out", d)[0] == 0
    assert run(capsys, "simulate", "--resume", a, "--no-progress")[0] == 0
    shutil.copyfile(b / "records.parquet", a / "records.parquet")
    code, _, err = run(capsys, "simulate", "--resume", a, "--no-progress")
    assert code == 2 and "records.parquet" in one_line_error(err)


# ---------------------------------------------------------------- probe 8
class Paused:
    """Makes one thread's ``Results.save`` stop in the middle of writing its
    tables (after the first table file) until released: deterministic, no sleeps."""

    def __init__(self, monkeypatch, owner: threading.Thread | None = None) -> None:
        import domeng.results.results as R

        self.inside = threading.Event()
        self.go_on = threading.Event()
        real = R.atomic_write
        self.owner = owner

        def atomic_write(path, data, *a, **k):
            out = real(path, data, *a, **k)
            if threading.current_thread() is self.owner and not self.inside.is_set():
                self.inside.set()
                assert self.go_on.wait(60)
            return out

        monkeypatch.setattr(R, "atomic_write", atomic_write)


def tables_of(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted((folder / "tables").glob("*.csv"))}


@pytest.mark.parametrize("existing", [False, True])
def test_two_concurrent_saves_never_mix_and_the_second_is_one_line(tmp_path, monkeypatch, existing):
    ra = domeng.simulate(tables=3, rounds=4, seed=1, progress=False)
    rb = domeng.simulate(tables=3, rounds=4, seed=2, progress=False)
    d = tmp_path / "x"
    if existing:
        domeng.simulate(tables=3, rounds=4, seed=5, progress=False).save(d)
    fresh = tmp_path / "ref"
    ra.save(fresh / "a")
    rb.save(fresh / "b")
    errors: dict[str, BaseException] = {}

    def save_a():
        try:
            ra.save(d, overwrite=existing)
        except BaseException as e:  # recorded for the test
            errors["a"] = e

    ta = threading.Thread(target=save_a)
    pause = Paused(monkeypatch, ta)
    ta.start()
    assert pause.inside.wait(60)  # a is in the middle of its tables
    try:
        rb.save(d, overwrite=existing)
    except DomengError as e:
        errors["b"] = e
    finally:
        pause.go_on.set()
        ta.join(60)
    assert not ta.is_alive()
    # exactly one save won; the other was refused in one line (never a stray OSError)
    assert len(errors) == 1, errors
    ((loser, e),) = errors.items()
    assert isinstance(e, DomengError) and "\n" not in str(e)
    assert "No such file" not in str(e)
    winner = fresh / ("b" if loser == "a" else "a")
    assert tables_of(d) == tables_of(winner)
    assert Results.load(d).equals(Results.load(winner))
    assert not [p for p in d.rglob("*.partial")]


def test_save_refuses_a_folder_a_study_is_writing(tmp_path):
    from domeng.infra.fs import FolderLock

    res = domeng.simulate(tables=2, rounds=2, seed=1, progress=False)
    d = tmp_path / "busy"
    res.save(d)
    with FolderLock(d):
        with pytest.raises(DomengError, match="being written"):
            res.save(d, overwrite=True)


# ---------------------------------------------------------------- probe 9
def test_resume_of_a_finished_folder_rewrites_damaged_outputs(tmp_path, capsys):
    d = tmp_path / "s"
    assert run(capsys, "simulate", "-t", 4, "-r", 3, "--no-progress", "--out", d)[0] == 0
    good_summary = (d / "summary.json").read_text()
    good_table = (d / "tables" / "win_by_seat.csv").read_text()
    (d / "summary.json").write_text("{ damaged")
    (d / "tables" / "win_by_seat.csv").unlink()
    (d / "tables" / "end_kinds.parquet").write_bytes(b"junk")
    code, _, err = run(capsys, "simulate", "--resume", d, "--no-progress")
    assert code == 0, err
    assert (d / "summary.json").read_text() == good_summary
    assert (d / "tables" / "win_by_seat.csv").read_text() == good_table
    import pandas as pd

    pd.read_parquet(d / "tables" / "end_kinds.parquet")
    # the Python API does the same
    (d / "summary.json").write_text("")
    domeng.resume(d, progress=False)
    assert (d / "summary.json").read_text() == good_summary


def test_resume_of_a_finished_compare_folder_rewrites_its_outputs(tmp_path, capsys):
    d = tmp_path / "c"
    domeng.compare(["pollo=4"], out=d, **STUDY)
    good = (d / "tables" / "differences.csv").read_text()
    (d / "tables" / "differences.csv").unlink()
    (d / "arms" / "1" / "summary.json").write_text("x")
    code, _, err = run(capsys, "compare", "--resume", d, "--no-progress")
    assert code == 0, err
    assert (d / "tables" / "differences.csv").read_text() == good
    assert json.loads((d / "arms" / "1" / "summary.json").read_text())["tables"] == 6


# ---------------------------------------------------------------- probe 10
class Killed(BaseException):
    """Stands for a kill -9 just after ``chunks/pruned`` was written."""


def test_an_interrupted_prune_is_finished_on_the_next_run(tmp_path, monkeypatch, capsys):
    d = tmp_path / "s"
    domeng.simulate(tables=6, rounds=3, seed=1, chunk_tables=1, checkpoint=d, progress=False)
    real = C.Checkpoint.mark_pruned

    def killed_after_marker(self):
        real(self)
        raise Killed

    monkeypatch.setattr(C.Checkpoint, "mark_pruned", killed_after_marker)
    with pytest.raises(Killed):  # replacing the study: DIR.previous and the marker exist
        domeng.simulate(
            tables=6, rounds=3, seed=1, chunk_tables=1, checkpoint=d, progress=False, overwrite=True
        )
    monkeypatch.undo()
    assert (d / "chunks" / "pruned").is_file()
    assert len(list((d / "chunks").glob("chunk-*.npz"))) == 6
    assert (d / "previous-results.txt").is_file() and (tmp_path / "s.previous").is_dir()
    ref = Results.load(d)
    res = domeng.resume(d, progress=False)
    assert res.equals(ref)
    assert not list((d / "chunks").glob("chunk-*.npz"))
    assert not (d / "previous-results.txt").exists()
    assert not (tmp_path / "s.previous").exists()


def test_an_interrupted_prune_is_finished_by_report_too(tmp_path, monkeypatch, capsys):
    d = tmp_path / "s"
    real = C.Checkpoint.mark_pruned

    def killed_after_marker(self):
        real(self)
        raise Killed

    monkeypatch.setattr(C.Checkpoint, "mark_pruned", killed_after_marker)
    with pytest.raises(Killed):
        domeng.simulate(tables=4, rounds=3, seed=1, chunk_tables=1, checkpoint=d, progress=False)
    monkeypatch.undo()
    assert len(list((d / "chunks").glob("chunk-*.npz"))) == 4
    assert run(capsys, "report", d)[0] == 0
    assert not list((d / "chunks").glob("chunk-*.npz"))


def test_damaged_chunks_are_one_line_each_and_summarised(tmp_path, capsys):
    d = tmp_path / "s"

    class Stop(Exception):
        pass

    def stop_after(done, total):
        if done >= 5:
            raise Stop

    with pytest.raises(Stop):
        domeng.simulate(
            tables=6, rounds=3, seed=1, chunk_tables=1, checkpoint=d, progress=stop_after
        )
    files = sorted((d / "chunks").glob("chunk-*.npz"))
    assert len(files) == 5
    for p in files[1:4]:
        p.write_bytes(b"not a zip")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        domeng.resume(d, progress=False)
    texts = [str(w.message) for w in caught if "damaged" in str(w.message)]
    assert len(texts) == 1 and "\n" not in texts[0]  # one warning, summarised
    assert texts[0].startswith(
        "3 damaged chunks replayed: chunk-0000001, chunk-0000002, chunk-0000003"
    )
    # the command: one line per damaged chunk and the summary, no file:line of Python
    with pytest.raises(Stop):
        domeng.simulate(
            tables=6,
            rounds=3,
            seed=1,
            chunk_tables=1,
            checkpoint=d,
            progress=stop_after,
            overwrite=True,
        )
    for p in sorted((d / "chunks").glob("chunk-*.npz"))[1:4]:
        p.write_bytes(b"not a zip")
    code, _, err = run(capsys, "simulate", "--resume", d, "--no-progress")
    assert code == 0, err
    lines = [x for x in err.splitlines() if "damaged" in x or "chunk-" in x]
    assert ".py:" not in err and "RuntimeWarning" not in err
    assert len([x for x in lines if x.startswith("domeng: warning: damaged chunk ")]) == 3, err
    assert any(x.startswith("domeng: warning: 3 damaged chunks replayed: ") for x in lines), err


def test_a_full_disk_names_the_path(tmp_path, monkeypatch, capsys):
    def full(f, **arrays):  # the disk fills while a chunk file is written
        f.write(b"PK")
        raise OSError(errno.ENOSPC, "No space left on device")

    d = tmp_path / "s"
    monkeypatch.setattr(C.np, "savez", full)
    code, _, err = run(capsys, "simulate", "-t", 2, "-r", 2, "--no-progress", "--out", d)
    monkeypatch.undo()
    assert code == 1
    line = one_line_error(err)
    assert "No space left on device" in line and str(d / "chunks" / "chunk-0000000.npz") in line
    assert not list((d / "chunks").glob("*.partial"))
