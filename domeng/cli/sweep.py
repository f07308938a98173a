"""``domeng sweep``: a grid of rule values on the same tables, as one tidy table."""

from __future__ import annotations

import argparse
import sys

from domeng.cli.args import UsageError, add_option, add_players_epilog
from domeng.cli.compare import (
    add_study_options,
    check_output,
    check_records,
    print_result,
    resume_arms,
    study_arguments,
    study_runtime,
)
from domeng.cli.config import add_config_options, spec_from_args


def add_parser(sub) -> None:
    s = sub.add_parser(
        "sweep",
        help="play a grid of rule values on the same tables",
        description="Play every combination of the given rule values with the same seed on the "
        "same tables (paired, as domeng compare) and write one tidy table: a row per "
        "grid point and metric with its value, SE and 95% interval, and the paired "
        "difference from the first grid point; line plots against each swept value.",
    )
    s.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="NAME=V1,V2,...",
        help="the swept axis: an option and its values, e.g. pollo=3,4,5 (repeatable; "
        "the grid is every combination)",
    )
    add_option(
        s,
        "--rule",
        help="a rule value held fixed at every grid point, as in the other commands "
        "(repeatable; see `domeng rules`). The old spelling --rule NAME=V1,V2,... for "
        "the swept axis still works in this release, with a note on stderr: use --vary",
    )
    s.add_argument("--fixed", action="append", default=[], help=argparse.SUPPRESS)
    s.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="METRIC",
        help="a metric to print and plot (repeatable; default: PASSEBUNGE, stone "
        "flows, CAMAT rate); every metric is in the table",
    )
    add_study_options(s, "grid point")
    s.add_argument(
        "--list-metrics",
        action="store_true",
        help="print the metric names (for --metric) and exit",
    )
    s.set_defaults(func=cmd_sweep)
    add_config_options(s)
    add_players_epilog(s, "study")


def _fixed_names(specs: list[str]) -> list[str]:
    """The option names ``--rule`` fixes (``a=1,b=2`` gives two), canonical
    (``pollo`` -> ``pollo_award``); the specs were already checked by
    :meth:`Rules.parse`."""
    from domeng.core.rules import Rules

    return [
        Rules._canonical_name(part.split("=", 1)[0])
        for spec in specs
        for part in spec.split(",")
        if part.strip()
    ]


def _old_grid_spec(spec: str) -> bool:
    """``--rule pollo=3,4``: the swept axis in the spelling before --vary (a
    comma-joined part without ``=`` is a second value, not a second option)."""
    parts = [p.strip() for p in spec.split(",")]
    return "=" in parts[0] and len(parts) > 1 and any("=" not in p for p in parts[1:])


def sweep_axes(args) -> tuple[list[str], list[str]]:
    """``(vary, fixed)``: the swept axis (``--vary``) and the rule values held
    fixed (``--rule``).  The spellings of the last release still work, each
    with one note on stderr: ``--rule NAME=V1,V2,...`` as the swept axis and
    ``--fixed NAME=VALUE``."""
    old = [spec for spec in args.rule if _old_grid_spec(spec)]
    vary = list(args.vary) + old
    fixed = [spec for spec in args.rule if spec not in old] + list(args.fixed)
    notes = []
    if old:
        notes.append(
            f"--rule {old[0]} as the swept axis is deprecated: write --vary {old[0]} "
            "(--rule holds an option fixed, as in the other commands)"
        )
    if args.fixed:
        notes.append(f"--fixed is deprecated: write --rule {args.fixed[0]}")
    for note in notes:
        print(f"domeng sweep: note: {note}", file=sys.stderr)
    return vary, fixed


def cmd_sweep(args) -> int:
    from domeng.core.rules import Rules
    from domeng.study.compare import parse_grid, run_sweep
    from domeng.study.names import resolve_names_safely
    from domeng.study.sequential import known_metrics

    check_records(args, "sweep")
    if args.resume is not None:
        sw = resume_arms(
            args, "sweep", {"--vary": args.vary, "--rule": args.rule, "--fixed": args.fixed}
        )
        return print_result(sw, args, args.resume, sw.to_text(args.metric or None))
    vary, fixed = sweep_axes(args)
    study = study_arguments(args)
    if args.list_metrics:
        lineup = tuple(resolve_names_safely(study["players"]))
        print("\n".join(known_metrics({"b": (Rules.parse(fixed), lineup)})))
        return 0
    if not vary:
        raise UsageError(
            "domeng sweep: error: nothing to sweep: give the swept axis with --vary "
            "NAME=V1,V2,... (--rule holds an option fixed at every point; see domeng "
            "sweep --help)"
        )
    grid = parse_grid(vary)  # refuse a malformed grid before anything is written
    Rules.parse(fixed)
    both = [k for k in _fixed_names(fixed) if k in grid]
    if both:
        raise UsageError(
            f"domeng sweep: error: {both[0]} is both swept (--vary) and held fixed "
            "(--rule); give it once"
        )
    if args.dry_run:
        from domeng.cli.config import dry_run

        args.vary, args.rule = vary, fixed  # the old spelling (--rule as the axis) too

        return dry_run("sweep", args, lambda out, force: check_output(out, "sweep", force))
    check_output(args.out, "sweep", args.force)
    if args.metric:
        lineup = tuple(resolve_names_safely(study["players"]))
        known = set(known_metrics({"b": (Rules.parse(fixed), lineup)}))
        bad = [m for m in args.metric if m not in known]
        if bad:
            raise UsageError(
                f"domeng sweep: error: unknown metric {bad[0]!r} (see domeng sweep --list-metrics)"
            )
    args.vary, args.rule = vary, fixed  # the old spelling (--rule as the axis) too
    sw = run_sweep(spec_from_args("sweep", args), study_runtime(args))
    return print_result(sw, args, args.out, sw.to_text(args.metric or None))
