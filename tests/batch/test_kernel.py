"""The batch engine (issue: batch engine) against the reference engine.

Both engines draw from the same SplitMix64 stream of (seed, table), so for
the same seed and players the kernel's move-by-move trace must equal the
reference engine's event log exactly, round after round, and the per-table
aggregates and final states must be equal number for number.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domeng.batch.reference import run_reference
from domeng.batch.tables import initial_states, run_tables, trace_table
from domeng.core import layout as L
from domeng.core.errors import DomengError, PlayerError
from domeng.core.rng import SplitMix64, seat_state, table_state
from domeng.core.rules import Rules
from domeng.players.registry import make_player

OPTION_COMBOS = [
    Rules(opener_leads_double=a, passebunge_every_pass=b, penalize_manguno_pass=c)
    for a, b, c in itertools.product([True, False], repeat=3)
]
LINEUPS = [
    ["random"] * 5,
    ["heavy", "keeper", "hunter", "random", "heavy"],
    ["hunter", "hunter", "keeper", "keeper", "random"],
]


def _reference(players, rules, seed, table, rounds):
    agg, state, _, events = run_reference(
        [make_player(p) for p in players],
        rules,
        seed,
        tables=1,
        rounds=rounds,
        table_start=table,
        keep_events=True,
    )
    return events[0], agg[0], state[0]


def _assert_same_table(players, rules, seed, table, rounds):
    k_events, k_agg, k_state = trace_table(players, rules, seed, table, rounds)
    r_events, r_agg, r_state = _reference(players, rules, seed, table, rounds)
    assert len(k_events) == len(r_events) == rounds
    for i, (ke, re_) in enumerate(zip(k_events, r_events)):
        if ke != re_:  # report the first differing event, not two long lists
            for a, b in zip(ke, re_):
                assert a == b, f"table {table} round {i + 1}: kernel {a} != reference {b}"
            assert len(ke) == len(re_), f"table {table} round {i + 1}: event counts differ"
    np.testing.assert_array_equal(k_agg, r_agg)
    np.testing.assert_array_equal(k_state, r_state)
    return rounds


def test_generator_is_the_same_in_both_engines():
    from domeng.core import nbrng

    for seed, t in [(0, 0), (1, 5), (2**64 - 1, 10**9)]:
        py = SplitMix64.for_table(seed, t)
        state = np.array([nbrng.table_state(np.uint64(seed), np.uint64(t))], dtype=np.uint64)
        assert int(state[0]) == table_state(seed, t)
        for n in [1, 2, 3, 7, 28, 1000, 2**31 + 11, 2**32 - 1]:
            for _ in range(20):
                assert nbrng.randbelow(state, n) == py.randbelow(n)


def test_agreement_over_20000_rounds_every_option_and_player():
    """Traces, aggregates and final states agree for every option combination
    and every built-in heuristic lineup: 8 options x 3 lineups x 3 tables x
    280 rounds = 20,160 rounds (D1..D17 all exercised)."""
    total = 0
    for ri, rules in enumerate(OPTION_COMBOS):
        for li, players in enumerate(LINEUPS):
            for table in range(3):
                total += _assert_same_table(
                    players, rules, seed=ri * 10 + li, table=table, rounds=280
                )
    assert total >= 20_000


def test_agreement_with_changed_award_sizes():
    rules = Rules.parse(
        "stones=7,pollo=2,ceki=4,cappu=0,pass=2,passebunge=3,mattikkeng=6,"
        "mattikkeng_reduced=2,manguno=3"
    )
    _assert_same_table(["hunter", "random", "keeper", "heavy", "random"], rules, 3, 0, 400)


FAST_LINEUPS = LINEUPS + [["heavy"] * 5, ["keeper"] * 5, ["hunter"] * 5, ["expert"] * 5]


def test_aggregate_mode_equals_the_step_loop():
    """Aggregate mode of built-in players runs on the engine's fast loop
    (engine/fast.py); with records on, the same tables step through the
    step API (agreement-tested above against the reference engine).
    Aggregates and final states must be equal number for number, for every
    option, changed award sizes, every built-in lineup and a CAMAT target."""
    sized = Rules.parse(
        "stones=7,pollo=2,ceki=4,cappu=0,pass=2,passebunge=3,mattikkeng=6,"
        "mattikkeng_reduced=2,manguno=3"
    )
    for ri, rules in enumerate(OPTION_COMBOS + [sized]):
        for li, players in enumerate(FAST_LINEUPS):
            for camats in (0, 2) if ri == 0 else (0,):
                kw = dict(seed=ri * 13 + li, table_start=li, n_tables=12, rounds=120, camats=camats)
                fast = run_tables(players, rules, **kw)
                step = run_tables(players, rules, records=True, **kw)
                np.testing.assert_array_equal(fast.agg, step.agg)
                np.testing.assert_array_equal(fast.state, step.state)
    # and directly against the reference engine
    for players in FAST_LINEUPS:
        fast = run_tables(players, sized, seed=8, table_start=3, n_tables=2, rounds=150)
        for t in range(2):
            _, r_agg, r_state = _reference(players, sized, 8, 3 + t, 150)
            np.testing.assert_array_equal(fast.agg[t], r_agg)
            np.testing.assert_array_equal(fast.state[t], r_state)


def test_agreement_with_the_search_player():
    _assert_same_table(["search-3", "hunter", "random", "keeper", "random"], Rules(), 4, 1, 12)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**64 - 1),
    table=st.integers(0, 10**6),
    combo=st.integers(0, 7),
    lineup=st.integers(0, 2),
)
def test_agreement_hypothesis_over_seeds(seed, table, combo, lineup):
    _assert_same_table(LINEUPS[lineup], OPTION_COMBOS[combo], seed, table, 8)


def test_same_results_with_one_and_two_threads():
    a = run_tables(
        "random,heavy,keeper,hunter,random", seed=9, n_tables=40, rounds=60, threads=1, records=True
    )
    b = run_tables(
        "random,heavy,keeper,hunter,random", seed=9, n_tables=40, rounds=60, threads=2, records=True
    )
    np.testing.assert_array_equal(a.agg, b.agg)
    np.testing.assert_array_equal(a.state, b.state)
    np.testing.assert_array_equal(a.records, b.records)


def test_same_results_whatever_the_chunking():
    whole = run_tables("hunter", seed=11, n_tables=30, rounds=40, records=True)
    parts = [
        run_tables("hunter", seed=11, table_start=s, n_tables=n, rounds=40, records=True)
        for s, n in [(0, 7), (7, 1), (8, 22)]
    ]
    np.testing.assert_array_equal(whole.agg, np.concatenate([p.agg for p in parts]))
    np.testing.assert_array_equal(whole.state, np.concatenate([p.state for p in parts]))
    np.testing.assert_array_equal(whole.records, np.concatenate([p.records for p in parts]))


def test_continuing_from_a_state_equals_one_run():
    one = run_tables("keeper,random,random,hunter,heavy", seed=5, n_tables=6, rounds=50)
    first = run_tables("keeper,random,random,hunter,heavy", seed=5, n_tables=6, rounds=20)
    rest = run_tables("keeper,random,random,hunter,heavy", n_tables=6, rounds=30, state=first.state)
    np.testing.assert_array_equal(one.state, rest.state)
    np.testing.assert_array_equal(one.agg, first.agg + rest.agg)


def test_records_add_up_to_the_aggregates():
    out = run_tables(
        "random,heavy,keeper,hunter,random", seed=2, n_tables=5, rounds=100, records=True
    )
    rec = out.records
    assert rec.shape == (500, L.REC_LEN)
    assert list(np.unique(rec[:, L.RC_TABLE])) == list(range(5))
    flow = L.agg_field(out.agg.sum(0), "A_FLOW")  # [src, dst, reason]
    for r in range(L.N_REASONS):
        assert rec[:, L.RC_STONES + r].sum() == flow[:, :, r].sum()
    assert rec[:, L.RC_FROM_TABLE].sum() == flow[0].sum()
    assert rec[:, L.RC_TURNS].sum() == out.agg[:, L.A_TURNS].sum()
    assert rec[:, L.RC_PASSEBUNGE].sum() == out.agg[:, L.A_PASSEBUNGE : L.A_PASSEBUNGE + 5].sum()
    assert (rec[:, L.RC_CAMAT] >= 0).sum() == out.agg[:, L.A_CAMAT : L.A_CAMAT + 5].sum()


def test_stones_are_conserved_and_never_negative():
    rules = Rules()
    out = run_tables("random", seed=1, n_tables=200, rounds=300)
    s = out.state
    held = s[:, L.ST_STONES : L.ST_STONES + 5]
    assert (held >= 0).all() and (s[:, L.ST_TABLE] >= 0).all()
    assert (held.sum(1) + s[:, L.ST_TABLE] == rules.stones).all()


def test_until_camats():
    out = run_tables("hunter", seed=3, n_tables=20, rounds=10_000, camats=2, records=True)
    assert (out.state[:, L.ST_CAMATS] == 2).all()
    assert out.records.shape[0] == out.agg[:, L.A_ROUNDS].sum()
    # the last round of each table designated its second CAMAT
    ends = np.cumsum(out.agg[:, L.A_ROUNDS]) - 1
    assert (out.records[ends, L.RC_CAMAT] >= 0).all()


def test_rule_options_reach_the_kernel():
    a = run_tables("random", Rules(), seed=4, n_tables=50, rounds=50)
    b = run_tables("random", Rules(passebunge_every_pass=False), seed=4, n_tables=50, rounds=50)
    # D6 option: fewer PASSEBUNGE, same number of passes in the first round of each table
    pb = slice(L.A_PASSEBUNGE, L.A_PASSEBUNGE + 5)
    assert b.agg[:, pb].sum() < a.agg[:, pb].sum()


def test_bad_arguments_are_refused():
    with pytest.raises(DomengError):
        run_tables("nobody")
    with pytest.raises(DomengError):
        run_tables("random", seed=-1)
    with pytest.raises(DomengError):
        run_tables("random", n_tables=-1)


def test_initial_states():
    st_ = initial_states(7, 3, 2, Rules(stones=30))
    assert (st_[:, L.ST_TABLE] == 30).all()
    assert (st_[:, L.ST_CAMAT] == -1).all() and (st_[:, L.ST_NEXT_STARTER] == -1).all()

    def as_int64(x):
        return np.array([x], dtype=np.uint64).view(np.int64)[0]

    assert st_[0, L.ST_RNG] == as_int64(table_state(7, 3))
    assert st_[1, L.ST_RNG] == as_int64(table_state(7, 4))
    for s in range(5):  # each seat's player has a stream of its own, not the deal's
        assert st_[1, L.ST_SEAT_RNG + s] == as_int64(seat_state(7, 4, s))
    assert len(set(st_[1, L.ST_RNG : L.ST_RNG + 6])) == 6


def test_kernel_observation_hides_other_hands():
    """A compiled spy player checks its D17 view at every decision: its hand
    has exactly its hand size, shares nothing with the chain, and the array
    holds no other seat's tiles (every mask slot is public or its own).  A
    violation makes it answer -1, which the kernel flags."""
    import numba

    from domeng.core.observation import OBS_CHAIN, OBS_HAND, OBS_HAND_SIZE, OBS_PLAYED_BY, OBS_SEAT
    from domeng.players.heuristics import popcount

    @numba.njit
    def spy(obs, hist, moves, n_moves, rng):
        me = obs[OBS_SEAT]
        hand = obs[OBS_HAND]
        if popcount(hand) != obs[OBS_HAND_SIZE + me] or hand & obs[OBS_CHAIN]:
            return -1
        played = 0
        for p in range(5):
            played |= obs[OBS_PLAYED_BY + p]
        if played != obs[OBS_CHAIN]:
            return -1
        for i in range(n_moves):
            if not (hand >> (moves[i] >> 1)) & 1:
                return -1
        return 0

    out = run_tables([spy, "random", spy, "hunter", spy], seed=8, n_tables=20, rounds=50)
    assert out.agg[:, L.A_ROUNDS].sum() == 1000


def test_a_compiled_player_that_returns_a_bad_index_is_reported():
    import numba

    @numba.njit
    def broken(obs, hist, moves, n_moves, rng):
        return n_moves  # one past the end

    with pytest.raises(PlayerError, match="outside"):
        run_tables([broken, "random", "random", "random", "random"], n_tables=2, rounds=3)


@pytest.mark.parametrize(
    "lineup",
    [
        "random,heavy,keeper,hunter,random",
        "search-5,random,heavy,keeper,hunter",
        "search-5,search-5,search-5,search-5,search-5",
    ],
)
def test_the_tuple_of_players_is_typed_by_signature_not_by_address(lineup):
    """numba keys its on-disk cache by the argument types: a tuple typed by a
    function's identity (its type names the function's address) made every
    process compile the step loops again (records, traces, search tables)."""
    from numba import typeof
    from numba.core import types

    from domeng.batch.tables import kernel_players

    _, fns = kernel_players(lineup)
    ty = typeof(fns)
    assert isinstance(ty, types.UniTuple) and isinstance(ty.dtype, types.FunctionType), ty
    assert "0x" not in str(ty)


def test_a_small_call_on_the_default_threads_gives_the_numbers_of_two_threads():
    """A few ms of work runs on one thread unless threads are asked for
    (starting the pool costs more): the same numbers either way."""
    from domeng.batch import tables as T

    n, r = 25, 2
    assert n * r < T.SMALL_WORK
    a = run_tables("random,hunter,keeper,random,heavy", seed=4, n_tables=n, rounds=r, records=True)
    b = run_tables(
        "random,hunter,keeper,random,heavy", seed=4, n_tables=n, rounds=r, records=True, threads=2
    )
    np.testing.assert_array_equal(a.agg, b.agg)
    np.testing.assert_array_equal(a.state, b.state)
    np.testing.assert_array_equal(a.records, b.records)
