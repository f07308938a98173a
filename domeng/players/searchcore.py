"""The one search core: sampled deals x candidate moves x rollouts with a policy.

``search``, ``esearch``, ``isearch``, ``nsearch`` and the research player
``omniscient`` are configurations of :func:`search_core` (a
:class:`SearchConfig` record each); ``ismcts``, a tree search, shares its
rollout policy (:func:`policy_move`), its value (:func:`seat_value`) and the
one determinizer (:mod:`domeng.players.determinize`).

At a decision with two or more legal moves the core repeats, ``samples``
times:

1. **A deal.**  ``DEALS_SAMPLED``: the tiles the seat cannot see, dealt
   uniformly among the deals consistent with its observation (D17: hand
   sizes, the known voids, D3 in the first round), by the one determinizer.
   With inference (``beta > 0``) it draws ``candidates * samples`` deals,
   weights each by how likely the other seats' plays this round were under
   a softmax of the expert's move scores (temperature ``1 / beta``,
   :func:`log_likelihood`; with ``model`` :data:`P_LEARNED`, the learned
   network's scores: :func:`model_log_likelihood`) and takes ``samples`` of
   them resampled by those weights (:func:`resample`).  ``DEALS_TRUE`` (``omniscient`` only, a
   research player that breaks D17 on purpose): the true hands, passed
   through their own argument.
2. **Rollouts.**  Every legal move is played and the round rolled out to its
   end with the built-in ``policy`` at every seat (:func:`policy_move`: a
   built-in id, or :data:`P_LEARNED`, the shipped ``learned`` network; with
   ``explore > 0`` a rollout move with a choice is, with that
   probability, a uniformly random legal one), through the step API
   (:mod:`domeng.engine.step`), so every rule in force applies.  All moves
   of one deal share the rollout's random numbers (common random numbers).
   With ``leaf >= 0`` the rollout is truncated: after the move and ``leaf``
   more plies, a round still in progress is valued by the learned value
   (:func:`truncated_value`).
3. **Value** (:func:`leaf_value`): minus the stones the seat gains by the
   round's end (stones are penalties), plus ``CAMAT_BONUS`` if the engine
   makes it CAMAT (D15), minus ``later[d]``, ``d`` the seat's distance after
   the next round's starter (D4; zeros: this round only, ``nsearch``'s
   ``NEXT_START`` otherwise).  At a truncated leaf: minus the stones gained
   so far plus :func:`domeng.players.value.value_of`, a linear value of the
   full-information position fitted on Monte Carlo returns of expert
   self-play (``later`` is not applied there).  Its input is the
   determinized deal, drawn from the seat's observation, so D17 holds.

The move with the best total is played (ties: the first).  Every random
number comes from the seat's generator, in the same order for every
configuration: the deals (and the resampling), then one rollout seed per
deal; games with a search player are reproducible from the seed.

A new rollout player is one more id in :func:`policy_move` (issue 25: the
learned policy is :data:`P_LEARNED`; it reads only what the rollout state
keeps of the observation, the public fields and the hand of the seat to
move in the determinized deal, so D17 holds), the learned value is
:func:`truncated_value` (``leaf``), the learned opponent model the
``model`` of :func:`model_log_likelihood`.

The core is compiled once (every configuration has the same type: a
configuration's numbers are read at run time, not compiled in), and each
player name is a small compiled function around it (:func:`make_strategy`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from domeng.core.bits import popcount
from domeng.core.defaults import N_BUILTIN, P_EXPERT, P_HEAVY, P_RANDOM
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
from domeng.players.heuristics import builtin_choose, heavy_strategy
from domeng.players.learned import (
    learned_pick,
    learned_scores,
    load_weights,
)
from domeng.players.scoring import compile_player, runtime_ints
from domeng.players.value import load_value_weights, value_of

#: the value of becoming CAMAT (D15), in stones
CAMAT_BONUS = 10.0
#: deal source: the determinizer (every player that sees only its observation)
DEALS_SAMPLED = 0
#: deal source: the true hands (``omniscient``, research only: breaks D17)
DEALS_TRUE = 1
#: with inference, candidate deals drawn per rolled-out deal
CANDIDATES = 4
_UNIT = 1.0 / 9007199254740992.0  # 2**-53: a uniform draw from the top 53 bits
#: the rollout id of the ``learned`` network (a rollout player only, not a
#: kernel seat id: the kernel's players end at ``N_BUILTIN - 1``)
P_LEARNED = N_BUILTIN
#: the shipped learned weights (their SHA-256 checked at load); compiled in as
#: constants, and a new weights file changes ``learned.WEIGHTS_SHA256``, so the
#: package's numba cache is rebuilt (:mod:`domeng.core.numba_cache`)
_LEARNED_W = load_weights()[0]
#: the shipped value weights (:mod:`domeng.players.value`; SHA-256 checked at
#: load, compiled in as constants like ``_LEARNED_W``)
_VALUE_W = load_value_weights()[0]
#: ``leaf``: no truncation (every rollout plays to the round's end)
NO_LEAF = -1
#: ``cap``: no cap (``samples`` deals for every move, however many there are)
NO_CAP = 0


class SearchConfig(NamedTuple):
    """One configuration of :func:`search_core` (make it with :func:`config`,
    which checks and types the fields)."""

    #: deals rolled out per decision
    samples: int
    #: the built-in player id of the rollouts, at every seat
    policy: int
    #: inference temperature: 0, uniform deals; > 0, deals weighted by the others' plays
    beta: float
    #: the probability that a rollout move with a choice is a random legal one
    explore: float
    #: ``float64[5]``: subtracted from a rollout's value, by the seat's distance
    #: after the next round's starter (zeros: this round only)
    later: np.ndarray
    #: :data:`DEALS_SAMPLED` or :data:`DEALS_TRUE`
    deals: int
    #: with inference, candidate deals per rolled-out deal
    candidates: int
    #: plies rolled out after the move before the learned value is taken
    #: (:data:`NO_LEAF`: to the round's end)
    leaf: int
    #: with inference, whose move scores weight the deals: ``P_EXPERT`` or
    #: :data:`P_LEARNED` (the learned opponent model)
    model: int
    #: at most this many rollouts a decision, the samples shared among the
    #: moves (:func:`samples_for`; :data:`NO_CAP`: ``samples`` for every move)
    cap: int


def config(
    samples: int,
    policy: int = P_EXPERT,
    beta: float = 0.0,
    explore: float = 0.0,
    later=None,
    deals: int = DEALS_SAMPLED,
    candidates: int = CANDIDATES,
    leaf: int = NO_LEAF,
    model: int = P_EXPERT,
    cap: int = NO_CAP,
) -> SearchConfig:
    """A checked :class:`SearchConfig`, its fields of the types the compiled
    core was compiled for (so every configuration runs the same machine code).

    Parameters
    ----------
    samples : int
        Deals rolled out per decision, at least 1.
    policy : int
        The rollout player: a built-in id (``domeng.core.defaults.PLAYER_IDS``)
        or :data:`P_LEARNED`.
    beta : float
        Inference temperature (0: uniform deals).
    explore : float
        Epsilon of the rollouts, a probability.
    later : array of 5 floats, optional
        The value of the next round's seats (default zeros).
    deals : int
        :data:`DEALS_SAMPLED` or :data:`DEALS_TRUE`.
    candidates : int
        Candidate deals per rolled-out deal with inference.
    leaf : int
        Truncated rollouts: after the move and ``leaf`` more plies, the
        learned value (:func:`truncated_value`); :data:`NO_LEAF` (default):
        every rollout to the round's end.
    model : int
        With inference, the opponent model: ``P_EXPERT`` (the expert's move
        scores) or :data:`P_LEARNED` (the learned network's).
    cap : int
        At most ``cap`` rollouts a decision (:func:`samples_for`), so that a
        decision's time has a bound whatever the number of legal moves;
        :data:`NO_CAP` (default): ``samples`` for every move.

    Returns
    -------
    SearchConfig
        The record :func:`search_core` reads.

    Example
    -------
    >>> from domeng.core.defaults import P_HEAVY
    >>> config(400, P_HEAVY).samples
    400
    """
    if int(samples) < 1:
        raise ValueError("samples must be >= 1")
    if not 0 <= int(policy) <= P_LEARNED:
        raise ValueError(f"unknown rollout player id {policy!r}")
    if not float(beta) >= 0.0:
        raise ValueError("beta must be >= 0")
    if not 0.0 <= float(explore) <= 1.0:
        raise ValueError("explore must be a probability (0 to 1)")
    values = np.zeros(5) if later is None else np.array(later, dtype=np.float64)
    if values.shape != (5,):
        raise ValueError("later must hold 5 values")
    if deals not in (DEALS_SAMPLED, DEALS_TRUE):
        raise ValueError(f"unknown deal source {deals!r}")
    if int(candidates) < 1:
        raise ValueError("candidates must be >= 1")
    if int(leaf) != leaf or int(leaf) < NO_LEAF:
        raise ValueError("leaf must be a whole number of plies >= 0 (or NO_LEAF)")
    if model not in (P_EXPERT, P_LEARNED):
        raise ValueError(f"unknown opponent model {model!r}")
    if int(cap) != cap or int(cap) < NO_CAP:
        raise ValueError("cap must be a whole number of rollouts >= 1 (or NO_CAP)")
    return SearchConfig(
        int(samples),
        int(policy),
        float(beta),
        float(explore),
        values,
        int(deals),
        int(candidates),
        int(leaf),
        int(model),
        int(cap),
    )


def _key(cfg: SearchConfig) -> tuple:
    return (*cfg[:4], tuple(float(v) for v in cfg.later), *cfg[5:])


def runtime_config(cfg: SearchConfig) -> tuple[np.ndarray, np.ndarray]:
    """The whole numbers and the reals of ``cfg`` as two arrays, for a
    compiled player's closure (read at run time: no compile per value, see
    :func:`domeng.players.scoring.runtime_ints`); :func:`config_from` makes
    the record again inside compiled code."""
    ints = runtime_ints(
        cfg.samples, cfg.policy, cfg.deals, cfg.candidates, cfg.leaf, cfg.model, cfg.cap
    )
    floats = np.concatenate(([cfg.beta, cfg.explore], cfg.later)).astype(np.float64)
    return ints, floats


@njit(cache=True)
def config_from(ints, floats):
    """The :class:`SearchConfig` of :func:`runtime_config`'s two arrays."""
    return SearchConfig(
        ints[0],
        ints[1],
        floats[0],
        floats[1],
        floats[2:7].copy(),
        ints[2],
        ints[3],
        ints[4],
        ints[5],
        ints[6],
    )


