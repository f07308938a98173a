"""Scaling of a study on a Dask LocalCluster: throughput with 1 and N worker processes.

    python benchmarks/bench_scaling.py                    # 10^8 rounds, 1 and 2 workers
    python benchmarks/bench_scaling.py --tables 20000     # 10^7 rounds (quicker)
    python benchmarks/bench_scaling.py --workers 1,2,4 --json

Each configuration starts a fresh ``LocalCluster`` (worker processes, one
thread each), loads the compiled engine on every worker (not timed), then
times ``domeng.simulate(..., client=client)`` on the same study.  It prints
rounds per second, the speed-up over one worker and its ratio to the ideal
(the target is a speed-up >= 0.8 x N), and checks that every configuration
gave bit-identical group sums.  On a shared machine, run it when it is idle.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

MIXED = "random,heavy,keeper,hunter,random"


def _warm() -> int:
    """Run on each worker: load the engine (numba cache) before timing."""
    from domeng.batch.tables import run_tables

    run_tables("random", None, 0, 0, 2, 2, threads=1)
    return os.getpid()


def measure(workers: int, args) -> dict:
    from domeng.study.cluster import local_cluster
    from domeng.study.simulate import simulate

    with local_cluster(workers) as client:
        client.wait_for_workers(workers, timeout=120)
        client.run(_warm)
        t0 = time.perf_counter()
        res = simulate(
            tables=args.tables,
            rounds=args.rounds,
            players=args.players,
            seed=args.seed,
            chunk_tables=args.chunk_tables,
            client=client,
            progress=args.progress,
        )
        dt = time.perf_counter() - t0
    return {
        "workers": workers,
        "seconds": dt,
        "rounds": res.total_rounds,
        "rounds_per_s": res.total_rounds / dt,
        "chunk_tables": args.chunk_tables,
        "_agg": res.group_agg,
        "_state": res.group_state,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=200_000, help="tables (default 200,000)")
    ap.add_argument("--rounds", type=int, default=500, help="rounds per table (default 500)")
    ap.add_argument("--players", default=MIXED, help=f"players (default {MIXED})")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", default="1,2", help="worker counts to compare (default 1,2)")
    ap.add_argument(
        "--chunk-tables",
        type=int,
        default=None,
        help="tables per task (default: the study default, ~200,000 rounds)",
    )
    ap.add_argument("--progress", action="store_true", help="show the progress bar")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    counts = [int(x) for x in args.workers.split(",")]
    if args.chunk_tables is None:
        from domeng.study.summary import default_chunk_tables

        args.chunk_tables = default_chunk_tables(args.tables, args.rounds)

    print(
        f"study: {args.tables:,} tables x {args.rounds} rounds = {args.tables * args.rounds:,} "
        f"rounds, players {args.players}, {args.chunk_tables} tables per task "
        f"({-(-args.tables // args.chunk_tables)} tasks); {os.cpu_count()} cores",
        file=sys.stderr,
    )
    rows = []
    for n in counts:
        r = measure(n, args)
        rows.append(r)
        print(
            f"  {n} worker(s): {r['seconds']:.1f} s, {r['rounds_per_s'] / 1e6:.2f} M rounds/s",
            file=sys.stderr,
        )
    base = next((r for r in rows if r["workers"] == 1), rows[0])
    identical = all(
        np.array_equal(r["_agg"], rows[0]["_agg"])
        and np.array_equal(r["_state"], rows[0]["_state"])
        for r in rows
    )
    for r in rows:
        r["speedup"] = r["rounds_per_s"] / base["rounds_per_s"] * base["workers"]
        r["efficiency"] = r["speedup"] / r["workers"]
    out = [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]
    if args.json:
        print(
            json.dumps(
                {
                    "study": {
                        "tables": args.tables,
                        "rounds": args.rounds,
                        "players": args.players,
                        "seed": args.seed,
                    },
                    "results": out,
                    "identical": identical,
                },
                indent=2,
            )
        )
    else:
        print(f"{'workers':>7} {'seconds':>8} {'M rounds/s':>11} {'speed-up':>9} {'x ideal':>8}")
        for r in out:
            print(
                f"{r['workers']:>7} {r['seconds']:>8.1f} {r['rounds_per_s'] / 1e6:>11.2f} "
                f"{r['speedup']:>9.2f} {r['efficiency']:>8.2f}"
            )
        print(f"identical results across worker counts: {identical}  (target: speed-up >= 0.8 x N)")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
