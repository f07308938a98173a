"""Results: DataFrame columns, the summary JSON schema, save/load, atomic
writes, the report (PNG plots and one self-contained HTML page)."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from domeng.core.rules import Rules
from domeng.results import report
from domeng.results.results import FRAME_NAMES, Results, ResultsError, atomic_directory
from domeng.study.simulate import simulate

MIXED = "random,heavy,keeper,hunter,random"


@pytest.fixture(scope="module")
def res():
    return simulate(tables=12, rounds=15, players=MIXED, seed=7, rules="pollo=4", progress=False)


EXPECTED_COLUMNS = {
    "end_kinds": ["kind", "rounds", "share", "se", "ci_low", "ci_high"],
    "win_by_seat": ["seat", "player", "kind", "wins", "rate", "se", "ci_low", "ci_high"],
    "win_by_player": [
        "player",
        "seats",
        "n_seats",
        "kind",
        "wins",
        "rate",
        "se",
        "ci_low",
        "ci_high",
    ],
    "win_by_starter_offset": ["offset", "kind", "wins", "rate", "se", "ci_low", "ci_high"],
    "passes_by_seat": [
        "seat",
        "player",
        "event",
        "events",
        "per_round",
        "per_round_se",
        "per_round_ci_low",
        "per_round_ci_high",
        "rounds_with",
        "round_share",
        "round_share_se",
        "round_share_ci_low",
        "round_share_ci_high",
    ],
    "passes_by_player": [
        "player",
        "n_seats",
        "event",
        "events",
        "per_round",
        "per_round_se",
        "per_round_ci_low",
        "per_round_ci_high",
        "round_share",
        "round_share_se",
        "round_share_ci_low",
        "round_share_ci_high",
    ],
    "stone_flows": [
        "source",
        "source_seat",
        "source_player",
        "dest_seat",
        "dest_player",
        "reason",
        "stones",
        "per_round",
        "se",
        "ci_low",
        "ci_high",
    ],
    "unpaid": [
        "dest_seat",
        "dest_player",
        "reason",
        "stones",
        "per_round",
        "se",
        "ci_low",
        "ci_high",
    ],
    "camat_by_seat": ["seat", "player", "camats", "per_1000_rounds", "se", "ci_low", "ci_high"],
    "camat_by_player": [
        "player",
        "n_seats",
        "camats",
        "per_1000_rounds",
        "se",
        "ci_low",
        "ci_high",
    ],
    "camat_gaps": ["rounds_between", "camats", "share"],
    "round_length": ["measure", "value", "rounds", "share"],
    "final_state": [
        "holder",
        "seat",
        "player",
        "mean_stones",
        "mean_stones_se",
        "mean_stones_ci_low",
        "mean_stones_ci_high",
        "camat_share",
        "camat_share_se",
        "camat_share_ci_low",
        "camat_share_ci_high",
    ],
    "camats_per_table": ["camats", "tables", "share"],
    "estimates": [
        "metric",
        "seat",
        "player",
        "kind",
        "reason",
        "offset",
        "value",
        "se",
        "ci_low",
        "ci_high",
        "n",
        "unit",
        "name",
    ],
}


def test_frames_have_their_documented_columns(res):
    frames = res.frames()
    assert set(frames) == set(FRAME_NAMES) == set(EXPECTED_COLUMNS)
    for name, df in frames.items():
        assert list(df.columns) == EXPECTED_COLUMNS[name], name
        doc = getattr(Results, name).__doc__
        for col in df.columns:  # every column is named in the method's docstring
            assert f"``{col}``" in doc, (name, col)
        assert len(df) > 0


def test_frames_agree_with_the_aggregates(res):
    f = res.frames()
    assert f["end_kinds"].rounds.sum() == res.total_rounds == 180
    assert f["win_by_seat"].query("kind == 'ALL'").wins.sum() == 180
    assert f["stone_flows"].stones.sum() == res.totals("A_FLOW").sum()
    assert (
        f["stone_flows"].query("source_seat == dest_seat").stones.sum() == 0
    )  # nobody pays himself
    m = res.flow_matrix()
    assert m.shape == (6, 5)
    assert m.to_numpy().sum() == pytest.approx(res.totals("A_FLOW").sum() / 180)
    assert f["camat_gaps"].camats.sum() == res.totals("A_CAMAT").sum()
    rl = f["round_length"]
    assert rl[rl.measure == "tiles"].rounds.sum() == 180
    assert f["camats_per_table"].tables.sum() == 12
    assert f["final_state"].mean_stones.sum() == pytest.approx(Rules(pollo_award=4).stones)


def _estimates(node, path=""):
    """Every {"value", "se"} leaf of the summary."""
    if isinstance(node, dict):
        if "value" in node:
            yield path, node
        else:
            for k, v in node.items():
                yield from _estimates(v, f"{path}.{k}")


def test_summary_json_schema(res):
    s = json.loads(res.to_json())
    for key in (
        "tables",
        "rounds",
        "seed",
        "rules",
        "players",
        "end_kind",
        "passes_per_round",
        "passebunge_per_round",
        "passebunge_round_share",
        "tiles_per_round",
        "turns_per_round",
        "stones_per_round",
        "camat_per_1000_rounds",
        "win_rate_by_starter_offset",
        "win_rate_by_seat",
        "win_rate_by_player",
    ):
        assert key in s, key
    assert (s["tables"], s["rounds"], s["seed"]) == (12, 15, 7)
    assert s["players"] == MIXED.split(",")
    assert s["rules"] == Rules(pollo_award=4).to_dict()
    assert set(s["end_kind"]) == {"CAPPU", "CEKI", "POLLO", "MANGUNO", "MATTIKKENG"}
    assert set(s["win_rate_by_player"]) == {"random", "heavy", "keeper", "hunter"}
    assert set(s["win_rate_by_seat"]) == set(s["win_rate_by_starter_offset"]) == set("01234")
    st = s["stones_per_round"]
    for key in (
        "total",
        "by_reason",
        "from_table",
        "from_players",
        "from_seat",
        "from_player",
        "unpaid",
    ):
        assert key in st
    assert set(st["by_reason"]) == {
        "PASS",
        "PASSEBUNGE",
        "CAPPU",
        "CEKI",
        "POLLO",
        "MANGUNO",
        "MATTIKKENG",
    }
    leaves = list(_estimates(s))
    assert len(leaves) > 100
    shares = _share_paths(res)
    for path, est in leaves:
        # every estimate carries its 95% bounds (issue 23): Wilson for a share
        assert set(est) == {"value", "se", "ci_low", "ci_high"}, path
        assert isinstance(est["value"], float) and isinstance(est["se"], float), path
        assert est["se"] >= 0, path
        assert est["ci_low"] <= est["value"] <= est["ci_high"], path
        assert est["ci_high"] > est["ci_low"], path  # never of zero width (issue 23)
        if path in shares:
            assert 0 <= est["ci_low"] and est["ci_high"] <= 1, path
    # the scalar quantities that the issue names are estimates
    for key in ("passes_per_round", "passebunge_per_round", "tiles_per_round", "turns_per_round"):
        assert set(s[key]) == {"value", "se", "ci_low", "ci_high"}
    assert set(s["passebunge_round_share"]) == {"value", "se", "ci_low", "ci_high"}


def _share_paths(res) -> set[str]:
    from domeng.results.metrics import metric_parts

    return {"." + ".".join(p.path) for p in metric_parts(res).values() if p.share}


def _check_share_bounds(summary: dict, shares: set[str]) -> int:
    """Every share of a summary has Wilson bounds within [0, 1] around its value."""
    n = 0
    for path, est in _estimates(summary):
        if path not in shares:
            continue
        lo, hi, v = est["ci_low"], est["ci_high"], est["value"]
        assert lo is not None and hi is not None, path
        assert 0.0 <= lo <= v <= hi <= 1.0, (path, est)
        n += 1
    return n


def test_every_share_in_the_summary_json_has_wilson_bounds(tmp_path, capsys):
    """--json and summary.json: each share (end kinds, win rates, round shares,
    final CAMAT shares ...) has ci_low/ci_high in [0, 1], even with 3 tables
    (the defect of issue 12 was 0.200 ± 0.261 with 10 tables)."""
    from domeng.cli.main import main

    out = tmp_path / "s"
    assert (
        main(
            [
                "simulate",
                "-t",
                "3",
                "-r",
                "6",
                "-s",
                "4",
                "--json",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    printed = json.loads(capsys.readouterr().out)
    res = Results.load(out)
    shares = _share_paths(res)
    assert len(shares) > 30
    for summary in (printed, json.loads((out / "summary.json").read_text())):
        assert _check_share_bounds(summary, shares) == len(shares)
    # the bounds are the DataFrames' Wilson bounds
    ek = res.end_kinds().set_index("kind")
    for kind, est in printed["end_kind"].items():
        assert est["ci_low"] == pytest.approx(ek.loc[kind, "ci_low"])
        assert est["ci_high"] == pytest.approx(ek.loc[kind, "ci_high"])


def test_save_load_round_trip(res, tmp_path):
    out = tmp_path / "study"
    res.save(out)
    for name in ("summary.json", "results.npz"):
        assert (out / name).is_file()
    for name in FRAME_NAMES:
        assert (out / "tables" / f"{name}.parquet").is_file()
        assert (out / "tables" / f"{name}.csv").is_file()
    back = Results.load(out)
    assert back.equals(res)
    assert back.summary() == res.summary()
    assert json.loads((out / "summary.json").read_text()) == json.loads(res.to_json())
    for name, df in res.frames().items():
        pd.testing.assert_frame_equal(pd.read_parquet(out / "tables" / f"{name}.parquet"), df)
        assert len(pd.read_csv(out / "tables" / f"{name}.csv")) == len(df)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_save_replaces_results_but_refuses_other_folders(res, tmp_path):
    out = tmp_path / "study"
    other = simulate(tables=2, rounds=2, seed=1, progress=False)
    other.save(out)
    with pytest.raises(ResultsError, match="overwrite=True"):  # nothing overwritten (issue 23)
        res.save(out)
    assert Results.load(out).equals(other)
    res.save(out, overwrite=True)  # asked: an existing results folder is replaced
    assert Results.load(out).equals(res)
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(ResultsError, match="refusing"):
        res.save(foreign)
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ResultsError):
        res.save(blocker / "sub")  # parent is a file: cannot be created
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "mine", "study"]


def test_a_failed_write_leaves_nothing_that_looks_complete(tmp_path):
    target = tmp_path / "out"
    with pytest.raises(RuntimeError):
        with atomic_directory(target) as tmp:
            (tmp / "summary.json").write_text("{}")
            raise RuntimeError("crash mid-way")
    assert list(tmp_path.iterdir()) == []


def test_load_errors(res, tmp_path):
    with pytest.raises(ResultsError, match="no results folder"):
        Results.load(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ResultsError, match="not a domeng results folder"):
        Results.load(empty)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "results.npz").write_bytes(b"this is not a zip file")
    with pytest.raises(ResultsError, match="corrupt"):
        Results.load(bad)
    # a results file from another array layout is refused
    good = tmp_path / "good"
    res.save(good)
    with np.load(good / "results.npz") as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta["layout"]["agg_len"] += 1
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(good / "results.npz", **arrays)
    with pytest.raises(ResultsError, match="layout"):
        Results.load(good)
    # truncated arrays
    meta["layout"]["agg_len"] -= 1
    arrays["meta"] = np.array(json.dumps(meta))
    arrays["group_agg"] = arrays["group_agg"][:, :10]
    np.savez(good / "results.npz", **arrays)
    with pytest.raises(ResultsError, match="corrupt"):
        Results.load(good)


def test_report_plots_and_html(res, tmp_path):
    paths = report.render(res, tmp_path)
    assert set(report.PLOTS) <= set(paths)
    for name in report.PLOTS:
        data = paths[name].read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, name
    html = paths["report"].read_text()
    imgs = re.findall(r"<img [^>]*src='data:image/png;base64,", html)
    assert len(imgs) == len(report.PLOTS)
    assert not re.search(r"src=['\"](?!data:)", html)  # self-contained: no external files
    assert "<table" in html and "MATTIKKENG" in html and "hunter" in html


def test_two_runs_of_one_study_are_equal_timings_aside(res):
    """Same seed, another chunking: the same study, though it took another
    time (``equals`` leaves the timings out unless asked)."""
    again = simulate(
        tables=12,
        rounds=15,
        players=MIXED,
        seed=7,
        rules="pollo=4",
        progress=False,
        chunk_tables=5,
    )
    assert again.equals(res)
    assert not again.equals(res, timings=True)  # the elapsed seconds differ
    other = simulate(tables=12, rounds=15, players=MIXED, seed=8, rules="pollo=4", progress=False)
    assert not other.equals(res)
