"""How a study runs, as one record: what is not the study (issue 21 item 7).

A study is a :class:`~domeng.study.spec.StudySpec` (what is played: its
numbers depend on nothing else); :class:`Runtime` is everything else an
entry point may be told: the progress bar, the Dask client, the checkpoint
folder's policy, the command line to record, the player objects a spec
cannot name.  Each kind's core entry takes the two
(:func:`domeng.study.simulate.run_simulate`, ...); the keyword APIs
(``domeng.simulate(tables=..., progress=False)``) build a spec and a
:class:`Runtime` from their keywords and call it.

:class:`RuntimeOptions` types the keywords of a :class:`Runtime`, so that
an entry point takes them as ``**runtime: Unpack[RuntimeOptions]``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from domeng.core.errors import refuse_unknown_keywords

if TYPE_CHECKING:
    pass  # typing's own from Python 3.11

#: a progress option: True (a bar), False (none), None (a bar on a terminal), or a callable
Progress = bool | Callable[[int, int], None] | None


class RuntimeOptions(TypedDict, total=False):
    """The keywords of a :class:`Runtime` (each one optional)."""

    progress: Progress
    client: Any
    checkpoint: str | os.PathLike | None
    stall_seconds: float | None
    overwrite: bool
    command: str | None
    allow_import: bool | Iterable[str]
    resume: bool
    time_decisions: bool
    chunk_deals: int | None


@dataclass(frozen=True)
class Runtime:
    """What is not the study: how it runs, where it is saved, what it prints.

    Parameters
    ----------
    progress:
        True: a progress bar on stderr; False: none; None: a bar only when
        stderr is a terminal; a callable: ``progress(done, total)``.
    client:
        A ``dask.distributed.Client`` (simulate: each chunk a task), or None.
    checkpoint:
        ``simulate``/``simulate_until``: the study folder when the spec has
        no ``out`` (each finished chunk saved; :func:`domeng.resume`).
    stall_seconds:
        With ``client``: fail when no chunk finishes for this long.
    overwrite:
        Replace a study already in the folder.
    command:
        The command line recorded in the results' metadata.
    allow_import:
        Which ``module:function`` players a resumed folder may import.
    resume:
        ``simulate_until``: go on with the study in the folder.
    time_decisions, chunk_deals:
        A tournament's decision timing and deals per engine call.
    players:
        Player objects (compiled functions, objects with ``choose``) that
        the spec names only; None: the spec's names.
    records:
        ``simulate``: the records file when it is not the folder's
        ``records.parquet``.

    Examples
    --------
    >>> from domeng.study.runtime import Runtime
    >>> Runtime.of("simulate", {"progress": False}).progress
    False
    >>> Runtime.of("simulate", {"colour": 1})
    Traceback (most recent call last):
    ...
    TypeError: simulate() got an unexpected keyword argument 'colour'
    """

    progress: Progress = None
    client: Any = None
    checkpoint: str | os.PathLike | None = None
    stall_seconds: float | None = None
    overwrite: bool = False
    command: str | None = None
    allow_import: bool | Iterable[str] = False
    resume: bool = False
    time_decisions: bool = True
    chunk_deals: int | None = None
    players: Any = None
    records: str | os.PathLike | None = None

    @classmethod
    def of(
        cls, entry: str, options: Mapping[str, Any], allowed: Iterable[str] | None = None
    ) -> Runtime:
        """The runtime of ``entry``'s keywords ``options``; a keyword that
        is not one of ``allowed`` (default: every :class:`RuntimeOptions`
        key) is refused as Python refuses an unknown keyword."""
        refuse_unknown_keywords(
            entry, options, RuntimeOptions.__annotations__ if allowed is None else allowed
        )
        return cls(**options)


def pop_study(options: Any, names: Iterable[str]) -> dict[str, Any]:
    """Take an entry point's study keywords (``names``: ``workers``,
    ``spec``, ...) out of its ``**options``, leaving the runtime ones."""
    return {name: options.pop(name) for name in names if name in options}


__all__ = ["Runtime", "RuntimeOptions", "pop_study"]
