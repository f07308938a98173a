"""CPU time per decision of each player of a tournament or a ladder.

Each player plays a table of five copies of itself in the reference engine
(:mod:`domeng.engine.reference`: the player's own ``choose``, its Python call
included), after one warm-up round that is not timed (it compiles what the
player needs), until it has made :data:`DECISIONS` decisions (a slow
player: :data:`MIN_DECISIONS`, once :data:`BUDGET_NS` of CPU are timed); every call of
``choose`` is timed with the thread's CPU clock.  Reported per player: the
median (``p50``) and the 99th percentile (``p99``) in milliseconds, and the
number of decisions timed.  The figures are measured, so they vary from run
to run and machine to machine; they are not part of the study's numbers
(which the seed fixes) and play no part in them: the timing table has its
own seed stream and nothing of it reaches the tournament.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from domeng.core.rules import Rules
from domeng.engine.reference import PlayerLike, Table

#: decisions timed per player (at least; whole rounds are played)
DECISIONS = 200
#: the most rounds played for one player (a player that rarely decides stops there)
MAX_ROUNDS = 200
#: a slow player stops after this much CPU time timed, once it has made MIN_DECISIONS
BUDGET_NS, MIN_DECISIONS = 5 * 10**9, 20


class _Timed(PlayerLike):
    """A player whose every ``choose`` is timed (thread CPU time, ns)."""

    def __init__(self, player: Any, times: list[int]) -> None:
        self.player, self.times = player, times

    def choose(self, obs, moves, rng):
        t0 = time.thread_time_ns()
        move = self.player.choose(obs, moves, rng)
        self.times.append(time.thread_time_ns() - t0)
        return move


def decision_ms(spec: Any, rules: Rules, seed: int, decisions: int = DECISIONS) -> dict:
    """``{"p50", "p99", "decisions"}``: the CPU time per decision of one
    player (a :class:`~domeng.players.registry.PlayerSpec`), in ms (module
    docstring)."""
    player = spec.make()
    table = Table(rules, seed=seed, table_index=2**40)  # a table no study plays
    table.play_round([player] * 5)  # warm-up: compiles, not timed
    times: list[int] = []
    timed = _Timed(player, times)
    rounds = 0
    while len(times) < decisions and rounds < MAX_ROUNDS:
        if len(times) >= MIN_DECISIONS and sum(times) > BUDGET_NS:
            break
        table.play_round([timed] * 5)
        rounds += 1
    ms = np.asarray(times, dtype=np.float64) / 1e6
    if ms.size == 0:
        return {"p50": None, "p99": None, "decisions": 0}
    p50, p99 = np.percentile(ms, [50, 99])
    return {"p50": float(p50), "p99": float(p99), "decisions": int(ms.size)}


def decision_times(specs: Sequence[Any], names: Sequence[str], rules: Rules, seed: int) -> dict:
    """Player name -> :func:`decision_ms`, each distinct player timed once."""
    out: dict[str, dict] = {}
    done: dict[str, dict] = {}
    for spec, name in zip(specs, names):
        if spec.name not in done:
            done[spec.name] = decision_ms(spec, rules, seed)
        out[name] = done[spec.name]
    return out
