"""The stopping rule of --target-ci: coverage when stopping on the data (issue 12)."""

from __future__ import annotations

import numpy as np
import pytest

import domeng
from domeng.results.sequential import Target, cs_half_width, rho_for, run_sequential
from domeng.results.stats import Z95, ratio


def _stopped_coverage(reps: int, t_max: int, target: float, use_cs: bool, seed: int) -> float:
    """Share of replications whose interval at the stopping time covers the true ratio.

    Each unit is a 'group of tables': n rounds (5..15) and a count x with
    mean 0.3 n (the true ratio; gamma-mixed Poisson, so overdispersed); the
    rule stops as soon as the half-width is at most the target."""
    rng = np.random.default_rng(seed)
    covered = 0
    for _ in range(reps):
        n = rng.integers(5, 16, t_max).astype(float)
        x = rng.poisson(0.3 * n * rng.gamma(4.0, 0.25, t_max)).astype(float)
        if use_cs:

            def measure(t):
                return {"m": tuple(float(v) for v in ratio(x[:t], n[:t]))}

            stop = run_sequential(measure, [Target("m", target)], t_max, step=1, first=30)
            lo, hi = stop.reached["m"]["ci_low"], stop.reached["m"]["ci_high"]
        else:  # the naive rule: stop the first time 1.96 SE is small enough (every block)
            t = np.arange(1, t_max + 1)
            sx, sn = np.cumsum(x), np.cumsum(n)
            r = sx / sn
            ss = np.cumsum(x * x) - 2 * r * np.cumsum(x * n) + r * r * np.cumsum(n * n)
            with np.errstate(invalid="ignore", divide="ignore"):
                se = np.sqrt(np.maximum(ss, 0) / (t * (t - 1))) / (sn / t)
            ok = np.nonzero((t >= 30) & (Z95 * se <= target))[0]
            k = ok[0] if len(ok) else t_max - 1
            lo, hi = r[k] - Z95 * se[k], r[k] + Z95 * se[k]
        covered += lo <= 0.3 <= hi
    return covered / reps


def test_confidence_sequence_keeps_coverage_when_stopping_on_the_data():
    cs = _stopped_coverage(reps=400, t_max=1000, target=0.045, use_cs=True, seed=7)
    naive = _stopped_coverage(reps=400, t_max=1000, target=0.045, use_cs=False, seed=7)
    # the method's coverage holds (>= 95% up to simulation noise: SE of 400 draws ~ 1.1%)
    assert cs >= 0.93
    # and looking at every block with the ordinary interval does not
    assert naive < cs


def test_half_width_is_wider_than_fixed_sample_and_shrinks():
    rho = rho_for(100)
    hw = cs_half_width(1.0 / np.sqrt([50, 100, 400]), [50, 100, 400], rho)
    assert np.all(np.diff(hw) < 0)
    assert 1.3 < hw[1] / (Z95 * 0.1) < 1.8


def test_simulate_until_says_why_it_stopped_and_the_precision():
    res = domeng.simulate_until(
        {"passebunge_per_round": 0.03}, rounds=20, max_rounds=40_000, progress=False
    )
    stop = res.summary()["stopping"]
    t = stop["targets"]["passebunge_per_round"]
    assert stop["reason"] == "target reached" and t["half_width"] <= 0.03 and t["reached"]
    assert res.tables == stop["tables"] and res.tables * 20 <= 40_000
    assert "stopped: target reached" in res.to_text()


def test_compare_until_reports_reason_and_cap(capsys):
    from domeng.cli.main import main

    code = main(
        [
            "compare",
            "--variant",
            "passebunge_every_pass=false",
            "--target-ci",
            "passebunge_per_round=0.02",
            "-r",
            "20",
            "--max-rounds",
            "20000",
            "--no-progress",
            "--json",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    import json

    obj = json.loads(out)
    stop = obj["stopping"]
    assert stop["reason"] in ("target reached", "max rounds reached")
    key = "passebunge_every_pass=false:passebunge_per_round"
    d = obj["differences"]["passebunge_every_pass=false"]["passebunge_per_round"]
    assert d["ci_high"] - d["value"] == pytest.approx(stop["targets"][key]["half_width"])
