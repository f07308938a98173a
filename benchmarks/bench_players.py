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

``--vs-search LINEUP`` (issue 13's search target) instead runs one duplicate
match of five players, ``search`` among them, in batches of
``--batch-deals`` deals (seeds ``--seed``, ``--seed + 1``, ...; every deal is
played under the ``--orders`` seatings: ``balanced`` puts every player at
every distance from every other once per rotation), appends each batch's
per-deal statistics to ``--log`` (an ``.npz``, so a long run can be stopped
and resumed: batches already in the log are not played again), and prints
after every batch each player's margin over ``search`` (net stones per
round, paired by deal, 95% interval) until ``--max-deals`` deals or
``--minutes`` minutes; then the decision times (wall and CPU, p50/p99) of
each search player.  ``--pool LOG LOG ...`` reports one match from the logs
of several runs of it on other seeds (one run per core, say: ``--seed 101``
and ``--seed 126`` with ``--max-deals 100`` each).  ``--omniscient COMPARE``
measures the bound instead:
what the research player that sees every hand gains over ``COMPARE``
(paired by deal, seat 0, a field of ``--bound-field``).  A name
``ismcts-N:model`` or ``ismcts-N:heavy`` (or both) is ``ismcts`` with the
other seats playing the rollout player inside the tree, or with ``heavy``
rollouts (:func:`make_ismcts_strategy`); ``esearch-N:epsX`` is ``esearch``
whose rollout moves are random with probability X (epsilon rollouts).

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
from domeng.players.isearch import make_isearch_strategy
from domeng.players.ismcts import make_ismcts_strategy
from domeng.players.registry import CompiledPlayer, make_player, resolve_player
from domeng.results.stats import Z95
from domeng.study.tournament import STATS, tournament


def speed(
    player: str, tables: int = 2000, rounds: int = 500, repeat: int = 3
) -> tuple[float, float]:
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


def margin(
    lineup: str,
    deals: int,
    rounds: int,
    seed: int,
    orders: str,
    a: int = 0,
    b: list[int] | None = None,
) -> dict:
    """Paired margin of player ``a`` minus the mean of players ``b`` (default: the others)."""
    t0 = time.time()
    res = tournament(lineup, deals=deals, rounds=rounds, seed=seed, orders=orders, progress=False)
    r = res.per_deal[:, :, STATS.index("rounds")].astype(float)
    net = res.per_deal[:, :, STATS.index("net")] / r
    b = [i for i in range(5) if i != a] if b is None else b
    d = net[:, a] - net[:, b].mean(axis=1)
    m, se = float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))
    return {
        "lineup": lineup,
        "deals": deals,
        "rounds": rounds,
        "seed": seed,
        "orders": orders,
        "margin": m,
        "se": se,
        "ci95": [m - Z95 * se, m + Z95 * se],
        "seconds": time.time() - t0,
    }


def bench_player(name: str):
    """A registered player name, ``ismcts-N:opt:opt`` (options ``model``,
    ``heavy``, ``cX`` for the exploration constant X, ``pbX`` for a
    progressive bias of weight X towards the rollout player's moves) or ``esearch-N:epsX``
    (``nsearch`` too: a rollout move is a random legal one with probability
    X): the compiled strategy or the name."""
    if ":" in name and name.split("-", 1)[0] in ("esearch", "nsearch"):
        base, *opts = name.split(":")
        kind, _, n = base.partition("-")
        eps = [float(o[3:]) for o in opts if o.startswith("eps")]
        return make_isearch_strategy(kind, int(n) if n else None, explore=eps[0] if eps else 0.0)
    if not name.startswith("ismcts") or ":" not in name:
        return name
    base, *opts = name.split(":")
    n = int(base.split("-", 1)[1]) if "-" in base else None
    c = [float(o[1:]) for o in opts if o.startswith("c")]
    pb = [float(o[2:]) for o in opts if o.startswith("pb")]
    kw = {"model": "model" in opts, "rollout": "heavy" if "heavy" in opts else "expert"}
    if c:
        kw["c_uct"] = c[0]
    if pb:
        kw["pb"] = pb[0]
    return make_ismcts_strategy(n, **kw)


def _reference_player(name: str):
    p = bench_player(name)
    return make_player(p) if isinstance(p, str) else CompiledPlayer(name, p)


