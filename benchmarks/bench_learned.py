"""Speed of the ``learned`` player in the batch engine (issue 25, item 1:
"evaluated in compiled code at engine speed"), side by side in one run.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_learned.py [--rounds 50] [--repeat 3] [--json]

Rounds a CPU second of ``run_tables`` (one thread, 200 tables), five copies
of each player in turn, the turns interleaved ``--repeat`` times (this
machine is shared: read the ratios, measured in the same run):

* ``learned`` -- the shipped player (:func:`domeng.players.learned.learned_pick`:
  the network's tanh as a rational function, the hidden units side by side);
* ``learned, numpy tanh`` -- the same network as first written
  (:func:`~domeng.players.learned.learned_pick_exact`): the oracle, which
  plays the same moves (``tests/players/test_learned.py``);
* ``expert`` (built in, compiled into the engine) and ``expert`` as a
  compiled player of the player signature (the path ``learned`` takes: a
  seat's view copied, a call through a function pointer);
* ``first legal move`` as a compiled player: that path's cost alone.

A round is about 25 turns, about 20 of them decisions of the seat to move.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from domeng.batch.tables import run_tables
from domeng.players import learned as LP
from domeng.players.expert import EXPERT_WEIGHTS, expert_pick
from domeng.players.scoring import compile_player

_W = np.array(EXPERT_WEIGHTS, dtype=np.float64)


def _expert(obs, hist, moves, n_moves, rng):
    return expert_pick(_W, obs, moves, n_moves, rng)


def _first(obs, hist, moves, n_moves, rng):
    return 0


def players() -> dict[str, object]:
    return {
        "learned": "learned",
        "learned, numpy tanh": LP.make_learned_strategy(pick=LP.learned_pick_exact),
        "expert (built in)": "expert",
        "expert (compiled player)": compile_player(_expert),
        "first legal move (compiled player)": compile_player(_first),
    }


def rate(player, rounds: int, tables: int = 200) -> float:
    """Rounds a CPU second of five ``player`` at ``tables`` tables."""
    t0 = time.process_time()
    r = run_tables([player] * 5, seed=1, n_tables=tables, rounds=rounds, threads=1)
    dt = time.process_time() - t0
    return float(r.state.shape[0] * rounds / dt)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=50, help="rounds a table (200 tables)")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved runs of every player")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    a = ap.parse_args()
    ps = players()
    for p in ps.values():  # compile (and load) every player first: not timed
        run_tables([p] * 5, seed=1, n_tables=2, rounds=2, threads=1)
    runs: dict[str, list[float]] = {k: [] for k in ps}
    for _ in range(a.repeat):
        for k, p in ps.items():
            runs[k].append(rate(p, a.rounds))
    base = runs["learned, numpy tanh"]
    out = {
        k: {
            "rounds_per_cpu_s": [round(x) for x in v],
            "ratio_to_numpy_tanh": [round(x / b, 3) for x, b in zip(v, base)],
        }
        for k, v in runs.items()
    }
    if a.json:
        print(json.dumps(out, indent=1))
        return
    print(
        f"{'player (x5, one thread)':40s} {'rounds / CPU s (each run)':>36s}  ratio to numpy tanh"
    )
    for k, v in out.items():
        rates = " ".join(f"{x:>9,d}" for x in v["rounds_per_cpu_s"])
        ratios = " ".join(f"{x:.2f}" for x in v["ratio_to_numpy_tanh"])
        print(f"{k:40s} {rates:>36s}  {ratios}")


if __name__ == "__main__":
    main()
