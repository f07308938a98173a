"""The analysis scripts of issue 13 (6b skill share, 6c expert studies): the
variance decomposition recovers known components, and each script runs end
to end on a tiny budget."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

ANALYSIS = Path(__file__).resolve().parents[1] / "analysis"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(
        f"analysis_{name}_run", ANALYSIS / name / "run.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_skill_share_decomposition_recovers_known_components():
    """Synthetic duplicate data y = player + position + hand + noise: the
    ANOVA estimates match the variances that generated it."""
    ss = _load("skill_share")
    from domeng.study.arrangements import seatings

    design = seatings("all")
    rng = np.random.default_rng(7)
    d = 600
    alpha = np.array([-0.4, -0.2, 0.0, 0.2, 0.4])  # player: mean(alpha^2) = 0.08
    pos = np.array([0.3, -0.3, 0.0, 0.0, 0.0])  # position: mean(pos^2) = 0.036
    opener = rng.integers(0, 5, d)
    off = (np.arange(5)[None, :] - opener[:, None]) % 5
    hand = rng.normal(0, 0.5, (d, 5))  # rest of the hand: 0.25
    players = np.array(design)  # [seating, seat] -> player
    y = (
        alpha[players][None]
        + pos[off][:, None, :]
        + hand[:, None, :]
        + rng.normal(0, 1.0, (d, len(design), 5))
    )  # other: 1.0
    row, means, _ = ss.decompose(y, design, off, 30, rng)
    assert row["player_var"] == pytest.approx(0.08, abs=0.01)
    assert row["position_var"] == pytest.approx(0.036, abs=0.012)
    assert row["hand_var"] == pytest.approx(0.25, abs=0.04)
    assert row["player_x_hand_var"] == pytest.approx(0.0, abs=0.01)
    assert row["other_var"] == pytest.approx(1.0, abs=0.02)
    assert row["total_variance"] == pytest.approx(row["sample_variance"], rel=0.02)
    assert row["player_share_ci_low"] < row["player_share"] < row["player_share_ci_high"]
    assert np.allclose(means - means.mean(), alpha, atol=0.02)


@pytest.mark.slow
def test_skill_share_script_runs_end_to_end(tmp_path, capsys):
    ss = _load("skill_share")
    assert ss.main(["--quick", "--out", str(tmp_path)]) == 0
    res = json.loads((tmp_path / "results.json").read_text())
    assert all(f["check_against_tournament"]["equal"] for f in res["fields"].values())
    assert {"main / 1 round (the first)", "no random / 1 round (the first)"} <= set(res["shares"])
    for name in ("skill_share.png", "share_vs_rounds.png", "components.csv", "timings.json"):
        assert (tmp_path / name).stat().st_size > 0
    assert "player" in capsys.readouterr().out


@pytest.mark.slow
def test_expert_studies_script_runs_end_to_end(tmp_path):
    ex = _load("experts")
    assert ex.main(["--quick", "--out", str(tmp_path)]) == 0
    starter = json.loads((tmp_path / "starter_results.json").read_text())
    assert set(starter["starter_tests"]) == {"all-random", "all-hunter", "all-expert"}
    pb = json.loads((tmp_path / "passebunge_results.json").read_text())
    assert "whole game / all-expert" in pb["results"]
    for name in ("starter_by_offset.png", "passebunge_options.png", "timings.json"):
        assert (tmp_path / name).stat().st_size > 0
