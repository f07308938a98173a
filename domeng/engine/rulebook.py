"""The rules of Domeng, compiled: one small pure function per decision.

Both compiled drivers ask these functions and nothing else for a rule: the
step API (:mod:`domeng.engine.kernel` under :mod:`domeng.engine.step`, the
state in a record) and the aggregate loop (:mod:`domeng.engine.fast`, the
round in local variables); :func:`domeng.engine.step.preview` asks them what
a move would do.  The reference engine (:mod:`domeng.engine.reference`) is the
independent oracle and asks none of them.

Each function is scalar and mask-based, in the style that makes
:mod:`domeng.engine.fast` fast (see its docstring): a hand is a 56-bit mask
in which tile ``t`` owns bits ``2t`` (its move on the left end) and ``2t+1``
(on the right end), so the legal moves are one AND with the mask of the open
ends; seats are packed 3 bits each where a list of them is needed.  The
once-a-round ones are plain ``njit`` functions (numba's ``inline="always"``
reruns its front end at every call site: compile time); the per-turn ones
(:func:`play_ends`, :func:`ends_after`, :func:`pass_award`) are
``inline="always"``, as LLVM did not inline every call of them (the
players' scores call :func:`ends_after` once per candidate move: 3-6%
of the heuristic rows of ``benchmarks/bench_engine.py``, session 10).
Where a once-a-round function reads the rules it takes the rules array
``rules`` and the offset ``at`` of the rules in it (0 for
:meth:`domeng.core.rules.Rules.to_array`, ``OBS_RULES`` for an
observation, which carries a copy); :func:`pass_award`, asked at every
pass, takes the three rule values it reads as scalars, which the aggregate
loop reads once per call.

The decisions, by id (``../docs/rules.md``): D1 :func:`next_seat`;
D3, D4 :func:`starter`; D5 :func:`end_mask`, :func:`legal_mask`,
:func:`ends_after`, :func:`play_ends`; D6 :func:`pass_award`; D7 :func:`pay`; D8..D10
:func:`cappu_end`; D11 :func:`is_block`; D12..D14 :func:`block_end`; D15
:func:`becomes_camat`; D4 :func:`next_starter`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domeng.core import layout as L
from domeng.core.bits import lowest_bit
from domeng.core.bits import uidx as _u
from domeng.core.events import TABLE
from domeng.core.rules import (
    R_CAPPU,
    R_CEKI,
    R_MANGUNO,
    R_MATTIKKENG,
    R_MATTIKKENG_REDUCED,
    R_OPENER_LEADS_DOUBLE,
    R_POLLO,
)
from domeng.core.tiles import DOUBLE_OF, NUMBER_MASK, TILE_HIGH, TILE_IS_DOUBLE, TILE_LOW, TILE_PIPS

#: the left-end bits of a 56-bit hand (bit ``2t`` of every tile ``t``)
EVEN56 = 0x0055555555555555


def _tables():
    lmove = np.zeros(7, dtype=np.int64)
    for n in range(7):
        m = 0
        for t in range(28):
            if (int(NUMBER_MASK[n]) >> t) & 1:
                m |= 1 << (2 * t)
        lmove[n] = m
    endmask = np.zeros(64, dtype=np.int64)  # at [left * 8 + right]: a shift, not a multiply
    for a in range(7):
        for b in range(7):
            endmask[a * 8 + b] = lmove[a] | (0 if a == b else lmove[b] << 1)
    return endmask


ENDMASK = _tables()
_EVEN = np.int64(EVEN56)
_PIPS = TILE_PIPS.astype(np.int64)
_PIPS_OF_MOVE = np.repeat(_PIPS, 2)  # the pips of move ``code``'s tile (``code >> 1``)
_HI = TILE_HIGH.astype(np.int64)
_LO = TILE_LOW.astype(np.int64)
_DBL = TILE_IS_DOUBLE.astype(np.int64)
_DOUBLE_OF = DOUBLE_OF.astype(np.int64)


# ---------------------------------------------------------------- D1
@njit(cache=True)
def next_seat(s):
    """D1: the seat after ``s`` clockwise, ``(s + 1) mod 5`` (branch-free).

    >>> next_seat(3), next_seat(4)
    (4, 0)
    """
    return (s + 1) * (s < 4)


# ---------------------------------------------------------------- D3, D4
@njit(cache=True)
def starter(next_starter, hands, off, wide, rules, at):
    """Who starts the round and the tile he must lead (-1: any).

    D4: ``next_starter`` (>= 0 after a first round) starts and leads any
    tile.  D3: in the first round (``next_starter < 0``) the holder of
    [6|6], else [5|5], [4|4], [3|3] starts and must lead that double
    unless the option ``opener_leads_double`` is off.

    Parameters
    ----------
    next_starter : int
        The table's next starter, -1 before the first round.
    hands, off : int64 array, int
        The five hands are ``hands[off : off + 5]``.
    wide : int
        1 for 56-bit hands (tile ``t`` at bit ``2t``), 0 for 28-bit ones.
    rules, at : int64 array, int
        The rules array and the offset of the rules in it.

    Returns
    -------
    (int, int)
        The starter and the tile he must lead (-1: any tile).

    Example
    -------
    >>> from domeng.core.rules import Rules
    >>> from domeng.core.tiles import mask_of
    >>> hands = np.array([mask_of(range(5 * s, 5 * s + 5)) for s in range(5)])
    >>> starter(-1, hands, 0, 0, Rules().to_array(), 0)  # [6|6] is out: [5|5] (tile 20)
    (4, 20)
    """
    if next_starter >= 0:
        return next_starter, -1
    for n in range(6, 2, -1):
        d = _DOUBLE_OF[n]
        for s in range(5):
            if (hands[off + s] >> (d << wide)) & 1:
                return s, d if rules[at + R_OPENER_LEADS_DOUBLE] else -1
    return -1, -1


@njit(cache=True)
def next_starter(camat, winner):
    """D4: the next round's starter, the CAMAT if there is one, else the
    round's winner.

    >>> next_starter(-1, 2), next_starter(4, 2)
    (2, 4)
    """
    return camat if camat >= 0 else winner


# ---------------------------------------------------------------- D5
@njit(cache=True)
def end_mask(left, right):
    """D5: the 56-bit mask of the moves that fit a chain with open ends
    ``left``, ``right`` (both >= 0): bit ``2t`` for tile ``t`` on the left,
    ``2t+1`` on the right, no right-end moves when both ends show the same
    number (both placements then leave the same ends: one move).

    >>> from domeng.core.tiles import tile_id
    >>> t = tile_id(2, 5)
    >>> [(int(end_mask(2, 6)) >> (2 * t + e)) & 1 for e in (0, 1)]  # [2|5] on the left only
    [1, 0]
    """
    return ENDMASK[_u((left << 3) | right)]


@njit(cache=True)
def legal_mask(hand56, left, right, must):
    """D5 (and D3's forced lead): the legal moves of a 56-bit hand as a mask
    of actions ``tile*2+end``; 0 when the seat must pass.

    Parameters
    ----------
    hand56 : int
        The seat's hand, 56-bit (tile ``t``: bits ``2t`` and ``2t+1``).
    left, right : int
        The open ends, -1 before the lead.
    must : int
        The tile the lead must be (D3), -1 for any.

    Returns
    -------
    int
        The mask: bit ``a`` set when action ``a`` is legal (a lead is end 0).

    Example
    -------
    >>> from domeng.core.tiles import tile_id
    >>> h = (3 << (2 * tile_id(6, 6))) | (3 << (2 * tile_id(1, 2)))
    >>> bin(legal_mask(h, -1, -1, -1)).count("1"), legal_mask(h, 6, 6, -1) == 1 << 54
    (2, True)
    """
    if left < 0:
        if must >= 0:
            return np.int64(1) << (2 * must)
        return hand56 & _EVEN
    return hand56 & ENDMASK[_u((left << 3) | right)]


@njit(cache=True, inline="always")
def play_ends(code, left, right):
    """D5: the open ends after move ``code`` (``tile*2+end``, not a lead) on
    a chain with open ends ``left``, ``right``: the tile joins the number on
    its end and shows its other number there.  Branch-free with masks (the
    ends are the turn loop's critical path: ends -> moves -> pick -> ends).

    >>> from domeng.core.tiles import tile_id
    >>> play_ends(2 * tile_id(2, 5) + 1, 3, 5)  # [2|5] on the right 5: shows 2
    (3, 2)
    """
    em = -(code & 1)  # 0: the left end, -1: the right end
    at = (right & em) | (left & ~em)
    v = _PIPS_OF_MOVE[_u(code)] - at
    return (left & em) | (v & ~em), (v & em) | (right & ~em)


@njit(cache=True, inline="always")
def ends_after(tile, end, left, right):
    """D5: the open ends ``(left, right)`` after ``tile`` is played on
    ``end`` (0 left, 1 right) of a chain with open ends ``left``, ``right``
    (-1, -1 before the lead: the lead shows its high number left).
    Surfaces and players ask this rather than work it out themselves.

    >>> from domeng.core.tiles import tile_id
    >>> ends_after(tile_id(6, 4), 0, -1, -1), ends_after(tile_id(2, 5), 0, 5, 3)
    ((6, 4), (2, 3))
    """
    if left < 0:
        return _HI[tile], _LO[tile]
    return play_ends(tile * 2 + end, left, right)


# ---------------------------------------------------------------- D6
@njit(cache=True, inline="always")
def pass_award(has_played, had_passebunge, every_pass, pass_size, passebunge_size):
    """D6: a pass by a seat that has not played yet this round
    (``has_played`` 0) is a PASSEBUNGE, unless the option
    ``passebunge_every_pass`` (``every_pass``) is off and the seat already
    had one (``had_passebunge``); otherwise a PASS.

    The rules arrive as scalars (``rules[R_PASSEBUNGE_EVERY_PASS]``,
    ``rules[R_PASS]``, ``rules[R_PASSEBUNGE]``): this is asked at every pass,
    and the aggregate loop reads them once per call, not once per pass.

    Returns
    -------
    (int, int, int)
        1 for a PASSEBUNGE (else 0), the award's size ("up to N", D7) and
        its reason (``layout.REASON_*``).

    Example
    -------
    >>> pass_award(0, 0, 1, 1, 2), pass_award(1, 0, 1, 1, 2), pass_award(0, 1, 0, 1, 2)
    ((1, 2, 1), (0, 1, 0), (0, 1, 0))
    """
    if has_played == 0 and (every_pass != 0 or had_passebunge == 0):
        return 1, passebunge_size, L.REASON_PASSEBUNGE
    return 0, pass_size, L.REASON_PASS


# ---------------------------------------------------------------- D7
#: D7's sources of a part of an award other than a seat: the table, and
#: nobody (the part no one could pay); the table is the trace's ``TABLE``
FROM_TABLE = TABLE
UNPAID = -2


@njit(cache=True, inline="always")
def no_book(bk, src, dest, amount, reason):
    """A ``book`` for :func:`pay` that keeps nothing."""


@njit(cache=True, inline="always")
def pay(due, tbl, stones, off, book, bk):
    """D7: "up to ``size`` to ``dest``": the table pays first, then each
    payer in paying order as much as he holds; the rest is unpaid.

    Parameters
    ----------
    due : (int, int, int, int, int)
        ``(size, dest, payers, n_payers, reason)``: the award's size, who
        gets it, the payers packed 3 bits each in paying order (``n_payers``
        of them; a payer who is ``dest`` pays nothing) and its reason
        (``layout.REASON_*``).
    tbl : int
        The stones on the table.
    stones, off : int64 array, int
        Seat ``p`` holds ``stones[off + p]`` (updated in place).
    book, bk : compiled function, any
        ``book(bk, src, dest, amount, reason)`` is told each part, in
        order, zero parts included: from the table (``src`` is
        :data:`FROM_TABLE`), from each payer (``src`` the seat), and the
        unpaid rest (``src`` :data:`UNPAID`).  The drivers' bookkeeping
        (aggregates, round counters, trace) lives there; this is the rule.

    Returns
    -------
    int
        The stones on the table after.

    Example
    -------
    >>> stones = np.array([0, 1, 0, 0, 0])  # up to 3 to seat 2: 1 from the table, 1 from seat 1
    >>> pay((3, 2, 1, 1, 3), 1, stones, 0, no_book, 0), stones.tolist()
    (0, [0, 0, 2, 0, 0])
    """
    size, dest, payers, n_payers, reason = due
    take = min(size, tbl)
    rest = size - take
    book(bk, FROM_TABLE, dest, take, reason)
    for i in range(n_payers):
        p = (payers >> (3 * i)) & 7
        give = min(rest, stones[_u(off + p)]) * (p != dest)
        stones[_u(off + p)] -= give
        book(bk, p, dest, give, reason)
        rest -= give
    # dest's stones once (a payer who is dest gives 0, so none is read early)
    stones[_u(off + dest)] += size - rest
    book(bk, UNPAID, dest, rest, reason)
    return tbl - take


# ---------------------------------------------------------------- D8..D10
@njit(cache=True)
def cappu_end(seat, tile, mappakuling, rules, at):
    """D9: ``seat`` played his last tile ``tile`` and is FIRST CAPPU; D8:
    POLLO if the play was a MAPPAKULING with a double, CEKI with a
    non-double, else a plain FIRST CAPPU; D10: the CUCUQ, the seat before,
    gets the award (paid by the FIRST CAPPU, D7).

    Returns
    -------
    (int, int, int)
        The end kind (``layout.K_*``), the award's size and the CUCUQ.

    Example
    -------
    >>> from domeng.core.rules import Rules
    >>> from domeng.core.tiles import tile_id
    >>> cappu_end(3, tile_id(2, 5), 1, Rules().to_array(), 0)  # worked example 1: CEKI
    (1, 3, 2)
    """
    cucuq = seat - 1 if seat > 0 else 4  # (seat + 4) % 5 without a division
    if mappakuling:
        if _DBL[_u(tile)]:
            return L.K_POLLO, rules[at + R_POLLO], cucuq
        return L.K_CEKI, rules[at + R_CEKI], cucuq
    return L.K_CAPPU, rules[at + R_CAPPU], cucuq


# ---------------------------------------------------------------- D11..D14
@njit(cache=True)
def is_block(seat, last_mappano):
    """D11: a seat that cannot play blocks the round when it is the LAST
    MAPPANO (the four others passed since his play).

    >>> bool(is_block(2, 2)), bool(is_block(3, 2))
    (True, False)
    """
    return seat == last_mappano


@njit(cache=True)
def block_end(m, sums, off, rules, at):
    """D12..D14: the settlement of a round blocked by the MANGUNO ``m``.

    D12: the MATTIKKENG are the other seats whose pip sum is <= M's.  D13:
    none: M wins, the CUCUQ (the seat before M) gets the award, M pays.
    D14: the winner is the MATTIKKENG with the lowest sum (ties: the first
    in turn order after M); M gets up to ``mattikkeng`` stones
    (``mattikkeng_reduced`` with two or more MATTIKKENG or an equal sum),
    paid by the winner, then the other MATTIKKENG in turn order after M.

    Parameters
    ----------
    m : int
        The MANGUNO.
    sums, off : int64 array, int
        Seat ``p``'s pip sum is ``sums[off + p]``.
    rules, at : int64 array, int
        The rules array and the offset of the rules in it.

    Returns
    -------
    (int, int, int, int, int, int)
        The end kind, the winner, the CUCUQ (-1 under D14), the award's
        size and receiver-side payers: the number of MATTIKKENG and the
        payers in paying order, 3 bits each (``max(n, 1)`` of them: ``m``
        alone under D13).  The MATTIKKENG are the payers when ``n > 0``.

    Example
    -------
    >>> from domeng.core.rules import Rules
    >>> sums = np.array([12, 9, 15, 4, 9])  # worked example 4: MANGUNO seat 4, sum 9
    >>> kind, winner, cucuq, size, n, order = block_end(4, sums, 0, Rules().to_array(), 0)
    >>> kind, winner, size, n, [(order >> (3 * i)) & 7 for i in range(n)]
    (4, 3, 1, 2, [3, 1])
    """
    sm = sums[off + m]
    best = -1
    best_sum = 1 << 30
    n = 0
    order = 0  # the MATTIKKENG in turn order after M
    p = m
    for _ in range(4):
        p = (p + 1) * (p < 4)
        sp = sums[off + p]
        if sp <= sm:
            order |= p << (3 * n)
            n += 1
            if sp < best_sum:
                best_sum = sp
                best = p
    if n == 0:
        return L.K_MANGUNO, m, m - 1 if m > 0 else 4, rules[at + R_MANGUNO], 0, m
    size = rules[at + R_MATTIKKENG]
    if n >= 2 or best_sum == sm:
        size = rules[at + R_MATTIKKENG_REDUCED]
    paying = best
    j = 1
    for i in range(n):
        q = (order >> (3 * i)) & 7
        if q != best:
            paying |= q << (3 * j)
            j += 1
    return L.K_MATTIKKENG, best, -1, size, n, paying


@njit(cache=True)
def pip_sum(hand):
    """D12: the pip sum of a 28-bit hand.

    >>> from domeng.core.tiles import mask_of, tile_id
    >>> pip_sum(mask_of([tile_id(6, 6), tile_id(1, 2)]))
    15
    """
    s = 0
    m = hand
    while m:
        s += _PIPS[lowest_bit(m)]
        m &= m - 1
    return s


# ---------------------------------------------------------------- D15
@njit(cache=True)
def becomes_camat(first_cappu, table, stones, off):
    """D15: once the round's stones are settled, the FIRST CAPPU (-1: the
    round was blocked) becomes CAMAT if the table is empty and he holds no
    stones (seat ``p`` holds ``stones[off + p]``).

    >>> bool(becomes_camat(1, 0, np.array([3, 0, 5, 9, 8]), 0))  # worked example 2
    True
    """
    return first_cappu >= 0 and table == 0 and stones[off + first_cappu] == 0
