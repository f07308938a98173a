"""The chunk runner of a study: one code path for local runs, Dask clusters
and checkpoints.

A study of ``tables`` tables is cut into chunks of ``chunk_tables``
consecutive table indices (:class:`Plan`).  :func:`chunk_task` plays one
chunk with :func:`domeng.batch.tables.run_tables` and reduces its per-table arrays
into the study's groups (table ``t`` belongs to group ``t * G // tables``),
returning a small :class:`ChunkResult`.  Table ``t`` depends only on
``(seed, t)`` and every sum is an integer sum, so adding the chunk results
in any order, on any number of machines, gives bit-identical group sums:
this is what makes clusters, retries after a lost worker, and resuming from
a checkpoint exact.

:func:`run_plan` drives the chunks:

* locally, in table order, in this process (``threads`` numba threads);
* on a ``dask.distributed.Client``: each chunk is one task (pure: its key
  is derived from the study and the chunk index, and it may be retried or
  recomputed after a worker dies); results are collected with
  ``as_completed`` while a bounded window of tasks is in flight;
* with a :class:`~domeng.study.checkpoint.Checkpoint`: chunks already on disk are
  loaded instead of played, and each finished chunk is written durably
  before it counts.

With per-round records, no piece of records is larger than
:data:`RECORD_PIECE_ROUNDS` table-rounds (:func:`record_pieces`: blocks of
tables, or one long table in slices of rounds continued from its state):
locally they stream to their file piece by piece; on a cluster a longer
chunk is a chain of piece tasks (:func:`piece_task`), each continuing from
the state the one before returned, its records written as they arrive.
The numbers are those of one call either way.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from domeng.batch.tables import (
    TablesOutput,
    run_tables,
)
from domeng.core import layout as L
from domeng.core.compiling import Stopwatch
from domeng.core.errors import ClusterError, ClusterFailure, DomengError, PlayerError
from domeng.infra.progress import within
from domeng.results.meta import package_version
from domeng.results.results import Results
from domeng.study.cluster import fingerprint
from domeng.study.plan import ChunkResult, Plan, Sums, Todo
from domeng.study.records import OrderedRecords as _OrderedRecords
from domeng.study.records import RecordWriter
from domeng.study.summary import CHUNK_ROUNDS_RECORDS, check_chunk, group_of, summarize_state
from domeng.study.summary import default_chunk_tables as local_default_chunk_tables

#: a task failing with an exception is retried this many times (a worker
#: dying is handled by the scheduler itself: the task is computed again)
TASK_RETRIES = 2
#: with a cluster and no explicit chunk size, aim at this many chunks per worker thread
CHUNKS_PER_THREAD = 4
#: ... but never chunks of fewer table-rounds than this (task overhead)
MIN_CHUNK_ROUNDS = 20_000
#: with records, a chunk is played in pieces of at most this many table-rounds
#: (a long table in slices of rounds), so records memory stays bounded
RECORD_PIECE_ROUNDS = CHUNK_ROUNDS_RECORDS
#: a cluster that finishes no chunk for this many seconds has failed
STALL_SECONDS = 600.0

#: locally, without records or a checkpoint, consecutive chunks are played by
#: one engine call of about this many seconds (:func:`_local_batches`) ...
BATCH_SECONDS = 1.0
#: ... and at most this many tables (each table's aggregates take AGG_LEN int64)
BATCH_TABLES = 2048

# one kernel call at a time per process: numba's default threading layer may
# not be entered by two threads at once (a Dask worker with --nthreads > 1)
_ENGINE_LOCK = threading.Lock()


def chunk_task(
    plan: Plan,
    index: int,
    threads: int | None = None,
    expect: tuple | None = None,
    sink: Callable[[np.ndarray], None] | None = None,
    piece_rounds: int | None = None,
) -> ChunkResult:
    """Play chunk ``index`` of ``plan`` and reduce it into groups.

    A pure function of its arguments (the Dask task).  ``threads``: numba
    threads (None in a Dask worker: the worker's thread count, 1 for the
    recommended ``--nthreads 1`` workers).  ``expect``: the client's
    :func:`~domeng.study.cluster.fingerprint`; a worker running another domeng
    refuses the task (its numbers could differ).  ``sink``: with records,
    called with each piece of records in table order (then the result holds
    none), so that records memory stays bounded (pieces of at most
    ``piece_rounds`` table-rounds: :func:`record_pieces`)."""
    _check_engine(expect)
    if threads is None:
        threads = _worker_threads()
    start, n = plan.chunk(index)
    with _ENGINE_LOCK, _players_fail_as_one_line(plan, start, n):
        if plan.records:
            out = _play_in_pieces(plan, start, n, threads, sink, piece_rounds)
        else:
            out = run_tables(
                plan.players_arg(), plan.rules, plan.seed, start, n, plan.rounds, threads=threads
            )
    if (
        plan.records
        and sink is None
        and (out.records is None or len(out.records) != n * plan.rounds)
    ):
        raise RuntimeError("run_tables did not return the records asked for")
    return _reduce(plan, index, out, out.records if plan.records and sink is None else None)


def _local_batches(plan: Plan, todo: Sequence[int], threads: int | None) -> Iterator[ChunkResult]:
    """The results of chunks ``todo`` (in order), played in this process with
    consecutive chunks in one engine call, grown towards :data:`BATCH_SECONDS`
    a call: a study pays the calls' fixed costs (players, fresh states, the
    kernel's first short slices) a few times, not once per chunk.  Each chunk
    is reduced on its own, so the results are :func:`chunk_task`'s exactly.
    Only without records or a checkpoint (those go chunk by chunk)."""
    if threads is None:
        threads = _worker_threads()
    it = iter(todo)
    nxt, size = next(it, None), 1
    while nxt is not None:
        batch = [nxt]
        nxt = next(it, None)
        while nxt is not None and len(batch) < size and nxt == batch[-1] + 1:
            batch.append(nxt)
            nxt = next(it, None)
        start, end = plan.chunk(batch[0])[0], sum(plan.chunk(batch[-1]))
        t0, c0 = time.perf_counter(), time.process_time()
        with _ENGINE_LOCK, _players_fail_as_one_line(plan, start, end - start):
            out = run_tables(
                plan.players_arg(),
                plan.rules,
                plan.seed,
                start,
                end - start,
                plan.rounds,
                threads=threads,
            )
        # seconds a chunk: the CPU time where other processes share the core
        took = max(min(time.perf_counter() - t0, time.process_time() - c0), 1e-6) / len(batch)
        size = max(
            1, min(8 * len(batch), int(BATCH_SECONDS / took), BATCH_TABLES // plan.chunk_tables)
        )
        for i in batch:
            a, n = plan.chunk(i)
            part = TablesOutput(
                out.agg[a - start : a - start + n], out.state[a - start : a - start + n]
            )
            yield _reduce(plan, i, part, None)


def _check_engine(expect: tuple | None) -> None:
    if expect is not None:
        mine = fingerprint()
        if tuple(mine) != tuple(expect):
            raise ClusterError(
                f"a worker runs domeng {mine[0]} (engine {mine[1]}) but the client "
                f"runs domeng {expect[0]} (engine {expect[1]}): install the same "
                "version everywhere"
            )


def _reduce(plan: Plan, index: int, out: TablesOutput, records) -> ChunkResult:
    """Chunk ``index``'s per-table arrays ``out``, checked and reduced into groups."""
    start, n = plan.chunk(index)
    check_chunk(out, n, plan.rounds, plan.rules, start)
    gid = group_of(np.arange(start, start + n), plan.tables, plan.groups)
    uniq, first = np.unique(gid, return_index=True)
    return ChunkResult(
        index=index,
        start=start,
        n=n,
        groups=uniq.astype(np.int64),
        agg=np.add.reduceat(out.agg, first, axis=0),
        state=np.add.reduceat(summarize_state(out.state), first, axis=0),
        counts=np.diff(np.append(first, n)).astype(np.int64),
        records=records,
        digest=plan.chunk_digest(index),
    )


