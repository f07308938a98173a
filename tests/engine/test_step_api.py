"""The compiled step API (issue 9) against the reference engine, move by move.

Both engines deal from the same stream of ``(seed, table)``.  A test driver
picks each action with its own generator from the legal ones, and at every
turn the step API must agree with the reference engine on the seat to move,
the legal actions (the 56 tile x end actions plus PASS, D5), the seat's
observation (D17, the observation layout), and after every step on the
events, the stones and the table.  Rounds cover every option combination
and changed award sizes; what the players *choose* is covered by the batch
agreement tests, which run the players through the same step API.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from _util import scramble_hidden
from hypothesis import given, settings
from hypothesis import strategies as st

from domeng.core.errors import IllegalMoveError
from domeng.core.rules import Rules
from domeng.engine.game import PASS, Game, action_of
from domeng.engine.reference import Move, Table

OPTION_COMBOS = [
    Rules(opener_leads_double=a, passebunge_every_pass=b, penalize_manguno_pass=c)
    for a, b, c in itertools.product([True, False], repeat=3)
]
AWARDS = [Rules.parse(["pollo=3", "ceki=2", "mattikkeng=4"]), Rules.parse(["stones=8", "pass=2"])]


def _reference_actions(rnd) -> list[int]:
    moves = rnd.legal_moves()
    return [action_of(m.tile, m.end) for m in moves] if moves else [PASS]


def _play_lockstep(
    rules: Rules, seed: int, table: int, rounds: int, pick: random.Random, obs_every: int = 1
) -> int:
    """Play ``rounds`` rounds on both engines; returns the turns compared
    (the observations on every ``obs_every``-th turn)."""
    ref = Table(rules, seed=seed, table_index=table)
    game = Game(rules, seed=seed, table=table)
    turns = 0
    for _ in range(rounds):
        rnd = ref.new_round()
        game.new_round()
        assert game.events[0] == rnd.events[0]  # the deal: hands, out of play, starter, D3
        while not rnd.ended:
            seat = rnd.to_move
            assert game.seat == seat
            legal = _reference_actions(rnd)
            assert game.legal_actions() == legal
            mask = game.legal_action_mask()
            assert mask.sum() == len(legal) and mask[legal].all()
            if turns % obs_every == 0:
                obs, hist = rnd.observation(seat).to_array()
                np.testing.assert_array_equal(game.observe(seat), obs)
                np.testing.assert_array_equal(
                    game.history()[: len(rnd.history)], hist[: len(rnd.history)]
                )
            a = pick.choice(legal)
            before = len(rnd.events)
            if a == PASS:
                rnd.pass_turn()
            else:
                rnd.play(Move(a >> 1, a & 1))
            new = game.step(a)
            assert new == rnd.events[before:]
            assert game.stones == ref.stones and game.table_stones == ref.table_stones
            turns += 1
        assert game.round_over and game.seat is None
        assert game.events == rnd.events
        assert game.camat == ref.camat and game.rounds_played == ref.rounds_played
    return turns


@pytest.mark.parametrize(
    "rules", OPTION_COMBOS + AWARDS, ids=[str(i) for i in range(len(OPTION_COMBOS) + len(AWARDS))]
)
def test_step_api_agrees_with_the_reference_move_by_move(rules):
    pick = random.Random(1)
    turns = sum(
        _play_lockstep(rules, seed, table, 25, pick)
        for seed, table in [(0, 0), (1, 7), (2**64 - 1, 3), (12345, 99)]
    )
    assert turns > 1000


@pytest.mark.slow
def test_step_api_agrees_over_20000_rounds():
    """The issue's standard: at least 20,000 rounds over every option combination."""
    rounds = 0
    pick = random.Random(2)
    for i, rules in enumerate(OPTION_COMBOS + AWARDS):
        for table in range(25):
            _play_lockstep(rules, 1000 + i, table, 100, pick, obs_every=7)
            rounds += 100
    assert rounds >= 20_000


