"""Checkpoints: a long study survives a crash, a ``kill -9`` or a lost cluster.

A study run with ``checkpoint=DIR`` (CLI: ``domeng simulate --out DIR``)
keeps in ``DIR``:

``manifest.json``
    what the study is (tables, rounds, seed, players, every rule option),
    how it is cut (``chunk_tables``, ``n_chunks``, ``groups``), and what
    wrote it (checkpoint ``format``, domeng ``version``, ``engine``: a hash
    of the compiled engine's source, ``layout``: the aggregate layout).
``chunks/chunk-NNNNNNN.npz``
    one file per finished chunk: the chunk's sums in the study's groups
    (see :class:`domeng.study.chunks.ChunkResult`), written durably (a temporary
    file, ``fsync``, ``os.replace``, ``fsync`` of the folder), so a file
    that exists is complete.
``chunks/records-NNNNNNN.parquet``
    with records: the chunk's per-round records with each seat's block
    (:func:`domeng.study.records.parts_schema`), written durably *before*
    its chunk file; merged in table order into the records file and its
    per-seat file (``records_seats.parquet``) when the study ends, then removed.

When every chunk is there, the results are written into ``DIR``
(``summary.json``, ``tables/``, and ``results.npz`` last): a folder with
``results.npz`` is a finished study (:meth:`domeng.Results.load`), one with
only ``manifest.json`` and ``chunks/`` an unfinished one.

:func:`resume` (CLI: ``domeng simulate --resume DIR``) reads the manifest,
plays only the missing chunks (locally or on a cluster) and writes the
results.  Since every chunk's sums are exact integers, the result equals an
uninterrupted run bit for bit.  A folder written by another domeng version,
engine or layout, or a resume asking for other parameters, is refused with
a :class:`CheckpointError`.
"""

from __future__ import annotations

import json
import os
import re
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from domeng.core.errors import (
    CheckpointError,
    DomengError,
    ResultsWriteError,
    UnsafePathError,
)
from domeng.core.rules import Rules
from domeng.infra import fs, jsontext
from domeng.infra.fs import FolderLock, fsync_dir
from domeng.results.meta import load_error_text
from domeng.results.results import _layout_meta
from domeng.study.chunks import ChunkResult, Plan, run_study
from domeng.study.cluster import fingerprint
from domeng.study.names import check_player_names
from domeng.study.records import RecordWriter, parts_schema, records_table
from domeng.study.runtime import Runtime, RuntimeOptions, pop_study
from domeng.study.summary import count, make_progress

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.11

FORMAT = "domeng.study.checkpoint/2"
MANIFEST = "manifest.json"
CHUNKS = "chunks"
RECORDS_MERGED = "records.merged"
#: in ``chunks/`` of a finished study: the chunk files were removed (results.npz holds their sums)
PRUNED = "pruned"
_CHUNK_RE = re.compile(r"^chunk-(\d{7})\.npz$")


def durable_write(path: str | os.PathLike, write: Callable[[Any], None] | bytes | str) -> None:
    """Write ``path`` atomically and durably (:func:`domeng.infra.fs.atomic_write`)."""
    fs.atomic_write(path, write)