# ---------------------------------------------------------------- rollouts
@njit(cache=True)
def learned_choose(obs, moves, n_moves, rng):
    """The shipped ``learned`` player's move index (its network, ties as
    :func:`domeng.players.scoring.pick_best`), called from the rollouts (not
    inlined: the core compiles as fast as before)."""
    return learned_pick(_LEARNED_W, obs, moves, n_moves, rng)


@njit(cache=True, inline="always")
def policy_move(S, n, policy, s_rng):
    """The action of rollout player ``policy`` (a built-in id or
    :data:`P_LEARNED`) for the seat to move in ``S`` (``n`` legal moves in
    ``S.moves``; 0: ``PASS``), drawing from ``s_rng``; the rollout player of
    every search player.  It reads the rollout state's observation with the
    mover's seat and hand put in: what that seat would observe in the
    determinized deal (D17)."""
    if n == 0:
        return E.PASS
    if n == 1:
        return S.moves[0]
    if policy == P_HEAVY:  # reads no observation field: none kept up to date
        return S.moves[heavy_strategy(S.obs, S.hist, S.moves, n, s_rng)]
    s = S.ctl[E.C_SEAT]
    S.obs[OBS_SEAT] = s
    S.obs[OBS_HAND] = S.hands[s]
    if policy == P_LEARNED:
        return S.moves[learned_choose(S.obs, S.moves, n, s_rng)]
    return S.moves[builtin_choose(policy, S.obs, S.hist, S.moves, n, s_rng)]


