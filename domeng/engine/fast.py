"""The aggregate-mode round loop: the rules of :mod:`domeng.engine.rulebook` with the round in locals.

Every rule here is asked of :mod:`domeng.engine.rulebook` (the starter, the
legal-move mask, the ends after a move, the end kind and award size, the pass
award, the payment D7, the block's settlement, CAMAT and the next starter);
this module only drives a table's rounds, and the round's outcome goes into
the aggregates through :func:`domeng.engine.tally.accumulate` (the stones'
flows through :func:`domeng.engine.tally.flow`), as in the kernel.
A study that keeps only per-table aggregates (no per-round records, no
trace) and whose seats are all built-in players spends nearly all its time
here.  :func:`play_rounds` plays a table's rounds with exactly the rules of
:mod:`domeng.engine.kernel` (the same D-ids, in the same order: deal D2,
starter D3/D4, moves D5, passes D6/D7, the end of a round D8..D14, CAMAT D15)
and gives bit-identical aggregates and table states, draw for draw; the
tests compare it with the step API's loop (and so with the reference
engine) for every option and built-in player.

How it is fast (each idea was measured on the hand-written C yardstick of the
full rules, which lives outside this repository in the workplace's
``shared/limit/`` folder; ``benchmarks/bench_engine.py`` builds and runs it):

* a hand is a 56-bit mask in which tile ``t`` owns bits ``2t`` (left end)
  and ``2t+1`` (right end): the bit index *is* the action ``tile*2+end``.
  The legal moves are one AND with the mask of the open ends (``ENDMASK``;
  no right-end moves when both ends show the same number: D5's one move),
  in ascending action order, and the ``k``-th of them is one ``pdep`` and
  one ``tzcnt``: the random player's pick is the kernel's, draw for draw;
* the round's state (ends, LAST MAPPANO, turn, who passed) lives
  in local variables, one function a table (no arrays of arguments per
  round), awards are branch-free (adding 0 where the kernel skips);
* only what the aggregates need is counted, and little at a move: the
  passes and PASSEBUNGE by seat packed in one variable each
  (:data:`domeng.engine.tally.SEAT_BITS`), the MAPPAKULING one add to a
  seat's slot of the scratch, the turns and who has played worked out
  when needed (session 17 of ``benchmarks/README.md``); the player type is
  tested only when a seat has a choice (two or more legal moves).

* a table whose seats are all ``random`` runs a loop compiled without the
  players' observation (``heur`` is a compile-time constant); indices are
  ``uint64`` (no negative-index fix-ups); the scratch arrays live in the
  caller's stack frame (:func:`stack_array`);
* the ends after a play are selected with masks, not multiplies (they are
  the turn loop's critical path); the deal's 27 draws come from one loop
  the compiler vectorizes (:func:`_deal`);
* compile time: small helpers are plain compiled functions that LLVM
  inlines (numba's ``inline="always"`` reruns its front end per call site;
  :mod:`domeng.core.numba_inline` spares it the two copies of the IR it
  made there).

Seats whose player is not ``random`` (id 0) call ``choose(pid, obs, mv)``,
which gives the mask of the player's best moves among the mask ``mv``; a
tie is broken with one draw from the seat's stream, as
:func:`domeng.players.scoring.pick_best` does.  The fields of ``obs`` the
built-in strategies read (ends, hand, seat, table, chain, void numbers;
with ``full_obs`` also the stones and hand sizes) are written just before.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from domeng.core import layout as L
from domeng.core.bits import kth_bit, lowest_bit, popcount, spread28
from domeng.core.bits import uidx as _u
from domeng.core.nbrng import mix64
from domeng.core.observation import (
    OBS_CHAIN,
    OBS_HAND,
    OBS_HAND_SIZE,
    OBS_LEFT,
    OBS_RIGHT,
    OBS_SEAT,
    OBS_STONES,
    OBS_TABLE,
    OBS_VOID,
)
from domeng.core.rng import GAMMA
from domeng.core.rules import (
    R_PASS,
    R_PASSEBUNGE,
    R_PASSEBUNGE_EVERY_PASS,
    R_PENALIZE_MANGUNO_PASS,
    R_STONES,
)
from domeng.core.tiles import TILE_PIPS
from domeng.engine import rulebook as RB
from domeng.engine import tally as T

EVEN56 = 0x0055555555555555
# the scratch array ``wk`` of :func:`play_rounds`
W_H = 0  # [5] hands, 56-bit masks
W_H28 = 5  # [5] hands, 28-bit masks (for the players' observation)
W_ST = 10  # [5] stones held
W_PRNG = 15  # [5] the seats' generators (uint64 bits)
W_PERM = 20  # [28] the deal's permutation
W_DRAW = 48  # [27] the deal's draws before the swaps (Lemire's products)
W_SUM = 75  # [5] the pip sums at a block (D12)
W_MK = 80  # [5] the round's MAPPAKULING by seat (D8; 0 between rounds)
WK_LEN = 85


_PIPS = TILE_PIPS.astype(np.int64)
_G = np.uint64(GAMMA)
_S32 = np.uint64(32)
_M32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_EVEN = np.int64(EVEN56)


def stack_array(dtype, size):
    """An intrinsic ``f()`` giving a ``dtype[size]`` array in the calling
    function's stack frame (numba has no stack arrays): addressed from the
    stack pointer, with no array pointer to keep in a register or reload, and
    no allocation.  Valid until the caller returns.  Only its first item is
    zeroed (numba's ``alloca_once``): write an item before reading it."""
    arrty = types.Array(dtype, 1, "C")

    @intrinsic
    def stack_array(typingctx):
        def codegen(context, builder, signature, args):
            from numba.np.arrayobj import make_array, populate_array

            item = context.get_value_type(dtype)
            data = cgutils.alloca_once(builder, item, size=size, zfill=True)
            ary = make_array(arrty)(context, builder)
            intp = context.get_value_type(types.intp)
            width = context.get_abi_sizeof(item)
            populate_array(
                ary,
                data=data,
                shape=[ir.Constant(intp, size)],
                strides=[ir.Constant(intp, width)],
                itemsize=ir.Constant(intp, width),
                meminfo=None,
            )
            return ary._getvalue()

        return arrty(), codegen

    return stack_array


#: the scratch array ``wk`` of :func:`play_rounds` on the caller's stack
stack_scratch = stack_array(types.int64, WK_LEN)


@njit(cache=True)
def pips56(h):
    """Pip sum of a 56-bit hand."""
    s = 0
    m = h & _EVEN
    while m:
        s += _PIPS[_u(lowest_bit(m) >> 1)]
        m &= m - 1
    return s


@njit(cache=True)
def _redraw(st, un, m):
    """Lemire's rejection test of :func:`seat_pick` (about once in 10^7 picks:
    a call, so the pick's common path stays small enough to inline)."""
    low = m & _M32
    threshold = (_TWO32 - un) % un
    while low < threshold:
        st += _G
        m = (mix64(st) >> _S32) * un
        low = m & _M32
    return st, m


@njit(cache=True, inline="always")
def seat_pick(wk, s, n):
    """The random player's pick among ``n`` moves from seat ``s``'s stream,
    branch-free on ``n == 1`` (no draw then, as the kernel: the stream
    advances only when n > 1); the kernel's ``randbelow_at``."""
    i = _u(W_PRNG + s)
    st = np.uint64(wk[i])
    x = mix64(st + _G)
    st += _G & np.uint64(-np.int64(n > 1))
    un = np.uint64(n)
    m = (x >> _S32) * un
    if (m & _M32) < un:
        st, m = _redraw(st, un, m)
    wk[i] = np.int64(st)
    return np.int64(m >> _S32)


@njit(cache=True)
def _below_local(r, n):
    """Lemire's method on the stream whose state is ``r``: ``(value, state)``."""
    un = np.uint64(n)
    r += _G
    m = (mix64(r) >> _S32) * un
    low = m & _M32
    if low < un:
        threshold = (_TWO32 - un) % un
        while low < threshold:
            r += _G
            m = (mix64(r) >> _S32) * un
            low = m & _M32
    return np.int64(m >> _S32), r


@njit(cache=True, inline="always")
def _deal(r, wk, heur):
    """D2, the kernel's deal from the deal stream's state ``r``: Fisher-Yates
    from the identity, i = 27..1, ``j = below(i + 1)``; returns the state
    after.  The 27 draws (states ``r + k*GAMMA``) come first, in one
    vectorized loop; if one needs Lemire's rejection test (``low < n``,
    about once in 10^7 deals) the deal is redone draw by draw: the kernel's."""
    for i in range(28):
        wk[_u(W_PERM + i)] = i
    rare = 0
    for k in range(27):
        un = np.uint64(28 - k)
        m = (mix64(r + np.uint64(k + 1) * _G) >> _S32) * un
        wk[_u(W_DRAW + k)] = np.int64(m)
        rare += (m & _M32) < un
    if rare == 0:
        r += np.uint64(27) * _G
        for k in range(27):
            a = _u(W_PERM + 27 - k)
            b = _u(W_PERM + np.int64(np.uint64(wk[_u(W_DRAW + k)]) >> _S32))
            tmp = wk[a]
            wk[a] = wk[b]
            wk[b] = tmp
    else:
        for i in range(27, 0, -1):
            j, r = _below_local(r, i + 1)
            a = _u(W_PERM + i)
            b = _u(W_PERM + j)
            tmp = wk[a]
            wk[a] = wk[b]
            wk[b] = tmp
    for s in range(5):
        h = np.int64(0)
        for k in range(5):
            h |= np.int64(1) << wk[_u(W_PERM + 5 * s + k)]
        wk[_u(W_H + s)] = spread28(h)
        if heur:
            wk[_u(W_H28 + s)] = h
    return r


@njit(cache=True, inline="always")
def no_choice(pid, obs, mv):
    """The ``choose`` of an all-random table (never called)."""
    return 0


@njit(cache=True, inline="always")
def _choice(pids, choose, s, mv, seen, scratch, mode):
    """The seat's pick among the ``mv`` moves (two or more).  A scoring
    player's ``choose(pid, obs, mv)`` gives the mask of its best moves; a
    tie is broken with one draw from the seat's stream (none without a tie),
    as the random player picks.  ``pids``, ``choose``: :func:`play_rounds`'s; ``seen``:
    what the players' observation gets, ``(left, right, tbl, chain)``;
    ``scratch``, ``mode``: :func:`play_rounds`'s."""
    obs, wk = scratch
    heur, full_obs = mode
    if not heur:
        return kth_bit(mv, seat_pick(wk, s, popcount(mv)))
    left, right, tbl, chain = seen
    pid = pids[_u(s)]
    if pid != 0:
        obs[OBS_SEAT] = s
        obs[OBS_HAND] = wk[_u(W_H28 + s)]
        obs[OBS_LEFT] = left
        obs[OBS_RIGHT] = right
        obs[OBS_TABLE] = tbl
        obs[OBS_CHAIN] = chain
        if full_obs:
            for p in range(5):
                obs[OBS_STONES + p] = wk[W_ST + p]
                obs[OBS_HAND_SIZE + p] = popcount(wk[W_H28 + p])
        mv = choose(pid, obs, mv)
        if mv & (mv - 1) == 0:
            return lowest_bit(mv)
    return kth_bit(mv, seat_pick(wk, s, popcount(mv)))


@njit(cache=True, inline="always")
def _load(st, wk):
    """The table's state into the round loop (no rule): the seats' streams and
    stones into ``wk``; returns ``(deal stream, table stones, CAMAT, next
    starter, rounds, CAMATs, rounds since the last CAMAT)``, the loop's locals."""
    for p in range(5):
        wk[W_PRNG + p] = st[L.ST_SEAT_RNG + p]
        wk[W_ST + p] = st[L.ST_STONES + p]
        wk[W_MK + p] = 0  # (the stack array is not zeroed)
    return (
        np.uint64(st[L.ST_RNG]),
        st[L.ST_TABLE],
        st[L.ST_CAMAT],
        st[L.ST_NEXT_STARTER],
        st[L.ST_ROUNDS],
        st[L.ST_CAMATS],
        st[L.ST_SINCE_CAMAT],
    )


@njit(cache=True, inline="always")
def _store(st, wk, table):
    """The round loop's locals back into the table's state (no rule); ``table``
    is :func:`_load`'s tuple."""
    drng, tbl, camat, next_starter, rnd, camats, since = table
    for p in range(5):
        st[L.ST_STONES + p] = wk[W_ST + p]
        st[L.ST_SEAT_RNG + p] = wk[W_PRNG + p]
    st[L.ST_TABLE] = tbl
    st[L.ST_CAMAT] = camat
    st[L.ST_NEXT_STARTER] = next_starter
    st[L.ST_ROUNDS] = rnd
    st[L.ST_CAMATS] = camats
    st[L.ST_SINCE_CAMAT] = since
    st[L.ST_RNG] = np.int64(drng)


@njit(cache=True, inline="always")
def _lead(rules, next_starter, tbl, pids, choose, scratch, mode):
    """D3, D4: the round's starter and its lead (D3: the double it must lead;
    else its pick, D4); the tile leaves its hand.  Returns ``(starter, tile)``."""
    wk = scratch[1]
    s, must = RB.starter(next_starter, wk, W_H, 1, rules, 0)
    if must >= 0:
        t = must
    else:
        mv = RB.legal_mask(wk[_u(W_H + s)], -1, -1, -1)
        t = _choice(pids, choose, s, mv, (-1, -1, tbl, 0), scratch, mode) >> 1
    wk[_u(W_H + s)] &= ~(np.int64(3) << (2 * t))
    if mode[0]:
        wk[_u(W_H28 + s)] &= ~(np.int64(1) << t)
    return s, t


@njit(cache=True, inline="always")
def _round_end(rules, first_cappu, winner, wk, counts):
    """D15: CAMAT (a FIRST CAPPU holding no stones at an empty table) and every
    stone back to the table; D4: the next starter.  ``counts``: ``(table
    stones, CAMAT, CAMATs, rounds since the last CAMAT)`` before the round's
    end; returns them after, then ``(next starter, new CAMAT or -1, the gap
    it closed)``."""
    tbl, camat, camats, since = counts
    since += 1
    new_camat = -1
    gap = 0
    if RB.becomes_camat(first_cappu, tbl, wk, W_ST):
        camat = first_cappu
        for p in range(5):
            wk[W_ST + p] = 0
        tbl = rules[R_STONES]
        new_camat = camat
        gap = since
        camats += 1
        since = 0
    return tbl, camat, camats, since, RB.next_starter(camat, winner), new_camat, gap


@njit(cache=True, inline="always")
def play_rounds(rules, st, agg, limits, pids, choose, scratch, mode):
    """Play up to ``rounds`` rounds of the table whose state is ``st``
    (updated in place), adding to its aggregates ``agg`` (stopping at
    ``camat_target`` CAMATs if > 0; ``limits`` is ``(rounds,
    camat_target)``); returns the rounds played.  ``pids``: the seats'
    player ids; ``choose``: the scoring players' compiled pick (its own
    argument, not in a tuple: a function in a tuple is called through a
    pointer and not inlined, 14% more instructions with hunter); ``scratch``: ``(obs, wk)`` (``int64[OBS_LEN]``,
    ``int64[WK_LEN]``).  ``mode`` is ``(heur, full_obs)``: ``heur`` (a
    compile-time constant of the caller) is False when every seat is
    ``random``: the players' observation is then not kept at all;
    ``full_obs``: some player also reads the stones and hand sizes.
    The steps are ``inline="always"`` helpers (numba inlines them in its IR:
    the round stays in locals, the speed of one function)."""
    rounds, camat_target = limits
    obs, wk = scratch
    heur = mode[0]
    every_pb = rules[R_PASSEBUNGE_EVERY_PASS]  # D6's rules, read once (not at every pass)
    r_pass = rules[R_PASS]
    r_pb = rules[R_PASSEBUNGE]
    drng, tbl, camat, next_starter, rnd, camats, since = _load(st, wk)
    played_rounds = 0
    for _ in range(rounds):
        if camat_target > 0 and camats >= camat_target:
            break
        drng = _deal(drng, wk, heur)
        rnd += 1
        if heur:
            for p in range(5):
                obs[OBS_VOID + p] = 0
        # ---- the starter (D3, D4) and the lead
        s, t = _lead(rules, next_starter, tbl, pids, choose, scratch, mode)
        starter = s
        chain = np.int64(1) << t
        left, right = RB.ends_after(t, 0, -1, -1)
        endmask = RB.end_mask(left, right)
        last = s
        passes = 0  # the round's counts by seat, packed (tally.SEAT_BITS a seat)
        pbs = 0
        matt = 0
        tiles = 1  # the turns are counted at the round's end
        cucuq = -1
        first_cappu = -1
        kind = 0
        winner = 0
        s = RB.next_seat(s)
        # ---- the turns (D5..D11)
        while True:
            hs = wk[_u(W_H + s)]
            mv = hs & endmask
            if mv:
                # D5: the seat's choice among the (tile, end) moves
                if not heur:
                    # all seats random: branch-free, no draw for a single move
                    code = kth_bit(mv, seat_pick(wk, s, popcount(mv)))
                elif mv & (mv - 1):
                    code = _choice(pids, choose, s, mv, (left, right, tbl, chain), scratch, mode)
                else:
                    code = lowest_bit(mv)
                t = code >> 1
                hs &= ~(np.int64(3) << (code & ~1))
                wk[_u(W_H + s)] = hs
                if heur:
                    wk[_u(W_H28 + s)] &= ~(np.int64(1) << t)
                    chain |= np.int64(1) << t
                left, right = RB.play_ends(code, left, right)  # D5
                mk = 1 if left == right else 0  # D8: MAPPAKULING
                wk[_u(W_MK + s)] += mk  # one add (packed at the round's end)
                last = s
                tiles += 1
                if hs == 0:
                    # D9: FIRST CAPPU; D8: CEKI / POLLO; D10: the CUCUQ's award
                    kind, size, cucuq = RB.cappu_end(s, t, mk, rules, 0)
                    winner = s
                    first_cappu = s
                    turns = tiles + T.seat_total(passes)  # the moves and passes
                    tbl = RB.pay((size, cucuq, s, 1, kind + 2), tbl, wk, W_ST, T.flow, agg)
                    break
                endmask = RB.end_mask(left, right)
            elif not RB.is_block(s, last):
                # D6: PASS, a PASSEBUNGE if s has not played yet this round;
                # D7: paid by the table, then by the LAST MAPPANO
                # s has played iff fewer than the 5 tiles dealt (_deal) are left: no mask
                # of who played to keep (a 56-bit hand has two bits a tile)
                unit = np.int64(1) << (T.SEAT_BITS * s)
                has_played = popcount(hs) < 10
                had_pb = pbs & (unit * T.SEAT_MASK)  # s's PASSEBUNGE so far (D6)
                pb, size, reason = RB.pass_award(has_played, had_pb, every_pb, r_pass, r_pb)
                passes += unit
                if heur:
                    obs[_u(OBS_VOID + s)] |= (np.int64(1) << left) | (np.int64(1) << right)
                if pb:  # rare: a branch costs fewer instructions than adding 0
                    pbs += unit
                tbl = RB.pay((size, s, last, 1, reason), tbl, wk, W_ST, T.flow, agg)
            else:
                kind, winner, cucuq, matt, tbl = _block(rules, s, wk, tbl, agg)
                turns = tiles + T.seat_total(passes) + 1  # the moves, passes and M's turn
                if rules[R_PENALIZE_MANGUNO_PASS]:
                    passes += 1 << (T.SEAT_BITS * s)
                break
            s = RB.next_seat(s)  # D1
        # ---- D15: CAMAT and the return of the stones; D4: the next starter
        tbl, camat, camats, since, next_starter, new_camat, gap = _round_end(
            rules, first_cappu, winner, wk, (tbl, camat, camats, since)
        )
        # ---- the round's outcome into the aggregates
        mks = T.packed(wk, W_MK)
        out = (kind, winner, starter, cucuq, new_camat, gap, turns, tiles, passes, pbs, mks, matt)
        T.accumulate(agg, out)
        played_rounds += 1
    _store(st, wk, (drng, tbl, camat, next_starter, rnd, camats, since))
    return played_rounds


@njit(cache=True)
def _block(rules, m, wk, tbl, agg):
    """D11: the four others passed and the LAST MAPPANO ``m`` cannot play;
    settled as :func:`domeng.engine.rulebook.block_end` says (D12..D14).
    Returns ``(kind, winner, cucuq, MATTIKKENG mask, table stones)``."""
    if rules[R_PENALIZE_MANGUNO_PASS]:
        # D11 option: M's closing pass is a PASS, paid by the table only
        tbl = RB.pay((rules[R_PASS], m, 0, 0, L.REASON_PASS), tbl, wk, W_ST, T.flow, agg)
    for p in range(5):
        wk[W_SUM + p] = pips56(wk[_u(W_H + p)])
    kind, winner, cucuq, size, n_matt, order = RB.block_end(m, wk, W_SUM, rules, 0)
    matt = 0
    for i in range(n_matt):
        matt |= 1 << ((order >> (3 * i)) & 7)
    if n_matt == 0:
        # D13: the CUCUQ gets the award, M gives the rest
        tbl = RB.pay((size, cucuq, m, 1, L.REASON_MANGUNO), tbl, wk, W_ST, T.flow, agg)
    else:
        # D14: M gets the award, from the table, then the MATTIKKENG in order
        due = (size, m, order, n_matt, L.REASON_MATTIKKENG)
        tbl = RB.pay(due, tbl, wk, W_ST, T.flow, agg)
    return kind, winner, cucuq, matt, tbl
