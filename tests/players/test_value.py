"""The learned value of the search's leaves (issue 25, item 2): its shipped
weights load with their provenance (a damaged file is refused), its features
on positions of a real round, the truncated rollouts of ``esearch-N:leafK``
(a truncation past the round's end is no truncation, draw for draw), the
option's grammar, and a seeded training script.  D17 and the legal-move
property of the ``leaf`` configurations are test_searchcore's."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from test_searchcore import _args, _cases

from domeng.core.errors import PlayerError
from domeng.core.observation import (
    OBS_HAS_PLAYED,
    OBS_LAST_MAPPANO,
    OBS_LEFT,
    OBS_RIGHT,
    OBS_STONES,
    OBS_TABLE,
    OBS_TURN,
)
from domeng.core.tiles import TILE_HIGH, TILE_LOW
from domeng.engine import step as E
from domeng.engine.game import Game
from domeng.players import catalogue
from domeng.players import value as V
from domeng.players.isearch import make_isearch_strategy
from domeng.players.registry import resolve_player
from domeng.players.searchcore import (
    CAMAT_BONUS,
    NO_LEAF,
    P_EXPERT,
    P_LEARNED,
    config,
    log_likelihood,
    model_log_likelihood,
)

_ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_value_weights_load_with_their_provenance():
    W, meta = V.load_value_weights()
    assert W.shape == (V.N_BLOCKS, V.N_VALUE_FEATURES) and np.isfinite(W).all()
    assert meta["command"].startswith("analysis/learned/train_value.py")
    assert isinstance(meta["seed"], int) and meta["commit"]
    assert meta["features"] == list(V.FEATURES)
    assert np.any(W[:, 1:] != 0)  # fitted, not a constant
    path = _ROOT / "domeng" / "players" / "data" / V.VALUE_FILE
    assert path.stat().st_size <= 5 * 2**20


def test_a_damaged_value_file_is_refused():
    raw = V._weights_text()
    doc = json.loads(raw)
    doc["params"][3] += 1e-9
    bad = json.dumps(doc, indent=1).encode()
    with pytest.raises(PlayerError, match="damaged or not the shipped ones"):
        V.load_value_weights(bad)
    for text in (b"{}", json.dumps({**doc, "features": ["bias"]}).encode()):
        with pytest.raises(PlayerError, match="do not read"):
            V.load_value_weights(text, sha256=hashlib.sha256(text).hexdigest())


def _expected_features(S, me):
    left, right = int(S.obs[OBS_LEFT]), int(S.obs[OBS_RIGHT])
    x = [1.0]
    for d in range(5):
        s = (me + d) % 5
        tiles = [t for t in range(28) if (int(S.hands[s]) >> t) & 1]
        fits = [t for t in tiles if left < 0 or {TILE_HIGH[t], TILE_LOW[t]} & {left, right}]
        x += [
            len(tiles),
            sum(TILE_HIGH[t] + TILE_LOW[t] for t in tiles),
            sum(TILE_HIGH[t] == TILE_LOW[t] for t in tiles),
            len(fits),
            S.obs[OBS_HAS_PLAYED + s],
            S.obs[OBS_STONES + s],
            float(S.obs[OBS_LAST_MAPPANO] == s),
        ]
    table = int(S.obs[OBS_TABLE])
    x += [table, float(left < 0), float(left >= 0 and left == right), float(table == 0)]
    x += [float(table == 0 and S.obs[OBS_STONES + me] == 0), S.obs[OBS_TURN]]
    return np.array(x, dtype=np.float64)


def test_the_features_and_the_value_on_the_positions_of_real_rounds():
    W = V.load_value_weights()[0]
    g = Game(seed=11)
    S = g.state
    x = np.empty(V.N_VALUE_FEATURES)
    checked = 0
    for _ in range(3):
        E.new_round(S)
        while True:
            for me in range(5):
                m = V.value_features(S, me, x)
                assert m == (int(S.ctl[E.C_SEAT]) - me) % 5
                np.testing.assert_array_equal(x, _expected_features(S, me))
                assert V.value_of(W, S, me) == pytest.approx(float(W[m] @ x), abs=1e-9)
                checked += 1
            n = E.legal_moves(S)
            if E.step(S, int(S.moves[0]) if n else E.PASS):
                break
    assert checked > 50


def test_a_truncation_past_the_rounds_end_is_no_truncation_draw_for_draw():
    """``leaf128``: no round has 128 plies left, so every rollout plays to
    its end: the decisions and the generator's state are esearch's."""
    plain = make_isearch_strategy("esearch", 12)
    long = make_isearch_strategy("esearch", 12, leaf=128)
    short = make_isearch_strategy("esearch", 12, leaf=0)
    for j, (obs, rnd) in enumerate(_cases()):
        o, hist, mv = _args(obs, rnd)
        a = np.array([300 + j], dtype=np.uint64)
        b = a.copy()
        c = a.copy()
        assert long(o, hist, mv, len(mv), b) == plain(o, hist, mv, len(mv), a)
        assert 0 <= short(o, hist, mv, len(mv), c) < len(mv)
        assert a[0] == b[0] == c[0]  # the same draws: a truncation takes none of the seat's


def test_the_leaf_option_of_esearch():
    pn = catalogue.parse("esearch-50:leaf4:learned")
    assert pn.text == "esearch-50:learned:leaf4"
    assert pn.kwargs() == {"rollout": "learned", "leaf": 4.0}
    fn = resolve_player("esearch-7:leaf3").fn
    assert fn is make_isearch_strategy("esearch", 7, leaf=3)
    assert fn is not make_isearch_strategy("esearch", 7)
    for bad in ("esearch-5:leaf200", "isearch-5:leaf3", "esearch:leaf"):
        with pytest.raises(PlayerError):
            catalogue.parse(bad)
    with pytest.raises(ValueError, match="whole number"):
        make_isearch_strategy("esearch", 5, leaf=2.5)
    assert config(3).leaf == NO_LEAF and config(3, leaf=5).leaf == 5
    with pytest.raises(ValueError, match="leaf"):
        config(3, leaf=-2)


def test_the_learned_opponent_model_weights_deals_by_the_networks_scores():
    """``isearch-N:lmodel``: the deals' log-likelihood under the learned
    network's scores (finite, at most 0, not the expert's); the expert's
    model is :func:`log_likelihood` exactly."""
    from domeng.players.determinize import draw, new_dealer, prepare

    r_obs = np.zeros(len(_cases()[0][0].to_array()[0]), dtype=np.int64)
    moves = np.zeros(64, dtype=np.int64)
    hands = np.zeros(5, dtype=np.int64)
    differ = 0
    for obs, rnd in _cases():
        o, hist, _ = _args(obs, rnd)
        dealer = new_dealer()
        assert prepare(o, dealer)
        rng = np.array([9], dtype=np.uint64)
        for _ in range(3):
            draw(o, dealer, rng, hands)
            ex = model_log_likelihood(P_EXPERT, o, hist, hands, 0.5, r_obs, moves)
            assert ex == log_likelihood(o, hist, hands, 0.5, r_obs, moves)
            ll = model_log_likelihood(P_LEARNED, o, hist, hands, 0.5, r_obs, moves)
            assert np.isfinite(ll) and ll <= 0.0
            differ += ll != ex
    assert differ > 0
    pn = catalogue.parse("isearch-40:lmodel")
    assert pn.kwargs() == {"model": "learned"}
    assert resolve_player("isearch-6:lmodel").fn is make_isearch_strategy(
        "isearch", 6, model="learned"
    )
    with pytest.raises(PlayerError):
        catalogue.parse("esearch-5:lmodel")
    with pytest.raises(ValueError, match="opponent model"):
        config(3, model=99)


@pytest.mark.slow  # compiles the self-play generator
def test_training_is_seeded(tmp_path):
    """``analysis/learned/train_value.py``: the same seed gives the same
    weights; its CAMAT bonus is the search's."""
    path = _ROOT / "analysis" / "learned" / "train_value.py"
    spec = importlib.util.spec_from_file_location("analysis_learned_train_value", path)
    train = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(train)
    assert train.CAMAT_BONUS == CAMAT_BONUS
    got = []
    for k in range(2):
        out = tmp_path / str(k)
        argv = ["--tables", "8", "--heldout", "4", "--chunk", "3", "--seed", "5"]
        assert train.main([*argv, "--out", str(out), "--weights", str(out / "v.json")]) == 0
        raw = (out / "v.json").read_bytes()
        W, meta = V.load_value_weights(raw, sha256=hashlib.sha256(raw).hexdigest())
        assert meta["seed"] == 5 and meta["tables"] == 8
        assert (out / "value_curve.csv").read_text().count("\n") >= 3
        got.append(W)
    np.testing.assert_array_equal(got[0], got[1])
