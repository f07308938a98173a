"""Two trees of domeng side by side in one run: a change's speed before and after.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_trees.py BEFORE AFTER \\
        [--tasks vector256,vector1024,vector4096,records] [--seconds 1] [--repeat 8]

``BEFORE`` and ``AFTER`` are checkouts of the repository (``git worktree add``).
Each runs in a worker process of its own (its ``domeng`` first on
``PYTHONPATH``, its own numba cache), which builds every task and warms it
first; then this process asks the two workers for timed slices in turn
(A B B A ...), one at a time, so that the shared machine's drift falls on
both alike.  Printed: each task's median rate (per CPU second of the worker)
in each tree and their ratio AFTER / BEFORE with its range over the pairs.

Tasks: ``vectorN`` (agent steps of the vector env of N tables, ``random``
opponents: ``bench_envs.py``'s loop), ``records`` (``run_tables`` of five
``hunter`` with every round's record: the batch loop through the step API),
``aggregates`` (the same without records: the engine's aggregate loop).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: the worker: builds the tasks, then answers "task seconds" lines with a rate
WORKER = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])  # this benchmarks folder (bench_envs' loop)
import numpy as np
from bench_envs import _steps, _vector
from domeng.batch.tables import run_tables

clock = time.process_time
tasks = json.loads(sys.argv[2])
envs = {}

def records(rec, seconds):
    n, t0 = 0, clock()
    while clock() - t0 < seconds:
        run_tables("hunter", seed=n, n_tables=200, rounds=10, records=rec, threads=1)
        n += 1
    return n * 2000 / (clock() - t0)

for t in tasks:
    if t.startswith("vector"):
        envs[t] = _vector(int(t[6:]))
        _steps(envs[t], 0.5)
    else:
        records(t == "records", 0.5)
print("ready", flush=True)
for line in sys.stdin:
    t, seconds = line.split()
    s = float(seconds)
    rate = _steps(envs[t], s) if t in envs else records(t == "records", s)
    print(json.dumps(rate), flush=True)
"""


def _worker(tree: Path, tasks: list[str]) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-trees-")
    p = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(HERE), json.dumps(tasks)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert p.stdout is not None
    if p.stdout.readline().strip() != "ready":
        raise SystemExit(f"bench_trees: the worker of {tree} did not start")
    return p


def _ask(p: subprocess.Popen, task: str, seconds: float) -> float:
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(f"{task} {seconds}\n")
    p.stdin.flush()
    return float(p.stdout.readline())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--tasks", default="vector256,vector1024,vector4096,records")
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=8, help="pairs of slices per task")
    a = ap.parse_args(argv)
    for tree in (a.before, a.after):
        if not (tree / "domeng" / "__init__.py").is_file():
            print(f"bench_trees: {tree} is not a checkout of domeng", file=sys.stderr)
            return 2
    tasks = [t for t in a.tasks.split(",") if t]
    workers = [_worker(a.before, tasks), _worker(a.after, tasks)]
    rates: dict[str, list[list[float]]] = {t: [[], []] for t in tasks}
    for r in range(a.repeat):
        for t in tasks:
            order = (0, 1) if r % 2 == 0 else (1, 0)
            for w in order:
                rates[t][w].append(_ask(workers[w], t, a.seconds))
    for p in workers:
        assert p.stdin is not None
        p.stdin.close()
        p.wait()
    print(f"{'task':<12} {'before':>12} {'after':>12}  after/before (median; pairs' range)")
    for t in tasks:
        b, f = rates[t]
        pairs = [y / x for x, y in zip(b, f)]
        print(
            f"{t:<12} {statistics.median(b):>12,.0f} {statistics.median(f):>12,.0f}"
            f"  {statistics.median(f) / statistics.median(b):.3f}"
            f" ({min(pairs):.2f}-{max(pairs):.2f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
