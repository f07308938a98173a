"""N tables stepped at once for one learning seat, the opponents compiled in.

The core of the Gymnasium environments (:mod:`domeng.envs.gym`): the tables
are the engine's N-table record (:mod:`domeng.engine.tables`, row ``i`` is
table ``i``'s step-API state) and one compiled call,
:func:`domeng.engine.tables.step_tables`, takes the learner's action at
every table, then lets the compiled opponents (the same players, streams
and D17 views as a study: :func:`domeng.batch.loop.player_action`) play
until the learner is to move again or the episode ends; it writes
observations, masks and rewards, and (optionally) starts the next episode
at once.  This module gives that driver its three hooks: the opponents'
action, the learner's reward (:func:`step_rewards`) and its view
(:func:`write_view`).

Episodes.  Each episode is a fresh game (D16) at table index ``k`` of the
seed (``k = table_start, table_start + 1, ...`` in the order episodes start,
tables in index order), so with every seat played by the same compiled player
an episode is move for move table ``k`` of a study with that seed.  It ends
after ``rounds`` rounds (if > 0) or at the ``camats``-th CAMAT (if > 0),
:func:`domeng.engine.step.game_over`.

Rewards (:func:`step_rewards`): stones are penalties, so a seat's reward for
a step is minus the stones it gained in that step.  When a round makes a CAMAT
(D15) every stone returns to the table; that return is not counted (the
reward is minus the stones gained by the round's awards), and the CAMAT may
get ``camat_bonus``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from domeng.batch.loop import builtin_action, player_action
from domeng.batch.tables import _quiet_compile
from domeng.core.observation import MAX_TURNS, OBS_LEN
from domeng.core.rules import Rules
from domeng.engine import kernel as K
from domeng.engine import step as E
from domeng.engine import tables as T
from domeng.envs.encoding import OBS_SIZE, encode
from domeng.players.heuristics import N_BUILTIN

State = E.State

#: the opponents' players (:func:`domeng.batch.tables.kernel_players`: ids,
#: and a tuple of compiled functions or None when all are built in) and the
#: scratch they are handed their views in
Opponents = namedtuple("Opponents", ("pids", "fns", "crng", "pobs", "phist", "pmoves"))
#: what a reward is computed with: ``rew`` (``float64[5]``, scratch), the
#: learner's ``seat`` and the CAMAT's ``bonus``
Scoring = namedtuple("Scoring", ("rew", "seat", "bonus"))


@njit(cache=True, inline="always")
def step_rewards(S, ended, camat_bonus, out):
    """Each seat's reward for the step just taken (``out[5]``): minus the
    stones it gained, not counting a CAMAT's return of every stone (D15);
    ``camat_bonus`` to a seat that became CAMAT."""
    for p in range(5):
        out[p] = -float(S.delta[p])
    if ended and S.w[K.W_CAMAT] >= 0:
        for p in range(5):
            out[p] -= float(S.w[K.W_HELD + p])
        out[S.w[K.W_CAMAT]] += camat_bonus


@njit(cache=True, inline="always")
def learner_reward(sc, S, ended):
    """The learner's reward for the step just taken (:func:`step_rewards`)."""
    step_rewards(S, ended, sc.bonus, sc.rew)
    return sc.rew[sc.seat]


@njit(cache=True, inline="always")
def write_view(S, learner, tmp, obs_out, mask_out):
    """The learner's observation vector and action mask."""
    T.observe(S, learner, tmp)
    encode(tmp, S.hist, obs_out)
    T.legal_action_mask(S, mask_out)


@njit(cache=True, inline="always")
def builtin_opponent(opp, S):
    """The seat to move's built-in player (every opponent is one)."""
    return builtin_action(opp.pids, S, opp.crng)


@njit(cache=True, inline="always")
def compiled_opponent(opp, S):
    """The seat to move's player, built in or a compiled function."""
    return player_action(opp.pids, opp.fns, S, opp.crng, opp.pobs, opp.phist, opp.pmoves)


@njit(cache=True)
def start_builtin(S, run, next_table, opp, sc):
    """A new episode, every opponent built in."""
    hooks = T.Hooks(builtin_opponent, learner_reward, write_view, None)
    return T.start_game(S, run, next_table, hooks, opp, sc)


@njit(cache=True)
def start_custom(S, run, next_table, opp, sc):
    """A new episode, some opponent a compiled function."""
    hooks = T.Hooks(compiled_opponent, learner_reward, write_view, None)
    return T.start_game(S, run, next_table, hooks, opp, sc)


