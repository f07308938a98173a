"""Tune the ``expert`` player's weights by simulation (issue 13).

Cross-entropy method over the weights of :mod:`domeng.players.expert`
(``pips`` fixed at 1: the scale of a score does not change the move played).
Each iteration draws ``--population`` weight vectors from a normal
distribution, plays each in a duplicate match against a fixed field
(``--field``, four players) on the batch engine, and moves the distribution
to the best quarter.  A candidate's objective is its paired margin: its net
stones per round minus the field's mean, deal by deal (lower is better:
stones are penalties).  All candidates of one iteration play the same deals
(common random numbers); each iteration has fresh deals.  At the end the
final mean is validated on fresh deals against the field, beside the
starting weights, with 95% intervals.

    .venv/bin/python analysis/expert_tuning/run.py                 # ~5 min on one core
    .venv/bin/python analysis/expert_tuning/run.py --iterations 2 --population 4 \
        --deals 20 --rounds 2 --out /tmp/tune                       # a smoke run

Outputs (``--out``, default ``analysis/expert_tuning/output``): ``history.csv``
(every candidate), ``results.json`` (the tuned weights as a Python tuple for
``EXPERT_WEIGHTS``, the validation margins with SE and 95% CI) and
``progress.png``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd
from _common import Z95, environment, est, save_fig, setup_matplotlib, write_csv, write_json

from domeng.players.expert import FEATURES, START_WEIGHTS, TunableExpert
from domeng.study.tournament import STATS, tournament

#: initial spread of each tuned weight (features 1.. of FEATURES)
START_SPREAD = (2.0, 40.0, 10.0, 10.0, 4.0, 3.0, 6.0, 3.0, 5.0, 2.0)


_TUNABLE: list[TunableExpert] = []


def margin(
    weights, field: list[str], deals: int, rounds: int, seed: int, workers: int | None
) -> tuple[float, float]:
    """Paired margin (candidate minus the field's mean) of net stones per round, and its SE."""
    if not _TUNABLE:
        _TUNABLE.append(TunableExpert())  # compiled once; the weights are set per candidate
    _TUNABLE[0].set(weights)
    res = tournament(
        [_TUNABLE[0].player] + field,
        deals=deals,
        rounds=rounds,
        seed=seed,
        workers=workers,
        progress=False,
        orders="rotations",
    )
    rounds_ = res.per_deal[:, :, STATS.index("rounds")].astype(float)
    net = res.per_deal[:, :, STATS.index("net")] / rounds_
    d = net[:, 0] - net[:, 1:].mean(axis=1)
    se = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("nan")
    return float(d.mean()), se


def tune(
    field: list[str],
    iterations: int,
    population: int,
    deals: int,
    rounds: int,
    seed: int,
    workers: int | None,
    log=print,
) -> tuple[np.ndarray, pd.DataFrame]:
    """The cross-entropy method; returns the final weights and every candidate's row."""
    rs = np.random.default_rng(seed)
    mean = np.array(START_WEIGHTS[1:], dtype=float)
    std = np.array(START_SPREAD, dtype=float)
    n_elite = max(2, population // 4)
    rows = []
    for it in range(iterations):
        xs = mean + std * rs.standard_normal((population, len(mean)))
        xs[0] = mean  # the current mean plays too, on the same deals
        scores = []
        for k, x in enumerate(xs):
            w = np.concatenate([[1.0], x])
            m, se = margin(w, field, deals, rounds, seed * 1000 + it, workers)
            scores.append(m)
            rows.append(
                {
                    "iteration": it,
                    "candidate": k,
                    "is_mean": k == 0,
                    "margin": m,
                    "se": se,
                    **{f: v for f, v in zip(FEATURES, w)},
                }
            )
        scores = np.array(scores)
        elite = xs[np.argsort(scores)[:n_elite]]
        mean = 0.3 * mean + 0.7 * elite.mean(axis=0)
        # the spread follows the elite, plus extra noise that fades (avoids early collapse)
        fade = max(0.0, 1.0 - (it + 1) / max(1, iterations))
        std = 0.3 * std + 0.7 * elite.std(axis=0) + 0.1 * np.array(START_SPREAD) * fade
        log(
            f"iteration {it + 1}/{iterations}: mean's margin {scores[0]:+.4f}, best "
            f"{scores.min():+.4f}, median {np.median(scores):+.4f}"
        )
    return np.concatenate([[1.0], mean]), pd.DataFrame(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--field",
        default="hunter,hunter,hunter,hunter",
        help="the four opponents (default four hunters)",
    )
    ap.add_argument("--iterations", type=int, default=12)
    ap.add_argument("--population", type=int, default=24)
    ap.add_argument("--deals", type=int, default=3000, help="deals per candidate")
    ap.add_argument("--rounds", type=int, default=10, help="rounds per deal")
    ap.add_argument("--validate-deals", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    field = [s.strip() for s in args.field.split(",")]
    if len(field) != 4:
        ap.error("--field: give four players")
    out = Path(args.out) if args.out else Path(__file__).resolve().parent / "output"
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    weights, hist = tune(
        field, args.iterations, args.population, args.deals, args.rounds, args.seed, args.workers
    )
    vseed = args.seed + 7919
    valid = {}
    for name, w in (("tuned", weights), ("start", np.array(START_WEIGHTS))):
        m, se = margin(w, field, args.validate_deals, args.rounds, vseed, args.workers)
        valid[name] = est(m, se)
        print(
            f"validation, {name} weights minus the field: {m:+.4f} "
            f"[{m - Z95 * se:+.4f}, {m + Z95 * se:+.4f}] net stones per round"
        )
    write_csv(hist, out / "history.csv")
    write_json(
        {
            "field": field,
            "iterations": args.iterations,
            "population": args.population,
            "deals": args.deals,
            "rounds": args.rounds,
            "seed": args.seed,
            "features": list(FEATURES),
            "weights": {f: float(v) for f, v in zip(FEATURES, weights)},
            "weights_tuple": repr(tuple(round(float(v), 4) for v in weights)),
            "validation": {"deals": args.validate_deals, "seed": vseed, **valid},
            "seconds": time.time() - t0,
            "environment": environment(),
        },
        out / "results.json",
    )
    plt = setup_matplotlib()
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.scatter(hist["iteration"] + 1, hist["margin"], s=8, alpha=0.5, label="candidates")
    means = hist[hist["is_mean"]]
    ax.plot(
        means["iteration"] + 1, means["margin"], "o-", color="#c0504d", label="distribution's mean"
    )
    ax.axhline(0, color="#777777", lw=1)
    ax.set_xlabel("iteration")
    ax.set_ylabel("net stones per round minus the field's mean")
    ax.set_title(f"expert tuning against {','.join(field)} (lower is better)")
    ax.legend()
    save_fig(fig, out / "progress.png")
    print("tuned weights:", repr(tuple(round(float(v), 4) for v in weights)))
    print(f"written to {out} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
