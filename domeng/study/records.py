"""Per-round and per-seat records of a study, written to Parquet in bounded pieces.

:class:`RecordWriter` writes two files from the engine's records
(``int64[m, REC_LEN]``, :mod:`domeng.core.layout`): ``records.parquet``,
one row per table x round (``layout.REC_COLUMNS``), and beside it
``records_seats.parquet`` (:func:`seats_path`), one row per table x round x
seat (``table, round, seat, player`` and ``layout.SEAT_COLUMNS``).  Each is
written in row groups under an exclusively created temporary name (see
:func:`domeng.infra.fs.temporary_beside`) and renamed on :meth:`close`.
A checkpoint's chunk parts keep the engine's rows whole (:func:`parts_schema`:
the round's columns and the seats' blocks side by side) until they are merged.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from domeng.core import layout as L
from domeng.core.errors import ResultsWriteError, StudyError
from domeng.infra import fs

#: records are written to Parquet in row groups of about this many rows
RECORD_ROW_GROUP = 1 << 17

_INT8_COLUMNS = (
    "starter",
    "winner",
    "cucuq",
    "manguno",
    "camat",
    "n_mattikkeng",
    "lead",
    "second_passed",
)


def _records_schema():
    import pyarrow as pa

    fields = []
    for name in L.REC_COLUMNS:
        if name == "table":
            t = pa.int64()
        elif name == "kind":
            t = pa.dictionary(pa.int8(), pa.string())
        elif name in _INT8_COLUMNS:
            t = pa.int8()
        else:
            t = pa.int32()
        fields.append(pa.field(name, t))
    return pa.schema(fields)


def _seat_field(seat: int, name: str) -> str:
    return f"seat{seat}.{name}"


def parts_schema():
    """The schema of a checkpoint's chunk part: the round's columns, then
    each seat's block as ``seat{s}.{field}`` (int32), so a part holds the
    engine's rows whole."""
    import pyarrow as pa

    extra = [
        pa.field(_seat_field(s, name), pa.int32())
        for s in range(L.N_SEATS)
        for name in L.SEAT_COLUMNS
    ]
    return pa.schema(list(_records_schema()) + extra)


def _seats_schema():
    import pyarrow as pa

    fields = [
        pa.field("table", pa.int64()),
        pa.field("round", pa.int32()),
        pa.field("seat", pa.int8()),
        pa.field("player", pa.dictionary(pa.int8(), pa.string())),
    ]
    fields += [pa.field(name, pa.int32()) for name in L.SEAT_COLUMNS]
    return pa.schema(fields)


def _column_index(name: str) -> int:
    if name in L.REC_COLUMNS:
        return L.REC_COLUMNS.index(name)
    seat, field = name.split(".", 1)
    return L.seat_col(int(seat[len("seat") :]), L.SEAT_COLUMNS.index(field))


def records_table(recs: np.ndarray, schema=None):
    """Records ``int64[m, REC_LEN]`` -> a pyarrow Table of the round's columns
    (or of ``schema``'s columns, e.g. :func:`parts_schema`)."""
    import pyarrow as pa

    schema = schema if schema is not None else _records_schema()
    cols = []
    for f in schema:
        col = recs[:, _column_index(f.name)]
        if f.name == "kind":
            dictionary = pa.array(list(L.KIND_NAMES), type=pa.string())
            cols.append(pa.DictionaryArray.from_arrays(pa.array(col.astype(np.int8)), dictionary))
        else:
            cols.append(pa.array(col.astype(f.type.to_pandas_dtype())))
    return pa.Table.from_arrays(cols, schema=schema)


def table_records(table) -> np.ndarray:
    """A pyarrow Table of :func:`parts_schema` -> records ``int64[m, REC_LEN]``
    (a table with other columns is refused: ``ValueError``)."""
    import pyarrow as pa

    schema = parts_schema()
    if table.column_names != schema.names:
        raise ValueError("a records part with other columns than a chunk's")
    table = table.cast(schema)
    recs = np.zeros((table.num_rows, L.REC_LEN), dtype=np.int64)
    for name in table.column_names:
        col = table.column(name).combine_chunks()
        if pa.types.is_dictionary(col.type):
            col = col.indices
        recs[:, _column_index(name)] = col.to_numpy(zero_copy_only=False)
    return recs


