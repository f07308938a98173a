"""Keep numba's on-disk cache honest.

numba checks only the source file of a cached function, not the functions
it calls or inlines from other modules, so an edited strategy could leave a
stale compiled kernel.  :func:`prepare` hashes every source file of the
compiled layers; when the hash differs from the one the cache was built
with, the package's cached machine code is removed (it is rebuilt on first
use).  Importing domeng does nothing of the kind: :func:`prepare` runs once
per process, just before the compiled engine is first used (the batch
layer calls it).
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

_PKG = Path(__file__).resolve().parent.parent


#: modules whose code ends up in compiled functions
_COMPILED = ("core", "engine", "players", "batch")

_LOCK = threading.Lock()
_PREPARED = False
_HASH: str | None = None


def _source_hash() -> str:
    """A hash of the source of every module compiled into the engine."""
    global _HASH
    if _HASH is None:
        h = hashlib.sha256()
        for p in sorted(_PKG.glob("*/*.py")):
            if p.parent.name not in _COMPILED:
                continue
            h.update(str(p.relative_to(_PKG)).encode())
            h.update(p.read_bytes())
        _HASH = h.hexdigest()[:16]
    return _HASH


def _stamp() -> Path:
    return _PKG / "__pycache__" / "numba-source.stamp"


def compile_pending() -> bool:
    """Will the next use of the compiled engine compile it (no valid cache
    on disk and not compiled in this process yet)?  A guess for the progress
    bar, never an error."""
    import sys

    k = sys.modules.get("domeng.batch.loop")
    if k is not None and getattr(getattr(k, "run_kernel", None), "signatures", None):
        return False
    try:
        if not _stamp().is_file() or _stamp().read_text().strip() != _source_hash():
            return True
        cache = _PKG / "batch" / "__pycache__"
        return not any(cache.glob("loop.run_kernel-*.nbi"))
    except OSError:
        return True


def prepare() -> None:
    """Once per process, before the compiled engine is first used: remove
    cached machine code built from other sources (see the module doc)."""
    global _PREPARED
    if _PREPARED:
        return
    with _LOCK:
        if _PREPARED:
            return
        _PREPARED = True
        stamp = _stamp()
        try:
            current = _source_hash()
            if stamp.is_file() and stamp.read_text().strip() == current:
                return
            for sub in _COMPILED:
                d = _PKG / sub / "__pycache__"
                if d.is_dir():
                    for f in d.iterdir():
                        if f.suffix in (".nbi", ".nbc"):
                            f.unlink(missing_ok=True)
            stamp.parent.mkdir(exist_ok=True)
            tmp = stamp.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(current)
            os.replace(tmp, stamp)
        except OSError:
            pass  # a read-only install: numba then caches elsewhere or not at all


#: the name the package used before (kept for callers)
check = prepare
