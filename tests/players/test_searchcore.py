"""The one search core (issue 21 item 4): ``search``, ``esearch``,
``isearch``, ``nsearch`` and ``omniscient`` are configurations of
:func:`domeng.players.searchcore.search_core`.  Each decides as its own
loop did before (the loops of commit ``b66580a``, kept below in this test
only), draw for draw; D17; legal moves; one compiled core."""

from __future__ import annotations

import numpy as np
import pytest
from _util import scramble_hidden
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from test_isearch import _positions

from domeng.core.nbrng import next64, randbelow
from domeng.core.observation import OBS_HAND, OBS_LEN, OBS_RULES, OBS_SEAT, OBS_STONES
from domeng.core.rules import R_LEN
from domeng.core.tiles import TILE_PIPS
from domeng.engine import kernel as K
from domeng.engine import step as E
from domeng.engine.reference import Table
from domeng.players.determinize import draw, new_dealer, prepare
from domeng.players.heuristics import P_EXPERT, P_HEAVY, builtin_choose
from domeng.players.isearch import _NO_NEXT, BETA, NEXT_START, make_isearch_strategy
from domeng.players.omniscient import OmniscientPlayer
from domeng.players.registry import make_player, resolve_player
from domeng.players.search import make_search_strategy
from domeng.players.searchcore import (
    CAMAT_BONUS,
    CANDIDATES,
    DEALS_TRUE,
    config,
    log_likelihood,
    make_strategy,
    resample,
    search_core,
)

_PIPS = TILE_PIPS.copy()
_UNIT = 1.0 / 9007199254740992.0

# ---------------------------------------------------------------- before the one core
# The three loops over deals x moves x rollouts as they were (commit b66580a,
# domeng/players/search.py, isearch.py, omniscient.py), not cached; they call
# log_likelihood and resample, which moved to searchcore unchanged.  They step
# through one compiled function (the same step, inlined once, not at each of
# their six calls: the test compiles in seconds, not minutes).


@njit
def _step(S, action):
    return E.step(S, action)


@njit(inline="always")
def _old_rollout_choice(moves, n, rng):
    """``search``'s rollout policy: the heaviest tile, ties at random."""
    if n == 1:
        return 0
    best = -1
    k = 0
    for i in range(n):
        pv = _PIPS[moves[i] >> 1]
        if pv > best:
            best = pv
            k = 1
        elif pv == best:
            k += 1
    j = randbelow(rng, k) if k > 1 else 0
    for i in range(n):
        if _PIPS[moves[i] >> 1] == best:
            if j == 0:
                return i
            j -= 1
    return 0


@njit
def _old_search_core(obs, hist, moves, n_moves, rng, samples):
    if n_moves == 1:
        return 0
    me = obs[OBS_SEAT]
    hands = np.zeros(5, dtype=np.int64)
    dealer = new_dealer()
    if not prepare(obs, dealer):
        raise ValueError("no deal of the unseen tiles is consistent with the observation")
    w0 = np.zeros(K.W_LEN, dtype=np.int64)
    s_rng = np.zeros(1, dtype=np.uint64)
    totals = np.zeros(n_moves, dtype=np.float64)
    S = E.new_rollout_state(obs[OBS_RULES : OBS_RULES + R_LEN].copy())
    # the round's counters the rules read (the D6 option), as the engine rebuilds them
    K.counters_from_history(obs, hist, w0)
    my_stones = obs[OBS_STONES + me]
    for _d in range(samples):
        draw(obs, dealer, rng, hands)
        seed = next64(rng)
        for i in range(n_moves):
            E.set_position(S, obs, w0, hands)
            s_rng[0] = seed
            ended = _step(S, moves[i])
            while not ended:
                n = E.legal_moves(S)
                if n > 0:
                    ended = _step(S, S.moves[_old_rollout_choice(S.moves, n, s_rng)])
                else:
                    ended = _step(S, E.PASS)
            # stones are penalties; the engine says who became CAMAT (D15)
            value = float(my_stones - E.held_at_settlement(S, me))
            if S.w[K.W_CAMAT] == me:
                value += CAMAT_BONUS
            totals[i] += value
    best = 0
    for i in range(1, n_moves):
        if totals[i] > totals[best]:
            best = i
    return best


