"""The first use of a browser table (issue 22 item 10): no computer decision
and no compile ever runs on the event loop that serves every table.

The decision function and the players' construction (where a player is
compiled) are replaced by recorders that note the thread they run on, for
every player the catalogue allows at a browser table (not only the search
players); the engine's step is wrapped the same way, to show that a new
table's first step (where the engine compiles) runs while it is built, in
the creation's worker thread, not in a move on the loop."""

from __future__ import annotations

import asyncio
import threading
from typing import ClassVar

import numpy as np

from domeng.engine.game import Game
from domeng.play import session as session_mod
from domeng.web.hub import Hub
from domeng.web.table import SEAT_KINDS

#: every computer player of a browser table's create form
COMPUTERS = [k for k in SEAT_KINDS if k != "human"]


class _Recorded:
    """Stands in for :class:`domeng.batch.computer.Computers` (its
    construction compiles the seats' players; its ``action`` is the
    decision): notes the thread of each, decides the first legal action."""

    log: ClassVar[list[tuple[str, str, int]]] = []

    def __init__(self, players) -> None:
        self.players = list(players)
        self.pids = np.zeros(5, dtype=np.int64)
        _Recorded.log.append(("compile", ",".join(self.players), threading.get_ident()))

    def action(self, game) -> int:
        _Recorded.log.append(("decide", self.players[game.seat], threading.get_ident()))
        return game.legal_actions()[0]


def test_no_decision_and_no_compile_of_any_browser_player_runs_on_the_loop(monkeypatch):
    assert len(COMPUTERS) >= 9 and "expert" in COMPUTERS and "ismcts" in COMPUTERS
    _Recorded.log = []
    monkeypatch.setattr(session_mod, "Computers", _Recorded)
    steps: list[int] = []
    real_step = Game.step

    def step(self, action):
        steps.append(threading.get_ident())
        return real_step(self, action)

    monkeypatch.setattr(Game, "step", step)
    tables = [COMPUTERS[i : i + 5] for i in range(0, len(COMPUTERS), 5)]
    tables[-1] += COMPUTERS[: 5 - len(tables[-1])]

    async def main() -> tuple[int, int]:
        hub = Hub(delay=0.0)
        hub.bind(asyncio.get_running_loop())
        first_steps, built = [], []
        for seed, seats in enumerate(tables):
            data = {"seats": seats, "seed": seed, "rounds": 3, "camats": 0}
            before = len(steps)
            table = await asyncio.to_thread(hub.build, data)  # as POST /api/tables does
            first_steps.append(steps[before] if len(steps) > before else None)
            built.append(table)
        for table in built:  # registered once all are built: no table plays during a build
            hub.register(table)
        for _ in range(2000):  # every table plays (the drivers run on this loop)
            await asyncio.sleep(0.005)
            done = {name for what, name, _ in _Recorded.log if what == "decide"}
            if hub.moves >= 40 and done >= set(COMPUTERS):
                break
        for table in list(hub.tables.values()):
            hub.close(table)
        assert None not in first_steps, first_steps
        assert hub.loop_thread not in first_steps  # a table's first step: built off the loop
        return hub.loop_thread, hub.moves

    loop_thread, moves = asyncio.run(main())
    decided = [(name, th) for what, name, th in _Recorded.log if what == "decide"]
    compiled = [(name, th) for what, name, th in _Recorded.log if what == "compile"]
    assert moves >= 40
    assert {name for name, _ in decided} == set(COMPUTERS)  # every player was asked
    on_loop = [name for name, th in decided + compiled if th == loop_thread]
    assert on_loop == [], f"ran on the event loop: {sorted(set(on_loop))}"
    assert len(compiled) >= len(tables)
    # the loop does play the chosen moves (every table change happens there):
    # the recorder does tell the loop's thread from the others
    assert loop_thread in steps
