"""N tables stepped at once for one learning seat, the opponents compiled in.

The core of the Gymnasium environments (:mod:`domeng.envs.gym`): table ``i``
is the step API's state record (:class:`domeng.engine.step.State`) whose
fields are row ``i`` of the stacked arrays of :class:`Tables`.  One compiled
call, :func:`vec_step`, takes the learner's action at every table, then lets
the compiled opponents (:func:`domeng.batch.loop.player_action`: the same
players, streams and D17 views as a study) play until the learner is to move
again or the episode ends; it writes observations, masks and rewards, and
(optionally) starts the next episode at once.

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

import numpy as np
from numba import njit

from domeng.batch.loop import player_action
from domeng.core import layout as L
from domeng.core.observation import MAX_TURNS, OBS_LEN
from domeng.core.rules import R_STONES, Rules
from domeng.engine import kernel as K
from domeng.engine import step as E
from domeng.envs.encoding import OBS_SIZE, encode

State = E.State


@njit(cache=True, inline="always")
def view(B, i):
    """Table ``i`` of the stacked record ``B`` as a step-API state (views)."""
    return State(B.rules[i], B.hands[i], B.obs[i], B.hist[i], B.w[i], B.st[i], B.rng[i],
                 B.prng[i], B.agg[i], B.rec[i], B.tr[i], B.tn[i], B.ctl[i], B.delta[i],
                 B.perm[i], B.payers[i], B.moves[i])


@njit(cache=True)
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


@njit(cache=True)
def fresh_game(S, seed, table):
    """Start ``S`` afresh as table ``table`` of ``seed`` (no round yet)."""
    st = K.init_states(seed, table, 1, S.rules[R_STONES])
    for c in range(L.ST_LEN):
        S.st[c] = st[0, c]
    E.load_table(S)
    S.ctl[E.C_SEAT] = -1
    S.ctl[E.C_OVER] = 1
    S.ctl[E.C_ROUND] = 0
    S.ctl[E.C_LAST_SEAT] = -1
    for i in range(6):
        S.delta[i] = 0
    for i in range(S.agg.shape[0]):
        S.agg[i] = 0
    S.tn[0] = 0


@njit(cache=True)
def advance(S, learner, pids, fns, rounds, camats, camat_bonus, crng, pobs, phist, pmoves, rew):
    """Let the opponents play (starting new rounds as the episode goes on)
    until ``learner`` is to move; returns ``(learner's reward meanwhile,
    episode over)``."""
    total = 0.0
    while True:
        if S.ctl[E.C_OVER]:
            if E.game_over(S, rounds, camats):
                return total, True
            E.new_round(S)
        if S.ctl[E.C_SEAT] == learner:
            return total, False
        a = player_action(pids, fns, S, crng, pobs, phist, pmoves)
        ended = E.step(S, a)
        step_rewards(S, ended, camat_bonus, rew)
        total += rew[learner]


@njit(cache=True)
def write_view(S, learner, tmp, obs_out, mask_out):
    """The learner's observation vector and action mask."""
    E.observe(S, learner, tmp)
    encode(tmp, S.hist, obs_out)
    E.legal_action_mask(S, mask_out)


@njit(cache=True)
def _start_episode(S, seed, next_table, learner, pids, fns, rounds, camats, camat_bonus,
                   crng, pobs, phist, pmoves, rew):
    fresh_game(S, seed, next_table[0])
    next_table[0] += 1
    r, _ = advance(S, learner, pids, fns, rounds, camats, camat_bonus, crng, pobs, phist,
                   pmoves, rew)
    return r


@njit(cache=True)
def vec_reset(B, seed, next_table, learner, pids, fns, rounds, camats, camat_bonus, obs_out,
              mask_out, pending, scratch_obs, crng, pobs, phist, pmoves):
    """Start an episode at every table; the learner is to move at each."""
    rew = np.zeros(5)
    for i in range(B.ctl.shape[0]):
        S = view(B, i)
        pending[i] = _start_episode(S, seed, next_table, learner, pids, fns, rounds, camats,
                                    camat_bonus, crng, pobs, phist, pmoves, rew)
        write_view(S, learner, scratch_obs, obs_out[i], mask_out[i])


@njit(cache=True)
def check_actions(B, actions, bad):
    """``bad[i] = 1`` where ``actions[i]`` is not legal at table ``i``; returns how many."""
    n = 0
    for i in range(B.ctl.shape[0]):
        S = view(B, i)
        ok = E.is_legal(S, actions[i])
        bad[i] = 0 if ok else 1
        n += 0 if ok else 1
    return n


