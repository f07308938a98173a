"""Batch API: play many independent tables (D16) on the numba kernel.

:func:`run_tables` is the one entry point the study layer uses.  Table ``i``
(global index ``table_start + i``) depends only on ``(seed, table index)``:
its generator starts at :func:`domeng.core.rng.table_state` and every draw (deal,
players' choices) comes from it in a fixed order.  So any split of a study
into chunks of table indices, any thread count and any machine give the same
numbers.

:func:`trace_table` plays one table with the full move-by-move log in the
reference engine's event vocabulary (the dicts of ``Round.events``).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numba.core.errors import NumbaExperimentalFeatureWarning

from domeng.batch import loop
from domeng.batch.reference import run_reference
from domeng.core import layout as L
from domeng.core.errors import DomengError, PlayerError
from domeng.core.events import TR_ROWS_PER_ROUND, decode_rows
from domeng.core.numba_cache import prepare as prepare_engine
from domeng.core.rules import Rules
from domeng.engine import kernel as K
from domeng.engine import step as E
from domeng.infra.interrupt import interruptible
from domeng.infra.progress import advance
from domeng.players.heuristics import unused_strategy
from domeng.players.registry import resolve_players
from domeng.players.scoring import STRATEGY_SIG


@dataclass
class TablesOutput:
    """Per-table aggregates ``agg[n, AGG_LEN]``, final states ``state[n, ST_LEN]``
    and, on request, per-round records ``records[m, REC_LEN]`` (see :mod:`domeng.core.layout`)."""

    agg: np.ndarray
    state: np.ndarray
    records: np.ndarray | None = None


def kernel_players(players: Any) -> tuple[np.ndarray, tuple]:
    """Kernel ids of five compiled players and the tuple of their functions
    (a placeholder for built-in seats)."""
    specs = resolve_players(players)
    slow = [p.name for p in specs if not p.compiled]
    if slow:
        raise DomengError(
            f"player(s) {', '.join(slow)} are Python objects: they run on the "
            "reference engine only (use run_tables, which falls back to it)"
        )
    pids = np.array([p.pid for p in specs], dtype=np.int64)
    prepare_engine()
    # A tuple of compiled players is typed by their one signature (a numba
    # FunctionType) only if every function in it is compiled for exactly that
    # signature and no other: otherwise (five placeholders, at a table of
    # built-ins) numba types it by the function itself, a type naming the
    # function's address, so the cache of every compiled loop taking the tuple
    # gained a new entry, and a new compile, in every process.
    if not unused_strategy.signatures:
        unused_strategy.compile(STRATEGY_SIG)
        unused_strategy.disable_compile()
    fns = tuple(p.fn if p.kind == "compiled" else unused_strategy for p in specs)
    return pids, fns


def initial_states(seed: int, table_start: int, n_tables: int, rules: Rules) -> np.ndarray:
    """Fresh states of tables ``table_start .. table_start + n_tables - 1``."""
    _check_seed(seed)
    prepare_engine()
    return K.init_states(np.uint64(seed), table_start, n_tables, rules.stones)


def _check_seed(seed: int) -> None:
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= seed < 2**64:
        raise DomengError(f"seed must be a whole number 0 <= seed < 2**64, got {seed!r}")


#: numba's settings (its stubs do not list NUMBA_NUM_THREADS, set when numba loads)
_NUMBA_CONFIG: Any = numba.config


def _set_threads(threads: int | None) -> None:
    if threads is None:
        threads = _NUMBA_CONFIG.NUMBA_NUM_THREADS
    threads = max(1, min(int(threads), _NUMBA_CONFIG.NUMBA_NUM_THREADS))
    numba.set_num_threads(threads)


def run_tables(
    players: Sequence[Any] | str,
    rules: Rules | None = None,
    seed: int = 0,
    table_start: int = 0,
    n_tables: int = 1,
    rounds: int = 1,
    records: bool = False,
    *,
    threads: int | None = None,
    camats: int = 0,
    state: np.ndarray | None = None,
) -> TablesOutput:
    """Play ``n_tables`` tables for ``rounds`` rounds each (or until ``camats``
    CAMATs, if > 0, with ``rounds`` as the cap), in parallel over tables.

    Keyword-only: ``state`` continues tables from earlier states (e.g. a
    checkpoint; None: fresh tables of ``seed``).  ``threads``: numba threads
    (default: all cores, or one for a call of a few ms of built-in play:
    :data:`SMALL_WORK`; the numbers never depend on it).  ``camats``: stop a
    table at its ``camats``-th CAMAT (0: play every round).
    """
    rules = rules if rules is not None else Rules()
    if n_tables < 0 or rounds < 0:
        raise DomengError("tables and rounds must be >= 0")
    specs = resolve_players(players)
    if not all(p.compiled for p in specs):
        # the slow path: Python players run on the reference engine
        if state is not None:
            raise DomengError("continuing tables from a state needs compiled players")
        _check_seed(seed)
        agg, st, recs, _ = run_reference(
            [p.make() for p in specs],
            rules,
            seed,
            n_tables,
            rounds,
            table_start,
            records,
            camats=camats,
        )
        return TablesOutput(agg, st, recs)
    pids, fns = kernel_players(specs)
    if state is None:
        state = initial_states(seed, table_start, n_tables, rules)
    else:
        state = np.array(state, dtype=np.int64, copy=True)
        n_tables = state.shape[0]
    small = n_tables * rounds < SMALL_WORK
    if threads is None and small and all(p.kind == "builtin" for p in specs):
        threads = 1  # starting numba's threads would take longer than the work (same numbers)
    agg = np.zeros((n_tables, L.AGG_LEN), dtype=np.int64)
    if records:
        recs = np.zeros((n_tables * rounds, L.REC_LEN), dtype=np.int64)
    else:
        recs = np.zeros((1, L.REC_LEN), dtype=np.int64)
    rec_n = np.zeros(n_tables, dtype=np.int64)
    prepare_engine()
    rules_arr = rules.to_array()
    with _quiet_compile():
        fast = loop.fast_path(pids, int(records))
        if camats > 0 or n_tables == 0 or rounds < 1 or (rounds == 1 and fast):
            _kernel(
                threads,
                pids,
                fns,
                rules_arr,
                state,
                rounds,
                camats,
                agg,
                (recs if records else None, rec_n),
            )
        else:
            _run_in_slices(
                threads, pids, fns, rules_arr, state, rounds, agg, recs if records else None
            )
    _check_bad_moves(state, specs)
    out_recs = None
    if records:
        idx = np.arange(n_tables)
        recs[:, L.RC_TABLE] = np.repeat(table_start + idx, rounds)
        if camats > 0:
            keep = (np.arange(rounds)[None, :] < rec_n[:, None]).ravel()
            recs = recs[keep]
        out_recs = recs
    return TablesOutput(agg, state, out_recs)


#: a call of fewer table-rounds than this with built-in players only (a few
#: ms of work: a tournament's seating), on the default number of threads,
#: runs on one: launching numba's thread pool costs about 2 ms a call
SMALL_WORK = 20_000
#: each kernel call of run_tables aims at about this many seconds, so that a
#: call abandoned by Ctrl-C ends soon (and a long table returns to Python often)
SLICE_SECONDS = 0.25
#: tables a kernel call plays at least, per thread: the slices go block of
#: tables by block of tables, so a table's aggregates stay in the core's
#: cache for all its rounds of a call (a slice over every table of a large
#: chunk evicts them between calls: 20% slower at 4000 tables)
BLOCK_TABLES = 64


def _kernel(threads: int | None, *args) -> None:
    """``loop.run_kernel(*args)`` on ``threads`` numba threads, interruptible
    by Ctrl-C (:func:`domeng.infra.interrupt.interruptible`: the compiled
    call runs in a worker thread without the GIL; Ctrl-C leaves it at once
    even if a compiled player never returns)."""

    def call() -> None:
        _set_threads(threads)  # numba's thread count is per calling thread
        loop.run_kernel(*args)

    interruptible(call)


def _run_in_slices(threads, pids, fns, rules_arr, state, rounds, agg, recs) -> None:
    """Play ``rounds`` rounds at every table of ``state`` in slices: a block
    of tables for a number of rounds (the kernel continues a table from its
    state and adds to its aggregates, so the numbers equal one call's
    exactly), each slice sized to take about :data:`SLICE_SECONDS`.  After
    each slice the table-rounds it played are reported
    (:func:`domeng.infra.progress.advance`: the progress bar moves within a
    chunk).  Off the aggregate-mode loop (records, compiled players such as
    ``search``, whose table-round may take a second) the first slice is one
    round at one table per thread, and a block is at least one table per
    thread (not :data:`BLOCK_TABLES`), so that a slice of slow players stays
    near the time target too."""
    import time

    n = state.shape[0]
    rec_n = np.zeros(n, dtype=np.int64)
    per = max(
        1, min(int(threads or _NUMBA_CONFIG.NUMBA_NUM_THREADS), _NUMBA_CONFIG.NUMBA_NUM_THREADS)
    )
    least = per * (BLOCK_TABLES if loop.fast_path(pids, int(recs is not None)) else 1)
    work = min(n, least)  # table-rounds per call, grown towards the time target
    b0 = 0
    while b0 < n:
        nb = min(n - b0, max(least, work // rounds))
        b1 = b0 + nb
        done = 0
        while done < rounds:
            s = min(rounds - done, max(1, work // nb))
            buf = np.zeros((nb * s, L.REC_LEN), dtype=np.int64) if recs is not None else None
            t0 = time.perf_counter()
            _kernel(
                threads,
                pids,
                fns,
                rules_arr,
                state[b0:b1],
                s,
                0,
                agg[b0:b1],
                (buf, rec_n[b0:b1]),
            )
            took = time.perf_counter() - t0
            advance(nb * s)
            if recs is not None and buf is not None:
                recs.reshape(n, rounds, L.REC_LEN)[b0:b1, done : done + s] = buf.reshape(
                    nb, s, L.REC_LEN
                )
            done += s
            if took < SLICE_SECONDS / 2:  # grow (at most x8 a time) towards the target
                work = max(1, min(work * 8, int(nb * s * SLICE_SECONDS / max(took, 1e-6))))
            elif took > SLICE_SECONDS * 2:
                work = max(1, int(nb * s * SLICE_SECONDS / took))
        b0 = b1


@contextmanager
def _quiet_compile():
    """Compiled players reach the kernel as first-class functions, a numba
    feature still marked experimental; its warning is silenced around our
    own calls only (no process-wide filter)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
        yield


