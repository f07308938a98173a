"""The one determinizer: deal the tiles a seat cannot see, uniformly among
the deals consistent with everything its observation says (D17).

Every search player (``search``, ``esearch``, ``isearch``, ``nsearch``,
``ismcts``), the inference of ``isearch`` and OpenSpiel's
``resample_from_infostate`` draw their deals here.

**What a consistent deal is.**  The tiles the observer cannot see (neither
in its hand nor on the chain) go to the other four seats and to the 3 tiles
out of play so that:

* each other seat gets exactly its hand size (``OBS_HAND_SIZE``), the out of
  play pool the rest (always 3);
* no seat gets a tile showing a number it is known to lack (``OBS_VOID``:
  each pass shows that the passer holds neither open number, D17);
* **D3**, when the observation says the round's starter is the holder of
  the highest double dealt (``OBS_D3_OPENER``, the first round of a game):
  for the double ``[n|n]`` that is the highest of [6|6], [5|5], [4|4], [3|3]
  dealt, the starter held it (it is in the starter's hand now, or the
  starter played it) and every higher one of them is out of play.  When the
  opener must lead that double (``OBS_D3_DOUBLE``, the rule
  ``opener_leads_double``) only that ``n`` is possible: if [4|4] was led,
  [6|6] and [5|5] are out of play.  With the option that lets the opener
  lead any tile the observer does not know ``n``, and every ``n`` the
  observation allows is one *case*; the starter still holds the highest
  double dealt (D3 picks the starter either way), so no other seat holds
  a double above the starter's highest.

The own hand, the chain, who played what (``OBS_PLAYED_BY``) and the
numbers of the rules are untouched: only the unseen tiles are dealt.

**How it samples (exact, rejection-free).**  The unseen tiles are taken in
a fixed order ``t_0 .. t_{k-1}``; tile ``t_i`` may go to the bins (seats
0..4, 5 = out of play) in its *allowed* mask, which the voids and the D3
case fix.  :func:`prepare` counts, for every vector of remaining bin
capacities ``c``, the number ``N(c)`` of ways to place the remaining tiles
(``N(0) = 1``; ``N(c) = sum over allowed bins b with c_b > 0 of N(c - e_b)``,
the next tile being ``t_{k - |c|}``), by dynamic programming over the
capacity vectors (``6**4 * 4`` at most in a game: about 0.1 ms), for each
D3 case.  :func:`draw` then picks a
case with probability proportional to its count and places the tiles one by
one, tile ``t_i`` into bin ``b`` with probability ``N(c - e_b) / N(c)``:
every consistent deal comes out with probability exactly ``1 / (total
number of consistent deals)``.  Counts are exact integers (at most about
``2 * 10**13``); each draw is an exact uniform integer below the count
(:func:`_below`).  No constraint is ever dropped; when no consistent deal
exists (never, for an observation of a real game) :func:`prepare` says so.

The cases are disjoint (the highest double dealt is one of them), so the
union is sampled uniformly too.  Counting once per observation and drawing
many deals from it is cheap (about ``k`` draws a deal), so a search player
calls :func:`prepare` once per decision and :func:`draw` per sample.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domeng.core.bits import lowest_bit
from domeng.core.nbrng import next64, randbelow
from domeng.core.observation import (
    OBS_CHAIN,
    OBS_D3_DOUBLE,
    OBS_D3_OPENER,
    OBS_HAND,
    OBS_HAND_SIZE,
    OBS_PLAYED_BY,
    OBS_SEAT,
    OBS_STARTER,
    OBS_VOID,
)
from domeng.core.tiles import DOUBLE_OF, TILE_HIGH, TILE_LOW

_HI = TILE_HIGH.copy()
_LO = TILE_LOW.copy()
_DOUBLE = DOUBLE_OF.copy()
_ALL = np.int64((1 << 28) - 1)
OUT = 5  #: the bin of the tiles out of play
MAX_CASES = 4  #: D3: the highest double dealt is [6|6], [5|5], [4|4] or [3|3]
#: capacity vectors: four other hands of 0..5 tiles, 0..23 out of play (3 in
#: a real game; hand-built positions may leave more)
MAX_TABLE = 6**4 * 24

# the dealer: one int64 array (offsets D_*)
D_N = 0  # unseen tiles
D_CASES = 1  # D3 cases (1 outside a D3 round)
D_SIZE = 2  # capacity vectors
D_STRIDE = 3  # [6] mixed-radix strides of the capacity vector
D_CAP = 9  # [6] the capacities: hand sizes (0 for the observer), out of play
D_TOTAL = 15  # [MAX_CASES] consistent deals of each case
D_REM = 19  # [6] scratch: the capacities left while drawing
D_TILES = 25  # [28] the unseen tiles, ascending
D_ALLOWED = D_TILES + 28  # [MAX_CASES, 28] the bins each tile may go to
D_COUNTS = D_ALLOWED + MAX_CASES * 28  # [MAX_CASES, MAX_TABLE] N(c)
DEALER_LEN = D_COUNTS + MAX_CASES * MAX_TABLE

_BIG = np.uint64(1) << np.uint64(32)


@njit(cache=True)
def new_dealer():
    """A dealer (``int64[DEALER_LEN]``) for :func:`prepare` and :func:`draw`
    (uninitialised: :func:`prepare` writes every slot it reads)."""
    return np.empty(DEALER_LEN, dtype=np.int64)


@njit(cache=True, inline="always")
def _below(rng, n):
    """An exactly uniform integer in ``[0, n)``, ``1 <= n < 2**63``."""
    if np.uint64(n) < _BIG:
        return randbelow(rng, n)
    un = np.uint64(n)
    limit = ((np.uint64(1) << np.uint64(63)) // un) * un
    u = next64(rng) >> np.uint64(1)
    while u >= limit:
        u = next64(rng) >> np.uint64(1)
    return np.int64(u % un)


@njit(cache=True)
def _allowed_by_voids(obs, d, c):
    """Case ``c``'s allowed masks from the hand sizes and the voids alone."""
    me = obs[OBS_SEAT]
    for i in range(d[D_N]):
        t = d[D_TILES + i]
        a = np.int64(1) << OUT
        for p in range(5):
            if p != me:
                v = obs[OBS_VOID + p]
                if ((v >> _HI[t]) & 1) == 0 and ((v >> _LO[t]) & 1) == 0:
                    a |= np.int64(1) << p
        d[D_ALLOWED + c * 28 + i] = a


