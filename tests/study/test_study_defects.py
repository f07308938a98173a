"""The defects listed in issue 12, each with a test."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

import domeng
from domeng.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def test_save_into_a_study_folder_keeps_every_other_file(tmp_path):
    out = tmp_path / "study"
    assert (
        main(
            [
                "simulate",
                "-t",
                "6",
                "-r",
                "5",
                "--out",
                str(out),
                "--records",
                "--no-progress",
                "--json",
            ]
        )
        == 0
    )
    before = {p.relative_to(out) for p in out.rglob("*")}
    res = domeng.Results.load(out)
    res.save(out, overwrite=True)
    after = {p.relative_to(out) for p in out.rglob("*")}
    assert before <= after
    assert domeng.Results.load(out).equals(res)
    # the docs' order: load, save, then read the records and the report again
    assert pq.ParquetFile(out / "records.parquet").metadata.num_rows == 30
    assert (out / "report.html").is_file() and (out / "manifest.json").is_file()


def test_records_metadata_is_json_and_finished_chunks_are_pruned(tmp_path, capsys):
    out = tmp_path / "study"
    assert (
        main(
            [
                "simulate",
                "-t",
                "8",
                "-r",
                "5",
                "--out",
                str(out),
                "--records",
                "--chunk-tables",
                "2",
                "--no-progress",
                "--json",
            ]
        )
        == 0
    )
    md = pq.ParquetFile(out / "records.parquet").schema_arrow.metadata
    meta = {k.decode(): json.loads(v) for k, v in md.items() if k.startswith(b"domeng.")}
    assert meta["domeng.rules"] == domeng.Rules().to_dict()
    assert meta["domeng.players"] == list(domeng.Results.load(out).players)
    assert not list((out / "chunks").glob("chunk-*.npz"))
    first = capsys.readouterr().out
    # --resume and report still work on the pruned folder, with the same numbers
    assert main(["simulate", "--resume", str(out), "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(first)
    assert main(["report", str(out)]) == 0


def test_closed_pipe_exits_0_quietly():
    p = subprocess.Popen(
        [sys.executable, "-m", "domeng", "rules"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    p.stdout.close()  # like `| head` that has already gone
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0
    assert err == b""


def test_help_shows_95_percent_once(capsys):
    for cmd in ("simulate", "compare", "sweep"):
        assert main([cmd, "--help"]) == 0
        text = capsys.readouterr().out
        assert "95%" in text and "95%%" not in text, cmd


def test_rules_reference_points_to_docs_rules_md(capsys):
    assert main(["rules"]) == 0
    assert "docs/rules.md" in capsys.readouterr().out
    hits = [str(p) for p in (ROOT / "domeng").rglob("*.py") if "RULES.md" in p.read_text()]
    assert hits == []
    assert (ROOT / "docs" / "rules.md").is_file()


def test_one_default_lineup_for_api_and_cli():
    from domeng.study.simulate import DEFAULT_PLAYERS, simulate

    assert inspect.signature(simulate).parameters["players"].default == DEFAULT_PLAYERS
    res = domeng.simulate(tables=2, rounds=2, progress=False)
    assert tuple(res.players) == DEFAULT_PLAYERS


def test_typed_package_public_dir_and_notebook_html():
    assert (ROOT / "domeng" / "py.typed").is_file()
    names = dir(domeng)
    for name in ("simulate", "compare", "sweep", "simulate_until", "resume", "Results", "Rules"):
        assert name in names
        getattr(domeng, name)
    html = domeng.simulate(tables=3, rounds=3, progress=False)._repr_html_()
    assert html.startswith("<table") and "PASSEBUNGE" in html


def test_every_records_column_is_documented():
    from domeng.core.layout import REC_COLUMNS

    doc = (ROOT / "docs" / "study.md").read_text()
    missing = [c for c in REC_COLUMNS if f"`{c}`" not in doc]
    assert missing == []


def test_docs_study_python_example_runs_in_order(tmp_path, monkeypatch):
    """docs/study.md's API example, run as written (smaller), ends with every file there."""
    import re

    block = re.findall(
        r"```python\n(.*?)```", (ROOT / "docs" / "study.md").read_text(), flags=re.S
    )[0]
    block = block.replace("tables=2000", "tables=20").replace("rounds=500", "rounds=10")
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "docs/study.md", "exec"), {})
    folder = tmp_path / "results" / "my-study"
    for name in ("manifest.json", "results.npz", "summary.json", "report.html", "tables", "plots"):
        assert (folder / name).exists(), name
    assert list((folder / "plots").glob("*.svg"))


def test_tournament_shows_the_neighbour_caveat_and_ranks_its_bars(tmp_path, capsys):
    from domeng.study.tournament import NEIGHBOUR_CAVEAT, NEIGHBOUR_NOTE, tournament

    rot = tournament(
        "hunter,keeper,heavy,random,random", deals=2, rounds=2, progress=False, orders="rotations"
    )
    assert "same neighbours" in rot.to_text() and rot.summary()["caveat"] == NEIGHBOUR_CAVEAT
    assert "same neighbours" in rot.html()
    res = tournament(
        "hunter,keeper,heavy,random,random", deals=2, rounds=2, progress=False, orders="balanced"
    )
    assert "Neighbours:" in res.to_text() and res.summary()["caveat"] == NEIGHBOUR_NOTE
    html = res.html()
    assert "Neighbours:" in html
    ranked = list(res.ranking()["player"])
    # the ranking table lists players in rank order, 1..5
    pos = [html.index(f"<td class='l'>{p}</td>") for p in ranked]
    assert pos == sorted(pos)
    assert (
        main(
            [
                "tournament",
                "--players",
                "hunter,keeper,heavy,random,random",
                "--deals",
                "2",
                "--rounds",
                "2",
                "--no-progress",
                "--orders",
                "rotations",
            ]
        )
        == 0
    )
    assert "same neighbours" in capsys.readouterr().out
