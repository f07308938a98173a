"""The stronger search players ``esearch``, ``isearch`` and ``nsearch``:
determinizations consistent with D17, only the observation, reproducible,
legal; ``nsearch``'s value of the next round's starter (D4)."""

from __future__ import annotations

import numpy as np
from _util import scramble_hidden
from hypothesis import given, settings
from hypothesis import strategies as st

from domeng.batch.reference import run_reference
from domeng.batch.tables import run_tables, trace_table
from domeng.core import layout as L
from domeng.core.observation import OBS_HAND, OBS_HAND_SIZE, OBS_SEAT, OBS_VOID
from domeng.core.rules import Rules
from domeng.core.tiles import NUMBER_MASK
from domeng.engine.reference import Table
from domeng.players.determinize import determinize
from domeng.players.isearch import make_isearch_strategy
from domeng.players.registry import make_player, resolve_player


def _positions(seed, n=6):
    """Observations of the seat to move (with two or more legal moves) at
    random points of first rounds played by random moves, so that passes
    and known voids are common."""
    rs = np.random.default_rng(seed)
    out = []
    game = 0
    while len(out) < n:
        rnd = Table(seed=seed, table_index=game).new_round()
        game += 1
        stop = int(rs.integers(0, 30))
        for _ in range(stop):
            if rnd.ended:
                break
            moves = rnd.legal_moves()
            if moves:
                rnd.play(moves[int(rs.integers(len(moves)))])
            else:
                rnd.pass_turn()
        if not rnd.ended and len(rnd.legal_moves()) > 1:
            out.append((rnd.observation(rnd.to_move), rnd))
    return out


def _check_deal(o, hands):
    me = int(o[OBS_SEAT])
    assert hands[me] == o[OBS_HAND]
    seen = int(o[OBS_HAND]) | int(o[18])  # OBS_CHAIN
    union = 0
    for p in range(5):
        h = int(hands[p])
        assert bin(h).count("1") == o[OBS_HAND_SIZE + p]
        assert union & h == 0
        union |= h
        if p != me:
            assert h & seen == 0
            for n in range(7):  # D17: a seat that passed on n holds no tile with n
                if (int(o[OBS_VOID + p]) >> n) & 1:
                    assert h & int(NUMBER_MASK[n]) == 0
    out = ((1 << 28) - 1) & ~union & ~int(o[18])
    assert bin(out).count("1") == 3  # the 3 tiles out of play take the rest


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_determinizations_honour_hand_sizes_and_known_voids(seed):
    """Property: every sampled deal gives each seat its hand size, no tile it
    is known to lack (by its passes), nothing seen."""
    rng = np.array([seed + 1], dtype=np.uint64)
    hands = np.zeros(5, dtype=np.int64)
    for obs, _ in _positions(seed, n=3):
        o, _h = obs.to_array()
        for _ in range(20):
            assert determinize(o, rng, hands)
            _check_deal(o, hands)


def test_decisions_do_not_depend_on_the_hidden_tiles():
    """The same observation with the hidden tiles dealt differently gives
    the same decision (the players see only their observation)."""
    checked = 0
    for obs, rnd in _positions(7, n=8):
        o, hist = obs.to_array()
        moves = rnd.legal_moves()
        mv = np.array([m.tile * 2 + m.end for m in moves], dtype=np.int64)
        seat = rnd.to_move
        for fn in [resolve_player(name).fn for name in ("esearch-6", "isearch-6", "nsearch-6")] + [
            make_isearch_strategy("esearch", 6, explore=0.3)
        ]:
            pick = fn(o, hist, mv, len(mv), np.array([11], dtype=np.uint64))
            rnd.hands[:] = scramble_hidden(
                rnd.hands, seat, obs.chain, np.random.default_rng(checked)
            )
            o2, hist2 = rnd.observation(seat).to_array()
            np.testing.assert_array_equal(o2, o)
            assert fn(o2, hist2, mv, len(mv), np.array([11], dtype=np.uint64)) == pick
            checked += 1
    assert checked >= 8


def test_search_players_agree_in_both_engines_and_are_reproducible():
    players = ["isearch-4", "nsearch-3", "esearch-3", "random", "expert"]
    k_events, _k_agg, k_state = trace_table(players, Rules(), seed=4, table=1, rounds=6)
    _agg, state, _, events = run_reference(
        [make_player(p) for p in players],
        Rules(),
        4,
        tables=1,
        rounds=6,
        table_start=1,
        keep_events=True,
    )
    assert k_events == events[0]
    np.testing.assert_array_equal(k_state, state[0])
    a = run_tables(players, seed=2, n_tables=4, rounds=3, records=True)
    b = run_tables(players, seed=2, n_tables=4, rounds=3, records=True, threads=1)
    np.testing.assert_array_equal(a.records, b.records)
    assert a.state[:, L.ST_BAD_MOVES].sum() == 0


def test_search_player_names_and_budgets():
    assert resolve_player("isearch").name == "isearch"
    assert resolve_player("esearch-7").fn is make_isearch_strategy("esearch", 7)
    assert resolve_player("nsearch-7").fn is make_isearch_strategy("nsearch", 7)
    import pytest

    from domeng.core.errors import PlayerError

    with pytest.raises(PlayerError, match="isearch-N"):
        resolve_player("isearch-0")


