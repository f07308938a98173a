"""domeng.load_player: the built-in players as policies over the environments'
observations (issue 25 item 6).  They decide from the observation vector only
(D17) and exactly as the built-in does in the engine."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the rl extra is not installed")
pytest.importorskip("pettingzoo", reason="the rl extra is not installed")

from _util import scramble_hidden

import domeng
from domeng.batch.tables import trace_table
from domeng.core import layout as L
from domeng.core.encoding import OBS_SIZE, encode
from domeng.core.errors import DomengError, PlayerError
from domeng.core.observation import (
    OBS_CHAIN,
    OBS_HAND,
    OBS_STONES,
    OBS_TABLE,
    OBS_TURN,
)
from domeng.core.rules import Rules
from domeng.core.tiles import tiles_of
from domeng.engine import step as E
from domeng.engine.game import Game
from domeng.players import load
from domeng.players.agents import Agent, decode

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _vector(g: Game, seat: int) -> np.ndarray:
    vec = np.zeros(OBS_SIZE, dtype=np.float32)
    encode(g.observe(seat), g.history(), vec)
    return vec


RULES = [
    Rules(),
    Rules.parse("opener_leads_double=false,passebunge_every_pass=false"),
]


@pytest.mark.parametrize("rules", RULES, ids=["default", "options"])
def test_decode_gives_back_every_seats_view_and_history(rules):
    """decode(encode(view)) is the view every player reads, slot for slot and
    row for row, for every seat at every turn of games of three rounds (the
    D3 slots of the first round included)."""
    checked = 0
    for seed in (1, 4):
        g = Game(rules, seed=seed)
        pick = np.random.default_rng(seed)
        for _ in range(3):
            g.new_round()
            while not g.round_over:
                hist = g.history()
                hist[int(g.observe(0)[OBS_TURN]) :] = -1
                for seat in range(5):
                    obs, h = decode(_vector(g, seat))
                    assert obs.tolist() == g.observe(seat).tolist()
                    assert h.tolist() == hist.tolist()
                    checked += 1
                g.step(int(pick.choice(g.legal_actions())))
    assert checked > 500


def _agents_play(players: list[str], seed: int, table: int, rounds: int) -> list:
    """Five agents, each with its seat's stream of the study, play a Game from
    the observation vectors and masks alone."""
    agents = [load(p, seed=seed, table=table, seat=s) for s, p in enumerate(players)]
    g = Game(seed=seed, table=table)
    played = []
    for _ in range(rounds):
        g.new_round()
        while not g.round_over:
            s = g.seat
            g.step(agents[s](_vector(g, s), g.legal_action_mask()))
        played.append(g.events)
    return played


@pytest.mark.parametrize(
    "players",
    [
        "hunter,keeper,random,search-20,expert",
        "esearch-3,ismcts-8,random,heavy,nsearch-7",
        "learned,random,best,keeper,hunter",  # issue 25: the learned player and best as agents
    ],
)
def test_agents_play_move_for_move_as_the_built_ins_in_a_study(players):
    """Seated with their seats' streams, the agents play table t of a study
    with those players event for event: the same moves and the same draws
    (a draw out of step would change the next random or search move)."""
    names = players.split(",")
    for seed, table in [(3, 0), (8, 5)]:
        expected, _, _ = trace_table(names, Rules(), seed, table, 2)
        assert _agents_play(names, seed, table, 2) == expected


def test_another_stream_changes_the_random_moves():
    """The check above can fail: the random player's moves follow its stream."""
    names = ["random"] * 5
    expected, _, _ = trace_table(names, Rules(), 3, 0, 2)
    assert _agents_play(names, 3, 1, 2) != expected  # table 1's streams at table 0


def _scrambled(g: Game, seat: int, rng: np.random.Generator) -> Game:
    """A copy of ``g`` whose tiles ``seat`` cannot see (the others' hands and
    the 3 out of play) are dealt anew, each hand keeping its size."""
    other = Game(g.rules, seed=g.seed, table=g.table)
    for f, src in zip(other.state, g.state):
        f[...] = src
    chain = int(g.observe(seat)[OBS_CHAIN])
    other.state.hands[:] = scramble_hidden(g.state.hands, seat, chain, rng)
    return other


@pytest.mark.parametrize("name", ["search-20", "esearch-3", "hunter"])
def test_scrambling_the_hidden_tiles_leaves_the_decision_unchanged(name):
    """D17: the agent decides the same whatever the others hold."""
    agent = load(name)
    rng = np.random.default_rng(5)
    g = Game(seed=21)
    decided = 0
    for _ in range(2):
        g.new_round()
        while not g.round_over:
            s = g.seat
            vec, mask = _vector(g, s), g.legal_action_mask()
            if mask.sum() > 1:
                other = _scrambled(g, s, rng)
                assert other.state.hands.tolist() != g.state.hands.tolist()
                state = agent.rng_state
                a = agent(vec, mask)
                agent.rng_state = state
                b = agent(_vector(other, s), other.legal_action_mask())
                assert a == b
                decided += 1
            g.step(int(np.flatnonzero(mask)[0]))
    assert decided >= 5


