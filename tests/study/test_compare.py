"""Paired comparisons, sweeps and their bad input (issue 12)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import domeng
from domeng.cli.main import main
from domeng.results.stats import critical, paired_difference, ratio, wilson


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_paired_se_is_below_unpaired_se_for_a_rule_option():
    cmp = domeng.compare(["passebunge_every_pass=false"], tables=120, rounds=40, progress=False)
    d = cmp.differences().set_index("metric")
    for m in ("passebunge_per_round", "stones_per_round.total", "camat_per_1000_rounds.total"):
        assert 0 < d.loc[m, "se"] < d.loc[m, "se_unpaired"], m
    assert cmp.se_ratio() < 0.8
    # the option relabels PASSEBUNGE as PASS: fewer PASSEBUNGE, clearly (D6)
    assert d.loc["passebunge_per_round", "ci_high"] < 0


def test_difference_is_the_difference_of_the_arms_summaries():
    cmp = domeng.compare(["pollo=4", "players=random"], tables=40, rounds=20, progress=False)
    base = cmp.baseline.summary()
    for name, r in cmp.variants.items():
        s = r.summary()
        got = cmp.summary()["differences"][name]["passebunge_per_round"]
        want = s["passebunge_per_round"]["value"] - base["passebunge_per_round"]["value"]
        assert got["value"] == pytest.approx(want, abs=1e-12)
        # t with G - 1 degrees of freedom across the groups (issue 23)
        t = critical(cmp.baseline.groups)
        assert got["ci_low"] == pytest.approx(got["value"] - t * got["se"])
    # the arms were played on the same tables
    assert {r.seed for r in cmp.arms.values()} == {0}


def test_compare_json_schema(capsys, tmp_path):
    out_dir = tmp_path / "cmp"
    code, out, err = run(
        capsys,
        "compare",
        "-t",
        "20",
        "-r",
        "10",
        "--variant",
        "pollo=4",
        "--variant",
        "passebunge_every_pass=false",
        "--json",
        "--no-progress",
        "--out",
        str(out_dir),
        "--format",
        "svg",
        "--dpi",
        "60",
    )
    assert code == 0, err
    obj = json.loads(out)
    assert obj["schema"] == "domeng.compare/1"
    assert set(obj["differences"]) == {"pollo_award=4", "passebunge_every_pass=false"}
    for per_metric in obj["differences"].values():
        assert "end_kind.POLLO" in per_metric and "win_rate_by_seat.0" in per_metric
        for est in per_metric.values():
            assert set(est) == {"value", "se", "se_unpaired", "p_value", "ci_low", "ci_high"}
    assert (out_dir / "plots" / "forest.svg").read_bytes().lstrip().startswith(b"<?xml")
    assert (out_dir / "plots" / "forest.png").is_file()
    assert json.loads((out_dir / "compare.json").read_text())["schema"] == "domeng.compare/1"
    html = (out_dir / "report.html").read_text()
    for needle in (
        "Contents",
        "Glossary",
        "MATTIKKENG",
        "pollo_award",
        "numba",
        "pandas",
        "domeng compare",
        "<table",
    ):
        assert needle in html
    assert domeng.Results.load(out_dir / "arms" / "1").rules.pollo_award == 4


def test_sweep_tidy_frame_and_files(capsys, tmp_path):
    out_dir = tmp_path / "sw"
    code, _out, err = run(
        capsys,
        "sweep",
        "-t",
        "20",
        "-r",
        "10",
        "--vary",
        "pollo=3,4",
        "--vary",
        "passebunge_every_pass=true,false",
        "--no-progress",
        "--out",
        str(out_dir),
    )
    assert code == 0, err
    import pandas as pd

    df = pd.read_parquet(out_dir / "tables" / "sweep.parquet")
    assert {
        "pollo_award",
        "passebunge_every_pass",
        "point",
        "metric",
        "value",
        "se",
        "ci_low",
        "ci_high",
        "diff",
        "diff_se",
    } <= set(df.columns)
    assert df.groupby("metric").size().eq(4).all()  # a row per grid point and metric
    ref = df[(df.pollo_award == 3) & df.passebunge_every_pass]
    assert (ref["diff"] == 0).all()
    assert (out_dir / "plots" / "sweep-pollo_award.png").is_file()
    assert (out_dir / "plots" / "sweep-passebunge_every_pass.png").is_file()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["compare", "--variant", "pollo=5"], "baseline itself"),
        (
            ["compare", "--variant", "pollo=4", "--target-ci", "no_such_metric=0.1"],
            "unknown metric",
        ),
        (
            ["compare", "--variant", "pollo=4", "--target-ci", "passebunge_per_round=0"],
            "out of reach",
        ),
        (
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
            ],
            "out of reach",
        ),
        (
            [
                "simulate",
                "--target-ci",
                "passebunge_per_round=1e-9",
                "-r",
                "10",
                "--max-rounds",
                "2000",
            ],
            "out of reach",
        ),
        (["simulate", "--target-ci", "nope=0.1"], "unknown metric"),
        (["sweep"], "nothing to sweep: give the swept axis with --vary"),
        (["sweep", "--rule", "pollo=4"], "nothing to sweep: give the swept axis with --vary"),
        (["sweep", "--vary", "pollo=4"], "empty sweep"),
        (["sweep", "--vary", "pollo"], "malformed grid"),
        (["sweep", "--vary", "pollo=3,,5"], "malformed grid"),
        (["sweep", "--vary", "pollo=3,4", "--vary", "pollo=5,6"], "twice"),
        (["sweep", "--vary", "no_option=1,2"], "unknown rule option"),
        (["sweep", "--vary", "pollo=3,x"], "whole number"),
        (["sweep", "--vary", "pollo=3,4", "--rule", "ceki"], "must be written name=value"),
        (["sweep", "--vary", "pollo=3,4", "--metric", "nope"], "sweep --list-metrics"),
    ],
)
def test_bad_input_one_line_exit_2_nothing_written(capsys, tmp_path, argv, message):
    out_dir = tmp_path / "out"
    code, _out, err = run(capsys, *argv, "--out", str(out_dir), "--no-progress")
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out_dir.exists()


def test_wilson_stays_in_unit_interval():
    lo, hi = wilson(
        np.array([0.2, 0.0, 1.0, 0.5]), np.array([0.133, 0.0, 0.0, 0.3]), np.full(4, 10.0), 10
    )
    assert np.all(lo >= 0) and np.all(hi <= 1) and np.all(lo < hi)  # never zero width
    # the defect of issue 12: 0.200 ± 0.261 with 10 tables; now within [0, 1]
    res = domeng.simulate(tables=3, rounds=4, seed=5, progress=False)
    for df in (res.end_kinds(), res.win_by_seat(), res.win_by_player()):
        assert (df.ci_low >= 0).all() and (df.ci_high <= 1).all()


def test_paired_difference_matches_direct_formula():
    rng = np.random.default_rng(1)
    n = rng.integers(5, 10, 50).astype(float)
    xb = rng.poisson(3 * n).astype(float)
    xv = xb + rng.poisson(n)
    d, se, seu = paired_difference(xv, n, xb, n)
    r, s = ratio(xv - xb, n)
    assert d == pytest.approx(r) and se == pytest.approx(s)
    assert seu == pytest.approx(np.hypot(ratio(xv, n)[1], ratio(xb, n)[1]))


def test_adjusted_intervals_and_their_count(capsys):
    """issue 23: the text says how many intervals it shows; --adjust holm or
    bonferroni widens them to hold together (t with G - 1 degrees of freedom)."""
    cmp = domeng.compare(["pollo=4", "ceki=4"], tables=12, rounds=10, progress=False)
    alone = cmp.differences()
    bonf = cmp.differences(adjust="bonferroni")
    holm = cmp.differences(adjust="holm")
    m = len(alone)
    assert m == 2 * len(cmp.metrics())
    assert np.allclose(bonf.level, 1 - 0.05 / m) and (alone.level == 0.95).all()
    ok = alone.se > 0
    width = lambda d: (d.ci_high - d.ci_low)[ok]  # noqa: E731
    assert (width(bonf) > width(alone)).all()
    assert (width(holm) <= width(bonf) + 1e-12).all() and (width(holm) >= width(alone)).all()
    t = critical(cmp.baseline.groups)
    assert alone.ci_high[ok].to_numpy() == pytest.approx((alone.value + t * alone.se)[ok])
    text = cmp.to_text()
    assert "30 intervals (15 metrics x 2 variants), each at 95% alone" in text
    assert "adjusted by Bonferroni" in cmp.to_text(adjust="bonferroni")
    assert cmp.summary("holm")["intervals"] == {"count": m, "level": 0.95, "adjust": "holm"}
    with pytest.raises(ValueError):
        cmp.differences(adjust="sidak")
    from domeng.cli.main import main

    assert (
        main(
            ["compare", "-V", "pollo=4", "-t", "6", "-r", "5", "--adjust", "holm", "--no-progress"]
        )
        == 0
    )
    assert "adjusted by Holm (step-down) to hold together at 95%" in capsys.readouterr().out
