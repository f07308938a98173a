"""The ``learned`` player: a small network over action-conditioned features,
trained by evolution strategies against a field of experts (issue 25, item 1).

For every legal move it computes a score and plays the highest (a tie
between k moves is broken with one draw ``randbelow(k)`` from the seat's
stream, :func:`domeng.players.scoring.pick_best`, as the expert does).  It
reads only its observation (D17): its own hand, the chain, the open ends,
every seat's hand size, the numbers each seat has shown it lacks by
passing (``OBS_VOID``), the stones and the table.

The score of a move is the expert's linear score on its own features
(:func:`domeng.players.expert.move_features`, the one place they are
computed) plus one hidden layer of :data:`N_HIDDEN` tanh units over
:data:`N_INPUTS` inputs: the expert's features scaled to about [0, 1] and
these (:data:`EXTRA_FEATURES`):

==================  ===========================================================
``rest_pips``       pip sum of the hand after the move (a block counts it)
``rest_tiles``      tiles left in hand after the move
``rest_doubles``    LEMPA left in hand after the move
``unseen_fits``     tiles no one has shown (not on the chain, not in hand) that
                    fit the new ends: what any other seat may play
``next2_fits``      tiles the seat after next may hold that fit the new ends
``blocked``         other seats with tiles known to lack both new ends
``table``           stones on the table (D7: what a PASS is paid from)
``my_stones``       stones this seat holds
``min_other``       the smallest hand among the other seats (one close to out)
``next_size``       tiles in the next seat's hand
``lead``            1 on a lead (no end open yet)
``options_min``     the fewer of the tiles left that fit the left or the right end
==================  ===========================================================

``score = sum_i w[i] * expert_feature[i] + sum_j v[j] * tanh(b[j] + W[j] . x)``

With ``v = 0`` and ``w`` the expert's weights the player is the expert,
move for move (a test checks); training starts there.  The weights ship in
``domeng/players/data/learned.json`` with the command, seed and commit that
made them, and the file's SHA-256 (:data:`WEIGHTS_SHA256`) is checked at
load: another file is refused in one line (:func:`load_weights`).  They come
from ``analysis/learned/train.py`` (see its README for the learning curve
and the measured strength).
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources

import numpy as np
from numba import njit, types

from domeng.core.bits import lowest_bit, popcount
from domeng.core.errors import PlayerError
from domeng.core.observation import (
    OBS_CHAIN,
    OBS_HAND_SIZE,
    OBS_LEFT,
    OBS_RIGHT,
    OBS_SEAT,
    OBS_STONES,
    OBS_VOID,
)
from domeng.core.tiles import NUMBER_MASK, TILE_IS_DOUBLE, TILE_PIPS
from domeng.engine.fast import stack_array
from domeng.engine.kernel import ends_after
from domeng.players.expert import (
    EXPERT_WEIGHTS,
    FEATURES,
    N_FEATURES,
    compile_buffered,
    decision_context,
    linear_score,
    move_features,
)
from domeng.players.scoring import compile_player, pick_best

EXTRA_FEATURES = (
    "rest_pips",
    "rest_tiles",
    "rest_doubles",
    "unseen_fits",
    "next2_fits",
    "blocked",
    "table",
    "my_stones",
    "min_other",
    "next_size",
    "lead",
    "options_min",
)
#: the network's inputs: the expert's features, then the extra ones
INPUTS = FEATURES + EXTRA_FEATURES
N_INPUTS = len(INPUTS)
#: hidden tanh units
N_HIDDEN = 16
#: the flat parameter vector: ``w`` (N_FEATURES), ``W`` (N_HIDDEN x N_INPUTS,
#: row-major), ``b`` (N_HIDDEN), ``v`` (N_HIDDEN)
N_PARAMS = N_FEATURES + N_HIDDEN * N_INPUTS + 2 * N_HIDDEN
_W0 = N_FEATURES
_B0 = _W0 + N_HIDDEN * N_INPUTS
_V0 = _B0 + N_HIDDEN
#: where each part sits in the flat parameter vector
LAYOUT = {
    "w": slice(0, _W0),
    "W": slice(_W0, _B0),
    "b": slice(_B0, _V0),
    "v": slice(_V0, N_PARAMS),
}

#: each input divided by this (counts to about [0, 1])
INPUT_SCALE = np.array(
    (12, 6, 1, 1, 1, 12, 1, 1, 6, 1, 7) + (60, 6, 3, 12, 12, 4, 25, 10, 6, 6, 1, 6),
    dtype=np.float64,
)
_INV_SCALE = 1.0 / INPUT_SCALE

#: the SHA-256 of the shipped weights file (checked at load)
WEIGHTS_SHA256 = "a14ba96efbed3537394e1b99c8a58136458841ccb0911a7e5b41201c1aedf7db"
WEIGHTS_FILE = "learned.json"

_NUM = NUMBER_MASK.copy()
_PIPS = TILE_PIPS.copy()
_DBL = TILE_IS_DOUBLE.astype(np.int64)
_ALL = np.int64((1 << 28) - 1)


def start_params(seed: int = 0, spread: float = 0.5) -> np.ndarray:
    """The training's starting point: the expert's weights, a random hidden
    layer (``W`` normal with sd ``spread``, ``b`` zero) whose output weights
    ``v`` are zero, so the player starts as the expert."""
    p = np.zeros(N_PARAMS)
    p[:N_FEATURES] = EXPERT_WEIGHTS
    p[LAYOUT["W"]] = np.random.default_rng(seed).normal(0.0, spread, N_HIDDEN * N_INPUTS)
    return p


@njit(cache=True, inline="always")
def _may_hold(obs, seat, unseen):
    """The unseen tiles ``seat`` may hold (none of the numbers it lacks)."""
    void = obs[OBS_VOID + seat]
    out = unseen
    for n in range(7):
        if (void >> n) & 1:
            out &= ~_NUM[n]
    return out


@njit(cache=True, inline="always")
def learned_context(obs):
    """What every move's inputs share: the expert's context, then (unseen
    tiles, tiles the seat after next may hold, the smallest other hand)."""
    me = obs[OBS_SEAT]
    hand, possible, void, table, race, one_left = decision_context(obs)
    unseen = _ALL & ~(obs[OBS_CHAIN] | hand)
    possible2 = _may_hold(obs, (me + 2) % 5, unseen)
    min_other = 99
    for k in range(1, 5):
        min_other = min(min_other, obs[OBS_HAND_SIZE + (me + k) % 5])
    return hand, possible, void, table, race, one_left, unseen, possible2, min_other


@njit(cache=True, inline="always")
def learned_inputs(obs, move, ctx, x):
    """Write the network's inputs of ``move`` (unscaled, :data:`INPUTS`)
    into ``x``; return the expert's features (a tuple, as
    :func:`domeng.players.expert.move_features` gives them)."""
    hand, possible, void, table, race, one_left, unseen, possible2, min_other = ctx
    f = move_features(obs, move, hand, possible, void, table, race, one_left)
    for i in range(N_FEATURES):
        x[i] = f[i]
    t = move >> 1
    nl, nr = ends_after(t, move & 1, obs[OBS_LEFT], obs[OBS_RIGHT])
    rest = hand & ~(np.int64(1) << t)
    ends = _NUM[nl] | _NUM[nr]
    pips = 0
    doubles = 0
    m = rest
    while m:  # the tiles left, lowest first
        i = lowest_bit(m)
        pips += _PIPS[i]
        doubles += _DBL[i]
        m &= m - 1
    me = obs[OBS_SEAT]
    blocked = 0
    for k in range(1, 5):
        s = (me + k) % 5
        v = obs[OBS_VOID + s]
        if obs[OBS_HAND_SIZE + s] > 0 and (v >> nl) & 1 and (v >> nr) & 1:
            blocked += 1
    j = N_FEATURES
    x[j] = pips
    x[j + 1] = popcount(rest)
    x[j + 2] = doubles
    x[j + 3] = popcount(unseen & ends)
    x[j + 4] = popcount(possible2 & ends)
    x[j + 5] = blocked
    x[j + 6] = table
    x[j + 7] = obs[OBS_STONES + me]
    x[j + 8] = min_other
    x[j + 9] = obs[OBS_HAND_SIZE + (me + 1) % 5]
    x[j + 10] = 1.0 if obs[OBS_LEFT] < 0 else 0.0
    x[j + 11] = min(popcount(rest & _NUM[nl]), popcount(rest & _NUM[nr]))
    return f


#: tanh as Lambert's continued fraction cut after 16 terms, written as one
#: ratio ``x * P(x*x) / Q(x*x)`` (exact integer coefficients, lowest power first)
_TANH_P = (
    6332659870762850625.0,
    959493919812553125.0,
    37554385678684875.0,
    581419060472250.0,
    4141161399375.0,
    14054850810.0,
    21366450.0,
    11628.0,
    1.0,
)
_TANH_Q = (
    6332659870762850625.0,
    3070380543400170000.0,
    216659917377028125.0,
    5179915266025500.0,
    53835098191875.0,
    265034329560.0,
    611080470.0,
    581400.0,
    153.0,
)


@njit(cache=True, inline="always")
def tanh(a):
    """``tanh(a)`` within 1.7e-10 of ``np.tanh`` everywhere (a test checks), in
    multiplications and one division: numba's ``np.tanh`` calls the C library
    once per hidden unit, which made the network most of the learned player's
    time; this one is inlined and runs for the hidden units side by side (the
    player about twice as fast, its moves unchanged over 100,000 rounds:
    benchmarks/README.md, session 18)."""
    x = min(max(a, -20.0), 20.0)  # past |x| = 11.6 the ratio exceeds 1 and is clipped
    y = x * x
    p = _TANH_P
    q = _TANH_Q
    num = (
        ((((((p[8] * y + p[7]) * y + p[6]) * y + p[5]) * y + p[4]) * y + p[3]) * y + p[2]) * y
        + p[1]
    ) * y + p[0]
    den = (
        ((((((q[8] * y + q[7]) * y + q[6]) * y + q[5]) * y + q[4]) * y + q[3]) * y + q[2]) * y
        + q[1]
    ) * y + q[0]
    return min(max(x * num / den, -1.0), 1.0)


@njit(cache=True, inline="always")
def _network_score(ctx, move):
    p, obs, x, c, h = ctx
    f = learned_inputs(obs, move, c, x)
    lin = linear_score(p, f)  # the expert's score on its features
    for i in range(N_INPUTS):
        x[i] *= _INV_SCALE[i]
    # the hidden units side by side: every unit's sum adds its inputs in the
    # same order as one unit at a time would (the same roundings), but the 16
    # sums no longer wait for each other's additions; then their tanh (SIMD)
    for j in range(N_HIDDEN):
        h[j] = p[_B0 + j]
    for i in range(N_INPUTS):
        xi = x[i]
        for j in range(N_HIDDEN):
            h[j] += p[_W0 + j * N_INPUTS + i] * xi
    for j in range(N_HIDDEN):
        h[j] = tanh(h[j])
    hidden = 0.0
    for j in range(N_HIDDEN):
        hidden += p[_V0 + j] * h[j]
    return lin + hidden


#: the network's inputs and hidden units, on the deciding call's stack
_inputs_scratch = stack_array(types.float64, N_INPUTS)
_hidden_scratch = stack_array(types.float64, N_HIDDEN)


@njit(cache=True, inline="always")
def learned_scores(p, obs, moves, n, out):
    """The network's score of each of the ``n`` moves into ``out`` (under
    parameters ``p``): what :func:`learned_pick` maximises, for the search's
    learned opponent model (:mod:`domeng.players.searchcore`)."""
    ctx = (p, obs, _inputs_scratch(), learned_context(obs), _hidden_scratch())
    for i in range(n):
        out[i] = _network_score(ctx, moves[i])


@njit(cache=True, inline="always")
def learned_pick(p, obs, moves, n_moves, rng):
    """Index of the move with the highest network score under parameters
    ``p``; ties broken as :func:`domeng.players.scoring.pick_best` does."""
    if n_moves == 1:
        return 0
    ctx = (p, obs, _inputs_scratch(), learned_context(obs), _hidden_scratch())
    return pick_best(_network_score, ctx, moves, n_moves, rng)


@njit(cache=True, inline="always")
def _exact_score(ctx, move):
    p, obs, x, c = ctx
    f = learned_inputs(obs, move, c, x)
    lin = linear_score(p, f)
    for i in range(N_INPUTS):
        x[i] *= _INV_SCALE[i]
    hidden = 0.0
    for j in range(N_HIDDEN):
        a = p[_B0 + j]
        row = _W0 + j * N_INPUTS
        for i in range(N_INPUTS):
            a += p[row + i] * x[i]
        hidden += p[_V0 + j] * np.tanh(a)
    return lin + hidden


@njit(cache=True, inline="always")
def learned_pick_exact(p, obs, moves, n_moves, rng):
    """:func:`learned_pick` as first written: numpy's tanh, one loop over the
    hidden units (the oracle that tests and ``benchmarks/bench_learned.py``
    compare the fast one with; the same sums in the same order)."""
    if n_moves == 1:
        return 0
    ctx = (p, obs, np.empty(N_INPUTS), learned_context(obs))
    return pick_best(_exact_score, ctx, moves, n_moves, rng)


@njit(cache=True)
def inputs_of(obs, move):
    """The network's inputs of ``move``, unscaled (for tests and analysis)."""
    x = np.empty(N_INPUTS)
    learned_inputs(obs, move, learned_context(obs), x)
    return x


