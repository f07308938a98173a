"""Cost of one computer move at a table (issue 14): ``Computers.action``
against the call it replaced, side by side in one run.

The old call passed the tuple of player functions as numba dispatchers to
:func:`domeng.batch.loop.player_action` on every move, so numba typed the
tuple (looked up every function's compiled address) each time.  Now built-in
seats go through :func:`domeng.batch.loop.builtin_action` (no tuple) and the
other seats' tuple holds addresses looked up once per ``Computers`` object.

Both paths replay the same positions: a game is played with ``Computers``
and, before each move, the old call is timed on a copy of the state; the two
must agree on the move (the script stops if they do not).

    python benchmarks/bench_computer.py --moves 2000
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
from numba import njit

from domeng.batch import loop
from domeng.batch.computer import Computers
from domeng.batch.tables import kernel_players
from domeng.engine.game import Game
from domeng.engine.step import State
from domeng.players.heuristics import N_BUILTIN


@njit
def first_move(obs, hist, moves, n_moves, rng):
    """A user's compiled player (the first legal move): dispatch cost only."""
    return 0


LINEUPS = {
    "built-ins": "hunter,keeper,heavy,random,expert",
    "built-ins + search-20": "hunter,keeper,heavy,random,search-20",
    "built-ins + a user's function": ["hunter", "keeper", "heavy", "random", first_move],
}


def copy_state(S):
    return State(*(np.copy(a) for a in S))


def old_action(pids, fns, S, scratch) -> int:
    """The call ``Computers.action`` made before: dispatchers in the tuple."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return int(loop.player_action(pids, fns, S, *scratch))


def old_computers_action(self: Computers, game) -> int:
    """``Computers.action`` as it was (for ``bench_web.py --dispatch old``)."""
    return old_action(
        self.pids, self.fns, game.state, (self._crng, self._pobs, self._phist, self._pmoves)
    )


def measure(players, moves: int, seed: int) -> dict:
    cpu = Computers(players)
    pids, fns = kernel_players(players)
    scratch = (
        np.zeros(1, np.uint64),
        np.zeros_like(cpu._pobs),
        np.full_like(cpu._phist, -1),
        np.full_like(cpu._pmoves, -1),
    )
    g = Game(seed=seed)
    new_t, old_t = {}, {}
    k = 0
    while k < moves:
        if g.round_over:
            g.new_round()
        kind = "built-in" if int(pids[g.seat]) < N_BUILTIN else "compiled"
        S2 = copy_state(g.state)
        t0 = time.perf_counter()
        a_old = old_action(pids, fns, S2, scratch)
        t1 = time.perf_counter()
        a = cpu.action(g)
        t2 = time.perf_counter()
        if a != a_old:
            raise SystemExit(f"the two paths disagree at move {k}: {a} != {a_old}")
        if k >= 20:  # the first moves compile
            old_t.setdefault(kind, []).append(t1 - t0)
            new_t.setdefault(kind, []).append(t2 - t1)
        g.step(a)
        k += 1
    out = {}
    for kind in new_t:
        o, n = np.array(old_t[kind]) * 1e6, np.array(new_t[kind]) * 1e6
        out[kind] = {
            "moves": len(n),
            "old_us_median": round(float(np.median(o)), 1),
            "new_us_median": round(float(np.median(n)), 1),
            "old_us_mean": round(float(o.mean()), 1),
            "new_us_mean": round(float(n.mean()), 1),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    res = {name: measure(p, a.moves, a.seed) for name, p in LINEUPS.items()}
    res["player_action specialisations"] = len(loop.player_action.signatures)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