_STRATEGIES: dict[int, object] = {}


@njit
def _old_rollout(S, hands, obs, w0, me, move, rng_state, policy, s_rng, later, explore=0.0):
    """Play ``move`` for ``me`` from the position (``obs`` with ``hands`` for
    every seat; ``w0`` the round's counters) and the rest of the round with
    ``policy`` (a built-in player id) at every seat, through the step API
    on the rollout state ``S``; returns the value for ``me``: minus the
    stones it gained, plus ``CAMAT_BONUS`` if the engine makes it CAMAT (D15),
    minus ``later[d]``, ``d`` its distance after the next round's starter
    (D4; zeros: this round only).  With ``explore > 0`` each rollout move
    with a choice is, with that probability, a uniformly random legal one
    instead of ``policy``'s (epsilon rollouts; a research variant)."""
    E.set_position(S, obs, w0, hands)
    S.ctl[E.C_FULL] = 1  # the rollout players read hand sizes and voids
    s_rng[0] = rng_state
    ended = _step(S, move)
    while not ended:
        n = E.legal_moves(S)
        if n > 0:
            s = S.ctl[E.C_SEAT]
            S.obs[OBS_SEAT] = s
            S.obs[OBS_HAND] = S.hands[s]
            if explore > 0.0 and n > 1 and (next64(s_rng) >> np.uint64(11)) * _UNIT < explore:
                ended = _step(S, S.moves[randbelow(s_rng, n)])
            else:
                ended = _step(S, S.moves[builtin_choose(policy, S.obs, S.hist, S.moves, n, s_rng)])
        else:
            ended = _step(S, E.PASS)
    value = float(obs[OBS_STONES + me] - E.held_at_settlement(S, me))
    if S.w[K.W_CAMAT] == me:
        value += CAMAT_BONUS
    value -= later[(me - E.next_starter(S)) % 5]
    return value


@njit
def _old_isearch_core(obs, hist, moves, n_moves, rng, samples, policy, beta, later, explore):
    """The decision of ``esearch`` (``beta == 0``), ``isearch`` (``beta > 0``)
    or ``nsearch`` (``later``: :data:`NEXT_START`; else zeros).

    ``esearch`` rolls out ``samples`` D17-exact determinizations.
    ``isearch`` draws ``CANDIDATES * samples`` of them, weights each by the
    likelihood of the others' plays this round (:func:`log_likelihood`) and
    rolls out ``samples`` deals resampled by those weights
    (:func:`resample`): the rollouts go to the deals the others' plays make
    likely, instead of weighting (which left a median of about a tenth of the
    deals carrying the decision, ``benchmarks/bench_inference.py``)."""
    if n_moves == 1:
        return 0
    me = obs[OBS_SEAT]
    hands = np.zeros(5, dtype=np.int64)
    dealer = new_dealer()
    if not prepare(obs, dealer):
        raise ValueError("no deal of the unseen tiles is consistent with the observation")
    r_obs = np.zeros(OBS_LEN, dtype=np.int64)
    s_moves = np.zeros(64, dtype=np.int64)
    w0 = np.zeros(K.W_LEN, dtype=np.int64)
    s_rng = np.zeros(1, dtype=np.uint64)
    S = E.new_rollout_state(obs[OBS_RULES : OBS_RULES + R_LEN].copy())
    totals = np.zeros(n_moves)
    K.counters_from_history(obs, hist, w0)
    if beta > 0:
        k = CANDIDATES * samples
        deals = np.zeros((k, 5), dtype=np.int64)
        ll = np.zeros(k)
        for j in range(k):
            draw(obs, dealer, rng, hands)
            deals[j, :] = hands
            ll[j] = log_likelihood(obs, hist, hands, beta, r_obs, s_moves)
        picks = np.zeros(samples, dtype=np.int64)
        resample(ll, picks, rng)
    for d in range(samples):
        if beta > 0:
            hands[:] = deals[picks[d], :]
        else:
            draw(obs, dealer, rng, hands)
        seed = next64(rng)
        for i in range(n_moves):
            totals[i] += _old_rollout(
                S, hands, obs, w0, me, moves[i], seed, policy, s_rng, later, explore
            )
    best = 0
    for i in range(1, n_moves):
        if totals[i] > totals[best]:
            best = i
    return best


