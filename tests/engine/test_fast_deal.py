"""The aggregate-mode loop's deal (D2, ``engine/fast.py``) against the kernel's.

The fast deal takes its 27 draws in one vectorized loop and redoes the deal
draw by draw only when some draw needs Lemire's rejection test, about once
in 10^7 deals: so rare that the agreement tests never reach that branch.
Here the deal stream's state is built so that the draw of every step of the
shuffle, in turn, needs the test (and is rejected where the bound is not a
power of two), and the hands and the stream's state after must equal the
kernel's deal from the same state.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domeng.core.rng import GAMMA, MUL1, MUL2
from domeng.engine import fast as F
from domeng.engine import kernel as K

M64 = (1 << 64) - 1


def _unshift(y, k):
    """The inverse of ``x ^ (x >> k)``."""
    x = y
    for _ in range(64 // k + 1):
        x = y ^ (x >> k)
    return x


def _unmix(out):
    """The state whose SplitMix64 output (``mix64``) is ``out``."""
    z = _unshift(out, 31)
    z = (z * pow(MUL2, -1, 1 << 64)) & M64
    z = _unshift(z, 27)
    z = (z * pow(MUL1, -1, 1 << 64)) & M64
    return _unshift(z, 30)


@njit(cache=False)
def _fast_deal(r, hands):
    wk = F.stack_scratch()
    r = F._deal(np.uint64(r), wk, True)
    for s in range(5):
        hands[s] = wk[F.W_H28 + s]
    return r


def _kernel_deal(r):
    rng = np.array([r], dtype=np.uint64)
    perm = np.zeros(28, dtype=np.int64)
    hands = np.zeros(5, dtype=np.int64)
    K.deal(rng, perm, hands)
    return int(rng[0]), hands


def _same_deal(r):
    hands = np.zeros(5, dtype=np.int64)
    after = int(_fast_deal(np.uint64(r), hands))
    k_after, k_hands = _kernel_deal(r)
    np.testing.assert_array_equal(hands, k_hands)
    assert after == k_after
    assert int(np.bitwise_or.reduce(hands)).bit_count() == 25


def test_fast_deal_equals_the_kernel_deal():
    rnd = np.random.default_rng(5)
    for r in rnd.integers(0, 2**63, size=300, dtype=np.int64):
        _same_deal(int(r) * 2 + 1)


def test_fast_deal_when_a_draw_needs_the_rejection_test():
    # draw k (bound 28 - k) is Lemire's product (x >> 32) * n of the output x of
    # the state r + (k + 1) * GAMMA: an output below 2^32 gives the low word 0,
    # under the rejection threshold for every bound but 16, 8, 4, 2
    for k in range(27):
        for hi in (0, 1):
            x = (hi << 32) | 12345
            r = (_unmix(x) - (k + 1) * GAMMA) & M64
            _same_deal(r)
