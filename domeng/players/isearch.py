"""Stronger determinized search: ``esearch`` and ``isearch`` (issue 13).

Both improve on :mod:`domeng.players.search` (``search``: uniform
determinizations, ``heavy`` rollouts) in the same loop: for every
determinization, every legal move is played and the round rolled out to its
end with common random numbers; the move with the best total value is
played (value: minus the stones the seat gains by the round's end, plus
``CAMAT_BONUS`` if it becomes CAMAT, D15).

``esearch-N`` (N determinizations per decision)
    1. **Determinizations exactly consistent with D17**, uniform among the
       consistent deals (:mod:`domeng.players.determinize`, the one
       determinizer of every search player): every other seat gets exactly
       its hand size and never a tile showing a number it has shown it lacks
       by passing; the 3 tiles out of play take the rest; in the first round
       what D3 shows (the higher doubles than the opener's are out of play).
    2. **Better rollouts**: every seat plays the rest of the round as the
       tuned ``expert`` (:mod:`domeng.players.expert`), with the public
       fields it reads (hand sizes, voids) kept up to date.
``isearch-N``
    ``esearch`` plus **inference**: it draws ``CANDIDATES * N``
    determinizations from the same determinizer, weights each by how likely the other seats' actual
    plays this round were under a softmax model of the expert's scores
    (temperature ``1 / BETA``), replayed from the round's public history with
    the determinized hands, and rolls out ``N`` deals *resampled* by those
    weights.  Deals in which the others would have played very differently
    are rarely rolled out.  (Until session 5 it weighted its ``N`` rolled-out
    deals instead; the weights left a median of about a tenth of them
    carrying the decision: ``benchmarks/bench_inference.py``.)

``nsearch-N``
    ``esearch`` whose rollouts also value **who starts the next round**
    (D4: the round's winner, or the CAMAT).  The starter's seat is worth a
    lot in the rounds that follow: under strong play the seat right after
    the starter takes about 0.54 stones a round more than the starter
    (``analysis/experts``, study 1).  Each rollout's value is lowered by
    :data:`NEXT_START`, the stones the seat can expect from the rounds that
    follow at its distance after the next starter.  A seat playing a game of
    many rounds values them so; ``esearch`` and ``search`` look at this
    round's stones only.

Each player sees only its observation and the round's public history, and
draws every random number from its seat's generator: games are reproducible
from the seed.  Rollouts step through the step API (:mod:`domeng.engine.step`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from domeng.core.bits import popcount
from domeng.core.nbrng import next64, randbelow
from domeng.core.observation import (
    H_END,
    H_SEAT,
    H_TILE,
    OBS_CHAIN,
    OBS_HAND,
    OBS_HAND_SIZE,
    OBS_LEFT,
    OBS_LEN,
    OBS_MUST_LEAD,
    OBS_PLAYED_BY,
    OBS_RIGHT,
    OBS_RULES,
    OBS_SEAT,
    OBS_STONES,
    OBS_TURN,
    OBS_VOID,
)
from domeng.core.rules import R_LEN
from domeng.engine import kernel as K
from domeng.engine import step as E
from domeng.engine.kernel import ends_after
from domeng.players.determinize import draw, new_dealer, prepare
from domeng.players.expert import _W as EXPERT_W
from domeng.players.expert import decision_context, move_score
from domeng.players.heuristics import P_EXPERT, builtin_choose
from domeng.players.scoring import compile_player, runtime_ints
from domeng.players.search import CAMAT_BONUS

DEFAULT_SAMPLES = 100
BETA = 0.5
#: ``isearch`` draws this many candidate deals per rolled-out deal
CANDIDATES = 4
#: five experts before the first CAMAT, by a seat's distance after the
#: round's starter (0: it starts; 1: it plays right after the starter; ...):
#: net stones per round and win rate
#: (``analysis/experts/output/starter_offset_value.csv``, "no CAMAT yet")
EXPERT_NET_BY_DISTANCE = (0.439768, 0.976649, 0.629378, 0.476333, 0.437687)
EXPERT_WIN_BY_DISTANCE = (0.356322, 0.178116, 0.182188, 0.151145, 0.132229)


def carry_forward(net, win, rounds: int = 5) -> np.ndarray:
    """The stones a seat can expect from the next ``rounds`` rounds, by its
    distance after the next round's starter, less their mean (only the
    differences between seats matter): each round the winner starts the
    next one (D4), so a seat at distance ``d`` is at ``(d - w) % 5`` after
    a winner at distance ``w``."""
    net = np.asarray(net, dtype=np.float64)
    win = np.asarray(win, dtype=np.float64)
    win = win / win.sum()
    v = net.copy()
    for _ in range(rounds - 1):
        v = net + np.array([sum(win[w] * v[(d - w) % 5] for w in range(5)) for d in range(5)])
    return v - v.mean()


#: ``nsearch``: the value of the seats of the rounds after this one (five
#: rounds: the values have settled), about -0.21, +0.47, +0.06, -0.12, -0.19
NEXT_START = carry_forward(EXPERT_NET_BY_DISTANCE, EXPERT_WIN_BY_DISTANCE)
_NO_NEXT = np.zeros(5)
_UNIT = 1.0 / 9007199254740992.0  # 2**-53: a uniform draw from the top 53 bits


@njit(cache=True)
def log_likelihood(obs, hist, hands, beta, r_obs, moves):
    """Log-probability of the other seats' plays this round (after the lead)
    under a softmax of the expert's move scores, if the hands were
    ``hands``; replayed from the public history."""
    me = obs[OBS_SEAT]
    h = np.zeros(5, dtype=np.int64)
    for p in range(5):
        h[p] = hands[p] | obs[OBS_PLAYED_BY + p]
    for k in range(OBS_LEN):
        r_obs[k] = obs[k]
    left = -1
    right = -1
    chain = np.int64(0)
    for p in range(5):
        r_obs[OBS_VOID + p] = 0
    r_obs[OBS_MUST_LEAD] = -1
    ll = 0.0
    for k in range(obs[OBS_TURN]):
        p = hist[k, H_SEAT]
        t = hist[k, H_TILE]
        if t < 0:  # a pass: the passer lacks both open numbers (D17)
            r_obs[OBS_VOID + p] |= (np.int64(1) << left) | (np.int64(1) << right)
            continue
        if p != me and left >= 0:
            r_obs[OBS_SEAT] = p
            r_obs[OBS_HAND] = h[p]
            r_obs[OBS_LEFT] = left
            r_obs[OBS_RIGHT] = right
            r_obs[OBS_CHAIN] = chain
            for q in range(5):
                r_obs[OBS_HAND_SIZE + q] = popcount(h[q])
            n = K.legal_moves(h[p], r_obs, moves)
            if n > 1:
                hand, possible, void, table, race, one_left = decision_context(r_obs)
                actual = t * 2 + hist[k, H_END]
                top = -1e300
                sa = 0.0
                for i in range(n):
                    sc = beta * move_score(
                        EXPERT_W, r_obs, moves[i], hand, possible, void, table, race, one_left
                    )
                    if sc > top:
                        top = sc
                    if moves[i] == actual:
                        sa = sc
                z = 0.0
                for i in range(n):
                    z += math.exp(
                        beta
                        * move_score(
                            EXPERT_W, r_obs, moves[i], hand, possible, void, table, race, one_left
                        )
                        - top
                    )
                ll += sa - top - math.log(z)
        left, right = ends_after(t, hist[k, H_END], left, right)
        chain |= np.int64(1) << t
        h[p] &= ~(np.int64(1) << t)
    return ll


@njit(cache=True)
def rollout(S, hands, obs, w0, me, move, rng_state, policy, s_rng, later, explore=0.0):
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
    ended = E.step(S, move)
    while not ended:
        n = E.legal_moves(S)
        if n > 0:
            s = S.ctl[E.C_SEAT]
            S.obs[OBS_SEAT] = s
            S.obs[OBS_HAND] = S.hands[s]
            if explore > 0.0 and n > 1 and (next64(s_rng) >> np.uint64(11)) * _UNIT < explore:
                ended = E.step(S, S.moves[randbelow(s_rng, n)])
            else:
                ended = E.step(S, S.moves[builtin_choose(policy, S.obs, S.hist, S.moves, n, s_rng)])
        else:
            ended = E.step(S, E.PASS)
    value = float(obs[OBS_STONES + me] - E.held_at_settlement(S, me))
    if S.w[K.W_CAMAT] == me:
        value += CAMAT_BONUS
    value -= later[(me - E.next_starter(S)) % 5]
    return value


@njit(cache=True)
def resample(ll, picks, rng):
    """Systematic resampling: ``len(picks)`` indices into ``ll`` (log
    weights), each drawn with probability proportional to ``exp(ll)``, with
    one uniform draw from ``rng``.  Deals the others' plays make likely come
    back several times, unlikely ones drop out."""
    k = ll.shape[0]
    n = picks.shape[0]
    w = np.exp(ll - ll.max())
    step = w.sum() / n
    u = (next64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0) * step
    acc = w[0]
    j = 0
    for i in range(n):
        target = u + i * step
        while acc < target and j < k - 1:
            j += 1
            acc += w[j]
        picks[i] = j


@njit(cache=True)
def isearch_core(obs, hist, moves, n_moves, rng, samples, policy, beta, later, explore):
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
            totals[i] += rollout(
                S, hands, obs, w0, me, moves[i], seed, policy, s_rng, later, explore
            )
    best = 0
    for i in range(1, n_moves):
        if totals[i] > totals[best]:
            best = i
    return best


_MADE: dict[tuple[str, int, float], object] = {}
#: kind -> (inference temperature, the value of the next round's seats)
KINDS = {"esearch": (0.0, _NO_NEXT), "isearch": (BETA, _NO_NEXT), "nsearch": (0.0, NEXT_START)}


def make_isearch_strategy(kind: str = "isearch", samples: int | None = None, explore: float = 0.0):
    """The ``esearch``, ``isearch`` or ``nsearch`` player with ``samples`` determinizations
    per decision (default :data:`DEFAULT_SAMPLES`), compiled for the player
    signature.  ``explore`` (research only, not a registered name): the
    probability that a rollout move is a random legal one (see
    :func:`rollout`)."""
    if kind not in KINDS:
        raise ValueError(f"unknown search player {kind!r}")
    n = DEFAULT_SAMPLES if samples is None else int(samples)
    if n < 1:
        raise ValueError("samples must be >= 1")
    explore = float(explore)
    if not 0.0 <= explore <= 1.0:
        raise ValueError("explore must be a probability (0 to 1)")
    key = (kind, n, explore)
    if key not in _MADE:
        beta, later = KINDS[kind]

        ints = runtime_ints(n, P_EXPERT)
        floats = np.array([beta, explore])

        def strategy(obs, hist, moves, n_moves, rng):
            return isearch_core(
                obs, hist, moves, n_moves, rng, ints[0], ints[1], floats[0], later, floats[1]
            )

        strategy.__name__ = f"{kind}_{n}" + (f"_explore{explore:g}" if explore else "")
        _MADE[key] = compile_player(strategy)
    return _MADE[key]
