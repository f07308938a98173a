"""Per-round records of a study, written to Parquet in bounded pieces.

:class:`RecordWriter` writes ``layout.REC_COLUMNS`` rows to one Parquet
file, in row groups, under an exclusively created temporary name (see
:func:`domeng.infra.fs.temporary_beside`) that is renamed on :meth:`close`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from domeng.core import layout as L
from domeng.core.errors import ResultsWriteError, StudyError
from domeng.infra import fs

#: records are written to Parquet in row groups of about this many rows
RECORD_ROW_GROUP = 1 << 17


def _records_schema():
    import pyarrow as pa

    fields = []
    for name in L.REC_COLUMNS:
        if name == "table":
            t = pa.int64()
        elif name == "kind":
            t = pa.dictionary(pa.int8(), pa.string())
        elif name in (
            "starter",
            "winner",
            "cucuq",
            "manguno",
            "camat",
            "n_mattikkeng",
            "lead",
            "second_passed",
        ):
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
            raise StudyError(
                f"cannot write records to {str(self.path)!r}: folder {str(parent)!r} does not exist"
            )
        try:
            self.tmp = fs.temporary_beside(self.path)
        except OSError as e:
            raise ResultsWriteError(
                f"cannot write records to {str(self.path)!r}: {e.strerror or e}"
            ) from None
        schema = _records_schema()
        if metadata:
            schema = schema.with_metadata({k: str(v) for k, v in metadata.items()})
        self._pa = pa
        try:
            self._writer = pq.ParquetWriter(str(self.tmp), schema, compression="zstd")
        except OSError as e:
            self.tmp.unlink(missing_ok=True)
            raise ResultsWriteError(
                f"cannot write records to {str(self.path)!r}: {e.strerror or e}"
            ) from None
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
        fs.commit(self.tmp, self.path)
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