def _player_codes(players: Sequence[str] | None) -> tuple[list[str], np.ndarray]:
    """The distinct player names and each seat's index into them."""
    names = [str(p) for p in players] if players is not None else ["?"] * L.N_SEATS
    distinct = list(dict.fromkeys(names))
    return distinct, np.array([distinct.index(n) for n in names], dtype=np.int8)


def seats_table(recs: np.ndarray, players: Sequence[str] | None = None, schema=None):
    """Records ``int64[m, REC_LEN]`` -> the long per-seat pyarrow Table
    (``5 m`` rows in (table, round, seat) order); ``players``: the five
    seats' player names."""
    import pyarrow as pa

    schema = schema if schema is not None else _seats_schema()
    m = len(recs)
    block = recs[:, L.RC_SEATS :].reshape(m * L.N_SEATS, L.SEAT_LEN)
    distinct, codes = _player_codes(players)
    seat = np.tile(np.arange(L.N_SEATS, dtype=np.int8), m)
    cols = [
        pa.array(np.repeat(recs[:, L.RC_TABLE], L.N_SEATS).astype(np.int64)),
        pa.array(np.repeat(recs[:, L.RC_ROUND], L.N_SEATS).astype(np.int32)),
        pa.array(seat),
        pa.DictionaryArray.from_arrays(pa.array(codes[seat]), pa.array(distinct, type=pa.string())),
    ]
    cols += [pa.array(block[:, k].astype(np.int32)) for k in range(L.SEAT_LEN)]
    return pa.Table.from_arrays(cols, schema=schema)


def seats_path(path: str | os.PathLike) -> Path:
    """The per-seat records file beside the records file ``path``
    (``records.parquet`` -> ``records_seats.parquet``)."""
    p = Path(path)
    return p.with_name(f"{p.stem}_seats{p.suffix}")


class _ParquetFile:
    """One Parquet file written under a temporary name (renamed on commit)."""

    def __init__(self, path: Path, schema) -> None:
        import pyarrow.parquet as pq

        self.path = path
        if path.exists() and path.is_dir():
            raise StudyError(f"records path {str(path)!r} is a directory")
        try:
            self.tmp = fs.temporary_beside(path)
        except OSError as e:
            raise ResultsWriteError(
                f"cannot write records to {str(path)!r}: {e.strerror or e}"
            ) from None
        try:
            self.writer = pq.ParquetWriter(str(self.tmp), schema, compression="zstd")
        except OSError as e:
            self.tmp.unlink(missing_ok=True)
            raise ResultsWriteError(
                f"cannot write records to {str(path)!r}: {e.strerror or e}"
            ) from None

    def abort(self) -> None:
        try:
            self.writer.close()
        except Exception:
            pass
        self.tmp.unlink(missing_ok=True)


