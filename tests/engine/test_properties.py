"""Whole games under hypothesis: random seeds, built-in players (random, heavy,
keeper, hunter) and rule options.  After every action: stones conserved and
never negative (D7), tiles conserved (D2), only legal moves (D5), passes only
without a legal move (D5), rounds bounded and ending correctly (D9, D11), and
observations that never reveal hidden tiles (D17)."""

from __future__ import annotations

import copy

import pytest
from _util import check_stones, check_tiles, snapshot
from hypothesis import given, settings
from hypothesis import strategies as st

from domeng.core.errors import IllegalMoveError
from domeng.core.observation import H_TILE, MAX_TURNS, OBS_CHAIN, OBS_HAND, OBS_PLAYED_BY
from domeng.core.rng import SplitMix64
from domeng.core.rules import Rules
from domeng.core.tiles import mask_of, numbers, other_end
from domeng.engine.reference import CAPPU, CEKI, LEFT, MANGUNO, MATTIKKENG, POLLO, RIGHT, Table
from domeng.players.registry import make_player

NAMES = ["random", "heavy", "keeper", "hunter"]
PLAYERS = {n: make_player(n) for n in NAMES}

seeds = st.integers(0, 2**63 - 1)
lineups = st.lists(st.sampled_from(NAMES), min_size=5, max_size=5)
rule_sets = st.builds(
    Rules,
    opener_leads_double=st.booleans(),
    passebunge_every_pass=st.booleans(),
    penalize_manguno_pass=st.booleans(),
    pollo_award=st.integers(0, 7),
    pass_award=st.integers(0, 3),
)


def hidden_twin(rnd, seat, seed):
    """A copy of the round in which every tile ``seat`` cannot see (other hands and
    the 3 out of play) is dealt again among their holders, sizes kept."""
    hidden = sorted(set().union(*(rnd.hands[q] for q in range(5) if q != seat)) | rnd.out_of_play)
    SplitMix64(seed).shuffle(hidden)
    hands = [set(h) for h in rnd.hands]
    for q in range(5):
        if q != seat:
            k = len(hands[q])
            hands[q], hidden = set(hidden[:k]), hidden[k:]
    twin = copy.copy(rnd)
    twin.hands, twin.out_of_play = hands, set(hidden)
    return twin


def check_observation(rnd, seat, seed) -> None:
    """D17: the seat sees its own hand and public facts; never other tiles."""
    obs = rnd.observation(seat)
    a, hist = obs.to_array()
    chain = {t for _, t, _ in rnd.chain}
    assert set(obs.hand) == rnd.hands[seat]
    assert a[OBS_HAND] == mask_of(rnd.hands[seat])
    assert a[OBS_CHAIN] == mask_of(chain)
    played = 0
    for q in range(5):
        played |= int(a[OBS_PLAYED_BY + q])
    assert played == mask_of(chain)
    assert {int(t) for t in hist[:, H_TILE] if t >= 0} == chain
    assert {t for _, t, *_ in obs.history if t is not None} == chain
    # nothing in the observation changes when the hidden tiles are dealt differently
    twin = hidden_twin(rnd, seat, seed).observation(seat)
    assert twin == obs
    a2, hist2 = twin.to_array()
    assert (a == a2).all() and (hist == hist2).all()


