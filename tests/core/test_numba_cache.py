"""numba's on-disk cache as domeng uses it (domeng.core.numba_cache)."""

from __future__ import annotations

import importlib
import os

import pytest

fcntl = pytest.importorskip("fcntl")


def _no_cache_dir(monkeypatch):
    """numba as it runs with NUMBA_CACHE_DIR unset: numba read the variable
    into ``numba.config`` at import, so a test run with it exported (a
    developer's shell, a helper's own cache) must clear both."""
    from numba.core import config

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(config, "CACHE_DIR", "")


def test_a_specialisation_is_saved_under_the_index_lock(tmp_path, monkeypatch):
    """Two processes adding different specialisations of one function at once
    could claim the same data file in its index: each save holds an exclusive
    lock beside the index (checked here from a second open file, which must
    not get the lock while a save runs)."""
    from numba.core.caching import FunctionCache

    from domeng.core import numba_cache as NC

    (tmp_path / "nbmod_lock.py").write_text(
        "import numba\n\n@numba.njit(cache=True)\ndef f(x):\n    return x + 1\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    _no_cache_dir(monkeypatch)
    mod = importlib.import_module("nbmod_lock")
    light = NC._light_cache_class()
    assert light is not None
    mod.f._cache.__class__ = light
    held = []
    save = FunctionCache.save_overload

    def probe(self, sig, data):
        fd = os.open(self._cache_file._index_path + ".lock", os.O_RDWR)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                held.append(sig)
        finally:
            os.close(fd)
        return save(self, sig, data)

    monkeypatch.setattr(FunctionCache, "save_overload", probe)
    assert mod.f(1) == 2 and mod.f(1.5) == 2.5
    assert len(held) == 2  # both specialisations were saved with the lock held
    assert any(p.suffix == ".nbi" for p in (tmp_path / "__pycache__").iterdir())


def test_prepare_clears_code_built_from_other_sources_in_numba_cache_dir(tmp_path, monkeypatch):
    """numba checks only a function's own source file, so code that inlines
    an edited module stays in its cache: prepare() clears the package's
    machine code wherever numba keeps it, beside the sources and, with
    NUMBA_CACHE_DIR set, in the folders numba's locator uses there; a
    stamp in each place says which sources the code was built from."""
    from numba.core.caching import UserProvidedCacheLocator as U

    from domeng.core import numba_cache as NC

    pkg, root = tmp_path / "pkg", tmp_path / "cache"
    for sub in NC._COMPILED:
        (pkg / sub / "__pycache__").mkdir(parents=True)
        (pkg / sub / "__pycache__" / "f.nbi").write_text("x")
    beside = [pkg / sub / "__pycache__" / "f.nbi" for sub in NC._COMPILED]
    there = [
        root / U.get_suitable_cache_subpath(str(pkg / sub / "__init__.py")) / "f.nbi"
        for sub in NC._COMPILED
    ]
    for f in there:
        f.parent.mkdir(parents=True)
        f.write_text("x")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(root))
    monkeypatch.setattr(NC, "_PKG", pkg)
    monkeypatch.setattr(NC, "_HASH", "v1")
    monkeypatch.setattr(NC, "_PREPARED", False)
    NC.prepare()
    assert not any(f.exists() for f in beside + there)  # no stamp anywhere: all cleared
    stamps = [s for s, _ in NC._cache_places()]
    assert len(stamps) == 2 and all(s.read_text().strip() == "v1" for s in stamps)
    for f in beside + there:
        f.write_text("x")  # compiled again from the same sources
    monkeypatch.setattr(NC, "_PREPARED", False)
    NC.prepare()
    assert all(f.exists() for f in beside + there)  # the stamps match: kept
    monkeypatch.setattr(NC, "_HASH", "v2")  # a source was edited
    monkeypatch.setattr(NC, "_PREPARED", False)
    NC.prepare()
    assert not any(f.exists() for f in beside + there)