@contextlib.contextmanager
def _players_fail_as_one_line(plan: Plan, start: int, n: int):
    """A player of the user's own (not a built-in) that raises becomes one
    :class:`~domeng.core.errors.PlayerError` naming it (no traceback)."""
    try:
        yield
    except (DomengError, KeyboardInterrupt, MemoryError, SystemExit):
        raise
    except Exception as e:
        own = (
            [p for p in plan.players if ":" in p]
            if plan.engine_players is None
            else list(plan.players)
        )
        if not own:
            raise
        text = " ".join(str(e).split())[:200]
        raise PlayerError(
            f"player {', '.join(dict.fromkeys(own))} failed at tables "
            f"{start}..{start + n - 1}: {type(e).__name__}: {text}"
        ) from None


# ----------------------------------------------------------- record pieces
def record_pieces(
    plan: Plan, start: int, n: int, piece_rounds: int | None = None
) -> Iterator[tuple[int, int, int, int]]:
    """The pieces tables ``start .. start+n-1`` of a study with records are
    played in, in table order: ``(first table, tables, first round, rounds)``,
    each at most ``piece_rounds`` table-rounds (default
    :data:`RECORD_PIECE_ROUNDS`): blocks of whole tables, or one long table
    in slices of rounds (a slice with first round > 0 continues from the
    state the slice before left: the same numbers as one call)."""
    cap = RECORD_PIECE_ROUNDS if piece_rounds is None else piece_rounds
    block = max(1, cap // plan.rounds)
    step = plan.rounds if block > 1 else max(1, min(plan.rounds, cap))
    for b0 in range(start, start + n, block):
        nb = min(block, start + n - b0)
        for r0 in range(0, plan.rounds, step):
            yield b0, nb, r0, min(step, plan.rounds - r0)


def _play_piece(plan: Plan, piece: tuple[int, int, int, int], state, threads) -> TablesOutput:
    b0, nb, _, s = piece
    out = run_tables(
        plan.players_arg(), plan.rules, plan.seed, b0, nb, s, True, threads=threads, state=state
    )
    if out.records is None or len(out.records) != nb * s:
        raise RuntimeError("run_tables did not return the records asked for")
    return out


class _Assembly:
    """A chunk's per-table aggregates and final states, piece by piece."""

    def __init__(self) -> None:
        self.aggs: list[np.ndarray] = []
        self.states: list[np.ndarray] = []

    def state_for(self, piece) -> np.ndarray | None:
        """The state ``piece`` continues from (None: its tables start fresh)."""
        return self.states[-1] if piece[2] > 0 else None

    def add(self, piece, out: TablesOutput) -> None:
        if piece[2] == 0:
            self.aggs.append(np.array(out.agg, copy=True))
            self.states.append(out.state)
        else:
            self.aggs[-1] += out.agg
            self.states[-1] = out.state

    def output(self, records=None) -> TablesOutput:
        return TablesOutput(np.concatenate(self.aggs), np.concatenate(self.states), records)


def _play_in_pieces(plan: Plan, start: int, n: int, threads, sink, piece_rounds=None):
    """Play tables ``start .. start+n-1`` with records in :func:`record_pieces`,
    giving each piece's records to ``sink`` in table order (or collecting them)."""
    asm = _Assembly()
    kept: list[np.ndarray] = []
    for piece in record_pieces(plan, start, n, piece_rounds):
        out = _play_piece(plan, piece, asm.state_for(piece), threads)
        asm.add(piece, out)
        if sink is not None:
            sink(out.records)
        elif out.records is not None:
            kept.append(out.records)
    recs = None
    if sink is None:
        recs = kept[0] if len(kept) == 1 else np.concatenate(kept)
    return asm.output(recs)


def piece_task(
    plan: Plan, index: int, piece: tuple[int, int, int, int], state, expect: tuple | None = None
) -> TablesOutput:
    """Play one piece (:func:`record_pieces`) of chunk ``index``, continuing
    from ``state`` (None: fresh tables): the Dask task of a chunk too long
    to send its records in one piece.  Returns its records, aggregates and
    final state."""
    _check_engine(expect)
    with _ENGINE_LOCK, _players_fail_as_one_line(plan, piece[0], piece[1]):
        return _play_piece(plan, piece, state, _worker_threads())


def _worker_threads() -> int | None:
    import sys

    if "distributed" not in sys.modules:  # not in a Dask worker (and keep local runs light)
        return None
    try:
        from distributed import get_worker

        w = get_worker()
    except (ImportError, ValueError):
        return None  # not in a Dask worker: the engine's default
    n: Any = getattr(getattr(w, "state", None), "nthreads", None) or getattr(w, "nthreads", 1)
    return max(1, int(n))


def default_chunk_tables(tables: int, rounds: int, records: bool, client=None) -> int:
    """The study's default chunk size; with a cluster, small enough to give
    every worker thread several chunks (results never depend on it)."""
    ct = local_default_chunk_tables(tables, rounds, records)
    if client is not None:
        threads = max(1, _cluster_threads(client))
        want = math.ceil(tables / (CHUNKS_PER_THREAD * threads))
        floor = math.ceil(MIN_CHUNK_ROUNDS / rounds)
        ct = max(1, min(ct, max(want, floor)))
    return ct


def _cluster_threads(client) -> int:
    try:
        return int(sum(client.nthreads().values()))
    except Exception:
        return 0


def run_plan(
    plan: Plan,
    *,
    client=None,
    threads: int | None = None,
    writer=None,
    checkpoint=None,
    progress_fn: Callable[[int, int], None] | None = None,
    stall_seconds: float | None = None,
    piece_rounds: int | None = None,
) -> Sums:
    """Play every chunk of ``plan`` not yet in ``checkpoint`` and return the group sums.

    ``writer``: a :class:`~domeng.study.records.RecordWriter` (records in table
    order; not with a checkpoint, which keeps records per chunk).  Records
    stream to their file in pieces of at most ``piece_rounds`` table-rounds
    (default :data:`RECORD_PIECE_ROUNDS`), locally and on a cluster (where a
    longer chunk is a chain of piece tasks).  ``stall_seconds``: a cluster
    that finishes no task for this long fails with
    :class:`~domeng.core.errors.ClusterFailure` (default :data:`STALL_SECONDS`).
    The sums' ``timing`` gets ``compile_seconds`` (numba compiled this long in this
    process meanwhile: measured, :mod:`domeng.core.compiling`) and
    ``compute_seconds``: the seconds every chunk of the study took to play,
    in this run and (from the checkpoint) the runs before, or NaN when a
    chunk on disk does not say (written by an older domeng).  A progress
    bar (:class:`~domeng.infra.progress.Progress`, or a part of one) is
    also told of the table-rounds played within a chunk."""
    watch = Stopwatch()
    sums = Sums(plan)
    spent = [0.0, 0.0]  # the chunks' compute seconds, and this run's at the last chunk
    if checkpoint is not None:
        for r in checkpoint.load_done():
            sums.add(r)
            spent[0] += r.seconds if 0.0 <= r.seconds < math.inf else math.nan
    todo = Todo(plan.n_chunks, sums.done)
    ticks = _Ticks(progress_fn, plan, sums)
    ordered: _OrderedRecords | None = None  # records in table order (on a cluster)

    def consume(r: ChunkResult) -> None:
        now = watch.compute_seconds
        r.seconds, spent[1] = now - spent[1], now
        spent[0] += r.seconds
        ticks.acc = 0
        r.validate(plan)
        if r.digest != plan.chunk_digest(r.index):
            raise RuntimeError(f"internal error: chunk {r.index} was played for another study")
        if checkpoint is not None:
            checkpoint.write_chunk(r)
        elif ordered is not None and r.records is not None:
            ordered.put(r.index, r.records)
        r.records = None
        sums.add(r)
        if progress_fn is not None:
            progress_fn(sums.tables_done, plan.tables)

    try:
        if client is None:
            with within(ticks if ticks.fn is not None else None):
                _run_local(plan, todo, threads, writer, checkpoint, piece_rounds, consume)
        else:
            ordered = _OrderedRecords(writer, todo) if writer is not None else None
            _run_on_cluster(
                client,
                plan,
                todo,
                consume,
                ordered,
                STALL_SECONDS if stall_seconds is None else stall_seconds,
                checkpoint=checkpoint,
                piece_rounds=RECORD_PIECE_ROUNDS if piece_rounds is None else piece_rounds,
            )
    finally:
        sums.timing.update(compile_seconds=watch.compile_seconds, compute_seconds=spent[0])
    return sums


class _Ticks:
    """The table-rounds played within the current chunk(s), told to a
    progress bar as fractional tables (None: ``progress_fn`` is not a bar)."""

    def __init__(self, progress_fn, plan: Plan, sums: Sums) -> None:
        self.fn = progress_fn if getattr(progress_fn, "fractional", False) else None
        self.plan, self.sums, self.acc = plan, sums, 0

    def __call__(self, table_rounds: int) -> None:
        self.acc += table_rounds
        if self.fn is not None:
            self.fn(self.sums.tables_done + self.acc / self.plan.rounds, self.plan.tables)


def _run_local(plan: Plan, todo, threads, writer, checkpoint, piece_rounds, consume) -> None:
    """:func:`run_plan`'s chunks in this process, in table order."""
    if not plan.records and checkpoint is None:
        for r in _local_batches(plan, todo, threads):
            consume(r)
        return
    for i in todo:
        if plan.records and checkpoint is not None:
            part = checkpoint.records_writer(i)
            try:
                r = chunk_task(plan, i, threads, sink=part.write, piece_rounds=piece_rounds)
                part.close()
            except BaseException:
                part.abort()
                raise
        else:
            sink = writer.write if writer is not None else None
            r = chunk_task(plan, i, threads, sink=sink, piece_rounds=piece_rounds)
        consume(r)


class _Chain:
    """A chunk played on a cluster as a chain of piece tasks (its records
    would be too large for one task): each piece continues from the state
    the one before left, and its records are written as it arrives."""

    def __init__(self, plan: Plan, index: int, piece_rounds: int, part) -> None:
        self.index = index
        start, n = plan.chunk(index)
        self.pieces = record_pieces(plan, start, n, piece_rounds)
        self.piece: tuple[int, int, int, int] | None = next(self.pieces)
        self.number = 0
        self.asm = _Assembly()
        self.part = part  # the checkpoint's records writer of this chunk, or None

    def advance(self) -> bool:
        """Move to the next piece; False when the chunk is done."""
        self.piece = next(self.pieces, None)
        self.number += 1
        return self.piece is not None


def _run_on_cluster(
    client,
    plan: Plan,
    todo: Sequence[int],
    consume,
    ordered,
    stall_seconds: float,
    checkpoint=None,
    piece_rounds: int = RECORD_PIECE_ROUNDS,
) -> None:
    """Each chunk is one task; with records, a chunk of more than
    ``piece_rounds`` table-rounds is a :class:`_Chain` of piece tasks, so no
    task returns more records than that (written to the chunk's records part
    in the checkpoint, or in table order through ``ordered``, as they
    arrive).  At most a window of tasks is in flight, and records waiting
    for their turn in ``ordered`` hold back the chains they belong to."""
    _ClusterRun(client, plan, todo, consume, ordered, checkpoint, piece_rounds).run(stall_seconds)


class _ClusterRun:
    """The state of :func:`_run_on_cluster`: the tasks in flight, the chains
    being played piece by piece, the chains held back, the next chunk."""

    def __init__(
        self, client, plan: Plan, todo, consume, ordered, checkpoint, piece_rounds
    ) -> None:
        from distributed import as_completed

        self.client, self.plan, self.todo = client, plan, todo
        self.consume, self.ordered = consume, ordered
        self.checkpoint, self.piece_rounds = checkpoint, piece_rounds
        self.token = plan.token()
        self.expect = fingerprint()
        self.window = 8
        self.refreshed = -1e9
        self.ac = as_completed()
        self.pending: dict[str, tuple[int, _Chain | None]] = {}
        self.futures: dict = {}
        self.chains: dict[int, _Chain] = {}  # chunks being played piece by piece
        self.held: list[_Chain] = []  # chains whose records wait for their turn
        self.nxt = 0  # position in todo of the next chunk to submit

    def refresh_window(self) -> int:
        now = time.monotonic()
        if now - self.refreshed > 5.0:
            self.refreshed = now
            self.window = max(8, 3 * _cluster_threads(self.client))
        return self.window

    def track(self, f, i: int, chain: _Chain | None) -> None:
        self.pending[f.key] = (i, chain)
        self.futures[f.key] = f
        self.ac.add(f)

    def may_go_on(self, ch: _Chain) -> bool:
        o = self.ordered
        return o is None or o.is_head(ch.index) or o.buffered < self.window

    def submit_piece(self, ch: _Chain) -> None:
        f = self.client.submit(
            piece_task,
            self.plan,
            ch.index,
            ch.piece,
            ch.asm.state_for(ch.piece),
            self.expect,
            key=f"domeng-piece-{self.token}-{ch.index}-{ch.number}",
            pure=True,
            retries=TASK_RETRIES,
        )
        self.track(f, ch.index, ch)

    def fill(self) -> None:
        plan, todo, ordered = self.plan, self.todo, self.ordered
        w = self.refresh_window()
        for ch in [c for c in self.held if self.may_go_on(c)]:
            self.held.remove(ch)
            self.submit_piece(ch)
        while (
            self.nxt < len(todo)
            and len(self.pending) + len(self.held) < w
            and (ordered is None or ordered.lag_ok(self.nxt, w))
        ):
            i = todo[self.nxt]
            _start, n = plan.chunk(i)
            if plan.records and n * plan.rounds > self.piece_rounds:
                ck = self.checkpoint
                part = ck.records_writer(i) if ck is not None else None
                self.chains[i] = _Chain(plan, i, self.piece_rounds, part)
                self.submit_piece(self.chains[i])
            else:
                f = self.client.submit(
                    chunk_task,
                    plan,
                    i,
                    None,
                    self.expect,
                    key=f"domeng-chunk-{self.token}-{i}",
                    pure=True,
                    retries=TASK_RETRIES,
                )
                self.track(f, i, None)
            self.nxt += 1

    def piece_done(self, ch: _Chain, out: TablesOutput) -> None:
        ch.asm.add(ch.piece, out)
        if ch.part is not None:
            ch.part.write(out.records)
        elif self.ordered is not None:
            self.ordered.put(ch.index, out.records, complete=False)
        if ch.advance():
            if self.may_go_on(ch):
                self.submit_piece(ch)
            else:
                self.held.append(ch)
            return
        del self.chains[ch.index]
        if ch.part is not None:
            ch.part.close()  # durable before the chunk counts
            ch.part = None
        if self.ordered is not None:
            self.ordered.put(ch.index, None, complete=True)
        self.consume(_reduce(self.plan, ch.index, ch.asm.output(), None))

    def run(self, stall_seconds: float) -> None:
        """Play every chunk of ``todo``; fail when none finishes for ``stall_seconds``."""
        try:
            self.fill()
            progress_at = time.monotonic()
            while self.pending:
                if not self.ac.has_ready():  # wait in short steps: Ctrl-C acts, a stall is seen
                    self.check_alive(progress_at, stall_seconds)
                    time.sleep(0.05)
                    continue
                f = next(self.ac)
                i, chain = self.pending.pop(f.key)
                self.futures.pop(f.key, None)
                r = self.result(f, i)
                f.release()
                if chain is None:
                    self.consume(r)
                else:
                    self.piece_done(chain, r)
                progress_at = time.monotonic()  # a piece of a chunk is progress too
                self.fill()
            if self.chains or self.held:
                raise RuntimeError("internal error: a chunk's pieces were not all played")
        finally:
            self.close()

    def check_alive(self, progress_at: float, stall_seconds: float) -> None:
        client = self.client
        if getattr(client, "status", "running") not in ("running", "connecting"):
            raise _lost("the Dask scheduler was lost")
        if time.monotonic() - progress_at > stall_seconds:
            raise _lost(
                f"the cluster finished no chunk for {stall_seconds:g} s "
                f"({_cluster_threads(client)} worker threads left)"
            )

    def result(self, f, i: int):
        """Task ``f``'s result (of chunk ``i``), or one clear error."""
        from concurrent.futures import CancelledError

        try:
            from distributed.scheduler import KilledWorker
        except ImportError:  # pragma: no cover - older layouts
            from distributed import KilledWorker

        try:
            return f.result()
        except KilledWorker as e:
            raise ClusterError(
                f"chunk {i} (tables {self.plan.chunk(i)[0]}..) killed several "
                f"workers in a row; giving up ({_first_line(e)})"
            ) from None
        except CancelledError:
            raise _lost(f"chunk {i} was cancelled (the scheduler was lost or restarted)") from None
        except (OSError, TimeoutError) as e:
            raise _lost(f"the cluster failed ({type(e).__name__}: {_first_line(e)})") from None

    def close(self) -> None:
        if self.futures:
            try:
                self.client.cancel(list(self.futures.values()))
            except Exception:
                pass
        for ch in self.chains.values():
            if ch.part is not None:
                ch.part.abort()


def _lost(why: str) -> ClusterFailure:
    return ClusterFailure(
        f"{why}; the chunks finished so far are kept (with --out DIR, "
        "continue with `domeng simulate --resume DIR`)"
    )


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def record_metadata(plan: Plan) -> dict[str, str]:
    """Key-value metadata of a study's records Parquet file (values are JSON
    text: ``json.loads`` reads the players list, the rules dict, the kinds)."""
    import json

    return {
        "domeng.version": json.dumps(package_version()),
        "domeng.seed": json.dumps(plan.seed),
        "domeng.players": json.dumps(list(plan.players)),
        "domeng.rules": json.dumps(plan.rules.to_dict()),
        "domeng.kinds": json.dumps(list(L.KIND_NAMES)),
        "domeng.digest": json.dumps(plan.study_digest()),
    }


def run_study(
    plan: Plan,
    *,
    client=None,
    threads: int | None = None,
    records=None,
    checkpoint=None,
    progress_fn=None,
    stall_seconds: float | None = None,
    piece_rounds: int | None = None,
):
    """Run (or finish) a study and return its :class:`~domeng.results.results.Results`.

    ``records``: a Parquet path (without a checkpoint; with one, the
    checkpoint's records path is used).  With a checkpoint, the results are
    also written into its folder at the end (``results.npz`` last).
    ``piece_rounds``: the largest piece of records (see :func:`run_plan`)."""
    from domeng.core.numba_cache import prepare

    prepare()
    meta = {
        "tables": plan.tables,
        "rounds": plan.rounds,
        "seed": plan.seed,
        "rules": plan.rules.to_dict(),
        "players": list(plan.players),
        "version": package_version(),
        "groups": plan.groups,
        "engine": fingerprint()[1],
        "digest": plan.study_digest(),
    }
    writer = None
    if checkpoint is None and plan.records:
        if records is None:
            raise ValueError("records asked for without a records path")
        writer = RecordWriter(records, metadata=record_metadata(plan))
    try:
        sums = run_plan(
            plan,
            client=client,
            threads=threads,
            writer=writer,
            checkpoint=checkpoint,
            progress_fn=progress_fn,
            stall_seconds=stall_seconds,
            piece_rounds=piece_rounds,
        )
        rows = None
        if writer is not None:
            writer.close()
            rows = writer.rows
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    if not np.array_equal(plan.group_tables(), sums.counted) or len(sums.done) != plan.n_chunks:
        raise RuntimeError("internal error: tables were not all counted once")
    if checkpoint is not None:
        rows = checkpoint.finish_records(record_metadata(plan))
    # measured compiles, apart; the time: every run's compute (a resumed study's too)
    meta["compile_seconds"] = sums.timing.get("compile_seconds", 0.0)
    spent = sums.timing.get("compute_seconds", math.nan)
    meta["elapsed_seconds"] = spent if spent == spent else None  # NaN: not known
    meta["records_rows"] = rows
    res = Results(sums.agg, sums.state, sums.counted, meta)
    if checkpoint is not None:
        res.write_files(checkpoint.folder)
        checkpoint.prune()
        checkpoint.drop_previous()
    return res
