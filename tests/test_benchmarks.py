"""The benchmark scripts stay runnable: each imports (a benchmark is never run
by the suite: timing belongs in ``benchmarks/``, not in tests; but a script
that no longer imports, as ``bench_players.py`` did after ``Z95`` moved, is
found here) and ``--help`` works for those with a command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPTS = sorted(p.stem for p in BENCH.glob("*.py"))


def test_there_are_benchmarks():
    assert {"bench_engine", "bench_envs", "bench_trees", "bench_players"} <= set(SCRIPTS)


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_benchmark_imports(name):
    code = f"import sys; sys.path.insert(0, {str(BENCH)!r}); import {name}"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
