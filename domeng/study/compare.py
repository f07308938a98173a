"""Paired comparisons and sweeps: the same tables under other rule values or lineups.

:func:`compare` plays a baseline and one or more variants with the same seed
on the same tables (common random numbers: table ``t`` gets the same deals
in every arm until the arms' moves diverge) through :func:`domeng.simulate`,
and returns a :class:`~domeng.results.comparison.Comparison`::

    import domeng
    cmp = domeng.compare(["passebunge_every_pass=false", "pollo=4"], tables=2000, rounds=500)
    cmp.differences()            # variant - baseline, paired SE, unpaired SE, 95% CI
    cmp.to_json()                # schema domeng.compare/1

:func:`sweep` plays a grid of rule values the same way and returns a
:class:`~domeng.results.sweep.Sweep` (one tidy DataFrame).

A variant (or the baseline) is a string of ``;``-separated items, each a rule
value ``NAME=VALUE`` (several may be joined by commas, as for ``--rule``) or
a lineup ``players=P[,P,P,P,P]``; or a dict of rule values with an optional
``"players"`` key.  Rules of a variant are applied on top of the baseline's.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from domeng.core.defaults import PLOT_DPI
from domeng.core.errors import CheckpointError
from domeng.core.rules import Rules
from domeng.infra import fs
from domeng.results.compare_report import (
    KINDS,
    arm_folder,
    arms_manifest,
    read_manifest,
    write_comparison,
    write_manifest,
    write_sweep,
)
from domeng.results.comparison import Comparison, arm_label
from domeng.results.html import value_text
from domeng.results.metrics import metric_parts
from domeng.results.sequential import Target
from domeng.results.stats import paired_difference
from domeng.study.names import resolve_names_safely
from domeng.study.runtime import Runtime, RuntimeOptions, pop_study
from domeng.study.sequential import DEFAULT_MAX_ROUNDS, known_metrics, parse_targets, run_until
from domeng.study.simulate import (
    DEFAULT_PLAYERS,
    DEFAULT_ROUNDS,
    DEFAULT_TABLES,
    StudyError,
    _count,
    coerce_rules,
    simulate,
)
from domeng.study.spec import (
    StudySpec,
    parse_grid,
    record_arms,
    refuse_both,
    rule_texts,
    variant_text,
)
from domeng.study.spec import record as spec_record

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.11

Arm = tuple  # (Rules, tuple of 5 player names)


def parse_arm(spec: Any, base: Arm | None = None) -> Arm:
    """A variant (or baseline) spec -> ``(rules, players)`` on top of ``base``."""
    rules, players = base if base is not None else (Rules(), tuple(DEFAULT_PLAYERS))
    if spec is None:
        return rules, tuple(players)
    if isinstance(spec, dict):
        spec = dict(spec)
        lineup = spec.pop("players", None)
        if lineup is not None:
            players = tuple(resolve_names_safely(lineup))
        changes = Rules.from_mapping({**rules.to_dict(), **spec}) if spec else rules
        return changes, tuple(players)
    if not isinstance(spec, str):
        raise StudyError(f"a variant must be a string like 'pollo=4' or a dict, got {spec!r}")
    rule_items = []
    for item in (s.strip() for s in spec.split(";")):
        if not item:
            continue
        if item.startswith("players="):
            players = tuple(resolve_names_safely(item[len("players=") :]))
        else:
            rule_items.append(item)
    if not rule_items and "players=" not in spec:
        raise StudyError(f"empty variant {spec!r}: give NAME=VALUE and/or players=...")
    if rule_items:
        given = Rules.parse(rule_items)  # checks the syntax and each value
        names = {
            Rules._canonical_name(part.split("=", 1)[0])
            for item in rule_items
            for part in item.split(",")
            if part.strip()
        }
        rules = Rules.from_mapping({**rules.to_dict(), **{k: getattr(given, k) for k in names}})
    return rules, tuple(players)


def _label(arm: Arm, base: Arm) -> str:
    return arm_label(arm[0].to_dict(), list(arm[1]), base[0].to_dict(), list(base[1]))


def _arms(variants, baseline, players, rules) -> dict[str, Arm]:
    if isinstance(variants, (str, dict)):
        variants = [variants]
    variants = list(variants or [])
    if not variants:
        raise StudyError("a comparison needs at least one variant (e.g. pollo=4)")
    start = (coerce_rules(rules), tuple(resolve_names_safely(players)))
    base = parse_arm(baseline, start) if baseline is not None else start
    arms: dict[str, Arm] = {"baseline": base}
    for spec in variants:
        arm = parse_arm(spec, base)
        if arm == base:
            raise StudyError(
                f"variant {spec!r} is the baseline itself (same rules and players); "
                "nothing to compare"
            )
        name = _label(arm, base)
        if name in arms:
            raise StudyError(f"variant {spec!r} is given twice")
        arms[name] = arm
    return arms


def _measure_compare(names: list[str], targets_by_metric: dict):
    """metric targets of a comparison -> the paired differences of every variant."""

    def measure(results) -> dict:
        base = metric_parts(results[0])
        out = {}
        for vname, r in zip(names[1:], results[1:]):
            parts = metric_parts(r)
            for m in targets_by_metric:
                d, se, _ = paired_difference(parts[m].x, parts[m].n, base[m].x, base[m].n)
                out[f"{vname}:{m}"] = (float(d), float(se))
        return out

    return measure


class CompareOptions(RuntimeOptions, total=False):
    """:func:`compare`'s keywords after ``seed``: the stopping rule, the
    engine threads, the folder and its plots, records, the spec, and the
    :class:`Runtime` ones."""

    target_ci: dict | Sequence[str] | None
    max_rounds: int | None
    workers: int | None
    out: str | os.PathLike | None
    fmt: str
    dpi: int
    records: bool
    spec: StudySpec | None


def compare(
    variants: Sequence[str | dict] | str | dict | StudySpec | None = None,
    baseline: str | dict | None = None,
    tables: int = DEFAULT_TABLES,
    rounds: int = DEFAULT_ROUNDS,
    players: str | Sequence[str] = DEFAULT_PLAYERS,
    rules: Rules | str | Sequence[str] | dict | None = None,
    seed: int = 0,
    **options: Unpack[CompareOptions],
) -> Comparison:
    """Play the baseline and every variant on the same tables and return the
    paired :class:`~domeng.results.comparison.Comparison`.

    ``target_ci`` (``{"METRIC": half_width}`` or ``["METRIC=HALF_WIDTH"]``):
    play blocks of tables until every variant's difference in each METRIC has a
    95% half-width at most that (a confidence sequence, :mod:`domeng.results.sequential`),
    or until ``max_rounds`` rounds per arm (then ``tables`` is not used).

    ``out``: a folder to write the comparison into (tables, plots as ``fmt``
    at ``dpi``, report; :mod:`domeng.results.compare_report`): each arm's
    chunks are saved there as they finish, so :func:`resume_study`
    (``domeng compare --resume DIR``) finishes an interrupted comparison
    with the same numbers.  A folder holding a comparison is refused unless
    ``overwrite``.

    The keywords become a :class:`~domeng.study.spec.StudySpec` and a
    :class:`~domeng.study.runtime.Runtime`, run by :func:`run_compare`.

    Parameters
    ----------
    variants:
        One spec or a list of them (a string such as ``"pollo=4"`` or
        ``"players=expert;pollo=4"``, or a dict; see the module docstring).
    baseline:
        A spec applied on top of ``players`` and ``rules`` (None: those).
    tables, rounds, players, rules, seed, workers, progress:
        As for :func:`~domeng.study.simulate.simulate`, for every arm.
    target_ci, max_rounds:
        Stop on the data (above) instead of playing ``tables`` tables.
    command, out, fmt, dpi, overwrite:
        The command line to record in the metadata (or None); the folder to
        write (above), the plots' format and resolution; replace a comparison already there.
    records:
        With ``out``: also write each arm's per-round and per-seat records
        (``arms/K/records.parquet``, ``arms/K/records_seats.parquet``);
        :func:`domeng.results.read_records` reads them keyed by arm and table.
    spec:
        The study as one :class:`~domeng.study.spec.StudySpec` (kind
        ``compare``; or given as ``variants``) instead of the keywords
        above; ``out`` records it as ``config.toml``.

    Returns
    -------
    Comparison
        Every arm's results and their paired differences.

    Raises
    ------
    StudyError
        A variant equal to the baseline, an unknown metric, an unreachable target.

    Examples
    --------
    >>> import domeng
    >>> cmp = domeng.compare(["pollo=4"], tables=2, rounds=2, seed=1, progress=False)
    >>> list(cmp.variants)
    ['pollo_award=4']
    >>> d = cmp.differences()  # one row per variant and metric
    >>> list(d.columns[:3]), set(d["variant"])
    (['variant', 'metric', 'unit'], {'pollo_award=4'})
    """
    study = pop_study(options, _COMPARE_STUDY)
    runtime = Runtime.of("compare", options, ("progress", "command", "overwrite"))
    spec = study.pop("spec", None)
    if spec is not None or isinstance(variants, StudySpec):
        given: dict[str, Any] = dict(variants=variants, baseline=baseline, tables=tables)
        given["rounds"] = rounds
        given.update(study, players=players, rules=rules, seed=seed)
        return run_compare(refuse_both(compare, variants if spec is None else spec, given), runtime)
    arms = _arms(variants, baseline, players, rules)  # each checked, in one line
    checked: dict[str, Any] = {"rounds": _count("rounds", rounds)}
    checked.update(tables=_count("tables", tables), target_ci=None, max_rounds=None)
    _check_records(study.get("records", False), study.get("out"), study.get("target_ci"), {})
    _stopping(checked, study.get("target_ci"), study.get("max_rounds"), arms)
    if isinstance(variants, (str, dict)):
        variants = [variants]
    spec = StudySpec(
        "compare",
        variants=tuple(variant_text(v) for v in variants or []),
        baseline=variant_text(baseline) if isinstance(baseline, dict) else baseline,
        tables=checked["tables"],
        rounds=checked["rounds"],
        players=_lineup(players) if _named(players) else arms["baseline"][1],
        rules=rule_texts(rules),
        seed=seed,
        target_ci=_target_texts(checked["target_ci"]),
        max_rounds=checked["max_rounds"],
        **{k: v for k, v in study.items() if k not in ("target_ci", "max_rounds")},
    )
    return run_compare(spec, runtime)


#: compare's study keywords besides its positional ones
_COMPARE_STUDY = ("target_ci", "max_rounds", "workers", "out", "fmt", "dpi", "records", "spec")


def _named(players) -> bool:
    """Whether ``players`` are given by name (a spec can hold them)."""
    return isinstance(players, str) or (
        isinstance(players, (list, tuple)) and all(isinstance(p, str) for p in players)
    )


def _lineup(players) -> tuple[str, ...]:
    """Player names as a spec holds them (a comma-joined string split)."""
    if isinstance(players, str):
        return tuple(p.strip() for p in players.split(",") if p.strip())
    return tuple(players)


def _target_texts(targets: dict | None) -> tuple[str, ...]:
    return tuple(f"{m}={hw!r}" for m, hw in (targets or {}).items())


def run_compare(spec: StudySpec, runtime: Runtime | None = None) -> Comparison:
    """Run a ``compare`` :class:`~domeng.study.spec.StudySpec` as
    ``runtime`` says (None: the defaults): the core of :func:`compare`.
    The folder (``spec.out``) records the spec as ``config.toml``.

    Examples
    --------
    >>> from domeng.study.compare import run_compare
    >>> from domeng.study.runtime import Runtime
    >>> from domeng.study.spec import StudySpec
    >>> spec = StudySpec("compare", tables=2, rounds=2, seed=1, variants=["pollo=4"])
    >>> list(run_compare(spec, Runtime(progress=False)).variants)
    ['pollo_award=4']
    """
    from domeng.study.spec import check_kind

    rt = Runtime() if runtime is None else runtime
    check_kind("compare", spec)
    players = list(spec.players or DEFAULT_PLAYERS)
    arms = _arms(list(spec.variants or ()), spec.baseline, players, list(spec.rules or ()) or None)
    rounds, target_ci = spec.rounds or DEFAULT_ROUNDS, list(spec.target_ci or ()) or None
    study: dict[str, Any] = {"tables": spec.tables or DEFAULT_TABLES, "rounds": rounds}
    study.update(seed=spec.seed or 0, target_ci=None, max_rounds=None, command=rt.command)
    _check_records(spec.records, spec.out, target_ci, study)
    _stopping(study, target_ci, spec.max_rounds, arms)
    fmt, dpi = spec.fmt or "png", spec.dpi or PLOT_DPI
    write = lambda c, d: write_comparison(c, d, fmt, dpi)  # noqa: E731
    result = _study("compare", arms, study, spec.out, rt, spec.workers, write=write)
    spec_record(
        spec.out,
        "compare",
        variants=list(spec.variants or ()),
        baseline=spec.baseline,
        tables=study["tables"] if target_ci is None else None,
        rounds=rounds,
        players=players,
        rules=list(spec.rules or ()),
        seed=study["seed"],
        target_ci=study["target_ci"],
        max_rounds=study["max_rounds"],
        records=spec.records,
        workers=spec.workers,
        fmt=fmt,
        dpi=dpi,
    )
    return result


def _stopping(study: dict, target_ci, max_rounds, arms) -> None:
    """A comparison that stops on the data: its targets and cap into ``study``."""
    if target_ci is not None:
        tg = parse_targets(target_ci, known_metrics(arms))
        study["target_ci"] = {t.metric: t.half_width for t in tg}
        study["max_rounds"] = _count(
            "max_rounds", DEFAULT_MAX_ROUNDS if max_rounds is None else max_rounds
        )
    elif max_rounds is not None:
        raise StudyError("--max-rounds caps a study that stops on the data: give --target-ci too")


def _check_records(records, out, target_ci, study: dict) -> None:
    """``records=True`` needs a folder (each arm's records are written in
    ``arms/K``) and a fixed number of tables; it is kept in ``study``."""
    if isinstance(records, bool) and not records:
        return
    if records is not True:
        raise StudyError(f"records must be True or False, got {records!r}")
    if out is None:
        raise StudyError("records need out=FOLDER: each arm's records are written in its folder")
    if target_ci is not None:
        raise StudyError("records are not written by a study that stops on the data (target_ci)")
    study["records"] = True


def _play(arms: dict[str, Arm], study: dict, workers, rt: Runtime, folders) -> Comparison:
    """Play every arm on the same tables (``study``: see :func:`_study`) with
    ``workers`` engine threads; ``folders()``: each arm's study folder
    (checkpoints), or None; ``rt``: the progress, whether to resume, the
    players a resumed folder may import."""
    progress: Any = rt.progress
    resume, allow_import = rt.resume, rt.allow_import
    names = list(arms)
    meta = {"command": study.get("command"), "study": study}
    rounds, seed = study["rounds"], study["seed"]
    res: Any  # the arms' results (a list) under a target, else each arm's Results
    if study.get("target_ci") is not None:
        tg = parse_targets(study["target_ci"], known_metrics(arms))
        targets = [Target(f"{v}:{t.metric}", t.half_width) for v in names[1:] for t in tg]
        res, stop = run_until(
            list(arms.values()),
            targets,
            _measure_compare(names, {t.metric: t for t in tg}),
            dict(rounds=rounds, seed=seed, max_rounds=study["max_rounds"], workers=workers),
            replace(rt, overwrite=False),  # the folder policy is the comparison's
            folders,
        )
        meta["stopping"] = stop
        return Comparison(dict(zip(names, res)), meta)
    dirs = folders() if folders is not None else [None] * len(arms)
    out = {}
    overall = _overall_bar(progress, len(arms), study["tables"], rounds)
    what = "point" if "grid" in study else "arm"
    for k, ((name, (r, p)), d) in enumerate(zip(arms.items(), dirs)):
        kw = dict(tables=study["tables"], rounds=rounds, seed=seed, rules=r)
        if overall is not None:  # this arm's share of the one bar, its lines labelled
            progress = overall.part(k * study["tables"], f"{what} {k + 1}/{len(arms)} {name}")
        if d is not None and resume and (d / "manifest.json").exists():
            from domeng.study.checkpoint import resume as resume_arm

            res = resume_arm(d, workers=workers, progress=progress, allow_import=allow_import, **kw)
            if tuple(res.players) != tuple(p):
                raise CheckpointError(f"{str(d)!r} holds another lineup than its manifest says")
        elif d is not None and resume and (d / "results.npz").exists():
            from domeng.results.results import Results

            res = Results.load(d)
            if overall is not None:  # played before: on the bar, not in its rate
                progress.skip(study["tables"])
                progress(study["tables"], study["tables"])
            if (res.tables, res.rounds, res.seed, tuple(res.players), res.rules) != (
                kw["tables"],
                rounds,
                seed,
                tuple(p),
                r,
            ):
                raise CheckpointError(f"{str(d)!r} holds another study than its manifest says")
        else:
            if study.get("records") and d is not None:
                kw["records"] = d / "records.parquet"
            res = simulate(players=list(p), workers=workers, progress=progress, checkpoint=d, **kw)
        out[name] = res
    return Comparison(out, meta)


def _overall_bar(progress, arms: int, tables: int, rounds: int):
    """One bar for every arm of a comparison or sweep (``progress`` True, or
    None on a terminal; a callable of the user's is told of each arm apart,
    as for :func:`~domeng.study.simulate.simulate`)."""
    if progress is None:
        progress = sys.stderr.isatty()
    if progress is not True:
        return None
    from domeng.infra.progress import Progress

    return Progress(arms * tables, unit="table", per_item=rounds, rate_unit="rounds")


def _study(
    kind: str,
    arms: dict[str, Arm],
    study: dict,
    out,
    rt: Runtime,
    workers: int | None = None,
    *,
    write,
    wrap: Callable[[Comparison], Any] = lambda c: c,
):
    """Play a comparison (or a sweep) with ``workers`` engine threads, as
    ``rt`` says (progress, resume, overwrite), and, with ``out``, write its folder:
    the folder policy (:func:`domeng.infra.fs.writing_output`) is applied
    just before the first chunk is saved (for a study that stops on the
    data: once its first look found the targets within reach, so that a
    refused study writes nothing), the manifest first, each arm's
    checkpoint in ``arms/K``, then ``write(result, folder)``."""
    if out is None:
        return wrap(_play(arms, study, workers, replace(rt, resume=False), None))
    from contextlib import ExitStack

    out = Path(out)
    finished, manifest_name, _ = KINDS[kind]
    with ExitStack() as stack:
        entered: list = []

        def folders() -> list[Path]:
            if not entered:
                stack.enter_context(
                    fs.writing_output(
                        out,
                        finished,
                        manifest_name,
                        f"{kind} study",
                        f"domeng {kind} --resume {out}",
                        resume=rt.resume,
                        force=rt.overwrite,
                    )
                )
                if not rt.resume:
                    write_manifest(
                        out,
                        arms_manifest(
                            kind, {k: (r.to_dict(), list(p)) for k, (r, p) in arms.items()}, study
                        ),
                    )
                entered.append(True)
            return [arm_folder(out, k) for k in range(len(arms))]

        result = wrap(_play(arms, study, workers, rt, folders))
        folders()
        write(result, out)
    return result


def resume_study(
    folder,
    kind: str = "compare",
    *,
    workers: int | None = None,
    fmt: str = "png",
    dpi: int = PLOT_DPI,
    metrics: list[str] | None = None,
    expect: dict | None = None,
    **runtime: Unpack[RuntimeOptions],
):
    """Finish the comparison (``kind="compare"``) or sweep in ``folder``
    after a crash or kill (``domeng compare --resume DIR``): the arms'
    finished chunks are read, the missing ones played, and the folder's
    files written; the numbers (and, with a stopping rule, where it stops)
    equal an uninterrupted run's.  ``expect``: parameters given again
    (``tables``, ``rounds``, ``seed``, ``target_ci``, ``max_rounds``), each
    must equal the study's; ``runtime``: ``progress`` and ``allow_import``
    (the ``module:function`` players the folder may import).  Returns the
    Comparison (or Sweep)."""
    from domeng.study.names import check_player_names

    rt = replace(Runtime.of("resume_study", runtime, ("progress", "allow_import")), resume=True)
    allow_import = rt.allow_import

    m = read_manifest(folder, kind)
    study: dict[str, Any] = {
        k: m.get(k)
        for k in (
            "tables",
            "rounds",
            "seed",
            "target_ci",
            "max_rounds",
            "command",
            "grid",
            "points",
            "records",
        )
        if k in m
    }
    for key, value in (expect or {}).items():
        if key == "target_ci" and value is not None:
            known = list(study.get("target_ci") or {})
            value = {t.metric: t.half_width for t in parse_targets(value, known)}
        if value is not None and value != study.get(key):
            raise CheckpointError(
                f"cannot resume {str(folder)!r} with {key}={value}: the "
                f"{kind} there has {key}={study.get(key)}"
            )
    try:
        arms = {
            a["name"]: (
                Rules.from_mapping(a["rules"]),
                tuple(
                    check_player_names(a["players"], source=str(folder), allow_import=allow_import)
                ),
            )
            for a in m["arms"]
        }
    except StudyError:
        raise
    except (KeyError, TypeError, ValueError) as e:
        raise CheckpointError(f"corrupt manifest in {str(folder)!r}: {e}") from None
    if kind == "sweep":
        from domeng.results.sweep import Sweep

        result = _study(
            kind,
            arms,
            study,
            folder,
            rt,
            workers,
            wrap=lambda c: Sweep(study["grid"], study["points"], c),
            write=lambda sw, d: write_sweep(sw, d, fmt, dpi, metrics),
        )
    else:
        write = lambda c, d: write_comparison(c, d, fmt, dpi)  # noqa: E731
        result = _study(kind, arms, study, folder, rt, workers, write=write)
    record_arms(folder, kind, study, arms, (fmt, dpi, metrics))
    return result


# ---------------------------------------------------------------- sweeps
class SweepOptions(RuntimeOptions, total=False):
    """:func:`sweep`'s keywords after ``seed``: the engine threads, the
    folder, its plots and metrics, records, the spec, and the
    :class:`Runtime` ones."""

    workers: int | None
    out: str | os.PathLike | None
    fmt: str
    dpi: int
    metrics: list[str] | None
    records: bool
    spec: StudySpec | None


def sweep(
    grid: Sequence[str] | dict | StudySpec | None = None,
    tables: int = DEFAULT_TABLES,
    rounds: int = DEFAULT_ROUNDS,
    players: str | Sequence[str] = DEFAULT_PLAYERS,
    rules: Rules | str | Sequence[str] | dict | None = None,
    seed: int = 0,
    **options: Unpack[SweepOptions],
):
    """Play every point of the grid on the same tables (paired as in
    :func:`compare`; the reference is the first point) and return a
    :class:`~domeng.results.sweep.Sweep`.  ``out``: write the sweep's folder
    there, checkpointed as in :func:`compare` (``metrics``: those to plot;
    a folder holding a sweep is refused unless ``overwrite``).  The keywords
    become a spec and a :class:`~domeng.study.runtime.Runtime`, run by
    :func:`run_sweep`.

    Parameters
    ----------
    grid:
        ``["pollo=3,4,5", "passebunge_every_pass=true,false"]`` or a dict of
        lists: every combination of the values is one point.
    tables, rounds, players, rules, seed, workers, progress:
        As for :func:`~domeng.study.simulate.simulate`, for every point
        (``rules``: the options the grid does not set).
    command, out, fmt, dpi, overwrite, records:
        As for :func:`compare` (records: each point's in ``arms/K``).
    metrics:
        The metrics to plot in ``out`` (None: a default set).
    spec:
        The study as one :class:`~domeng.study.spec.StudySpec` (kind
        ``sweep``; or given as ``grid``) instead of the keywords above;
        ``out`` records it as ``config.toml``.

    Returns
    -------
    Sweep
        One tidy DataFrame (``frame()``) of every point and metric.

    Examples
    --------
    >>> import domeng
    >>> sw = domeng.sweep(["pollo=3,4"], tables=2, rounds=2, seed=1, progress=False)
    >>> sorted(set(sw.frame()["pollo_award"]))
    [3, 4]
    """
    study = pop_study(options, ("workers", "out", "fmt", "dpi", "metrics", "records", "spec"))
    runtime = Runtime.of("sweep", options, ("progress", "command", "overwrite"))
    spec = study.pop("spec", None)
    if spec is not None or isinstance(grid, StudySpec):
        given = dict(grid=grid, tables=tables, rounds=rounds, players=players, rules=rules)
        given.update(study, seed=seed)
        return run_sweep(refuse_both(sweep, grid if spec is None else spec, given), runtime)
    if grid is None:
        raise StudyError("a sweep needs a grid, e.g. ['pollo=3,4'] (or spec=)")
    g = parse_grid(grid)
    base_rules = coerce_rules(rules)
    lineup = tuple(resolve_names_safely(players))
    tables, rounds = _count("tables", tables), _count("rounds", rounds)
    _check_records(study.get("records", False), study.get("out"), None, {})
    spec = StudySpec(
        "sweep",
        grid=tuple(f"{k}={','.join(value_text(v) for v in vs)}" for k, vs in g.items()),
        tables=tables,
        rounds=rounds,
        players=lineup,
        rules=rule_texts(base_rules),
        seed=seed,
        **study,
    )
    return run_sweep(spec, runtime)


def run_sweep(spec: StudySpec, runtime: Runtime | None = None):
    """Run a ``sweep`` :class:`~domeng.study.spec.StudySpec` as ``runtime``
    says (None: the defaults) and return its
    :class:`~domeng.results.sweep.Sweep`: the core of :func:`sweep`.  The
    folder (``spec.out``) records the spec as ``config.toml``.

    Examples
    --------
    >>> from domeng.study.compare import run_sweep
    >>> from domeng.study.runtime import Runtime
    >>> from domeng.study.spec import StudySpec
    >>> spec = StudySpec("sweep", tables=2, rounds=2, seed=1, grid=["pollo=3,4"])
    >>> sorted(set(run_sweep(spec, Runtime(progress=False)).frame()["pollo_award"]))
    [3, 4]
    """
    from domeng.results.sweep import Sweep
    from domeng.study.spec import check_kind

    rt = Runtime() if runtime is None else runtime
    check_kind("sweep", spec)
    g = parse_grid(list(spec.grid or ()))
    base_rules = coerce_rules(list(spec.rules or ()) or None)
    lineup = tuple(resolve_names_safely(list(spec.players or DEFAULT_PLAYERS)))
    points = [dict(zip(g, combo)) for combo in itertools.product(*g.values())]
    arms = {
        ";".join(f"{k}={value_text(v)}" for k, v in point.items()): (
            base_rules.replace(**point),
            lineup,
        )
        for point in points
    }
    study: dict[str, Any] = {
        "tables": spec.tables or DEFAULT_TABLES,
        "rounds": spec.rounds or DEFAULT_ROUNDS,
        "seed": spec.seed or 0,
        "target_ci": None,
        "max_rounds": None,
        "command": rt.command,
        "grid": g,
        "points": points,
    }
    _check_records(spec.records, spec.out, None, study)
    fmt, dpi, metrics = spec.fmt or "png", spec.dpi or PLOT_DPI, list(spec.metrics or ()) or None
    result = _study(
        "sweep",
        arms,
        study,
        spec.out,
        rt,
        spec.workers,
        wrap=lambda c: Sweep(g, points, c),
        write=lambda sw, d: write_sweep(sw, d, fmt, dpi, metrics),
    )
    spec_record(
        spec.out,
        "sweep",
        grid=g,
        tables=study["tables"],
        rounds=study["rounds"],
        players=list(lineup),
        rules=base_rules,
        seed=study["seed"],
        records=spec.records,
        workers=spec.workers,
        fmt=fmt,
        dpi=dpi,
        metrics=metrics,
    )
    return result


__all__ = [
    "compare",
    "parse_arm",
    "parse_grid",
    "resume_study",
    "run_compare",
    "run_sweep",
    "sweep",
]