# ---------------------------------------------------------------- manifest
def _manifest(plan: Plan, records: str | None) -> dict:
    version, engine = fingerprint()
    return {
        "format": FORMAT,
        "version": version,
        "engine": engine,
        "layout": _layout_meta(),
        "tables": plan.tables,
        "rounds": plan.rounds,
        "seed": plan.seed,
        "players": list(plan.players),
        "rules": plan.rules.to_dict(),
        "chunk_tables": plan.chunk_tables,
        "n_chunks": plan.n_chunks,
        "groups": plan.groups,
        "records": records,
        "digest": plan.study_digest(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def _whole(m: dict, key: str, minimum: int = 1, maximum: int = 2**64 - 1) -> int:
    v = m[key]
    if isinstance(v, bool) or not isinstance(v, int) or not minimum <= v <= maximum:
        raise ValueError(f"{key} must be a whole number from {minimum} to {maximum}, got {v!r}")
    return v


def _plan_of(m: dict) -> Plan:
    from domeng.study.summary import MAX_TABLES, check_budget

    if not isinstance(m.get("rules"), dict):
        raise ValueError("rules must be an object of rule options")
    tables, rounds = _whole(m, "tables", 1, MAX_TABLES), _whole(m, "rounds", 1, 10**9)
    check_budget(tables, rounds)
    return Plan(
        tables=tables,
        rounds=rounds,
        seed=_whole(m, "seed", 0),
        players=tuple(check_player_names(m["players"], source=MANIFEST, allow_import=True)),
        rules=Rules.from_mapping(m["rules"]),
        chunk_tables=_whole(m, "chunk_tables", 1, MAX_TABLES),
        records=m.get("records") is not None,
    )


def _remove_chunk_files(chunks: Path) -> int:
    """Remove the chunk files of a pruned study (never following a link); returns how many."""
    n = 0
    for p in chunks.glob("chunk-*.npz"):
        p.unlink(missing_ok=True)
        n += 1
    return n


def finish_prune(folder: str | os.PathLike) -> bool:
    """Finish what a finished study's end left undone when it was killed
    after ``chunks/pruned`` was written: remove the chunk files left, and
    the results it replaced (``DIR.previous`` and ``previous-results.txt``,
    :func:`domeng.infra.fs.drop_previous`).  The caller holds the folder's
    lock.  Returns whether ``folder`` is such a finished study."""
    folder = Path(folder)
    chunks = folder / CHUNKS
    if chunks.is_symlink() or not (chunks / PRUNED).is_file():
        return False
    if not (folder / "results.npz").is_file():
        return False
    _remove_chunk_files(chunks)
    fs.drop_previous(folder)
    return True


PREVIOUS = fs.PREVIOUS  #: names the finished study this one replaces, until it ends
#: what the folder policy calls a study folder (:func:`domeng.infra.fs.prepare_output`)
_WHAT = "study"


def _resume_hint(folder) -> str:
    return f"domeng simulate --resume {folder}"


def _prepare_folder(folder: Path, overwrite: bool = False) -> Path | None:
    """Make ``folder`` ready for a new study: the folder policy of
    :func:`domeng.infra.fs.prepare_output` (a study, finished or not, is
    refused unless ``overwrite``: then it is moved aside to
    ``FOLDER.previous`` until the new study has finished; a file, a link and
    a folder holding anything else are refused).  Returns where the previous
    results went, if anywhere."""
    return fs.prepare_output(
        folder, "results.npz", MANIFEST, _WHAT, _resume_hint(folder), overwrite
    )


def _remove_if_empty(folder: Path) -> None:
    """Remove ``folder`` if it holds nothing but an empty ``chunks/`` and its
    (released) lock file."""
    try:
        if not {p.name for p in folder.iterdir()} <= {CHUNKS, fs.LOCK_NAME}:
            return
        if (folder / CHUNKS).is_dir():
            (folder / CHUNKS).rmdir()
        (folder / fs.LOCK_NAME).unlink(missing_ok=True)
        folder.rmdir()
    except OSError:
        pass


def check_new_output(folder: str | os.PathLike, overwrite: bool = False) -> None:
    """Refuse, before anything runs, an output folder a new study may not use."""
    fs.check_output(folder, "results.npz", MANIFEST, _WHAT, _resume_hint(folder), overwrite)


class DamagedChunksWarning(RuntimeWarning):
    """Damaged chunk files were ignored: their chunks are computed again.

    The message is one line summing them up (``"3 damaged chunks replayed:
    chunk-0000003, ..."``); ``details`` has one line per chunk (its file
    and what is wrong with it), which ``domeng`` prints, one line each."""

    #: at most this many chunks are named in the message and the details
    SHOWN = 10

    def __init__(self, chunks: Path, damaged: list[tuple[str, str]]) -> None:
        n, names = len(damaged), [name for name, _ in damaged[: self.SHOWN]]
        more = f" and {n - len(names)} more" if n > len(names) else ""
        super().__init__(
            f"{n} damaged chunk{'s' if n != 1 else ''} replayed: {', '.join(names)}{more} "
            f"(ignoring the damaged checkpoint files in {str(chunks)!r})"
        )
        self.details = [
            f"damaged chunk {name} ({why}): computed again" for name, why in damaged[: self.SHOWN]
        ]


class Checkpoint:
    """A study folder with a manifest and finished chunks (see the module doc).

    A checkpoint opened to be written holds the folder's lock
    (:class:`~domeng.infra.fs.FolderLock`) until :meth:`close`."""

    def __init__(self, folder: str | os.PathLike, manifest: dict) -> None:
        self.folder = Path(folder)
        self.manifest = manifest
        self.plan = _plan_of(manifest)
        self.chunks = self.folder / CHUNKS
        self._loaded: list[ChunkResult] | None = None
        self._lock: FolderLock | None = None

    def lock(self) -> Checkpoint:
        """Take the folder's lock (a second writer is refused with one line)."""
        if self._lock is None:
            self._lock = FolderLock(self.folder).acquire()
        return self

    def close(self) -> None:
        """Release the folder's lock."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ create / open
    @classmethod
    def create(
        cls,
        folder: str | os.PathLike,
        plan: Plan,
        records: str | os.PathLike | None = None,
        lock: bool = False,
        extra: dict | None = None,
        overwrite: bool = False,
    ) -> Checkpoint:
        """Start a new study in ``folder`` (see :func:`_prepare_folder`:
        ``overwrite`` replaces a study there);
        ``records`` must be a path inside ``folder``.  ``extra``: more keys
        for the manifest (``sequential``: the stopping rule of a study that
        stops on the data, :mod:`domeng.study.sequential`)."""
        from domeng.players.registry import parse_players

        folder = Path(folder)
        try:
            if plan.engine_players is not None:
                raise ValueError
            if parse_players(list(plan.players)) != list(plan.players):
                raise ValueError
        except (DomengError, ValueError):
            raise CheckpointError(
                "a checkpointed study needs players given by name (built-in "
                "or module:function), so that it can be resumed"
            ) from None
        rec = None
        if plan.records:
            if records is None:
                raise CheckpointError("records asked for without a records path")
            rpath = Path(records)
            if rpath.is_dir():
                raise CheckpointError(f"records path {str(rpath)!r} is a directory")
            try:
                rec = rpath.absolute().relative_to(folder.absolute()).as_posix()
            except ValueError:
                raise CheckpointError(
                    f"records path {str(rpath)!r}: with a study folder, the "
                    f"records are written inside it ({str(folder)!r})"
                ) from None
        m = {**_manifest(plan, rec), **(extra or {})}
        try:  # the manifest must read back (its players, its plan) before the folder exists
            ck = cls(folder, m)
        except DomengError:
            raise
        except (KeyError, TypeError, ValueError) as e:
            raise CheckpointError(f"cannot checkpoint this study: {e}") from None
        created = not folder.exists()
        _prepare_folder(folder, overwrite)
        try:
            if lock:
                ck.lock()
            fs.fixed_subfolder(folder, CHUNKS)
            durable_write(folder / MANIFEST, json.dumps(m, indent=2) + "\n")
        except BaseException as e:
            ck.close()
            if created:  # a folder this call made and could not start: leave nothing behind
                _remove_if_empty(folder)
            if isinstance(e, OSError):
                raise ResultsWriteError(
                    f"cannot write the study to {str(e.filename or folder)!r}: {e.strerror or e}"
                ) from None
            raise
        fsync_dir(folder.parent)
        return ck

    def drop_previous(self) -> None:
        """The study has finished: delete the results it replaced, if any
        (:func:`domeng.infra.fs.drop_previous`)."""
        fs.drop_previous(self.folder)

    def prune(self) -> None:
        """The study has finished (``results.npz`` is written): remove the
        chunk files, most of the folder's size.  A marker is written first,
        so :func:`resume` of the folder reads ``results.npz`` instead (and
        a prune interrupted after it is finished by the next run: :func:`finish_prune`)."""
        self.mark_pruned()
        _remove_chunk_files(self.chunks)

    def mark_pruned(self) -> None:
        """Write ``chunks/pruned``: from now on ``results.npz`` holds the chunks' sums."""
        durable_write(self.chunks / PRUNED, "the chunks' sums are in ../results.npz\n")

    def pruned_results(self):
        """The finished study's results when its chunks were pruned, else None."""
        from domeng.results.results import Results

        if not ((self.chunks / PRUNED).is_file() and (self.folder / "results.npz").is_file()):
            return None
        res = Results.load(self.folder)
        p = self.plan
        # a study that stopped on the data (``sequential``) played fewer tables than planned
        tables = res.tables if self.manifest.get("sequential") else p.tables
        if (res.tables, res.rounds, res.seed, tuple(res.players), res.meta["rules"]) != (
            tables,
            p.rounds,
            p.seed,
            tuple(p.players),
            p.rules.to_dict(),
        ):
            raise CheckpointError(
                f"{str(self.folder)!r}: results.npz does not match {MANIFEST}; run the study again"
            )
        self.check_records()
        return res

    def check_records(self) -> None:
        """Refuse (one line naming it) a finished study's records file written
        for another study (its ``domeng.digest`` metadata differs from the
        manifest's); a missing one is left to the reader of the records."""
        path = self.records_path
        if path is None or not self._records_merged() or not path.is_file():
            return
        import pyarrow.parquet as pq

        try:
            meta = pq.ParquetFile(path).schema_arrow.metadata or {}
            digest = json.loads(meta.get(b"domeng.digest", b"null"))
        except Exception as e:  # not Parquet, bad metadata ...
            raise CheckpointError(
                f"corrupt records file {str(path)!r}: {type(e).__name__}: {load_error_text(e)}"
            ) from None
        if digest != self.manifest.get("digest"):
            raise CheckpointError(
                f"{str(path)!r} holds the records of another study than {MANIFEST} describes "
                "(its digest differs): refusing to mix them; run the study again"
            )

    @classmethod
    def open(
        cls,
        folder: str | os.PathLike,
        lock: bool = False,
        allow_import: bool | Iterable[str] = False,
    ) -> Checkpoint:
        """Open a study folder to resume it; refuses a folder it cannot
        resume exactly (another version, engine or layout), a manifest that
        is not one, and players that would import code (see
        :func:`domeng.study.names.check_player_names`; ``allow_import``)."""
        folder = Path(folder)
        shown = str(folder)
        if folder.is_symlink() or not folder.is_dir():
            raise CheckpointError(f"no study folder {shown!r} to resume")
        path = folder / MANIFEST
        if path.is_symlink() or not path.is_file():
            raise CheckpointError(
                f"{shown!r} cannot be resumed: it has no {MANIFEST} "
                "(only studies run with --out DIR can be)"
            )
        try:
            if path.stat().st_size > jsontext.MAX_MANIFEST_BYTES:
                raise ValueError("too large")
            m = jsontext.loads(path.read_text(encoding="utf-8"))
            if not isinstance(m, dict):
                raise ValueError("not an object")
        except RecursionError:
            raise CheckpointError(f"corrupt manifest {str(path)!r}: nested too deeply") from None
        except (OSError, ValueError) as e:
            raise CheckpointError(
                f"corrupt manifest {str(path)!r}: {' '.join(str(e).split())[:200]}"
            ) from None
        if m.get("format") != FORMAT:
            raise CheckpointError(
                f"{shown!r} was written by an incompatible domeng (checkpoint "
                f"format {str(m.get('format'))[:40]!r}, this one reads "
                f"{FORMAT!r}); run the study again"
            )
        version, engine = fingerprint()
        if m.get("version") != version:
            raise CheckpointError(
                f"{shown!r} was written by domeng {str(m.get('version'))[:40]} "
                f"and this is domeng {version}: its chunks cannot be mixed with "
                "new ones; resume with that version or run the study again"
            )
        if m.get("engine") != engine:
            raise CheckpointError(
                f"{shown!r} was written by another build of the engine (source "
                f"hash {str(m.get('engine'))[:40]}, this one {engine}): its "
                "chunks cannot be mixed with new ones; run the study again"
            )
        if m.get("layout") != _layout_meta():
            raise CheckpointError(
                f"{shown!r} was written with another aggregate layout; run the study again"
            )
        check_player_names(m.get("players"), source=str(path), allow_import=allow_import)
        try:
            ck = cls(folder, m)
            if ck.plan.n_chunks != m["n_chunks"] or ck.plan.groups != m["groups"]:
                raise ValueError("inconsistent chunking")
            if m.get("records") is not None:
                _ = ck.records_path  # refuses a path outside the folder
            if m.get("digest") != ck.plan.study_digest():
                raise ValueError(
                    "its seed, rules or players were edited (they do not match the study's digest)"
                )
        except UnsafePathError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError, DomengError) as e:
            raise CheckpointError(
                f"corrupt manifest {str(path)!r}: {' '.join(str(e).split())[:200]}"
            ) from None
        if lock:
            ck.lock()
        try:
            fs.fixed_subfolder(folder, CHUNKS)
        except BaseException:
            ck.close()
            raise
        return ck

    def check(self, **expect) -> None:
        """Refuse (:class:`CheckpointError`) unless every given parameter
        (``tables, rounds, seed, players, rules, chunk_tables, records``)
        equals the study's."""
        from domeng.study.names import resolve_names_safely
        from domeng.study.summary import coerce_rules

        m = self.manifest
        for key, value in expect.items():
            if value is None:
                continue
            have: Any
            want: Any
            if key in ("tables", "rounds", "seed", "chunk_tables"):
                have, want = int(m[key]), int(value)
            elif key == "players":
                have, want = list(m["players"]), resolve_names_safely(value)
            elif key == "rules":
                have = m["rules"]
                want = coerce_rules(value).to_dict()
                if have != want:
                    diff = {k: v for k, v in want.items() if have.get(k) != v}
                    raise CheckpointError(
                        f"cannot resume {str(self.folder)!r} with other rules: the study there has "
                        + ", ".join(f"{k}={have.get(k)}" for k in diff)
                        + "; resume without --rule, or start a new study elsewhere"
                    )
                continue
            elif key == "records":
                have, want = m.get("records") is not None, bool(value)
            else:
                raise TypeError(f"unknown study parameter {key!r}")
            if have != want:
                if key == "players":
                    have, want = ",".join(have), ",".join(want)
                raise CheckpointError(
                    f"cannot resume {str(self.folder)!r} with {key}={want}: the study there "
                    f"has {key}={have}; resume without it, or start a new study elsewhere"
                )

    # ------------------------------------------------------------ chunks
    def chunk_path(self, index: int) -> Path:
        return self.chunks / f"chunk-{index:07d}.npz"

    def records_part(self, index: int) -> Path:
        return self.chunks / f"records-{index:07d}.parquet"

    @property
    def records_path(self) -> Path | None:
        """The records file, inside the folder (a path leading out is refused)."""
        rec = self.manifest.get("records")
        if rec is None:
            return None
        return fs.resolve_inside(self.folder, rec, "records path")

    def _records_merged(self) -> bool:
        p = self.chunks / RECORDS_MERGED
        return p.is_file() and not p.is_symlink()

    def load_done(self) -> list[ChunkResult]:
        """The finished chunks on disk (damaged ones are skipped with a
        warning: they are computed again).  A chunk written for another
        study (its digest differs) is refused: :class:`CheckpointError`."""
        if self._loaded is not None:
            return self._loaded
        out, damaged = [], []
        merged = self._records_merged()
        fs.clean_temporaries(self.folder, (CHUNKS, "tables", "plots"))
        for p in sorted(fs.fixed_subfolder(self.folder, CHUNKS).iterdir()):
            m = _CHUNK_RE.match(p.name)
            if not m:
                continue
            i = int(m.group(1))
            try:
                if p.is_symlink():
                    raise ValueError("it is a symbolic link")
                if i >= self.plan.n_chunks:
                    raise ValueError("no such chunk in this study")
                with np.load(p, allow_pickle=False) as z:
                    digest = str(z["digest"]) if "digest" in z.files else ""
                    r = ChunkResult(
                        index=int(z["index"]),
                        start=int(z["start"]),
                        n=int(z["n"]),
                        groups=z["groups"],
                        agg=z["agg"],
                        state=z["state"],
                        counts=z["counts"],
                        digest=digest,
                        seconds=float(z["seconds"]) if "seconds" in z.files else float("nan"),
                    )
                if r.index != i:
                    raise ValueError("index does not match the file name")
                r.validate(self.plan)
                if self.plan.records and not merged and not self.records_part(i).is_file():
                    raise ValueError("its records are missing")
            except Exception as e:  # zip, KeyError, ValueError, IndexError ...
                damaged.append((p.stem, f"{type(e).__name__}: {load_error_text(e)}"))
                continue
            if r.digest != self.plan.chunk_digest(i):
                raise CheckpointError(
                    f"{str(p)!r} was not produced by the study in {str(self.folder)!r} (its "
                    "digest of seed, rules, players, tables and engine differs from the "
                    "manifest's): refusing to mix them; remove that file or start a new study"
                )
            out.append(r)
        if damaged:
            warnings.warn(DamagedChunksWarning(self.chunks, damaged), stacklevel=2)
        self._loaded = out
        return out

    def records_writer(self, index: int) -> RecordWriter:
        """A writer of chunk ``index``'s records part (durable on close)."""
        return RecordWriter(self.records_part(index), part=True)

    def write_chunk(self, r: ChunkResult) -> None:
        """Write a finished chunk durably (its records first, if it carries them)."""
        if self.plan.records and r.records is not None:
            table = records_table(r.records, parts_schema())

            def write_parquet(f):
                import pyarrow.parquet as pq

                pq.write_table(table, f, compression="zstd")

            durable_write(self.records_part(r.index), write_parquet)

        def write_npz(f):
            np.savez(
                f,
                index=np.int64(r.index),
                start=np.int64(r.start),
                n=np.int64(r.n),
                groups=r.groups,
                agg=r.agg,
                state=r.state,
                counts=r.counts,
                digest=np.array(r.digest),
                seconds=np.float64(r.seconds),  # the study's compute across resumes
            )

        durable_write(self.chunk_path(r.index), write_npz)

    def finish_records(self, metadata: dict[str, str]) -> int | None:
        """Merge the chunks' records, in table order, into the records file
        (once; the parts are then removed).  Returns its rows."""
        if not self.plan.records:
            return None
        import pyarrow.parquet as pq

        path = self.records_path
        assert path is not None  # a study with records
        if not self._records_merged():
            writer = RecordWriter(path, metadata=metadata)
            try:
                for i in range(self.plan.n_chunks):
                    writer.write_arrow(pq.read_table(self.records_part(i)))
                writer.close()
            except BaseException:
                writer.abort()
                raise
            durable_write(self.chunks / RECORDS_MERGED, f"{writer.rows}\n")
        for i in range(self.plan.n_chunks):
            self.records_part(i).unlink(missing_ok=True)
        return int(pq.ParquetFile(path).metadata.num_rows)


# ---------------------------------------------------------------- resume
class ResumeOptions(RuntimeOptions, total=False):
    """:func:`resume`'s keywords besides the study's numbers."""

    workers: int | None
    chunk_tables: int | None
    records: bool | None
    spec: Any


def resume(
    folder: str | os.PathLike,
    *,
    tables: int | None = None,
    rounds: int | None = None,
    seed: int | None = None,
    players: str | Sequence[str] | None = None,
    rules=None,
    **options: Unpack[ResumeOptions],
):
    """Continue the study in ``folder`` (started with ``simulate(...,
    checkpoint=folder)`` or ``domeng simulate --out folder``) after a crash:
    only the chunks not on disk are played (locally, or on ``client``), and
    the results are written into ``folder`` and returned.  The result equals
    an uninterrupted run.  A finished folder is simply written again.

    The study's parameters come from its manifest; any of ``tables, rounds,
    seed, players, rules, chunk_tables, records`` given here must equal them
    (else :class:`CheckpointError`).  Players named ``module:function`` in the
    manifest are imported only if given again in ``players`` or their module
    is in ``allow_import`` (True: any; see ``docs/security.md``).
    ``workers``, ``progress``, ``client``, ``stall_seconds``: as for :func:`domeng.simulate`.  ``spec``:
    a :class:`~domeng.study.spec.StudySpec` (kind ``simulate``) whose fields
    stand for those parameters (each it sets must equal the folder's).  The folder's
    ``config.toml`` is written from its manifest.  Returns the
    :class:`~domeng.results.results.Results`.

    >>> import domeng, tempfile, os
    >>> folder = os.path.join(tempfile.mkdtemp(), "study")
    >>> first = domeng.simulate(tables=2, rounds=2, seed=1, checkpoint=folder, progress=False)
    >>> again = domeng.resume(folder, progress=False)  # nothing is missing: written again
    >>> again.win_by_seat().equals(first.win_by_seat())
    True
    """
    given = pop_study(options, ("workers", "chunk_tables", "records", "spec"))
    rt = Runtime.of("resume", options, ("client", "progress", "allow_import", "stall_seconds"))
    workers, chunk_tables, records = (given.get(k) for k in ("workers", "chunk_tables", "records"))
    allow_import, client, spec = rt.allow_import, rt.client, given.get("spec")
    if spec is not None:
        from domeng.study.spec import expected_of

        given = dict(tables=tables, rounds=rounds, seed=seed, players=players, rules=rules,
                     chunk_tables=chunk_tables, records=records)  # fmt: skip
        tables, rounds, seed, players, rules, chunk_tables, records = expected_of(spec, given)
    if players is not None:  # named again by the user: their modules may be imported
        from domeng.study.names import modules_named, resolve_names_safely

        allow_import = (
            True
            if allow_import is True
            else (list(allow_import or ()) + modules_named(resolve_names_safely(players)))
        )
    ck = Checkpoint.open(folder, lock=True, allow_import=allow_import)
    try:
        if ck.manifest.get("sequential"):
            raise CheckpointError(
                f"{str(folder)!r} holds a study that stops on the data: "
                f"continue it with `domeng simulate --resume {folder}` "
                "(domeng.study.sequential.resume_until)"
            )
        ck.check(
            tables=tables,
            rounds=rounds,
            seed=seed,
            players=players,
            rules=rules,
            chunk_tables=chunk_tables,
            records=records,
        )
        if workers is not None:
            workers = count("workers", workers)
            if client is not None:
                raise CheckpointError(
                    "workers sets this process's engine threads; with a Dask "
                    "client each task uses its worker's threads"
                )
        finished = ck.pruned_results()
        if finished is not None:  # a finished study: nothing to play; its outputs written again
            finish_prune(ck.folder)
            finished.write_files(ck.folder)
            return _recorded(folder, ck.plan, finished)
        done0 = sum(r.n for r in ck.load_done())
        progress_fn = make_progress(rt.progress, ck.plan.tables, ck.plan.rounds, done0)
        return _recorded(
            folder,
            ck.plan,
            run_study(
                ck.plan,
                client=client,
                threads=workers,
                checkpoint=ck,
                progress_fn=progress_fn,
                stall_seconds=rt.stall_seconds,
            ),
        )
    finally:
        ck.close()


def _recorded(folder, plan: Plan, res):
    """``res``, once the folder's ``config.toml`` is written from its manifest
    (a study whose players are objects has none)."""
    from domeng.study.spec import record

    if plan.engine_players is None:
        record(folder, "simulate", tables=plan.tables, rounds=plan.rounds, seed=plan.seed,
               players=list(plan.players), rules=plan.rules, records=plan.records)  # fmt: skip
    return res


__all__ = [
    "FORMAT",
    "Checkpoint",
    "CheckpointError",
    "DamagedChunksWarning",
    "durable_write",
    "finish_prune",
    "resume",
]