@given(
    w=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40).filter(lambda w: sum(w) > 1e-6),
    n=st.integers(1, 50),
    seed=st.integers(0, 2**63),
)
def test_resample_is_systematic(w, n, seed):
    """``isearch`` rolls out deals resampled by their weights: systematic
    resampling gives deal j floor or ceil of n * w_j / sum(w) copies, never
    a deal of weight 0, and is reproducible from the generator."""
    from domeng.players.searchcore import resample

    w = np.array(w)
    ll = np.log(np.where(w > 0, w, 1e-300))
    picks = np.zeros(n, dtype=np.int64)
    rng = np.array([seed], dtype=np.uint64)
    resample(ll, picks, rng)
    counts = np.bincount(picks, minlength=len(w))
    expect = n * w / w.sum()
    assert np.all(counts >= np.floor(expect - 1e-9)) and np.all(counts <= np.ceil(expect + 1e-9))
    assert counts[w == 0].sum() == 0
    assert np.all(np.diff(picks) >= 0)
    again = np.zeros(n, dtype=np.int64)
    resample(ll, again, np.array([seed], dtype=np.uint64))
    assert np.array_equal(picks, again)


def test_a_new_budget_does_not_compile_the_search_again():
    """Each ``NAME-N`` is a small compiled function calling the one compiled
    search with N read at run time: were N a constant, numba would type it as
    a literal and compile the whole search again for every budget (~20 s
    each, in every new process for an uncached budget)."""
    from numba import types

    from domeng.players.ismcts import ismcts_core, make_ismcts_strategy
    from domeng.players.search import make_search_strategy
    from domeng.players.searchcore import search_core

    for n in (3, 4):
        make_search_strategy(n)
        make_isearch_strategy("esearch", n)
        make_isearch_strategy("isearch", n)
        make_isearch_strategy("nsearch", n)
        make_ismcts_strategy(n)
    for core in (search_core, ismcts_core):
        assert core.signatures
        for sig in core.signatures:
            assert not any(isinstance(t, types.Literal) for t in sig), (core.__name__, sig)


def test_nsearch_values_the_seat_after_the_next_starter():
    """``nsearch``'s rollout value is ``esearch``'s (this round's stones and
    the CAMAT bonus) less ``NEXT_START`` at the seat's distance after the
    seat the engine names to start the next round (D4: the winner, or the
    CAMAT); the same rollout, so the same round, with and without it."""
    from domeng.core.observation import OBS_RULES
    from domeng.core.rules import R_LEN
    from domeng.engine import kernel as K
    from domeng.engine import step as E
    from domeng.players.heuristics import P_EXPERT
    from domeng.players.isearch import (
        EXPERT_NET_BY_DISTANCE,
        EXPERT_WIN_BY_DISTANCE,
        NEXT_START,
        carry_forward,
    )
    from domeng.players.searchcore import config, rollout

    assert NEXT_START.shape == (5,) and abs(NEXT_START.sum()) < 1e-9
    net = np.array(EXPERT_NET_BY_DISTANCE)
    np.testing.assert_allclose(carry_forward(net, EXPERT_WIN_BY_DISTANCE, 1), net - net.mean())
    # a seat that always wins keeps the start: every round at its distance again
    np.testing.assert_allclose(carry_forward(net, [1, 0, 0, 0, 0], 3), 3 * (net - net.mean()))
    # the seat right after the starter is the worst place to be, the starter
    # among the best (analysis/experts, study 1)
    assert NEXT_START.argmax() == 1 and NEXT_START[0] < 0
    hands = np.zeros(5, dtype=np.int64)
    w0 = np.zeros(K.W_LEN, dtype=np.int64)
    s_rng = np.zeros(1, dtype=np.uint64)
    rng = np.array([5], dtype=np.uint64)
    distances = set()
    plain_cfg = config(1, P_EXPERT)
    valued_cfg = config(1, P_EXPERT, later=NEXT_START)
    for obs, rnd in _positions(3, n=6):
        o, hist = obs.to_array()
        me = int(o[OBS_SEAT])
        S = E.new_rollout_state(o[OBS_RULES : OBS_RULES + R_LEN].copy())
        K.counters_from_history(o, hist, w0)
        for m in rnd.legal_moves():
            assert determinize(o, rng, hands)
            plain = rollout(S, plain_cfg, o, w0, hands, m.tile * 2 + m.end, 99, s_rng)
            winner = int(S.w[K.W_WINNER])
            assert E.next_starter(S) == winner  # no CAMAT in a first round's table
            valued = rollout(S, valued_cfg, o, w0, hands, m.tile * 2 + m.end, 99, s_rng)
            d = (me - winner) % 5
            assert valued == plain - NEXT_START[d]
            distances.add(d)
    assert len(distances) >= 3


def test_epsilon_rollouts_are_a_reproducible_research_variant():
    """``make_isearch_strategy(..., explore=X)`` (``benchmarks``' ``esearch-N:epsX``)
    makes legal, reproducible decisions that differ from ``esearch``'s on some
    positions; ``explore=0`` is the registered player itself."""
    import pytest

    assert make_isearch_strategy("esearch", 7, explore=0.0) is resolve_player("esearch-7").fn
    with pytest.raises(ValueError, match="probability"):
        make_isearch_strategy("esearch", 7, explore=1.5)
    eps = make_isearch_strategy("esearch", 30, explore=0.5)
    plain = resolve_player("esearch-30").fn
    differ = 0
    for obs, rnd in _positions(5, n=20):
        o, hist = obs.to_array()
        mv = np.array([m.tile * 2 + m.end for m in rnd.legal_moves()], dtype=np.int64)
        pick = eps(o, hist, mv, len(mv), np.array([3], dtype=np.uint64))
        assert 0 <= pick < len(mv)
        assert eps(o, hist, mv, len(mv), np.array([3], dtype=np.uint64)) == pick
        differ += pick != plain(o, hist, mv, len(mv), np.array([3], dtype=np.uint64))
    assert differ > 0
