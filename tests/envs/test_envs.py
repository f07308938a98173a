"""The environments (issue 15): the official checkers, agreement with the
engine move by move, D17 (no observation or info shows another seat's
tiles or the 3 out of play), invalid actions, and the docs' examples."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import gymnasium
from _util import scramble_hidden
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import domeng.envs  # noqa: F401  (registers domeng/Domeng-v0)
from domeng.batch.computer import Computers
from domeng.batch.tables import trace_table
from domeng.core import encoding as ENC
from domeng.core import layout as L
from domeng.core.errors import DomengError, IllegalMoveError
from domeng.core.observation import (
    OBS_CHAIN,
    OBS_HAND,
    OBS_HAND_SIZE,
    OBS_LEN,
    OBS_PLAYED_BY,
    OBS_SEAT,
    OBS_STONES,
    OBS_TABLE,
)
from domeng.engine.game import PASS, Game
from domeng.engine.step import copy_state
from domeng.envs.gym import DomengEnv, DomengVectorEnv
from domeng.envs.pettingzoo import AGENTS
from domeng.envs.pettingzoo import env as pz_env
from domeng.envs.tables import write_view

PUBLIC = [i for i in range(OBS_LEN) if i not in (OBS_SEAT, OBS_HAND)]
DOCS = Path(__file__).resolve().parents[2] / "docs"


# ---------------------------------------------------------------- the checkers
def test_gymnasium_check_env():
    e = gymnasium.make("domeng/Domeng-v0", opponents="hunter", seat=2, illegal="penalize")
    check_env(e.unwrapped, skip_render_check=False)


def test_check_env_steps_an_action_drawn_before_a_seeded_reset():
    """Why ``check_env`` needs ``illegal="penalize"``: its step-determinism
    check draws ``action_space.sample()`` *before* ``reset(seed=123)`` and
    then steps it in the new deal, where it is usually illegal; the default
    (``illegal="raise"``) refuses it, as it refuses any illegal action."""
    e = gymnasium.make("domeng/Domeng-v0", opponents="hunter", seat=2)
    # check_env's first step draws from the action space unseeded; seeded
    # here, the draw is the same every run (a legal draw would pass the check)
    e.unwrapped.action_space.seed(0)
    with pytest.raises(IllegalMoveError, match="nothing was played"):
        check_env(e.unwrapped, skip_render_check=True)


def test_pettingzoo_api_test_and_seed_test():
    api_test(pz_env(rounds=2), num_cycles=200)
    seed_test(lambda render_mode=None: pz_env(rounds=2, render_mode=render_mode))


def test_vector_env_from_make_vec_auto_resets():
    v = gymnasium.make_vec("domeng/Domeng-v0", num_envs=6, opponents="random")
    assert isinstance(v, DomengVectorEnv)
    obs, info = v.reset(seed=5)
    assert obs.shape == (6, ENC.OBS_SIZE)
    ended = 0
    rng = np.random.default_rng(0)
    for _ in range(200):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, _rew, term, _trunc, info = v.step(acts)
        ended += int(term.sum())
        assert info["action_mask"].sum(axis=1).min() >= 1  # the learner is to move everywhere
        if term.any():
            assert info["_final_obs"].tolist() == term.tolist()
    assert ended > 20  # one-round episodes end and restart


# ---------------------------------------------------------------- agreement with the engine
@pytest.mark.parametrize("seat,rounds", [(0, 3), (3, 2)])
def test_gym_env_is_the_study_table_move_by_move(seat, rounds):
    """The learner plays what ``hunter`` would: the episode is then table 0
    of the seed with five hunters, move by move and stone by stone."""
    seed = 11
    env = DomengEnv(opponents="hunter", seat=seat, rounds=rounds)
    env.reset(seed=seed)
    mirror = Game(seed=seed, table=0)
    cpu = Computers("hunter")
    mirror.new_round()
    total = 0.0
    done = False
    while not done:
        # the mirror: the opponents move until the learner is to move
        while mirror.round_over or mirror.seat != seat:
            if mirror.round_over:
                mirror.new_round()
                continue
            mirror.step(cpu.action(mirror))
        S = env.unwrapped._t.table(0)
        # the public state (OBS_SEAT / OBS_HAND are the last chooser's scratch)
        assert (S.obs[PUBLIC] == mirror.state.obs[PUBLIC]).all()
        assert (S.hands == mirror.state.hands).all()
        assert env.action_masks().tolist() == mirror.legal_action_mask().tolist()
        a = cpu.action(mirror)
        mirror.step(a)
        _, r, done, _, _ = env.step(a)
        total += r
    events, _, st = trace_table("hunter", seed=seed, table=0, rounds=rounds)
    S = env.unwrapped._t.table(0)
    assert S.obs[OBS_STONES : OBS_STONES + 5].tolist() == st[L.ST_STONES : L.ST_STONES + 5].tolist()
    assert S.obs[OBS_TABLE] == st[L.ST_TABLE] and np.int64(S.rng[0]) == st[L.ST_RNG]
    for c in (L.ST_CAMAT, L.ST_NEXT_STARTER, L.ST_ROUNDS, L.ST_CAMATS, L.ST_SINCE_CAMAT):
        assert S.st[c] == st[c]
    for p in range(5):  # the seats' streams (the learner's is never drawn from here)
        assert p == seat or np.int64(S.prng[p]) == st[L.ST_SEAT_RNG + p]
    # the rewards add up to minus the stones the learner gained from the awards
    got = sum(
        ev["amount"]
        for rnd in events
        for ev in rnd
        if ev["type"] == "transfer" and ev["to"] == seat
    )
    paid = sum(
        ev["amount"]
        for rnd in events
        for ev in rnd
        if ev["type"] == "transfer" and ev["source"] == seat
    )
    assert total == pytest.approx(-(got - paid))


def test_vector_env_tables_are_consecutive_study_tables():
    v = DomengVectorEnv(3, opponents="keeper", seat=4, rounds=1)
    v.reset(seed=2)
    for i in range(3):
        g = Game(seed=2, table=i)
        g.new_round()
        S = v._t.table(i)  # the deal: what each seat holds and has played
        assert ((S.hands | S.obs[OBS_PLAYED_BY : OBS_PLAYED_BY + 5]) == g.state.hands).all()


# ---------------------------------------------------------------- D17
def test_pettingzoo_observations_never_show_hidden_tiles():
    rng = np.random.default_rng(3)
    e = pz_env(rounds=3)
    e.reset(seed=9)
    raw = e.unwrapped
    checked = 0
    for _agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        assert set(obs) == {"observation", "action_mask"} and info == {}
        S = raw.game.state
        for s, a in enumerate(AGENTS):
            before = raw.observe(a)
            saved = S.hands.copy()
            S.hands[:] = scramble_hidden(saved, s, int(S.obs[OBS_CHAIN]), rng)
            after = raw.observe(a)
            S.hands[:] = saved
            for key in before:  # every field of the dict, every slot of the vector
                assert (before[key] == after[key]).all(), (a, key)
            checked += 1
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 100


def test_gym_observation_and_info_never_show_hidden_tiles():
    rng = np.random.default_rng(4)
    env = DomengEnv(opponents="random", seat=1, rounds=2)
    obs, info = env.reset(seed=1)
    t = env.unwrapped._t
    done = False
    while not done:
        S = t.table(0)
        assert set(info) == {"action_mask", "table"}
        saved = S.hands.copy()
        S.hands[:] = scramble_hidden(saved, 1, int(S.obs[OBS_CHAIN]), rng)
        o2 = np.zeros(ENC.OBS_SIZE, np.float32)
        m2 = np.zeros(57, np.int8)
        write_view(S, 1, np.zeros(OBS_LEN, np.int64), o2, m2)
        S.hands[:] = saved
        assert (o2 == obs).all() and (m2 == info["action_mask"]).all()
        obs, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))


def test_encoding_fields_hold_the_own_hand_and_public_counts():
    g = Game(seed=4)
    g.new_round()
    out = np.zeros(ENC.OBS_SIZE, np.float32)
    for s in range(5):
        encode_seat = g.observe(s)
        ENC.encode(encode_seat, g.history(), out)
        f = ENC.describe(out)
        assert sorted(np.flatnonzero(f["hand"]).tolist()) == g.hand(s)
        assert f["hand_size"].tolist() == [g.hand_sizes[(s + r) % 5] for r in range(5)]
        assert f["seat"].tolist() == [1.0 if p == s else 0.0 for p in range(5)]
        assert int(encode_seat[OBS_HAND_SIZE + s]) == 5


# ---------------------------------------------------------------- invalid actions
def _same(a, b) -> bool:
    """Two state records (or stacks) field for field (a field not kept: None in both)."""
    return all(x is y if x is None else (x == y).all() for x, y in zip(a, b, strict=True))


def test_invalid_actions_raise_and_change_nothing():
    env = DomengEnv(opponents="hunter", seat=0)
    obs, info = env.reset(seed=8)
    before = copy_state(env.unwrapped._t.table(0))
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    for bad in (illegal, -1, 57, 2.5, True, "x"):
        with pytest.raises(IllegalMoveError):
            env.step(bad)
    assert _same(before, env.unwrapped._t.table(0))
    soft = DomengEnv(opponents="hunter", illegal="penalize")
    soft.reset(seed=8)
    snap = copy_state(soft._t.table(0))
    o2, r, term, _, info2 = soft.step(illegal)
    assert r == -1.0 and info2["illegal"] and not term and (o2 == obs).all()
    assert _same(snap, soft._t.table(0))  # nothing played

    v = DomengVectorEnv(2, opponents="random")
    _, vinfo = v.reset(seed=3)
    acts = np.array([int(np.flatnonzero(m)[0]) for m in vinfo["action_mask"]])
    acts[1] = int(np.flatnonzero(vinfo["action_mask"][1] == 0)[0])
    snap = copy_state(v._t.B)
    with pytest.raises(IllegalMoveError, match="table 1"):
        v.step(acts)
    assert _same(snap, v._t.B)

    e = pz_env()
    e.reset(seed=2)
    obs = e.observe(e.agent_selection)
    g = e.unwrapped.game
    snap_obs = g.observe(g.seat)
    with pytest.raises(IllegalMoveError):
        e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert (g.observe(g.seat) == snap_obs).all()


def test_a_written_over_mask_does_not_make_an_action_legal():
    """``copy=False`` hands out the mask buffer itself; the step checks the
    actions against the engine's own bits (``Tables.legal``), not that buffer,
    so a caller that writes 1s into it still cannot play an illegal action."""
    v = DomengVectorEnv(2, opponents="random", copy=False)
    _, info = v.reset(seed=3)
    mask = info["action_mask"]
    acts = np.array([int(np.flatnonzero(m)[0]) for m in mask])
    acts[0] = int(np.flatnonzero(mask[0] == 0)[0])
    truth = mask.astype(bool)
    mask[:] = 1  # the caller's buffer now says every action is legal
    assert (v.action_masks() == truth).all()  # the engine's own, not the buffer
    snap = copy_state(v._t.B)
    with pytest.raises(IllegalMoveError, match="table 0") as refused:
        v.step(acts)
    assert _same(snap, v._t.B)
    listed = str(refused.value).split("legal: ", 1)[1].split(" (D5)")[0].split(", ")
    assert len(listed) == int(truth[0].sum())  # the message lists the legal actions only
    # the engine's bits are the mask the step API gives for each table
    from domeng.engine import step as E

    for i in range(2):
        m = np.zeros(E.N_ACTIONS, dtype=np.int64)
        E.legal_action_mask(v._t.table(i), m)
        assert int(v._t.legal[i]) == sum(1 << int(a) for a in np.flatnonzero(m))


def test_bad_options_are_refused_in_one_line():
    for kwargs in (
        {"rounds": 0},
        {"seat": 5},
        {"opponents": "nobody"},
        {"opponents": ["hunter"] * 3},
        {"camat_bonus": float("nan")},
    ):
        with pytest.raises(DomengError):
            DomengEnv(**kwargs)
    with pytest.raises(DomengError):
        DomengEnv().step(PASS)  # before reset


# ---------------------------------------------------------------- the docs
@pytest.mark.slow
def test_docs_examples_run(capsys):
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / "environments.md").read_text(), re.S)
    assert len(blocks) >= 3
    for i, b in enumerate(blocks):
        exec(compile(b, f"docs/environments.md[{i}]", "exec"), {})
    assert capsys.readouterr().out.strip()
