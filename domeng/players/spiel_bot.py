"""A policy over observation vectors as an OpenSpiel bot (issue 25, item 6):
:class:`AgentBot`, which :meth:`domeng.players.agents.Agent.bot` makes.

This module imports ``pyspiel`` (the ``rl`` extra); nothing else in
:mod:`domeng.players` does, so the players work without OpenSpiel.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from domeng.core.errors import DomengError
from domeng.core.layout import N_SEATS


class AgentBot(pyspiel.Bot):
    """A policy over observation vectors (an :class:`~domeng.players.agents.Agent`,
    from :func:`domeng.players.load`) as an OpenSpiel bot for seat
    ``player_id``: ``step(state)`` gives it the seat's observation tensor and
    legal actions, nothing else (D17).  ``agent.bot(game, seat)`` makes one.

    >>> import pyspiel, domeng.players, domeng.envs.open_spiel  # registers python_domeng
    >>> game = pyspiel.load_game("python_domeng")
    >>> state = game.new_initial_state()
    >>> while state.is_chance_node():
    ...     state.apply_action(state.chance_outcomes()[0][0])
    >>> seat = state.current_player()  # the opener (D3)
    >>> bot = AgentBot(domeng.players.load("hunter"), game, seat)
    >>> bot.step(state) in state.legal_actions()
    True
    """

    def __init__(self, policy: Any, game: Any, player_id: int) -> None:
        pyspiel.Bot.__init__(self)
        if isinstance(player_id, bool) or not isinstance(player_id, int):
            raise DomengError(f"a player is 0..4, got {player_id!r}")
        if not 0 <= player_id < N_SEATS:
            raise DomengError(f"a player is 0..4, got {player_id!r}")
        self.policy, self.game, self.player_id = policy, game, player_id

    def step(self, state: Any) -> int:
        if state.is_chance_node() or state.is_terminal():
            raise DomengError("no seat is to move at a chance node or at the end")
        if state.current_player() != self.player_id:
            raise DomengError(
                f"seat {state.current_player()} is to move, not this bot's seat {self.player_id}"
            )
        vec = np.asarray(state.observation_tensor(self.player_id), dtype=np.float32)
        mask = np.asarray(state.legal_actions_mask(self.player_id), dtype=np.int8)
        return int(self.policy(vec, mask))

    def restart_at(self, state: Any) -> None:
        """Nothing to do: the bot keeps no memory of the game."""

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to do: the observation holds the round's history."""


__all__ = ["AgentBot"]