@njit(cache=True, inline="always")
def keeps_public_fields(policy):
    """Whether the rollouts must keep the observation's public fields up to
    date (hand sizes, voids, the history) for ``policy`` to read."""
    return policy != P_HEAVY and policy != P_RANDOM


@njit(cache=True, inline="always")
def seat_value(S, obs, p):
    """The value of a settled rollout for seat ``p``: minus the stones it
    gained since ``obs`` (stones are penalties), plus ``CAMAT_BONUS`` if the
    engine made it CAMAT (D15)."""
    value = float(obs[OBS_STONES + p] - E.held_at_settlement(S, p))
    if S.w[K.W_CAMAT] == p:
        value += CAMAT_BONUS
    return value


@njit(cache=True, inline="always")
def leaf_value(S, cfg, obs, me):
    """A rollout's value for ``me`` (:func:`seat_value`) less ``cfg.later``
    at its distance after the next round's starter (D4)."""
    return seat_value(S, obs, me) - cfg.later[(me - E.next_starter(S)) % 5]


@njit(cache=True)
def truncated_value(S, obs, me):
    """The value for ``me`` of a rollout stopped in a round still in
    progress: minus the stones it gained since ``obs`` (a PASS is paid at
    once, D6, D7) plus the learned value of the position
    (:func:`domeng.players.value.value_of`: the rest of the round's stones
    and the CAMAT bonus, D15, expected from every hand of the determinized
    deal)."""
    return float(obs[OBS_STONES + me] - S.obs[OBS_STONES + me]) + value_of(_VALUE_W, S, me)


