"""The ``expert`` player: its features on hand-built positions, agreement of
both engines, legal moves only, reproducibility, only its observation."""

from __future__ import annotations

import numpy as np
import pytest
from _positions import T, after, position, scramble

from domeng.batch.reference import run_reference
from domeng.batch.tables import run_tables, trace_table
from domeng.core import layout as L
from domeng.core.defaults import PLAYER_IDS
from domeng.core.rules import Rules
from domeng.engine.reference import Table
from domeng.players.expert import (
    EXPERT_WEIGHTS,
    FEATURES,
    N_FEATURES,
    features_of,
    make_expert_strategy,
)
from domeng.players.heuristics import builtin_choose
from domeng.players.registry import make_player, resolve_player


def feats(obs, move):
    return dict(zip(FEATURES, features_of(obs, move)))


def test_expert_is_a_builtin_with_the_tuned_weights():
    assert resolve_player("expert").kind == "builtin"
    assert len(EXPERT_WEIGHTS) == N_FEATURES and EXPERT_WEIGHTS[0] == 1.0


def test_features_on_a_hand_built_position():
    # ends 6 and 1, hand [6|1], [1|1]; seat 1 has passed on 6 and 5
    obs, hist, moves, n = position(
        [T(6, 1), T(1, 1)], left=6, right=1, voids={1: (6, 1)}, hand_sizes=[2, 1, 5, 5, 5]
    )
    f = feats(obs, T(6, 1) * 2)  # leaves (1, 1): [1|1] closes as POLLO
    assert f["pips"] == 7 and f["finisher"] == 1 and f["options"] == 1
    assert f["mappakuling"] == 1 and f["double"] == 0
    assert f["pass_table"] == 1 and f["pass_mine"] == 0  # seat 1 lacks 1: it must pass
    assert f["next_fits"] == 0 and f["threat"] == 0
    f = feats(obs, T(6, 1) * 2 + 1)  # leaves (6, 6): [1|1] cannot be played
    assert f["finisher"] == 0 and f["options"] == 0 and f["pass_table"] == 1
    f = feats(obs, T(1, 1) * 2 + 1)  # leaves (6, 1): [6|1] closes as CEKI
    assert f["finisher"] == 1 and f["double"] == 1 and f["numbers"] == 2
    # with an empty table the next seat's stone would come from this seat
    obs, hist, moves, n = position(
        [T(6, 1), T(1, 1)], left=6, right=1, voids={1: (6, 1)}, table=0, stones=[3, 0, 0, 0, 0]
    )
    f = feats(obs, T(6, 1) * 2)
    assert f["pass_table"] == 0 and f["pass_mine"] == 1 and f["race_options"] == 0
    # the next seat holds one tile, not excluded from the new ends: a threat
    obs, _hist, _moves, _n = position(
        [T(6, 1), T(1, 1), T(0, 0)], left=6, right=1, hand_sizes=[3, 1, 5, 5, 5], table=0
    )
    f = feats(obs, T(6, 1) * 2 + 1)  # leaves (6, 6)
    assert f["threat"] == 1 and f["next_fits"] == 6  # [6|0], [6|2] .. [6|6] are unseen
    assert f["race_options"] == f["options"]  # table empty, this seat holds no stone


def test_next_fits_counts_only_tiles_the_next_seat_may_hold():
    chain = [T(3, 3), T(3, 0)]
    obs, _hist, _moves, _n = position(
        [T(2, 3), T(4, 1)], left=2, right=4, chain=chain, voids={1: (5,)}
    )
    _o, _ = after(obs, T(2, 3) * 2)  # ends (3, 4)
    # unseen tiles with a 3 or a 4, minus those with a 5 (seat 1 passed on 5)
    unseen = [t for t in range(28) if t not in (T(3, 3), T(3, 0), T(2, 3), T(4, 1))]
    from domeng.core.tiles import numbers

    expect = sum(1 for t in unseen if {3, 4} & set(numbers(t)) and 5 not in numbers(t))
    assert feats(obs, T(2, 3) * 2)["next_fits"] == expect


@pytest.mark.parametrize(
    "players",
    [
        ["expert", "hunter", "expert", "random", "keeper"],
        ["learned", "expert", "learned", "random", "hunter"],  # issue 25: the learned player
    ],
)
def test_expert_agrees_in_both_engines(players):
    for rules in (Rules(), Rules(opener_leads_double=False, passebunge_every_pass=False)):
        k_events, k_agg, k_state = trace_table(players, rules, seed=5, table=2, rounds=300)
        agg, state, _, events = run_reference(
            [make_player(p) for p in players],
            rules,
            5,
            tables=1,
            rounds=300,
            table_start=2,
            keep_events=True,
        )
        assert k_events == events[0]
        np.testing.assert_array_equal(k_agg, agg[0])
        np.testing.assert_array_equal(k_state, state[0])


def test_expert_plays_legal_moves_and_is_reproducible():
    a = run_tables("expert", seed=3, n_tables=50, rounds=200, records=True)
    b = run_tables("expert", seed=3, n_tables=50, rounds=200, records=True, threads=1)
    assert a.state[:, L.ST_BAD_MOVES].sum() == 0
    np.testing.assert_array_equal(a.records, b.records)
    # the weights made into a compiled player play exactly as the built-in
    custom = make_expert_strategy(EXPERT_WEIGHTS)
    c = run_tables([custom] * 5, seed=3, n_tables=50, rounds=200, records=True)
    np.testing.assert_array_equal(a.records, c.records)
    with pytest.raises(ValueError):
        make_expert_strategy([1.0, 2.0])


def test_expert_decides_from_its_observation_only():
    """The same public state with the hidden tiles (other hands, the 3 out
    of play) dealt differently gives the same observation and the same move."""
    rs = np.random.default_rng(0)
    checked = 0
    for seed in range(40):
        t = Table(seed=seed)
        rnd = t.new_round()
        for _ in range(int(rs.integers(0, 12))):
            if rnd.ended:
                break
            moves = rnd.legal_moves()
            if moves:
                rnd.play(moves[0])
            else:
                rnd.pass_turn()
        if rnd.ended or not rnd.legal_moves():
            continue
        seat = rnd.to_move
        obs = rnd.observation(seat)
        o, hist = obs.to_array()
        mv = np.array([m.tile * 2 + m.end for m in rnd.legal_moves()], dtype=np.int64)
        pick = builtin_choose(
            PLAYER_IDS["expert"], o, hist, mv, len(mv), np.array([7], dtype=np.uint64)
        )
        # scramble what the seat cannot see: swap tiles between other hands
        # and the out-of-play tiles, keeping hand sizes
        scramble(rnd, obs, rs)
        o2, hist2 = rnd.observation(seat).to_array()
        np.testing.assert_array_equal(o2, o)
        np.testing.assert_array_equal(hist2, hist)
        pick2 = builtin_choose(
            PLAYER_IDS["expert"], o2, hist2, mv, len(mv), np.array([7], dtype=np.uint64)
        )
        assert pick2 == pick
        checked += 1
    assert checked > 10
