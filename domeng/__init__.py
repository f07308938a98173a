"""Domeng, the five-player domino game of South Sulawesi: a reference rules
engine, a numba batch engine and Monte Carlo studies.

* :mod:`domeng.engine.reference` -- the reference engine (readable rules, the oracle)
* :mod:`domeng.engine.kernel`, :mod:`domeng.batch.tables` -- the numba batch engine
* :mod:`domeng.core.rules` -- rule constants and options
* ``domeng.tournament(...)`` and ``domeng.ladder(...)`` rank players in duplicate
  matches (:mod:`domeng.study.tournament`, :mod:`domeng.study.ladder`)
* ``domeng.compare(...)`` and ``domeng.sweep(...)`` play variants of the rules or
  lineups on the same tables (paired differences, :mod:`domeng.study.compare`);
  ``domeng.run(domeng.StudySpec(...))`` runs a study given as one spec or file
  (:mod:`domeng.study.spec`);
  ``domeng.simulate_until(...)`` stops a study on the data (:mod:`domeng.study.sequential`)
* ``domeng.load_player(name)`` (also ``domeng.players.load``) gives any player of
  the catalogue as a policy over the environments' observations (:mod:`domeng.players.agents`)
* ``domeng.simulate(...)`` runs a study and returns ``domeng.Results`` (see
  :mod:`domeng.study.simulate`, :mod:`domeng.results.results`); on a Dask cluster with
  ``client=`` (:mod:`domeng.study.cluster`); ``checkpoint=DIR`` and
  ``domeng.resume(DIR)`` survive crashes (:mod:`domeng.study.checkpoint`).

>>> import domeng
>>> res = domeng.simulate(tables=2, rounds=2, seed=1, progress=False)
>>> res.total_rounds
4

Heavier names are imported lazily, so ``import domeng.core.tiles`` stays light.
Importing domeng has no side effects: it deletes no files and installs no
warning filter or matplotlib backend.
"""

from typing import Any

#: the version of domeng, in this one place (pyproject.toml reads it)
__version__ = "0.1.0"

__all__ = [
    "Comparison",
    "DomengError",
    "Move",
    "Results",
    "Round",
    "Rules",
    "StudySpec",
    "Sweep",
    "Table",
    "__version__",
    "compare",
    "ladder",
    "load_player",
    "resume",
    "run",
    "simulate",
    "simulate_until",
    "sweep",
    "tournament",
]

_LAZY = {
    "simulate": ("study.simulate", "simulate"),
    "resume": ("study.checkpoint", "resume"),
    "simulate_until": ("study.sequential", "simulate_until"),
    "compare": ("study.compare", "compare"),
    "sweep": ("study.compare", "sweep"),
    "tournament": ("study.tournament", "tournament"),
    "ladder": ("study.ladder", "ladder"),
    "load_player": ("players", "load"),
    "StudySpec": ("study.spec", "StudySpec"),
    "run": ("study.entry", "run"),
    "Comparison": ("results.comparison", "Comparison"),
    "Sweep": ("results.sweep", "Sweep"),
    "Results": ("results.results", "Results"),
    "Rules": ("core.rules", "Rules"),
    "Table": ("engine.reference", "Table"),
    "Round": ("engine.reference", "Round"),
    "Move": ("engine.reference", "Move"),
    "DomengError": ("core.errors", "DomengError"),
}


def __dir__() -> list[str]:
    """The public API (``dir(domeng)``), loaded lazily."""
    return sorted(set(__all__) | set(globals()))


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        mod, attr = _LAZY[name]
        return getattr(importlib.import_module(f".{mod}", __name__), attr)
    raise AttributeError(f"module 'domeng' has no attribute {name!r}")
