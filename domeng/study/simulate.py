"""Monte Carlo studies: many independent tables (D16), summed into groups.

:func:`simulate` is the study entry point of the Python API::

    import domeng
    res = domeng.simulate(tables=2000, rounds=500,
                          players="random,heavy,keeper,hunter,random",
                          rules=["passebunge_every_pass=false"], seed=1)
    res.summary()["win_rate_by_starter_offset"]
    res.win_by_player()            # a tidy pandas DataFrame

How it works.  The table indices ``0..tables-1`` are cut into chunks of
``chunk_tables`` consecutive tables; each chunk is played by
:func:`domeng.batch.tables.run_tables` (the only engine entry point used here).
Table ``t`` depends only on ``(seed, t)``, and its aggregate vector
(:mod:`domeng.core.layout`) is added to group ``t * G // tables`` with
``G = min(tables, 1000)``.  All sums are integers, so the result does not
depend on the chunk size or on the number of workers, and memory stays
``O(G)`` whatever the number of rounds.  The groups are i.i.d. sums of
independent tables, which is what the standard errors of
:mod:`domeng.results.results` use (rounds at one table are correlated through the
stones and the starter, D4, D15, so rounds are not independent samples).

Per-round records (``records=PATH``) are written to a Parquet file chunk by
chunk (:class:`RecordWriter`), never all held in memory.

The chunks are driven by :mod:`domeng.study.chunks`: in this process, or as
tasks on a Dask cluster (``client=``, :mod:`domeng.study.cluster`), and with
``checkpoint=DIR`` each finished chunk is saved so that
:func:`domeng.resume` can finish a crashed study (:mod:`domeng.study.checkpoint`).
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from domeng.core import layout as L
from domeng.batch.tables import run_tables  # noqa: F401  (chunks.chunk_task calls study.run_tables)
from domeng.core.errors import DomengError
from domeng.players.registry import parse_players
from domeng.core.rules import Rules

#: the default study of ``domeng simulate`` (about a million rounds, mixed players)
DEFAULT_TABLES = 2000
DEFAULT_ROUNDS = 500
DEFAULT_PLAYERS = ("random", "heavy", "keeper", "hunter", "random")
#: the number of groups of tables that standard errors are computed across
MAX_GROUPS = 1000
#: the default chunk holds about this many table-rounds
CHUNK_ROUNDS = 200_000
#: with records on, a chunk holds at most this many rounds (22 int64 each)
CHUNK_ROUNDS_RECORDS = 100_000
#: and never more tables than this (each table's aggregates take AGG_LEN int64)
MAX_CHUNK_TABLES = 16_384
#: records are written to Parquet in row groups of about this many rows
RECORD_ROW_GROUP = 1 << 17

# ---------------------------------------------------------------- state summary
# Per-group sums of the final per-table state (``ST_*``), int64[S_LEN].
S_STONES = 0            #: [5] stones held at the end, by seat
S_TABLE = 5             #: stones on the table at the end
S_CAMAT_HOLDER = 6      #: [6] tables whose current CAMAT is seat 0..4; [5]: no CAMAT
S_CAMATS = 12           #: CAMATs designated over the whole game
S_SINCE_CAMAT = 13      #: rounds since the last CAMAT (or since the start)
S_ROUNDS = 14           #: rounds played
S_CAMATS_HIST = 15      #: [32] tables by number of CAMATs (bin 31: 31 or more)
CAMATS_BINS = 32
S_LEN = S_CAMATS_HIST + CAMATS_BINS


class StudyError(DomengError, ValueError):
    """A study asked for with bad arguments (counts, seed, workers, paths)."""


# ---------------------------------------------------------------- validation
def _count(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise StudyError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    value = int(value)
    if value < minimum:
        raise StudyError(f"{name} must be a whole number >= {minimum}, got {value}")
    return value


def coerce_rules(rules: Rules | str | Sequence[str] | dict | None) -> Rules:
    """Rules from a :class:`Rules`, ``"name=value,..."``, a list of such
    strings, a mapping of option values, or None (the defaults)."""
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, dict):
        return Rules.from_mapping(rules)
    if isinstance(rules, str):
        return Rules.parse(rules)
    if isinstance(rules, (list, tuple)):
        for item in rules:
            if not isinstance(item, str):
                raise StudyError(f"rule options must be strings name=value, got {item!r}")
        return Rules.parse(list(rules))
    raise StudyError(f"rules must be Rules, a string or a list of name=value strings, got {type(rules).__name__}")


def default_chunk_tables(tables: int, rounds: int, records: bool = False) -> int:
    """A chunk of about :data:`CHUNK_ROUNDS` table-rounds (fewer with
    records), at most :data:`MAX_CHUNK_TABLES` tables."""
    target = CHUNK_ROUNDS_RECORDS if records else CHUNK_ROUNDS
    return max(1, min(tables, MAX_CHUNK_TABLES, target // rounds))


def group_of(table_index: np.ndarray | int, tables: int, groups: int):
    """The group of table ``t`` (``t * G // tables``)."""
    return (np.asarray(table_index, dtype=np.int64) * groups) // tables


def summarize_state(state: np.ndarray) -> np.ndarray:
    """Per-table state ``[n, ST_LEN]`` -> per-table summary ``[n, S_LEN]``."""
    n = state.shape[0]
    out = np.zeros((n, S_LEN), dtype=np.int64)
    out[:, S_STONES:S_STONES + 5] = state[:, L.ST_STONES:L.ST_STONES + 5]
    out[:, S_TABLE] = state[:, L.ST_TABLE]
    camat = state[:, L.ST_CAMAT]
    holder = np.where(camat < 0, 5, camat)
    out[np.arange(n), S_CAMAT_HOLDER + holder] = 1
    out[:, S_CAMATS] = state[:, L.ST_CAMATS]
    out[:, S_SINCE_CAMAT] = state[:, L.ST_SINCE_CAMAT]
    out[:, S_ROUNDS] = state[:, L.ST_ROUNDS]
    bins = np.minimum(state[:, L.ST_CAMATS], CAMATS_BINS - 1)
    out[np.arange(n), S_CAMATS_HIST + bins] = 1
    return out


def _check_chunk(out, n: int, rounds: int, rules: Rules, table_start: int) -> None:
    """Cheap invariants of every chunk (a broken engine must not go unnoticed)."""
    if out.agg.shape != (n, L.AGG_LEN) or out.state.shape != (n, L.ST_LEN):
        raise RuntimeError(
            f"run_tables returned shapes {out.agg.shape}, {out.state.shape} for {n} tables"
        )
    if np.any(out.agg[:, L.A_ROUNDS] != rounds) or np.any(out.state[:, L.ST_ROUNDS] != rounds):
        raise RuntimeError(f"run_tables did not play {rounds} rounds at every table "
                           f"of the chunk starting at {table_start}")
    held = out.state[:, L.ST_STONES:L.ST_STONES + 5].sum(axis=1) + out.state[:, L.ST_TABLE]
    if np.any(held != rules.stones):
        raise RuntimeError(f"stones not conserved (D7) in the chunk starting at table {table_start}")


# ---------------------------------------------------------------- records
def _records_schema():
    import pyarrow as pa

    fields = []
    for name in L.REC_COLUMNS:
        if name == "table":
            t = pa.int64()
        elif name == "kind":
            t = pa.dictionary(pa.int8(), pa.string())
        elif name in ("starter", "winner", "cucuq", "manguno", "camat", "n_mattikkeng", "lead",
                      "second_passed"):
            t = pa.int8()
        else:
            t = pa.int32()
        fields.append(pa.field(name, t))
    return pa.schema(fields)


def records_table(recs: np.ndarray, schema=None):
    """Records ``int64[m, REC_LEN]`` -> a pyarrow Table of :func:`_records_schema`."""
    import pyarrow as pa

    schema = schema if schema is not None else _records_schema()
    cols = []
    for j, f in enumerate(schema):
        col = recs[:, j]
        if f.name == "kind":
            dictionary = pa.array(list(L.KIND_NAMES), type=pa.string())
            cols.append(pa.DictionaryArray.from_arrays(pa.array(col.astype(np.int8)), dictionary))
        else:
            cols.append(pa.array(col.astype(f.type.to_pandas_dtype())))
    return pa.Table.from_arrays(cols, schema=schema)


class RecordWriter:
    """Writes per-round records (``layout.REC_COLUMNS``) to one Parquet file,
    in row groups, under a temporary name that is renamed on :meth:`close`.

    Columns: ``table`` (global table index), ``round`` (1-based, within the
    table), ``starter``, ``winner``, ``cucuq``, ``manguno``, ``camat`` (seat,
    -1 for none), ``kind`` (end kind name, dictionary-encoded), and the counts
    ``n_mattikkeng, passes, passebunge, tiles, turns``, stones moved by reason
    ``stones_pass .. stones_mattikkeng``, ``stones_from_table`` and ``unpaid``.
    Rows are in (table, round) order whatever the chunk size.
    """

    def __init__(self, path: str | os.PathLike, metadata: dict[str, str] | None = None) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.path = Path(path)
        if self.path.exists() and self.path.is_dir():
            raise StudyError(f"records path {str(self.path)!r} is a directory")
        parent = self.path.parent
        if not parent.is_dir():
            raise StudyError(f"cannot write records to {str(self.path)!r}: folder {str(parent)!r} does not exist")
        self.tmp = parent / f".{self.path.name}.{os.getpid()}.partial"
        schema = _records_schema()
        if metadata:
            schema = schema.with_metadata({k: str(v) for k, v in metadata.items()})
        self._pa = pa
        try:
            self._writer = pq.ParquetWriter(str(self.tmp), schema, compression="zstd")
        except OSError as e:
            raise StudyError(f"cannot write records to {str(self.path)!r}: {e.strerror or e}") from None
        self.schema = schema
        self._buf: list[np.ndarray] = []
        self._buffered = 0
        self.rows = 0

    def write(self, recs: np.ndarray) -> None:
        if recs is None or len(recs) == 0:
            return
        self._buf.append(recs)
        self._buffered += len(recs)
        if self._buffered >= RECORD_ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        if not self._buf:
            return
        recs = np.concatenate(self._buf) if len(self._buf) > 1 else self._buf[0]
        self._buf, self._buffered = [], 0
        self._writer.write_table(records_table(recs, self.schema))
        self.rows += len(recs)

    def write_arrow(self, table) -> None:
        """Append a pyarrow Table of records (e.g. a part written by a checkpoint)."""
        self._flush()
        table = table.cast(self.schema.remove_metadata())
        self._writer.write_table(table)
        self.rows += table.num_rows

    def close(self) -> Path:
        """Flush, close and move the file to its final name."""
        self._flush()
        self._writer.close()
        os.replace(self.tmp, self.path)
        return self.path

    def abort(self) -> None:
        """Close and delete the temporary file (nothing half-written is left)."""
        try:
            self._writer.close()
        except Exception:
            pass
        try:
            self.tmp.unlink()
        except FileNotFoundError:
            pass


# ---------------------------------------------------------------- progress
class ProgressBar:
    """A progress bar on stderr: tables done, rounds per second, ETA.

    On a terminal it redraws one line; otherwise it prints a line at most
    every 10 seconds (and at the end), so logs stay readable."""

    def __init__(self, total_tables: int, rounds: int, stream=None, done0: int = 0) -> None:
        self.total = total_tables
        self.rounds = rounds
        self.done0 = done0  # tables already done when the bar starts (a resumed study)
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.perf_counter()
        self._last = -1e9
        self._width = 0

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        final = done >= total
        if not final and now - self._last < (0.2 if self.tty else 10.0):
            return
        self._last = now
        elapsed = now - self.start
        new = done - self.done0
        rate = new * self.rounds / elapsed if elapsed > 0 else 0.0
        frac = done / total if total else 1.0
        eta = elapsed * (total - done) / new if new > 0 else float("nan")
        width = 24
        fill = int(round(frac * width))
        line = (f"[{'#' * fill}{'.' * (width - fill)}] {frac * 100:5.1f}%  "
                f"{done:,}/{total:,} tables  {_fmt_rate(rate)} rounds/s  "
                f"{'elapsed' if final else 'ETA'} {_fmt_time(elapsed if final else eta)}")
        if self.tty:
            padded = line.ljust(self._width)  # erase the rest of a longer previous line
            self._width = len(line)
            self.stream.write("\r" + padded + ("\n" if final else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def _fmt_rate(r: float) -> str:
    if r >= 1e6:
        return f"{r / 1e6:.2f}M"
    if r >= 1e3:
        return f"{r / 1e3:.1f}k"
    return f"{r:.0f}"


def _fmt_time(s: float) -> str:
    if not math.isfinite(s):
        return "?"
    s = int(round(s))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def make_progress(progress, tables: int, rounds: int, done0: int = 0):
    """The progress callable for ``progress=`` (True, False, None or a callable)."""
    if progress is True:
        return ProgressBar(tables, rounds, done0=done0)
    if progress is None:
        return ProgressBar(tables, rounds, done0=done0) if sys.stderr.isatty() else None
    if progress is False:
        return None
    if callable(progress):
        return progress
    raise StudyError(f"progress must be a bool, None or a callable, got {progress!r}")


# ---------------------------------------------------------------- simulate
def simulate(
    tables: int = DEFAULT_TABLES,
    rounds: int = DEFAULT_ROUNDS,
    players: str | Sequence[str] = DEFAULT_PLAYERS,
    rules: Rules | str | Sequence[str] | dict | None = None,
    seed: int = 0,
    workers: int | None = None,
    chunk_tables: int | None = None,
    records: str | os.PathLike | None = None,
    progress: bool | Callable[[int, int], None] | None = None,
    client=None,
    checkpoint: str | os.PathLike | None = None,
):
    """Play ``tables`` independent tables of ``rounds`` rounds each (D16)
    and return a :class:`~domeng.results.results.Results`.

    Parameters
    ----------
    tables, rounds:
        Number of tables (games) and rounds per table, each >= 1.
    players:
        One built-in name for all seats, five names (seat 0..4) as a list
        or a comma-separated string: ``random``, ``heavy``, ``keeper``, ``hunter``,
        ``search``, ``search-N``, ``module:function``; or player objects (a
        compiled function, or an object with ``choose``: see docs/players.md).
    rules:
        :class:`~domeng.core.rules.Rules`, ``"name=value,..."``, a list of such
        strings, a dict of option values, or None (the defaults of docs/rules.md).
    seed:
        Study seed (0 <= seed < 2**64); table ``t`` plays the same rounds in
        every study with this seed, rules and players.
    workers:
        Threads for the batch engine (None: its default).  Results do not
        depend on it.
    chunk_tables:
        Tables per call of the batch engine (None: about 200,000 rounds per
        chunk).  Results do not depend on it.
    records:
        Path of a Parquet file to write one row per table-round to (see
        :class:`RecordWriter`), or None.
    progress:
        True: a progress bar on stderr; False: none; None: a bar only when
        stderr is a terminal; a callable: called as ``progress(done_tables,
        total_tables)`` after each chunk.
    client:
        A ``dask.distributed.Client``: each chunk is one task on its
        cluster (one engine thread per worker thread); None: this process.
        Results are bit-identical either way (see ``docs/cluster.md``).
    checkpoint:
        A study folder: each finished chunk is written there durably, with
        a manifest, and the results are written there at the end; after a
        crash, :func:`domeng.resume` continues it (see
        :mod:`domeng.study.checkpoint`).  An existing results folder is replaced,
        an unfinished study is refused (resume it).

    Raises :class:`StudyError`, :class:`~domeng.core.errors.RulesError` or
    :class:`~domeng.core.errors.PlayerError` (all :class:`DomengError`) on bad input.
    """
    tables = _count("tables", tables)
    rounds = _count("rounds", rounds)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**64:
        raise StudyError(f"seed must be a whole number in [0, 2**64), got {seed!r}")
    seed = int(seed)
    if workers is not None:
        workers = _count("workers", workers)
        if client is not None:
            raise StudyError("workers sets this process's engine threads; with a Dask client "
                             "each task uses its worker's threads")
    names = parse_players(players)
    rules_obj = coerce_rules(rules)
    if chunk_tables is None:
        from domeng.study.chunks import default_chunk_tables as cluster_chunk_tables

        chunk_tables = cluster_chunk_tables(tables, rounds, records is not None, client)
    else:
        chunk_tables = _count("chunk_tables", chunk_tables)
    chunk_tables = min(chunk_tables, tables)

    progress_fn = make_progress(progress, tables, rounds)

    from domeng.study.chunks import Plan, run_study

    by_name = isinstance(players, str) or (
        isinstance(players, (list, tuple)) and all(isinstance(p, str) for p in players))
    plan = Plan(tables=tables, rounds=rounds, seed=seed, players=tuple(names), rules=rules_obj,
                chunk_tables=chunk_tables, records=records is not None,
                engine_players=None if by_name else players)
    ckpt = None
    if checkpoint is not None:
        from domeng.study.checkpoint import Checkpoint

        ckpt = Checkpoint.create(checkpoint, plan, records)
    return run_study(plan, client=client, threads=workers, records=records, checkpoint=ckpt,
                     progress_fn=progress_fn)

