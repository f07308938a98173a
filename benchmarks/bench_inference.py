"""How much can a seat infer about the hidden hands from the others' plays?
(issue 13: why the searches that see only their observation stay far from
``omniscient``.)

    .venv/bin/python benchmarks/bench_inference.py [--field expert] [--games 200] [--samples 500]

Five players of ``--field`` play ``--games`` games of 3 rounds (the
duplicate match's format).  At every decision of seat 0 with two or more
legal moves, ``--samples`` deals of the tiles it cannot see are drawn by
the search players' one determinizer (:mod:`domeng.players.determinize`:
uniform among the deals consistent with hand sizes, known voids and D3), and each is weighted by the
likelihood of the others' plays this round under ``isearch``'s model (a
softmax of ``expert``'s move scores at inverse temperature ``beta``,
:func:`domeng.players.searchcore.log_likelihood`).  For each ``beta`` it prints

* **placed right**: the expected share of the hidden tiles (the other four
  hands and the 3 out of play) that a weighted deal puts where they really
  are (1.0 is what ``omniscient`` knows; ``beta = 0`` is the uniform deal of
  ``esearch``);
* **ESS**: the effective number of deals left after weighting,
  ``1 / sum(w^2)`` of the normalised weights (median and 10th percentile).

In a field of experts the model is the truth (up to the ties the experts
break at random and the stones the model does not replay), so the share
``placed right`` at large ``beta`` is about the most such inference can
recover.  Every number comes from the seeds: the same command prints the same
table.  Nothing is timed.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from domeng.core.defaults import PLAYER_IDS
from domeng.core.observation import OBS_CHAIN, OBS_HAND, OBS_LEN
from domeng.engine.game import PASS, Game
from domeng.players.determinize import draw, new_dealer, prepare
from domeng.players.heuristics import builtin_choose
from domeng.players.searchcore import log_likelihood

ALL = (1 << 28) - 1


def _bits(x: int) -> int:
    return bin(x).count("1")


def probe(field: str, games: int, samples: int, betas: list[float], seed: int) -> dict:
    if field not in PLAYER_IDS or field == "random":
        raise SystemExit(
            f"bench_inference: --field is one of {', '.join(p for p in PLAYER_IDS if p != 'random')}"
        )
    pid = PLAYER_IDS[field]
    rng = np.array([seed * 7919 + 1], dtype=np.uint64)
    hands = np.zeros(5, np.int64)
    dealer = new_dealer()
    r_obs = np.zeros(OBS_LEN, np.int64)
    scratch = np.zeros(64, np.int64)
    moves = np.zeros(64, np.int64)
    placed = {b: [] for b in betas}
    ess = {b: [] for b in betas}
    for gi in range(games):
        g = Game(seed=seed, table=gi)
        seat_rng = [np.array([(seed << 8) + 1000 * gi + s + 1], dtype=np.uint64) for s in range(5)]
        for _ in range(3):
            g.new_round()
            while not g.round_over:
                acts = g.legal_actions()
                if acts == [PASS]:
                    g.step(PASS)
                    continue
                s = g.seat
                obs, hist = g.observe(s), g.history()
                moves[: len(acts)] = acts
                if s == 0 and len(acts) > 1:
                    true = [sum(1 << t for t in g.hand(p)) for p in range(5)]
                    hidden = ALL & ~int(obs[OBS_HAND]) & ~int(obs[OBS_CHAIN])
                    out_true = hidden & ~(true[1] | true[2] | true[3] | true[4])
                    right = np.zeros(samples)
                    ll = {b: np.zeros(samples) for b in betas}
                    assert prepare(obs, dealer)
                    for d in range(samples):
                        draw(obs, dealer, rng, hands)
                        held = [int(h) for h in hands]
                        out_d = hidden & ~(held[1] | held[2] | held[3] | held[4])
                        right[d] = (
                            sum(_bits(held[p] & true[p]) for p in range(1, 5))
                            + _bits(out_d & out_true)
                        ) / _bits(hidden)
                        for b in betas:
                            if b > 0:
                                ll[b][d] = log_likelihood(obs, hist, hands, b, r_obs, scratch)
                    for b in betas:
                        w = np.exp(ll[b] - ll[b].max())
                        w /= w.sum()
                        placed[b].append(float((w * right).sum()))
                        ess[b].append(float(1.0 / (w * w).sum()))
                g.step(acts[builtin_choose(pid, obs, hist, moves, len(acts), seat_rng[s])])
    return {
        "field": field,
        "games": games,
        "samples": samples,
        "seed": seed,
        "decisions": len(placed[betas[0]]),
        "rows": [
            {
                "beta": b,
                "placed_right": float(np.mean(placed[b])),
                "placed_right_se": float(np.std(placed[b]) / np.sqrt(len(placed[b]))),
                "ess_median": float(np.median(ess[b])),
                "ess_p10": float(np.percentile(ess[b], 10)),
            }
            for b in betas
        ],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--field", default="expert", help="the five players (a built-in, not random)")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--samples", type=int, default=500, help="deals drawn per decision")
    ap.add_argument(
        "--betas",
        default="0,0.25,0.5,1,2,4",
        help="inverse temperatures of the model (0: no inference)",
    )
    ap.add_argument("--seed", type=int, default=99)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    try:
        betas = [float(x) for x in a.betas.split(",")]
    except ValueError:
        ap.error("--betas: comma-separated numbers")
    if a.games < 1 or a.samples < 2 or any(b < 0 for b in betas):
        ap.error("--games >= 1, --samples >= 2, betas >= 0")
    out = probe(a.field, a.games, a.samples, betas, a.seed)
    if a.json:
        print(json.dumps(out, indent=1))
        return 0
    print(
        f"field: five {out['field']}s, {out['games']} games x 3 rounds, seed {out['seed']}; "
        f"{out['decisions']} decisions of seat 0, {out['samples']} deals each"
    )
    print(f"{'beta':>6} {'placed right':>14} {'ESS median':>11} {'ESS p10':>8}")
    for r in out["rows"]:
        print(
            f"{r['beta']:>6g} {r['placed_right']:>8.3f} +-{1.96 * r['placed_right_se']:.3f}"
            f" {r['ess_median']:>11.0f} {r['ess_p10']:>8.0f}"
        )
    print("(1.000 is what omniscient knows; beta 0 is esearch's uniform D17-exact deal)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
