"""``domeng sweep``: a grid of rule values on the same tables, as one tidy table."""

from __future__ import annotations

from domeng.cli.args import UsageError, add_players_epilog
from domeng.cli.compare import (
    add_study_options,
    check_output,
    print_result,
    resume_arms,
    study_arguments,
)
from domeng.cli.config import add_config_options


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
        "--rule",
        action="append",
        default=[],
        metavar="NAME=V1,V2,...",
        help="an option and its values, e.g. pollo=3,4,5 (repeatable; the grid is "
        "every combination)",
    )
    s.add_argument(
        "--fixed",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule value held fixed at every grid point",
    )
    s.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="METRIC",
        help="a metric to print and plot (repeatable; default: PASSEBUNGE, stone "
        "flows, CAMAT rate); every metric is in the table",
    )
    add_study_options(s, "grid point")
    s.set_defaults(func=cmd_sweep)
    add_config_options(s)
    add_players_epilog(s, "study")


def _fixed_names(specs: list[str]) -> list[str]:
    """The option names ``--fixed`` sets (``a=1,b=2`` gives two), canonical
    (``pollo`` -> ``pollo_award``); the specs were already checked by
    :meth:`Rules.parse`."""
    from domeng.core.rules import Rules

    return [
        Rules._canonical_name(part.split("=", 1)[0])
        for spec in specs
        for part in spec.split(",")
        if part.strip()
    ]


def cmd_sweep(args) -> int:
    from domeng.core.rules import Rules
    from domeng.results.html import command_line
    from domeng.study.compare import parse_grid, sweep

    if args.resume is not None:
        sw = resume_arms(args, "sweep", {"--rule": args.rule, "--fixed": args.fixed})
        return print_result(sw, args, args.resume, sw.to_text(args.metric or None))
    if not args.rule:
        raise UsageError(
            "domeng sweep: error: empty sweep: give at least one --rule "
            "NAME=V1,V2,... (see domeng sweep --help)"
        )
    grid = parse_grid(args.rule)  # refuse a malformed grid before anything is written
    Rules.parse(args.fixed)
    both = [k for k in _fixed_names(args.fixed) if k in grid]
    if both:
        raise UsageError(
            f"domeng sweep: error: {both[0]} is both swept (--rule) and held fixed "
            "(--fixed); give it once"
        )
    study = study_arguments(args)
    if args.dry_run:
        from domeng.cli.config import dry_run

        return dry_run("sweep", args, lambda out, force: check_output(out, "sweep", force))
    check_output(args.out, "sweep", args.force)
    if args.metric:
        from domeng.study.names import resolve_names_safely
        from domeng.study.sequential import known_metrics as _known_metrics

        known = set(
            _known_metrics(
                {"b": (Rules.parse(args.fixed), tuple(resolve_names_safely(study["players"])))}
            )
        )
        bad = [m for m in args.metric if m not in known]
        if bad:
            raise UsageError(
                f"domeng sweep: error: unknown metric {bad[0]!r} (see domeng "
                "compare --list-metrics)"
            )
    sw = sweep(
        args.rule,
        rules=args.fixed,
        workers=args.workers,
        progress=not args.no_progress,
        command=command_line(args.argv),
        out=args.out,
        fmt=args.format,
        dpi=args.dpi,
        metrics=args.metric or None,
        overwrite=args.force,
        **study,
    )
    return print_result(sw, args, args.out, sw.to_text(args.metric or None))
