"""Keep numba's on-disk cache honest, and load it fast.

numba checks only the source file of a cached function, not the functions
it calls or inlines from other modules, so an edited strategy could leave a
stale compiled kernel.  :func:`prepare` hashes every source file of the
compiled layers; when the hash differs from the one the cache was built
with, the package's cached machine code is removed (it is rebuilt on first
use).  Importing domeng does nothing of the kind: :func:`prepare` runs once
per process, just before the compiled engine is first used (the batch
layer calls it).

Loading fast (issue 11: a study starts in under 0.5 s with a warm cache).
Before it loads a function's cached machine code, numba initialises its
whole compiler (every typing and lowering registry of numpy, the CPython
types, random, linear algebra: about 0.2 s, and 0.2 s more importing scipy
where it is installed), none of which machine code that is already
compiled needs.  :func:`prepare` gives the compiled functions of domeng's
modules a cache that loads without it (it starts only numba's runtime, the
memory allocator the code calls).  A function that is not in the cache is
compiled as before (numba's compiler then initialises itself); the machine
code run is the same either way, so every number is too.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

_PKG = Path(__file__).resolve().parent.parent


#: modules whose code ends up in compiled functions (envs: its kernels inline
#: the step API, so an engine edit must clear them too)
_COMPILED = ("core", "engine", "players", "batch", "envs")

_LOCK = threading.Lock()
_PREPARED = False
_HASH: str | None = None
_LIGHT: set[str] = set()  # the modules whose compiled functions load light
_SEEN_MODULES = -1  # len(sys.modules) at the last look for new compiled modules


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


def prepare() -> None:
    """Once per process, before the compiled engine is first used: remove
    cached machine code built from other sources (see the module doc)."""
    global _PREPARED
    with _LOCK:
        _lighten()  # modules imported since the last call too
        if _PREPARED:
            return
        _PREPARED = True
        current = _source_hash()
        for stamp, dirs in _cache_places():
            try:
                if stamp.is_file() and stamp.read_text().strip() == current:
                    continue
                for d in dirs:
                    if d.is_dir():
                        for f in d.iterdir():
                            if f.suffix in (".nbi", ".nbc"):
                                f.unlink(missing_ok=True)
                stamp.parent.mkdir(parents=True, exist_ok=True)
                tmp = stamp.with_suffix(f".tmp{os.getpid()}")
                tmp.write_text(current)
                os.replace(tmp, stamp)
            except OSError:
                pass  # a read-only place: numba then caches elsewhere or not at all


def _cache_places() -> list[tuple[Path, list[Path]]]:
    """Where numba keeps the package's machine code, each with the stamp of
    the sources it was built from: the package's ``__pycache__`` folders,
    and with ``NUMBA_CACHE_DIR`` set the folders numba's locator uses there
    (one per compiled layer, named after the source folder; the stamp beside
    them names the package's path, so two checkouts sharing one cache
    folder keep separate stamps)."""
    places = [(_stamp(), [_PKG / sub / "__pycache__" for sub in _COMPILED])]
    root = os.environ.get("NUMBA_CACHE_DIR", "")
    if root:
        try:
            from numba.core.caching import UserProvidedCacheLocator as U

            dirs = [
                Path(root) / U.get_suitable_cache_subpath(str(_PKG / sub / "__init__.py"))
                for sub in _COMPILED
            ]
            key = hashlib.sha1(str(_PKG).encode()).hexdigest()[:12]
            places.append((Path(root) / f"domeng-{key}-numba-source.stamp", dirs))
        except (ImportError, AttributeError):  # pragma: no cover - another numba
            pass
    return places


def _light_cache_class():
    """numba's function cache, loading without the compiler's start-up (see
    the module doc); None where this numba lacks the pieces (then numba's own
    cache is kept)."""
    try:
        from numba.core.caching import FunctionCache
        from numba.core.runtime import rtsys
    except ImportError:  # pragma: no cover - another numba
        return None
    if not (
        callable(getattr(FunctionCache, "_load_overload", None))
        and callable(getattr(FunctionCache, "_guard_against_spurious_io_errors", None))
    ):
        return None  # pragma: no cover - another numba

    class LightCache(FunctionCache):
        def load_overload(self, sig, target_context):
            # numba's own refreshes the target context first: needed to
            # compile, not to load machine code; the runtime (NRT) is
            rtsys.initialize(target_context)
            with self._guard_against_spurious_io_errors():
                return self._load_overload(sig, target_context)

        def save_overload(self, sig, data):
            # numba reads a function's index, picks the first free data file
            # name for a new specialisation, writes the index, then the data:
            # two processes adding *different* specialisations of one function
            # at once (workers of a study, a test suite on several cores)
            # could both claim one name, and the index would then send one of
            # them to the other's machine code.  One process at a time here.
            with _index_lock(self):
                super().save_overload(sig, data)

    return LightCache


_LIGHT_CACHE = None


class _index_lock:
    """An exclusive lock (``flock``) on a lock file beside a function's cache
    index, for as long as one specialisation is saved; nothing where the file
    cannot be made or ``fcntl`` is missing (numba's own behaviour then)."""

    def __init__(self, cache) -> None:
        self.fd = None
        try:
            import fcntl

            cache._impl.locator.ensure_cache_path()
            self.fd = os.open(
                cache._cache_file._index_path + ".lock", os.O_RDWR | os.O_CREAT, 0o600
            )
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except (ImportError, AttributeError, OSError):
            if self.fd is not None:
                os.close(self.fd)
            self.fd = None

    def __enter__(self) -> _index_lock:
        return self

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock


def _lighten() -> None:
    """Give every compiled function of domeng's imported compiled modules a
    cache that loads light (once per module)."""
    global _LIGHT_CACHE, _SEEN_MODULES
    import sys

    # prepare() runs before every kernel call: look through sys.modules only
    # when modules were imported since the last look (a study's chunks import none)
    if len(sys.modules) == _SEEN_MODULES:
        return
    _SEEN_MODULES = len(sys.modules)
    mods = [
        (n, m)
        for n, m in list(sys.modules.items())
        if n.startswith("domeng.")
        and n not in _LIGHT
        and n.count(".") == 2
        and n.split(".")[1] in _COMPILED
        and m is not None
    ]
    if not mods:
        return
    from numba.core.caching import FunctionCache
    from numba.core.dispatcher import Dispatcher

    if _LIGHT_CACHE is None:
        _LIGHT_CACHE = _light_cache_class() or FunctionCache
    for name, mod in mods:
        _LIGHT.add(name)
        for obj in list(vars(mod).values()):
            if (
                isinstance(obj, Dispatcher)
                and type(getattr(obj, "_cache", None)) is FunctionCache
                and obj.__module__ == name
            ):
                # the same cache (a subclass that only loads differently): no new object
                obj._cache.__class__ = _LIGHT_CACHE  # type: ignore[attr-defined]


#: the name the package used before (kept for callers)
check = prepare
