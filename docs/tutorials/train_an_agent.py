# %% [markdown]
# # Tutorial: training a small agent and placing it on the ladder
#
# This tutorial trains a policy for one seat on the vectorised Gymnasium
# environment (`domeng.envs.gym.DomengVectorEnv`, [environments.md](../environments.md)),
# in numpy only, then turns the trained weights into a compiled player and
# ranks it against the built-in players on a ladder.
#
# The policy is a linear softmax over the observation vector, with illegal
# actions masked out, trained by REINFORCE with a learned value baseline
# (the longer study of the same method is `analysis/learning/train_pg.py`).
# With `DOMENG_TUTORIAL_SMALL=1` (the test suite sets it) it trains for a few
# updates only; at full size it takes a few minutes on a laptop. The first
# use of the environment compiles it with numba (a few minutes, once).

# %%
import os

import numba
import numpy as np

from domeng.batch.tables import run_tables
from domeng.core import layout as L
from domeng.core.encoding import FIELDS, OBS_SIZE, encode
from domeng.envs.gym import DomengVectorEnv
from domeng.study.ladder import ladder

SMALL = os.environ.get("DOMENG_TUTORIAL_SMALL") == "1"
UPDATES = 3 if SMALL else 150  # policy-gradient updates
TABLES = 16 if SMALL else 256  # tables stepped together
HORIZON = 8 if SMALL else 16  # steps per table per update
N_ACT = 57  # the step API's actions: tile * 2 + end, and PASS = 56

# %% [markdown]
# ## 1. Features
#
# The observation vector (`float32[364]`) is the learner's D17 view only.
# Counts are raw, so we scale them to about [0, 1] and drop the constant rules
# block, field by field from `domeng.core.encoding.FIELDS`.

# %%
SCALE_BY = {"stones": 25, "table": 25, "hand_size": 5, "passes": 4, "passes_since_play": 4}
scale = np.ones(OBS_SIZE)
for name, off, size, _ in FIELDS:
    if name in ("rules", "round"):
        scale[off : off + size] = 0.0
    elif name in SCALE_BY:
        scale[off : off + size] = 1.0 / SCALE_BY[name]


def probs(W, b, x, mask):
    """Softmax over the legal actions (illegal ones get probability 0)."""
    z = np.where(mask > 0, x @ W + b, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


# %% [markdown]
# ## 2. Training
#
# Each update steps `TABLES` one-round games (learner at seat 0, four
# `hunter` opponents) for `HORIZON` steps, computes each step's return to go
# (the reward is minus the stones gained), subtracts a linear value baseline,
# and moves the weights along the policy gradient with Adam.

# %%
env = DomengVectorEnv(TABLES, opponents="hunter", seat=0)
rng = np.random.default_rng(1)
W, b, v = np.zeros((OBS_SIZE, N_ACT)), np.zeros(N_ACT), np.zeros(OBS_SIZE)
m_, s_ = [np.zeros_like(p) for p in (W, b, v)], [np.zeros_like(p) for p in (W, b, v)]


def adam(params, grads, t, lr=0.02):
    for p, g, m, s in zip(params, grads, m_, s_):
        m[...] = 0.9 * m + 0.1 * g
        s[...] = 0.999 * s + 0.001 * g * g
        p += lr * (m / (1 - 0.9**t)) / (np.sqrt(s / (1 - 0.999**t)) + 1e-8)


obs, info = env.reset(seed=1)
curve = []
for u in range(1, UPDATES + 1):
    X, G, R, D = [], [], [], []
    for _ in range(HORIZON):
        x = obs * scale
        p = probs(W, b, x, info["action_mask"])
        a = (rng.random((TABLES, 1)) > p.cumsum(axis=1)).sum(axis=1).clip(max=N_ACT - 1)
        g = -p
        g[np.arange(TABLES), a] += 1.0  # the gradient of log p(a) w.r.t. the logits
        obs, r, term, _, info = env.step(a)
        X.append(x), G.append(g), R.append(r), D.append(term)
    ret, ended, rets, valid = np.zeros(TABLES), np.zeros(TABLES, bool), [], []
    for t in reversed(range(HORIZON)):  # return to go, within each finished episode
        ret = R[t] + np.where(D[t], 0.0, ret)
        ended |= D[t]
        rets.insert(0, ret.copy()), valid.insert(0, ended.copy())
    ok = np.array(valid)
    x, g, y = np.array(X)[ok], np.array(G)[ok], np.array(rets)[ok]
    if len(y) == 0:
        continue
    adv = y - x @ v
    norm = (adv - adv.mean()) / (adv.std() + 1e-8)
    adam(
        [W, b, v],
        [x.T @ (norm[:, None] * g) / len(y), (norm[:, None] * g).mean(0), x.T @ adv / len(y)],
        u,
    )
    curve.append(-float(np.mean(y)))
print(f"{UPDATES} updates; stones to go per step, first and last: {curve[0]:.3f}, {curve[-1]:.3f}")

# %% [markdown]
# ## 3. From weights to a compiled player
#
# The ladder plays compiled players (`player(obs, hist, moves, n_moves, rng)`,
# [players.md](../players.md)). Our player builds the same observation vector
# with the environment's own encoder (`encode`: the same D17 view), scores
# each legal move with the trained weights and plays the best one (greedy).


# %%
def compiled_policy(W, b, scale):
    Wc, bc, sc = W.astype(np.float64), b.astype(np.float64), scale.astype(np.float64)

    @numba.njit
    def agent(obs, hist, moves, n_moves, rng):
        x = np.zeros(OBS_SIZE, dtype=np.float32)
        encode(obs, hist, x)
        best, best_z = 0, -np.inf
        for i in range(n_moves):
            a = moves[i]
            z = bc[a]
            for j in range(OBS_SIZE):
                z += x[j] * sc[j] * Wc[j, a]
            if z > best_z:
                best, best_z = i, z
        return best

    return agent


agent = compiled_policy(W, b, scale)

# %% [markdown]
# A check that the conversion is right: one-round games at seat 0 against
# hunters, played by the numpy policy (greedy) in the environment and by the
# compiled player in the batch engine, on the same tables (episode *k* of the
# environment is table *k* of a study with that seed), gain the same stones.

# %%
n = 32
check = DomengVectorEnv(n, opponents="hunter", seat=0)
o, inf = check.reset(seed=77)
stones, live = np.zeros(n), np.ones(n, bool)
while live.any():
    act = probs(W, b, o * scale, inf["action_mask"]).argmax(axis=1)
    o, r, term, _, inf = check.step(act)
    stones[live] -= r[live]
    live &= ~term
out = run_tables([agent] + ["hunter"] * 4, seed=77, n_tables=n, rounds=1, threads=1)
same = float(np.mean(out.state[:, L.ST_STONES] == stones))
print(f"the compiled player gains the same stones as the policy at {same:.0%} of {n} tables")
assert same >= 0.9  # a near tie of two moves' scores may round differently

# %% [markdown]
# ## 4. On the ladder
#
# Every lineup of five of these six players plays the same deals under a
# balanced seating design; the ranking is by net stones per round (lower is
# better), with 95% intervals.

# %%
lad = ladder(
    [agent, "random", "heavy", "keeper", "hunter", "expert"],
    deals=2 if SMALL else 100,
    rounds=2 if SMALL else 10,
    seed=1,
    orders="balanced",
)
print(lad.to_text())
assert "agent" in set(lad.ranking().player)
