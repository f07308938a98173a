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
from collections.abc import Callable, Sequence

import numpy as np

#: the default study of ``domeng simulate`` (defined where ``--help`` reads it)
from domeng.core.defaults import DEFAULT_PLAYERS, DEFAULT_ROUNDS, DEFAULT_TABLES
from domeng.core.errors import StudyError
from domeng.core.rules import Rules
from domeng.study.names import resolve_names_safely
from domeng.study.spec import StudySpec
from domeng.study.spec import record as spec_record
from domeng.study.summary import check_budget, coerce_rules, count, make_progress

_count = count


# ---------------------------------------------------------------- simulate
def simulate(
    tables: int | StudySpec = DEFAULT_TABLES,
    rounds: int = DEFAULT_ROUNDS,
    players: str | Sequence[str] = DEFAULT_PLAYERS,
    rules: Rules | str | Sequence[str] | dict | None = None,
    seed: int = 0,
    workers: int | None = None,
    chunk_tables: int | None = None,
    records: str | os.PathLike | None = None,
    progress: bool | Callable[[int, int], None] | None = None,
    client=None,
    checkpoint: str | os.PathLike | None = None,
    stall_seconds: float | None = None,
    overwrite: bool = False,
    spec: StudySpec | None = None,
):
    """Play ``tables`` independent tables of ``rounds`` rounds each (D16)
    and return a :class:`~domeng.results.results.Results`.

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
    progress:
        True: a progress bar on stderr; False: none; None: a bar only when
        stderr is a terminal; a callable: called as ``progress(done_tables,
        total_tables)`` after each chunk.
    client:
        A ``dask.distributed.Client``: each chunk is one task on its
        cluster (one engine thread per worker thread); None: this process.
        Results are bit-identical either way (see ``docs/cluster.md``).
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
    stall_seconds:
        With ``client``: a cluster that finishes no chunk for this long fails
        with :class:`~domeng.core.errors.ClusterFailure` (default 600 s; the
        checkpoint stays intact).
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
    if spec is not None or isinstance(tables, StudySpec):
        from domeng.study.spec import call_with_spec

        return call_with_spec(simulate, tables if spec is None else spec, locals())
    tables = _count("tables", tables)
    rounds = _count("rounds", rounds)
    check_budget(tables, rounds)
    if (
        isinstance(seed, bool)
        or not isinstance(seed, (int, np.integer))
        or not 0 <= int(seed) < 2**64
    ):
        raise StudyError(f"seed must be a whole number in [0, 2**64), got {seed!r}")
    seed = int(seed)
    if workers is not None:
        workers = _count("workers", workers)
        if client is not None:
            raise StudyError(
                "workers sets this process's engine threads; with a Dask client "
                "each task uses its worker's threads"
            )
    names = resolve_names_safely(players)
    rules_obj = coerce_rules(rules)
    given_chunk_tables = chunk_tables  # recorded only if given (the numbers do not depend on it)
    if chunk_tables is None:
        from domeng.study.chunks import default_chunk_tables as cluster_chunk_tables

        chunk_tables = cluster_chunk_tables(tables, rounds, records is not None, client)
    else:
        chunk_tables = _count("chunk_tables", chunk_tables)
    chunk_tables = min(chunk_tables, tables)

    from domeng.study.chunks import Plan, run_study

    by_name = isinstance(players, str) or (
        isinstance(players, (list, tuple)) and all(isinstance(p, str) for p in players)
    )
    plan = Plan(
        tables=tables,
        rounds=rounds,
        seed=seed,
        players=tuple(names),
        rules=rules_obj,
        chunk_tables=chunk_tables,
        records=records is not None,
        engine_players=None if by_name else players,
    )
    ckpt = None
    if checkpoint is not None:
        from domeng.study.checkpoint import Checkpoint

        ckpt = Checkpoint.create(checkpoint, plan, records, lock=True, overwrite=overwrite)
    try:
        progress_fn = make_progress(progress, tables, rounds, players=names)
        res = run_study(
            plan,
            client=client,
            threads=workers,
            records=records,
            checkpoint=ckpt,
            progress_fn=progress_fn,
            stall_seconds=stall_seconds,
        )
    finally:
        if ckpt is not None:
            ckpt.close()
    if by_name:
        spec_record(
            checkpoint,
            "simulate",
            tables=tables,
            rounds=rounds,
            players=names,
            rules=rules_obj,
            seed=seed,
            workers=workers,
            chunk_tables=given_chunk_tables,
            records=records is not None,
        )
    return res
