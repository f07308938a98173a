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
from domeng.batch.tables import _quiet_compile
from domeng.core import layout as L
from domeng.core.nbrng import randbelow_at, seat_state, table_state
from domeng.core.observation import MAX_TURNS, OBS_HAND, OBS_LEN, OBS_SEAT
from domeng.core.rules import R_STONES, Rules
from domeng.engine import kernel as K
from domeng.engine import step as E
from domeng.envs.encoding import OBS_SIZE, encode
from domeng.players.heuristics import N_BUILTIN, builtin_choose

State = E.State

# The step API's own functions, compiled inline into the loops below (the
# same source, so no rule is restated here): a call that passes the whole
# state record costs more than the step itself otherwise.
_inline = njit(inline="always")
legal_action_mask = _inline(E.legal_action_mask.py_func)
is_legal = _inline(E.is_legal.py_func)
observe = _inline(E.observe.py_func)
game_over = _inline(E.game_over.py_func)


@njit(cache=True, inline="always")
def table_at(B, i):
    """Table ``i`` of the stacked record ``B`` as a step-API state (views)."""
    return State(
        B.rules[i],
        B.hands[i],
        B.obs[i],
        B.hist[i],
        B.w[i],
        B.st[i],
        B.rng[i],
        B.prng[i],
        B.agg[i],
        B.rec[i],
        B.tr[i],
        B.tn[i],
        B.ctl[i],
        B.delta[i],
        B.perm[i],
        B.payers[i],
        B.moves[i],
    )


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


@njit(cache=True, _nrt=False)
def fresh_game(S, seed, table):
    """Start ``S`` afresh as table ``table`` of ``seed`` (no round yet), as
    row ``table`` of :func:`domeng.engine.kernel.init_states` (without its
    allocation)."""
    for c in range(L.ST_LEN):
        S.st[c] = 0
    S.st[L.ST_TABLE] = S.rules[R_STONES]
    S.st[L.ST_CAMAT] = -1
    S.st[L.ST_NEXT_STARTER] = -1
    t = np.uint64(table)
    S.st[L.ST_RNG] = np.int64(table_state(seed, t))
    for p in range(5):
        S.st[L.ST_SEAT_RNG + p] = np.int64(seat_state(seed, t, np.uint64(p)))
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


@njit(cache=True, inline="always")
def builtin_action(pids, S, crng):
    """The action of the seat to move's built-in player (``pids[s] <
    N_BUILTIN``): :func:`domeng.batch.loop.player_action` without the table
    of compiled functions (the agreement tests check they play the same)."""
    s = S.ctl[E.C_SEAT]
    n = E.legal_moves(S)
    if n == 0:
        return E.PASS
    pid = pids[s]
    if pid == 0:
        idx = 0 if n == 1 else randbelow_at(S.prng, s, n)
    else:
        S.obs[OBS_SEAT] = s
        S.obs[OBS_HAND] = S.hands[s]
        crng[0] = S.prng[s]
        idx = builtin_choose(pid, S.obs, S.hist, S.moves, n, crng)
        S.prng[s] = crng[0]
    return S.moves[idx]


@njit(cache=True, inline="always")
def advance(S, learner, pids, fns, rounds, camats, camat_bonus, crng, pobs, phist, pmoves, rew):
    """Let the opponents play (starting new rounds as the episode goes on)
    until ``learner`` is to move; returns ``(learner's reward meanwhile,
    episode over)``."""
    total = 0.0
    while True:
        if S.ctl[E.C_OVER]:
            if game_over(S, rounds, camats):
                return total, True
            E.new_round(S)
        if S.ctl[E.C_SEAT] == learner:
            return total, False
        if fns is None:
            a = builtin_action(pids, S, crng)
        else:
            a = player_action(pids, fns, S, crng, pobs, phist, pmoves)
        ended = E.step(S, a)
        step_rewards(S, ended, camat_bonus, rew)
        total += rew[learner]


@njit(cache=True, inline="always")
def write_view(S, learner, tmp, obs_out, mask_out):
    """The learner's observation vector and action mask."""
    observe(S, learner, tmp)
    encode(tmp, S.hist, obs_out)
    legal_action_mask(S, mask_out)


