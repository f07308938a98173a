"""Fit the learned value of the search's leaves (issue 25, item 2).

``domeng.players.value``: ``V(S, me)``, the value for seat ``me`` of a
full-information position ``S`` from there to the round's end (minus the
stones it gains, plus ``CAMAT_BONUS`` if it becomes CAMAT, D15), linear in
``value.FEATURES`` with one weight vector per distance of the seat to move.

Data: Monte Carlo returns of expert self-play.  ``--tables`` tables of five
``expert``s (the kernel's own player, through the step API and the search
core's rollout policy, so the positions are those a rollout passes through)
play ``--rounds`` rounds each; every position of every round (before each
step) gives five rows, one per seat, its target the seat's return from that
position to the round's end.  The fit is least squares (ridge ``--ridge``
times the mean diagonal), from the normal equations summed chunk by chunk,
so memory stays small.  The held-out tables (``--heldout`` tables of seed
``--seed + 1``) are fixed; the learning curve is the held-out MSE of the
fit on the first 1/64, 1/32, ..., all of the training tables, against the
MSE of a constant per block.

Reproducible from ``--seed`` (the deals, the ties of the experts); fast
enough not to need resuming (about a minute of CPU at the defaults).

    nice -n 10 .venv/bin/python analysis/learned/train_value.py

Outputs: ``domeng/players/data/value.json`` (``--weights``; with the
command, seed, commit and the fit), ``analysis/learned/output/value_curve.csv``
(``--out``).  The printed SHA-256 is ``domeng.players.value.VALUE_SHA256``.
"""

from __future__ import annotations

import argparse
import hashlib
import shlex
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from domeng.core.defaults import P_EXPERT
from domeng.core.observation import MAX_TURNS
from domeng.core.rules import Rules
from domeng.engine import kernel as K
from domeng.engine import step as E
from domeng.players.heuristics import builtin_choose
from domeng.players.value import N_BLOCKS, N_VALUE_FEATURES, value_document, value_features

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import git_commit

ROOT = Path(__file__).resolve().parents[2]
#: ``domeng.players.searchcore.CAMAT_BONUS`` (D15), the bonus of the search's
#: value; not imported: the search core loads the weights this script makes
#: (a test checks the two agree)
CAMAT_BONUS = 10.0
#: rows per round, at most (every step of the longest round, five seats)
_ROWS_PER_ROUND = MAX_TURNS * 5


@njit(inline="always")
def _expert_action(S, rng):
    """The expert's action for the seat to move, as the search core's
    rollouts take it (``searchcore.policy_move`` with ``P_EXPERT``)."""
    n = E.legal_moves(S)
    if n == 0:
        return E.PASS
    if n == 1:
        return S.moves[0]
    s = S.ctl[E.C_SEAT]
    S.obs[E.OBS_SEAT] = s
    S.obs[E.OBS_HAND] = S.hands[s]
    return S.moves[builtin_choose(P_EXPERT, S.obs, S.hist, S.moves, n, rng)]


