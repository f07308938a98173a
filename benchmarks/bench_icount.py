"""Instructions, not seconds: one workload of a tree, to be run under cachegrind.

The machine is shared and noisy; instruction counts are not.  Run a
workload twice, at two sizes, under ``valgrind --tool=cachegrind`` and take
the difference of the two ``I refs`` (the start-up, imports and compiles
cancel) divided by the difference of the sizes::

    export NUMBA_CPU_NAME=haswell NUMBA_CPU_FEATURES=+64bit,+avx,+avx2,+bmi,+bmi2,+cmov,\\
+cx16,+cx8,+f16c,+fma,+fsgsbase,+fxsr,+lzcnt,+mmx,+movbe,+pclmul,+popcnt,+rdrnd,+sahf,\\
+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+xsave,+xsaveopt
    export OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 PYTHONHASHSEED=0
    export PYTHONPATH=<tree> NUMBA_CACHE_DIR=<that tree's cache>
    python benchmarks/bench_icount.py vector256 5          # natively first: compiles
    valgrind --tool=cachegrind --cache-sim=no python benchmarks/bench_icount.py vector256 10
    valgrind --tool=cachegrind --cache-sim=no python benchmarks/bench_icount.py vector256 50
    # (I refs at 50 - I refs at 10) / (40 steps x 256 tables): instructions an agent step

(The fixed CPU name makes the code compiled natively the code valgrind runs:
valgrind reports other CPU features, which would miss numba's cache.)

Workloads (``TASK SIZE``): ``vectorN S`` (``S + 20`` steps of the vector env
of N tables, ``random`` opponents, the learner's random legal actions: an
agent step is one of N x S), ``records R`` (``run_tables`` of five ``hunter``
with records, 20 tables x R rounds: the batch loop through the step API),
``search R`` (``search-20`` against four ``hunter``, 4 tables x R rounds: the
search players' rollouts).  The work runs in a thread that is not the main
one (``infra.interrupt`` then polls nothing on the clock) with
``batch.tables.SLICE_SECONDS`` raised, so the calls are the same each run.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def work(task: str, size: int) -> None:
    if task.startswith("vector"):
        from bench_envs import _vector, random_legal

        v, acts, st = _vector(int(task[6:]))
        for _ in range(20 + size):
            random_legal(v._t.mask, st, acts)
            v.step(acts)
        return
    import domeng.batch.tables as BT

    BT.SLICE_SECONDS = 1e9
    if task == "records":
        BT.run_tables(["hunter"] * 5, seed=1, n_tables=1, rounds=2, records=True, threads=1)
        if size:
            BT.run_tables(["hunter"] * 5, seed=3, n_tables=20, rounds=size, records=True, threads=1)
    elif task == "search":
        lineup = ["search-20", "hunter", "hunter", "hunter", "hunter"]
        BT.run_tables(lineup, seed=1, n_tables=1, rounds=1, threads=1)
        if size:
            BT.run_tables(lineup, seed=3, n_tables=4, rounds=size, threads=1)
    else:
        raise SystemExit(f"bench_icount: no workload {task!r} (vectorN, records, search)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: bench_icount.py TASK SIZE")
    t = threading.Thread(target=work, args=(sys.argv[1], int(sys.argv[2])))
    t.start()
    t.join()
