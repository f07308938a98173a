"""Computers at a Game (issue 14): the fast per-move dispatch
(``builtin_action`` for built-ins, ``player_action`` with the players'
addresses looked up once for compiled ones) plays exactly as the batch
engine's table, and refuses a bad answer."""

from __future__ import annotations

import pytest
from numba import njit

from domeng.batch.computer import Computers
from domeng.batch.tables import trace_table
from domeng.core.errors import PlayerError
from domeng.core.layout import ST_BAD_MOVES
from domeng.core.nbrng import randbelow
from domeng.core.observation import OBS_HAND, OBS_SEAT
from domeng.core.rules import Rules
from domeng.engine.game import Game


@njit
def drawing_player(obs, hist, moves, n_moves, rng):
    """A user's compiled player that reads its view and draws from its stream."""
    if obs[OBS_SEAT] < 0 or obs[OBS_HAND] == 0 or moves[n_moves] != -1:
        return -1  # the view is not its own: caught below as a bad move
    return randbelow(rng, n_moves)


@njit
def out_of_range(obs, hist, moves, n_moves, rng):
    return n_moves


def play(players, seed, table, rounds):
    g = Game(seed=seed, table=table)
    cpu = Computers(players)
    played = []
    for _ in range(rounds):
        g.new_round()
        while not g.round_over:
            g.step(cpu.action(g))
        played.append(g.events)
    return played, g


def test_a_lineup_of_built_ins_a_user_function_and_search_is_table_t_of_a_study():
    players = ["hunter", drawing_player, "random", "search-20", "keeper"]
    for seed, table in [(2, 0), (11, 7)]:
        played, g = play(players, seed, table, 3)
        expected, _, state = trace_table(players, Rules(), seed, table, 3)
        assert played == expected
        assert int(g.state.st[ST_BAD_MOVES]) == 0 == int(state[ST_BAD_MOVES])


def test_an_out_of_range_answer_is_refused():
    g = Game(seed=1)
    cpu = Computers(out_of_range)
    g.new_round()
    with pytest.raises(PlayerError, match="out of range"):
        cpu.action(g)  # the starter always has a move: it answers n_moves
    assert int(g.state.st[ST_BAD_MOVES]) == 1
