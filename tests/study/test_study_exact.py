"""A study reproduces the foundation's exact first-round values (issue:
studies), through the public API and its per-round records."""

from __future__ import annotations

import math

import pandas as pd

import domeng
from domeng.core.tiles import tile_id

# Two binomial checks, each at z = 4.0 (two-sided 6.3e-5 each): a correct
# engine fails this file less than once in 10,000 runs.
Z = 4.0
N = 200_000


def _check(successes: int, n: int, p: float) -> None:
    sd = math.sqrt(p * (1 - p) / n)
    assert abs(successes / n - p) < Z * sd, (successes / n, p, Z * sd)


def test_first_round_values_through_simulate(tmp_path):
    path = tmp_path / "records.parquet"
    res = domeng.simulate(
        tables=N, rounds=1, players="random", seed=2026, records=path, progress=False
    )
    assert res.total_rounds == N
    rec = pd.read_parquet(path)
    assert len(rec) == N
    # D3: the opener leads [6|6] with probability 25/28 (it is dealt to someone)
    _check(int((rec["lead"] == tile_id(6, 6)).sum()), N, 25 / 28)
    # with random players the seat after the opener passes on its first turn
    _check(int(rec["second_passed"].sum()), N, 322541 / 1289288)
    # only the four doubles can open the first round
    assert set(rec["lead"].unique()) <= {tile_id(n, n) for n in (3, 4, 5, 6)}
