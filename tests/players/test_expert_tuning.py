"""The expert's tuning script runs end to end on a tiny budget (issue 13)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "analysis" / "expert_tuning" / "run.py"


def test_tuning_script_runs_end_to_end(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("expert_tuning_run", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    code = mod.main(
        [
            "--iterations",
            "2",
            "--population",
            "4",
            "--deals",
            "6",
            "--rounds",
            "2",
            "--validate-deals",
            "6",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    res = json.loads((tmp_path / "results.json").read_text())
    assert set(res["weights"]) == set(res["features"]) and res["weights"]["pips"] == 1.0
    assert set(res["validation"]) >= {"tuned", "start"}
    hist = (tmp_path / "history.csv").read_text().splitlines()
    assert len(hist) == 1 + 2 * 4  # a header and every candidate of both iterations
    assert (tmp_path / "progress.png").stat().st_size > 0
    assert "tuned weights" in capsys.readouterr().out