@njit
def _old_omniscient_core(obs, hist, moves, n_moves, rng, all_hands, samples):
    """Index of the move with the best mean rollout value on the true hands
    ``all_hands`` (five 28-bit masks)."""
    if n_moves == 1:
        return 0
    me = obs[OBS_SEAT]
    w0 = np.zeros(K.W_LEN, dtype=np.int64)
    s_rng = np.zeros(1, dtype=np.uint64)
    totals = np.zeros(n_moves)
    S = E.new_rollout_state(obs[OBS_RULES : OBS_RULES + R_LEN].copy())
    K.counters_from_history(obs, hist, w0)
    for _d in range(samples):
        seed = next64(rng)
        for i in range(n_moves):
            totals[i] += _old_rollout(
                S, all_hands, obs, w0, me, moves[i], seed, P_EXPERT, s_rng, _NO_NEXT
            )
    best = 0
    for i in range(1, n_moves):
        if totals[i] > totals[best]:
            best = i
    return best


# ---------------------------------------------------------------- the tests
#: name -> (the new player, the old decision with the same arguments)
_SAMPLES = 8


def _old(name):
    n = _SAMPLES
    if name == "search":
        return lambda o, h, mv, k, rng: _old_search_core(o, h, mv, k, rng, n)
    beta, later, eps = {
        "esearch": (0.0, _NO_NEXT, 0.0),
        "isearch": (BETA, _NO_NEXT, 0.0),
        "nsearch": (0.0, NEXT_START, 0.0),
        "esearch:eps0.3": (0.0, _NO_NEXT, 0.3),
    }[name]
    return lambda o, h, mv, k, rng: _old_isearch_core(
        o, h, mv, k, rng, n, P_EXPERT, beta, later, eps
    )


def _new(name):
    if name == "best":  # the strongest built-in, at its own budget (issue 25)
        return resolve_player("best").fn
    if name == "esearch:eps0.3":
        return make_isearch_strategy("esearch", _SAMPLES, explore=0.3)
    base, colon, opt = name.partition(":")
    return resolve_player(f"{base}-{_SAMPLES}{colon}{opt}").fn


_NAMES = ("search", "esearch", "isearch", "nsearch", "esearch:eps0.3")
#: the configurations whose rollouts the learned network plays (issue 25 item 2)
_LEARNED = ("esearch:learned", "isearch:learned", "nsearch:learned")
#: truncated rollouts valued by the learned value (issue 25 item 2)
_VALUE = ("esearch:leaf0", "esearch:leaf5", "esearch:learned:leaf3", "isearch:lmodel")
#: a cap on the rollouts a decision (``best``'s time bound, session 19)
_CAPPED = ("esearch:cap20", "isearch:cap9")


def _later_round_positions(seed, n=4):
    """Positions of rounds after the first (stones held, a starter by D4,
    no D3), the seat to move having a choice."""
    rs = np.random.default_rng(seed)
    rnd_players = [make_player("random")] * 5
    out = []
    game = 0
    while len(out) < n:
        t = Table(seed=seed, table_index=game)
        game += 1
        for _ in range(int(rs.integers(1, 4))):
            t.play_round(rnd_players)
        rnd = t.new_round()
        for _ in range(int(rs.integers(0, 25))):
            if rnd.ended:
                break
            moves = rnd.legal_moves()
            rnd.play(moves[int(rs.integers(len(moves)))]) if moves else rnd.pass_turn()
        if not rnd.ended and len(rnd.legal_moves()) > 1:
            out.append((rnd.observation(rnd.to_move), rnd))
    return out


