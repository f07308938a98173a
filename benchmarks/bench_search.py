"""The search player: time per decision at its default budget, and its
margin over the best heuristic player in a duplicate tournament.

    .venv/bin/python benchmarks/bench_search.py [--deals 300] [--rounds 10] [--json]

Decision time is measured on real positions (every decision of the search
seat in a few games), called the way the batch engine calls it; the target is
under 0.5 s per decision.  The margin is the paired difference of net stones
per round (search minus hunter; negative = search collects fewer stones),
from a duplicate tournament of search against four hunters, with its 95% CI.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from domeng.engine.reference import Table
from domeng.players.registry import make_player
from domeng.players.search import DEFAULT_SAMPLES
from domeng.study.tournament import tournament


def decision_times(n_games: int = 20) -> np.ndarray:
    search = make_player("search")
    others = [make_player(n) for n in ("hunter", "keeper", "heavy", "random")]
    times = []
    # warm up (compile) outside the timing
    t = Table(seed=0)
    t.play_round([search] + others)
    for g in range(n_games):
        t = Table(seed=100 + g)
        rnd = t.new_round()
        players = [search] + others
        while not rnd.ended:
            moves = rnd.legal_moves()
            if not moves:
                rnd.pass_turn()
                continue
            seat = rnd.to_move
            obs = rnd.observation(seat)
            t0 = time.perf_counter()
            move = players[seat].choose(obs, moves, t.seat_rngs[seat])
            dt = time.perf_counter() - t0
            if seat == 0 and len(moves) > 1:
                times.append(dt)
            rnd.play(move)
    return np.array(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    times = decision_times()
    t0 = time.time()
    res = tournament(
        "search,hunter,hunter,hunter,hunter",
        deals=args.deals,
        rounds=args.rounds,
        seed=args.seed,
        progress=False,
    )
    elapsed = time.time() - t0
    m = res.margins()
    vs = m[(m.a == "search") & (m.b.str.startswith("hunter"))]
    diff = res.per_deal  # [deals, 5, stats]
    from domeng.study.tournament import STATS

    rounds = diff[:, :, STATS.index("rounds")].astype(float)
    net = diff[:, :, STATS.index("net")].astype(float) / rounds
    pooled = net[:, 0] - net[:, 1:].mean(axis=1)  # search minus the mean of the four hunters
    pm = float(pooled.mean())
    pse = float(pooled.std(ddof=1) / np.sqrt(len(pooled)))
    out = {
        "samples_per_decision": DEFAULT_SAMPLES,
        "decisions_timed": len(times),
        "decision_seconds_mean": float(times.mean()),
        "decision_seconds_p99": float(np.quantile(times, 0.99)),
        "decision_seconds_max": float(times.max()),
        "tournament": f"search,hunter x4, {args.deals} deals x {args.rounds} rounds x 5 rotations, "
        f"seed {args.seed}",
        "tournament_seconds": elapsed,
        "margin_vs_hunters_net_per_round": pm,
        "margin_se": pse,
        "margin_ci95": [pm - 1.96 * pse, pm + 1.96 * pse],
        "margins_vs_each_hunter": vs[["b", "net_diff", "ci_low", "ci_high"]].to_dict("records"),
        "table": res.table()[
            ["player", "net", "net_ci_low", "net_ci_high", "win_rate", "camat_per_1000"]
        ].to_dict("records"),
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"search player, default budget {DEFAULT_SAMPLES} samples per decision")
    print(
        f"  decision time over {len(times)} decisions: mean {times.mean() * 1e3:.1f} ms, "
        f"p99 {out['decision_seconds_p99'] * 1e3:.1f} ms, max {times.max() * 1e3:.1f} ms "
        f"(target < 500 ms: {'met' if times.max() < 0.5 else 'MISSED'})"
    )
    print(f"  {out['tournament']} ({elapsed:.0f} s)")
    print(res.to_text())
    print(
        f"  margin, search minus the hunters' mean: {pm:+.4f} net stones per round, 95% CI "
        f"[{pm - 1.96 * pse:+.4f}, {pm + 1.96 * pse:+.4f}]"
        f" ({'significant' if abs(pm) > 1.96 * pse else 'not significant'})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
