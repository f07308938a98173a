"""Gymnasium environments: one learning seat, the other four seats played by
compiled players inside the engine.

* :class:`DomengEnv` (``gymnasium.make("domeng/Domeng-v0", opponents="hunter",
  seat=0)``): one table.
* :class:`DomengVectorEnv` (``gymnasium.make_vec("domeng/Domeng-v0",
  num_envs=N)`` or ``DomengVectorEnv(N, ...)``): N tables stepped by one
  compiled call, auto-reset in the same step.

Observations are the ``float32`` vectors of :mod:`domeng.core.encoding` (the
learner's D17 view); actions are the step API's 57 (``tile * 2 + end``, and
``PASS = 56`` when nothing else is legal, D5); the legal ones are in
``info["action_mask"]`` and :meth:`action_masks`.  Rewards are minus the
stones the learner gains (:func:`domeng.envs.tables.step_rewards`).
An illegal action raises :class:`~domeng.core.errors.IllegalMoveError` and
changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from domeng.batch.tables import _quiet_compile, kernel_players
from domeng.core.encoding import OBS_SIZE
from domeng.core.errors import DomengError, IllegalMoveError
from domeng.core.observation import OBS_LEFT, OBS_RIGHT, OBS_ROUND, OBS_STONES, OBS_TABLE
from domeng.core.rules import Rules
from domeng.core.tiles import hand_str, tiles_of
from domeng.engine import step as E
from domeng.engine.game import action_str
from domeng.envs.options import EpisodeOptions, check_seat, check_seed, seat_players
from domeng.envs.tables import Tables

N_ACTIONS = E.N_ACTIONS


#: the observation vectors' upper bound (counts are unbounded in principle)
HIGH = float(np.finfo(np.float32).max)


def _start_tables(env, seed: int | None) -> None:
    """Reset ``env``'s compiled tables (the single and the vector env share
    this): with ``seed``, from table ``table_start`` of that seed; without,
    the next tables of the current seed (a random seed at first)."""
    if seed is not None:
        env._seed, start = check_seed(seed), env._table_start
    elif not env._started:
        env._seed, start = int(env.np_random.integers(0, 2**63)), env._table_start
    else:
        start = int(env._t.next_table[0])
    env._started = True
    with _quiet_compile():
        env._t.reset(env._seed, start)


class LegalActions(spaces.Discrete):
    """The 57 actions; :meth:`sample` without a mask draws a *legal* action
    (the mask of the state at hand), so ``env.action_space.sample()`` is
    always playable.  ``mask_of``: a callable returning the current mask.

    >>> import numpy as np
    >>> space = LegalActions(lambda: np.eye(57, dtype=np.int8)[54])
    >>> int(space.sample())  # the only legal action
    54
    """

    def __init__(self, mask_of) -> None:
        super().__init__(N_ACTIONS)
        self._mask_of = mask_of

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None:
            m = self._mask_of()
            if m is not None and m.any():
                mask = m.astype(np.int8)
        return super().sample(mask=mask, probability=probability)


def _obs_space(shape=(OBS_SIZE,)):
    return spaces.Box(low=0.0, high=HIGH, shape=shape, dtype=np.float32)


def _make_tables(n: int, opponents, seat: int, opts: EpisodeOptions) -> Tables:
    """The compiled tables of an env of ``n`` tables playing the episode ``opts``."""
    seat = check_seat(seat)
    pids, fns = kernel_players(seat_players(opponents, seat))
    return Tables(n, opts.rules, seat, pids, fns, opts.rounds, opts.camats, opts.camat_bonus)


def _check_action(a: Any) -> int:
    if (
        isinstance(a, (bool, np.bool_))
        or not isinstance(a, (int, np.integer))
        or not 0 <= a < N_ACTIONS
    ):
        raise IllegalMoveError(f"an action is a whole number 0..{N_ACTIONS - 1}, got {a!r}")
    return int(a)


def _illegal_message(tables: Tables, bad: np.ndarray, actions: np.ndarray) -> str:
    i = int(bad[0])
    legal = [action_str(int(x)) for x in np.flatnonzero(tables.legal_masks()[i])]
    where = f"table {i}: " if tables.n > 1 else ""
    more = f" (and {len(bad) - 1} other table(s))" if len(bad) > 1 else ""
    return (
        f"{where}action {int(actions[i])} ({action_str(int(actions[i]))}) is not legal "
        f"for seat {tables.seat} now; legal: {', '.join(legal)}{more} (D5); nothing was played"
    )


class DomengEnv(gymnasium.Env):
    """One table of Domeng for a learner at ``seat``; ``opponents`` (one
    compiled player name, or four for the other seats in seat order) play
    the rest inside the engine.  Episode (D16): ``rounds`` / ``camats``
    (:class:`domeng.envs.options.EpisodeOptions`); the k-th episode after
    ``reset(seed=s)`` is table ``table_start + k`` of seed ``s``.

    An illegal action raises :class:`IllegalMoveError` and changes nothing;
    with ``illegal="penalize"`` it changes nothing either but returns
    ``illegal_penalty`` as the reward and ``info["illegal"] = True`` instead
    (what Gymnasium's ``check_env``, which steps unmasked samples, needs).

    Parameters
    ----------
    opponents:
        One compiled player's name for the four other seats, or four names.
    seat:
        The learner's seat, 0..4.
    rules, rounds, camats, camat_bonus:
        The episode (:class:`~domeng.envs.options.EpisodeOptions`), by keyword.
    table_start:
        The first episode's table index.
    render_mode:
        None or ``"ansi"``.
    illegal, illegal_penalty:
        ``"raise"`` or ``"penalize"`` (above), and the penalty's reward.

    Examples
    --------
    >>> import numpy as np
    >>> env = DomengEnv(opponents="hunter", seat=0)
    >>> obs, info = env.reset(seed=1)
    >>> obs.shape == (OBS_SIZE,), info["action_mask"].shape
    (True, (57,))
    >>> done = False
    >>> while not done:
    ...     action = int(np.flatnonzero(env.action_masks())[0])
    ...     obs, reward, terminated, truncated, info = env.step(action)
    ...     done = terminated or truncated
    >>> terminated, truncated
    (True, False)
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        opponents: str | Sequence[str] = "random",
        seat: int = 0,
        *,
        table_start: int = 0,
        render_mode: str | None = None,
        illegal: str = "raise",
        illegal_penalty: float = -1.0,
        rules: Rules | None = None,
        rounds: int = 1,
        camats: int = 0,
        camat_bonus: float = 0.0,
    ) -> None:
        if render_mode not in (None, "ansi"):
            raise DomengError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if illegal not in ("raise", "penalize"):
            raise DomengError(f"illegal must be 'raise' or 'penalize', got {illegal!r}")
        self._illegal = illegal
        self._penalty = float(illegal_penalty)
        self.render_mode = render_mode
        with _quiet_compile():
            opts = EpisodeOptions.make(rules, rounds, camats, camat_bonus)
            self._t = _make_tables(1, opponents, seat, opts)
        self.seat = self._t.seat
        self.observation_space = _obs_space()
        self.action_space = LegalActions(lambda: self._t.mask[0])
        self._table_start = int(table_start)
        self._started = False
        self._done = True
        self._actions = np.zeros(1, dtype=np.int64)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new episode: with ``seed``, table ``table_start`` of that seed;
        without, the next table of the current seed (a random seed at first)."""
        super().reset(seed=seed)
        _start_tables(self, seed)
        self._done = False
        return self._t.obs[0].copy(), self._info()

    def step(self, action):
        """The learner takes ``action``; the opponents play until it is to
        move again or the episode ends."""
        if self._done:
            raise DomengError("the episode is over (or not started): call reset()")
        try:
            self._actions[0] = _check_action(action)
            if self._t.step(self._actions, False) < 0:  # checked first: nothing played
                raise IllegalMoveError(
                    _illegal_message(self._t, np.flatnonzero(self._t.bad), self._actions)
                )
        except IllegalMoveError:
            if self._illegal == "raise":
                raise
            # nothing is played: the same observation, the penalty, the same mover
            return (
                self._t.obs[0].copy(),
                self._penalty,
                False,
                False,
                {**self._info(), "illegal": True},
            )
        self._done = bool(self._t.terminated[0])
        return (self._t.obs[0].copy(), float(self._t.reward[0]), self._done, False, self._info())

    def action_masks(self) -> np.ndarray:
        """``bool[57]``: the legal actions now (masked-policy libraries call this)."""
        return self._t.mask[0].astype(bool)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._t.mask[0].copy(), "table": int(self._t.next_table[0]) - 1}

    def render(self) -> str | None:
        """``ansi``: the learner's view (its hand, the ends, the stones)."""
        if self.render_mode != "ansi":
            return None
        S = self._t.table(0)
        o = S.obs
        ends = "none yet" if o[OBS_LEFT] < 0 else f"{o[OBS_LEFT]} and {o[OBS_RIGHT]}"
        stones = ", ".join(f"seat {p}: {int(o[OBS_STONES + p])}" for p in range(5))
        return (
            f"round {int(o[OBS_ROUND])}, you are seat {self.seat}\n"
            f"your hand: {hand_str(tiles_of(int(S.hands[self.seat])))}\n"
            f"open ends: {ends}\nstones: {stones}; table: {int(o[OBS_TABLE])}"
        )


