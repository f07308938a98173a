"""Issue 9 point 4, infrastructure once: importing domeng has no side
effects, the version lives in one place, every exception derives from
DomengError in one module, one progress bar, and the folder policy."""

from __future__ import annotations

import ast
import io
import subprocess
import sys
from pathlib import Path

import pytest

import domeng
from domeng.core import errors as E
from domeng.infra import fs
from domeng.infra.progress import Clocks, Progress

ROOT = Path(__file__).resolve().parents[2]


def test_importing_domeng_has_no_side_effects():
    code = (
        "import sys, warnings; before = list(warnings.filters); import domeng, "
        "domeng.results.report, domeng.study.simulate; "
        "print(sys.modules.get('domeng.core.numba_cache') is None or "
        "not sys.modules['domeng.core.numba_cache']._PREPARED, "
        "'matplotlib.pyplot' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout.split()
    assert out[0] == "True", "the numba cache was checked (files deleted) at import"
    assert out[1] == "False", "pyplot imported at import"
    code = (
        "import warnings; f = list(warnings.filters); import domeng; print(f == warnings.filters)"
    )
    assert (
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
        ).stdout.strip()
        == "True"
    )


def test_the_version_is_in_one_place():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text and 'attr = "domeng.__version__"' in text
    assert "\nversion =" not in text.split("[tool.setuptools.dynamic]")[0]
    from domeng.results.meta import package_version
    from domeng.study.cluster import fingerprint

    assert package_version() == fingerprint()[0] == domeng.__version__


def test_every_exception_class_lives_in_core_errors():
    found = []
    for p in (ROOT / "domeng").rglob("*.py"):
        if p.match("domeng/core/errors.py"):
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if (
                isinstance(node, ast.ClassDef)
                and node.name != "Quit"
                and any(
                    getattr(b, "id", getattr(b, "attr", "")).endswith(
                        ("Error", "Exception", "Failure")
                    )
                    for b in node.bases
                )
            ):
                found.append(f"{p.relative_to(ROOT)}:{node.name}")
    assert found == []
    for name in E.__all__:
        obj = getattr(E, name)
        if isinstance(obj, type):
            assert issubclass(obj, E.DomengError), name


def test_environment_failures_and_mistakes_are_told_apart():
    assert E.is_environment_failure(E.ResultsWriteError("disk full"))
    assert E.is_environment_failure(E.FolderBusyError("busy"))
    assert E.is_environment_failure(E.ClusterFailure("lost"))
    assert not E.is_environment_failure(E.ResultsError("corrupt"))
    assert not E.is_environment_failure(E.UnsafePathError("outside"))
    assert isinstance(E.ResultsWriteError("x"), OSError)  # old `except OSError` still works


def test_the_progress_bar_draws_itself():
    """Its layout (percent, a 24-character bar, counts, rate), one line ended
    once, and no import of tqdm (its import cost a study's start-up: issue 11)."""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    buf = Terminal()
    bar = Progress(4, per_item=10, stream=buf, clocks=Clocks(lambda: 0.0, lambda: 0.0))
    bar(2, 4)  # not drawn: at most 5 drawings a second
    bar(4, 4)
    bar(4, 4)  # after the end: nothing more
    first, last = buf.getvalue().split("\r")
    assert first == "  0.0% |" + " " * 24 + "| 0/4 tables"
    assert last.startswith("100.0% |" + "#" * 24 + "| 4/4 tables, ") and last.endswith("\n")
    assert "rounds/s  elapsed 00:00" in last and buf.getvalue().count("\n") == 1
    log = io.StringIO()  # not a terminal: whole lines, no carriage return
    bar = Progress(4, per_item=10, stream=log, clocks=Clocks(lambda: 0.0, lambda: 0.0))
    bar(2, 4)
    bar(4, 4)
    assert "\r" not in log.getvalue() and log.getvalue().count("\n") == 1
    assert log.getvalue().startswith("100.0% |")
    code = (
        "import io, sys\nfrom domeng.infra.progress import Progress\n"
        "b = Progress(3, stream=io.StringIO()); b(1, 3); b(3, 3)\n"
        "print('tqdm' in sys.modules)"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == "False", p.stderr


def test_inspect_output_policy(tmp_path):
    assert fs.inspect_output(tmp_path / "none", "results.npz") == "absent"
    (tmp_path / "empty").mkdir()
    assert fs.inspect_output(tmp_path / "empty", "results.npz") == "empty"
    (tmp_path / "done").mkdir()
    (tmp_path / "done" / "results.npz").write_bytes(b"")
    assert fs.inspect_output(tmp_path / "done", "results.npz") == "finished"
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "thesis.tex").write_text("x")
    with pytest.raises(
        E.OutputFolderError, match=r"not empty and holds no .*'thesis\.tex'.*choose another folder"
    ):
        fs.inspect_output(tmp_path / "other", "results.npz")
    (tmp_path / "file").write_text("x")
    with pytest.raises(E.OutputFolderError, match="file"):
        fs.inspect_output(tmp_path / "file", "results.npz")


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "f.txt"
    target.write_text("old")

    def boom(f):
        f.write(b"half")
        raise RuntimeError("crash")

    with pytest.raises(RuntimeError):
        fs.atomic_write(target, boom)
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


def test_folder_lock_refuses_a_second_holder(tmp_path):
    with fs.FolderLock(tmp_path):
        with pytest.raises(E.FolderBusyError):
            fs.FolderLock(tmp_path).acquire()
    with fs.FolderLock(tmp_path):
        pass


def test_an_open_ended_bar_counts_one_table_in_the_singular():
    out = io.StringIO()
    bar = Progress(None, unit="table", stream=out)
    bar(1, 10)
    bar.close()
    text = out.getvalue()
    assert "1 table" in text and "1 tables" not in text
    out = io.StringIO()
    bar = Progress(None, unit="table", stream=out)
    bar(2, 10)
    bar.close()
    assert "2 tables" in out.getvalue()


def test_the_replaced_results_are_deleted_for_a_relative_nested_folder(tmp_path, monkeypatch):
    """``--force`` onto ``results/x`` (relative, nested: ``make run``) leaves no
    ``results/x.previous`` once the new run has finished."""
    from domeng.infra import fs

    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "results" / "x"
    folder.mkdir(parents=True)
    (tmp_path / "results" / "x.previous").mkdir()
    (folder / fs.PREVIOUS).write_text("x.previous\n")
    fs.drop_previous("results/x")
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == ["x"]
    assert not (folder / fs.PREVIOUS).exists()