def check_params(p) -> np.ndarray:
    """``p`` as a float64 vector of :data:`N_PARAMS` finite numbers, or a ValueError."""
    a = np.ascontiguousarray(p, dtype=np.float64)
    if a.shape != (N_PARAMS,) or not np.isfinite(a).all():
        raise ValueError(f"learned weights: give {N_PARAMS} finite numbers")
    return a


class TunableLearned:
    """One compiled learned player whose parameters live in a buffer that
    Python sets between games (:meth:`set`), so training compiles the player
    once (as :class:`domeng.players.expert.TunableExpert`).  Keep this object
    alive while ``player`` plays (it owns the buffer)."""

    def __init__(self) -> None:
        self.params = start_params()
        self.player = compile_buffered(learned_pick, self.params)

    def set(self, params) -> None:
        """Play with ``params`` from now on."""
        self.params[:] = check_params(params)


def _weights_text() -> bytes:
    return resources.files("domeng.players").joinpath("data").joinpath(WEIGHTS_FILE).read_bytes()


def load_checked(raw: bytes, want: str, what: str, parse):
    """``parse(document)`` of a shipped weights file whose bytes are ``raw``
    and whose SHA-256 must be ``want`` (``what`` names it in the message):
    a digest that differs, or a document ``parse`` refuses (ValueError,
    KeyError, TypeError), is one :class:`PlayerError` line.  The one loader
    of the learned player's and the learned value's weights."""
    got = hashlib.sha256(raw).hexdigest()
    if got != want:
        raise PlayerError(
            f"{what} are damaged or not the shipped ones: SHA-256 {got[:12]}... "
            f"expected {want[:12]}..."
        )
    try:
        return parse(json.loads(raw))
    except (ValueError, KeyError, TypeError) as e:
        raise PlayerError(f"{what} do not read: {e}") from None


