"""A small masked policy learns Domeng against ``hunter`` (issue 15, point 5).

    NUMBA_NUM_THREADS=1 .venv/bin/python analysis/learning/train_pg.py \\
        [--updates 400] [--tables 256] [--eval-tables 20000]

The policy is linear-softmax over the observation vector
(:mod:`domeng.core.encoding`, counts scaled to about [0, 1]) with a bias per
action; illegal actions are masked out.  It is trained by policy gradient
(REINFORCE with the per-step return to go and a learned linear value
baseline, advantages normalised, Adam) on one-round episodes of the
vectorised env (``DomengVectorEnv``: 256 tables, learner at seat 0, four
``hunter`` opponents).  numpy only, CPU, a few minutes.

It writes ``learning_curve.png`` beside this file (stones gained per round
while training, lower is better, with the levels of ``hunter`` and of a
uniformly random player in the learner's seat on the same kind of tables)
and prints the final **duplicate match**: the same tables (same seed and
table index: the same deals, the same opponents' streams) played with the
learner's seat taken by the trained policy (greedy), by ``hunter`` and by a
uniformly random player, against ``hunter`` opponents and against ``random``
opponents.  Margins are stones gained per round by the trained policy minus
the other player's, with a 95% interval over tables (negative: the trained
policy gains fewer stones, i.e. plays better).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from domeng.batch.tables import run_tables
from domeng.core import layout as L
from domeng.core.encoding import FIELDS, OBS_SIZE
from domeng.envs.gym import DomengVectorEnv

HERE = Path(__file__).resolve().parent
N_ACT = 57
PROBE_SEED = 4242  # the probe tables (not the final match's, seed 777)
#: divide each field by this so that features are about [0, 1] (rules: constant, dropped)
_SCALE = {
    "stones": 25.0,
    "table": 25.0,
    "hand_size": 5.0,
    "passes": 4.0,
    "passes_since_play": 4.0,
    "round": 0.0,
    "turn": 25.0,
    "rules": 0.0,
}


def feature_scale() -> np.ndarray:
    s = np.ones(OBS_SIZE, dtype=np.float32)
    for name, off, size, _ in FIELDS:
        if name in _SCALE:
            s[off : off + size] = 0.0 if _SCALE[name] == 0 else 1.0 / _SCALE[name]
    return s


class Adam:
    def __init__(self, shapes, lr: float) -> None:
        self.lr, self.t = lr, 0
        self.m = [np.zeros(s) for s in shapes]
        self.v = [np.zeros(s) for s in shapes]

    def step(self, params, grads) -> None:
        """Gradient *ascent* on ``params`` (in place)."""
        self.t += 1
        for p, g, m, v in zip(params, grads, self.m, self.v):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            mh = m / (1 - 0.9**self.t)
            vh = v / (1 - 0.999**self.t)
            p += self.lr * mh / (np.sqrt(vh) + 1e-8)


def probs(W, b, x, mask) -> np.ndarray:
    """Action probabilities (rows); illegal actions get 0."""
    z = x @ W + b
    z = np.where(mask > 0, z, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def sample(p, rng) -> np.ndarray:
    u = rng.random((p.shape[0], 1))
    return np.minimum((u > p.cumsum(axis=1)).sum(axis=1), N_ACT - 1)


def train(
    updates: int, n: int, horizon: int, seed: int, lr: float, probe_every: int, probe_tables: int
):
    """REINFORCE with a value baseline; returns the weights, the training
    curve (mean stones gained per finished round, per update) and the probe
    curve: every ``probe_every`` updates, the greedy policy's stones per round
    on the same ``probe_tables`` tables (a fixed set, so the luck of the deal
    is the same at every point and the curve shows the policy's progress)."""
    env = DomengVectorEnv(n, opponents="hunter", seat=0, copy=False)
    rng = np.random.default_rng(seed)
    scale = feature_scale()
    W = np.zeros((OBS_SIZE, N_ACT))
    b = np.zeros(N_ACT)
    v, _c = np.zeros(OBS_SIZE), 0.0
    actor, critic = Adam([W.shape, b.shape], lr), Adam([v.shape, (1,)], lr)
    cpar = np.zeros(1)
    obs, info = env.reset(seed=seed)
    ep = np.zeros(n)
    curve = []
    X = np.zeros((horizon, n, OBS_SIZE))
    G = np.zeros((horizon, n, N_ACT))  # one-hot(action) - probs
    R = np.zeros((horizon, n))
    D = np.zeros((horizon, n), dtype=bool)
    probes = []
    for u in range(updates + 1):
        if u % probe_every == 0 or u == updates:
            probes.append(
                (u, play_policy(W, b, scale, "hunter", PROBE_SEED, probe_tables, True).mean())
            )
        if u == updates:
            break
        done_ret = []
        for t in range(horizon):
            x = obs * scale
            p = probs(W, b, x, info["action_mask"])
            a = sample(p, rng)
            X[t] = x
            G[t] = -p
            G[t, np.arange(n), a] += 1.0
            obs, r, term, _, info = env.step(a)
            R[t], D[t] = r, term
            ep += r
            done_ret += list(ep[term])
            ep[term] = 0.0
        # return to go within each episode; keep only steps whose episode ended here
        ret = np.zeros((horizon, n))
        valid = np.zeros((horizon, n), dtype=bool)
        nxt, nval = np.zeros(n), np.zeros(n, dtype=bool)
        for t in range(horizon - 1, -1, -1):
            nxt = R[t] + np.where(D[t], 0.0, nxt)
            nval = D[t] | nval
            ret[t], valid[t] = nxt, nval
        x, g, y = X[valid], G[valid], ret[valid]
        base = x @ v + cpar[0]
        adv = y - base
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        k = len(y)
        actor.step([W, b], [x.T @ (adv[:, None] * g) / k, (adv[:, None] * g).mean(axis=0)])
        err = y - base
        critic.step([v, cpar], [x.T @ err / k, np.array([err.mean()])])
        if done_ret:
            curve.append(-float(np.mean(done_ret)))
    return W, b, scale, np.array(curve), np.array(probes)


def play_policy(W, b, scale, opponents: str, seed: int, n: int, greedy: bool) -> np.ndarray:
    """Stones gained in one round at each of ``n`` tables by the learner's
    seat (``W is None``: a uniformly random legal action)."""
    env = DomengVectorEnv(n, opponents=opponents, seat=0, copy=False)
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    stones = np.zeros(n)
    live = np.ones(n, dtype=bool)
    while live.any():
        m = info["action_mask"]
        if W is None:
            a = sample(m / m.sum(axis=1, keepdims=True), rng)
        else:
            p = probs(W, b, obs * scale, m)
            a = p.argmax(axis=1) if greedy else sample(p, rng)
        obs, r, term, _, info = env.step(a)
        stones[live] -= r[live]
        live &= ~term
    return stones


def play_player(name: str, opponents: str, seed: int, n: int) -> np.ndarray:
    """Stones gained in one round at each table by compiled ``name`` in seat 0
    (the same tables as the env's episodes: table k of ``seed``)."""
    out = run_tables([name] + [opponents] * 4, seed=seed, n_tables=n, rounds=1, threads=1)
    return out.state[:, L.ST_STONES].astype(float)


def margin(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    d = a - b
    return float(d.mean()), float(1.96 * d.std(ddof=1) / np.sqrt(len(d)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--updates", type=int, default=400)
    ap.add_argument("--tables", type=int, default=256)
    ap.add_argument("--horizon", type=int, default=16)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--eval-tables", type=int, default=20000)
    ap.add_argument("--probe-every", type=int, default=20)
    ap.add_argument("--probe-tables", type=int, default=4096)
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    W, b, scale, curve, probes = train(
        args.updates,
        args.tables,
        args.horizon,
        args.seed,
        args.lr,
        args.probe_every,
        args.probe_tables,
    )
    t_train = time.perf_counter() - t0
    ev = 777
    lines, levels = [], {}
    for opp in ("hunter", "random"):
        mine = play_policy(W, b, scale, opp, ev, args.eval_tables, True)
        rand = play_policy(None, None, scale, opp, ev, args.eval_tables, False)
        hunt = play_player("hunter", opp, ev, args.eval_tables)
        levels[opp] = (hunt.mean(), rand.mean())
        for other, arr in (("hunter", hunt), ("random", rand)):
            m, h = margin(mine, arr)
            lines.append(
                f"vs {opp} opponents: trained {mine.mean():.3f} stones/round, {other} in "
                f"its seat {arr.mean():.3f}; margin {m:+.3f} +- {h:.3f}"
            )
    k = max(1, len(curve) // 25)
    first, last = curve[:k].mean(), curve[-k:].mean()
    print(
        f"trained {args.updates} updates x {args.tables} tables x {args.horizon} steps in "
        f"{t_train:.0f} s; curve (stones/round, mean of {k} updates): first {first:.3f}, "
        f"last {last:.3f}"
    )
    probe_hunt = play_player("hunter", "hunter", PROBE_SEED, args.probe_tables).mean()
    probe_rand = play_policy(
        None, None, scale, "hunter", PROBE_SEED, args.probe_tables, False
    ).mean()
    print(
        f"probe ({args.probe_tables} fixed tables vs hunters, greedy policy): "
        + ", ".join(f"{int(u)}: {m:.3f}" for u, m in probes)
        + f"; hunter in the seat {probe_hunt:.3f}, random {probe_rand:.3f}"
    )
    print(
        f"duplicate match on {args.eval_tables} tables (seed {ev}), margins with 95% CI "
        "(negative: the trained policy gains fewer stones):"
    )
    for line in lines:
        print("  " + line)
    if args.no_plot:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    smooth = np.convolve(curve, np.ones(k) / k, mode="valid")
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4))
    bx.plot(probes[:, 0], probes[:, 1], "o-", color="C0", label="trained policy (greedy)")
    bx.axhline(probe_hunt, color="C2", ls="--", label=f"hunter in the seat ({probe_hunt:.3f})")
    bx.axhline(probe_rand, color="C3", ls=":", label=f"random in the seat ({probe_rand:.3f})")
    bx.set_xlabel("update")
    bx.set_ylabel("stones gained per round (lower is better)")
    bx.set_title(f"the same {args.probe_tables} tables vs 4 hunters, seat 0", fontsize=10)
    bx.legend(fontsize=8)
    ax.plot(curve, alpha=0.25, color="C0", label="per update")
    ax.plot(np.arange(len(smooth)) + k - 1, smooth, color="C0", label=f"mean of {k} updates")
    hunt, rand = levels["hunter"]
    ax.axhline(hunt, color="C2", ls="--", label=f"hunter in the seat ({hunt:.2f})")
    ax.axhline(rand, color="C3", ls=":", label=f"random in the seat ({rand:.2f})")
    ax.set_xlabel(f"update ({args.tables} tables x {args.horizon} steps)")
    ax.set_ylabel("stones gained per round (lower is better)")
    ax.set_title("training episodes (sampled actions, fresh deals)", fontsize=10)
    ax.legend(fontsize=8)
    fig.suptitle("linear masked softmax policy, REINFORCE with a value baseline, vs 4 hunters")
    fig.tight_layout()
    fig.savefig(HERE / "learning_curve.png", dpi=100)
    print(f"learning curve: {HERE / 'learning_curve.png'}")


if __name__ == "__main__":
    main()
