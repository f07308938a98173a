"""A small masked policy learns Domeng against ``hunter`` (issue 15, point 5).

    NUMBA_NUM_THREADS=1 .venv/bin/python analysis/learning/train_pg.py [--updates 150]

A linear softmax policy over the observation vector (364 features, 57
actions, illegal actions masked out), trained by REINFORCE with a running
baseline on one-round episodes of the vectorised env (256 tables, numpy only,
CPU, a minute or two).  It writes ``learning_curve.png`` beside this file and
prints the final margin in a duplicate match: the same tables (seed, table
index: the same deals and the same opponents' streams) played once by the
trained policy and once by the uniform ``random`` policy at the learner's
seat, against ``hunter`` and against ``random`` opponents.  The margin is
stones gained per round (lower is better) by the trained policy minus the
random policy, with a 95% interval over tables.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from domeng.envs.encoding import OBS_SIZE
from domeng.envs.gym import DomengVectorEnv

HERE = Path(__file__).resolve().parent
N_ACT = 57


def policy(W: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Action probabilities (rows), illegal actions at 0."""
    logits = obs @ W
    logits = np.where(mask > 0, logits, -1e9)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits) * (mask > 0)
    return p / p.sum(axis=1, keepdims=True)


def sample(p: np.ndarray, rng) -> np.ndarray:
    c = p.cumsum(axis=1)
    u = rng.random((p.shape[0], 1))
    return np.minimum((u > c).sum(axis=1), N_ACT - 1)


def train(updates: int, n: int, seed: int, lr: float):
    env = DomengVectorEnv(n, opponents="hunter", seat=0, copy=True)
    rng = np.random.default_rng(seed)
    W = np.zeros((OBS_SIZE, N_ACT))
    scale = np.ones(OBS_SIZE)
    scale[-12:] = 0.0  # the rules: constant here
    obs, info = env.reset(seed=seed)
    curve, baseline = [], 0.0
    # per table: the (features, action, probs) of the current episode and its return
    traj: list[list[tuple]] = [[] for _ in range(n)]
    ep_ret = np.zeros(n)
    for u in range(updates):
        rows, finished = [], []
        for _ in range(24):
            x = obs * scale
            p = policy(W, x, info["action_mask"])
            a = sample(p, rng)
            for i in range(n):
                traj[i].append((x[i], a[i], p[i]))
            obs, r, term, _, info = env.step(a)
            ep_ret += r
            for i in np.flatnonzero(term):
                finished.append(ep_ret[i])
                rows += [(xi, ai, pi, ep_ret[i]) for xi, ai, pi in traj[i]]
                traj[i] = []
                ep_ret[i] = 0.0
        if finished:
            X = np.array([t[0] for t in rows])
            G = -np.array([t[2] for t in rows])
            G[np.arange(len(rows)), [t[1] for t in rows]] += 1.0
            adv = np.array([t[3] for t in rows]) - baseline
            W += lr * X.T @ (adv[:, None] * G) / len(finished)
            baseline = 0.9 * baseline + 0.1 * float(np.mean(finished))
            curve.append(-float(np.mean(finished)))
    return W, scale, curve


def play(W, scale, opponents: str, seed: int, n: int, use_random: bool) -> np.ndarray:
    """Stones gained per episode at each of ``n`` tables (one round each)."""
    env = DomengVectorEnv(n, opponents=opponents, seat=0, copy=True)
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    stones = np.zeros(n)
    open_ = np.ones(n, dtype=bool)
    while open_.any():
        m = info["action_mask"]
        p = policy(np.zeros_like(W) if use_random else W, obs * scale, m)
        a = sample(p, rng) if use_random else p.argmax(axis=1)
        obs, r, term, _, info = env.step(a)
        stones[open_] -= r[open_]
        open_ &= ~term
    return stones


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--updates", type=int, default=150)
    ap.add_argument("--tables", type=int, default=256)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--eval-tables", type=int, default=20000)
    args = ap.parse_args()
    W, scale, curve = train(args.updates, args.tables, 1, args.lr)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    k = max(1, len(curve) // 30)
    smooth = np.convolve(curve, np.ones(k) / k, mode="valid")
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(curve, alpha=0.3, label="per update")
    ax.plot(np.arange(len(smooth)) + k - 1, smooth, label=f"mean of {k}")
    ax.set_xlabel("update")
    ax.set_ylabel("stones gained per round (lower is better)")
    ax.set_title("linear masked policy vs 4 hunters (seat 0)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(HERE / "learning_curve.png", dpi=100)
    print(f"learning curve: {HERE / 'learning_curve.png'} "
          f"(first {np.mean(curve[:10]):.3f}, last {np.mean(curve[-10:]):.3f} stones/round)")
    for opp in ("hunter", "random"):
        mine = play(W, scale, opp, 777, args.eval_tables, False)
        rand = play(W, scale, opp, 777, args.eval_tables, True)
        d = mine - rand
        half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
        print(f"vs {opp:6s}: trained {mine.mean():.3f}, random policy {rand.mean():.3f} "
              f"stones/round; margin {d.mean():+.3f} +- {half:.3f} (duplicate, "
              f"{len(d)} tables)")


if __name__ == "__main__":
    main()