def play_checked(table: Table, players, rounds: int, obs_every_seat: bool = False) -> None:
    for _ in range(rounds):
        rnd = table.new_round()
        check_tiles(rnd)
        check_stones(table)
        steps = 0
        while not rnd.ended:
            steps += 1
            assert steps <= MAX_TURNS
            s = rnd.to_move
            moves = rnd.legal_moves()
            for seat in range(5) if obs_every_seat else (s,):
                check_observation(rnd, seat, steps * 5 + seat)
            if not moves:
                # D5: a seat passes only with no playable tile
                assert not rnd.can_play(s)
                if rnd.left is not None:
                    assert not any(
                        rnd.left in numbers(t) or rnd.right in numbers(t) for t in rnd.hands[s]
                    )
                last = rnd.last_mappano
                rnd.pass_turn()
                if rnd.ended:  # D11: only the LAST MAPPANO's pass closes the round
                    assert s == last
            else:
                before = snapshot(rnd)
                with pytest.raises(IllegalMoveError):
                    rnd.pass_turn()  # D5: cannot pass with a playable tile
                assert snapshot(rnd) == before
                move = players[s].choose(rnd.observation(s), moves, table.seat_rngs[s])
                assert move in moves
                t, end = move
                assert t in rnd.hands[s]
                left, right = rnd.left, rnd.right
                n_events = len(rnd.events)
                rnd.play(move)
                # the tile joined an open end and the ends moved accordingly
                if left is None:
                    assert (rnd.left, rnd.right) == numbers(t)
                elif end == LEFT:
                    assert (rnd.left, rnd.right) == (other_end(t, left), right)
                else:
                    assert end == RIGHT and (rnd.left, rnd.right) == (left, other_end(t, right))
                if not rnd.hands[s]:
                    # D9: FIRST CAPPU ends the round at once
                    assert rnd.ended and rnd.result.first_cappu == s == rnd.result.winner
                    assert rnd.result.kind in (CAPPU, CEKI, POLLO)
                    assert rnd.events[n_events + 1]["type"] == "end"
                else:
                    assert not rnd.ended and rnd.to_move == (s + 1) % 5
            check_stones(table)
            check_tiles(rnd)
        res = rnd.result
        assert res.turns == len(rnd.history) == steps <= MAX_TURNS
        assert res.tiles_played == len(rnd.chain)
        if res.manguno is not None:
            # D11: blocked: nobody can play, and M made the last play before 4 passes
            assert res.kind in (MANGUNO, MATTIKKENG)
            assert all(not rnd.can_play(q) for q in range(5))
            assert rnd.last_mappano == res.manguno and rnd.passes_since_play == 4
            assert all(rnd.hands[q] for q in range(5))
        else:
            assert res.kind in (CAPPU, CEKI, POLLO) and not rnd.hands[res.first_cappu]
            assert sum(1 for h in rnd.hands if not h) == 1


@settings(max_examples=200)
@given(seed=seeds, lineup=lineups, rules=rule_sets, rounds=st.integers(1, 4))
def test_games_keep_every_invariant(seed, lineup, rules, rounds):
    """D2, D5, D7, D9, D11, D16, D17 checked after every action of whole games."""
    table = Table(rules, seed=seed % 2**32, table_index=seed >> 32)
    play_checked(table, [PLAYERS[n] for n in lineup], rounds)
    assert table.rounds_played == rounds


@settings(max_examples=40)
@given(seed=seeds, lineup=lineups)
def test_observations_of_every_seat_hide_private_tiles(seed, lineup):
    """D17 for all five seats at every step of two rounds."""
    table = Table(seed=seed % 2**32, table_index=seed >> 32)
    play_checked(table, [PLAYERS[n] for n in lineup], 2, obs_every_seat=True)


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32), lineup=lineups, rounds=st.integers(1, 6))
def test_play_round_matches_step_by_step(seed, lineup, rounds):
    """Table.play_round is the step loop above (same draws, same events): D16 games
    are a function of the seed and the players."""
    players = [PLAYERS[n] for n in lineup]
    a, b = Table(seed=seed), Table(seed=seed)
    a.play(players, rounds)
    for _ in range(rounds):
        rnd = b.new_round()
        while not rnd.ended:
            moves = rnd.legal_moves()
            if moves:
                rnd.play(
                    players[rnd.to_move].choose(
                        rnd.observation(rnd.to_move), moves, b.seat_rngs[rnd.to_move]
                    )
                )
            else:
                rnd.pass_turn()
    assert a.round.events == b.round.events
    assert (a.stones, a.table_stones, a.camat, a.next_starter, a.rng_states()) == (
        b.stones,
        b.table_stones,
        b.camat,
        b.next_starter,
        b.rng_states(),
    )


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32), lineup=lineups)
def test_long_games_conserve_stones(seed, lineup):
    """D7/D15/D16 over long games (CAMATs included): after every round the stones sum
    to the total, none is negative, and a CAMAT round leaves everything on the table."""
    table = Table(seed=seed)
    players = [PLAYERS[n] for n in lineup]
    for _ in range(150):
        res = table.play_round(players)
        check_stones(table)
        if res.camat is not None:
            assert table.table_stones == 25 and table.stones == [0] * 5
            assert res.kind in (CAPPU, CEKI, POLLO) and res.camat == res.first_cappu
        assert table.next_starter == (table.camat if table.camat is not None else res.winner)