# not cached on disk: numba's cache records the module a function came from,
# and this script runs as ``__main__`` or is imported by its tests under
# another name, so one's cache would not load in the other
@njit
def self_play_rows(seed, table_start, n_tables, rounds, rules, X, blk, y):
    """Play ``n_tables`` tables of five experts from table ``table_start``
    of ``seed`` for ``rounds`` rounds each; write a row per position and
    seat into ``X`` (features), ``blk`` (the mover's block) and ``y`` (the
    seat's return to the round's end).  Returns the rows written."""
    st = K.init_states(np.uint64(seed), table_start, n_tables, 25)
    x = np.empty(N_VALUE_FEATURES)
    held = np.zeros(5)
    rng = np.zeros(1, dtype=np.uint64)
    k = 0
    for t in range(n_tables):
        S = E.new_state(rules, st[t], 1, E.KEEP_NOTHING)
        rng[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(table_start + t)
        for _ in range(rounds):
            E.new_round(S)
            k0 = k
            while True:
                for me in range(5):
                    blk[k] = value_features(S, me, x)
                    X[k, :] = x
                    y[k] = S.obs[E.OBS_STONES + me]  # the stones now; the return below
                    k += 1
                if E.step(S, _expert_action(S, rng)):
                    break
            for me in range(5):
                held[me] = E.held_at_settlement(S, me)
                if S.w[K.W_CAMAT] == me:
                    held[me] -= CAMAT_BONUS
            for j in range(k0, k):
                y[j] -= held[(j - k0) % 5]
    return k


def generate(seed: int, table_start: int, n_tables: int, rounds: int):
    rows = n_tables * rounds * _ROWS_PER_ROUND
    X = np.empty((rows, N_VALUE_FEATURES))
    blk = np.empty(rows, dtype=np.int64)
    y = np.empty(rows)
    k = self_play_rows(seed, table_start, n_tables, rounds, Rules().to_array(), X, blk, y)
    return X[:k], blk[:k], y[:k]


class Normal:
    """The normal equations of the per-block least squares, summed."""

    def __init__(self) -> None:
        self.xtx = np.zeros((N_BLOCKS, N_VALUE_FEATURES, N_VALUE_FEATURES))
        self.xty = np.zeros((N_BLOCKS, N_VALUE_FEATURES))
        self.n = np.zeros(N_BLOCKS)
        self.sy = np.zeros(N_BLOCKS)

    def add(self, X, blk, y) -> None:
        for m in range(N_BLOCKS):
            sel = blk == m
            Xm, ym = X[sel], y[sel]
            self.xtx[m] += Xm.T @ Xm
            self.xty[m] += Xm.T @ ym
            self.n[m] += len(ym)
            self.sy[m] += ym.sum()

    def solve(self, ridge: float) -> np.ndarray:
        W = np.zeros((N_BLOCKS, N_VALUE_FEATURES))
        for m in range(N_BLOCKS):
            a = self.xtx[m]
            lam = ridge * np.trace(a) / N_VALUE_FEATURES
            W[m] = np.linalg.solve(a + lam * np.eye(N_VALUE_FEATURES), self.xty[m])
        return W

    def means(self) -> np.ndarray:
        return self.sy / np.maximum(self.n, 1)


def mse(W, X, blk, y) -> float:
    pred = np.einsum("ij,ij->i", X, W[blk])
    return float(np.mean((pred - y) ** 2))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--tables", type=int, default=800, help="training tables")
    ap.add_argument("--heldout", type=int, default=200, help="held-out tables (seed + 1)")
    ap.add_argument("--rounds", type=int, default=10, help="rounds per table")
    ap.add_argument("--chunk", type=int, default=25, help="tables generated at a time")
    ap.add_argument("--ridge", type=float, default=1e-6)
    ap.add_argument("--out", default=None)
    ap.add_argument("--weights", default=None)
    args = ap.parse_args(argv)
    if min(args.tables, args.heldout, args.rounds, args.chunk) < 1:
        ap.error("--tables, --heldout, --rounds and --chunk must be at least 1")
    out = Path(args.out) if args.out else Path(__file__).resolve().parent / "output"
    out.mkdir(parents=True, exist_ok=True)
    weights = Path(args.weights) if args.weights else ROOT / "domeng/players/data/value.json"
    made = git_commit(ROOT)
    t0 = time.process_time()
    Xh, bh, yh = generate(args.seed + 1, 0, args.heldout, args.rounds)
    print(f"held-out: {args.heldout} tables, {len(yh):,} rows; var(y) {yh.var():.4f}")
    sizes = sorted({max(1, args.tables >> s) for s in range(6, -1, -1)})
    normal = Normal()
    curve = []
    done = 0
    print("tables  rows        heldout_mse  const_mse  r2")
    while done < args.tables:
        n = min(args.chunk, args.tables - done, min(s for s in sizes if s > done) - done)
        X, blk, y = generate(args.seed, done, n, args.rounds)
        normal.add(X, blk, y)
        done += n
        if done in sizes:
            W = normal.solve(args.ridge)
            e = mse(W, Xh, bh, yh)
            c = float(np.mean((normal.means()[bh] - yh) ** 2))
            row = {
                "tables": done,
                "rows": int(normal.n.sum()),
                "heldout_mse": e,
                "const_mse": c,
                "r2": 1 - e / float(yh.var()),
            }
            curve.append(row)
            print(
                f"{done:6d}  {row['rows']:10,d}  {e:11.4f}  {c:9.4f}  {row['r2']:.4f}", flush=True
            )
    W = normal.solve(args.ridge)
    cpu = time.process_time() - t0
    with open(out / "value_curve.csv", "w") as f:
        f.write("tables,rows,heldout_mse,const_mse,r2\n")
        for r in curve:
            f.write(
                f"{r['tables']},{r['rows']},{r['heldout_mse']:.6f},{r['const_mse']:.6f},"
                f"{r['r2']:.6f}\n"
            )
    command = "analysis/learned/train_value.py " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
    )
    meta = {
        "command": command.strip(),
        "seed": args.seed,
        "commit": made,
        "tables": args.tables,
        "rounds": args.rounds,
        "rows": int(normal.n.sum()),
        "ridge": args.ridge,
        "heldout_mse": curve[-1]["heldout_mse"],
        "heldout_r2": curve[-1]["r2"],
        "cpu_seconds": round(cpu, 1),
    }
    doc = value_document(W, meta)
    weights.parent.mkdir(parents=True, exist_ok=True)
    weights.write_bytes(doc)
    print(
        f"cpu {cpu:.1f} s; weights written to {weights}; SHA-256 {hashlib.sha256(doc).hexdigest()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
