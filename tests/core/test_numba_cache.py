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


_MODULE = "import numba\n\n@numba.njit(cache=True)\ndef f(x):\n    return x + 1\n"


def test_the_compile_guess_without_numba_cache_dir(tmp_path, monkeypatch):
    """NUMBA_CACHE_DIR unset: numba caches beside the source.  Pending until
    the function is compiled in this process or its index is on disk (a fresh
    import of the module, as a new process would see it, then finds it)."""
    from domeng.core import numba_cache as NC

    (tmp_path / "nbmod_guess.py").write_text(_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    _no_cache_dir(monkeypatch)
    mod = importlib.import_module("nbmod_guess")
    assert NC.compile_pending([mod.f]) is True
    assert mod.f(1) == 2
    assert NC.compile_pending([mod.f]) is False  # compiled in this process
    mod = importlib.reload(mod)
    assert not mod.f.signatures
    assert NC.compile_pending([mod.f]) is False  # its index is beside the source
    assert any(p.suffix == ".nbi" for p in (tmp_path / "__pycache__").iterdir())
    assert NC.compile_pending([mod.f, object()]) is True  # not a dispatcher: in doubt, yes


def test_the_compile_guess_counts_a_package_cache_built_from_other_sources(tmp_path, monkeypatch):
    """An index inside the package whose source stamp differs is removed by
    prepare() before the first use: that function compiles."""
    from domeng.core import numba_cache as NC

    layer = tmp_path / "engine"  # a compiled layer of a package at tmp_path
    layer.mkdir()
    (layer / "nbmod_stamp.py").write_text(_MODULE)
    monkeypatch.syspath_prepend(str(layer))
    _no_cache_dir(monkeypatch)
    mod = importlib.import_module("nbmod_stamp")
    assert mod.f(1) == 2
    mod = importlib.reload(mod)
    monkeypatch.setattr(NC, "_PKG", tmp_path)
    monkeypatch.setattr(NC, "_HASH", "current")
    (tmp_path / "__pycache__").mkdir()
    assert NC.compile_pending([mod.f]) is True  # no stamp
    (tmp_path / "__pycache__" / "numba-source.stamp").write_text("other\n")
    assert NC.compile_pending([mod.f]) is True
    (tmp_path / "__pycache__" / "numba-source.stamp").write_text("current\n")
    assert NC.compile_pending([mod.f]) is False


def test_the_compile_guess_looks_in_numbas_cache_folder_when_one_is_set(tmp_path):
    """With NUMBA_CACHE_DIR set, the guess looks there (where numba will),
    not beside the source: an empty folder means a compile, the same folder
    after a run means none; the study's and ``domeng play``'s guesses (the
    same function) say so too."""
    import subprocess
    import sys

    src, cache = tmp_path / "src", tmp_path / "cache"
    src.mkdir()
    (src / "nbmod_dir.py").write_text(_MODULE)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import nbmod_dir\n"
        "from domeng.core.numba_cache import compile_pending\n"
        "from domeng.play.warmup import compile_pending as play_pending\n"
        "from domeng.study.summary import compile_pending as study_pending\n"
        "print(compile_pending([nbmod_dir.f]), study_pending(['random'] * 5), "
        "study_pending(), play_pending())\n"
        "nbmod_dir.f(1)\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", code, str(src)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        for _ in range(2)
    ]
    for out in runs:
        assert out.returncode == 0, out.stderr
    assert runs[0].stdout.split() == ["True", "True", "True", "True"]
    assert runs[1].stdout.split()[0] == "False"  # its index is now in NUMBA_CACHE_DIR
    assert not (src / "__pycache__").exists() or not any(
        p.suffix == ".nbi" for p in (src / "__pycache__").iterdir()
    )


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