@njit(cache=True)
def rollout(S, cfg, obs, w0, hands, move, seed, s_rng):
    """Play ``move`` for the observer of ``obs`` from its position with
    ``hands`` for every seat (``w0``: the round's counters,
    :func:`domeng.engine.kernel.counters_from_history`), then the rest of the
    round with ``cfg.policy`` at every seat (``cfg.explore``: epsilon) on the
    rollout state ``S``, its generator ``s_rng`` started at ``seed``; returns
    :func:`leaf_value`, or with ``cfg.leaf >= 0`` :func:`truncated_value`
    once ``cfg.leaf`` plies after the move leave the round in progress."""
    E.set_position(S, obs, w0, hands)
    if keeps_public_fields(cfg.policy):
        S.ctl[E.C_FULL] = 1
    s_rng[0] = seed
    action = move
    plies = 0
    while not E.step(S, action):  # one call of the (inlined) step: compiled once
        if plies == cfg.leaf:  # never with NO_LEAF
            return truncated_value(S, obs, obs[OBS_SEAT])
        plies += 1
        n = E.legal_moves(S)
        if cfg.explore > 0.0 and n > 1 and (next64(s_rng) >> np.uint64(11)) * _UNIT < cfg.explore:
            action = S.moves[randbelow(s_rng, n)]
        else:
            action = policy_move(S, n, cfg.policy, s_rng)
    return leaf_value(S, cfg, obs, obs[OBS_SEAT])


# ---------------------------------------------------------------- inference
@njit(cache=True, inline="always")
def _model_scores(model, obs, moves, n, out):
    """The opponent model's score of each of the ``n`` moves for the seat of
    ``obs`` into ``out``: the expert's (``P_EXPERT``) or the learned
    network's (:data:`P_LEARNED`)."""
    if model == P_LEARNED:
        learned_scores(_LEARNED_W, obs, moves, n, out)
    else:
        ectx = decision_context(obs)
        for i in range(n):
            out[i] = move_score(EXPERT_W, obs, moves[i], ectx)


@njit(cache=True)
def log_likelihood(obs, hist, hands, beta, r_obs, moves):
    """Log-probability of the other seats' plays this round (after the lead)
    under a softmax of the expert's move scores, if the hands were
    ``hands``; replayed from the public history."""
    return model_log_likelihood(P_EXPERT, obs, hist, hands, beta, r_obs, moves)


@njit(cache=True)
def model_log_likelihood(model, obs, hist, hands, beta, r_obs, moves):
    """:func:`log_likelihood` under the opponent model ``model``
    (:func:`_model_scores`: ``P_EXPERT`` or :data:`P_LEARNED`)."""
    me = obs[OBS_SEAT]
    scores = np.empty(64)
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
                _model_scores(model, r_obs, moves, n, scores)
                actual = t * 2 + hist[k, H_END]
                top = -1e300
                sa = 0.0
                for i in range(n):
                    sc = beta * scores[i]
                    if sc > top:
                        top = sc
                    if moves[i] == actual:
                        sa = sc
                z = 0.0
                for i in range(n):
                    z += math.exp(beta * scores[i] - top)
                ll += sa - top - math.log(z)
        left, right = ends_after(t, hist[k, H_END], left, right)
        chain |= np.int64(1) << t
        h[p] &= ~(np.int64(1) << t)
    return ll


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
    u = (next64(rng) >> np.uint64(11)) * _UNIT * step
    acc = w[0]
    j = 0
    for i in range(n):
        target = u + i * step
        while acc < target and j < k - 1:
            j += 1
            acc += w[j]
        picks[i] = j


@njit(cache=True)
def inferred_deals(cfg, obs, hist, rng, dealer, samples):
    """With inference (``cfg.beta > 0``): ``cfg.candidates * samples``
    deals from the prepared ``dealer``, each weighted by
    :func:`log_likelihood`, and the ``samples`` picks resampled from them
    (:func:`resample`); two empty arrays otherwise."""
    if cfg.beta <= 0.0 or cfg.deals != DEALS_SAMPLED:
        return np.zeros((0, 5), dtype=np.int64), np.zeros(0, dtype=np.int64)
    k = cfg.candidates * samples
    deals = np.zeros((k, 5), dtype=np.int64)
    ll = np.zeros(k)
    hands = np.zeros(5, dtype=np.int64)
    r_obs = np.zeros(OBS_LEN, dtype=np.int64)
    s_moves = np.zeros(64, dtype=np.int64)
    for j in range(k):
        draw(obs, dealer, rng, hands)
        deals[j, :] = hands
        ll[j] = model_log_likelihood(cfg.model, obs, hist, hands, cfg.beta, r_obs, s_moves)
    picks = np.zeros(samples, dtype=np.int64)
    resample(ll, picks, rng)
    return deals, picks