# called, not inlined: a new episode is rare, and its inlined copy of ``advance``
# doubled the compile of the step kernels (first use of an env: 101 -> 47 s)
@njit(cache=True)
def _start_episode(
    S,
    seed,
    next_table,
    learner,
    pids,
    fns,
    rounds,
    camats,
    camat_bonus,
    crng,
    pobs,
    phist,
    pmoves,
    rew,
):
    fresh_game(S, seed, next_table[0])
    next_table[0] += 1
    r, _ = advance(
        S, learner, pids, fns, rounds, camats, camat_bonus, crng, pobs, phist, pmoves, rew
    )
    return r


@njit(cache=True, _nrt=False, inline="always")
def vec_reset(
    B,
    seed,
    next_table,
    learner,
    pids,
    fns,
    rounds,
    camats,
    camat_bonus,
    obs_out,
    mask_out,
    pending,
    scratch_obs,
    crng,
    pobs,
    phist,
    pmoves,
    rew,
):
    """Start an episode at every table; the learner is to move at each."""
    for i in range(B.ctl.shape[0]):
        S = table_at(B, i)
        pending[i] = _start_episode(
            S,
            seed,
            next_table,
            learner,
            pids,
            fns,
            rounds,
            camats,
            camat_bonus,
            crng,
            pobs,
            phist,
            pmoves,
            rew,
        )
        write_view(S, learner, scratch_obs, obs_out[i], mask_out[i])


@njit(cache=True, _nrt=False, inline="always")
def _check(B, actions, bad):
    """``bad[i] = 1`` where ``actions[i]`` is not legal at table ``i``; returns how many."""
    n = 0
    for i in range(B.ctl.shape[0]):
        S = table_at(B, i)
        ok = is_legal(S, actions[i])
        bad[i] = 0 if ok else 1
        n += 0 if ok else 1
    return n


@njit(cache=True, _nrt=False, inline="always")
def vec_step(
    B,
    actions,
    seed,
    next_table,
    learner,
    pids,
    fns,
    rounds,
    camats,
    camat_bonus,
    autoreset,
    obs_out,
    mask_out,
    rew_out,
    term_out,
    final_obs,
    pending,
    scratch_obs,
    crng,
    pobs,
    phist,
    pmoves,
    rew,
    bad,
):
    """The learner plays ``actions[i]`` at every table, then the opponents
    play until it is to move again or the episode ends.  With ``autoreset``
    a finished table's last observation goes to ``final_obs[i]`` and the
    next episode starts at once (its observation in ``obs_out[i]``).
    Returns the number of episodes that ended; but first every action is
    checked, and if any is illegal nothing is played: ``bad[i] = 1`` marks
    them and the return is minus their number."""
    n_bad = _check(B, actions, bad)
    if n_bad:
        return -n_bad
    done = 0
    for i in range(B.ctl.shape[0]):
        S = table_at(B, i)
        ended = E.step(S, actions[i])
        step_rewards(S, ended, camat_bonus, rew)
        own = rew[learner]
        r, over = advance(
            S, learner, pids, fns, rounds, camats, camat_bonus, crng, pobs, phist, pmoves, rew
        )
        rew_out[i] = pending[i] + own + r
        pending[i] = 0.0
        term_out[i] = over
        if over:
            done += 1
            if autoreset:
                write_view(S, learner, scratch_obs, final_obs[i], mask_out[i])
                pending[i] = _start_episode(
                    S,
                    seed,
                    next_table,
                    learner,
                    pids,
                    fns,
                    rounds,
                    camats,
                    camat_bonus,
                    crng,
                    pobs,
                    phist,
                    pmoves,
                    rew,
                )
        write_view(S, learner, scratch_obs, obs_out[i], mask_out[i])
    return done


# Entry points.  Passing a tuple of compiled functions from Python costs
# about a millisecond a call (numba types it anew each time), so when every
# opponent is a built-in player no such tuple is passed: ``fns`` is ``None``
# and ``advance`` asks :func:`builtin_action`.
@njit(cache=True, _nrt=False)
def reset_builtin(
    B,
    seed,
    next_table,
    learner,
    pids,
    rounds,
    camats,
    camat_bonus,
    obs_out,
    mask_out,
    pending,
    scratch_obs,
    crng,
    pobs,
    phist,
    pmoves,
    rew,
):
    vec_reset(
        B,
        seed,
        next_table,
        learner,
        pids,
        None,
        rounds,
        camats,
        camat_bonus,
        obs_out,
        mask_out,
        pending,
        scratch_obs,
        crng,
        pobs,
        phist,
        pmoves,
        rew,
    )


