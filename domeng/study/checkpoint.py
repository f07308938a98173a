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
    with records: the chunk's per-round records, written durably *before*
    its chunk file; merged in table order into the records file when the
    study ends, then removed.

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
import shutil
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from domeng.study.chunks import ChunkResult, Plan
from domeng.core.errors import DomengError
from domeng.core.rules import Rules

FORMAT = "domeng.study.checkpoint/1"
MANIFEST = "manifest.json"
CHUNKS = "chunks"
RECORDS_MERGED = "records.merged"
#: in ``chunks/`` of a finished study: the chunk files were removed (results.npz holds their sums)
PRUNED = "pruned"
_CHUNK_RE = re.compile(r"^chunk-(\d+)\.npz$")


class CheckpointError(DomengError, ValueError):
    """A checkpoint folder that cannot be resumed (missing, corrupt, from
    another version, or asked to resume with other parameters)."""


# ---------------------------------------------------------------- durable files
def fsync_dir(path: str | os.PathLike) -> None:
    """fsync a folder, so that a rename in it survives a power cut."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def durable_write(path: str | os.PathLike, write: Callable[[Any], None] | bytes | str) -> None:
    """Write ``path`` atomically and durably: a temporary file in the same
    folder, ``fsync``, ``os.replace``, ``fsync`` of the folder.  ``write`` is
    the content, or a function given the open binary file."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            if callable(write):
                write(f)
            else:
                f.write(write.encode("utf-8") if isinstance(write, str) else write)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(path.parent)


