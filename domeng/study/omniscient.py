"""Matches with the ``omniscient`` research player (it sees every hand).

:func:`omniscient_match` plays duplicate games on the reference engine: the
same deals once with the omniscient player at seat 0 and once with a
comparison player there (the same other four players), so the paired
difference per game is what seeing every hand is worth over that player.
The hands reach the omniscient player through its separate
``choose_seeing_all`` path, never through an observation; every output is
marked with :data:`domeng.players.omniscient.MARK`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from domeng.core.errors import DomengError
from domeng.core.events import Transfer, from_dict
from domeng.engine.reference import Table
from domeng.players.omniscient import MARK, OmniscientPlayer
from domeng.players.registry import make_player
from domeng.results.stats import t_interval


def _net_seat0(players: Sequence[Any], seed: int, table: int, rounds: int) -> float:
    """Net stones per round of seat 0 (received minus given) in one game."""
    t = Table(seed=seed, table_index=table)
    net = 0
    for _ in range(rounds):
        rnd = t.new_round()
        while not rnd.ended:
            moves = rnd.legal_moves()
            if not moves:
                rnd.pass_turn()
                continue
            seat = rnd.to_move
            p = players[seat]
            obs = rnd.observation(seat)
            if getattr(p, "omniscient", False):
                move = p.choose_seeing_all(
                    obs, moves, t.seat_rngs[seat], [sorted(h) for h in rnd.hands]
                )
            else:
                move = p.choose(obs, moves, t.seat_rngs[seat])
            rnd.play(move)
        for e in map(from_dict, rnd.events):  # the engine's dicts, typed
            if isinstance(e, Transfer):
                net += e.amount * ((e.to == 0) - (e.source == 0))
    return net / rounds


def omniscient_match(
    compare: str = "expert",
    others: Sequence[str] | str = "hunter",
    games: int = 50,
    rounds: int = 5,
    seed: int = 0,
    samples: int = 20,
) -> dict[str, Any]:
    """Omniscient at seat 0 against ``compare`` at seat 0, on the same deals
    with the same four ``others``; the paired margin of net stones per round
    (omniscient minus ``compare``; negative: seeing every hand helps)."""
    if isinstance(others, str):
        others = [s.strip() for s in others.split(",")]
    if len(others) == 1:
        others = list(others) * 4
    if len(others) != 4 or games < 2 or rounds < 1:
        raise DomengError("give four other players (or one for all), games >= 2, rounds >= 1")
    rest = [make_player(p) for p in others]
    omni = OmniscientPlayer(samples)
    base = make_player(compare)
    d = np.array(
        [
            _net_seat0([omni] + rest, seed, g, rounds) - _net_seat0([base] + rest, seed, g, rounds)
            for g in range(games)
        ]
    )
    m = float(d.mean())
    se = float(d.std(ddof=1) / math.sqrt(games))
    return {
        "mark": MARK,
        "omniscient": True,
        "compare": compare,
        "others": list(others),
        "games": games,
        "rounds": rounds,
        "seed": seed,
        "samples": samples,
        "margin": m,
        "se": se,
        "ci95": [float(v) for v in t_interval(m, se, games)],
    }
