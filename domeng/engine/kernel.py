"""The batch engine: Domeng as small numba functions over flat arrays.

Read it beside :mod:`domeng.engine.reference` (the reference): every function here has
a twin there, in the same order, with the same decision ids.  The decisions
themselves are asked of :mod:`domeng.engine.rulebook`; this module keeps the
state record's bookkeeping (counters, trace, records), and a round's outcome
goes into the aggregates through :mod:`domeng.engine.tally`, as in the
aggregate loop.  The two must
agree move by move; the tests replay both from the same generator.

State of one table while it plays (all ``int64`` unless noted):

* ``hands[5]``: each seat's tiles as a 28-bit mask (private: only the seat's
  own mask is ever copied into what a player sees);
* ``obs[OBS_LEN]``: the public state in the observation layout of
  :mod:`domeng.core.observation` (stones, ends, chain, who played what, passes
  ...); the seat to move's hand is written into ``obs[OBS_HAND]`` just
  before it chooses, so the array handed to a player is exactly its D17 view;
* ``hist[MAX_TURNS, 3]``: the round's public history;
* ``w[W_LEN]``: round-local counters (passes by seat, stones by reason...);
* ``st[ST_LEN]``: what carries over between rounds (D16), see
  :mod:`domeng.core.layout`; ``rng`` (``uint64[1]``) is the deal stream and ``prng[s]`` the
  stream of seat ``s``'s player.

Rules arrive as the ``int64`` array of :meth:`domeng.core.rules.Rules.to_array`
(and are copied into ``obs[OBS_RULES:]``), so changing an option never
recompiles.  Players arrive as ids (:data:`domeng.core.defaults.PLAYER_IDS`)
plus a tuple of five compiled functions for seats whose player is a
compiled function (numba first-class functions: a new player needs no new
kernel).

Speed notes.  The round loops (``fast.play_rounds``, ``batch.loop.play_game``)
allocates nothing and is compiled with ``_nrt=False``: no reference counting
of array arguments in the hot path.  The per-turn steps are inlined; the
once-a-round steps are calls (compile time).  The observation fields that
only players read (history, tiles by seat, hand sizes, voids) are kept when
some seat's player reads them (``full``); the rules never read them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domeng.core import layout as L
from domeng.core.bits import lowest_bit, popcount, spread28
from domeng.core.events import (
    EV_BLOCK,
    EV_CAMAT,
    EV_END,
    EV_LEAD,
    EV_PASS,
    EV_PLAY,
    EV_TRANSFER,
    EV_UNPAID,
)
from domeng.core.kept import when_kept
from domeng.core.nbrng import randbelow, seat_state, table_state
from domeng.core.observation import (
    OBS_CAMAT,
    OBS_CHAIN,
    OBS_D3_DOUBLE,
    OBS_D3_OPENER,
    OBS_HAND_SIZE,
    OBS_HAS_PLAYED,
    OBS_LAST_MAPPANO,
    OBS_LEFT,
    OBS_MUST_LEAD,
    OBS_PASSES,
    OBS_PLAYED_BY,
    OBS_RIGHT,
    OBS_ROUND,
    OBS_RULES,
    OBS_STARTER,
    OBS_STONES,
    OBS_TABLE,
    OBS_TURN,
    OBS_VOID,
)
from domeng.core.rules import (
    R_PASS,
    R_PASSEBUNGE,
    R_PASSEBUNGE_EVERY_PASS,
    R_PENALIZE_MANGUNO_PASS,
    R_STONES,
)
from domeng.engine import rulebook as RB
from domeng.engine import tally as T
from domeng.engine.rulebook import ends_after, pip_sum  # re-exported: players ask kernel.ends_after

# round-local counters
W_PASSED = 0  # [5] passes by seat
W_PB = 5  # [5] PASSEBUNGE by seat
W_PB_TAKEN = 10  # [5] seat already had a PASSEBUNGE (option D6)
W_BY_REASON = 15  # [7] stones moved by reason
W_FROM_TABLE = 22
W_UNPAID = 23
W_NPASS = 24
W_NPB = 25
W_LEN = 128  # with the outcome slots W_KIND.. and the per-seat flows W_RECV.. below


# ---------------------------------------------------------------- trace
@when_kept
def _trace(trace, a0, a1, a2, a3, a4, a5, a6):
    """One event row ``a0..a6`` into the trace ``(tr, tn)`` (rows ``tr``,
    rows written ``tn[0]``; ``None``: no trace kept, compiled to nothing,
    :func:`domeng.core.kept.when_kept`); rows past ``tr``'s length are
    counted, not written."""
    tr, tn = trace
    k = tn[0]
    if k < tr.shape[0]:
        tr[k, 0] = a0
        tr[k, 1] = a1
        tr[k, 2] = a2
        tr[k, 3] = a3
        tr[k, 4] = a4
        tr[k, 5] = a5
        tr[k, 6] = a6
    tn[0] = k + 1


@when_kept
def trace_of(tr, tn):
    """The trace as :func:`_trace` takes it: ``(tr, tn)``, or ``None`` when
    no rows are kept (``tr`` is ``None``)."""
    return (tr, tn)


# ---------------------------------------------------------------- deal (D2, D3)
@njit(cache=True, _nrt=False)
def deal(rng, perm, hands):
    """D2: Fisher-Yates over the 28 tiles (as the reference's ``rng.shuffle``);
    seat i gets tiles 5i..5i+4, the last 3 are out of play."""
    for i in range(28):
        perm[i] = i
    for i in range(27, 0, -1):
        j = randbelow(rng, i + 1)
        tmp = perm[i]
        perm[i] = perm[j]
        perm[j] = tmp
    for s in range(5):
        m = np.int64(0)
        for k in range(5):
            m |= np.int64(1) << perm[5 * s + k]
        hands[s] = m


# ---------------------------------------------------------------- moves (D5)
@njit(cache=True, inline="always")
def legal_moves(hand, obs, moves):
    """Legal moves of a seat holding ``hand`` into ``moves`` (``tile*2+end``,
    ascending); returns their number (0: the seat must pass).  The moves are
    the bits of :func:`domeng.engine.rulebook.legal_mask` (D3, D5)."""
    m = RB.legal_mask(spread28(hand), obs[OBS_LEFT], obs[OBS_RIGHT], obs[OBS_MUST_LEAD])
    n = 0
    while m:
        moves[n] = lowest_bit(m)
        m &= m - 1
        n += 1
    return n


# ---------------------------------------------------------------- stones (D7)
@njit(cache=True, inline="always")
def book(bk, src, dest, amount, reason):
    """The ``book`` of :func:`domeng.engine.rulebook.pay` (D7) here: a part of
    an award (``src``: the table, a seat, or unpaid) into the aggregates, the
    round's counters and the trace; ``bk`` is ``(agg, w, trace)``, ``trace``
    as :func:`_trace` takes it.  A part of nothing is not kept (no trace event)."""
    agg, w, trace = bk
    if amount <= 0:
        return
    T.flow(agg, src, dest, amount, reason)
    if src == RB.UNPAID:
        w[W_UNPAID] += amount
        w[W_SEAT_UNPAID + dest] += amount
        _trace(trace, EV_UNPAID, reason, dest, amount, 0, 0, 0)
        return
    w[W_BY_REASON + reason] += amount
    w[W_RECV + dest * 7 + reason] += amount
    if src == RB.FROM_TABLE:
        w[W_FROM_TABLE] += amount
        w[W_SEAT_FROM_TABLE + dest] += amount
    else:
        w[W_GIVE + src * 7 + reason] += amount
    _trace(trace, EV_TRANSFER, reason, src, dest, amount, 0, 0)


@njit(cache=True, inline="always")
def award(obs, due, bk):
    """Pay ``due`` (``(size, dest, payers, n_payers, reason)``, D7) as
    :func:`domeng.engine.rulebook.pay` says, from ``obs``'s table and stones,
    kept by :func:`book` (``bk``: ``(agg, w, trace)``)."""
    obs[OBS_TABLE] = RB.pay(due, obs[OBS_TABLE], obs, OBS_STONES, book, bk)


# ---------------------------------------------------------------- play / pass
@njit(cache=True, inline="always")
def apply_play(obs, hist, hands, s, move, full):
    """Play ``move`` for seat ``s``; returns 1 if it is a MAPPAKULING (D8).
    ``full``: also keep the fields only players read (history, tiles played
    by seat, hand sizes); the rules never need them."""
    t = move >> 1
    end = move & 1
    hands[s] &= ~(np.int64(1) << t)
    was_lead = obs[OBS_LEFT] < 0
    left, right = ends_after(t, end, obs[OBS_LEFT], obs[OBS_RIGHT])  # D5
    obs[OBS_LEFT] = left
    obs[OBS_RIGHT] = right
    obs[OBS_MUST_LEAD] = -1
    mappakuling = 0 if was_lead else (1 if left == right else 0)  # the lead: never one
    k = obs[OBS_TURN]
    obs[OBS_TURN] = k + 1
    obs[OBS_CHAIN] |= np.int64(1) << t
    obs[OBS_HAS_PLAYED + s] = 1
    obs[OBS_LAST_MAPPANO] = s  # terms 4, 5
    obs[OBS_PASSES] = 0
    if full:
        hist[k, 0] = s
        hist[k, 1] = t
        hist[k, 2] = end
        obs[OBS_PLAYED_BY + s] |= np.int64(1) << t
        obs[OBS_HAND_SIZE + s] -= 1
    return mappakuling


@njit(cache=True, inline="always")
def record_pass(obs, hist, s, full):
    """A pass by ``s`` in the public record: history row and void numbers (D17)."""
    k = obs[OBS_TURN]
    obs[OBS_TURN] = k + 1
    if full:
        hist[k, 0] = s
        hist[k, 1] = -1
        hist[k, 2] = 0
        obs[OBS_VOID + s] |= (np.int64(1) << obs[OBS_LEFT]) | (np.int64(1) << obs[OBS_RIGHT])


# ---------------------------------------------------------------- round outcome slots in w
W_KIND = 26  # end kind (K_*), -1 while the round goes on
W_WINNER = 27
W_FIRST_CAPPU = 28
W_CUCUQ = 29
W_MANGUNO = 30
W_N_MATT = 31
W_MATT_MASK = 32
W_LEAD = 33  # the tile led
W_SECOND_PASSED = 34  # the seat after the starter passed on its first turn
W_SIZE = 35  # the size of the round's award ("up to N", D8..D14)
W_CAMAT = 36  # the seat that became CAMAT when the round was settled (D15), else -1
W_HELD = 37  # [5] stones each seat held when the round was settled, before a CAMAT's return
# per-seat flows of the round (the per-seat blocks of a record, layout.SEAT_COLUMNS)
W_RECV = 42  # [5 seat, 7 reason] stones received (from the table or a seat)
W_GIVE = 77  # [5 seat, 7 reason] stones given to another seat
W_SEAT_FROM_TABLE = 112  # [5] stones received from the table
W_SEAT_UNPAID = 117  # [5] stones owed to the seat that nobody could pay (D7)
W_SUMS = 122  # [5] the pip sums at a block (D12)
W_MK = 127  # MAPPAKULING by seat, packed (tally.SEAT_BITS a seat; D8)


@njit(cache=True, inline="always")
def reset_counters(w):
    """The round's counters and outcome slots, as at the start of a round."""
    for i in range(W_LEN):
        w[i] = 0
    w[W_KIND] = -1
    w[W_WINNER] = -1
    w[W_FIRST_CAPPU] = -1
    w[W_CUCUQ] = -1
    w[W_MANGUNO] = -1
    w[W_CAMAT] = -1


@njit(cache=True)
def counters_from_history(obs, hist, w):
    """The round's counters that the rules read, rebuilt from the public
    history (for a position reached from an observation): which seats
    already had a PASSEBUNGE (the D6 option) -- a pass before the seat's
    first play.  The other counters only feed aggregates and start at 0."""
    reset_counters(w)
    played = np.zeros(5, dtype=np.int64)
    for k in range(obs[OBS_TURN]):
        p = hist[k, 0]
        if hist[k, 1] >= 0:
            played[p] = 1
        elif played[p] == 0:
            w[W_PB_TAKEN + p] = 1


@njit(cache=True, _nrt=False)
def begin_round(obs, hands, w, st, must, starter, rnd, d3):
    """Reset the public state and round counters for a new round; ``d3``:
    the starter was chosen as the holder of the highest double (D3)."""
    reset_counters(w)
    obs[OBS_ROUND] = rnd
    obs[OBS_STARTER] = starter
    obs[OBS_CAMAT] = st[L.ST_CAMAT]
    obs[OBS_LEFT] = -1
    obs[OBS_RIGHT] = -1
    obs[OBS_CHAIN] = 0
    obs[OBS_LAST_MAPPANO] = -1
    obs[OBS_TURN] = 0
    obs[OBS_PASSES] = 0
    obs[OBS_MUST_LEAD] = must
    obs[OBS_D3_OPENER] = d3
    obs[OBS_D3_DOUBLE] = must  # kept for the whole round (OBS_MUST_LEAD ends at the lead)
    for s in range(5):
        obs[OBS_HAND_SIZE + s] = popcount(hands[s])
        obs[OBS_PLAYED_BY + s] = 0
        obs[OBS_VOID + s] = 0
        obs[OBS_HAS_PLAYED + s] = 0


@njit(cache=True, inline="always")
def play_move(hands, obs, hist, s, move, full, bk):
    """Seat ``s`` plays ``move`` (legal, D5).  Ends the round at once if it
    was his last tile, settled as :func:`domeng.engine.rulebook.cappu_end`
    says (D9: FIRST CAPPU; D8: CEKI / POLLO; D10: the CUCUQ's award).
    ``full`` as :func:`apply_play` takes it; ``bk``: the bookkeeping
    ``(agg, w, trace)`` of :func:`book`.  Returns True when the round has ended."""
    w = bk[1]
    trace = bk[2]
    was_lead = obs[OBS_LEFT] < 0
    mk = apply_play(obs, hist, hands, s, move, full)
    if was_lead:
        w[W_LEAD] = move >> 1
        _trace(trace, EV_LEAD, s, move >> 1, obs[OBS_LEFT], obs[OBS_RIGHT], 0, 0)
    else:
        _trace(trace, EV_PLAY, s, move >> 1, move & 1, obs[OBS_LEFT], obs[OBS_RIGHT], mk)
        w[W_MK] += mk << (T.SEAT_BITS * s)
    if hands[s] != 0:
        return False
    kind, size, cucuq = RB.cappu_end(s, move >> 1, mk, obs, OBS_RULES)
    w[W_KIND] = kind
    w[W_WINNER] = s
    w[W_FIRST_CAPPU] = s
    w[W_CUCUQ] = cucuq
    w[W_SIZE] = size
    _trace_end(trace, w, hands)
    award(obs, (size, cucuq, s, 1, L.KIND_REASON[kind]), bk)
    return True


@njit(cache=True, inline="always")
def pass_turn(hands, obs, hist, s, full, bk):
    """Seat ``s`` has no playable tile.  If it is the LAST MAPPANO the round
    is blocked (D11) and settled (D12..D14); otherwise a PASS or PASSEBUNGE
    (D6, :func:`domeng.engine.rulebook.pass_award`) paid from the table, then
    by the LAST MAPPANO (D7).  ``full``, ``bk`` as :func:`play_move` takes
    them.  Returns True when the round has ended."""
    if RB.is_block(s, obs[OBS_LAST_MAPPANO]):
        block(hands, obs, hist, s, full, bk)
        return True
    w = bk[1]
    if obs[OBS_TURN] == 1:
        w[W_SECOND_PASSED] = 1
    pb, size, reason = RB.pass_award(
        obs[OBS_HAS_PLAYED + s],
        w[W_PB_TAKEN + s],
        obs[OBS_RULES + R_PASSEBUNGE_EVERY_PASS],
        obs[OBS_RULES + R_PASS],
        obs[OBS_RULES + R_PASSEBUNGE],
    )
    w[W_NPASS] += 1
    w[W_PASSED + s] += 1
    if pb:
        w[W_PB_TAKEN + s] = 1
        w[W_NPB] += 1
        w[W_PB + s] += 1
    _trace(bk[2], EV_PASS, s, pb, obs[OBS_LEFT], obs[OBS_RIGHT], 0, 0)
    record_pass(obs, hist, s, full)
    obs[OBS_PASSES] += 1
    award(obs, (size, s, obs[OBS_LAST_MAPPANO], 1, reason), bk)
    return False


@njit(cache=True, _nrt=False)
def block(hands, obs, hist, m, full, bk):
    """D11: everyone passed and the LAST MAPPANO ``m`` cannot play; settled
    as :func:`domeng.engine.rulebook.block_end` says (D12..D14); ``full``,
    ``bk`` as :func:`play_move` takes them."""
    w = bk[1]
    trace = bk[2]
    if obs[OBS_RULES + R_PENALIZE_MANGUNO_PASS]:
        # D11 option: M's closing pass is a PASS, paid by the table only
        w[W_NPASS] += 1
        w[W_PASSED + m] += 1
        _trace(trace, EV_PASS, m, 0, obs[OBS_LEFT], obs[OBS_RIGHT], 0, 0)
        award(obs, (obs[OBS_RULES + R_PASS], m, 0, 0, L.REASON_PASS), bk)
    record_pass(obs, hist, m, full)
    _trace(trace, EV_BLOCK, m, obs[OBS_LEFT], obs[OBS_RIGHT], 0, 0, 0)
    w[W_MANGUNO] = m
    for p in range(5):
        w[W_SUMS + p] = pip_sum(hands[p])
    kind, winner, cucuq, size, n_matt, order = RB.block_end(m, w, W_SUMS, obs, OBS_RULES)
    matt_mask = 0
    for i in range(n_matt):
        p = (order >> (3 * i)) & 7
        matt_mask |= 1 << p
    w[W_N_MATT] = n_matt
    w[W_MATT_MASK] = matt_mask
    w[W_KIND] = kind
    w[W_WINNER] = winner
    w[W_CUCUQ] = cucuq
    w[W_SIZE] = size
    _trace_end(trace, w, hands)
    if n_matt == 0:
        # D13: the CUCUQ gets the award, M gives the rest
        award(obs, (size, cucuq, m, 1, L.REASON_MANGUNO), bk)
    else:
        # D14: M gets the award, paid by the winner, then the other MATTIKKENG
        award(obs, (size, m, order, n_matt, L.REASON_MATTIKKENG), bk)


@njit(cache=True, _nrt=False)
def finish_round(rules, obs, st, rec, bk, starter, rnd):
    """D15: CAMAT and the return of the stones; D4: next starter; then the
    round's aggregates and record: ``rec`` the record (``None``: none kept,
    chosen when compiled), ``bk`` the bookkeeping ``(agg, w, trace)`` of
    :func:`book`, ``starter`` and ``rnd`` the round's."""
    agg, w, trace = bk
    kind = w[W_KIND]
    winner = w[W_WINNER]
    first_cappu = w[W_FIRST_CAPPU]
    cucuq = w[W_CUCUQ]
    st[L.ST_ROUNDS] = rnd
    st[L.ST_SINCE_CAMAT] += 1
    camat = -1
    gap = 0
    if RB.becomes_camat(first_cappu, obs[OBS_TABLE], obs, OBS_STONES):  # D15
        camat = first_cappu
        for p in range(5):
            w[W_HELD + p] = obs[OBS_STONES + p]
        st[L.ST_CAMAT] = camat
        for p in range(5):
            obs[OBS_STONES + p] = 0
        obs[OBS_TABLE] = rules[R_STONES]
        _trace(trace, EV_CAMAT, camat, obs[OBS_TABLE], 0, 0, 0, 0)
        gap = st[L.ST_SINCE_CAMAT]
        st[L.ST_CAMATS] += 1
        st[L.ST_SINCE_CAMAT] = 0
    w[W_CAMAT] = camat
    st[L.ST_NEXT_STARTER] = RB.next_starter(st[L.ST_CAMAT], winner)  # D4

    turns = obs[OBS_TURN]
    tiles = popcount(obs[OBS_CHAIN])
    passes = 0
    pbs = 0
    for p in range(5):
        passes |= w[W_PASSED + p] << (T.SEAT_BITS * p)
        pbs |= w[W_PB + p] << (T.SEAT_BITS * p)
    matt = w[W_MATT_MASK]
    T.accumulate(
        agg,
        (kind, winner, starter, cucuq, camat, gap, turns, tiles, passes, pbs, w[W_MK], matt),
    )
    _record_round(rec, w, (rnd, starter, tiles, turns, camat))


@when_kept
def _record_round(rec, w, row):
    """The round's own columns of its record ``rec`` (``None``: none kept):
    ``row`` is ``(round, starter, tiles, turns, camat)``, the rest from the
    round's counters ``w``."""
    rnd, starter, tiles, turns, camat = row
    rec[L.RC_ROUND] = rnd
    rec[L.RC_STARTER] = starter
    rec[L.RC_KIND] = w[W_KIND]
    rec[L.RC_WINNER] = w[W_WINNER]
    rec[L.RC_CUCUQ] = w[W_CUCUQ]
    rec[L.RC_MANGUNO] = w[W_MANGUNO]
    rec[L.RC_N_MATT] = w[W_N_MATT]
    rec[L.RC_PASSES] = w[W_NPASS]
    rec[L.RC_PASSEBUNGE] = w[W_NPB]
    rec[L.RC_TILES] = tiles
    rec[L.RC_TURNS] = turns
    for r in range(7):
        rec[L.RC_STONES + r] = w[W_BY_REASON + r]
    rec[L.RC_FROM_TABLE] = w[W_FROM_TABLE]
    rec[L.RC_UNPAID] = w[W_UNPAID]
    rec[L.RC_CAMAT] = camat
    rec[L.RC_LEAD] = w[W_LEAD]
    rec[L.RC_SECOND_PASSED] = w[W_SECOND_PASSED]


@when_kept
def record_seats(rec, obs, w, hands):
    """The per-seat blocks of the round's record ``rec`` (``None``: none
    kept; ``layout.SEAT_COLUMNS``), once the round is settled
    (:func:`finish_round`): stones received and
    given by reason (D7), passes and PASSEBUNGE (D6), stones held after the
    round (after a CAMAT's return, D15), tiles left and their pip sum (D12)."""
    for p in range(5):
        b = L.RC_SEATS + p * L.SEAT_LEN
        for r in range(7):
            rec[b + L.SC_RECEIVED + r] = w[W_RECV + p * 7 + r]
            rec[b + L.SC_GIVEN + r] = w[W_GIVE + p * 7 + r]
        rec[b + L.SC_FROM_TABLE] = w[W_SEAT_FROM_TABLE + p]
        rec[b + L.SC_UNPAID] = w[W_SEAT_UNPAID + p]
        rec[b + L.SC_PASSES] = w[W_PASSED + p]
        rec[b + L.SC_PASSEBUNGE] = w[W_PB + p]
        rec[b + L.SC_STONES] = obs[OBS_STONES + p]
        rec[b + L.SC_TILES_LEFT] = popcount(hands[p])
        rec[b + L.SC_PIP_SUM] = pip_sum(hands[p])


@when_kept
def _trace_end(trace, w, hands):
    """The round's end row (EV_END) into the trace (as :func:`_trace`)."""
    tr, tn = trace
    k = tn[0]
    if k < tr.shape[0]:
        tr[k, 0] = EV_END
        tr[k, 1] = w[W_KIND]
        tr[k, 2] = w[W_WINNER]
        tr[k, 3] = w[W_FIRST_CAPPU]
        tr[k, 4] = w[W_CUCUQ]
        tr[k, 5] = w[W_MANGUNO]
        tr[k, 6] = w[W_MATT_MASK]
        for s in range(5):
            tr[k, 7 + s] = pip_sum(hands[s])
        tr[k, 12] = w[W_SIZE]
    tn[0] = k + 1


# ---------------------------------------------------------------- tables
@njit(cache=True)
def init_states(seed, table_start, n_tables, stones):
    """Fresh table states: no stones held, ``stones`` on the table, no CAMAT,
    first round next, and each table's generators (the deal stream and the
    five seat streams) from (seed, table index)."""
    state = np.zeros((n_tables, L.ST_LEN), dtype=np.int64)
    useed = np.uint64(seed)
    for i in range(n_tables):
        state[i, L.ST_TABLE] = stones
        state[i, L.ST_CAMAT] = -1
        state[i, L.ST_NEXT_STARTER] = -1
        t = np.uint64(table_start + i)
        state[i, L.ST_RNG] = np.int64(table_state(useed, t))
        for p in range(5):
            state[i, L.ST_SEAT_RNG + p] = np.int64(seat_state(useed, t, np.uint64(p)))
    return state