# ---------------------------------------------------------------- the core
@njit(cache=True, inline="always")
def samples_for(cfg, n_moves):
    """The deals rolled out for each of ``n_moves`` moves: ``cfg.samples``,
    or with a cap the most that keep ``n_moves`` times it within
    ``cfg.cap``, but at least 1 (a cap below the number of moves still gives
    every move one rollout).

    >>> samples_for(config(1000, cap=3000), 2), samples_for(config(1000, cap=3000), 5)
    (1000, 600)
    """
    if cfg.cap == NO_CAP:
        return cfg.samples
    return max(1, min(cfg.samples, cfg.cap // max(n_moves, 1)))


@njit(cache=True)
def search_core(cfg, obs, hist, moves, n_moves, rng, true_hands):
    """The index into ``moves`` (``n_moves`` legal moves) that configuration
    ``cfg`` plays for the observer of ``obs`` (``hist``: the round's public
    history; ``rng``: the seat's generator).  ``true_hands`` (five masks) is
    read only when ``cfg.deals`` is :data:`DEALS_TRUE`; every other player
    passes any ``int64[5]``.  See the module's docstring."""
    if n_moves == 1:
        return 0
    dealer = new_dealer()
    if cfg.deals == DEALS_SAMPLED and not prepare(obs, dealer):
        raise ValueError("no deal of the unseen tiles is consistent with the observation")
    w0 = np.zeros(K.W_LEN, dtype=np.int64)
    s_rng = np.zeros(1, dtype=np.uint64)
    S = E.new_rollout_state(obs[OBS_RULES : OBS_RULES + R_LEN].copy())
    K.counters_from_history(obs, hist, w0)
    samples = samples_for(cfg, n_moves)
    deals, picks = inferred_deals(cfg, obs, hist, rng, dealer, samples)
    hands = np.zeros(5, dtype=np.int64)
    totals = np.zeros(n_moves)
    for d in range(samples):
        if cfg.deals == DEALS_TRUE:
            hands[:] = true_hands
        elif picks.shape[0] > 0:
            hands[:] = deals[picks[d], :]
        else:
            draw(obs, dealer, rng, hands)
        seed = next64(rng)
        for i in range(n_moves):
            totals[i] += rollout(S, cfg, obs, w0, hands, moves[i], seed, s_rng)
    best = 0
    for i in range(1, n_moves):
        if totals[i] > totals[best]:
            best = i
    return best


_MADE: dict[tuple, object] = {}


def make_strategy(cfg: SearchConfig, name: str):
    """The compiled player (the signature of
    :data:`domeng.players.scoring.STRATEGY_SIG`) that plays configuration
    ``cfg`` of :func:`search_core`, named ``name``; one per configuration
    (the same configuration asked again is the same function).

    Parameters
    ----------
    cfg : SearchConfig
        From :func:`config`; its deal source must be :data:`DEALS_SAMPLED`
        (a player sees only its observation, D17).
    name : str
        The compiled function's name (``search_400``).

    Returns
    -------
    numba dispatcher
        ``strategy(obs, hist, moves, n_moves, rng) -> index``.

    Example
    -------
    >>> from domeng.core.defaults import P_HEAVY
    >>> fn = make_strategy(config(8, P_HEAVY), "search_8")  # doctest: +SKIP
    >>> fn is make_strategy(config(8, P_HEAVY), "search_8")  # doctest: +SKIP
    True
    """
    if cfg.deals != DEALS_SAMPLED:
        raise ValueError("a player sees only its observation: its deals are sampled (D17)")
    key = _key(cfg)
    if key not in _MADE:
        ints, floats = runtime_config(cfg)
        no_hands = np.zeros(5, dtype=np.int64)

        def strategy(obs, hist, moves, n_moves, rng):
            return search_core(
                config_from(ints, floats), obs, hist, moves, n_moves, rng, no_hands.copy()
            )

        strategy.__name__ = name
        _MADE[key] = compile_player(strategy)
    return _MADE[key]


__all__ = [
    "CAMAT_BONUS",
    "CANDIDATES",
    "DEALS_SAMPLED",
    "DEALS_TRUE",
    "NO_LEAF",
    "P_LEARNED",
    "SearchConfig",
    "config",
    "keeps_public_fields",
    "leaf_value",
    "learned_choose",
    "log_likelihood",
    "make_strategy",
    "model_log_likelihood",
    "policy_move",
    "resample",
    "rollout",
    "search_core",
    "seat_value",
    "truncated_value",
]