def decision_times(name: str, games: int, cpu: bool = False) -> np.ndarray:
    """Seconds per decision (2+ legal moves) of ``name`` in seat 0 of
    ``games`` first rounds against hunter, keeper, heavy, random (wall
    time; with ``cpu``, the process's CPU time: the figure for one core when
    the machine is shared)."""
    player = _reference_player(name)
    clock = time.process_time if cpu else time.perf_counter
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
            t0 = clock()
            move = players[seat].choose(obs, moves, t.seat_rngs[seat])
            if seat == 0 and len(moves) > 1:
                times.append(clock() - t0)
            rnd.play(move)
    return np.array(times)


def _ci(d: np.ndarray) -> tuple[float, float, float, float]:
    m = float(d.mean())
    se = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("nan")
    return m, se, m - Z95 * se, m + Z95 * se


def _margins(per: np.ndarray, lineup: list[str], out: dict) -> str:
    """Each player's paired margin over ``search`` (net stones per round,
    per deal) from the per-deal statistics ``per``, into ``out``; one line."""
    net = per[:, :, STATS.index("net")] / per[:, :, STATS.index("rounds")]
    s_idx = lineup.index("search")
    line = []
    for i, name in enumerate(lineup):
        if i == s_idx or lineup.index(name) != i:
            continue
        m, se, lo, hi = _ci(net[:, i] - net[:, s_idx])
        out[f"{name}_minus_search"] = {"margin": m, "se": se, "ci95": [lo, hi]}
        line.append(f"{name} {m:+.4f} [{lo:+.4f}, {hi:+.4f}]")
    return "; ".join(line)


def vs_search(
    lineup: list[str],
    rounds: int,
    orders: str,
    seed: int,
    batch: int,
    max_deals: int,
    minutes: float,
    log: Path | None,
    say=print,
) -> dict:
    """The duplicate match of ``lineup`` (five names, ``search`` among them),
    in batches of ``batch`` deals, logged to ``log``; each player's paired
    margin over ``search`` (see the module docstring)."""
    if "search" not in lineup:
        raise SystemExit("--vs-search: the lineup must include search")
    specs = [resolve_player(bench_player(n)) for n in lineup]
    per: list[np.ndarray] = []
    seeds: list[int] = []
    if log is not None and log.exists():
        z = np.load(log)
        if list(z["lineup"]) != lineup or int(z["rounds"]) != rounds or str(z["orders"]) != orders:
            raise SystemExit(f"{log} holds another match: give another --log")
        per, seeds = list(z["per_deal"]), [int(x) for x in z["seeds"]]
    t_end = time.time() + 60 * minutes
    k = 0
    out: dict = {}
    while len(per) < max_deals and time.time() < t_end:
        bseed = seed + k
        k += 1
        if bseed in seeds:
            continue
        t0 = time.time()
        res = tournament(
            specs, deals=batch, rounds=rounds, seed=bseed, orders=orders, progress=False
        )
        per.extend(res.per_deal)
        seeds.extend([bseed] * batch)
        if log is not None:
            np.savez(
                log,
                per_deal=np.array(per),
                seeds=np.array(seeds),
                lineup=np.array(lineup),
                rounds=rounds,
                orders=orders,
            )
        line = _margins(np.array(per), lineup, out)
        say(
            f"{len(per)} deals ({time.time() - t0:.0f} s for the last {batch}): minus search: "
            + line,
            flush=True,
        )
    if per and not out:  # the log already held every deal asked for: report it
        say(
            f"{len(per)} deals (from {log}): minus search: " + _margins(np.array(per), lineup, out),
            flush=True,
        )
    out.update(
        {
            "lineup": lineup,
            "deals": len(per),
            "rounds": rounds,
            "orders": orders,
            "seeds": sorted(set(seeds)),
        }
    )
    return out