def _cases():
    return _positions(21, n=6) + _later_round_positions(22, n=4)


def _args(obs, rnd):
    o, hist = obs.to_array()
    mv = np.array([m.tile * 2 + m.end for m in rnd.legal_moves()], dtype=np.int64)
    return o, hist, mv


@pytest.mark.slow  # compiles the old loops (not cached): about 40-60 s
def test_every_configuration_decides_as_its_old_loop_draw_for_draw():
    """The same decision and the same generator state afterwards (so the
    same draws, in the same order) as the loop each player had before, on
    first-round positions (D3, passes, voids) and later rounds (D4)."""
    cases = _cases()
    for name in _NAMES:
        old, new = _old(name), _new(name)
        for j, (obs, rnd) in enumerate(cases):
            o, hist, mv = _args(obs, rnd)
            a = np.array([1000 + j], dtype=np.uint64)
            b = a.copy()
            assert new(o, hist, mv, len(mv), b) == old(o, hist, mv, len(mv), a), (name, j)
            assert a[0] == b[0], (name, j)
    omni = OmniscientPlayer(_SAMPLES)
    for j, (obs, rnd) in enumerate(cases):
        o, hist, mv = _args(obs, rnd)
        hands = np.array([sum(1 << t for t in h) for h in rnd.hands], dtype=np.int64)
        a = np.array([7 + j], dtype=np.uint64)
        b = a.copy()
        got = search_core(omni.config, o, hist, mv, len(mv), b, hands)
        assert got == _old_omniscient_core(o, hist, mv, len(mv), a, hands, _SAMPLES)
        assert a[0] == b[0]


def test_d17_scrambling_the_hidden_tiles_changes_no_decision_but_omniscients():
    """D17: every configuration but ``omniscient`` (those with learned
    rollouts, the learned value at truncated leaves, the learned opponent
    model and ``best`` included) decides from the observation alone; ``omniscient``
    reads the true hands (research only)."""
    rs = np.random.default_rng(3)
    omni = OmniscientPlayer(_SAMPLES)
    omni_changed = 0
    for obs, rnd in _cases():
        o, hist, mv = _args(obs, rnd)
        names = _NAMES + _LEARNED + _VALUE + _CAPPED + ("best",)  # issue 25: learned, best
        picks = {n: _new(n)(o, hist, mv, len(mv), np.array([5], dtype=np.uint64)) for n in names}
        before = [sorted(h) for h in rnd.hands]
        seen_before = omni.choose_seeing_all(obs, rnd.legal_moves(), _Rng(5), before)
        for _ in range(3):
            rnd.hands[:] = scramble_hidden(rnd.hands, rnd.to_move, obs.chain, rs)
            o2, hist2 = rnd.observation(rnd.to_move).to_array()
            np.testing.assert_array_equal(o2, o)
            for n in names:
                assert _new(n)(o2, hist2, mv, len(mv), np.array([5], dtype=np.uint64)) == picks[n]
            after = [sorted(h) for h in rnd.hands]
            omni_changed += omni.choose_seeing_all(obs, rnd.legal_moves(), _Rng(5), after) != (
                seen_before
            )
    assert omni_changed > 0  # it does see the hands


def _Rng(state):
    from domeng.core.rng import SplitMix64

    return SplitMix64(state)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    which=st.sampled_from(_NAMES + _LEARNED + _VALUE + _CAPPED),
    rng=st.integers(0, 2**63),
)
def test_every_configuration_plays_a_legal_move(seed, which, rng):
    """Property: on random first-round positions each configuration returns
    an index of one of the legal moves, reproducibly."""
    fn = _new(which)
    for obs, rnd in _positions(seed, n=2):
        o, hist, mv = _args(obs, rnd)
        a = fn(o, hist, mv, len(mv), np.array([rng], dtype=np.uint64))
        assert 0 <= a < len(mv)
        assert fn(o, hist, mv, len(mv), np.array([rng], dtype=np.uint64)) == a


