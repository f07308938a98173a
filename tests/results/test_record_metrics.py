"""metric_from_records / difference_from_records: a custom metric from
records with a table-clustered SE, checked by hand on small frames."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from domeng.core.errors import ResultsError
from domeng.results import difference_from_records, metric_from_records

#: the Student-t 97.5% quantile with 2 degrees of freedom (from tables)
T975 = {2: 4.302652729911275}

#: three tables with 3, 2 and 1 rounds
FRAME = pd.DataFrame(
    {
        "table": [7, 7, 7, 2, 2, 9],
        "passes": [1, 4, 1, 0, 2, 6],
        "turns": [20, 30, 10, 25, 15, 40],
    }
)


def test_the_clustered_se_is_the_hand_computed_one():
    est = metric_from_records(FRAME, "passes")
    # by table (2, 7, 9): x = 2, 6, 6; n = 2, 3, 1; r = 14 / 6
    x, n = np.array([2.0, 6.0, 6.0]), np.array([2.0, 3.0, 1.0])
    r = 14 / 6
    z = (x - r * n) / n.mean()
    se = math.sqrt((z**2).sum() / (3 * 2))
    assert est["value"] == pytest.approx(r)
    assert est["se"] == pytest.approx(se)
    assert est["ci_low"] == pytest.approx(max(0.0, r - T975[2] * se))
    assert est["ci_high"] == pytest.approx(r + T975[2] * se)
    # not the naive SE over rounds (which ignores the clustering)
    naive = FRAME.passes.std(ddof=1) / math.sqrt(len(FRAME))
    assert est["se"] != pytest.approx(naive)


def test_a_ratio_metric_and_a_function_of_the_frame():
    est = metric_from_records(FRAME, "passes", per="turns")  # passes per turn
    x, n = np.array([2.0, 6.0, 6.0]), np.array([40.0, 60.0, 40.0])
    r = x.sum() / n.sum()
    z = (x - r * n) / n.mean()
    assert est["value"] == pytest.approx(r)
    assert est["se"] == pytest.approx(math.sqrt((z**2).sum() / 6))
    same = metric_from_records(FRAME, lambda d: d.passes / 1.0, per=lambda d: d.turns)
    assert same == est


def test_a_signed_metric_is_not_cut_at_zero_and_a_share_gets_wilson():
    signed = metric_from_records(FRAME, lambda d: d.passes - 3)
    assert signed["value"] == pytest.approx(14 / 6 - 3)
    assert signed["ci_low"] < signed["value"] < 0 < signed["ci_high"]
    share = metric_from_records(FRAME, lambda d: d.passes >= 2, share=True)
    assert share["value"] == pytest.approx(3 / 6)
    assert 0 <= share["ci_low"] < 0.5 < share["ci_high"] <= 1


def test_no_events_gives_the_rule_of_three_bound():
    est = metric_from_records(FRAME.assign(none=0), "none")
    assert est["value"] == 0 and est["se"] == 0 and est["ci_low"] == 0
    assert est["ci_high"] == pytest.approx(-math.log(0.05) / 6)


def test_the_paired_difference_is_the_hand_computed_one():
    df = pd.DataFrame(
        {
            "arm": ["b"] * 4 + ["v"] * 4,
            "table": [0, 0, 1, 2] * 2,
            "tiles": [10, 12, 8, 9, 11, 13, 10, 9],
        }
    )
    est = difference_from_records(df, "tiles", "v", "b")
    n = np.array([2.0, 1.0, 1.0])
    xb, xv = np.array([22.0, 8.0, 9.0]), np.array([24.0, 10.0, 9.0])
    rb, rv = xb.sum() / 4, xv.sum() / 4
    z = ((xv - rv * n) - (xb - rb * n)) / n.mean()
    se = math.sqrt((z**2).sum() / 6)
    assert est["value"] == pytest.approx(rv - rb)
    assert est["se"] == pytest.approx(se)
    assert est["ci_high"] == pytest.approx(rv - rb + T975[2] * se)
    assert difference_from_records(df, "tiles", "v") == est  # the first arm is the baseline


def test_bad_input_is_one_clear_error():
    with pytest.raises(ResultsError, match="no column 'nope'"):
        metric_from_records(FRAME, "nope")
    with pytest.raises(ResultsError, match="no column 'deal'"):
        metric_from_records(FRAME, "passes", cluster="deal")
    with pytest.raises(ResultsError, match="one value per row"):
        metric_from_records(FRAME, np.ones(3))
    with pytest.raises(ResultsError, match="not finite"):
        metric_from_records(FRAME, FRAME.passes.where(FRAME.passes > 0))
    with pytest.raises(ResultsError, match="no arm 'x'"):
        difference_from_records(FRAME.assign(arm="b"), "passes", "x")
    unpaired = pd.DataFrame({"arm": ["b", "v"], "table": [0, 1], "tiles": [1, 2]})
    with pytest.raises(ResultsError, match="not paired"):
        difference_from_records(unpaired, "tiles", "v", "b")


def test_the_study_md_example_runs(capsys):
    """The records example of docs/study.md runs as written, and its numbers
    are what pandas gives directly."""
    page = Path(__file__).resolve().parents[2] / "docs" / "study.md"
    blocks = [
        b
        for b in re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
        if "metric_from_records(" in b
    ]
    assert len(blocks) == 1
    ns: dict = {}
    exec(compile(blocks[0], "docs/study.md", "exec"), ns)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 2 and printed[0].count("[") == 1
    assert ns["variant"] == "players=hunter,hunter,hunter,hunter,hunter"
    rec, seats = ns["rec"], ns["seats"]
    base3 = seats[(seats.arm == "baseline") & (seats.seat == 3)]
    assert ns["est"]["value"] == pytest.approx(base3.received_pass.mean())
    assert ns["est"]["ci_low"] < ns["est"]["value"] < ns["est"]["ci_high"]
    means = rec.groupby("arm", observed=True).tiles.mean()
    assert ns["diff"]["value"] == pytest.approx(means[ns["variant"]] - means["baseline"])
    assert set(ns["diff"]) == {"value", "se", "ci_low", "ci_high"}
    assert 0 <= ns["blocked"]["ci_low"] <= ns["blocked"]["value"] <= ns["blocked"]["ci_high"] <= 1