class DomengVectorEnv(VectorEnv):
    """``num_envs`` tables of :class:`DomengEnv` stepped at once by one
    compiled call (:func:`domeng.envs.tables.vec_step`).  Auto-reset happens
    in the same step (``AutoresetMode.SAME_STEP``): a finished table's reward
    and ``terminated`` are returned with the first observation of its next
    episode, its last observation in ``info["final_obs"]`` (rows where
    ``info["_final_obs"]``).  ``info["action_mask"]`` holds the masks
    (``int8[num_envs, 57]``).  ``copy=False`` returns the internal buffers
    (valid until the next step) for speed.

    Parameters
    ----------
    num_envs:
        The number of tables, >= 1.
    opponents, seat, rules, rounds, camats, camat_bonus, table_start, render_mode:
        As for :class:`DomengEnv`, for every table.
    copy:
        False: return the internal buffers (above).

    Examples
    --------
    >>> import numpy as np
    >>> venv = DomengVectorEnv(2, opponents="hunter")
    >>> obs, info = venv.reset(seed=1)
    >>> obs.shape == (2, OBS_SIZE), info["action_mask"].shape
    (True, (2, 57))
    >>> actions = info["action_mask"].argmax(axis=1)  # a legal action at each table
    >>> obs, rewards, terminated, truncated, info = venv.step(actions)
    >>> rewards.shape, terminated.dtype
    ((2,), dtype('bool'))
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int = 1,
        opponents: str | Sequence[str] = "random",
        seat: int = 0,
        *,
        table_start: int = 0,
        copy: bool = True,
        render_mode: str | None = None,
        rules: Rules | None = None,
        rounds: int = 1,
        camats: int = 0,
        camat_bonus: float = 0.0,
    ) -> None:
        if (
            isinstance(num_envs, bool)
            or not isinstance(num_envs, (int, np.integer))
            or num_envs < 1
        ):
            raise DomengError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        self.num_envs = int(num_envs)
        with _quiet_compile():
            opts = EpisodeOptions.make(rules, rounds, camats, camat_bonus)
            self._t = _make_tables(self.num_envs, opponents, seat, opts)
        self.seat = self._t.seat
        self.single_observation_space = _obs_space()
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = _obs_space((self.num_envs, OBS_SIZE))
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, N_ACTIONS))
        self.render_mode = render_mode
        self._table_start = int(table_start)
        self._copy = bool(copy)
        self._started = False
        self._actions = np.zeros(self.num_envs, dtype=np.int64)
        self._truncated = np.zeros(self.num_envs, dtype=np.bool_)  # never: episodes end

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode at every table: with ``seed``, tables
        ``table_start ..`` of that seed; without, the next tables."""
        super().reset(seed=seed)
        _start_tables(self, seed)
        return self._out(self._t.obs), {"action_mask": self._out(self._t.mask)}

    def step(self, actions):
        if not self._started:
            raise DomengError("call reset() first")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise IllegalMoveError(
                f"actions must be {self.num_envs} whole numbers "
                f"0..{N_ACTIONS - 1}, got shape {a.shape} of {a.dtype}"
            )
        self._actions[:] = a
        t = self._t
        done = t.step(self._actions, True)  # checks every action first
        if done < 0:
            raise IllegalMoveError(_illegal_message(t, np.flatnonzero(t.bad), self._actions))
        info: dict[str, Any] = {"action_mask": self._out(t.mask)}
        if done:
            info["final_obs"] = self._out(t.final_obs)
            info["_final_obs"] = self._out(t.terminated)
        return (
            self._out(t.obs),
            self._out(t.reward),
            self._out(t.terminated),
            self._out(self._truncated),
            info,
        )

    def action_masks(self) -> np.ndarray:
        """``bool[num_envs, 57]``: the legal actions at each table (the
        engine's own, whatever was written into a mask handed out)."""
        return self._t.legal_masks()

    def _out(self, a: np.ndarray) -> np.ndarray:
        return a.copy() if self._copy else a
