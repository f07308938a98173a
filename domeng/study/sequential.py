"""Studies that stop on the data: ``--target-ci METRIC=HALF_WIDTH`` and
``--max-rounds`` (for ``domeng simulate`` and ``domeng compare``).

The cap ``max_rounds`` gives at most ``T = max_rounds // rounds`` tables,
cut into ``K <= 1000`` blocks of ``b`` consecutive tables (``b = T // 1000``,
at least 1); block ``k`` is group ``k`` of the study, so a study stopped
after ``k`` blocks holds tables ``0 .. k b - 1``: the same tables, with the
same numbers, as ``simulate(tables=k*b)`` (whose standard errors may use
another grouping when ``k b > 1000``).  The blocks are played in chunks by
:func:`domeng.study.chunks.chunk_task` (the engine entry point of every
study); every arm of a comparison plays the same blocks (common random
numbers).  When to stop is decided by
:func:`domeng.results.sequential.run_sequential` (confidence sequences; see
there for the method and its reference).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from domeng.core.compiling import Stopwatch
from domeng.core.errors import CheckpointError, DomengError
from domeng.core.wording import counted
from domeng.infra.progress import Progress, within
from domeng.results.meta import package_version
from domeng.results.metrics import metric_parts
from domeng.results.results import Results
from domeng.results.sequential import MIN_BLOCKS, Target, UnreachableTarget, run_sequential
from domeng.study.chunks import Plan, Sums, chunk_task
from domeng.study.runtime import Runtime, RuntimeOptions, pop_study
from domeng.study.simulate import DEFAULT_PLAYERS, DEFAULT_ROUNDS, StudyError
from domeng.study.spec import StudySpec, rule_texts
from domeng.study.spec import record as spec_record
from domeng.study.summary import MAX_GROUPS, default_chunk_tables

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.11

#: the cap of a study that stops on the data, when --max-rounds is not given (rounds per arm)
DEFAULT_MAX_ROUNDS = 100_000_000


def parse_targets(specs, known: list[str]) -> list[Target]:
    """``["METRIC=HALF_WIDTH", ...]`` (or a mapping) -> targets; refuses an
    unknown metric or a half-width that is not a positive number."""
    items = list(specs.items()) if isinstance(specs, dict) else []
    if not isinstance(specs, dict):
        for spec in specs:
            name, sep, value = str(spec).partition("=")
            if not sep:
                raise StudyError(
                    f"--target-ci {spec!r}: expected METRIC=HALF_WIDTH, e.g. "
                    "passebunge_per_round=0.002"
                )
            items.append((name.strip(), value.strip()))
    out = []
    for name, value in items:
        if name not in known:
            close = [k for k in known if name in k][:4]
            raise StudyError(
                f"unknown metric {name!r} in --target-ci"
                + (
                    f" (did you mean {', '.join(close)}?)"
                    if close
                    else " (see `domeng simulate --list-metrics`)"
                )
            )
        try:
            hw = float(value)
        except (TypeError, ValueError):
            raise StudyError(
                f"--target-ci {name}={value!r}: the half-width must be a number"
            ) from None
        if not (math.isfinite(hw) and hw > 0):
            raise StudyError(
                f"--target-ci {name}={value}: a half-width of {value} is out of "
                "reach; give a positive number"
            )
        out.append(Target(name, hw))
    if not out:
        raise StudyError("--target-ci needs at least one METRIC=HALF_WIDTH")
    return out


class BlockRunner:
    """Plays the same blocks of tables for several arms (each a ``(rules,
    players)`` pair), chunk by chunk, and returns each arm's results after
    any number of blocks."""

    def __init__(
        self,
        arms: list[tuple],
        rounds: int,
        seed: int,
        max_rounds: int,
        threads: int | None = None,
        progress_fn: Callable | None = None,
    ) -> None:
        cap = max_rounds // rounds
        if cap < MIN_BLOCKS:
            raise StudyError(
                f"--max-rounds {max_rounds:,} allows "
                f"{counted(cap, 'table', ',')} of {counted(rounds, 'round', ',')}; "
                f"a study that stops on the data needs at least {MIN_BLOCKS}"
            )
        self.block = max(1, cap // MAX_GROUPS)
        self.blocks = min(cap, MAX_GROUPS) if self.block == 1 else MAX_GROUPS
        tables = self.blocks * self.block
        # chunks of at most MIN_BLOCKS blocks, so the first look comes early
        per_chunk = max(1, min(default_chunk_tables(tables, rounds) // self.block, MIN_BLOCKS))
        self.step = per_chunk  # blocks per chunk
        self.rounds, self.seed, self.threads, self.max_rounds = rounds, seed, threads, max_rounds
        self.plans = [
            Plan(
                tables=tables,
                rounds=rounds,
                seed=seed,
                players=tuple(players),
                rules=rules,
                chunk_tables=per_chunk * self.block,
            )
            for rules, players in arms
        ]
        assert self.plans[0].groups == self.blocks
        self.sums = [Sums(p) for p in self.plans]
        self.chunks_done = 0
        self.progress_fn = progress_fn
        self.watch = Stopwatch()  #: compiles measured apart (:mod:`domeng.core.compiling`)
        #: each arm's compute seconds by chunk (read from a checkpoint, or timed here)
        self.seconds: list[dict[int, float]] = [{} for _ in self.plans]
        self.checkpoints: list = []  #: one per arm, with :meth:`attach`
        self._on_disk: list[dict] = []
        self._unsaved: list[list] = [[] for _ in self.plans]  #: played before :meth:`attach`

    def attach(
        self,
        folders: list,
        sequential: dict,
        resume: bool = False,
        allow_import=False,
        overwrite: bool = False,
    ) -> None:
        """Checkpoint each arm's chunks in its folder (``folders[k]``: a study
        folder, :mod:`domeng.study.checkpoint`, whose manifest also holds
        ``sequential``, the stopping rule).  ``resume``: the chunks already
        there are read instead of played again (an arm folder not started
        yet is created), so an interrupted study goes on to the same
        stopping point, bit for bit.  Chunks played before are written now.
        ``overwrite``: a new arm folder may replace a study there.  The
        folders stay locked until :meth:`close`."""
        from domeng.study.checkpoint import MANIFEST, Checkpoint

        for k, (plan, folder) in enumerate(zip(self.plans, folders)):
            if resume and (Path(folder) / MANIFEST).exists():
                ck = Checkpoint.open(folder, lock=True, allow_import=allow_import)
                self.checkpoints.append(ck)
                if (
                    ck.plan != plan
                    or ck.plan.study_digest() != plan.study_digest()
                    or ck.manifest.get("sequential") != sequential
                ):
                    raise CheckpointError(
                        f"{str(folder)!r} does not hold this study's blocks "
                        "(its manifest differs); start a new study"
                    )
            else:
                ck = Checkpoint.create(
                    folder, plan, lock=True, extra={"sequential": sequential}, overwrite=overwrite
                )
                self.checkpoints.append(ck)
            for r in self._unsaved[k]:
                ck.write_chunk(r)
            self._unsaved[k] = []
            self._on_disk.append(
                {r.index: r for r in ck.load_done() if r.index >= self.chunks_done}
            )

    def close(self) -> None:
        """Release the arms' folders."""
        for ck in self.checkpoints:
            ck.close()

    def _chunk(self, k: int, plan: Plan, index: int):
        r = self._on_disk[k].pop(index, None) if self._on_disk else None
        if r is None:
            before = self.watch.compute_seconds
            r = chunk_task(plan, index, self.threads)
            r.seconds = self.watch.compute_seconds - before
            r.validate(plan)
            r.records = None
            if self.checkpoints:
                self.checkpoints[k].write_chunk(r)
            else:
                self._unsaved[k].append(r)
        self.seconds[k][index] = r.seconds if 0.0 <= r.seconds < math.inf else math.nan
        return r

    def play(self, blocks: int) -> None:
        """Play every chunk needed to hold ``blocks`` blocks, in every arm
        (reading those a checkpoint already holds)."""
        need = -(-blocks // self.step)
        while self.chunks_done < need:
            with within(self._ticks()):  # a bar moves within the chunks too
                for k, (plan, sums) in enumerate(zip(self.plans, self.sums)):
                    sums.add(self._chunk(k, plan, self.chunks_done))
            self.chunks_done += 1
            if self.progress_fn is not None:
                self.progress_fn(
                    min(self.chunks_done * self.step, self.blocks) * self.block,
                    self.blocks * self.block,
                )

    def _ticks(self) -> Callable[[int], None] | None:
        """For a bar (not a callable of the user's): the table-rounds played
        within this chunk index, over every arm, as fractional tables."""
        fn = self.progress_fn
        if fn is None or not getattr(fn, "fractional", False):
            return None
        base = min(self.chunks_done * self.step, self.blocks) * self.block
        per_table = self.rounds * len(self.plans)
        played = [0]

        def tick(table_rounds: int) -> None:
            played[0] += table_rounds
            fn(base + played[0] / per_table, self.blocks * self.block)

        return tick

    def results(self, blocks: int) -> list[Results]:
        """Each arm's :class:`Results` over the first ``blocks`` blocks."""
        out = []
        used = -(-blocks // self.step)  # the chunks holding these blocks
        for k, (plan, sums) in enumerate(zip(self.plans, self.sums)):
            n = sums.counted[:blocks]
            # the arm's own compute, across runs (NaN: a chunk on disk does not say)
            spent = sum(self.seconds[k].get(i, math.nan) for i in range(used))
            if not np.all(n == self.block):
                raise RuntimeError("internal error: a block was not played in full")
            meta = {
                "tables": blocks * self.block,
                "rounds": self.rounds,
                "seed": self.seed,
                "rules": plan.rules.to_dict(),
                "players": list(plan.players),
                "version": package_version(),
                "groups": blocks,
                "block_tables": self.block,
                "elapsed_seconds": spent if spent == spent else None,
                "compile_seconds": self.watch.compile_seconds,
                "records_rows": None,
            }
            out.append(
                Results(sums.agg[:blocks].copy(), sums.state[:blocks].copy(), n.copy(), meta)
            )
        return out


def known_metrics(arms: dict[str, tuple]) -> list[str]:
    """The metric names every arm has (from a one-table dry summary of each lineup)."""
    import numpy as np

    from domeng.core import layout as L
    from domeng.results.results import Results
    from domeng.study.summary import S_LEN

    names = None
    for rules, players in arms.values():
        r = Results(
            np.zeros((1, L.AGG_LEN), np.int64),
            np.zeros((1, S_LEN), np.int64),
            np.ones(1, np.int64),
            {
                "tables": 1,
                "rounds": 1,
                "seed": 0,
                "rules": rules.to_dict(),
                "players": list(players),
            },
        )
        have = list(metric_parts(r))
        names = have if names is None else [m for m in names if m in set(have)]
    return names or []


class UntilOptions(RuntimeOptions, total=False):
    """:func:`simulate_until`'s keywords after ``seed``: the cap, the engine
    threads, the spec, and the :class:`Runtime` ones."""

    max_rounds: int | None
    workers: int | None
    spec: StudySpec | None


def simulate_until(
    target_ci: dict | list[str] | StudySpec | None = None,
    rounds: int = DEFAULT_ROUNDS,
    players=DEFAULT_PLAYERS,
    rules=None,
    seed: int = 0,
    **options: Unpack[UntilOptions],
) -> Results:
    """A study that stops on the data: play blocks of tables until each
    target metric's 95% half-width (a confidence sequence) is at most its
    target, or ``max_rounds`` rounds (default 100 million).  The result's
    ``meta["stopping"]`` and summary's ``stopping`` say why it stopped and
    the precision reached.  (``domeng simulate --target-ci``.)  The keywords
    become a spec and a :class:`~domeng.study.runtime.Runtime`, run by
    :func:`run_simulate_until`.

    ``checkpoint``: a study folder (the folder policy of
    :func:`domeng.study.checkpoint.Checkpoint.create`) where each finished
    chunk is saved and the results are written at the end; after a crash,
    :func:`resume_until` (``domeng simulate --resume DIR``) goes on to the
    same stopping point and the same numbers.  A study already in
    ``checkpoint`` is refused unless ``overwrite``.

    Parameters
    ----------
    target_ci:
        ``{"METRIC": half_width}`` or ``["METRIC=HALF_WIDTH"]``.
    rounds, players, rules, seed, workers, progress:
        As for :func:`~domeng.study.simulate.simulate`.
    max_rounds:
        The most rounds to play (None: 100 million).
    checkpoint, resume, allow_import, overwrite:
        The study folder (above), whether to go on with one, the
        ``module:function`` players a resumed folder may import, and
        whether to replace a study already there.
    spec:
        The study as one :class:`~domeng.study.spec.StudySpec` (kind
        ``simulate`` with ``target_ci``) instead of the keywords above (or
        as ``target_ci``); the folder records it as ``config.toml``.

    Returns
    -------
    Results
        With ``meta["stopping"]``: the reason, the tables played, the looks.

    Examples
    --------
    >>> import domeng
    >>> res = domeng.simulate_until({"passes_per_round": 1.0}, rounds=2, seed=1,
    ...                             max_rounds=2000, progress=False)
    >>> res.meta["stopping"]["reason"], res.tables
    ('target reached', 60)
    """
    from domeng.study.spec import refuse_both

    study = pop_study(options, ("max_rounds", "workers", "spec"))
    runtime = Runtime.of("simulate_until", options, _RUNTIME)
    spec = study.pop("spec", None)
    if spec is not None or isinstance(target_ci, StudySpec):
        given = dict(target_ci=target_ci, rounds=rounds, players=players, rules=rules, seed=seed)
        given.update(study, checkpoint=runtime.checkpoint)
        spec = refuse_both(simulate_until, target_ci if spec is None else spec, given)
        return run_simulate_until(spec, runtime)
    if target_ci is None:
        raise StudyError("a study that stops on the data needs target_ci (or spec=)")
    from domeng.study.simulate import _count

    rounds = _count("rounds", rounds)
    rules_obj, names = _arm(rules, players)
    targets = parse_targets(target_ci, known_metrics({"study": (rules_obj, names)}))
    cap = study.get("max_rounds")
    folder = runtime.checkpoint
    spec = StudySpec(
        "simulate",
        target_ci=tuple(f"{t.metric}={t.half_width!r}" for t in targets),
        max_rounds=_count("max_rounds", DEFAULT_MAX_ROUNDS if cap is None else cap),
        rounds=rounds,
        players=names,
        rules=rule_texts(rules_obj),
        seed=seed,
        workers=study.get("workers"),
        out=None if folder is None else os.fspath(folder),
    )
    return run_simulate_until(spec, replace(runtime, checkpoint=None))


#: the Runtime keywords simulate_until takes
_RUNTIME = ("progress", "checkpoint", "resume", "allow_import", "overwrite")


def _arm(rules, players) -> tuple:
    """``(Rules, five player names)`` of a study's rules and players."""
    from domeng.study.names import resolve_names_safely
    from domeng.study.simulate import coerce_rules

    return coerce_rules(rules), tuple(resolve_names_safely(players))


def run_simulate_until(spec: StudySpec, runtime: Runtime | None = None) -> Results:
    """Run a ``simulate`` :class:`~domeng.study.spec.StudySpec` with
    ``target_ci`` as ``runtime`` says (None: the defaults): the core of
    :func:`simulate_until`.  The study folder (``spec.out``) records the
    spec as ``config.toml``.

    Examples
    --------
    >>> from domeng.study.sequential import run_simulate_until
    >>> from domeng.study.runtime import Runtime
    >>> from domeng.study.spec import StudySpec
    >>> spec = StudySpec(rounds=2, seed=1, target_ci=["passes_per_round=1.0"], max_rounds=2000)
    >>> run_simulate_until(spec, Runtime(progress=False)).meta["stopping"]["reason"]
    'target reached'
    """
    from domeng.results.metrics import metric_parts
    from domeng.results.stats import ratio
    from domeng.study.spec import check_kind

    rt = Runtime() if runtime is None else runtime
    check_kind("simulate_until", spec)
    rounds = spec.rounds or DEFAULT_ROUNDS
    arm = _arm(list(spec.rules or ()) or None, list(spec.players or DEFAULT_PLAYERS))
    targets = parse_targets(list(spec.target_ci or ()), known_metrics({"study": arm}))
    max_rounds = spec.max_rounds or DEFAULT_MAX_ROUNDS

    def measure(results):
        parts = metric_parts(results[0])
        return {
            t.metric: tuple(float(v) for v in ratio(parts[t.metric].x, parts[t.metric].n))
            for t in targets
        }

    study = dict(rounds=rounds, seed=spec.seed or 0, max_rounds=max_rounds, workers=spec.workers)
    folders = None if spec.out is None else [spec.out]
    res, _ = run_until([arm], targets, measure, study, rt, folders)
    spec_record(
        spec.out,
        "simulate",
        target_ci={t.metric: t.half_width for t in targets},
        max_rounds=max_rounds,
        rounds=rounds,
        players=list(arm[1]),
        rules=arm[0],
        seed=study["seed"],
        workers=spec.workers,
    )
    return res[0]


def sequential_record(targets: list[Target], max_rounds: int) -> dict:
    """The stopping rule as a checkpoint's manifest keeps it (``sequential``)."""
    return {"targets": {t.metric: t.half_width for t in targets}, "max_rounds": max_rounds}


def resume_until(
    folder,
    expect: dict | None = None,
    workers: int | None = None,
    progress=None,
    allow_import=False,
) -> Results:
    """Continue a study that stops on the data (``domeng simulate --target-ci
    ... --out DIR``) after a crash or kill: the chunks in ``folder`` are read,
    the missing ones played, and the study stops where an uninterrupted run
    stops (the same looks on the same numbers).  ``expect``: parameters the
    user gave again (``rounds``, ``seed``, ``players``, ``rules``,
    ``target_ci``, ``max_rounds``), each must equal the study's."""
    from domeng.study.checkpoint import Checkpoint

    with Checkpoint.open(folder, allow_import=allow_import) as ck:
        m, plan = ck.manifest, ck.plan
    seq = m.get("sequential")
    if not isinstance(seq, dict) or not isinstance(seq.get("targets"), dict):
        raise CheckpointError(f"{str(folder)!r} does not hold a study that stops on the data")
    expect = dict(expect or {})
    given = {k: expect.pop(k) for k in ("target_ci", "max_rounds") if k in expect}
    ck.check(**expect)
    if given.get("target_ci"):
        tg = parse_targets(given["target_ci"], known_metrics({"s": (plan.rules, plan.players)}))
        if {t.metric: t.half_width for t in tg} != seq["targets"]:
            raise CheckpointError(
                f"cannot resume {str(folder)!r} with other --target-ci: the "
                "study there has " + ", ".join(f"{k}={v:g}" for k, v in seq["targets"].items())
            )
    if given.get("max_rounds") not in (None, seq["max_rounds"]):
        raise CheckpointError(
            f"cannot resume {str(folder)!r} with --max-rounds "
            f"{given['max_rounds']}: the study there has {seq['max_rounds']}"
        )
    return simulate_until(
        seq["targets"],
        rounds=plan.rounds,
        players=list(plan.players),
        rules=plan.rules,
        seed=plan.seed,
        max_rounds=seq["max_rounds"],
        workers=workers,
        progress=progress,
        checkpoint=folder,
        resume=True,
        allow_import=allow_import,
    )


def run_until(
    arms: list[tuple],
    targets: list[Target],
    measure: Callable[[list[Results]], dict],
    study: Mapping[str, Any],
    runtime: Runtime,
    folders: list | Callable[[], list] | None = None,
) -> tuple[list[Results], dict]:
    """Play blocks for every arm until ``measure(results)`` (metric ->
    ``(estimate, se)``) meets every target, or the cap; returns the arms'
    results and the stopping record (also stored in each result's
    ``meta["stopping"]``).  ``study``: ``rounds``, ``seed``, ``max_rounds``
    and ``workers`` (the engine threads); ``runtime``: its ``progress`` and
    the folder policy.  ``folders``: one study folder per arm, where each
    finished chunk is saved and, at the end, the arm's results are written
    (``runtime.resume``: continue from the chunks there; :meth:`BlockRunner.attach`)."""
    from domeng.study.summary import make_progress

    rounds, max_rounds, resume = study["rounds"], study["max_rounds"], runtime.resume
    progress_fn = make_progress(runtime.progress, None, rounds)
    runner = BlockRunner(arms, rounds, study["seed"], max_rounds, study["workers"], progress_fn)
    record = sequential_record(targets, max_rounds)

    def attach() -> None:  # resumed: at once; new: once the first look found the targets reachable
        if folders is not None and not runner.checkpoints:
            runner.attach(
                folders() if callable(folders) else folders,
                record,
                resume,
                runtime.allow_import,
                runtime.overwrite,
            )

    try:
        if resume:
            attach()
            finished = [ck.pruned_results() for ck in runner.checkpoints]
            if all(r is not None for r in finished):  # a finished study: nothing to play
                from domeng.study.checkpoint import finish_prune

                for r, ck in zip(finished, runner.checkpoints):  # its outputs written again
                    finish_prune(ck.folder)
                    r.write_files(ck.folder)
                return finished, finished[0].meta["stopping"]
        res, stopping = _stop(runner, targets, measure, attach)
        attach()
        for r, ck in zip(res, runner.checkpoints):
            r.write_files(ck.folder)
            ck.prune()
            ck.drop_previous()
        return res, stopping
    finally:
        runner.close()
        if isinstance(progress_fn, Progress):
            progress_fn.close()  # its count so far; it never reaches the cap


def _stop(runner: BlockRunner, targets, measure, attach: Callable[[], None]):
    looks: list[Any] = []

    def look(blocks: int) -> dict:
        if looks:
            attach()
        looks.append(blocks)
        runner.play(blocks)
        return measure(runner.results(blocks))

    try:
        stop = run_sequential(look, targets, runner.blocks, step=runner.step)
    except UnreachableTarget as e:
        raise StudyError(str(e)) from None
    res = runner.results(stop.units)
    record = {
        "method": "asymptotic confidence sequence (Waudby-Smith et al., Ann. Statist. "
        "2024), 95%, across blocks of tables",
        "reason": stop.reason,
        "looks": stop.looks,
        "blocks": stop.units,
        "block_tables": runner.block,
        "tables": stop.units * runner.block,
        "rounds_played": stop.units * runner.block * runner.rounds * len(runner.plans),
        "max_rounds": runner.max_rounds,
        "arms": len(runner.plans),
        "targets": stop.reached,
    }
    for r in res:
        r.meta["stopping"] = record
    return res, record


__all__ = [
    "DEFAULT_MAX_ROUNDS",
    "BlockRunner",
    "DomengError",
    "known_metrics",
    "parse_targets",
    "resume_until",
    "run_simulate_until",
    "run_until",
    "simulate_until",
]
