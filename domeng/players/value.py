"""A learned value of a full-information position: the search core's leaf
value of a truncated rollout (issue 25, item 2).

In a determinized deal the search knows every hand, so a critic that sees
every hand can value a position there: ``V(S, me)`` estimates the seat's
value from the rollout state ``S`` to the round's end, the quantity
:func:`domeng.players.searchcore.seat_value` gives for a settled rollout:
minus the stones ``me`` gains from here on (stones are penalties), plus
``CAMAT_BONUS`` if it becomes CAMAT (D15).  Its input is the search's own
determinized deal, itself drawn from the seat's observation (D17), so a
player that uses it still decides from its observation alone.

The model is linear in :data:`FEATURES` (per seat, by its distance ``d``
after ``me``: the tiles it holds, their pips, its LEMPA, the tiles that fit
an open end, whether it has played a tile this round (D6: PASSEBUNGE), its
stones, whether it is the LAST MAPPANO; then the table's stones, a lead,
ends showing the same number (D8: MAPPAKULING), an empty table, an empty
table with ``me`` holding no stones (D15), the turns taken), with one
weight vector for each distance of the seat to move after ``me``
(:data:`N_BLOCKS` blocks): ``V = W[m] . x``.  It is fitted by least squares
on Monte Carlo returns of expert self-play (games of 10 rounds, every
position of every round, once for each seat) by
``analysis/learned/train_value.py``; the weights ship in
``domeng/players/data/value.json`` with the command, seed and commit that
made them, and the file's SHA-256 (:data:`VALUE_SHA256`) is checked at load.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
from numba import njit

from domeng.core.bits import popcount
from domeng.core.observation import (
    OBS_HAS_PLAYED,
    OBS_LAST_MAPPANO,
    OBS_LEFT,
    OBS_RIGHT,
    OBS_STONES,
    OBS_TABLE,
    OBS_TURN,
)
from domeng.core.tiles import NUMBER_MASK, TILE_IS_DOUBLE, TILE_PIPS
from domeng.engine import step as E
from domeng.players.learned import load_checked

SEAT_FEATURES = ("tiles", "pips", "doubles", "fits", "has_played", "stones", "last_mappano")
GLOBAL_FEATURES = ("table", "lead", "ends_equal", "table_empty", "camat_chance", "turn")
#: the model's inputs: a constant, the per-seat ones by distance after the
#: valued seat (``tiles_d0`` .. ``last_mappano_d4``), then the global ones
FEATURES = ("bias",) + tuple(f"{f}_d{d}" for d in range(5) for f in SEAT_FEATURES) + GLOBAL_FEATURES
N_VALUE_FEATURES = len(FEATURES)
#: one weight vector for each distance of the seat to move after the valued seat
N_BLOCKS = 5
N_VALUE_PARAMS = N_BLOCKS * N_VALUE_FEATURES

#: the SHA-256 of the shipped weights file (checked at load)
VALUE_SHA256 = "5935122c0dc6483c9a0412838b6d1488a46234c924e1d9a421c0b404cb6ff8a2"
VALUE_FILE = "value.json"

_NUM = NUMBER_MASK.copy()
_PIPS = TILE_PIPS.copy()
_DBL = TILE_IS_DOUBLE.astype(np.int64)
_NS = len(SEAT_FEATURES)
_G0 = 1 + 5 * _NS


@njit(cache=True, inline="always")
def value_features(S, me, x):
    """Write the :data:`FEATURES` of the rollout state ``S`` (a round in
    progress, every hand known) for seat ``me`` into ``x``
    (``float64[N_VALUE_FEATURES]``); returns the block of the seat to move
    (its distance after ``me``)."""
    left = S.obs[OBS_LEFT]
    right = S.obs[OBS_RIGHT]
    ends = np.int64(0)
    if left >= 0:
        ends = _NUM[left] | _NUM[right]
    x[0] = 1.0
    for d in range(5):
        s = (me + d) % 5
        h = S.hands[s]
        pips = 0
        doubles = 0
        m = h
        for i in range(28):
            if (m >> i) & 1:
                pips += _PIPS[i]
                doubles += _DBL[i]
        j = 1 + d * _NS
        x[j] = popcount(h)
        x[j + 1] = pips
        x[j + 2] = doubles
        x[j + 3] = popcount(h & ends) if left >= 0 else popcount(h)
        x[j + 4] = S.obs[OBS_HAS_PLAYED + s]
        x[j + 5] = S.obs[OBS_STONES + s]
        x[j + 6] = 1.0 if S.obs[OBS_LAST_MAPPANO] == s else 0.0
    table = S.obs[OBS_TABLE]
    x[_G0] = table
    x[_G0 + 1] = 1.0 if left < 0 else 0.0
    x[_G0 + 2] = 1.0 if left >= 0 and left == right else 0.0
    x[_G0 + 3] = 1.0 if table == 0 else 0.0
    x[_G0 + 4] = 1.0 if table == 0 and S.obs[OBS_STONES + me] == 0 else 0.0
    x[_G0 + 5] = S.obs[OBS_TURN]
    return (S.ctl[E.C_SEAT] - me) % 5


@njit(cache=True)
def value_of(W, S, me):
    """``V(S, me)``: the learned value for seat ``me`` of the rollout state
    ``S`` (a round in progress) under weights ``W``
    (``float64[N_BLOCKS, N_VALUE_FEATURES]``)."""
    x = np.empty(N_VALUE_FEATURES)
    m = value_features(S, me, x)
    v = 0.0
    for i in range(N_VALUE_FEATURES):
        v += W[m, i] * x[i]
    return v


def check_value_params(p) -> np.ndarray:
    """``p`` as a float64 ``(N_BLOCKS, N_VALUE_FEATURES)`` array of finite
    numbers, or a ValueError."""
    a = np.ascontiguousarray(p, dtype=np.float64)
    if a.size != N_VALUE_PARAMS or not np.isfinite(a).all():
        raise ValueError(f"value weights: give {N_VALUE_PARAMS} finite numbers")
    return a.reshape(N_BLOCKS, N_VALUE_FEATURES)


def _weights_text() -> bytes:
    return resources.files("domeng.players").joinpath("data").joinpath(VALUE_FILE).read_bytes()


def load_value_weights(
    data: bytes | None = None, sha256: str | None = None
) -> tuple[np.ndarray, dict]:
    """The shipped value weights (``(N_BLOCKS, N_VALUE_FEATURES)``) and their
    metadata (command, seed, commit, fit).  ``data``: the file's bytes
    (None: the package's file); ``sha256``: the expected digest (None:
    :data:`VALUE_SHA256`).  A file whose digest differs, or that does not
    read as weights, is one :class:`PlayerError`."""
    raw = _weights_text() if data is None else data
    want = VALUE_SHA256 if sha256 is None else sha256

    def parse(doc):
        if tuple(doc["features"]) != FEATURES:
            raise ValueError("the features differ from value.FEATURES")
        p = check_value_params(doc["params"])
        return p, {k: v for k, v in doc.items() if k != "params"}

    return load_checked(raw, want, f"the learned value's weights ({VALUE_FILE})", parse)


def value_document(params, meta: dict) -> bytes:
    """The bytes of a weights file for ``params`` with ``meta`` (the command,
    seed, commit, fit): what :func:`load_value_weights` reads."""
    doc = {**meta, "features": list(FEATURES), "blocks": N_BLOCKS}
    doc["params"] = [float(x) for x in check_value_params(params).ravel()]
    return (json.dumps(doc, indent=1) + "\n").encode()


__all__ = [
    "FEATURES",
    "N_BLOCKS",
    "N_VALUE_FEATURES",
    "VALUE_FILE",
    "VALUE_SHA256",
    "check_value_params",
    "load_value_weights",
    "value_document",
    "value_features",
    "value_of",
]
