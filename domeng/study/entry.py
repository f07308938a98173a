"""Run a :class:`~domeng.study.spec.StudySpec` through its kind's core entry
(:func:`run`, ``domeng.run``): :func:`~domeng.study.simulate.run_simulate`,
:func:`~domeng.study.sequential.run_simulate_until`,
:func:`~domeng.study.compare.run_compare`, :func:`~domeng.study.compare.run_sweep`,
:func:`~domeng.study.tournament.run_tournament` or
:func:`~domeng.study.ladder.run_ladder`, each taking the spec and a
:class:`~domeng.study.runtime.Runtime` (the keyword APIs, ``domeng.simulate(...)``
and the others, build the two and call the same core)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domeng.study.runtime import Runtime, RuntimeOptions
from domeng.study.spec import StudySpec

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.11


def run(spec: StudySpec, runtime: Runtime | None = None, **options: Unpack[RuntimeOptions]) -> Any:
    """Run ``spec`` through its kind's core entry (a ``simulate`` spec with
    ``target_ci``: :func:`~domeng.study.sequential.run_simulate_until`);
    ``runtime`` (a :class:`~domeng.study.runtime.Runtime`) or its keywords
    ``options``: what is not the study, e.g. ``progress=False``, ``overwrite=True``.

    Examples
    --------
    >>> from domeng.study.entry import run
    >>> from domeng.study.spec import StudySpec
    >>> run(StudySpec(tables=2, rounds=2, seed=1), progress=False).total_rounds
    4
    """
    from domeng.core.errors import StudyError
    from domeng.study.compare import run_compare, run_sweep
    from domeng.study.ladder import run_ladder
    from domeng.study.sequential import run_simulate_until
    from domeng.study.simulate import run_simulate
    from domeng.study.tournament import run_tournament

    if not isinstance(spec, StudySpec):
        raise StudyError(f"run() takes a StudySpec, got {type(spec).__name__}")
    if runtime is not None and options:
        raise StudyError("run(): give a Runtime or its keywords, not both")
    entries = {
        "simulate": run_simulate_until if spec.target_ci else run_simulate,
        "compare": run_compare,
        "sweep": run_sweep,
        "tournament": run_tournament,
        "ladder": run_ladder,
    }
    return entries[spec.kind](spec, runtime or Runtime.of("run", options))


__all__ = ["run"]
