"""Run a :class:`~domeng.study.spec.StudySpec` through its kind's entry point
(:func:`run`, ``domeng.run``): above every study module, which take the
spec themselves (``domeng.simulate(spec)``, ``domeng.compare(spec=spec)``...)."""

from __future__ import annotations

from typing import Any

from domeng.study.spec import StudySpec


def run(spec: StudySpec, **runtime: Any) -> Any:
    """Run ``spec`` through its kind's entry point (a ``simulate`` spec with
    ``target_ci``: :func:`~domeng.study.sequential.simulate_until`);
    ``runtime``: what is not the study, e.g. ``progress=False``, ``overwrite=True``.

    Examples
    --------
    >>> from domeng.study.entry import run
    >>> from domeng.study.spec import StudySpec
    >>> run(StudySpec(tables=2, rounds=2, seed=1), progress=False).total_rounds
    4
    """
    from domeng.study.compare import compare, sweep
    from domeng.study.ladder import ladder
    from domeng.study.sequential import simulate_until
    from domeng.study.simulate import simulate
    from domeng.study.tournament import tournament

    if not isinstance(spec, StudySpec):
        from domeng.core.errors import StudyError

        raise StudyError(f"run() takes a StudySpec, got {type(spec).__name__}")
    entries = {
        "simulate": simulate_until if spec.target_ci else simulate,
        "compare": compare,
        "sweep": sweep,
        "tournament": tournament,
        "ladder": ladder,
    }
    return entries[spec.kind](spec=spec, **runtime)


__all__ = ["run"]
