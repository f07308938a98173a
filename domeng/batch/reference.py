"""Studies on the reference engine (the slow, readable path).

Fills exactly the arrays of :mod:`domeng.core.layout` that the batch engine fills,
so the two can be compared number for number, and so that a study of Python
players (any object with ``choose``) can be reported like any other.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from domeng.core import layout as L
from domeng.core.errors import PlayerError
from domeng.core.events import (
    END_KINDS,
    REASONS,
    TABLE,
    Block,
    Lead,
    Pass,
    Play,
    Unpaid,
    from_dict,
)
from domeng.core.rules import Rules
from domeng.engine import tally
from domeng.engine.reference import Round, Table
from domeng.engine.rulebook import UNPAID
from domeng.infra.progress import advance


def _packed(counts: list[int]) -> int:
    """Per-seat counts packed as an outcome carries them (:mod:`domeng.engine.tally`)."""
    return sum(c << (tally.SEAT_BITS * p) for p, c in enumerate(counts))


def aggregate_round(agg: np.ndarray, st: np.ndarray, rnd: Round) -> np.ndarray:
    """Add one finished round to a table's aggregates ``agg`` (its outcome
    and flows, through :func:`domeng.engine.tally.accumulate` and
    :func:`domeng.engine.tally.flow`, as the compiled drivers do) and update its
    state vector ``st``; returns the round's record (``REC_COLUMNS``, then
    the per-seat blocks ``SEAT_COLUMNS``: :mod:`domeng.core.layout`)."""
    res = rnd.result
    assert res is not None
    kind = END_KINDS.index(res.kind)
    events = [from_dict(ev) for ev in rnd.events]  # the engine's dicts, typed
    passed = [0] * 5
    pb = [0] * 5
    mk = [0] * 5
    for ev in events:
        if isinstance(ev, Pass):
            passed[ev.seat] += 1
            if ev.passebunge:
                pb[ev.seat] += 1
        elif isinstance(ev, Play) and ev.mappakuling:
            mk[ev.seat] += 1
    by_reason = [0] * L.N_REASONS
    from_table = 0
    rec = np.zeros(L.REC_LEN, dtype=np.int64)
    for tr in res.transfers:
        r = REASONS.index(tr.reason)
        tally.flow(agg, tr.source, tr.dest, tr.amount, r)
        by_reason[r] += tr.amount
        rec[L.seat_col(tr.dest, L.SC_RECEIVED + r)] += tr.amount
        if tr.source == TABLE:
            from_table += tr.amount
            rec[L.seat_col(tr.dest, L.SC_FROM_TABLE)] += tr.amount
        else:
            rec[L.seat_col(tr.source, L.SC_GIVEN + r)] += tr.amount
    unpaid = 0
    for ev in events:
        if isinstance(ev, Unpaid):
            tally.flow(agg, UNPAID, ev.to, ev.amount, REASONS.index(ev.reason))
            unpaid += ev.amount
            rec[L.seat_col(ev.to, L.SC_UNPAID)] += ev.amount
    st[L.ST_ROUNDS] += 1
    st[L.ST_SINCE_CAMAT] += 1
    gap = 0
    if res.camat is not None:
        gap = int(st[L.ST_SINCE_CAMAT])
        st[L.ST_CAMATS] += 1
        st[L.ST_SINCE_CAMAT] = 0
    outcome = (
        kind,
        res.winner,
        rnd.starter,
        -1 if res.cucuq is None else res.cucuq,
        -1 if res.camat is None else res.camat,
        gap,
        res.turns,
        res.tiles_played,
        _packed(passed),
        _packed(pb),
        _packed(mk),
        sum(1 << p for p in res.mattikkeng),
    )
    tally.accumulate(agg, outcome)
    t = rnd.table
    st[L.ST_STONES : L.ST_STONES + 5] = t.stones
    st[L.ST_TABLE] = t.table_stones
    st[L.ST_CAMAT] = -1 if t.camat is None else t.camat
    st[L.ST_NEXT_STARTER] = -1 if t.next_starter is None else t.next_starter
    st[L.ST_RNG : L.ST_RNG + 6] = np.array(t.rng_states(), dtype=np.uint64).view(np.int64)
    sums = rnd.pip_sums()
    for p in range(L.N_SEATS):
        rec[L.seat_col(p, L.SC_PASSES)] = passed[p]
        rec[L.seat_col(p, L.SC_PASSEBUNGE)] = pb[p]
        rec[L.seat_col(p, L.SC_STONES)] = t.stones[p]  # after a CAMAT's return (D15)
        rec[L.seat_col(p, L.SC_TILES_LEFT)] = len(rnd.hands[p])
        rec[L.seat_col(p, L.SC_PIP_SUM)] = sums[p]
    rec[L.RC_ROUND] = rnd.number
    rec[L.RC_STARTER] = rnd.starter
    rec[L.RC_KIND] = kind
    rec[L.RC_WINNER] = res.winner
    rec[L.RC_CUCUQ] = -1 if res.cucuq is None else res.cucuq
    rec[L.RC_MANGUNO] = -1 if res.manguno is None else res.manguno
    rec[L.RC_N_MATT] = len(res.mattikkeng)
    rec[L.RC_PASSES] = res.passes
    rec[L.RC_PASSEBUNGE] = res.passebunge
    rec[L.RC_TILES] = res.tiles_played
    rec[L.RC_TURNS] = res.turns
    rec[L.RC_STONES : L.RC_STONES + L.N_REASONS] = by_reason
    rec[L.RC_FROM_TABLE] = from_table
    rec[L.RC_UNPAID] = unpaid
    rec[L.RC_CAMAT] = -1 if res.camat is None else res.camat
    rec[L.RC_LEAD] = next(ev.tile for ev in events if isinstance(ev, Lead))
    turns = [ev for ev in events if isinstance(ev, (Lead, Play, Pass, Block))]
    rec[L.RC_SECOND_PASSED] = int(len(turns) > 1 and isinstance(turns[1], Pass))
    return rec


def run_reference(
    players: Sequence,
    rules: Rules | None = None,
    seed: int = 0,
    tables: int = 1,
    rounds: int = 1,
    table_start: int = 0,
    records: bool = False,
    *,
    keep_events: bool = False,
    camats: int = 0,
):
    """Play ``tables`` tables x ``rounds`` rounds on the reference engine.

    ``players``: five objects with ``choose`` (see :mod:`domeng.players.registry`).
    Returns ``(agg, state, recs, events)``: aggregates ``[tables, AGG_LEN]``,
    states ``[tables, ST_LEN]``, records ``[tables*rounds, REC_LEN]`` (or
    None) and, with ``keep_events=True``, each table's list of round event
    logs.  With ``camats > 0`` a table stops once it has had that many CAMATs
    (``rounds`` is then the cap, and records has a row per round played).
    """
    if len(players) != 5:
        raise PlayerError(f"a table needs 5 players, got {len(players)}")
    rules = rules if rules is not None else Rules()
    agg = np.zeros((tables, L.AGG_LEN), dtype=np.int64)
    state = np.zeros((tables, L.ST_LEN), dtype=np.int64)
    recs = np.zeros((tables * rounds, L.REC_LEN), dtype=np.int64) if records else None
    events = []
    for i in range(tables):
        ti = table_start + i
        table = Table(rules, seed=seed, table_index=ti)
        state[i, L.ST_NEXT_STARTER] = -1
        state[i, L.ST_CAMAT] = -1
        state[i, L.ST_TABLE] = rules.stones
        tev = []
        for r in range(rounds):
            if camats > 0 and state[i, L.ST_CAMATS] >= camats:
                break
            table.play_round(players)
            rnd = table.round
            assert rnd is not None  # the round just played
            rec = aggregate_round(agg[i], state[i], rnd)
            if recs is not None:
                rec[L.RC_TABLE] = ti
                recs[i * rounds + r] = rec
            if keep_events:
                tev.append(rnd.events)
            advance(1)  # the progress bar moves between rounds of Python players
        events.append(tev)
    if recs is not None and camats > 0:
        keep = (np.arange(rounds)[None, :] < state[:, L.ST_ROUNDS][:, None]).ravel()
        recs = recs[keep]
    return agg, state, recs, events