class RecordWriter:
    """Writes records to Parquet in row groups, under temporary names that
    are renamed on :meth:`close`: the per-round file ``path`` (columns
    ``layout.REC_COLUMNS``) and the per-seat file :func:`seats_path` beside
    it (``table, round, seat, player`` and ``layout.SEAT_COLUMNS``), or, with
    ``part=True``, one file of the engine's rows whole (:func:`parts_schema`,
    a checkpoint's chunk part).

    Columns of the per-round file: ``table`` (global table index), ``round``
    (1-based, within the table), ``starter``, ``winner``, ``cucuq``,
    ``manguno``, ``camat`` (seat, -1 for none), ``kind`` (end kind name,
    dictionary-encoded), and the counts ``n_mattikkeng, passes, passebunge,
    tiles, turns``, stones moved by reason ``stones_pass ..
    stones_mattikkeng``, ``stones_from_table`` and ``unpaid``.  The per-seat
    file's ``player`` is the seat's player name (dictionary-encoded; the
    metadata's ``domeng.players`` lists the five seats').  Rows are in
    (table, round[, seat]) order whatever the chunk size.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        metadata: dict[str, str] | None = None,
        *,
        part: bool = False,
    ) -> None:
        self.path = Path(path)
        if self.path.exists() and self.path.is_dir():
            raise StudyError(f"records path {str(self.path)!r} is a directory")
        parent = self.path.parent
        if not parent.is_dir():
            raise StudyError(
                f"cannot write records to {str(self.path)!r}: folder {str(parent)!r} does not exist"
            )
        meta = {k: str(v) for k, v in (metadata or {}).items()}
        players = json.loads(meta["domeng.players"]) if "domeng.players" in meta else None
        self.players = players if isinstance(players, list) and len(players) == 5 else None
        schema = parts_schema() if part else _records_schema()
        seat_schema = None if part else _seats_schema()
        if meta:
            schema = schema.with_metadata(meta)
            seat_schema = seat_schema.with_metadata(meta) if seat_schema is not None else None
        self.schema = schema
        self.seat_schema = seat_schema
        self._files = [_ParquetFile(self.path, schema)]
        if seat_schema is not None:
            try:
                self._files.append(_ParquetFile(seats_path(self.path), seat_schema))
            except BaseException:
                self._files[0].abort()
                raise
        self.tmp = self._files[0].tmp
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
        self._write_rows(recs)

    def _write_rows(self, recs: np.ndarray) -> None:
        """Write records as one row group of each file."""
        self._files[0].writer.write_table(records_table(recs, self.schema))
        if self.seat_schema is not None:
            self._files[1].writer.write_table(seats_table(recs, self.players, self.seat_schema))
        self.rows += len(recs)

    def write_arrow(self, table) -> None:
        """Append a pyarrow Table of records of :func:`parts_schema` (a part
        written by a checkpoint)."""
        self._flush()
        recs = table_records(table)
        if len(recs):
            self._write_rows(recs)

    def close(self) -> Path:
        """Flush, close and move the file(s) to their final names (the
        per-seat file first: a per-round file is there only with its seats)."""
        self._flush()
        for f in self._files:
            f.writer.close()
        for f in reversed(self._files):
            fs.commit(f.tmp, f.path)
        return self.path

    def abort(self) -> None:
        """Close and delete the temporary files (nothing half-written is left)."""
        for f in self._files:
            f.abort()


class OrderedRecords:
    """Writes records to a RecordWriter in table order whatever order the
    chunks (or the pieces of a long chunk) finish in: records that arrive
    before their turn wait in memory (``buffered`` arrays)."""

    def __init__(self, writer, order: Sequence[int]) -> None:
        self.writer = writer
        self.order = order  # a Sequence (Todo): indexed in increasing positions only
        self.pos = 0
        self.waiting: dict[int, list[np.ndarray]] = {}
        self.complete: set[int] = set()
        self.buffered = 0

    def put(self, index: int, recs: np.ndarray | None, complete: bool = True) -> None:
        """Chunk ``index``'s next records (in its table order); ``complete``: its last."""
        got = self.waiting.setdefault(index, [])
        if recs is not None:
            got.append(recs)
            self.buffered += 1
        if complete:
            self.complete.add(index)
        while self.pos < len(self.order):
            head = self.order[self.pos]
            ready = self.waiting.get(head)
            if ready is None:
                break
            while ready:
                self.writer.write(ready.pop(0))
                self.buffered -= 1
            if head not in self.complete:
                break
            del self.waiting[head]
            self.complete.discard(head)
            self.pos += 1

    def is_head(self, index: int) -> bool:
        """Are chunk ``index``'s records the next to be written?"""
        return self.pos < len(self.order) and self.order[self.pos] == index

    def lag_ok(self, index_pos: int, window: int) -> bool:
        """May the chunk at position ``index_pos`` of the order be submitted?"""
        return index_pos < self.pos + window
