"""N tables stepped at once for one learning seat, the opponents compiled in.

The core of the Gymnasium environments (:mod:`domeng.envs.gym`): the
tables are a stack of the N-table driver (:mod:`domeng.engine.tables`), whose
aggregates, records and trace are shared scratch (the environments never read
them) and whose history rows are ``int8`` (the same values, a table's rows
2.2 KB instead of 5 KB: at 4096 tables a step falls off less).  One compiled call, :func:`vec_step`, takes the learner's action at
every table (:func:`domeng.engine.tables.drive`), then lets
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

from collections import namedtuple

import numpy as np
from numba import njit

from domeng.batch.loop import builtin_action, player_action
from domeng.batch.tables import _quiet_compile
from domeng.core.encoding import OBS_SIZE, encode
from domeng.core.kept import row_of
from domeng.core.observation import MAX_TURNS, OBS_LEN
from domeng.core.rules import Rules
from domeng.engine import kernel as K
from domeng.engine import step as E
from domeng.engine import tables as T
from domeng.players.heuristics import N_BUILTIN

State = E.State

# The step API's own functions, compiled inline into the loops below (the
# same source, so no rule is restated here): a call that passes the whole
# state record costs more than the step itself otherwise.
_inline = njit(inline="always")
legal_action_bits = _inline(E.legal_action_bits.py_func)
observe = _inline(E.observe.py_func)

#: what an episode is, as the compiled calls take it: ``seed`` (``uint64[1]``),
#: ``next_table`` (``int64[1]``, the table index the next episode takes),
#: ``cfg`` (``int64[4]``: the learner's seat, rounds, camats, autoreset),
#: ``bonus`` (``float64[1]``: camat_bonus) and the opponents' ``pids``
Episode = namedtuple("Episode", ("seed", "next_table", "cfg", "bonus", "pids"))
#: the buffers the calls write (:class:`Tables`' attributes of the same names)
#: (``legal``: each table's legal actions as bits, :func:`domeng.engine.step.legal_action_bits`,
#: kept apart from ``mask``, which the caller may hold and write to)
Views = namedtuple(
    "Views", ("obs", "mask", "reward", "terminated", "final_obs", "pending", "bad", "legal")
)
#: the opponents and their scratch: ids, the one-word generator hand-over and
#: a compiled player's copies (the compiled functions travel apart: ``fns``)
Seats = namedtuple("Seats", ("pids", "crng", "pobs", "phist", "pmoves"))
#: what a turn of the environment needs besides its table
Turn = namedtuple("Turn", ("actions", "ep", "seats", "views", "tmp", "rew"))


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
def _learner_reward(S, ended, tc):
    step_rewards(S, ended, tc.ep.bonus[0], tc.rew)
    return tc.rew[tc.ep.cfg[0]]


@njit(cache=True, inline="always")
def opponent_action(S, tc, fns):
    """The action of the seat to move's opponent: with ``fns`` ``None``
    (known when compiled) every opponent is built-in
    (:func:`domeng.batch.loop.builtin_action`), else
    :func:`domeng.batch.loop.player_action`."""
    seats = tc.seats
    if fns is None:
        return builtin_action(seats.pids, S, seats.crng)
    return player_action(seats.pids, fns, S, seats.crng, seats.pobs, seats.phist, seats.pmoves)


@njit(cache=True, inline="always")
def advance(S, tc, fns):
    """Let the opponents play (starting new rounds as the episode goes on)
    until the learner is to move; returns ``(learner's reward meanwhile,
    episode over)``."""
    limits = T.Limits(tc.ep.cfg[1], tc.ep.cfg[2])
    return T.play_until(S, tc.ep.cfg[0], limits, opponent_action, tc, fns, _learner_reward)


@njit(cache=True, inline="always")
def write_view(S, learner, tmp, obs_out, mask_out):
    """The learner's observation vector and action mask; returns the mask's
    bits (:func:`domeng.engine.step.legal_action_bits`)."""
    observe(S, learner, tmp)
    encode(tmp, S.hist, obs_out)
    bits = legal_action_bits(S)
    E.mask_of_bits(bits, mask_out)
    return bits


# called, not inlined: a new episode is rare, and its inlined copy of ``advance``
# doubled the compile of the step kernels (first use of an env: 101 -> 47 s)
@njit(cache=True)
def _start_episode(S, tc, fns):
    T.fresh_game(S, tc.ep.seed[0], tc.ep.next_table[0])
    tc.ep.next_table[0] += 1
    r, _ = advance(S, tc, fns)
    return r


@njit(cache=True, inline="always")
def _reset_turn(S, i, tc, fns):
    v = tc.views
    v.pending[i] = _start_episode(S, tc, fns)
    v.legal[i] = write_view(S, tc.ep.cfg[0], tc.tmp, v.obs[i], v.mask[i])
    return 0


@njit(cache=True, inline="always")
def _step_turn(S, i, tc, fns):
    v = tc.views
    ended = E.step(S, tc.actions[i])
    own = _learner_reward(S, ended, tc)
    r, over = advance(S, tc, fns)
    v.reward[i] = v.pending[i] + own + r
    v.pending[i] = 0.0
    v.terminated[i] = over
    if over and tc.ep.cfg[3]:  # autoreset
        write_view(S, tc.ep.cfg[0], tc.tmp, v.final_obs[i], v.mask[i])
        v.pending[i] = _start_episode(S, tc, fns)
    v.legal[i] = write_view(S, tc.ep.cfg[0], tc.tmp, v.obs[i], v.mask[i])
    return 1 if over else 0


@njit(cache=True, _nrt=False, inline="always")
def _check(legal, actions, bad):
    """``bad[i] = 1`` where ``actions[i]`` is not legal at table ``i`` (its
    bits ``legal[i]``, kept by :func:`write_view`: no table's rows are read);
    returns how many."""
    n = 0
    for i in range(legal.shape[0]):
        ok = E.bit_is_set(legal[i], actions[i])
        bad[i] = 0 if ok else 1
        n += 0 if ok else 1
    return n


@njit(cache=True, _nrt=False)
def vec_reset(B, tc, fns):
    """Start an episode at every table; the learner is to move at each."""
    T.drive(B, _reset_turn, tc, fns)


@njit(cache=True, _nrt=False)
def vec_step(B, tc, fns):
    """The learner plays ``actions[i]`` at every table, then the opponents
    play until it is to move again or the episode ends.  With ``autoreset``
    a finished table's last observation goes to ``final_obs[i]`` and the
    next episode starts at once (its observation in ``obs[i]``).
    Returns the number of episodes that ended; but first every action is
    checked, and if any is illegal nothing is played: ``bad[i] = 1`` marks
    them and the return is minus their number."""
    n_bad = _check(tc.views.legal, tc.actions, tc.views.bad)
    if n_bad:
        return -n_bad
    return T.drive(B, _step_turn, tc, fns)


@njit(cache=True, inline="always")
def _turn_record(actions, ep, views):
    seats = Seats(
        ep.pids,
        np.zeros(1, dtype=np.uint64),
        np.zeros(OBS_LEN, dtype=np.int64),
        np.full((MAX_TURNS, 3), -1, dtype=np.int64),
        np.full(64, -1, dtype=np.int64),
    )
    tmp = np.zeros(OBS_LEN, dtype=np.int64)
    return Turn(actions, ep, seats, views, tmp, np.zeros(5))


#: where the episode's and the views' arrays start in an entry point's
#: ``fields`` (the stack's first)
_AT_EPISODE = len(State._fields)
_AT_VIEWS = _AT_EPISODE + len(Episode._fields)


@njit(cache=True, inline="always")
def _records(fields):
    """The stack, the :class:`Episode` and the :class:`Views` from their
    fields in a row (:meth:`Tables._fields`)."""
    B = State(*fields[:_AT_EPISODE])
    ep = Episode(*fields[_AT_EPISODE:_AT_VIEWS])
    return B, ep, Views(*fields[_AT_VIEWS:])


# Entry points (their scratch allocated here, the loops compiled without
# reference counting).  Passing a tuple of compiled functions from Python
# costs about a millisecond a call (numba types it anew each time), so when
# every opponent is a built-in player no such tuple is passed: ``fns`` is
# ``None`` and :func:`opponent_action` asks the built-in players alone.
# The records come as their arrays in a row (``fields``, :func:`_records`):
# numba takes a namedtuple argument about twice as slowly as the same arrays
# passed flat, and the stack, the episode and the views as namedtuples cost
# 6-7 us a call against 3 us flat, a fifth of a one-table env's step
# (benchmarks/README.md, session 17).
@njit(cache=True)
def reset_builtin(*fields):
    B, ep, views = _records(fields)
    vec_reset(B, _turn_record(views.bad, ep, views), None)


@njit(cache=True)
def step_builtin(actions, *fields):
    B, ep, views = _records(fields)
    return vec_step(B, _turn_record(actions, ep, views), None)


@njit(cache=True)
def reset_custom(fns, *fields):
    B, ep, views = _records(fields)
    vec_reset(B, _turn_record(views.bad, ep, views), fns)


@njit(cache=True)
def step_custom(actions, fns, *fields):
    B, ep, views = _records(fields)
    return vec_step(B, _turn_record(actions, ep, views), fns)


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
        self.B = T.new_stack(rules.to_array(), 0, 0, n, 1, T.SCRATCH, np.int8)
        self.obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.final_obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.mask = np.zeros((n, E.N_ACTIONS), dtype=np.int8)
        self.reward = np.zeros(n, dtype=np.float64)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.bad = np.zeros(n, dtype=np.int64)
        self.pending = np.zeros(n, dtype=np.float64)
        self.legal = np.zeros(n, dtype=np.int64)
        self.next_table = np.zeros(1, dtype=np.int64)
        self._views = Views(*[getattr(self, f) for f in Views._fields])
        self._cfg = np.array([seat, self.rounds, self.camats, 0], dtype=np.int64)
        self._ep = Episode(
            np.zeros(1, dtype=np.uint64),
            self.next_table,
            self._cfg,
            np.array([self.camat_bonus]),
            np.ascontiguousarray(pids, dtype=np.int64),
        )
        #: what the compiled calls take: the stack's, the episode's and the
        #: views' arrays in a row (:func:`_records`)
        self._fields = (*self.B, *self._ep, *self._views)

    @property
    def seed(self) -> np.uint64:
        return self._ep.seed[0]

    def table(self, i: int) -> State:
        """Table ``i``'s state record (views; read-only for callers; its
        aggregates and record are scratch shared by every table, no trace is
        kept (``None``); its history ``int8``)."""
        return State(*[None if f is None else row_of.py_func(f, i) for f in self.B])

    def legal_masks(self) -> np.ndarray:
        """``bool[n, 57]``: each table's legal actions, from the engine's bits
        (:attr:`legal`), not from :attr:`mask`, which a caller given the
        buffers themselves (``copy=False``) may have written to."""
        return ((self.legal[:, None] >> np.arange(E.N_ACTIONS)) & 1).astype(bool)

    def reset(self, seed: int, table_start: int) -> None:
        self._ep.seed[0] = np.uint64(seed)
        self.next_table[0] = table_start
        if self.builtin:
            reset_builtin(*self._fields)
        else:
            reset_custom(self.fns, *self._fields)

    def step(self, actions: np.ndarray, autoreset: bool) -> int:
        """One compiled call (:func:`vec_step`): the number of episodes that
        ended, or minus the number of illegal actions (then nothing was
        played; :attr:`bad` marks them)."""
        self._cfg[3] = 1 if autoreset else 0
        if self.builtin:
            return step_builtin(actions, *self._fields)
        with _quiet_compile():
            return step_custom(actions, self.fns, *self._fields)