def test_illegal_actions_are_refused_and_change_nothing():
    g = Game(seed=4)
    with pytest.raises(IllegalMoveError, match="no round"):
        g.step(0)
    g.new_round()
    legal = set(g.legal_actions())
    snap = (g.observe(g.seat).copy(), g.stones, g.table_stones, list(g.events))
    for a in [PASS, -1, 57, 10**9] + [x for x in range(56) if x not in legal][:20]:
        if a in legal:
            continue
        with pytest.raises(IllegalMoveError):
            g.step(a)
        assert (g.observe(g.seat) == snap[0]).all() and g.stones == snap[1]
        assert g.events == snap[3]
    for bad in ("3", 2.0, None, True):
        with pytest.raises(IllegalMoveError):
            g.step(bad)


def test_preview_is_what_the_step_then_does():
    pick = random.Random(3)
    for seed in range(30):
        g = Game(seed=seed)
        g.new_round()
        while not g.round_over:
            a = pick.choice(g.legal_actions())
            p = g.preview(a)
            g.step(a)
            if g.round_over:
                assert p.ends_round
                if a != PASS:
                    assert p.kind == g.result["kind"] and p.award == g.result["award"]
            else:
                assert not p.ends_round
                assert g.ends == (p.left, p.right)
            if a != PASS:
                ev = next(e for e in reversed(g.events) if e["type"] in ("lead", "play"))
                assert ev.get("mappakuling", False) == p.mappakuling


def test_a_game_of_computers_is_table_t_of_a_study():
    """Game + Computers play exactly as the batch engine's table (same streams)."""
    from domeng.batch.computer import Computers
    from domeng.batch.tables import trace_table

    players = "hunter,keeper,heavy,random,search-20"
    for seed, table in [(0, 0), (9, 4)]:
        g = Game(seed=seed, table=table)
        cpu = Computers(players)
        played = []
        for _ in range(3):
            g.new_round()
            while not g.round_over:
                g.step(cpu.action(g))
            played.append(g.events)
        expected, _, _ = trace_table(players, Rules(), seed, table, 3)
        assert played == expected


@settings(max_examples=60)
@given(
    seed=st.integers(0, 2**64 - 1),
    table=st.integers(0, 10**6),
    steps=st.integers(0, 40),
    pick=st.randoms(use_true_random=False),
)
def test_observe_reveals_no_hidden_tile(seed, table, steps, pick):
    """D17: a seat's observation holds its own hand and public facts only.
    Scrambling every tile the seat cannot see (the other hands and the 3 out
    of play) leaves its observation unchanged, and no mask in it names a
    hidden tile."""
    from domeng.core.observation import OBS_CHAIN, OBS_HAND, OBS_PLAYED_BY
    from domeng.core.tiles import mask_of

    g = Game(seed=seed, table=table)
    g.new_round()
    for _ in range(steps):
        if g.round_over:
            g.new_round()
        g.step(pick.choice(g.legal_actions()))
    S = g.state
    for seat in range(5):
        obs = g.observe(seat)
        assert obs[OBS_HAND] == mask_of(g.hand(seat))
        hidden = [t for s in range(5) if s != seat for t in g.hand(s)]
        dealt = set().union(*(set(e["hands"][s]) for e in g.events[:1] for s in range(5)))
        hidden_mask = mask_of(hidden) | mask_of(set(range(28)) - dealt)
        masks = [obs[OBS_HAND], obs[OBS_CHAIN]] + list(obs[OBS_PLAYED_BY : OBS_PLAYED_BY + 5])
        assert all(int(m) & hidden_mask == 0 for m in masks)
        # the hidden tiles dealt anew; the chain (dealt, in no hand) from the deal, not the obs
        played = dealt - set().union(*(set(g.hand(s)) for s in range(5)))
        saved = S.hands.copy()
        S.hands[:] = scramble_hidden(saved, seat, played, pick)
        try:
            np.testing.assert_array_equal(g.observe(seat), obs)
        finally:
            S.hands[:] = saved
