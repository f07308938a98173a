"""Computer players at a :class:`~domeng.engine.game.Game`: the batch
engine's own player dispatch, called one decision at a time.

A seat's computer player sees only its D17 view and draws only from its
seat's stream, exactly as in a study: a game whose five seats are computers
is move for move table ``table`` of a study with the same seed and players.

Speed.  A call from Python into compiled code types its arguments on every
call, and a tuple of numba dispatchers (what
:func:`domeng.batch.loop.player_action` takes) costs milliseconds to type:
numba looks up every function's compiled address each time.  So a built-in
seat is asked through :func:`domeng.batch.loop.builtin_action`, which takes
no tuple, and for a compiled (user's or search) player the tuple holds
:class:`~numba.core.types.function_type.CompileResultWAP` wrappers whose
addresses were looked up once, when the ``Computers`` object was made
(``benchmarks/bench_computer.py``).  Both calls release the GIL
(``nogil``): a long search decision leaves the other threads running.

    >>> from domeng.engine.game import Game
    >>> from domeng.batch.computer import Computers
    >>> g = Game(seed=3); cpu = Computers("hunter,keeper,heavy,random,expert")  # doctest: +SKIP
    >>> g.new_round(); g.step(cpu.action(g))  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba.core.types.function_type import CompileResultWAP

from domeng.batch import loop
from domeng.batch.tables import _quiet_compile, kernel_players
from domeng.core.errors import DomengError, PlayerError
from domeng.core.layout import ST_BAD_MOVES
from domeng.core.numba_cache import prepare
from domeng.core.observation import MAX_TURNS, OBS_LEN
from domeng.engine.step import C_SEAT
from domeng.players.heuristics import N_BUILTIN
from domeng.players.scoring import STRATEGY_SIG


class Computers:
    """Compiled players for the five seats (a name for every seat, or one
    for all; seats a person takes may hold any compiled player: it is never
    asked).  ``action(game)`` is the action of the seat to move's player."""

    def __init__(self, players: Any) -> None:
        prepare()
        self.pids, self.fns = kernel_players(players)
        # each function's compiled address, looked up once (see the module's notes)
        self._wrapped = tuple(
            CompileResultWAP(f.get_compile_result(STRATEGY_SIG)) for f in self.fns
        )
        self._builtin = [int(p) < N_BUILTIN for p in self.pids]
        self._crng = np.zeros(1, dtype=np.uint64)
        self._pobs = np.zeros(OBS_LEN, dtype=np.int64)
        self._phist = np.full((MAX_TURNS, 3), -1, dtype=np.int64)
        self._pmoves = np.full(64, -1, dtype=np.int64)

    def action(self, game) -> int:
        """The action the seat to move's player takes (a legal one; ``PASS``
        when it has no playable tile).  Draws from that seat's stream."""
        if game.round_over:
            raise DomengError("no round is in progress")
        S = game.state
        s = int(S.ctl[C_SEAT])
        if self._builtin[s]:
            return int(loop.builtin_action(self.pids, S, self._crng))
        bad = int(S.st[ST_BAD_MOVES])
        with _quiet_compile():
            a = int(
                loop.player_action(
                    self.pids, self._wrapped, S, self._crng, self._pobs, self._phist, self._pmoves
                )
            )
        if int(S.st[ST_BAD_MOVES]) != bad:
            raise PlayerError(f"the player of seat {s} returned a move index out of range")
        return a
