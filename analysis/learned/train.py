"""Train the ``learned`` player by evolution strategies (issue 25, item 1).

The parameters of :mod:`domeng.players.learned` (the expert's linear weights
plus one hidden layer) start at the expert (output weights zero) and move by
antithetic evolution strategies (OpenAI-ES: centred-rank fitness, Adam).
Each iteration draws ``--pairs`` noise vectors ``e``; ``theta + e`` and
``theta - e`` each play a duplicate match (every seating of five rotations)
against four ``expert``s on the batch engine, all candidates of one
iteration on the same fresh deals (common random numbers).  A candidate's
fitness is its paired margin: its net stones a round minus the field's
mean, deal by deal (lower is better: stones are penalties).

Every ``--eval-every`` iterations the current parameters play the FIXED
tables (``--eval-deals`` deals of seed ``--eval-seed``, the same at every
point) against four experts; the curve is the paired difference to the
expert in the same seat on the same tables (0 at iteration 0: the player
starts as the expert).

The run is seeded (the noise and the deals of iteration ``i`` depend only on
``--seed`` and ``i``) and resumable: after each iteration it writes
``checkpoint.npz`` in ``--out``, and a new run with the same arguments
continues from it (``--fresh`` starts over).  ``--budget-minutes`` stops
after that much CPU time (the checkpoint keeps the count).

    nice -n 10 .venv/bin/python analysis/learned/train.py            # ~40 CPU-minutes
    .venv/bin/python analysis/learned/train.py --iterations 2 --pairs 2 \
        --deals 20 --eval-deals 20 --out /tmp/learned --weights /tmp/learned/w.json

Outputs (``--out``, default ``analysis/learned/output``): ``curve.csv`` and
``curve.png`` (the learning curve on the fixed tables), ``history.csv``
(every iteration), and the weights (``--weights``, default
``domeng/players/data/learned.json``, with the command, seed and commit).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd
from _common import Z95, git_commit, save_fig, setup_matplotlib, write_csv

from domeng.players.expert import START_WEIGHTS
from domeng.players.learned import (
    LAYOUT,
    N_FEATURES,
    N_PARAMS,
    TunableLearned,
    start_params,
    weights_document,
)
from domeng.study.tournament import STATS, tournament

ROOT = Path(__file__).resolve().parents[2]
FIELD = ["expert"] * 4
#: the arguments that must match to continue from a checkpoint
SAME = ("seed", "pairs", "deals", "rounds", "lr", "eval_every", "eval_deals", "eval_seed")


def noise_scale() -> np.ndarray:
    """The sd of the search noise of each parameter (``pips`` fixed at 1)."""
    s = np.empty(N_PARAMS)
    s[0] = 0.0
    s[1:N_FEATURES] = 0.15 * np.abs(np.array(START_WEIGHTS[1:])) + 0.3
    s[LAYOUT["W"]] = 0.3
    s[LAYOUT["b"]] = 0.3
    s[LAYOUT["v"]] = 0.5
    return s


_TUNABLE: list[TunableLearned] = []


def nets(player, deals: int, rounds: int, seed: int) -> np.ndarray:
    """Net stones a round of each of the five players, deal by deal
    (``player`` in the first place, four experts; five rotations)."""
    res = tournament(
        [player] + FIELD,
        deals=deals,
        rounds=rounds,
        seed=seed,
        workers=1,
        progress=False,
        orders="rotations",
        time_decisions=False,
    )
    r = res.per_deal[:, :, STATS.index("rounds")].astype(float)
    return res.per_deal[:, :, STATS.index("net")] / r


def fitness(params, deals: int, rounds: int, seed: int) -> float:
    """A candidate's paired margin: its net a round minus the field's mean."""
    if not _TUNABLE:
        _TUNABLE.append(TunableLearned())
    _TUNABLE[0].set(params)
    n = nets(_TUNABLE[0].player, deals, rounds, seed)
    return float((n[:, 0] - n[:, 1:].mean(axis=1)).mean())


def centred_ranks(x: np.ndarray) -> np.ndarray:
    r = np.empty(len(x))
    r[np.argsort(x)] = np.arange(len(x))
    return r / (len(x) - 1) - 0.5


class Adam:
    def __init__(self, n: int, lr: float) -> None:
        self.lr, self.m, self.v, self.t = lr, np.zeros(n), np.zeros(n), 0

    def step(self, g: np.ndarray) -> np.ndarray:
        self.t += 1
        self.m = 0.9 * self.m + 0.1 * g
        self.v = 0.999 * self.v + 0.001 * g * g
        mh = self.m / (1 - 0.9**self.t)
        vh = self.v / (1 - 0.999**self.t)
        return -self.lr * mh / (np.sqrt(vh) + 1e-8)


def evaluate(params, base: np.ndarray, args) -> dict:
    """The parameters on the fixed tables: the paired difference to the
    expert in the same seat (``base``: the expert's nets there)."""
    if not _TUNABLE:
        _TUNABLE.append(TunableLearned())
    _TUNABLE[0].set(params)
    n = nets(_TUNABLE[0].player, args.eval_deals, args.rounds, args.eval_seed)
    d = n[:, 0] - base
    m = n[:, 0] - n[:, 1:].mean(axis=1)
    sd = float(d.std(ddof=1) / np.sqrt(len(d)))
    sm = float(m.std(ddof=1) / np.sqrt(len(m)))
    return {"vs_expert": float(d.mean()), "vs_expert_se": sd, "margin": m.mean(), "margin_se": sm}


def load_checkpoint(path: Path, args) -> dict | None:
    if args.fresh or not path.exists():
        return None
    with np.load(path, allow_pickle=False) as z:
        ck = {k: z[k] for k in z.files}
    saved = json.loads(str(ck["args"]))
    diff = [k for k in SAME if saved.get(k) != getattr(args, k)]
    if diff:
        raise SystemExit(
            f"checkpoint {path} was made with other {', '.join(diff)}: "
            "give the same arguments, or --fresh to start over"
        )
    return ck


def save_checkpoint(path: Path, theta, adam: Adam, run: dict, args) -> None:
    """Write the state after ``run["iteration"]`` iterations (``run``: also
    ``cpu``, ``history``, ``curve`` and the ``commit`` the run started from)."""
    tmp = path.with_name(".checkpoint.tmp.npz")
    np.savez(
        tmp,
        theta=theta,
        m=adam.m,
        v=adam.v,
        t=adam.t,
        iteration=run["iteration"],
        cpu=run["cpu"],
        history=json.dumps(run["history"]),
        curve=json.dumps(run["curve"]),
        args=json.dumps({k: getattr(args, k) for k in SAME}),
        commit=run["commit"],
    )
    tmp.replace(path)


def train(args, out: Path, log=print):
    """The ES loop; returns the final parameters, the history, the curve rows
    and the commit the run started from."""
    p0 = start_params(args.seed)
    scale = noise_scale()
    theta = np.zeros(N_PARAMS)
    adam = Adam(N_PARAMS, args.lr)
    hist: list = []
    curve: list = []
    it0, cpu = 0, 0.0
    made = git_commit(ROOT)  # the code that starts the run (a resumed run keeps the first's)
    ck_path = out / "checkpoint.npz"
    ck = load_checkpoint(ck_path, args)
    if ck is not None:
        theta, adam.m, adam.v, adam.t = ck["theta"], ck["m"], ck["v"], int(ck["t"])
        it0, cpu = int(ck["iteration"]), float(ck["cpu"])
        hist, curve = json.loads(str(ck["history"])), json.loads(str(ck["curve"]))
        made = str(ck["commit"]) if "commit" in ck else made
        log(f"continuing from {ck_path} at iteration {it0} ({cpu / 60:.1f} CPU-minutes so far)")
    base = nets("expert", args.eval_deals, args.rounds, args.eval_seed)[:, 0]
    for it in range(it0, args.iterations):
        if cpu > args.budget_minutes * 60:
            log(f"CPU budget of {args.budget_minutes} minutes spent at iteration {it}")
            break
        t0 = time.process_time()
        if it % args.eval_every == 0 and not any(c["iteration"] == it for c in curve):
            e = evaluate(p0 + scale * theta, base, args)
            curve.append({"iteration": it, "cpu_minutes": cpu / 60, **e})
            log(
                f"iteration {it}: on the fixed tables {e['vs_expert']:+.4f} "
                f"+/- {Z95 * e['vs_expert_se']:.4f} a round against the expert in its seat"
            )
        rs = np.random.default_rng([args.seed, it])
        eps = rs.standard_normal((args.pairs, N_PARAMS))
        deal_seed = args.seed * 100_003 + it
        f = np.empty(2 * args.pairs)
        for k in range(args.pairs):
            f[2 * k] = fitness(p0 + scale * (theta + eps[k]), args.deals, args.rounds, deal_seed)
            f[2 * k + 1] = fitness(
                p0 + scale * (theta - eps[k]), args.deals, args.rounds, deal_seed
            )
        u = centred_ranks(f)
        g = ((u[0::2] - u[1::2])[:, None] * eps).sum(axis=0) / (2 * args.pairs)
        theta = theta + adam.step(g)
        cpu += time.process_time() - t0
        hist.append(
            {
                "iteration": it,
                "cpu_minutes": cpu / 60,
                "best": float(f.min()),
                "median": float(np.median(f)),
                "mean": float(f.mean()),
                "step_norm": float(np.linalg.norm(adam.lr * adam.m)),
            }
        )
        log(f"iteration {it + 1}/{args.iterations}: candidates' median margin {np.median(f):+.4f}")
        run = {"iteration": it + 1, "cpu": cpu, "history": hist, "curve": curve, "commit": made}
        save_checkpoint(ck_path, theta, adam, run, args)
    it_end = hist[-1]["iteration"] + 1 if hist else 0
    if not any(c["iteration"] == it_end for c in curve):
        e = evaluate(p0 + scale * theta, base, args)
        curve.append({"iteration": it_end, "cpu_minutes": cpu / 60, **e})
        log(f"final, on the fixed tables: {e['vs_expert']:+.4f} +/- {Z95 * e['vs_expert_se']:.4f}")
        run = {"iteration": it_end, "cpu": cpu, "history": hist, "curve": curve, "commit": made}
        save_checkpoint(ck_path, theta, adam, run, args)
    return p0 + scale * theta, hist, curve, made


def plot(curve: pd.DataFrame, path: Path, args) -> None:
    plt = setup_matplotlib()
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.errorbar(
        curve["iteration"],
        curve["vs_expert"],
        yerr=Z95 * curve["vs_expert_se"],
        fmt="o-",
        color="#c0504d",
        capsize=2,
        label="learned minus expert in the same seat (95% CI)",
    )
    ax.axhline(0, color="#777777", lw=1)
    ax.set_xlabel("iteration (evolution strategies)")
    ax.set_ylabel("net stones a round (lower is better)")
    ax.set_title(
        f"learned vs four experts, the same {args.eval_deals:,} deals at every point "
        f"(seed {args.eval_seed})"
    )
    ax.legend()
    save_fig(fig, path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=150)
    ap.add_argument("--pairs", type=int, default=16, help="antithetic pairs per iteration")
    ap.add_argument("--deals", type=int, default=600, help="deals per candidate")
    ap.add_argument("--rounds", type=int, default=10, help="rounds per deal")
    ap.add_argument("--lr", type=float, default=0.1, help="Adam's step (noise sd units)")
    ap.add_argument("--eval-every", type=int, default=10)
    ap.add_argument("--eval-deals", type=int, default=3000)
    ap.add_argument("--eval-seed", type=int, default=424242)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--budget-minutes", type=float, default=42.0, help="CPU minutes at most")
    ap.add_argument("--fresh", action="store_true", help="ignore a checkpoint")
    ap.add_argument("--out", default=None)
    ap.add_argument("--weights", default=None)
    args = ap.parse_args(argv)
    if min(args.iterations, args.pairs, args.deals, args.rounds, args.eval_every) < 1:
        ap.error("--iterations, --pairs, --deals, --rounds and --eval-every must be at least 1")
    if args.eval_deals < 2:
        ap.error("--eval-deals must be at least 2")
    out = Path(args.out) if args.out else Path(__file__).resolve().parent / "output"
    out.mkdir(parents=True, exist_ok=True)
    weights = (
        Path(args.weights)
        if args.weights
        else ROOT / "domeng" / "players" / "data" / "learned.json"
    )
    params, hist, curve, made = train(args, out)
    write_csv(pd.DataFrame(hist), out / "history.csv")
    cdf = pd.DataFrame(curve)
    write_csv(cdf, out / "curve.csv")
    plot(cdf, out / "curve.png", args)
    command = "analysis/learned/train.py " + " ".join(
        shlex.quote(a) for a in (argv or sys.argv[1:])
    )
    meta = {
        "command": command.strip(),
        "seed": args.seed,
        "commit": made,
        "iterations": int(curve[-1]["iteration"]),
        "cpu_minutes": round(float(hist[-1]["cpu_minutes"]) if hist else 0.0, 2),
        "field": FIELD,
    }
    doc = weights_document(params, meta)
    weights.parent.mkdir(parents=True, exist_ok=True)
    weights.write_bytes(doc)
    print(f"weights written to {weights}; SHA-256 {hashlib.sha256(doc).hexdigest()}")
    print(f"curve and history in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