# ---------------------------------------------------------------- manifest
def _manifest(plan: Plan, records: str | None) -> dict:
    from domeng.study.cluster import fingerprint
    from domeng.results.results import _layout_meta

    version, engine = fingerprint()
    return {
        "format": FORMAT, "version": version, "engine": engine, "layout": _layout_meta(),
        "tables": plan.tables, "rounds": plan.rounds, "seed": plan.seed,
        "players": list(plan.players), "rules": plan.rules.to_dict(),
        "chunk_tables": plan.chunk_tables, "n_chunks": plan.n_chunks, "groups": plan.groups,
        "records": records,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def _plan_of(m: dict) -> Plan:
    return Plan(tables=int(m["tables"]), rounds=int(m["rounds"]), seed=int(m["seed"]),
                players=tuple(m["players"]), rules=Rules.from_mapping(m["rules"]),
                chunk_tables=int(m["chunk_tables"]), records=m.get("records") is not None)


PREVIOUS = "previous-results.txt"  #: names the finished study this one replaces, until it ends


def _prepare_folder(folder: Path) -> Path | None:
    """Make ``folder`` ready for a new study: create it, use it if empty;
    move a finished results folder aside to ``FOLDER.previous`` (deleted when
    the new study has finished, so a failed or interrupted run loses no
    results); refuse a file, an unfinished study and a folder holding
    anything else.  Returns where the previous results went, if anywhere."""
    from domeng.results.results import ResultsError

    shown = str(folder)
    if folder.exists():
        if not folder.is_dir():
            raise ResultsError(f"cannot write results to {shown!r}: it is a file")
        names = {p.name for p in folder.iterdir()}
        if not names:
            return
        if "results.npz" not in names:
            if MANIFEST in names:
                raise CheckpointError(
                    f"{shown!r} holds an unfinished study: continue it with "
                    f"`domeng simulate --resume {shown}` (domeng.resume), or delete the folder")
            raise ResultsError(f"refusing to write results to {shown!r}: the folder exists and "
                               "holds something other than domeng results")
        # a finished results folder: kept aside until the new study has finished
        previous = folder.with_name(folder.name + ".previous")
        k = 1
        while previous.exists():
            k += 1
            previous = folder.with_name(f"{folder.name}.previous{k}")
        try:
            os.rename(folder, previous)
        except OSError as e:
            raise ResultsError(f"cannot replace the results in {shown!r}: {e.strerror or e}") from None
    else:
        previous = None
    try:
        folder.mkdir(parents=True)
        if previous is not None:
            durable_write(folder / PREVIOUS, str(previous) + "\n")
    except OSError as e:
        raise ResultsError(f"cannot write results to {shown!r}: {e.strerror or e}") from None
    return previous


class Checkpoint:
    """A study folder with a manifest and finished chunks (see the module doc)."""

    def __init__(self, folder: str | os.PathLike, manifest: dict) -> None:
        self.folder = Path(folder)
        self.manifest = manifest
        self.plan = _plan_of(manifest)
        self.chunks = self.folder / CHUNKS
        self._loaded: list[ChunkResult] | None = None

    # ------------------------------------------------------------ create / open
    @classmethod
    def create(cls, folder: str | os.PathLike, plan: Plan,
               records: str | os.PathLike | None = None) -> "Checkpoint":
        """Start a new study in ``folder`` (see :func:`_prepare_folder`)."""
        from domeng.players.registry import parse_players
        from domeng.results.results import ResultsError

        folder = Path(folder)
        try:
            if plan.engine_players is not None:
                raise ValueError
            if parse_players(list(plan.players)) != list(plan.players):
                raise ValueError
        except (DomengError, ValueError):
            raise CheckpointError("a checkpointed study needs players given by name (built-in "
                                  "or module:function), so that it can be resumed") from None
        rec = None
        if plan.records:
            if records is None:
                raise CheckpointError("records asked for without a records path")
            rpath = Path(records)
            if rpath.is_dir():
                raise CheckpointError(f"records path {str(rpath)!r} is a directory")
            try:
                rec = str(rpath.resolve().relative_to(folder.resolve()))
            except ValueError:
                rec = str(rpath.resolve())
                if not rpath.resolve().parent.is_dir():
                    raise CheckpointError(f"cannot write records to {str(rpath)!r}: its folder "
                                          "does not exist") from None
        _prepare_folder(folder)
        m = _manifest(plan, rec)
        try:
            (folder / CHUNKS).mkdir()
            durable_write(folder / MANIFEST, json.dumps(m, indent=2) + "\n")
        except OSError as e:
            raise ResultsError(f"cannot write the study to {str(folder)!r}: "
                               f"{e.strerror or e}") from None
        fsync_dir(folder.parent)
        return cls(folder, m)

    def drop_previous(self) -> None:
        """The study has finished: delete the results it replaced, if any."""
        marker = self.folder / PREVIOUS
        try:
            previous = Path(marker.read_text().strip())
        except OSError:
            return
        if previous.name.startswith(self.folder.name + ".previous"):
            shutil.rmtree(previous, ignore_errors=True)
        marker.unlink(missing_ok=True)

    def prune(self) -> None:
        """The study has finished (``results.npz`` is written): remove the
        chunk files, most of the folder's size.  A marker is written first,
        so :func:`resume` of the folder reads ``results.npz`` instead."""
        durable_write(self.chunks / PRUNED, "the chunks' sums are in ../results.npz\n")
        for p in self.chunks.glob("chunk-*.npz"):
            p.unlink(missing_ok=True)

    def pruned_results(self):
        """The finished study's results when its chunks were pruned, else None."""
        from domeng.results.results import Results

        if not ((self.chunks / PRUNED).is_file() and (self.folder / "results.npz").is_file()):
            return None
        res = Results.load(self.folder)
        p = self.plan
        if (res.tables, res.rounds, res.seed, tuple(res.players), res.meta["rules"]) != (
                p.tables, p.rounds, p.seed, tuple(p.players), p.rules.to_dict()):
            raise CheckpointError(f"{str(self.folder)!r}: results.npz does not match "
                                  f"{MANIFEST}; run the study again")
        return res

    @classmethod
    def open(cls, folder: str | os.PathLike) -> "Checkpoint":
        """Open a study folder to resume it; refuses a folder it cannot
        resume exactly (another version, engine or layout)."""
        from domeng.study.cluster import fingerprint
        from domeng.results.results import _layout_meta

        folder = Path(folder)
        shown = str(folder)
        if not folder.is_dir():
            raise CheckpointError(f"no study folder {shown!r} to resume")
        path = folder / MANIFEST
        if not path.is_file():
            raise CheckpointError(f"{shown!r} cannot be resumed: it has no {MANIFEST} "
                                  "(only studies run with --out DIR can be)")
        try:
            m = json.loads(path.read_text())
            if not isinstance(m, dict):
                raise ValueError("not an object")
        except (OSError, ValueError) as e:
            raise CheckpointError(f"corrupt manifest {str(path)!r}: {e}") from None
        if m.get("format") != FORMAT:
            raise CheckpointError(f"{shown!r} was written by an incompatible domeng (checkpoint "
                                  f"format {m.get('format')!r}, this one reads {FORMAT!r}); "
                                  "run the study again")
        version, engine = fingerprint()
        if m.get("version") != version:
            raise CheckpointError(f"{shown!r} was written by domeng {m.get('version')} and this is "
                                  f"domeng {version}: its chunks cannot be mixed with new ones; "
                                  "resume with that version or run the study again")
        if m.get("engine") != engine:
            raise CheckpointError(f"{shown!r} was written by another build of the engine (source "
                                  f"hash {m.get('engine')}, this one {engine}): its chunks cannot "
                                  "be mixed with new ones; run the study again")
        if m.get("layout") != _layout_meta():
            raise CheckpointError(f"{shown!r} was written with another aggregate layout; "
                                  "run the study again")
        try:
            ck = cls(folder, m)
            if (ck.plan.n_chunks != int(m["n_chunks"]) or ck.plan.groups != int(m["groups"])
                    or min(ck.plan.tables, ck.plan.rounds, ck.plan.chunk_tables) < 1):
                raise ValueError("inconsistent chunking")
            if m.get("records") is not None and not isinstance(m["records"], str):
                raise ValueError("records must be a path")
        except (KeyError, TypeError, ValueError, AttributeError, DomengError) as e:
            raise CheckpointError(f"corrupt manifest {str(path)!r}: {e}") from None
        ck.chunks.mkdir(exist_ok=True)
        return ck

    def check(self, **expect) -> None:
        """Refuse (:class:`CheckpointError`) unless every given parameter
        (``tables, rounds, seed, players, rules, chunk_tables, records``)
        equals the study's."""
        from domeng.players.registry import parse_players
        from domeng.study.simulate import coerce_rules

        m = self.manifest
        for key, value in expect.items():
            if value is None:
                continue
            if key in ("tables", "rounds", "seed", "chunk_tables"):
                have, want = int(m[key]), int(value)
            elif key == "players":
                have, want = list(m["players"]), parse_players(value)
            elif key == "rules":
                have = m["rules"]
                want = coerce_rules(value).to_dict()
                if have != want:
                    diff = {k: v for k, v in want.items() if have.get(k) != v}
                    raise CheckpointError(
                        f"cannot resume {str(self.folder)!r} with other rules: the study there has "
                        + ", ".join(f"{k}={have.get(k)}" for k in diff)
                        + "; resume without --rule, or start a new study elsewhere")
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
                    f"has {key}={have}; resume without it, or start a new study elsewhere")

    # ------------------------------------------------------------ chunks
    def chunk_path(self, index: int) -> Path:
        return self.chunks / f"chunk-{index:07d}.npz"

    def records_part(self, index: int) -> Path:
        return self.chunks / f"records-{index:07d}.parquet"

    @property
    def records_path(self) -> Path | None:
        rec = self.manifest.get("records")
        if rec is None:
            return None
        p = Path(rec)
        return p if p.is_absolute() else self.folder / p

    def _records_merged(self) -> bool:
        return (self.chunks / RECORDS_MERGED).is_file()

    def load_done(self) -> list[ChunkResult]:
        """The finished chunks on disk (damaged ones are skipped with a
        warning: they are computed again)."""
        if self._loaded is not None:
            return self._loaded
        out = []
        merged = self._records_merged()
        for p in sorted(self.chunks.iterdir()):
            if p.name.endswith(".partial"):  # an interrupted write: never counted
                p.unlink(missing_ok=True)
                continue
            m = _CHUNK_RE.match(p.name)
            if not m:
                continue
            i = int(m.group(1))
            try:
                with np.load(p, allow_pickle=False) as z:
                    r = ChunkResult(index=int(z["index"]), start=int(z["start"]), n=int(z["n"]),
                                    groups=z["groups"], agg=z["agg"], state=z["state"],
                                    counts=z["counts"])
                if r.index != i:
                    raise ValueError("index does not match the file name")
                r.validate(self.plan)
                if self.plan.records and not merged and not self.records_part(i).is_file():
                    raise ValueError("its records are missing")
            except Exception as e:  # zip, KeyError, ValueError, IndexError ...
                warnings.warn(f"ignoring damaged checkpoint file {str(p)!r} ({type(e).__name__}: "
                              f"{e}); its chunk is computed again", RuntimeWarning, stacklevel=2)
                continue
            out.append(r)
        self._loaded = out
        return out

    def write_chunk(self, r: ChunkResult) -> None:
        """Write a finished chunk durably (its records first, if any)."""
        if self.plan.records:
            from domeng.study.simulate import _records_schema, records_table

            table = records_table(r.records, _records_schema())

            def write_parquet(f):
                import pyarrow.parquet as pq

                pq.write_table(table, f, compression="zstd")

            durable_write(self.records_part(r.index), write_parquet)

        def write_npz(f):
            np.savez(f, index=np.int64(r.index), start=np.int64(r.start), n=np.int64(r.n),
                     groups=r.groups, agg=r.agg, state=r.state, counts=r.counts)

        durable_write(self.chunk_path(r.index), write_npz)

    def finish_records(self, metadata: dict[str, str]) -> int | None:
        """Merge the chunks' records, in table order, into the records file
        (once; the parts are then removed).  Returns its rows."""
        if not self.plan.records:
            return None
        import pyarrow.parquet as pq

        from domeng.study.simulate import RecordWriter

        path = self.records_path
        if not self._records_merged():
            writer = RecordWriter(path, metadata=metadata)
            try:
                for i in range(self.plan.n_chunks):
                    writer.write_arrow(pq.read_table(self.records_part(i)))
                writer.close()
            except BaseException:
                writer.abort()
                raise
            with open(path, "rb") as f:
                os.fsync(f.fileno())
            fsync_dir(path.parent)
            durable_write(self.chunks / RECORDS_MERGED, f"{writer.rows}\n")
        for i in range(self.plan.n_chunks):
            self.records_part(i).unlink(missing_ok=True)
        return int(pq.ParquetFile(path).metadata.num_rows)


