"""Domeng, the five-player domino game of South Sulawesi: a reference rules
engine, a numba batch engine and Monte Carlo studies.

* :mod:`domeng.engine` -- the reference engine (readable rules, the oracle)
* :mod:`domeng.kernel`, :mod:`domeng.batch` -- the numba batch engine
* :mod:`domeng.rules` -- rule constants and options
* ``domeng.simulate(...)`` runs a study and returns ``domeng.Results`` (see
  :mod:`domeng.study`, :mod:`domeng.results`); on a Dask cluster with
  ``client=`` (:mod:`domeng.cluster`); ``checkpoint=DIR`` and
  ``domeng.resume(DIR)`` survive crashes (:mod:`domeng.checkpoint`).

Heavier names are imported lazily, so ``import domeng.tiles`` stays light.
"""

from ._numba_cache import check as _check_numba_cache

_check_numba_cache()

__version__ = "0.1.0"

__all__ = ["simulate", "resume", "Results", "Rules", "Table", "Round", "Move", "DomengError",
           "__version__"]

_LAZY = {
    "simulate": ("study", "simulate"),
    "resume": ("checkpoint", "resume"),
    "Results": ("results", "Results"),
    "Rules": ("rules", "Rules"),
    "Table": ("engine", "Table"),
    "Round": ("engine", "Round"),
    "Move": ("engine", "Move"),
    "DomengError": ("errors", "DomengError"),
}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        mod, attr = _LAZY[name]
        return getattr(importlib.import_module(f".{mod}", __name__), attr)
    raise AttributeError(f"module 'domeng' has no attribute {name!r}")
