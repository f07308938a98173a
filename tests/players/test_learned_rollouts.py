"""The learned policy as the rollout player of the one search core (issue 25,
item 2): ``esearch-N:learned`` (and ``isearch``, ``nsearch``) roll out with
the shipped ``learned`` network at every seat.  Its rollout move is the
learned player's; decisions are reproducible from the seed.  That they are
legal and decided from the observation alone (D17) is checked with every
other configuration in ``test_searchcore.py``."""

from __future__ import annotations

import numpy as np
import pytest
from test_isearch import _positions
from test_searchcore import _args, _cases

from domeng.core.defaults import N_BUILTIN, P_EXPERT
from domeng.players import catalogue
from domeng.players.isearch import ROLLOUTS, make_isearch_strategy
from domeng.players.learned import make_learned_strategy
from domeng.players.registry import resolve_player
from domeng.players.searchcore import P_LEARNED, config, learned_choose, make_strategy

_N = 8
_LEARNED_NAMES = ("esearch:learned", "isearch:learned", "nsearch:learned")


def _fn(name):
    base, colon, opt = name.partition(":")
    return resolve_player(f"{base}-{_N}{colon}{opt}").fn


def test_the_name_reaches_the_core_with_the_learned_rollout_id():
    pn = catalogue.parse("ESearch-1000:Learned")
    assert pn.text == "esearch-1000:learned" and pn.kwargs() == {"rollout": "learned"}
    assert catalogue.parse("esearch-1000:learned:eps0.1").text == "esearch-1000:eps0.1:learned"
    assert P_LEARNED == N_BUILTIN and ROLLOUTS == {"expert": P_EXPERT, "learned": P_LEARNED}
    # one configuration, one compiled player, whatever asks for it
    assert resolve_player("esearch-9:learned").fn is make_strategy(config(9, P_LEARNED), "x")
    assert make_isearch_strategy("esearch", 9) is not make_isearch_strategy(
        "esearch", 9, rollout="learned"
    )
    with pytest.raises(ValueError, match="rollout player"):
        config(2, P_LEARNED + 1)
    with pytest.raises(ValueError, match="unknown rollout player 'hunter'"):
        make_isearch_strategy("esearch", 9, rollout="hunter")


def test_the_rollout_move_is_the_learned_players_move_draw_for_draw():
    """The core's learned rollout policy on an observation is the ``learned``
    player itself: the same move and the same draws (ties)."""
    player = make_learned_strategy()
    for j, (obs, rnd) in enumerate(_cases()):
        o, hist, mv = _args(obs, rnd)
        a = np.array([50 + j], dtype=np.uint64)
        b = a.copy()
        assert learned_choose(o, mv, len(mv), a) == player(o, hist, mv, len(mv), b)
        assert a[0] == b[0]


def test_learned_rollouts_change_decisions_and_are_reproducible_from_the_seed():
    """The same seed, the same decision and the same generator state after
    it; and the learned rollouts are not the expert's (some decision of the
    same seed differs from ``esearch``'s)."""
    learned, plain = _fn("esearch:learned"), _fn("esearch")
    differ = 0
    for j, (obs, rnd) in enumerate(_cases() + _positions(31, n=10)):
        o, hist, mv = _args(obs, rnd)
        picks = []
        for _ in range(2):
            r = np.array([900 + j], dtype=np.uint64)
            picks.append((learned(o, hist, mv, len(mv), r), int(r[0])))
        assert picks[0] == picks[1]
        differ += plain(o, hist, mv, len(mv), np.array([900 + j], dtype=np.uint64)) != picks[0][0]
    assert differ > 0


def test_games_with_learned_rollouts_agree_with_the_reference_and_are_reproducible():
    """The batch engine and the reference engine play the same game event
    for event; the same seed gives the same records on any number of
    threads; no bad move."""
    from domeng.batch.reference import run_reference
    from domeng.batch.tables import run_tables, trace_table
    from domeng.core import layout as L
    from domeng.core.rules import Rules
    from domeng.players.registry import make_player

    players = ["esearch-4:learned", "expert", "nsearch-3:learned", "esearch-3", "random"]
    k_events, _k_agg, k_state = trace_table(players, Rules(), seed=4, table=1, rounds=3)
    _agg, state, _, events = run_reference(
        [make_player(p) for p in players],
        Rules(),
        4,
        tables=1,
        rounds=3,
        table_start=1,
        keep_events=True,
    )
    assert k_events == events[0]
    np.testing.assert_array_equal(k_state, state[0])
    a = run_tables(players, seed=2, n_tables=3, rounds=2, records=True)
    b = run_tables(players, seed=2, n_tables=3, rounds=2, records=True, threads=1)
    np.testing.assert_array_equal(a.records, b.records)
    assert a.state[:, L.ST_BAD_MOVES].sum() == 0