# ---------------------------------------------------------------- resume
def resume(folder: str | os.PathLike, *, client=None, workers: int | None = None,
           progress=None, tables: int | None = None, rounds: int | None = None,
           seed: int | None = None, players: str | Sequence[str] | None = None,
           rules=None, chunk_tables: int | None = None, records: bool | None = None):
    """Continue the study in ``folder`` (started with ``simulate(...,
    checkpoint=folder)`` or ``domeng simulate --out folder``) after a crash:
    only the chunks not on disk are played (locally, or on ``client``), and
    the results are written into ``folder`` and returned.  The result equals
    an uninterrupted run.  A finished folder is simply written again.

    The study's parameters come from its manifest; any of ``tables, rounds,
    seed, players, rules, chunk_tables, records`` given here must equal them
    (else :class:`CheckpointError`).  ``workers``: local engine threads;
    ``progress``: as for :func:`domeng.simulate`."""
    from domeng.study.chunks import run_study
    from domeng.study.simulate import _count, make_progress

    ck = Checkpoint.open(folder)
    ck.check(tables=tables, rounds=rounds, seed=seed, players=players, rules=rules,
             chunk_tables=chunk_tables, records=records)
    if workers is not None:
        workers = _count("workers", workers)
        if client is not None:
            raise CheckpointError("workers sets this process's engine threads; with a Dask "
                                  "client each task uses its worker's threads")
    finished = ck.pruned_results()
    if finished is not None:  # a finished study: nothing to play
        return finished
    done0 = sum(r.n for r in ck.load_done())
    progress_fn = make_progress(progress, ck.plan.tables, ck.plan.rounds, done0)
    return run_study(ck.plan, client=client, threads=workers, checkpoint=ck,
                     progress_fn=progress_fn)


__all__ = ["Checkpoint", "CheckpointError", "resume", "durable_write", "FORMAT"]