@njit(cache=True)
def vec_step(B, actions, seed, next_table, learner, pids, fns, rounds, camats, camat_bonus,
             autoreset, obs_out, mask_out, rew_out, term_out, final_obs, pending, scratch_obs,
             crng, pobs, phist, pmoves):
    """The learner plays ``actions[i]`` (legal: see :func:`check_actions`) at
    every table, then the opponents play until it is to move again or the
    episode ends.  With ``autoreset`` a finished table's last observation goes
    to ``final_obs[i]`` and the next episode starts at once (its observation
    in ``obs_out[i]``).  Returns the number of episodes that ended."""
    rew = np.zeros(5)
    done = 0
    for i in range(B.ctl.shape[0]):
        S = view(B, i)
        ended = E.step(S, actions[i])
        step_rewards(S, ended, camat_bonus, rew)
        r, over = advance(S, learner, pids, fns, rounds, camats, camat_bonus, crng, pobs,
                          phist, pmoves, rew)
        rew_out[i] = pending[i] + rew[learner] + r
        pending[i] = 0.0
        term_out[i] = over
        if over:
            done += 1
            if autoreset:
                write_view(S, learner, scratch_obs, final_obs[i], mask_out[i])
                pending[i] = _start_episode(S, seed, next_table, learner, pids, fns, rounds,
                                            camats, camat_bonus, crng, pobs, phist, pmoves, rew)
        write_view(S, learner, scratch_obs, obs_out[i], mask_out[i])
    return done


class Tables:
    """``n`` tables for a learner at ``seat``, opponents ``pids``/``fns``
    (:func:`domeng.batch.tables.kernel_players`), with buffers for the
    observations (``obs``), masks (``mask``, int8), rewards and terminations."""

    def __init__(self, n: int, rules: Rules, seat: int, pids: np.ndarray, fns: tuple,
                 rounds: int, camats: int, camat_bonus: float) -> None:
        self.n = n
        self.rules = rules
        self.seat = seat
        self.pids, self.fns = pids, fns
        self.rounds, self.camats, self.camat_bonus = int(rounds), int(camats), float(camat_bonus)
        st = K.init_states(np.uint64(0), 0, 1, rules.stones)[0]
        one = E.new_state(rules.to_array(), st, 1, 0)  # the field layout of one table
        self.B = State(*[np.ascontiguousarray(np.repeat(np.asarray(f)[None], n, axis=0))
                         for f in one])
        self.obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.final_obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.mask = np.zeros((n, E.N_ACTIONS), dtype=np.int8)
        self.reward = np.zeros(n, dtype=np.float64)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.bad = np.zeros(n, dtype=np.int64)
        self.pending = np.zeros(n, dtype=np.float64)
        self.next_table = np.zeros(1, dtype=np.int64)
        self.seed = np.uint64(0)
        self._scratch = np.zeros(OBS_LEN, dtype=np.int64)
        self._crng = np.zeros(1, dtype=np.uint64)
        self._pobs = np.zeros(OBS_LEN, dtype=np.int64)
        self._phist = np.full((MAX_TURNS, 3), -1, dtype=np.int64)
        self._pmoves = np.full(64, -1, dtype=np.int64)

    def table(self, i: int) -> State:
        """Table ``i``'s state record (views; read-only for callers)."""
        return State(*[f[i] for f in self.B])

    def reset(self, seed: int, table_start: int) -> None:
        self.seed = np.uint64(seed)
        self.next_table[0] = table_start
        vec_reset(self.B, self.seed, self.next_table, self.seat, self.pids, self.fns,
                  self.rounds, self.camats, self.camat_bonus, self.obs, self.mask, self.pending,
                  self._scratch, self._crng, self._pobs, self._phist, self._pmoves)

    def illegal(self, actions: np.ndarray) -> np.ndarray:
        """Indices of the tables where ``actions`` is not legal."""
        check_actions(self.B, actions, self.bad)
        return np.flatnonzero(self.bad)

    def step(self, actions: np.ndarray, autoreset: bool) -> int:
        return vec_step(self.B, actions, self.seed, self.next_table, self.seat, self.pids,
                        self.fns, self.rounds, self.camats, self.camat_bonus, autoreset,
                        self.obs, self.mask, self.reward, self.terminated, self.final_obs,
                        self.pending, self._scratch, self._crng, self._pobs, self._phist,
                        self._pmoves)