def test_the_core_is_compiled_once_for_every_configuration():
    """Issue 21 item 3 of the brief: one machine code for every player name
    (a configuration's numbers are read at run time), the omniscient path
    from Python included."""
    from numba import types

    for n in (3, 4):
        make_search_strategy(n)
        for kind in ("esearch", "isearch", "nsearch"):
            make_isearch_strategy(kind, n)
    obs, rnd = _positions(21, n=1)[0]
    o, hist, mv = _args(obs, rnd)
    for fn in (make_search_strategy(3), make_isearch_strategy("isearch", 4)):
        fn(o, hist, mv, len(mv), np.array([1], dtype=np.uint64))
    OmniscientPlayer(2).choose_seeing_all(
        obs, rnd.legal_moves(), _Rng(1), [sorted(h) for h in rnd.hands]
    )
    assert len(search_core.signatures) == 1, search_core.signatures
    assert not any(isinstance(t, types.Literal) for t in search_core.signatures[0])


def test_configurations_are_checked_and_players_never_see_the_true_hands():
    c = config(5.0, P_HEAVY, beta=1, later=[0, 0, 0, 0, 1])  # typed as the core was compiled
    assert type(c.samples) is int and type(c.beta) is float and c.later.dtype == np.float64
    for bad, match in (
        (dict(samples=0), "samples"),
        (dict(samples=2, policy=99), "rollout player"),
        (dict(samples=2, beta=-1.0), "beta"),
        (dict(samples=2, explore=1.5), "probability"),
        (dict(samples=2, later=[0.0] * 4), "5 values"),
        (dict(samples=2, deals=7), "deal source"),
        (dict(samples=2, candidates=0), "candidates"),
        (dict(samples=2, cap=-1), "cap"),
        (dict(samples=2, cap=2.5), "cap"),
    ):
        with pytest.raises(ValueError, match=match):
            config(**bad)
    with pytest.raises(ValueError, match="D17"):
        make_strategy(config(4, deals=DEALS_TRUE), "peek")
    # one configuration, one compiled player, whatever asks for it
    assert make_search_strategy(9) is make_strategy(config(9, P_HEAVY), "other_name")


def test_a_cap_shares_the_rollouts_among_the_moves():
    """``capT`` (``best``'s bound on a decision's time, session 19): with
    ``n`` moves each gets ``min(samples, T // n)`` deals (at least 1), the
    same deals in the same order as the uncapped player with that many
    samples: the same decision and the same generator state afterwards
    (``isearch`` draws and weights its candidate deals for that many too)."""
    from domeng.players.searchcore import NO_CAP, samples_for

    assert samples_for(config(1000), 5) == 1000 and config(1000).cap == NO_CAP
    got = [samples_for(config(1000, cap=3000), n) for n in (1, 2, 3, 4, 5, 7)]
    assert got == [1000, 1000, 1000, 750, 600, 428]
    assert samples_for(config(10, cap=3), 5) == 1  # never none: one a move
    checked = 0
    for j, (obs, rnd) in enumerate(_cases()):
        o, hist, mv = _args(obs, rnd)
        n = len(mv)
        for kind in ("esearch", "isearch"):
            for cap, same_as in ((8 * n, 8), (3 * n + 1, 3), (n, 1)):
                a = np.array([50 + j], dtype=np.uint64)
                b = a.copy()
                capped = make_isearch_strategy(kind, 8, cap=cap)(o, hist, mv, n, a)
                plain = make_isearch_strategy(kind, same_as)(o, hist, mv, n, b)
                assert a[0] == b[0], (kind, j, cap)  # isearch: its weighted deals too
                assert capped == plain, (kind, j, cap)
                checked += 1
    assert checked == 2 * 3 * len(_cases())
    with pytest.raises(ValueError, match="cap"):
        make_isearch_strategy("esearch", 8, cap=0)
    assert resolve_player("esearch-8:cap20").name == "esearch-8:cap20"