def pool(logs: list[Path], say=print) -> dict:
    """One match from the ``--log`` files of several runs of it (the same
    lineup, rounds and seatings, other deals: e.g. two halves of the seeds
    played on two cores): each player's paired margin over ``search``."""
    per, seeds, first = [], set(), None
    for path in logs:
        z = np.load(path)
        key = (list(z["lineup"]), int(z["rounds"]), str(z["orders"]))
        if first is None:
            first = key
        elif key != first:
            raise SystemExit(f"{path} holds another match than {logs[0]}")
        mine = {int(x) for x in z["seeds"]}
        if seeds & mine:
            raise SystemExit(f"--pool: {path} holds deals (seeds) of another log too")
        seeds |= mine
        per.extend(z["per_deal"])
    out: dict = {}
    say(
        f"{len(per)} deals pooled from {len(logs)} logs: minus search: "
        + _margins(np.array(per), first[0], out),
        flush=True,
    )
    out.update(
        {
            "lineup": first[0],
            "deals": len(per),
            "rounds": first[1],
            "orders": first[2],
            "seeds": sorted(seeds),
            "logs": [str(p) for p in logs],
        }
    )
    return out


def bound(
    compare: str, field: str, games: int, rounds: int, seed: int, samples: int, say=print
) -> dict:
    """What seeing every hand is worth: ``omniscient`` (perfect-information
    Monte Carlo, ``samples`` expert rollouts per move, on the true hands)
    minus ``compare`` at seat 0 of the same ``games`` deals of ``rounds``
    rounds, the four ``field`` players around them (reference engine;
    :func:`domeng.study.omniscient.omniscient_match`)."""
    from domeng.study.omniscient import omniscient_match

    t0, c0 = time.time(), time.process_time()
    r = omniscient_match(
        compare=compare, others=field, games=games, rounds=rounds, seed=seed, samples=samples
    )
    r.update(seconds=time.time() - t0, cpu_seconds=time.process_time() - c0)
    say(
        f"omniscient ({samples} rollouts a move) minus {compare} at seat 0 with four {field}s, "
        f"{games} deals x {rounds} rounds: {r['margin']:+.4f} [{r['ci95'][0]:+.4f}, "
        f"{r['ci95'][1]:+.4f}] ({r['cpu_seconds']:.0f} CPU-s)",
        flush=True,
    )
    return r