def load_weights(data: bytes | None = None, sha256: str | None = None) -> tuple[np.ndarray, dict]:
    """The shipped parameters and their metadata (command, seed, commit).
    ``data``: the file's bytes (None: the package's file); ``sha256``: the
    expected digest (None: :data:`WEIGHTS_SHA256`).  A file whose digest
    differs, or that does not read as weights, is one :class:`PlayerError`."""
    raw = _weights_text() if data is None else data
    want = WEIGHTS_SHA256 if sha256 is None else sha256

    def parse(doc):
        return check_params(doc["params"]), {k: v for k, v in doc.items() if k != "params"}

    return load_checked(raw, want, f"the learned player's weights ({WEIGHTS_FILE})", parse)


def weights_document(params, meta: dict) -> bytes:
    """The bytes of a weights file for ``params`` with ``meta`` (the command,
    seed and commit): what :func:`load_weights` reads."""
    doc = {**meta, "inputs": list(INPUTS), "hidden": N_HIDDEN}
    doc["params"] = [float(x) for x in check_params(params)]
    return (json.dumps(doc, indent=1) + "\n").encode()


_MADE: dict[tuple[bytes, object], object] = {}


def make_learned_strategy(budget: int | None = None, params=None, pick=learned_pick) -> object:
    """The learned player compiled for the player signature (``params``:
    other parameters, None: the shipped weights; ``budget`` is not used:
    the catalogue's makers take one; ``pick``: :func:`learned_pick_exact`
    for the oracle)."""
    p = load_weights()[0] if params is None else check_params(params)
    key = (p.tobytes(), pick)
    if key not in _MADE:
        w = p.copy()

        def learned(obs, hist, moves, n_moves, rng):
            return pick(w, obs, moves, n_moves, rng)

        _MADE[key] = compile_player(learned)
    return _MADE[key]
