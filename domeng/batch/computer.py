"""Computer players at a :class:`~domeng.engine.game.Game`: the batch
engine's own player dispatch, called one decision at a time.

A seat's computer player sees only its D17 view and draws only from its
seat's stream, exactly as in a study: a game whose five seats are computers
is move for move table ``table`` of a study with the same seed and players.

Speed.  A call from Python into compiled code types its arguments on every
call, and a tuple of compiled functions (what
:func:`domeng.batch.loop.player_action` takes) costs milliseconds to type.
So no such tuple crosses from Python: a built-in seat is asked through
:func:`domeng.batch.loop.builtin_action`, and a compiled (user's or search)
player is called directly between :func:`~domeng.batch.loop.compiled_player_view`
and :func:`~domeng.batch.loop.compiled_player_move`, the two halves of what
``player_action`` does around it (``benchmarks/bench_computer.py``).

    >>> from domeng.engine.game import Game
    >>> from domeng.batch.computer import Computers
    >>> g = Game(seed=3); cpu = Computers("hunter,keeper,heavy,random,expert")  # doctest: +SKIP
    >>> g.new_round(); g.step(cpu.action(g))  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

import numpy as np

from domeng.batch import loop
from domeng.batch.tables import kernel_players
from domeng.core.errors import DomengError, PlayerError
from domeng.core.layout import ST_BAD_MOVES
from domeng.core.numba_cache import prepare
from domeng.core.observation import MAX_TURNS, OBS_LEN
from domeng.engine.step import C_SEAT, PASS
from domeng.players.heuristics import N_BUILTIN


class Computers:
    """Compiled players for the five seats (a name for every seat, or one
    for all; seats a person takes may hold any compiled player: it is never
    asked).  ``action(game)`` is the action of the seat to move's player."""

    def __init__(self, players: Any) -> None:
        prepare()
        self.pids, self.fns = kernel_players(players)
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
        n = int(loop.compiled_player_view(S, self._crng, self._pobs, self._phist, self._pmoves))
        if n == 0:
            return PASS
        try:
            idx = self.fns[s](self._pobs, self._phist, self._pmoves, n, self._crng)
        except Exception as e:  # a user's code: one line, the game unchanged
            raise PlayerError(f"the player of seat {s} failed: {type(e).__name__}: {e}") from None
        bad = int(S.st[ST_BAD_MOVES])
        a = int(loop.compiled_player_move(S, idx, n, self._crng))
        if int(S.st[ST_BAD_MOVES]) != bad:
            raise PlayerError(f"the player of seat {s} returned a move index out of range")
        return a
