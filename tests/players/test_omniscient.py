"""The ``omniscient`` research player: sees every hand through its own path
only, refused everywhere else, marked in its output."""

from __future__ import annotations

import pytest

from domeng.batch.tables import run_tables
from domeng.cli.main import main
from domeng.core.errors import DomengError, PlayerError
from domeng.engine.reference import Table
from domeng.players.omniscient import MARK, OmniscientPlayer
from domeng.players.registry import make_player
from domeng.study.omniscient import omniscient_match
from domeng.study.tournament import tournament


def test_it_refuses_to_play_without_the_research_path():
    p = make_player("omniscient")
    assert p.omniscient
    t = Table(seed=1)
    with pytest.raises(PlayerError, match="sees every hand"):
        t.play_round([p] + [make_player("random")] * 4)
    with pytest.raises(PlayerError, match="sees every hand"):
        run_tables(["omniscient"] + ["random"] * 4, n_tables=1, rounds=1)
    with pytest.raises(DomengError):
        tournament(["omniscient"] + ["random"] * 4, deals=1, rounds=1)


def test_domeng_play_refuses_it_in_one_line(capsys):
    code = main(["play", "--seats", "human,omniscient,random,random,random"])
    err = capsys.readouterr().err
    assert code == 2 and "omniscient" in err and "D17" in err
    assert len(err.strip().splitlines()) == 1


def test_it_uses_the_hands_it_is_given():
    """Same observation, different hidden hands: the omniscient player may
    decide differently (it reads all_hands), and is reproducible."""
    t = Table(seed=3)
    rnd = t.new_round()
    while len(rnd.legal_moves()) < 2:
        moves = rnd.legal_moves()
        rnd.play(moves[0]) if moves else rnd.pass_turn()
    obs = rnd.observation(rnd.to_move)
    moves = rnd.legal_moves()
    hands = [sorted(h) for h in rnd.hands]
    p = OmniscientPlayer(samples=4)
    from domeng.core.rng import SplitMix64

    a = p.choose_seeing_all(obs, moves, SplitMix64(5), hands)
    b = p.choose_seeing_all(obs, moves, SplitMix64(5), hands)
    assert a == b and a in moves


def test_omniscient_match_is_marked_and_paired():
    r = omniscient_match("expert", "hunter", games=3, rounds=1, seed=2, samples=2)
    assert r["omniscient"] is True and r["mark"] == MARK
    assert r["ci95"][0] <= r["margin"] <= r["ci95"][1]
