"""The bookkeeping once: a round's outcome into a table's aggregates.

A finished round is told as one *outcome*, a tuple of twelve integers
(:data:`OUTCOME_FIELDS`); :func:`accumulate` adds it to the table's
aggregates (the ``A_*`` slots of :mod:`domeng.core.layout`), and
:func:`flow` adds one part of an award (D7: from the table or a seat, or
unpaid).  These are the only writers of the aggregates: the step API's
driver (:mod:`domeng.engine.kernel`), the aggregate loop
(:mod:`domeng.engine.fast`) and the reference batch
(:mod:`domeng.batch.reference`) each build the outcome their own way and
ask these.

Per-seat counts travel packed, :data:`SEAT_BITS` bits a seat (seat ``p``'s
count is ``(x >> (SEAT_BITS * p)) & SEAT_MASK``): a loop adds
``1 << (SEAT_BITS * s)`` in a register where it used to add to memory.
"""

from __future__ import annotations

from numba import njit

from domeng.core import layout as L
from domeng.core.bits import uidx as _u
from domeng.engine.rulebook import UNPAID

#: the fields of an outcome, in order: the end kind (``K_*``), the winner,
#: the starter, the CUCUQ (-1: none), the seat that became CAMAT (D15; -1:
#: none) and the rounds since the CAMAT before (its gap), the round's turns
#: and tiles played, the per-seat counts of passes (D6, with a MANGUNO's
#: penalised closing pass, D11), of PASSEBUNGE and of MAPPAKULING (D8),
#: packed, and the MATTIKKENG (D12) as a mask of seats
OUTCOME_FIELDS = (
    "kind",
    "winner",
    "starter",
    "cucuq",
    "camat",
    "gap",
    "turns",
    "tiles",
    "passes",
    "passebunge",
    "mappakuling",
    "mattikkeng",
)
#: bits a seat in the packed per-seat counts (a seat never passes or plays
#: 4096 times in a round)
SEAT_BITS = 12
SEAT_MASK = (1 << SEAT_BITS) - 1
#: one in each seat's field: ``x * _ONES`` has the sum of ``x``'s fields in
#: the top one (:func:`seat_total`)
_ONES = sum(1 << (SEAT_BITS * p) for p in range(5))


@njit(cache=True)
def seat_total(x):
    """The sum over the seats of the packed per-seat counts ``x`` (a
    multiply: the top field of ``x * (1 + 2**SEAT_BITS + ...)`` adds them all).

    >>> seat_total((2 << SEAT_BITS) | (3 << (4 * SEAT_BITS)) | 1)
    6
    """
    return ((x * _ONES) >> (4 * SEAT_BITS)) & SEAT_MASK


@njit(cache=True)
def packed(counts, off):
    """Five per-seat counts ``counts[off : off + 5]`` packed (seat ``p``'s at
    bit ``SEAT_BITS * p``), and set back to 0: a loop that adds
    ``counts[off + s] += c`` (one add to memory) packs them once a round.

    >>> import numpy as np
    >>> c = np.array([0, 1, 0, 2, 0])
    >>> packed(c, 0) == (1 << SEAT_BITS) | (2 << (3 * SEAT_BITS)), c.tolist()
    (True, [0, 0, 0, 0, 0])
    """
    x = 0
    for p in range(5):
        x |= counts[off + p] << (SEAT_BITS * p)
        counts[off + p] = 0
    return x


@njit(cache=True, inline="always")
def flow(agg, src, dest, amount, reason):
    """One part of an award (D7) into the aggregates: ``amount`` stones to
    ``dest`` for ``reason`` from the table (``src`` -1), from seat ``src``,
    or unpaid (``src`` :data:`domeng.engine.rulebook.UNPAID`); adds 0
    for a part of nothing (branch-free for the aggregate loop)."""
    if src == UNPAID:
        agg[_u(L.A_UNPAID + dest * 7 + reason)] += amount
    else:
        agg[_u(L.A_FLOW + ((src + 1) * 5 + dest) * 7 + reason)] += amount


@njit(cache=True, inline="always")
def accumulate(agg, outcome):
    """Add a finished round's ``outcome`` (:data:`OUTCOME_FIELDS`) to the
    table's aggregates ``agg``; the flows of stones are added as they are
    paid (:func:`flow`).

    >>> import numpy as np
    >>> agg = np.zeros(L.AGG_LEN, dtype=np.int64)
    >>> accumulate(agg, (L.K_CEKI, 3, 1, 2, -1, 0, 17, 14, 1 << SEAT_BITS, 0, 1 << 36, 0))
    >>> int(agg[L.A_ROUNDS]), int(agg[L.A_WINS + 3 * 5 + L.K_CEKI]), int(agg[L.A_PASSES + 1])
    (1, 1, 1)
    >>> int(agg[L.A_MAPPAKULING + 3]), int(agg[L.A_CUCUQ + 2]), int(agg[L.A_ANY_PASS_ROUNDS])
    (1, 1, 1)
    """
    kind, winner, starter, cucuq, camat, gap, turns, tiles, passes, pbs, mks, matt = outcome
    agg[L.A_ROUNDS] += 1
    agg[L.A_TURNS] += turns
    agg[L.A_TILES] += tiles
    agg[_u(L.A_TILES_HIST + tiles)] += 1
    agg[_u(L.A_TURNS_HIST + min(turns, L.TURNS_BINS - 1))] += 1
    agg[_u(L.A_WINS + winner * 5 + kind)] += 1
    off = winner - starter
    off += 5 if off < 0 else 0
    agg[_u(L.A_WINS_OFFSET + off * 5 + kind)] += 1
    agg[_u(L.A_STARTS + starter)] += 1
    # the per-seat counts, each skipped when no seat has one (the aggregate
    # loop's speed: most rounds have no MATTIKKENG, many no PASSEBUNGE)
    for p in range(5):
        np_ = (passes >> (SEAT_BITS * p)) & SEAT_MASK
        agg[L.A_PASSES + p] += np_
        agg[L.A_PASS_ROUNDS + p] += np_ != 0
    agg[L.A_ANY_PASS_ROUNDS] += passes != 0
    if pbs:
        for p in range(5):
            npb = (pbs >> (SEAT_BITS * p)) & SEAT_MASK
            agg[L.A_PASSEBUNGE + p] += npb
            agg[L.A_PASSEBUNGE_ROUNDS + p] += npb != 0
        agg[L.A_ANY_PASSEBUNGE_ROUNDS] += 1
    if mks:
        for p in range(5):
            agg[L.A_MAPPAKULING + p] += (mks >> (SEAT_BITS * p)) & SEAT_MASK
    if matt:
        for p in range(5):
            agg[L.A_MATTIKKENG + p] += (matt >> p) & 1
    if cucuq >= 0:
        agg[_u(L.A_CUCUQ + cucuq)] += 1
    if camat >= 0:
        agg[_u(L.A_CAMAT + camat)] += 1
        agg[_u(L.A_CAMAT_GAP_HIST + min(gap, L.GAP_BINS - 1))] += 1
        agg[L.A_CAMAT_GAP_SUM] += gap
