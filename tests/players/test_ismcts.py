"""The ``ismcts`` player (issue 13): information-set MCTS over the seat's
public action histories, fresh D17-exact determinizations every iteration.

What is checked: it decides from its observation only (the hidden tiles
scrambled, the decision unchanged), plays legal moves only, is reproducible
from the seed and agrees in both engines, its determinizations honour hand
sizes and known voids (the one determinizer, :mod:`domeng.players.determinize`:
its property tests are in ``test_determinize.py``; here, the deals the tree
search draws), its
name carries its budget, and it plays clearly better than random players.
"""

from __future__ import annotations

import numpy as np
import pytest
from _util import scramble_hidden
from test_isearch import _check_deal, _positions

from domeng.batch.reference import run_reference
from domeng.batch.tables import run_tables, trace_table
from domeng.core import layout as L
from domeng.core.errors import PlayerError
from domeng.core.nbrng import next64
from domeng.core.rules import Rules
from domeng.players import ismcts as M
from domeng.players.determinize import draw, new_dealer, prepare
from domeng.players.registry import BUILTIN_PLAYERS, make_player, resolve_player
from domeng.study.tournament import tournament

VARIANTS = [
    M.make_ismcts_strategy(40),
    M.make_ismcts_strategy(40, model=True),
    M.make_ismcts_strategy(40, rollout="heavy", c_uct=2.0),
    M.make_ismcts_strategy(40, pb=2.0),
]


def test_ismcts_decides_from_its_observation_only():
    """The same observation with the other hands (and the 3 tiles out of
    play) dealt differently gives the same decision, for every variant."""
    checked = 0
    for obs, rnd in _positions(5, n=8):
        o, hist = obs.to_array()
        moves = rnd.legal_moves()
        mv = np.array([m.tile * 2 + m.end for m in moves], dtype=np.int64)
        seat = rnd.to_move
        picks = [fn(o, hist, mv, len(mv), np.array([21], dtype=np.uint64)) for fn in VARIANTS]
        rnd.hands[:] = scramble_hidden(rnd.hands, seat, obs.chain, np.random.default_rng(checked))
        o2, hist2 = rnd.observation(seat).to_array()
        np.testing.assert_array_equal(o2, o)
        for fn, pick in zip(VARIANTS, picks):
            assert 0 <= pick < len(mv)
            assert fn(o2, hist2, mv, len(mv), np.array([21], dtype=np.uint64)) == pick
        checked += 1
    assert checked == 8


def test_ismcts_is_reproducible_and_uses_its_seat_stream_only():
    obs, rnd = _positions(9, n=1)[0]
    o, hist = obs.to_array()
    moves = rnd.legal_moves()
    mv = np.array([m.tile * 2 + m.end for m in moves], dtype=np.int64)
    fn = M.make_ismcts_strategy(60)
    a, b = np.array([5], dtype=np.uint64), np.array([5], dtype=np.uint64)
    assert fn(o, hist, mv, len(mv), a) == fn(o, hist, mv, len(mv), b)
    assert a[0] == b[0] and a[0] != 5  # it drew from the seat's stream, the same draws
    # a forced move costs no draw
    s = np.array([5], dtype=np.uint64)
    assert fn(o, hist, mv[:1].copy(), 1, s) == 0 and s[0] == 5


def test_the_tree_search_draws_deals_consistent_with_what_the_seat_knows():
    """The deals come from the exact determinizer, in the order the tree
    search draws them (one per iteration, then one rollout seed): replaying
    its draws gives deals with every hand size and known void honoured."""
    for obs, _ in _positions(3, n=4):
        o, _h = obs.to_array()
        rng = np.array([77], dtype=np.uint64)
        hands = np.zeros(5, dtype=np.int64)
        dealer = new_dealer()
        assert prepare(o, dealer)
        for _ in range(25):
            draw(o, dealer, rng, hands)
            _check_deal(o, hands)
            next64(rng)  # the iteration's rollout seed


def test_ismcts_plays_legal_moves_and_agrees_in_both_engines():
    players = ["ismcts-12", "hunter", "expert", "random", "search-3"]
    k_events, _k_agg, k_state = trace_table(players, Rules(), seed=6, table=2, rounds=5)
    _agg, state, _, events = run_reference(
        [make_player(p) for p in players],
        Rules(),
        6,
        tables=1,
        rounds=5,
        table_start=2,
        keep_events=True,
    )
    assert k_events == events[0]
    np.testing.assert_array_equal(k_state, state[0])
    a = run_tables(
        "ismcts-8,random,heavy,ismcts-8,hunter", seed=3, n_tables=4, rounds=3, records=True
    )
    b = run_tables(
        "ismcts-8,random,heavy,ismcts-8,hunter",
        seed=3,
        n_tables=4,
        rounds=3,
        records=True,
        threads=1,
    )
    np.testing.assert_array_equal(a.records, b.records)
    assert a.state[:, L.ST_BAD_MOVES].sum() == 0


def test_ismcts_names_and_budgets():
    assert "ismcts" in BUILTIN_PLAYERS
    assert resolve_player("ismcts").fn is M.make_ismcts_strategy()
    assert resolve_player("ISMCTS-250").fn is M.make_ismcts_strategy(250)
    assert resolve_player("ismcts-250").name == "ismcts-250"
    for bad in ("ismcts-0", "ismcts-x", f"ismcts-{M.MAX_ITERATIONS + 1}", "ismcts--3"):
        with pytest.raises(PlayerError, match="ismcts-N"):
            resolve_player(bad)
    with pytest.raises(ValueError):
        M.make_ismcts_strategy(5, rollout="random")
    with pytest.raises(ValueError, match="pb"):
        M.make_ismcts_strategy(5, pb=-1.0)
    assert M.make_ismcts_strategy(250, pb=0.0) is M.make_ismcts_strategy(250)


@pytest.mark.slow
def test_ismcts_beats_random_players_clearly():
    """Not a benchmark: a sanity check that the tree search plays well (a
    large, paired margin against random players; the design of the same
    check for ``search``)."""
    res = tournament(
        "ismcts-100,random,random,random,random", deals=12, rounds=4, seed=1, progress=False
    )
    m = res.margins()
    row = m[(m.a == "ismcts-100") & (m.b == "random#1")].iloc[0]
    assert row.net_diff < 0 and row.ci_high < 0