def _check_bad_moves(state: np.ndarray, specs) -> None:
    bad = int(state[:, L.ST_BAD_MOVES].sum())
    if bad:
        custom = [p.name for p in specs if p.kind == "compiled"]
        raise PlayerError(
            f"compiled player(s) {', '.join(custom) or '?'} returned {bad} move "
            "index(es) outside 0..n_moves-1"
        )


# --------------------------------------------------------------------- trace
def trace_table(
    players: Sequence[str] | str,
    rules: Rules | None = None,
    seed: int = 0,
    table: int = 0,
    rounds: int = 1,
    state: np.ndarray | None = None,
) -> tuple[list[list[dict[str, Any]]], np.ndarray, np.ndarray]:
    """Play table ``table`` of a study for ``rounds`` rounds with the full log.

    Returns ``(events per round, aggregates, final state)``.
    """
    events, agg, st, _recs = trace_table_records(players, rules, seed, table, rounds, state)
    return events, agg, st


def trace_table_records(
    players: Sequence[str] | str,
    rules: Rules | None = None,
    seed: int = 0,
    table: int = 0,
    rounds: int = 1,
    state: np.ndarray | None = None,
) -> tuple[list[list[dict[str, Any]]], np.ndarray, np.ndarray, np.ndarray]:
    """:func:`trace_table` with each round's record as well (``int64[rounds,
    REC_LEN]``, :mod:`domeng.core.layout`: e.g. the stones each seat holds
    after the round).

    Returns ``(events per round, aggregates, final state, records)``.
    """
    rules = rules if rules is not None else Rules()
    pids, fns = kernel_players(players)
    prepare_engine()
    st = initial_states(seed, table, 1, rules)[0] if state is None else np.array(state, np.int64)
    agg = np.zeros(L.AGG_LEN, dtype=np.int64)
    recs = np.zeros((rounds, L.REC_LEN), dtype=np.int64)
    kept = E.keep(trace_rows=rounds * TR_ROWS_PER_ROUND, record=True, deltas=False)
    B = loop.study_stack(pids, rules.to_array(), st[None], agg[None], kept)
    with _quiet_compile():
        n = interruptible(loop.trace_kernel, (pids, fns), B, rounds, recs)
    _check_bad_moves(st[None, :], resolve_players(players))
    tr = B.tr[0]
    if n > tr.shape[0]:  # pragma: no cover - the buffer is sized for the worst case
        raise RuntimeError("trace buffer overflow")
    recs[:, L.RC_TABLE] = table
    return decode_rows(tr[:n]), agg, st, recs


def default_threads() -> int:
    """Threads the kernel uses by default (all cores, or NUMBA_NUM_THREADS)."""
    return int(_NUMBA_CONFIG.NUMBA_NUM_THREADS or os.cpu_count() or 1)
