"""OpenSpiel's ``python_domeng`` (issue 15): OpenSpiel's own random
simulation test (with serialisation), agreement with the engine move by move
and stone by stone, D17 (a seat's tensors and strings do not depend on what
it cannot see), resample_from_infostate (hand sizes, known voids, the same
information state), invalid actions, and IS-MCTS playing it."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from domeng.batch.computer import Computers  # noqa: E402
from domeng.core.errors import DomengError, IllegalMoveError  # noqa: E402
from domeng.core.observation import OBS_PLAYED_BY, OBS_VOID  # noqa: E402
from domeng.core.tiles import TILE_HIGH, TILE_LOW  # noqa: E402
from domeng.engine.game import Game  # noqa: E402
from domeng.envs import open_spiel as OS  # noqa: E402


def _deal_randomly(state, rng):
    while state.is_chance_node():
        tiles, probs = zip(*state.chance_outcomes())
        assert abs(sum(probs) - 1.0) < 1e-9
        state.apply_action(int(rng.choice(tiles)))


def _random_until(state, rng, steps):
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            _deal_randomly(state, rng)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))


def test_game_type():
    game = pyspiel.load_game("python_domeng")
    t = game.get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert game.num_players() == 5 and game.num_distinct_actions() == 57
    assert game.max_chance_outcomes() == 28
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 28


@pytest.mark.parametrize("params,sims", [({}, 12), ({"rounds": 3, "camat_bonus": 2.0}, 3)])
def test_openspiel_random_sim_test_with_serialisation(params, sims):
    game = pyspiel.load_game("python_domeng", params)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_serialise_and_clone_keep_everything():
    game = pyspiel.load_game("python_domeng", {"rounds": 2})
    state = game.new_initial_state()
    _random_until(state, np.random.default_rng(4), 40)
    back = game.deserialize_state(state.serialize())
    assert str(back) == str(state) and back.history() == state.history()
    for p in range(5):
        assert back.information_state_string(p) == state.information_state_string(p)
        assert back.observation_tensor(p) == state.observation_tensor(p)
    assert back.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("rounds", [1, 3])
def test_same_game_as_the_engine_move_by_move(rounds):
    """Deal the engine's hands through the chance nodes; then the same
    compiled players (same seed, so the same streams) make the same moves
    and every seat gets the same stones at every step."""
    seed = 9
    game = pyspiel.load_game("python_domeng", {"rounds": rounds, "seed": seed})
    state = game.new_initial_state()
    mirror = Game(seed=seed, table=0)
    cpu_engine, cpu_spiel = Computers("hunter"), Computers("hunter")
    held = np.zeros(5)
    for _ in range(rounds):
        mirror.new_round()
        for s in range(5):
            for t in mirror.hand(s):
                assert state.is_chance_node()
                state.apply_action(t)
        while not mirror.round_over:
            assert state.current_player() == mirror.seat
            a = cpu_engine.action(mirror)
            assert OS.computer_action(cpu_spiel, state) == a
            assert sorted(state.legal_actions()) == mirror.legal_actions()
            before = np.array(mirror.stones, dtype=float)
            mirror.step(a)
            state.apply_action(a)
            held += np.array(mirror.stones) - before
            if mirror.round_over and mirror.camat is not None:  # D15: the return is no reward
                held += np.array(_held_before_return(mirror))
            assert np.allclose(state.returns(), -held)
    assert state.is_terminal()


def _held_before_return(game):
    """Each seat's stones when the round was settled, before a CAMAT's return."""
    from domeng.engine import step as E

    return [int(E.held_at_settlement(game.state, s)) for s in range(5)]


def test_d17_views_do_not_depend_on_hidden_tiles():
    """Resampled states have other hands (and other out-of-play tiles) but
    give the seat the same tensors and strings; and its legal actions."""
    game = pyspiel.load_game("python_domeng")
    rng = np.random.default_rng(1)
    differed = 0
    for trial in range(12):
        state = game.new_initial_state()
        _random_until(state, rng, 1 + int(rng.integers(0, 15)))
        if state.is_terminal():
            continue
        for p in range(5):
            r = state.resample_from_infostate(p, np.random.RandomState(trial).uniform)
            assert r.information_state_string(p) == state.information_state_string(p)
            assert r.information_state_tensor(p) == state.information_state_tensor(p)
            assert r.observation_string(p) == state.observation_string(p)
            assert r.observation_tensor(p) == state.observation_tensor(p)
            differed += str(r) != str(state)
            if state.current_player() == p:
                assert r.legal_actions() == state.legal_actions()
    assert differed > 20  # the hidden tiles really were dealt anew


def test_strings_and_tensors_show_only_the_own_hand():
    game = pyspiel.load_game("python_domeng")
    state = game.new_initial_state()
    for t in range(25):  # seat s gets tiles 5s..5s+4
        state.apply_action(t)
        for p in range(5):
            mine = [k for k in range(t + 1) if k // 5 == p]
            info = state.information_state_string(p)
            shown = {int(tok.split(":")[1]) for tok in info.split() if ":" in tok}
            assert shown == set(mine)
            hand = np.array(state.observation_tensor(p))[:28]
            assert np.flatnonzero(hand).tolist() == mine


def test_resample_honours_hand_sizes_and_known_voids():
    game = pyspiel.load_game("python_domeng")
    rng = np.random.default_rng(7)
    checked = 0
    for trial in range(30):
        state = game.new_initial_state()
        _random_until(state, rng, 1 + int(rng.integers(4, 20)))
        if state.is_terminal():
            continue
        p = state.current_player()
        S = state._S
        for k in range(3):
            r = state.resample_from_infostate(p, np.random.RandomState(100 * trial + k).uniform)
            R = r._S
            assert R.hands[p] == S.hands[p]
            for q in range(5):
                assert bin(int(R.hands[q])).count("1") == bin(int(S.hands[q])).count("1")
                assert R.obs[OBS_PLAYED_BY + q] == S.obs[OBS_PLAYED_BY + q]
                void = int(S.obs[OBS_VOID + q])
                for t in range(28):
                    if (int(R.hands[q]) >> t) & 1:
                        assert not (void >> int(TILE_HIGH[t])) & 1
                        assert not (void >> int(TILE_LOW[t])) & 1
                checked += void != 0
    assert checked > 0  # some seats had known voids


def test_resample_knows_that_a_led_four_double_puts_the_higher_ones_out_of_play():
    """D3 (issue 21): the first round's opener had to lead [4|4], so [6|6]
    and [5|5] were not dealt: no resampled state deals them to a seat."""
    from domeng.core.tiles import tile_id

    d66, d55, d44 = tile_id(6, 6), tile_id(5, 5), tile_id(4, 4)
    rest = [t for t in range(28) if t not in (d66, d55, d44)]
    deal = rest[:10] + [d44] + rest[10:14] + rest[14:24]  # seat 2 holds [4|4]
    state = pyspiel.load_game("python_domeng").new_initial_state()
    for t in deal:
        state.apply_action(int(t))
    assert state.current_player() == 2 and state.legal_actions() == [d44 * 2]
    state.apply_action(d44 * 2)
    for k in range(40):
        r = state.resample_from_infostate(0, np.random.RandomState(k).uniform)
        for q in range(5):
            assert not (int(r._S.hands[q]) >> d66) & 1
            assert not (int(r._S.hands[q]) >> d55) & 1


def test_resample_in_a_game_of_rounds():
    game = pyspiel.load_game("python_domeng", {"rounds": 3})
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    while len(state._past) < 2:
        _random_until(state, rng, 1)
    _random_until(state, rng, 30)
    for p in range(5):
        r = state.resample_from_infostate(p, np.random.RandomState(p).uniform)
        assert r.information_state_string(p) == state.information_state_string(p)
        assert r.returns() == state.returns()


def test_invalid_actions_raise_and_change_nothing():
    game = pyspiel.load_game("python_domeng")
    state = game.new_initial_state()
    with pytest.raises(IllegalMoveError):
        state.apply_action(28)
    state.apply_action(3)
    with pytest.raises(IllegalMoveError, match="not a tile left"):
        state.apply_action(3)
    _deal_randomly(state, np.random.default_rng(0))
    before, hist = str(state), state.history()
    illegal = next(a for a in range(57) if a not in state.legal_actions())
    with pytest.raises(IllegalMoveError, match="nothing was played"):
        state.apply_action(illegal)
    assert str(state) == before and state.history() == hist
    with pytest.raises(DomengError):
        pyspiel.load_game("python_domeng", {"rounds": 0})


def test_ismcts_plays_it():
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_domeng")
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
        uct_c=2.0,
        max_simulations=20,
        random_state=np.random.RandomState(1),
    )
    rs = np.random.RandomState(2)
    bot.set_resampler(lambda s, p: s.resample_from_infostate(p, rs.uniform))
    state = game.new_initial_state()
    rng = np.random.default_rng(5)
    while not state.is_terminal():
        if state.is_chance_node():
            _deal_randomly(state, rng)
        else:
            a = bot.step(state)
            assert a in state.legal_actions()
            state.apply_action(a)
    assert len(state.returns()) == 5
