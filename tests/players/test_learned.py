"""The ``learned`` player (issue 25, item 1): its shipped weights load (and a
damaged file is refused in one line), it plays legal moves reproducibly, it
starts as the expert, its inputs on a hand-built position, and it decides
from its observation alone (D17).  Both engines agreeing on it is
``tests/players/test_expert.py::test_expert_agrees_in_both_engines``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _positions import T, position
from _util import scramble_hidden
from numba import njit
from test_isearch import _positions

from domeng.batch.tables import run_tables
from domeng.core import layout as L
from domeng.core.errors import PlayerError
from domeng.players import learned as LP
from domeng.players import registry
from domeng.players.registry import resolve_player


def test_the_shipped_weights_load_with_their_provenance():
    p, meta = LP.load_weights()
    assert p.shape == (LP.N_PARAMS,) and np.isfinite(p).all()
    assert meta["command"].startswith("analysis/learned/train.py")
    assert isinstance(meta["seed"], int) and meta["commit"]
    assert meta["inputs"] == list(LP.INPUTS) and meta["hidden"] == LP.N_HIDDEN
    assert np.any(p[LP.LAYOUT["v"]] != 0)  # trained: the hidden layer is in use
    assert len(LP._weights_text()) <= 5 * 2**20  # issue 25: shipped weights at most 5 MB
    spec = resolve_player("learned")
    assert spec.kind == "compiled" and spec.fn is LP.make_learned_strategy()


def test_learned_plays_legal_moves_and_the_same_seed_gives_the_same_moves():
    a = run_tables("learned", seed=3, n_tables=30, rounds=60, records=True)
    b = run_tables("learned", seed=3, n_tables=30, rounds=60, records=True, threads=1)
    c = run_tables("learned", seed=4, n_tables=30, rounds=60, records=True)
    assert a.state[:, L.ST_BAD_MOVES].sum() == 0
    np.testing.assert_array_equal(a.records, b.records)
    assert not np.array_equal(a.records, c.records)


def test_learned_starts_as_the_expert_move_for_move():
    """With the hidden layer's output weights zero the network is the expert
    (the features are the expert's own function): training starts there."""
    start = LP.make_learned_strategy(params=LP.start_params(5))
    a = run_tables([start] * 5, seed=9, n_tables=40, rounds=80, records=True)
    b = run_tables("expert", seed=9, n_tables=40, rounds=80, records=True)
    np.testing.assert_array_equal(a.records, b.records)
    trained = run_tables("learned", seed=9, n_tables=40, rounds=80, records=True)
    assert not np.array_equal(trained.records, b.records)


def test_the_networks_tanh_is_numpys_within_2e_10():
    """The learned player's tanh (a rational function, vectorised) against
    numpy's, over the range the hidden units reach and past it."""
    grid = np.concatenate([np.linspace(-30.0, 30.0, 600_001), [0.0, 1e-300, -1e-300, 1e6, -1e6]])
    ours = _tanh_of(grid)
    assert np.abs(ours - np.tanh(grid)).max() < 2e-10
    assert (np.abs(ours) <= 1.0).all() and (np.sign(ours) == np.sign(grid)).all()
    assert _tanh_of(np.array([np.inf, -np.inf])).tolist() == [1.0, -1.0]


@njit
def _tanh_of(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = LP.tanh(a[i])
    return out


def test_the_fast_tanh_changes_no_move_of_the_shipped_player():
    """The shipped weights play the same moves with the fast tanh as with
    numpy's (records of 6,000 rounds, learned in every seat)."""
    exact = LP.make_learned_strategy(pick=LP.learned_pick_exact)
    a = run_tables([exact] * 5, seed=11, n_tables=200, rounds=30, records=True)
    b = run_tables("learned", seed=11, n_tables=200, rounds=30, records=True)
    np.testing.assert_array_equal(a.records, b.records)


def test_extra_inputs_on_a_hand_built_position():
    # ends 6 and 1, hand [6|1], [1|1], [5|5]; seat 1 passed on 6 and 1, seat 2 on 1
    obs, _hist, _moves, _n = position(
        [T(6, 1), T(1, 1), T(5, 5)],
        left=6,
        right=1,
        voids={1: (6, 1), 2: (1,)},
        hand_sizes=[3, 2, 4, 5, 5],
        table=7,
        stones=[2, 0, 0, 0, 0],
    )
    x = dict(zip(LP.INPUTS, LP.inputs_of(obs, T(6, 1) * 2)))  # leaves ends (1, 1)
    assert x["pips"] == 7 and x["rest_pips"] == 2 + 10 and x["rest_tiles"] == 2
    assert x["rest_doubles"] == 2 and x["blocked"] == 2  # seats 1 and 2 lack 1
    assert x["table"] == 7 and x["my_stones"] == 2 and x["min_other"] == 2
    assert x["next_size"] == 2 and x["lead"] == 0
    assert x["options_min"] == 1  # [1|1] fits either end
    # unseen tiles with a 1: 7 tiles with a 1, less [6|1] and [1|1] (in hand)
    assert x["unseen_fits"] == 5 and x["next2_fits"] == 0


def test_learned_decides_from_its_observation_only():
    """D17: the hidden tiles dealt differently (same public state) leave the
    observation, the inputs and the move unchanged."""
    fn = LP.make_learned_strategy()
    rs = np.random.default_rng(8)
    checked = 0
    for obs, rnd in _positions(25, n=12):
        o, hist = obs.to_array()
        mv = np.array([m.tile * 2 + m.end for m in rnd.legal_moves()], dtype=np.int64)
        pick = fn(o, hist, mv, len(mv), np.array([3], dtype=np.uint64))
        x = [LP.inputs_of(o, m) for m in mv]
        for _ in range(3):
            rnd.hands[:] = scramble_hidden(rnd.hands, rnd.to_move, obs.chain, rs)
            o2, hist2 = rnd.observation(rnd.to_move).to_array()
            np.testing.assert_array_equal(o2, o)
            np.testing.assert_array_equal(hist2, hist)
            assert fn(o2, hist2, mv, len(mv), np.array([3], dtype=np.uint64)) == pick
            for m, xm in zip(mv, x):
                np.testing.assert_array_equal(LP.inputs_of(o2, m), xm)
            checked += 1
    assert checked == 36


def test_a_damaged_weights_file_is_refused_in_one_line(monkeypatch, capsys):
    raw = LP._weights_text()
    doc = json.loads(raw)
    doc["params"][3] += 1e-9
    bad = json.dumps(doc, indent=1).encode()
    with pytest.raises(PlayerError, match="damaged or not the shipped ones"):
        LP.load_weights(bad)
    with pytest.raises(PlayerError, match="do not read"):
        LP.load_weights(b"{}", sha256=__import__("hashlib").sha256(b"{}").hexdigest())
    # through the command line: one line, no traceback, a non-zero exit
    from domeng.cli.main import main

    monkeypatch.setattr(LP, "_weights_text", lambda: bad)
    monkeypatch.setattr(LP, "_MADE", {})
    monkeypatch.setattr(registry, "_SPEC_CACHE", {})
    code = main(["simulate", "--players", "learned", "-t", "2", "-r", "2", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "learned.json" in err and "SHA-256" in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.slow  # three tiny training runs: the tunable player and the tournament compile
def test_training_is_seeded_and_a_stopped_run_resumes_to_the_same_weights(tmp_path):
    """``analysis/learned/train.py``: two iterations, then a third from the
    checkpoint, give the weights of three iterations in one go."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "analysis" / "learned" / "train.py"
    spec = importlib.util.spec_from_file_location("analysis_learned_train", path)
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    tiny = ["--pairs", "2", "--deals", "8", "--rounds", "2", "--eval-deals", "8"]

    def run(out, iterations, *more):
        argv = [*tiny, "--iterations", str(iterations), "--out", str(out)]
        assert train.main([*argv, "--weights", str(out / "w.json"), *more]) == 0
        return LP.load_weights((out / "w.json").read_bytes(), sha256=_sha(out / "w.json"))

    p3, meta = run(tmp_path / "a", 3)
    run(tmp_path / "b", 2)
    q3, _ = run(tmp_path / "b", 3)
    np.testing.assert_array_equal(p3, q3)
    assert not np.array_equal(p3, LP.start_params(2026))
    assert meta["seed"] == 2026 and meta["iterations"] == 3 and "--iterations 3" in meta["command"]
    assert (tmp_path / "a" / "curve.csv").exists() and (tmp_path / "a" / "curve.png").exists()


def _sha(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()
