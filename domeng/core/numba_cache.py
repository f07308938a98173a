"""Keep numba's on-disk cache honest.

numba checks only the source file of a cached function, not the functions
it calls or inlines from other modules, so an edited strategy could leave a
stale compiled kernel.  At import we hash every source file of the package;
when the hash differs from the one the cache was built with, the package's
cached machine code is removed (it is rebuilt on first use).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_PKG = Path(__file__).resolve().parent.parent


#: modules whose code ends up in compiled functions
_COMPILED = ("core", "engine", "players", "batch")


def _source_hash() -> str:
    h = hashlib.sha256()
    for p in sorted(_PKG.glob("*/*.py")):
        if p.parent.name not in _COMPILED:
            continue
        h.update(str(p.relative_to(_PKG)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def check() -> None:
    cache = _PKG / "__pycache__"
    stamp = cache / "numba-source.stamp"
    try:
        current = _source_hash()
        if stamp.exists() and stamp.read_text().strip() == current:
            return
        for sub in _COMPILED:
            d = _PKG / sub / "__pycache__"
            if d.is_dir():
                for f in d.iterdir():
                    if f.suffix in (".nbi", ".nbc"):
                        f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        tmp = stamp.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(current)
        os.replace(tmp, stamp)
    except OSError:
        pass  # a read-only install: numba then caches elsewhere or not at all