# Entry points.  Passing a tuple of compiled functions from Python costs
# about a millisecond a call (numba types it anew each time), so when every
# opponent is a built-in player no such tuple is passed (``opp.fns`` is None).
@njit(cache=True, _nrt=False)
def reset_builtin(B, run, out, opp, sc):
    hooks = T.Hooks(builtin_opponent, learner_reward, write_view, start_builtin)
    T.reset_tables(B, run, out, hooks, opp, sc)


@njit(cache=True, _nrt=False)
def step_builtin(B, actions, run, out, opp, sc):
    hooks = T.Hooks(builtin_opponent, learner_reward, write_view, start_builtin)
    return T.step_tables(B, actions, run, out, hooks, opp, sc)


@njit(cache=True, _nrt=False)
def reset_custom(B, run, out, opp, sc):
    hooks = T.Hooks(compiled_opponent, learner_reward, write_view, start_custom)
    T.reset_tables(B, run, out, hooks, opp, sc)


@njit(cache=True, _nrt=False)
def step_custom(B, actions, run, out, opp, sc):
    hooks = T.Hooks(compiled_opponent, learner_reward, write_view, start_custom)
    return T.step_tables(B, actions, run, out, hooks, opp, sc)


class Tables:
    """``n`` tables for a learner at ``seat``, opponents ``pids``/``fns``
    (:func:`domeng.batch.tables.kernel_players`), with buffers for the
    observations (``obs``), masks (``mask``, int8), rewards and terminations."""

    def __init__(
        self,
        n: int,
        rules: Rules,
        seat: int,
        pids: np.ndarray,
        fns: tuple,
        rounds: int,
        camats: int,
        camat_bonus: float,
    ) -> None:
        self.n = n
        self.rules = rules
        self.seat = seat
        self.pids, self.fns = pids, fns
        self.builtin = bool((pids < N_BUILTIN).all())
        self.rounds, self.camats, self.camat_bonus = int(rounds), int(camats), float(camat_bonus)
        #: the tables, one row each (:mod:`domeng.engine.tables`)
        self.T = T.new_tables(rules.to_array(), 0, 0, n)
        self.obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.final_obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.mask = np.zeros((n, E.N_ACTIONS), dtype=np.int8)
        self.reward = np.zeros(n, dtype=np.float64)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.bad = np.zeros(n, dtype=np.int64)
        self.pending = np.zeros(n, dtype=np.float64)
        self.next_table = np.zeros(1, dtype=np.int64)
        self.seed = np.uint64(0)
        self._out = T.Outputs(
            self.obs,
            self.final_obs,
            self.mask,
            self.reward,
            self.terminated,
            self.pending,
            self.bad,
            self.next_table,
            np.zeros(OBS_LEN, dtype=np.int64),
        )
        self._opp = Opponents(
            pids,
            None if self.builtin else fns,
            np.zeros(1, dtype=np.uint64),
            np.zeros(OBS_LEN, dtype=np.int64),
            np.full((MAX_TURNS, 3), -1, dtype=np.int64),
            np.full(64, -1, dtype=np.int64),
        )
        self._sc = Scoring(np.zeros(5), seat, self.camat_bonus)

    @property
    def B(self) -> State:
        """Every field of the tables' states, stacked (views of :attr:`T`)."""
        return T.fields(self.T)

    def table(self, i: int) -> State:
        """Table ``i``'s state record (views; read-only for callers)."""
        return T.table(self.T, i)

    def _run(self, autoreset: bool) -> T.Run:
        return T.Run(self.seed, self.seat, self.rounds, self.camats, autoreset)

    def reset(self, seed: int, table_start: int) -> None:
        self.seed = np.uint64(seed)
        self.next_table[0] = table_start
        f = reset_builtin if self.builtin else reset_custom
        f(self.T, self._run(False), self._out, self._opp, self._sc)

    def step(self, actions: np.ndarray, autoreset: bool) -> int:
        """One compiled call (:func:`domeng.engine.tables.step_tables`): the
        number of episodes that ended, or minus the number of illegal actions
        (then nothing was played; :attr:`bad` marks them)."""
        run = self._run(autoreset)
        if self.builtin:
            return step_builtin(self.T, actions, run, self._out, self._opp, self._sc)
        with _quiet_compile():
            return step_custom(self.T, actions, run, self._out, self._opp, self._sc)