@njit(cache=True)
def _restrict(d, c, t, mask):
    """Tile ``t`` (unseen) may go to the bins of ``mask`` only, in case ``c``."""
    for i in range(d[D_N]):
        if d[D_TILES + i] == t:
            d[D_ALLOWED + c * 28 + i] &= mask


@njit(cache=True)
def _d3_case(obs, d, c, num):
    """Case ``c``: [num|num] is the highest double dealt (D3), so the starter
    held it and every higher double is out of play; False if the observation
    rules it out."""
    me = obs[OBS_SEAT]
    o = obs[OBS_STARTER]
    seen = obs[OBS_HAND] | obs[OBS_CHAIN]
    _allowed_by_voids(obs, d, c)
    dbl = _DOUBLE[num]
    bit = np.int64(1) << dbl
    if obs[OBS_HAND] & bit:
        if me != o:
            return False
    elif obs[OBS_CHAIN] & bit:
        if (obs[OBS_PLAYED_BY + o] & bit) == 0:
            return False
    else:  # unseen: still in the starter's hand
        if o == me:
            return False
        _restrict(d, c, dbl, np.int64(1) << o)
    for h in range(num + 1, 7):
        hd = _DOUBLE[h]
        if (seen >> hd) & 1:
            return False
        _restrict(d, c, hd, np.int64(1) << OUT)
    return True


@njit(cache=True)
def _count(d, c):
    """Fill case ``c``'s table ``N(capacities)``; returns its total."""
    n = d[D_N]
    size = d[D_SIZE]
    base = D_COUNTS + c * MAX_TABLE
    al = D_ALLOWED + c * 28
    dig = d[D_REM : D_REM + 6]
    for b in range(6):
        dig[b] = 0
    d[base] = 1
    s = 0  # tiles left to place = sum of the digits
    for idx in range(1, size):
        b = 0
        while True:  # the next capacity vector (an odometer)
            dig[b] += 1
            s += 1
            if dig[b] <= d[D_CAP + b]:
                break
            s -= dig[b]
            dig[b] = 0
            b += 1
        a = d[al + n - s]  # the next tile to place
        tot = np.int64(0)
        for b in range(6):
            if dig[b] > 0 and (a >> b) & 1:
                tot += d[base + idx - d[D_STRIDE + b]]
        d[base + idx] = tot
    return d[base + size - 1]


