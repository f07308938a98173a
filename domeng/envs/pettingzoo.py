"""Domeng as a PettingZoo AEC game: the five seats ``seat_0 .. seat_4``.

    >>> from domeng.envs.pettingzoo import env
    >>> e = env(rounds=1)
    >>> e.reset(seed=1)
    >>> for agent in e.agent_iter():
    ...     obs, reward, term, trunc, info = e.last()
    ...     e.step(None if term or trunc else int(obs["action_mask"].argmax()))
    >>> e.agents  # the game is over: every seat has left
    []

Each observation is ``{"observation": float32[OBS_SIZE], "action_mask":
int8[57]}``: the seat's D17 view (:mod:`domeng.core.encoding`) and its legal
actions (all 0 when it is not to move).  Rewards are minus the stones each
seat gains in each step (:func:`domeng.envs.tables.step_rewards`), for every
seat, not only the mover.  An episode is a fresh game (D16) of ``rounds``
rounds or until the ``camats``-th CAMAT (:class:`~domeng.envs.options.EpisodeOptions`).
The game is a :class:`domeng.engine.game.Game`: table ``table`` of the seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from domeng.core.encoding import OBS_SIZE, encode
from domeng.core.errors import DomengError, IllegalMoveError
from domeng.core.events import for_seat, render_events
from domeng.core.rules import Rules
from domeng.engine.game import N_ACTIONS, Game
from domeng.envs.gym import HIGH
from domeng.envs.options import EpisodeOptions, check_seed
from domeng.envs.tables import step_rewards

AGENTS = tuple(f"seat_{s}" for s in range(5))


class raw_env(AECEnv):
    """The AEC environment (see the module).  Options: ``rules``, ``rounds``,
    ``camats``, ``camat_bonus``, ``table`` (the table index of the seed),
    ``render_mode`` (``"ansi"``: the round so far as a spectator sees it).

    Parameters
    ----------
    rules, rounds, camats, camat_bonus:
        The episode (:class:`~domeng.envs.options.EpisodeOptions`).
    table:
        The table index of the seed given to ``reset``.
    render_mode:
        None or ``"ansi"``.

    Examples
    --------
    >>> e = raw_env(rounds=1)
    >>> e.reset(seed=1)
    >>> e.agent_selection, sorted(e.observe("seat_0"))
    ('seat_0', ['action_mask', 'observation'])
    """

    metadata = {
        "render_modes": ["ansi"],
        "name": "domeng_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        rules: Rules | None = None,
        rounds: int = 1,
        camats: int = 0,
        camat_bonus: float = 0.0,
        table: int = 0,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise DomengError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.options = EpisodeOptions.make(rules, rounds, camats, camat_bonus)
        self.render_mode = render_mode
        self.table = int(table)
        self.possible_agents = list(AGENTS)
        obs = spaces.Box(0.0, HIGH, (OBS_SIZE,), np.float32)
        mask = spaces.Box(0, 1, (N_ACTIONS,), np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs, "action_mask": mask}) for a in AGENTS
        }
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in AGENTS}
        self.game: Game | None = None
        self._rew = np.zeros(5)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------- episode
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A fresh game: table ``table`` of ``seed`` (a random seed if None)."""
        if seed is None:
            seed = int(np.random.default_rng().integers(0, 2**63))
        self.game = Game(self.options.rules, check_seed(seed), self.table)
        self.game.new_round()
        self._log: list[dict[str, Any]] = list(self.game.events)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self._seat()]

    def step(self, action) -> None:
        """The agent to move takes ``action`` (an illegal one raises
        :class:`IllegalMoveError` and changes nothing)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalMoveError(f"{agent} is to move: None is not an action")
        g = self._live()
        events = g.step(action)  # raises before any change if illegal
        self._log.extend(events)
        self._cumulative_rewards[agent] = 0.0
        step_rewards(g.state, g.round_over, self.options.camat_bonus, self._rew)
        self.rewards = {a: float(self._rew[s]) for s, a in enumerate(AGENTS)}
        if g.round_over:
            if g.game_over(self.options.rounds, self.options.camats):
                self.terminations = {a: True for a in AGENTS}
            else:
                self._log.extend(g.new_round())
        if not self.terminations[agent]:
            self.agent_selection = AGENTS[self._seat()]
        self._accumulate_rewards()

    def _live(self) -> Game:
        """The game in play; before :meth:`reset` one clear error."""
        if self.game is None:
            raise RuntimeError("call reset() before step() or observe()")
        return self.game

    def _seat(self) -> int:
        """The seat to move (a round is on whenever an agent is selected)."""
        seat = self._live().seat
        assert seat is not None
        return seat

    # ------------------------------------------------------------- views
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s D17 view and its action mask."""
        s = AGENTS.index(agent)
        g = self._live()
        out = np.zeros(OBS_SIZE, dtype=np.float32)
        encode(g.observe(s), g.history(), out)
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        if not g.round_over and g.seat == s and not self.terminations[agent]:
            mask[:] = g.legal_action_mask()
        return {"observation": out, "action_mask": mask}

    def render(self) -> str | None:
        """``ansi``: the game so far as a spectator sees it (no hands, D17)."""
        if self.render_mode is None or self.game is None:
            return None
        return render_events([for_seat(ev, None) for ev in self._log])

    def close(self) -> None:
        pass


def env(**options) -> AECEnv:
    """:class:`raw_env` with PettingZoo's standard checks (order enforcing,
    out-of-bounds actions).  ``options``: those of :class:`raw_env`; returns
    the wrapped environment.

    >>> e = env(rounds=1)
    >>> e.reset(seed=1)
    >>> e.possible_agents[:2]
    ['seat_0', 'seat_1']
    """
    e = raw_env(**options)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e
