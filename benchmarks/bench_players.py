"""The players of issue 13: engine speed of ``expert``, and the strength of
``expert``, ``search``, ``esearch`` and ``isearch`` against ``hunter``, side by side.

    .venv/bin/python benchmarks/bench_players.py [--deals 4000] [--search-deals 12] [--json]

* **speed**: ``run_tables`` with five experts (and five hunters for
  comparison), 2,000 tables x 500 rounds, one thread, best of 3.
* **expert vs hunter**: duplicate match ``expert,hunter x4`` (balanced
  seatings: 20 per deal), ``--deals`` deals x 10 rounds; the paired margin is
  expert's net stones per round minus the hunters' mean, deal by deal.
* **search players vs hunter**: the same format for ``search`` (400 samples)
  and the stronger searches, ``--search-deals`` deals x ``--search-rounds``
  rounds (every player on the same deals, so the margins are comparable).
* **search players head to head**: ``X,search,hunter,hunter,hunter`` with
  every cyclic order (120 seatings), the paired margin X minus search.
* **decision time**: mean and p99 over every decision with 2+ legal moves of
  the searching seat in ``--games`` first rounds (reference engine).

Stones are penalties: a negative margin means fewer net stones (better).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from domeng.batch.tables import run_tables
from domeng.engine.reference import Table
from domeng.players.registry import make_player
from domeng.study.tournament import STATS, Z95, tournament


def speed(player: str, tables: int = 2000, rounds: int = 500, repeat: int = 3) -> tuple[float, float]:
    """Rounds per second of wall time and per CPU-second (best of ``repeat``),
    one thread.  On a machine shared with other jobs the CPU figure is the
    one to read: the wall figure then measures the other jobs too."""
    run_tables(player, n_tables=4, rounds=4, threads=1)  # compile outside the timing
    best = cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        run_tables(player, seed=1, n_tables=tables, rounds=rounds, threads=1)
        best = min(best, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return tables * rounds / best, tables * rounds / cpu


def margin(lineup: str, deals: int, rounds: int, seed: int, orders: str, a: int = 0,
           b: list[int] | None = None) -> dict:
    """Paired margin of player ``a`` minus the mean of players ``b`` (default: the others)."""
    t0 = time.time()
    res = tournament(lineup, deals=deals, rounds=rounds, seed=seed, orders=orders, progress=False)
    r = res.per_deal[:, :, STATS.index("rounds")].astype(float)
    net = res.per_deal[:, :, STATS.index("net")] / r
    b = [i for i in range(5) if i != a] if b is None else b
    d = net[:, a] - net[:, b].mean(axis=1)
    m, se = float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))
    return {"lineup": lineup, "deals": deals, "rounds": rounds, "seed": seed, "orders": orders,
            "margin": m, "se": se, "ci95": [m - Z95 * se, m + Z95 * se],
            "seconds": time.time() - t0}


def decision_times(name: str, games: int) -> np.ndarray:
    player = make_player(name)
    others = [make_player(n) for n in ("hunter", "keeper", "heavy", "random")]
    Table(seed=0).play_round([player] + others)  # compile
    times = []
    for g in range(games):
        t = Table(seed=100 + g)
        rnd = t.new_round()
        players = [player] + others
        while not rnd.ended:
            moves = rnd.legal_moves()
            if not moves:
                rnd.pass_turn()
                continue
            seat = rnd.to_move
            obs = rnd.observation(seat)
            t0 = time.perf_counter()
            move = players[seat].choose(obs, moves, t.seat_rngs[seat])
            if seat == 0 and len(moves) > 1:
                times.append(time.perf_counter() - t0)
            rnd.play(move)
    return np.array(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=4000)
    ap.add_argument("--search-deals", type=int, default=12)
    ap.add_argument("--search-rounds", type=int, default=5)
    ap.add_argument("--searchers", default="esearch-100,isearch-100",
                    help="the stronger search players to measure against search (400 samples)")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--skip-search", action="store_true")
    ap.add_argument("--speed-only", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    out: dict = {}
    log = (lambda *a: print(*a, file=sys.stderr)) if args.json else print
    for name in ("expert", "hunter"):
        wall, cpu = speed(name)
        out[f"{name}_x5_rounds_per_s"] = wall
        out[f"{name}_x5_rounds_per_cpu_s"] = cpu
        log(f"speed, one thread, {name} x5: {wall / 1e6:.2f} M rounds/s wall, "
            f"{cpu / 1e6:.2f} M rounds per CPU-second" + (" (target >= 1 M)" if name == "expert"
                                                          else ""))
    if args.speed_only:
        print(json.dumps(out, indent=2)) if args.json else None
        return 0
    out["expert_vs_hunters"] = margin("expert,hunter,hunter,hunter,hunter", args.deals, 10,
                                      args.seed, "balanced")
    e = out["expert_vs_hunters"]
    log(f"expert minus hunters: {e['margin']:+.4f} [{e['ci95'][0]:+.4f}, {e['ci95'][1]:+.4f}] "
        f"({args.deals} deals x 10 rounds x 20 seatings)")
    if not args.skip_search:
        sd, sr = args.search_deals, args.search_rounds
        for name in ["expert", "search"] + args.searchers.split(","):
            key = f"{name}_vs_hunters_small"
            out[key] = margin(f"{name},hunter,hunter,hunter,hunter", sd, sr, args.seed,
                              "balanced")
            r = out[key]
            log(f"{name} minus hunters: {r['margin']:+.4f} [{r['ci95'][0]:+.4f}, "
                f"{r['ci95'][1]:+.4f}] ({sd} deals x {sr} rounds x 20 seatings, "
                f"{r['seconds']:.0f} s)")
        for name in args.searchers.split(","):
            key = f"{name}_vs_search"
            out[key] = margin(f"{name},search,hunter,hunter,hunter", sd, sr, args.seed, "all",
                              a=0, b=[1])
            r = out[key]
            log(f"{name} minus search (head to head, with three hunters): {r['margin']:+.4f} "
                f"[{r['ci95'][0]:+.4f}, {r['ci95'][1]:+.4f}] ({sd} deals x {sr} rounds x 120 "
                f"seatings, {r['seconds']:.0f} s)")
        for name in ["search"] + args.searchers.split(","):
            x = decision_times(name, args.games)
            out[f"{name}_decision_ms"] = {"mean": 1e3 * float(x.mean()),
                                          "p99": 1e3 * float(np.quantile(x, 0.99)),
                                          "max": 1e3 * float(x.max()), "n": int(len(x))}
            d = out[f"{name}_decision_ms"]
            log(f"{name}: decision time mean {d['mean']:.1f} ms, p99 {d['p99']:.1f} ms "
                f"over {d['n']} decisions")
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
