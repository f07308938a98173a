"""OpenSpiel's IS-MCTS against domeng's compiled players on ``python_domeng``
(issue 15): a duplicate match, its margin with a 95% confidence interval.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_envs_ismcts.py \\
        [--deals 12] [--sims 50] [--opponent search] [--seed 1]

Every deal (one round, D2, drawn through OpenSpiel's chance nodes) is played
five times, IS-MCTS (``open_spiel.python.algorithms.ismcts``, random-rollout
evaluator, ``--sims`` simulations a decision, resampling with
``resample_from_infostate``, the engine's determinizer) in each seat in
turn and ``--opponent`` in the other four, so the luck of the deal cancels.
The margin of a game is IS-MCTS's return minus the mean return of the other
four seats (returns are minus the stones gained: positive is good for
IS-MCTS); a deal's margin is the mean over its five games, and the interval
is over deals.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import domeng.envs.open_spiel  # noqa: F401  (registers python_domeng)
from domeng.batch.computer import Computers
from domeng.envs.open_spiel import computer_action


def play(game, deal: list[int], bot_seat: int, bot, computers) -> list[float]:
    """One round on ``deal`` (25 tiles in deal order); the returns."""
    state = game.new_initial_state()
    for t in deal:
        state.apply_action(t)
    while not state.is_terminal():
        if state.current_player() == bot_seat:
            state.apply_action(bot.step(state))
        else:
            state.apply_action(computer_action(computers, state))
    return state.returns()


def match(deals: int, sims: int, opponent: str, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    margins, t0 = [], time.perf_counter()
    for d in range(deals):
        game = pyspiel.load_game("python_domeng", {"seed": seed * 1000 + d})
        deal = [int(t) for t in rng.permutation(28)[:25]]  # D2: a uniform deal
        per = []
        for seat in range(5):
            rs = np.random.RandomState(seed * 7919 + d * 5 + seat)
            bot = ismcts.ISMCTSBot(
                game,
                mcts.RandomRolloutEvaluator(1, rs),
                uct_c=2.0,
                max_simulations=sims,
                random_state=rs,
            )
            bot.set_resampler(lambda s, p, rs=rs: s.resample_from_infostate(p, rs.uniform))
            r = play(game, deal, seat, bot, Computers(opponent))
            per.append(r[seat] - np.mean([r[q] for q in range(5) if q != seat]))
        margins.append(float(np.mean(per)))
    m = np.array(margins)
    half = 1.96 * m.std(ddof=1) / np.sqrt(len(m)) if len(m) > 1 else float("nan")
    return {
        "deals": deals,
        "games": 5 * deals,
        "sims": sims,
        "opponent": opponent,
        "margin": float(m.mean()),
        "ci95": float(half),
        "seconds": time.perf_counter() - t0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=12)
    ap.add_argument("--sims", type=int, default=50)
    ap.add_argument("--opponent", default="search")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    r = match(a.deals, a.sims, a.opponent, a.seed)
    print(
        f"IS-MCTS ({r['sims']} simulations) vs {r['opponent']}: {r['games']} games on "
        f"{r['deals']} deals, margin {r['margin']:+.2f} +/- {r['ci95']:.2f} stones a round "
        f"(95% CI; positive: IS-MCTS gains fewer stones) in {r['seconds']:.0f} s"
    )


if __name__ == "__main__":
    main()
