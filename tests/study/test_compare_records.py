"""compare and sweep write records (issue 23, item 6): each arm's per-round
and per-seat records in its folder, read keyed by arm and table
(:func:`domeng.results.read_records`) for paired per-round analysis."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

import domeng
from domeng.cli.main import main
from domeng.core import layout as L
from domeng.core.errors import ResultsError, StudyError
from domeng.results import difference_from_records, metric_from_records, read_records

BASE = "random,heavy,keeper,hunter,random"
KW = dict(tables=6, rounds=8, players=BASE, seed=4, progress=False)


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    out = tmp_path_factory.mktemp("cmp") / "c"
    cmp = domeng.compare(["players=hunter"], out=out, records=True, **KW)
    return out, cmp


def test_compare_writes_each_arms_records_keyed_by_arm_and_table(compared, tmp_path):
    out, cmp = compared
    rec = read_records(out)
    assert list(rec.columns) == ["arm", *L.REC_COLUMNS]
    arms = list(cmp.arms)
    assert list(rec.arm.cat.categories) == arms
    assert not rec.duplicated(["arm", "table", "round"]).any()
    assert len(rec) == 2 * 6 * 8
    # each arm's rows are exactly those of the same study played alone
    alone = tmp_path / "alone.parquet"
    domeng.simulate(records=alone, **KW)
    base = rec[rec.arm == "baseline"].drop(columns="arm").reset_index(drop=True)
    pd.testing.assert_frame_equal(base, pd.read_parquet(alone))
    seats = read_records(out, seats=True)
    assert list(seats.columns[:5]) == ["arm", "table", "round", "seat", "player"]
    assert len(seats) == 5 * len(rec)
    variant = seats[seats.arm == arms[1]]
    assert set(variant.player.astype(str)) == {"hunter"}
    assert seats.player.dtype == "category"
    # paired: both arms played the same tables, the same first deal (same leads in round 1)
    first = rec[rec["round"] == 1].pivot(index="table", columns="arm", values="lead")
    assert (first[arms[0]] == first[arms[1]]).all()


def test_record_metrics_equal_the_comparisons_estimates(compared):
    """With one table per group (tables <= 1000) the records' table-clustered
    estimates are the study's own: value, paired SE and interval."""
    out, cmp = compared
    rec = read_records(out)
    seats = read_records(out, seats=True)
    d = cmp.differences().set_index("metric")
    variant = next(a for a in rec.arm.cat.categories if a != "baseline")
    for metric, frame, column in (
        ("passes_per_round", rec, "passes"),
        ("passebunge_per_round", rec, "passebunge"),
        ("passes_by_seat.3.passes_per_round", seats[seats.seat == 3], "passes"),
    ):
        row = d.loc[metric]
        got = difference_from_records(frame, column, variant)
        assert got["value"] == pytest.approx(row["value"], abs=1e-12)
        assert got["se"] == pytest.approx(row["se"], rel=1e-9, abs=1e-12)
        assert got["ci_low"] == pytest.approx(row["ci_low"], rel=1e-9, abs=1e-12)
        assert got["ci_high"] == pytest.approx(row["ci_high"], rel=1e-9, abs=1e-12)
        base = metric_from_records(frame[frame.arm == "baseline"], column)
        assert base["value"] == pytest.approx(row["baseline"], abs=1e-12)
    assert d.loc["passes_per_round", "value"] != 0  # the arms differ: a real check


def test_a_resumed_comparison_writes_the_missing_arms_records(compared, tmp_path):
    out, _cmp = compared
    copy = tmp_path / "c"
    shutil.copytree(out, copy)
    (copy / "compare.json").unlink()
    shutil.rmtree(copy / "arms" / "1")  # as if killed before the variant began
    assert main(["compare", "--resume", str(copy), "--json", "--no-progress"]) == 0
    pd.testing.assert_frame_equal(read_records(copy), read_records(out))
    pd.testing.assert_frame_equal(read_records(copy, seats=True), read_records(out, seats=True))


def test_sweep_records_carry_the_points_values(tmp_path, capsys):
    out = tmp_path / "s"
    argv = ["sweep", "--vary", "pollo=3,4", "--tables", "3", "--rounds", "4"]
    assert main([*argv, "--out", str(out), "--records", "--no-progress"]) == 0
    capsys.readouterr()
    rec = read_records(out)
    assert list(rec.columns[:2]) == ["arm", "pollo_award"]
    assert sorted(set(rec.pollo_award)) == [3, 4]
    assert rec.groupby("pollo_award").size().tolist() == [12, 12]
    seats = read_records(out, seats=True)
    assert list(seats.columns[:4]) == ["arm", "pollo_award", "table", "round"]


def test_records_refusals_are_one_line(tmp_path, capsys):
    for argv in (
        ["compare", "--variant", "pollo=4", "--records"],
        ["sweep", "--vary", "pollo=3,4", "--records"],
        ["compare", "--variant", "pollo=4", "--records", "--target-ci", "passes_per_round=0.1"],
    ):
        if "--target-ci" in argv:
            argv = [*argv, "--out", str(tmp_path / "t")]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "--records" in err
    assert not (tmp_path / "t").exists()
    with pytest.raises(StudyError, match="records need out"):
        domeng.compare(["pollo=4"], tables=1, rounds=1, records=True, progress=False)
    with pytest.raises(ResultsError, match="no records"):
        read_records(tmp_path)
