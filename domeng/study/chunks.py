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
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from domeng.batch.tables import run_tables  # noqa: F401  (looked up here: tests replace it)
from domeng.core import layout as L
from domeng.core.errors import ClusterError, ClusterFailure, DomengError, PlayerError
from domeng.core.rules import Rules
from domeng.results.results import Results, package_version
from domeng.results.results import study_digest as _results_study_digest
from domeng.study.cluster import fingerprint
from domeng.study.records import RecordWriter
from domeng.study.summary import (CHUNK_ROUNDS_RECORDS, MAX_GROUPS, S_LEN, check_chunk, group_of,
                                  summarize_state)
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

# one kernel call at a time per process: numba's default threading layer may
# not be entered by two threads at once (a Dask worker with --nthreads > 1)
_ENGINE_LOCK = threading.Lock()


@dataclass(frozen=True)
class Plan:
    """What a study computes and how it is cut into chunks."""

    tables: int
    rounds: int
    seed: int
    players: tuple  #: the five players' names
    rules: Rules
    chunk_tables: int
    records: bool = False
    #: what run_tables gets when the players are not all given by name
    #: (compiled functions or objects); None: the names
    engine_players: Any = field(default=None, compare=False)

    def players_arg(self):
        return list(self.players) if self.engine_players is None else self.engine_players

    @property
    def groups(self) -> int:
        return min(self.tables, MAX_GROUPS)

    @property
    def n_chunks(self) -> int:
        return -(-self.tables // self.chunk_tables)

    def chunk(self, index: int) -> tuple[int, int]:
        """``(first table, number of tables)`` of chunk ``index``."""
        if not 0 <= index < self.n_chunks:
            raise IndexError(f"chunk {index} out of range 0..{self.n_chunks - 1}")
        start = index * self.chunk_tables
        return start, min(self.chunk_tables, self.tables - start)

    def group_tables(self) -> np.ndarray:
        """Tables in each group (group g holds tables ceil(g*T/G) .. ceil((g+1)*T/G)-1)."""
        G = self.groups
        bounds = -((-np.arange(G + 1, dtype=np.int64) * self.tables) // G)
        return np.diff(bounds)

    def token(self) -> str:
        """A short hash of everything the chunks' numbers depend on (Dask keys)."""
        nonce = None
        if self.engine_players is not None:  # players given as objects: never share keys
            import uuid

            nonce = uuid.uuid4().hex
        text = json.dumps([self.tables, self.rounds, self.seed, list(self.players),
                           self.rules.to_dict(), self.chunk_tables, self.records,
                           fingerprint(), nonce], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def study_digest(self) -> str:
        """A hash of what the study's numbers depend on (see :func:`study_digest`)."""
        return study_digest(self.tables, self.rounds, self.seed, list(self.players),
                            self.rules.to_dict(), fingerprint()[1])

    def chunk_digest(self, index: int) -> str:
        """What produced chunk ``index``: the study (seed, rules, players,
        counts, engine) and the chunk's table range.  Stored in each chunk
        file and checked when a checkpoint is resumed."""
        start, n = self.chunk(index)
        text = json.dumps([self.study_digest(), self.chunk_tables, index, start, n, self.groups])
        return hashlib.sha256(text.encode()).hexdigest()


def study_digest(tables: int, rounds: int, seed: int, players: list, rules: dict,
                 engine: str) -> str:
    """A hash of a study's seed, counts, players, every rule option and the
    engine's source hash (stored in its results and chunks; a change to
    any of them is detected on resume and report)."""
    return _results_study_digest(tables, rounds, seed, players, rules, engine)


class Todo(Sequence):
    """The chunk indices ``0 .. n-1`` not in ``done``, in order, computed
    lazily (a study of 10^9 chunks needs no list of them)."""

    def __init__(self, n: int, done: set[int]) -> None:
        self.n = n
        self.done = sorted(d for d in done if 0 <= d < n)

    def __len__(self) -> int:
        return self.n - len(self.done)

    def __getitem__(self, k):  # the k-th index not done
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        lo, hi = k, k + len(self.done)
        while lo < hi:  # smallest i with i + 1 - #done<=i >= k + 1
            mid = (lo + hi) // 2
            if mid + 1 - bisect.bisect_right(self.done, mid) >= k + 1:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def __iter__(self) -> Iterator[int]:
        j = 0
        for i in range(self.n):
            if j < len(self.done) and self.done[j] == i:
                j += 1
                continue
            yield i


@dataclass
class ChunkResult:
    """One chunk reduced into the study's groups: ``groups`` (the distinct
    group ids of its tables, ascending), per-group sums ``agg[k, AGG_LEN]``
    and ``state[k, S_LEN]``, ``counts[k]`` (its tables in each group), and
    the per-round records when asked for."""

    index: int
    start: int
    n: int
    groups: np.ndarray
    agg: np.ndarray
    state: np.ndarray
    counts: np.ndarray
    records: np.ndarray | None = field(default=None, repr=False)
    digest: str = ""  #: Plan.chunk_digest(index) of the study that played it

    def validate(self, plan: Plan) -> None:
        """Raise ValueError unless this is a well-formed result of chunk ``index`` of ``plan``."""
        start, n = plan.chunk(self.index)
        k = len(self.groups)
        G = plan.groups
        ok = (self.start == start and self.n == n and 1 <= k
              and self.agg.shape == (k, L.AGG_LEN) and self.state.shape == (k, S_LEN)
              and self.counts.shape == (k,) and int(self.counts.sum()) == n
              and np.all(np.diff(self.groups) > 0) and self.groups[0] >= 0
              and self.groups[-1] < G
              and np.array_equal(self.groups, np.unique(
                  (np.arange(start, start + n, dtype=np.int64) * G) // plan.tables))
              and int(self.agg[:, L.A_ROUNDS].sum()) == n * plan.rounds)
        if not ok:
            raise ValueError(f"chunk {self.index} does not fit the study's chunking")


def chunk_task(plan: Plan, index: int, threads: int | None = None,
               expect: tuple | None = None,
               sink: Callable[[np.ndarray], None] | None = None) -> ChunkResult:
    """Play chunk ``index`` of ``plan`` and reduce it into groups.

    A pure function of its arguments (the Dask task).  ``threads``: numba
    threads (None in a Dask worker: the worker's thread count, 1 for the
    recommended ``--nthreads 1`` workers).  ``expect``: the client's
    :func:`~domeng.study.cluster.fingerprint`; a worker running another domeng
    refuses the task (its numbers could differ).  ``sink``: with records,
    called with each piece of records in table order (then the result holds
    none), so that records memory stays bounded."""
    if expect is not None:
        mine = fingerprint()
        if tuple(mine) != tuple(expect):
            raise ClusterError(f"a worker runs domeng {mine[0]} (engine {mine[1]}) but the client "
                               f"runs domeng {expect[0]} (engine {expect[1]}): install the same "
                               "version everywhere")
    if threads is None:
        threads = _worker_threads()
    start, n = plan.chunk(index)
    with _ENGINE_LOCK, _players_fail_as_one_line(plan, start, n):
        if plan.records:
            out = _play_in_pieces(plan, start, n, threads, sink)
        else:
            out = run_tables(plan.players_arg(), plan.rules, plan.seed, start, n, plan.rounds,
                             False, threads)
    check_chunk(out, n, plan.rounds, plan.rules, start)
    if plan.records and sink is None and (out.records is None
                                          or len(out.records) != n * plan.rounds):
        raise RuntimeError("run_tables did not return the records asked for")
    gid = group_of(np.arange(start, start + n), plan.tables, plan.groups)
    uniq, first = np.unique(gid, return_index=True)
    return ChunkResult(
        index=index, start=start, n=n, groups=uniq.astype(np.int64),
        agg=np.add.reduceat(out.agg, first, axis=0),
        state=np.add.reduceat(summarize_state(out.state), first, axis=0),
        counts=np.diff(np.append(first, n)).astype(np.int64),
        records=out.records if plan.records and sink is None else None,
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
        own = [p for p in plan.players if ":" in p] if plan.engine_players is None else \
            list(plan.players)
        if not own:
            raise
        text = " ".join(str(e).split())[:200]
        raise PlayerError(f"player {', '.join(dict.fromkeys(own))} failed at tables "
                          f"{start}..{start + n - 1}: {type(e).__name__}: {text}") from None


def _play_in_pieces(plan: Plan, start: int, n: int, threads, sink):
    """Play tables ``start .. start+n-1`` with records, in pieces of at most
    :data:`RECORD_PIECE_ROUNDS` table-rounds (blocks of tables; one long
    table in slices of rounds, continued from its state), giving each
    piece's records to ``sink`` in table order (or collecting them)."""
    from domeng.batch.tables import TablesOutput

    block = max(1, RECORD_PIECE_ROUNDS // plan.rounds)
    step = plan.rounds if block > 1 else min(plan.rounds, RECORD_PIECE_ROUNDS)
    aggs, states, kept = [], [], []
    for b0 in range(start, start + n, block):
        nb = min(block, start + n - b0)
        agg = np.zeros((nb, L.AGG_LEN), dtype=np.int64)
        st = None
        for r0 in range(0, plan.rounds, step):
            s = min(step, plan.rounds - r0)
            out = run_tables(plan.players_arg(), plan.rules, plan.seed, b0, nb, s, True,
                             threads, state=st)
            if out.records is None or len(out.records) != nb * s:
                raise RuntimeError("run_tables did not return the records asked for")
            agg += out.agg
            st = out.state
            if sink is not None:
                sink(out.records)
            else:
                kept.append(out.records)
        aggs.append(agg)
        states.append(st)
    recs = None
    if sink is None:
        recs = kept[0] if len(kept) == 1 else np.concatenate(kept)
    return TablesOutput(np.concatenate(aggs), np.concatenate(states), recs)


def _worker_threads() -> int | None:
    import sys

    if "distributed" not in sys.modules:  # not in a Dask worker (and keep local runs light)
        return None
    try:
        from distributed import get_worker

        w = get_worker()
    except (ImportError, ValueError):
        return None  # not in a Dask worker: the engine's default
    n = getattr(getattr(w, "state", None), "nthreads", None) or getattr(w, "nthreads", 1)
    return max(1, int(n))


class Sums:
    """Per-group sums of a study, filled chunk by chunk (in any order)."""

    def __init__(self, plan: Plan) -> None:
        G = plan.groups
        self.agg = np.zeros((G, L.AGG_LEN), dtype=np.int64)
        self.state = np.zeros((G, S_LEN), dtype=np.int64)
        self.counted = np.zeros(G, dtype=np.int64)
        self.done: set[int] = set()
        self.tables_done = 0

    def add(self, r: ChunkResult) -> None:
        if r.index in self.done:
            raise RuntimeError(f"internal error: chunk {r.index} counted twice")
        self.done.add(r.index)
        self.agg[r.groups] += r.agg
        self.state[r.groups] += r.state
        self.counted[r.groups] += r.counts
        self.tables_done += r.n


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


class _OrderedRecords:
    """Writes records to a RecordWriter in table order whatever order the
    chunks finish in (out-of-order chunks wait in memory)."""

    def __init__(self, writer, order: list[int]) -> None:
        self.writer = writer
        self.order = order  # a Sequence (Todo): indexed in increasing positions only
        self.pos = 0
        self.waiting: dict[int, np.ndarray] = {}

    def put(self, index: int, recs: np.ndarray) -> None:
        self.waiting[index] = recs
        while self.pos < len(self.order) and self.order[self.pos] in self.waiting:
            self.writer.write(self.waiting.pop(self.order[self.pos]))
            self.pos += 1

    def lag_ok(self, index_pos: int, window: int) -> bool:
        """May the chunk at position ``index_pos`` of the order be submitted?"""
        return index_pos < self.pos + window


def run_plan(plan: Plan, *, client=None, threads: int | None = None, writer=None,
             checkpoint=None, progress_fn: Callable[[int, int], None] | None = None,
             stall_seconds: float | None = None) -> Sums:
    """Play every chunk of ``plan`` not yet in ``checkpoint`` and return the group sums.

    ``writer``: a :class:`~domeng.study.records.RecordWriter` (records in table
    order; not with a checkpoint, which keeps records per chunk).  Locally,
    records stream to their file in bounded pieces.  ``stall_seconds``: a
    cluster that finishes no chunk for this long fails with
    :class:`~domeng.core.errors.ClusterFailure` (default :data:`STALL_SECONDS`)."""
    sums = Sums(plan)
    if checkpoint is not None:
        for r in checkpoint.load_done():
            sums.add(r)
    todo = Todo(plan.n_chunks, sums.done)

    def consume(r: ChunkResult) -> None:
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

    if client is None:
        ordered = None
        for i in todo:
            if plan.records and checkpoint is not None:
                part = checkpoint.records_writer(i)
                try:
                    r = chunk_task(plan, i, threads, sink=part.write)
                    part.close()
                except BaseException:
                    part.abort()
                    raise
            else:
                r = chunk_task(plan, i, threads, sink=writer.write if writer is not None else None)
            consume(r)
    else:
        ordered = _OrderedRecords(writer, todo) if writer is not None else None
        _run_on_cluster(client, plan, todo, consume, ordered,
                        STALL_SECONDS if stall_seconds is None else stall_seconds)
    return sums


def _run_on_cluster(client, plan: Plan, todo: Sequence[int], consume, ordered,
                    stall_seconds: float) -> None:
    from concurrent.futures import CancelledError

    from distributed import as_completed

    try:
        from distributed.scheduler import KilledWorker
    except ImportError:  # pragma: no cover - older layouts
        from distributed import KilledWorker

    token = plan.token()
    expect = fingerprint()
    window = 8
    refreshed = -1e9

    def refresh_window() -> int:
        nonlocal refreshed, window
        now = time.monotonic()
        if now - refreshed > 5.0:
            refreshed = now
            window = max(8, 3 * _cluster_threads(client))
        return window

    ac = as_completed()
    pending: dict[str, int] = {}
    futures = {}
    nxt = 0  # position in todo of the next chunk to submit

    def fill() -> None:
        nonlocal nxt
        w = refresh_window()
        while nxt < len(todo) and len(pending) < w and (ordered is None or ordered.lag_ok(nxt, w)):
            i = todo[nxt]
            f = client.submit(chunk_task, plan, i, None, expect,
                              key=f"domeng-chunk-{token}-{i}", pure=True, retries=TASK_RETRIES)
            pending[f.key] = i
            futures[f.key] = f
            ac.add(f)
            nxt += 1

    def lost(why: str) -> ClusterFailure:
        return ClusterFailure(f"{why}; the chunks finished so far are kept (with --out DIR, "
                              "continue with `domeng simulate --resume DIR`)")

    try:
        fill()
        progress_at = time.monotonic()
        while pending:
            if not ac.has_ready():  # wait in short steps: Ctrl-C acts, a stall is seen
                if getattr(client, "status", "running") not in ("running", "connecting"):
                    raise lost("the Dask scheduler was lost")
                if time.monotonic() - progress_at > stall_seconds:
                    raise lost(f"the cluster finished no chunk for {stall_seconds:g} s "
                               f"({_cluster_threads(client)} worker threads left)")
                time.sleep(0.05)
                continue
            f = next(ac)
            i = pending.pop(f.key)
            futures.pop(f.key, None)
            try:
                r = f.result()
            except KilledWorker as e:
                raise ClusterError(f"chunk {i} (tables {plan.chunk(i)[0]}..) killed several "
                                   f"workers in a row; giving up ({_first_line(e)})") from None
            except CancelledError:
                raise lost(f"chunk {i} was cancelled (the scheduler was lost or restarted)") \
                    from None
            except (OSError, TimeoutError) as e:
                raise lost(f"the cluster failed ({type(e).__name__}: {_first_line(e)})") from None
            f.release()
            consume(r)
            progress_at = time.monotonic()
            fill()
    finally:
        if futures:
            try:
                client.cancel(list(futures.values()))
            except Exception:
                pass


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def record_metadata(plan: Plan) -> dict[str, str]:
    """Key-value metadata of a study's records Parquet file (values are JSON
    text: ``json.loads`` reads the players list, the rules dict, the kinds)."""
    import json

    return {"domeng.version": json.dumps(package_version()), "domeng.seed": json.dumps(plan.seed),
            "domeng.players": json.dumps(list(plan.players)),
            "domeng.rules": json.dumps(plan.rules.to_dict()),
            "domeng.kinds": json.dumps(list(L.KIND_NAMES)),
            "domeng.digest": json.dumps(plan.study_digest())}


def run_study(plan: Plan, *, client=None, threads: int | None = None, records=None,
              checkpoint=None, progress_fn=None, stall_seconds: float | None = None):
    """Run (or finish) a study and return its :class:`~domeng.results.results.Results`.

    ``records``: a Parquet path (without a checkpoint; with one, the
    checkpoint's records path is used).  With a checkpoint, the results are
    also written into its folder at the end (``results.npz`` last)."""
    from domeng.core.numba_cache import prepare

    prepare()
    meta = {
        "tables": plan.tables, "rounds": plan.rounds, "seed": plan.seed,
        "rules": plan.rules.to_dict(), "players": list(plan.players),
        "version": package_version(), "groups": plan.groups,
        "engine": fingerprint()[1], "digest": plan.study_digest(),
    }
    t0 = time.perf_counter()
    writer = None
    if checkpoint is None and plan.records:
        if records is None:
            raise ValueError("records asked for without a records path")
        writer = RecordWriter(records, metadata=record_metadata(plan))
    try:
        sums = run_plan(plan, client=client, threads=threads, writer=writer,
                        checkpoint=checkpoint, progress_fn=progress_fn,
                        stall_seconds=stall_seconds)
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
    meta["elapsed_seconds"] = time.perf_counter() - t0
    meta["records_rows"] = rows
    res = Results(sums.agg, sums.state, sums.counted, meta)
    if checkpoint is not None:
        res.write_files(checkpoint.folder)
        checkpoint.prune()
        checkpoint.drop_previous()
    return res