@njit(cache=True)
def prepare(obs, d):
    """Count the deals consistent with ``obs`` into the dealer ``d`` (see the
    module's docstring); False if there is none (a corrupt observation)."""
    me = obs[OBS_SEAT]
    unseen = _ALL & ~obs[OBS_HAND] & ~obs[OBS_CHAIN]
    n = 0
    m = unseen
    while m:
        d[D_TILES + n] = lowest_bit(m)
        m &= m - 1
        n += 1
    d[D_N] = n
    size = 1
    held = 0
    for b in range(6):
        if b == OUT:
            cap = n - held
        elif b == me:
            cap = 0
        else:
            cap = obs[OBS_HAND_SIZE + b]
            held += cap
        if cap < 0 or (cap > 5 and b != OUT):
            return False
        d[D_CAP + b] = cap
        d[D_STRIDE + b] = size
        size *= cap + 1
    if size > MAX_TABLE:
        return False
    d[D_SIZE] = size
    cases = 0
    if obs[OBS_D3_OPENER]:
        for num in range(6, 2, -1):
            led = obs[OBS_D3_DOUBLE]
            if (led < 0 or led == _DOUBLE[num]) and _d3_case(obs, d, cases, num):
                cases += 1
    else:
        _allowed_by_voids(obs, d, 0)
        cases = 1
    d[D_CASES] = cases
    total = 0
    for c in range(cases):
        d[D_TOTAL + c] = _count(d, c)
        total += d[D_TOTAL + c]
    return total > 0


@njit(cache=True)
def draw(obs, d, rng, hands):
    """One deal, uniform among the consistent ones counted by :func:`prepare`
    (which must have returned True for this ``obs``), into ``hands`` (all five
    masks; the observer's is its own hand); draws from ``rng``."""
    cases = d[D_CASES]
    c = 0
    if cases > 1:
        total = 0
        for k in range(cases):
            total += d[D_TOTAL + k]
        r = _below(rng, total)
        while r >= d[D_TOTAL + c]:
            r -= d[D_TOTAL + c]
            c += 1
    me = obs[OBS_SEAT]
    for p in range(5):
        hands[p] = 0
    hands[me] = obs[OBS_HAND]
    base = D_COUNTS + c * MAX_TABLE
    al = D_ALLOWED + c * 28
    for b in range(6):
        d[D_REM + b] = d[D_CAP + b]
    idx = d[D_SIZE] - 1
    for i in range(d[D_N]):
        a = d[al + i]
        tot = d[base + idx]
        r = _below(rng, tot) if tot > 1 else 0
        pick = -1
        for b in range(6):
            if d[D_REM + b] > 0 and (a >> b) & 1:
                w = d[base + idx - d[D_STRIDE + b]]
                if r < w:
                    pick = b
                    break
                r -= w
        d[D_REM + pick] -= 1
        idx -= d[D_STRIDE + pick]
        if pick < OUT:
            hands[pick] |= np.int64(1) << d[D_TILES + i]


@njit(cache=True)
def count(obs, d):
    """The number of deals consistent with ``obs`` (0: none); fills ``d``."""
    if not prepare(obs, d):
        return 0
    total = 0
    for c in range(d[D_CASES]):
        total += d[D_TOTAL + c]
    return total


@njit(cache=True)
def determinize(obs, rng, hands):
    """:func:`prepare` and one :func:`draw` (for a single deal; a search
    drawing many deals from one observation prepares once); False if no deal
    is consistent with ``obs``."""
    d = new_dealer()
    if not prepare(obs, d):
        return False
    draw(obs, d, rng, hands)
    return True


__all__ = ["DEALER_LEN", "count", "determinize", "draw", "new_dealer", "prepare"]
