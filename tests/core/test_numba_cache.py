"""numba's on-disk cache as domeng uses it (domeng.core.numba_cache)."""

from __future__ import annotations

import importlib
import os

import pytest

fcntl = pytest.importorskip("fcntl")


def test_a_specialisation_is_saved_under_the_index_lock(tmp_path, monkeypatch):
    """Two processes adding different specialisations of one function at once
    could claim the same data file in its index: each save holds an exclusive
    lock beside the index (checked here from a second open file, which must
    not get the lock while a save runs)."""
    from numba.core.caching import FunctionCache

    from domeng.core import numba_cache as NC

    (tmp_path / "nbmod_lock.py").write_text(
        "import numba\n\n@numba.njit(cache=True)\ndef f(x):\n    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
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


def test_the_compile_guess_looks_in_numbas_cache_folder_when_one_is_set(tmp_path):
    """With NUMBA_CACHE_DIR set, the progress bar's guess must look there
    (not in the package's __pycache__): an empty folder means a compile."""
    import subprocess
    import sys

    code = ("from domeng.core.numba_cache import compile_pending\n"
            "print(compile_pending(['random'] * 5), compile_pending())")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True"]