def _time_report(names: list[str], games: int, say=print) -> dict:
    out = {}
    for name in names:
        wall = 1e3 * decision_times(name, games)
        cpu = 1e3 * decision_times(name, games, cpu=True)
        out[name] = {
            "n": len(wall),
            "wall_ms": {
                "mean": float(wall.mean()),
                "p50": float(np.median(wall)),
                "p99": float(np.quantile(wall, 0.99)),
                "max": float(wall.max()),
            },
            "cpu_ms": {
                "mean": float(cpu.mean()),
                "p50": float(np.median(cpu)),
                "p99": float(np.quantile(cpu, 0.99)),
                "max": float(cpu.max()),
            },
        }
        w, c = out[name]["wall_ms"], out[name]["cpu_ms"]
        say(
            f"{name}: decision time over {len(wall)} decisions: wall p50 {w['p50']:.1f} ms, "
            f"p99 {w['p99']:.1f} ms (max {w['max']:.1f}); CPU p50 {c['p50']:.1f} ms, "
            f"p99 {c['p99']:.1f} ms (max {c['max']:.1f})",
            flush=True,
        )
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=4000)
    ap.add_argument("--search-deals", type=int, default=12)
    ap.add_argument("--search-rounds", type=int, default=5)
    ap.add_argument(
        "--searchers",
        default="esearch-100,isearch-100",
        help="the stronger search players to measure against search (400 samples)",
    )
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--skip-search", action="store_true")
    ap.add_argument("--speed-only", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--vs-search",
        metavar="LINEUP",
        help="five players, search among them: the head-to-head match alone",
    )
    ap.add_argument("--rounds", type=int, default=3, help="rounds per deal (--vs-search)")
    ap.add_argument("--orders", default="balanced", help="seating design (--vs-search)")
    ap.add_argument("--batch-deals", type=int, default=4)
    ap.add_argument("--max-deals", type=int, default=400)
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--log", type=Path, help="per-deal statistics (.npz), resumable")
    ap.add_argument(
        "--pool",
        type=Path,
        nargs="+",
        metavar="LOG",
        help="report one match from the --log files of several runs of it "
        "(other seeds, e.g. one run per core)",
    )
    ap.add_argument(
        "--times-only", action="store_true", help="with --vs-search: only the decision times"
    )
    ap.add_argument(
        "--omniscient",
        metavar="COMPARE",
        help="the bound: omniscient minus each of these players (comma-separated) at "
        "seat 0 on the same deals, four --bound-field players around them",
    )
    ap.add_argument("--bound-games", type=int, default=1000)
    ap.add_argument("--bound-samples", type=int, default=20, help="omniscient's rollouts per move")
    ap.add_argument("--bound-field", default="hunter")
    args = ap.parse_args(argv)
    out: dict = {}
    log = (lambda *a, **k: print(*a, file=sys.stderr, **k)) if args.json else print
    if args.omniscient:
        out["omniscient"] = [
            bound(
                c.strip(),
                args.bound_field,
                args.bound_games,
                args.rounds,
                args.seed,
                args.bound_samples,
                say=log,
            )
            for c in args.omniscient.split(",")
        ]
        if args.json:
            print(json.dumps(out, indent=2))
        return 0
    if args.pool:
        out["match"] = pool(args.pool, say=log)
        if args.json:
            print(json.dumps(out, indent=2))
        return 0
    if args.vs_search:
        lineup = [x.strip() for x in args.vs_search.split(",")]
        if not args.times_only:
            out["match"] = vs_search(
                lineup,
                args.rounds,
                args.orders,
                args.seed,
                args.batch_deals,
                args.max_deals,
                args.minutes,
                args.log,
                say=log,
            )
        searchers = [n for n in dict.fromkeys(lineup) if "search" in n or "ismcts" in n]
        out["decision_times"] = _time_report(searchers, args.games, say=log)
        if args.json:
            print(json.dumps(out, indent=2))
        return 0
    for name in ("expert", "hunter"):
        wall, cpu = speed(name)
        out[f"{name}_x5_rounds_per_s"] = wall
        out[f"{name}_x5_rounds_per_cpu_s"] = cpu
        log(
            f"speed, one thread, {name} x5: {wall / 1e6:.2f} M rounds/s wall, "
            f"{cpu / 1e6:.2f} M rounds per CPU-second"
            + (" (target >= 1 M)" if name == "expert" else "")
        )
    if args.speed_only:
        print(json.dumps(out, indent=2)) if args.json else None
        return 0
    out["expert_vs_hunters"] = margin(
        "expert,hunter,hunter,hunter,hunter", args.deals, 10, args.seed, "balanced"
    )
    e = out["expert_vs_hunters"]
    log(
        f"expert minus hunters: {e['margin']:+.4f} [{e['ci95'][0]:+.4f}, {e['ci95'][1]:+.4f}] "
        f"({args.deals} deals x 10 rounds x 20 seatings)"
    )
    if not args.skip_search:
        sd, sr = args.search_deals, args.search_rounds
        for name in ["expert", "search"] + args.searchers.split(","):
            key = f"{name}_vs_hunters_small"
            out[key] = margin(f"{name},hunter,hunter,hunter,hunter", sd, sr, args.seed, "balanced")
            r = out[key]
            log(
                f"{name} minus hunters: {r['margin']:+.4f} [{r['ci95'][0]:+.4f}, "
                f"{r['ci95'][1]:+.4f}] ({sd} deals x {sr} rounds x 20 seatings, "
                f"{r['seconds']:.0f} s)"
            )
        for name in args.searchers.split(","):
            key = f"{name}_vs_search"
            out[key] = margin(
                f"{name},search,hunter,hunter,hunter", sd, sr, args.seed, "all", a=0, b=[1]
            )
            r = out[key]
            log(
                f"{name} minus search (head to head, with three hunters): {r['margin']:+.4f} "
                f"[{r['ci95'][0]:+.4f}, {r['ci95'][1]:+.4f}] ({sd} deals x {sr} rounds x 120 "
                f"seatings, {r['seconds']:.0f} s)"
            )
        for name in ["search"] + args.searchers.split(","):
            x = decision_times(name, args.games)
            out[f"{name}_decision_ms"] = {
                "mean": 1e3 * float(x.mean()),
                "p99": 1e3 * float(np.quantile(x, 0.99)),
                "max": 1e3 * float(x.max()),
                "n": len(x),
            }
            d = out[f"{name}_decision_ms"]
            log(
                f"{name}: decision time mean {d['mean']:.1f} ms, p99 {d['p99']:.1f} ms "
                f"over {d['n']} decisions"
            )
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
