"""The N-table driver (:mod:`domeng.engine.tables`, issue 21 item 3) against
single tables: a stack of N tables stepped through :func:`drive` is, move for
move, N one-table games of the step API (:class:`~domeng.engine.game.Game`),
with the scratch fields shared or not and the history rows as int64 or int8."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from domeng.core import layout as L
from domeng.core.rules import Rules
from domeng.engine import step as E
from domeng.engine import tables as T
from domeng.engine.game import Game


@njit(cache=True, inline="always")
def _mask_turn(S, i, masks, _fns):
    if S.ctl[E.C_OVER]:
        E.new_round(S)
    E.legal_action_mask(S, masks[i])
    return 0


@njit(cache=True, inline="always")
def _step_turn(S, i, actions, _fns):
    return E.step(S, actions[i])


@njit(cache=True)
def masks_all(B, masks):
    """Deal where no round is in progress, then every table's legal actions."""
    return T.drive(B, _mask_turn, masks, None)


@njit(cache=True)
def step_all(B, actions):
    """Table ``i`` plays ``actions[i]``; returns how many rounds ended."""
    return T.drive(B, _step_turn, actions, None)


@njit(cache=True, inline="always")
def _first_legal(S, _ctx, _fns):
    n = E.legal_moves(S)
    return E.PASS if n == 0 else S.moves[0]


@njit(cache=True, inline="always")
def _count(S, ended, _ctx):
    return 1.0


@njit(cache=True, inline="always")
def _play_turn(S, i, ctx, fns):
    seat, rounds = ctx
    steps, over = T.play_until(S, seat, T.Limits(rounds, 0), _first_legal, 0, fns, _count)
    return int(steps) * 2 + (1 if over else 0)


@njit(cache=True)
def play_all(B, seat, rounds):
    """Every table plays its first legal moves until ``seat`` is to move or
    ``rounds`` rounds are over; returns ``sum(2 * steps + over)``."""
    return T.drive(B, _play_turn, (seat, rounds), None)


@pytest.mark.parametrize(
    ("shared", "hist"), [(T.SHARED, np.int64), (T.SCRATCH, np.int64), (T.SCRATCH, np.int8)]
)
def test_driver_agrees_with_single_tables(shared, hist):
    n = 6
    B = T.new_stack(Rules().to_array(), 5, 10, n, 1, shared, hist)
    assert B.hist.dtype == hist  # int8: the environments' stack
    games = [Game(seed=5, table=10 + i) for i in range(n)]
    masks = np.zeros((n, E.N_ACTIONS), np.int64)
    pick = np.random.default_rng(0)
    ended_rounds = 0
    for _ in range(300):
        masks_all(B, masks)
        acts = np.zeros(n, np.int64)
        for i, g in enumerate(games):
            if g.round_over:
                g.new_round()
            np.testing.assert_array_equal(g.legal_action_mask().astype(np.int64), masks[i])
            acts[i] = pick.choice(np.flatnonzero(masks[i]))
            g.step(int(acts[i]))
        ended = step_all(B, acts)
        assert ended == sum(g.round_over for g in games)
        ended_rounds += ended
        for i, g in enumerate(games):
            S = T.table_at(B, i)
            assert g.stones == list(S.obs[E.OBS_STONES : E.OBS_STONES + 5])
            assert int(S.ctl[E.C_SEAT]) == (-1 if g.round_over else g.state.ctl[E.C_SEAT])
            np.testing.assert_array_equal(S.hands, g.state.hands)
            np.testing.assert_array_equal(S.hist, g.state.hist)
            np.testing.assert_array_equal(S.obs, g.state.obs)
    assert ended_rounds > 10  # rounds ended and new ones were dealt


def _play_one(g, seat, rounds):
    """:func:`play_all`'s play at one table through the one-table API."""
    steps = 0
    while True:
        if g.round_over:
            if E.game_over(g.state, rounds, 0):
                return 2 * steps + 1
            g.new_round()
        if g.state.ctl[E.C_SEAT] == seat:
            return 2 * steps
        g.step(int(np.flatnonzero(g.legal_action_mask())[0]))
        steps += 1


def test_play_until_stops_at_the_seat_or_the_game_end():
    n = 5
    B = T.new_stack(Rules().to_array(), 3, 0, n, 1, T.SCRATCH)
    games = [Game(seed=3, table=i) for i in range(n)]
    for seat in (2, -1):  # seat -1 is never to move: two whole rounds at each table
        expect = sum(_play_one(g, seat, 2) for g in games)
        assert play_all(B, seat, 2) == expect
        for i, g in enumerate(games):
            np.testing.assert_array_equal(T.table_at(B, i).obs, g.state.obs)
    assert all(E.game_over(T.table_at(B, i), 2, 0) for i in range(n))


@njit(cache=True, inline="always")
def _whole_game(S, i, rounds, fns):
    # a table's whole game at once, its first legal moves (drive_parallel's use)
    steps, _over = T.play_until(S, -1, T.Limits(rounds, 0), _first_legal, 0, fns, _count)
    return int(steps)


@njit(cache=True, parallel=True)
def play_all_parallel(B, rounds):
    """Every table of ``B`` plays ``rounds`` rounds, in parallel over tables."""
    return T.drive_parallel(B, _whole_game, rounds, None)


def _layout(full=1):
    return T.Layout(full, T.OWN, np.int64)


def test_the_parallel_driver_plays_each_table_as_alone_on_any_thread_count():
    import numba

    from domeng.engine import kernel as K

    n, rules = 9, Rules().to_array()
    ends = {}
    last = min(2, numba.config.NUMBA_NUM_THREADS)
    for threads in (1, last):
        st = K.init_states(np.uint64(4), 20, n, 25)
        B = T.stack_of(rules, st, _layout())
        assert B.st is st  # the states are played in place
        old = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            steps = play_all_parallel(B, 3)
        finally:
            numba.set_num_threads(old)
        ends[threads] = (steps, st.copy(), B.obs.copy())
    games = [Game(seed=4, table=20 + i) for i in range(n)]
    expect = sum(_play_one(g, -1, 3) - 1 for g in games) // 2  # steps (over = 1 each)
    assert ends[1][0] == ends[last][0] == expect > 0
    np.testing.assert_array_equal(ends[1][1], ends[last][1])
    for i, g in enumerate(games):
        np.testing.assert_array_equal(ends[last][2][i], g.state.obs)
        assert int(ends[last][1][i, L.ST_ROUNDS]) == 3


def test_the_parallel_driver_refuses_a_stack_that_shares_its_scratch():
    B = T.new_stack(Rules().to_array(), 3, 0, 4, 1, T.SHARED)
    with pytest.raises(ValueError, match="shares only the rules"):
        play_all_parallel(B, 1)


def test_a_stack_of_given_states_refuses_what_it_cannot_use_in_place():
    from domeng.engine import kernel as K

    st = K.init_states(np.uint64(4), 0, 4, 25)
    with pytest.raises(ValueError, match="C-contiguous int64"):
        T.stack_of(Rules().to_array(), st[:, ::2], _layout())
    with pytest.raises(ValueError, match="C-contiguous int64"):
        T.stack_of(Rules().to_array(), st.astype(np.int32), _layout())
    empty = T.stack_of(Rules().to_array(), st[:0], _layout())
    assert empty.ctl.shape[0] == 0
