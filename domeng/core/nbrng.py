"""The SplitMix64 generator of :mod:`domeng.core.rng`, compiled for the batch engine.

A stream's state is a ``uint64`` array of length 1 (so it can be advanced in
place from any kernel function).  Outputs equal :class:`domeng.core.rng.SplitMix64`
draw for draw; the tests check it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domeng.core.rng import GAMMA, MUL1, MUL2, SEAT_SALT, TABLE_MUL

_GAMMA = np.uint64(GAMMA)
_MUL1 = np.uint64(MUL1)
_MUL2 = np.uint64(MUL2)
_TABLE_MUL = np.uint64(TABLE_MUL)
_ONE = np.uint64(1)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_M32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_SEAT_SALT = np.uint64(SEAT_SALT)
_FIVE = np.uint64(5)


@njit(cache=True, inline="always")
def mix64(z):
    z = (z ^ (z >> _S30)) * _MUL1
    z = (z ^ (z >> _S27)) * _MUL2
    return z ^ (z >> _S31)


@njit(cache=True)
def table_state(seed, table):
    """Initial state of table ``table`` (both ``uint64``); see :func:`domeng.core.rng.table_state`."""
    return mix64(mix64(seed + _GAMMA) ^ (table * _TABLE_MUL + _ONE))


@njit(cache=True)
def seat_state(seed, table, seat):
    """Initial state of a seat's generator (all ``uint64``); see :func:`domeng.core.rng.seat_state`."""
    return table_state(seed ^ _SEAT_SALT, table * _FIVE + seat)


@njit(cache=True, inline="always")
def next64_at(rng, i):
    """The next output of the stream whose state is ``rng[i]``."""
    s = rng[i] + _GAMMA
    rng[i] = s
    return mix64(s)


@njit(cache=True, inline="always")
def next64(rng):
    return next64_at(rng, 0)


@njit(cache=True, inline="always")
def randbelow_at(rng, i, n):
    """Uniform integer in [0, n) from the stream ``rng[i]`` (Lemire's method
    with rejection), as int64."""
    un = np.uint64(n)
    m = (next64_at(rng, i) >> _S32) * un
    low = m & _M32
    if low < un:
        threshold = (_TWO32 - un) % un
        while low < threshold:
            m = (next64_at(rng, i) >> _S32) * un
            low = m & _M32
    return np.int64(m >> _S32)


@njit(cache=True, inline="always")
def randbelow(rng, n):
    """Uniform integer in [0, n) from the stream ``rng[0]``."""
    return randbelow_at(rng, 0, n)