def test_gym_learner_agent_is_the_study_seat():
    """An agent in the Gymnasium learner's seat, with that seat's stream,
    makes the episode table 0 of the study of five random players."""
    from domeng.envs.gym import DomengEnv

    seed, seat = 6, 2
    env = DomengEnv(opponents="random", seat=seat, rounds=3)
    obs, info = env.reset(seed=seed)
    agent = load("random", seed=seed, table=0, seat=seat)
    done = False
    while not done:
        obs, _, done, _, info = env.step(agent(obs, info["action_mask"]))
    _, _, st = trace_table(["random"] * 5, Rules(), seed, 0, 3)
    S = env.unwrapped._t.table(0)
    assert S.obs[OBS_STONES : OBS_STONES + 5].tolist() == st[L.ST_STONES : L.ST_STONES + 5].tolist()
    assert S.obs[OBS_TABLE] == st[L.ST_TABLE] and S.st[L.ST_ROUNDS] == st[L.ST_ROUNDS] == 3
    # the agent drew exactly what the study's seat drew
    assert np.uint64(agent.rng_state).astype(np.int64) == st[L.ST_SEAT_RNG + seat]


def test_pettingzoo_dicts_and_batches_are_taken():
    from domeng.envs.pettingzoo import env as pz_env

    e = pz_env(rounds=1)
    e.reset(seed=2)
    agent = load("expert")
    steps = 0
    for _name in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else agent(obs))
        steps += 1
    assert steps > 10
    g = Game(seed=0)
    g.new_round()
    vecs = np.stack([_vector(g, g.seat)] * 3)
    masks = np.stack([g.legal_action_mask()] * 3)
    assert load("hunter")(vecs, masks).tolist() == [54, 54, 54]


def test_open_spiel_bot_plays_as_the_built_in():
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed")
    from domeng.batch.computer import Computers
    from domeng.envs.open_spiel import computer_action

    game = pyspiel.load_game("python_domeng", {"seed": 4})
    agents = [load("random") for _ in range(5)]
    bots = [a.bot(game, s) for s, a in enumerate(agents)]
    assert all(isinstance(b, pyspiel.Bot) for b in bots)
    cpu = Computers("random")
    chance = np.random.default_rng(3)
    state = game.new_initial_state()
    decided = 0
    while not state.is_terminal():
        if state.is_chance_node():
            tiles, probs = zip(*state.chance_outcomes())
            state.apply_action(int(chance.choice(tiles, p=probs)))
            continue
        s = state.current_player()
        agents[s].rng_state = int(state._S.prng[s])
        a = bots[s].step(state)
        assert a == computer_action(cpu, state)  # draws from the state's stream
        assert agents[s].rng_state == int(state._S.prng[s])
        state.apply_action(a)
        decided += 1
    assert decided > 10
    with pytest.raises(DomengError, match="not this bot's seat"):
        fresh = game.new_initial_state()
        while fresh.is_chance_node():
            fresh.apply_action(fresh.chance_outcomes()[0][0])
        bots[(fresh.current_player() + 1) % 5].step(fresh)


def test_bad_names_and_inputs_are_refused_in_one_line():
    with pytest.raises(PlayerError, match="refused in an environment"):
        load("omniscient")
    with pytest.raises(PlayerError, match="refused in an environment"):
        load("search-0")
    agent = load("hunter")
    g = Game(seed=0)
    g.new_round()
    vec, mask = _vector(g, g.seat), g.legal_action_mask()
    for bad, match in [
        ((vec[:10], mask), "vector of 364"),
        ((np.zeros(OBS_SIZE), mask), "names no seat"),
        ((vec, mask[:5]), "57 entries"),
        ((vec, np.zeros(57)), "all 0"),
        ((vec, 1 - mask), "not the legal actions"),
    ]:
        with pytest.raises(DomengError, match=match) as info:
            agent(*bad)
        assert "\n" not in str(info.value)
    assert agent(vec) == 54 and agent(vec, mask) == 54  # the mask may be left out
    g.step(54)
    nxt = (g.seat + 1) % 5
    assert int(g.observe(nxt)[OBS_HAND]) & ~int(g.observe(g.seat)[OBS_HAND])
    with pytest.raises(DomengError, match="not the legal actions"):
        agent(_vector(g, nxt), g.legal_action_mask())  # another seat's view, this seat's mask


def test_load_player_is_public_and_takes_the_catalogue_grammar():
    """Issue 25, item 6: ``domeng.players.load`` is also ``domeng.load_player``."""
    assert "load_player" in domeng.__all__ and "load" in domeng.players.__all__
    assert domeng.load_player is domeng.players.load is load
    a = domeng.load_player("ESearch-200:eps0.1")
    assert isinstance(a, Agent) and a.name == "esearch-200:eps0.1"


def test_the_environments_page_example_evaluates_an_agent(capsys):
    block = next(
        b
        for b in re.findall(r"```python\n(.*?)```", (DOCS / "environments.md").read_text(), re.S)
        if "domeng.players.load" in b
    )
    namespace: dict = {}
    exec(compile(block, "docs/environments.md", "exec"), namespace)
    out = capsys.readouterr().out
    assert re.search(r"random legal moves: [-+]\d", out) and "expert" in out


def test_tiles_of_the_scramble_keep_the_hand_sizes():
    g = Game(seed=3)
    g.new_round()
    other = _scrambled(g, g.seat, np.random.default_rng(0))
    assert [len(tiles_of(int(h))) for h in other.state.hands] == [5] * 5
    assert int(other.state.hands[g.seat]) == int(g.state.hands[g.seat])
    assert E.round_over(other.state) == E.round_over(g.state)
