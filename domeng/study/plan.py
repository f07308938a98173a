"""What a study computes and how it is cut into chunks: :class:`Plan`, the
lazy list of chunks still to play (:class:`Todo`), one chunk reduced into
the study's groups (:class:`ChunkResult`) and the per-group sums they add
up to (:class:`Sums`).  :mod:`domeng.study.chunks` plays them."""

from __future__ import annotations

import bisect
import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from domeng.core import layout as L
from domeng.core.rules import Rules
from domeng.results.meta import study_digest as _results_study_digest
from domeng.study.cluster import fingerprint
from domeng.study.summary import MAX_GROUPS, S_LEN


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
        text = json.dumps(
            [
                self.tables,
                self.rounds,
                self.seed,
                list(self.players),
                self.rules.to_dict(),
                self.chunk_tables,
                self.records,
                fingerprint(),
                nonce,
            ],
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def study_digest(self) -> str:
        """A hash of what the study's numbers depend on (see :func:`study_digest`);
        computed once per plan and engine (every chunk's digest starts from it)."""
        engine = fingerprint()[1]
        known = self.__dict__.get("_digest")
        if known is None or known[0] != engine:  # a plan sent to another process: its engine
            known = (
                engine,
                study_digest(
                    self.tables,
                    self.rounds,
                    self.seed,
                    list(self.players),
                    self.rules.to_dict(),
                    engine,
                ),
            )
            object.__setattr__(self, "_digest", known)  # a cache, not a field (frozen)
        return known[1]

    def chunk_digest(self, index: int) -> str:
        """What produced chunk ``index``: the study (seed, rules, players,
        counts, engine) and the chunk's table range.  Stored in each chunk
        file and checked when a checkpoint is resumed."""
        start, n = self.chunk(index)
        text = json.dumps([self.study_digest(), self.chunk_tables, index, start, n, self.groups])
        return hashlib.sha256(text.encode()).hexdigest()


def study_digest(
    tables: int, rounds: int, seed: int, players: list, rules: dict, engine: str
) -> str:
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
    #: the seconds it took to play (compile left out; NaN: not known, an older file)
    seconds: float = 0.0

    def validate(self, plan: Plan) -> None:
        """Raise ValueError unless this is a well-formed result of chunk ``index`` of ``plan``."""
        start, n = plan.chunk(self.index)
        k = len(self.groups)
        G = plan.groups
        ok = (
            self.start == start
            and self.n == n
            and 1 <= k
            and self.agg.shape == (k, L.AGG_LEN)
            and self.state.shape == (k, S_LEN)
            and self.counts.shape == (k,)
            and int(self.counts.sum()) == n
            and np.all(np.diff(self.groups) > 0)
            and self.groups[0] >= 0
            and self.groups[-1] < G
            and np.array_equal(
                self.groups,
                np.unique((np.arange(start, start + n, dtype=np.int64) * G) // plan.tables),
            )
            and int(self.agg[:, L.A_ROUNDS].sum()) == n * plan.rounds
        )
        if not ok:
            raise ValueError(f"chunk {self.index} does not fit the study's chunking")


class Sums:
    """Per-group sums of a study, filled chunk by chunk (in any order)."""

    def __init__(self, plan: Plan) -> None:
        G = plan.groups
        self.agg = np.zeros((G, L.AGG_LEN), dtype=np.int64)
        self.state = np.zeros((G, S_LEN), dtype=np.int64)
        self.counted = np.zeros(G, dtype=np.int64)
        self.done: set[int] = set()
        self.tables_done = 0
        #: how long the chunks took (:func:`~domeng.study.chunks.run_plan` fills it)
        self.timing: dict[str, float] = {}

    def add(self, r: ChunkResult) -> None:
        if r.index in self.done:
            raise RuntimeError(f"internal error: chunk {r.index} counted twice")
        self.done.add(r.index)
        self.agg[r.groups] += r.agg
        self.state[r.groups] += r.state
        self.counted[r.groups] += r.counts
        self.tables_done += r.n
