"""Results of studies: estimates, comparisons, sweeps, reports.

The helpers for a study's records are importable from here:
:func:`read_records`, :func:`metric_from_records` and
:func:`difference_from_records` (:mod:`domeng.results.records`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["difference_from_records", "metric_from_records", "read_records"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from domeng.results import records

        return getattr(records, name)
    raise AttributeError(f"module 'domeng.results' has no attribute {name!r}")
