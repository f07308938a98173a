"""Monte Carlo studies: many independent tables (D16), summed into groups.

:func:`simulate` is the study entry point of the Python API::

    import domeng
    res = domeng.simulate(tables=2000, rounds=500,
                          players="random,heavy,keeper,hunter,random",
                          rules=["passebunge_every_pass=false"], seed=1)
    res.summary()["win_rate_by_starter_offset"]
    res.win_by_player()            # a tidy pandas DataFrame

How it works.  The table indices ``0..tables-1`` are cut into chunks of
``chunk_tables`` consecutive tables; each chunk is played by
:func:`domeng.batch.tables.run_tables` (the only engine entry point used here).
Table ``t`` depends only on ``(seed, t)``, and its aggregate vector
(:mod:`domeng.core.layout`) is added to group ``t * G // tables`` with
``G = min(tables, 1000)``.  All sums are integers, so the result does not
depend on the chunk size or on the number of workers, and memory stays
``O(G)`` whatever the number of rounds.  The groups are i.i.d. sums of
independent tables, which is what the standard errors of
:mod:`domeng.results.results` use (rounds at one table are correlated through the
stones and the starter, D4, D15, so rounds are not independent samples).

Per-round records (``records=PATH``) are written to a Parquet file chunk by
chunk (:class:`RecordWriter`), never all held in memory.

The chunks are driven by :mod:`domeng.study.chunks`: in this process, or as
tasks on a Dask cluster (``client=``, :mod:`domeng.study.cluster`), and with
``checkpoint=DIR`` each finished chunk is saved so that
:func:`domeng.resume` can finish a crashed study (:mod:`domeng.study.checkpoint`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

#: the default study of ``domeng simulate`` (defined where ``--help`` reads it)
from domeng.core.defaults import DEFAULT_PLAYERS, DEFAULT_ROUNDS, DEFAULT_TABLES
from domeng.core.errors import StudyError
from domeng.core.rules import Rules
from domeng.study.names import resolve_names_safely
from domeng.study.runtime import Runtime, RuntimeOptions, pop_study
from domeng.study.spec import StudySpec, rule_texts
from domeng.study.spec import record as spec_record
from domeng.study.summary import check_budget, coerce_rules, count, make_progress

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.11

_count = count


# ---------------------------------------------------------------- simulate
class SimulateOptions(RuntimeOptions, total=False):
    """:func:`simulate`'s keywords after ``seed``: the study's engine
    threads, chunking and records, the spec, and the :class:`Runtime` ones."""

    workers: int | None
    chunk_tables: int | None
    records: str | os.PathLike | None
    spec: StudySpec | None


#: the Runtime keywords simulate takes
_RUNTIME = ("progress", "client", "checkpoint", "stall_seconds", "overwrite")


def simulate(
    tables: int | StudySpec = DEFAULT_TABLES,
    rounds: int = DEFAULT_ROUNDS,
    players: str | Sequence[str] = DEFAULT_PLAYERS,
    rules: Rules | str | Sequence[str] | dict | None = None,
    seed: int = 0,
    **options: Unpack[SimulateOptions],
):
    """Play ``tables`` independent tables of ``rounds`` rounds each (D16)
    and return a :class:`~domeng.results.results.Results`: the keywords as a
    :class:`~domeng.study.spec.StudySpec` and a
    :class:`~domeng.study.runtime.Runtime`, run by :func:`run_simulate`.

    Parameters
    ----------
    tables, rounds:
        Number of tables (games) and rounds per table, each >= 1; or
        ``tables`` a :class:`~domeng.study.spec.StudySpec` (as ``spec``).
    players:
        One built-in name for all seats, five names (seat 0..4) as a list
        or a comma-separated string: ``random``, ``heavy``, ``keeper``, ``hunter``,
        ``search``, ``search-N``, ``module:function``; or player objects (a
        compiled function, or an object with ``choose``: see docs/players.md).
    rules:
        :class:`~domeng.core.rules.Rules`, ``"name=value,..."``, a list of such
        strings, a dict of option values, or None (the defaults of docs/rules.md).
    seed:
        Study seed (0 <= seed < 2**64); table ``t`` plays the same rounds in
        every study with this seed, rules and players.
    workers:
        Threads for the batch engine (None: its default).  Results do not
        depend on it.
    chunk_tables:
        Tables per call of the batch engine (None: about 200,000 rounds per
        chunk).  Results do not depend on it.
    records:
        Path of a Parquet file to write one row per table-round to, and
        beside it (``records.parquet`` -> ``records_seats.parquet``) one row
        per table-round-seat (see :class:`~domeng.study.records.RecordWriter`),
        or None.
    progress, client, stall_seconds:
        As :class:`~domeng.study.runtime.Runtime` says (a bar, a Dask
        ``Client`` whose tasks give bit-identical results, see
        ``docs/cluster.md``, and its stall limit, default 600 s).
    checkpoint:
        A study folder: each finished chunk is written there durably, with
        a manifest, and the results are written there at the end; after a
        crash, :func:`domeng.resume` continues it (see
        :mod:`domeng.study.checkpoint`).  A folder holding a study, finished
        or not, is refused (``overwrite=True`` replaces it; an unfinished one
        can be resumed).  The folder is locked while the study runs (a
        second writer is refused).
    overwrite:
        With ``checkpoint``: replace a study already in that folder.
    spec:
        The whole study as one :class:`~domeng.study.spec.StudySpec` (kind
        ``simulate``) instead of the keywords above, which then must not be
        given; ``progress``, ``client``, ``stall_seconds`` and ``overwrite``
        may.  A spec with ``target_ci`` is refused (run it with
        :func:`~domeng.study.sequential.simulate_until` or ``domeng.run``).  The study folder
        (``checkpoint``) records the resolved spec as ``config.toml``.

    Returns
    -------
    Results
        The study's estimates (tidy DataFrames, ``summary()``, ``save()``).

    Raises
    ------
    StudyError, RulesError, PlayerError
        On bad input (all :class:`~domeng.core.errors.DomengError`).

    Examples
    --------
    >>> import domeng
    >>> res = domeng.simulate(tables=2, rounds=2, seed=1, progress=False)
    >>> res.total_rounds, res.players[:2]
    (4, ['random', 'heavy'])
    >>> res.summary()["schema"]
    'domeng.summary/1'
    >>> again = domeng.simulate(tables=2, rounds=2, seed=1, progress=False)  # the same seed
    >>> res.win_by_seat().equals(again.win_by_seat())
    True
    >>> from domeng.study.spec import StudySpec
    >>> spec = StudySpec(tables=2, rounds=2, seed=1)  # the same study as one spec
    >>> domeng.simulate(spec, progress=False).win_by_seat().equals(res.win_by_seat())
    True
    """
    from domeng.study.spec import refuse_both

    study = pop_study(options, ("workers", "chunk_tables", "records", "spec"))
    runtime = Runtime.of("simulate", options, _RUNTIME)
    spec = study.pop("spec", None)
    if spec is not None or isinstance(tables, StudySpec):
        given: dict[str, Any] = dict(tables=tables, rounds=rounds, players=players, rules=rules)
        given["seed"] = seed
        given.update(study, checkpoint=runtime.checkpoint)
        spec = refuse_both(simulate, tables if spec is None else spec, given)
        return run_simulate(spec, runtime)
    spec, runtime = _simulate_spec(tables, rounds, players, rules, seed, study, runtime)
    return run_simulate(spec, runtime)


def _simulate_spec(tables, rounds, players, rules, seed, study: dict, runtime: Runtime):
    """The spec and runtime of :func:`simulate`'s keywords, each checked
    (one line naming the keyword); player objects and a records file
    outside the folder go into the runtime (a spec names neither)."""
    tables = _count("tables", tables)
    rounds = _count("rounds", rounds)
    check_budget(tables, rounds)
    if (
        isinstance(seed, bool)
        or not isinstance(seed, (int, np.integer))
        or not 0 <= int(seed) < 2**64
    ):
        raise StudyError(f"seed must be a whole number in [0, 2**64), got {seed!r}")
    workers = study.get("workers")
    if workers is not None:
        workers = _count("workers", workers)
        _workers_or_client(workers, runtime.client)
    names = resolve_names_safely(players)
    coerce_rules(rules)  # checked here, in its own words
    chunk_tables = study.get("chunk_tables")
    if chunk_tables is not None:
        chunk_tables = _count("chunk_tables", chunk_tables)
    by_name = isinstance(players, str) or (
        isinstance(players, (list, tuple)) and all(isinstance(p, str) for p in players)
    )
    folder = runtime.checkpoint
    spec = StudySpec(
        "simulate",
        tables=tables,
        rounds=rounds,
        seed=int(seed),
        players=tuple(names),
        rules=rule_texts(rules),
        chunk_tables=chunk_tables,
        workers=workers,
        out=None if folder is None else os.fspath(folder),
    )
    runtime = replace(
        runtime,
        checkpoint=None,
        records=study.get("records"),
        players=None if by_name else players,
    )
    return spec, runtime


def _workers_or_client(workers, client) -> None:
    if workers is not None and client is not None:
        raise StudyError(
            "workers sets this process's engine threads; with a Dask client "
            "each task uses its worker's threads"
        )


def run_simulate(spec: StudySpec, runtime: Runtime | None = None):
    """Run a ``simulate`` :class:`~domeng.study.spec.StudySpec` (without
    ``target_ci``) as ``runtime`` says (None: the defaults) and return its
    :class:`~domeng.results.results.Results`: the core of
    :func:`simulate`.  The study folder (``spec.out``) records the spec it
    ran as ``config.toml``.

    Examples
    --------
    >>> from domeng.study.simulate import run_simulate
    >>> from domeng.study.runtime import Runtime
    >>> from domeng.study.spec import StudySpec
    >>> run_simulate(StudySpec(tables=2, rounds=3, seed=1), Runtime(progress=False)).total_rounds
    6
    """
    from domeng.study.chunks import Plan, run_study
    from domeng.study.spec import check_kind

    rt = Runtime() if runtime is None else runtime
    check_kind("simulate", spec)
    tables, rounds = spec.tables or DEFAULT_TABLES, spec.rounds or DEFAULT_ROUNDS
    check_budget(tables, rounds)
    _workers_or_client(spec.workers, rt.client)
    folder = spec.out
    records = rt.records
    if spec.records:
        records = Path(folder or ".") / "records.parquet"
    names = list(spec.players or ()) if rt.players is not None else None
    if names is None:
        names = resolve_names_safely(list(spec.players or DEFAULT_PLAYERS))
    rules_obj = coerce_rules(list(spec.rules or ()) or None)
    plan = Plan(
        tables=tables,
        rounds=rounds,
        seed=spec.seed or 0,
        players=tuple(names),
        rules=rules_obj,
        chunk_tables=_chunking(spec, tables, rounds, records is not None, rt.client),
        records=records is not None,
        engine_players=rt.players,
    )
    res = _run_plan(plan, spec, records, names, rt, run_study)
    if rt.players is None:
        spec_record(
            folder,
            "simulate",
            tables=tables,
            rounds=rounds,
            players=names,
            rules=rules_obj,
            seed=plan.seed,
            workers=spec.workers,
            chunk_tables=spec.chunk_tables,  # recorded only if given (no number depends on it)
            records=records is not None,
        )
    return res


def _chunking(spec: StudySpec, tables: int, rounds: int, records: bool, client) -> int:
    """The tables per engine call: the spec's, or the default for this study."""
    chunk_tables = spec.chunk_tables
    if chunk_tables is None:
        from domeng.study.chunks import default_chunk_tables as cluster_chunk_tables

        chunk_tables = cluster_chunk_tables(tables, rounds, records, client)
    return min(chunk_tables, tables)


def _run_plan(plan, spec: StudySpec, records, names, rt: Runtime, run_study):
    """Play ``plan`` (checkpointed in ``spec.out`` when the spec has one)."""
    folder = spec.out
    ckpt = None
    if folder is not None:
        from domeng.study.checkpoint import Checkpoint

        ckpt = Checkpoint.create(folder, plan, records, lock=True, overwrite=rt.overwrite)
    try:
        progress_fn = make_progress(rt.progress, plan.tables, plan.rounds)
        return run_study(
            plan,
            client=rt.client,
            threads=spec.workers,
            records=records,
            checkpoint=ckpt,
            progress_fn=progress_fn,
            stall_seconds=rt.stall_seconds,
        )
    finally:
        if ckpt is not None:
            ckpt.close()