@njit(cache=True, _nrt=False)
def step_builtin(
    B,
    actions,
    seed,
    next_table,
    learner,
    pids,
    rounds,
    camats,
    camat_bonus,
    autoreset,
    obs_out,
    mask_out,
    rew_out,
    term_out,
    final_obs,
    pending,
    scratch_obs,
    crng,
    pobs,
    phist,
    pmoves,
    rew,
    bad,
):
    return vec_step(
        B,
        actions,
        seed,
        next_table,
        learner,
        pids,
        None,
        rounds,
        camats,
        camat_bonus,
        autoreset,
        obs_out,
        mask_out,
        rew_out,
        term_out,
        final_obs,
        pending,
        scratch_obs,
        crng,
        pobs,
        phist,
        pmoves,
        rew,
        bad,
    )


@njit(cache=True, _nrt=False)
def reset_custom(
    B,
    seed,
    next_table,
    learner,
    pids,
    fns,
    rounds,
    camats,
    camat_bonus,
    obs_out,
    mask_out,
    pending,
    scratch_obs,
    crng,
    pobs,
    phist,
    pmoves,
    rew,
):
    vec_reset(
        B,
        seed,
        next_table,
        learner,
        pids,
        fns,
        rounds,
        camats,
        camat_bonus,
        obs_out,
        mask_out,
        pending,
        scratch_obs,
        crng,
        pobs,
        phist,
        pmoves,
        rew,
    )


@njit(cache=True, _nrt=False)
def step_custom(
    B,
    actions,
    seed,
    next_table,
    learner,
    pids,
    fns,
    rounds,
    camats,
    camat_bonus,
    autoreset,
    obs_out,
    mask_out,
    rew_out,
    term_out,
    final_obs,
    pending,
    scratch_obs,
    crng,
    pobs,
    phist,
    pmoves,
    rew,
    bad,
):
    return vec_step(
        B,
        actions,
        seed,
        next_table,
        learner,
        pids,
        fns,
        rounds,
        camats,
        camat_bonus,
        autoreset,
        obs_out,
        mask_out,
        rew_out,
        term_out,
        final_obs,
        pending,
        scratch_obs,
        crng,
        pobs,
        phist,
        pmoves,
        rew,
        bad,
    )


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
        self._fns = () if self.builtin else (fns,)
        self.rounds, self.camats, self.camat_bonus = int(rounds), int(camats), float(camat_bonus)
        st = K.init_states(np.uint64(0), 0, 1, rules.stones)[0]
        one = E.new_state(rules.to_array(), st, 1, 0)  # the field layout of one table
        self.B = State(
            *[np.ascontiguousarray(np.repeat(np.asarray(f)[None], n, axis=0)) for f in one]
        )
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
        self._rew = np.zeros(5)

    def table(self, i: int) -> State:
        """Table ``i``'s state record (views; read-only for callers)."""
        return State(*[f[i] for f in self.B])

    def reset(self, seed: int, table_start: int) -> None:
        self.seed = np.uint64(seed)
        self.next_table[0] = table_start
        f = reset_builtin if self.builtin else reset_custom
        f(
            self.B,
            self.seed,
            self.next_table,
            self.seat,
            self.pids,
            *self._fns,
            self.rounds,
            self.camats,
            self.camat_bonus,
            self.obs,
            self.mask,
            self.pending,
            self._scratch,
            self._crng,
            self._pobs,
            self._phist,
            self._pmoves,
            self._rew,
        )

    def step(self, actions: np.ndarray, autoreset: bool) -> int:
        """One compiled call (:func:`vec_step`): the number of episodes that
        ended, or minus the number of illegal actions (then nothing was
        played; :attr:`bad` marks them)."""
        if self.builtin:
            return step_builtin(
                self.B,
                actions,
                self.seed,
                self.next_table,
                self.seat,
                self.pids,
                self.rounds,
                self.camats,
                self.camat_bonus,
                autoreset,
                self.obs,
                self.mask,
                self.reward,
                self.terminated,
                self.final_obs,
                self.pending,
                self._scratch,
                self._crng,
                self._pobs,
                self._phist,
                self._pmoves,
                self._rew,
                self.bad,
            )
        with _quiet_compile():
            return step_custom(
                self.B,
                actions,
                self.seed,
                self.next_table,
                self.seat,
                self.pids,
                self.fns,
                self.rounds,
                self.camats,
                self.camat_bonus,
                autoreset,
                self.obs,
                self.mask,
                self.reward,
                self.terminated,
                self.final_obs,
                self.pending,
                self._scratch,
                self._crng,
                self._pobs,
                self._phist,
                self._pmoves,
                self._rew,
                self.bad,
            )
