"""``domeng compare``: a baseline and variants on the same tables (paired differences)."""

from __future__ import annotations

import sys
from pathlib import Path

from domeng.cli.args import (
    UsageError,
    add_option,
    add_players_epilog,
    add_progress_options,
    players_help,
    progress_wanted,
    whole,
)
from domeng.cli.config import add_config_options, spec_from_args
from domeng.core.defaults import DEFAULT_PLAYERS, DEFAULT_ROUNDS, DEFAULT_TABLES, PLOT_DPI


def add_study_options(s, what: str) -> None:
    """Options shared by compare and sweep (tables, rounds, players, seed, output)."""
    add_option(s, "--tables", help=f"tables per {what} (default {DEFAULT_TABLES})")
    add_option(s, "--rounds", help=f"rounds per table (default {DEFAULT_ROUNDS})")
    s.add_argument(
        "--players",
        "-p",
        default=None,
        metavar="P[,P,P,P,P]",
        help=players_help("the lineup, one player for all seats or five, seat 0..4")
        + f" (default {','.join(DEFAULT_PLAYERS)})",
    )
    add_option(s, "--seed", help="study seed (default 0): every arm plays the same tables")
    add_option(s, "--workers", help="threads of the batch engine (results do not depend on it)")
    add_option(
        s,
        "--out",
        help="write tables (Parquet, CSV), plots and report.html to DIR; each arm's "
        "chunks are saved there as they finish, so an interrupted run can be "
        "finished with --resume DIR (a folder that holds results is refused: "
        "--force replaces them)",
    )
    add_option(s, "--force")
    s.add_argument(
        "--records",
        action="store_true",
        help="also write each arm's records (one row per table-round, and one per "
        "table-round-seat) to DIR/arms/K/records.parquet and records_seats.parquet "
        "(needs --out; domeng.results.read_records(DIR) reads them keyed by arm and table)",
    )
    s.add_argument(
        "--resume",
        default=None,
        metavar="DIR",
        help="finish the interrupted run in DIR (written by --out "
        "DIR): only missing chunks are played; its parameters come from DIR "
        "(any given must match)",
    )
    add_plot_options(s)
    add_option(s, "--json", help="print only the JSON object on stdout")
    add_progress_options(s)


def add_plot_options(s) -> None:
    s.add_argument(
        "--format",
        choices=("png", "svg", "pdf"),
        default="png",
        help="plot files: png (default), or vector svg or pdf (the report embeds PNG)",
    )
    s.add_argument(
        "--dpi",
        type=whole(30, maximum=1200),
        default=PLOT_DPI,
        metavar="DPI",
        help=f"resolution of the plot files, dots per inch (default {PLOT_DPI})",
    )


def add_parser(sub) -> None:
    s = sub.add_parser(
        "compare",
        help="paired comparison of rule values or lineups on the same tables",
        description="Play a baseline and one or more variants with the same seed on the same "
        "tables (common random numbers) and report every summary metric's difference "
        "variant minus baseline, with its paired SE, the unpaired SE and a 95% "
        "interval across groups of tables.",
    )
    s.add_argument(
        "--variant",
        "-V",
        action="append",
        default=[],
        metavar="SPEC",
        help="a variant: NAME=VALUE rule values (comma-joined) and/or players=P,...; "
        "items separated by ';', e.g. pollo=4 or 'pollo=4;players=heavy' "
        "(repeatable, at least one)",
    )
    s.add_argument(
        "--baseline",
        default=None,
        metavar="SPEC",
        help="the baseline, as a variant spec on top of --players and --rule (default: those)",
    )
    add_option(s, "--rule", help="a rule value of the baseline (and so of every variant)")
    add_study_options(s, "arm")
    add_target_options(s)
    s.add_argument(
        "--list-metrics",
        action="store_true",
        help="print the metric names (for --target-ci) and exit",
    )
    s.add_argument(
        "--adjust",
        choices=("holm", "bonferroni"),
        default=None,
        help="make the intervals shown hold together at 95%% (the text's: its metrics x "
        "variants; the JSON's: every metric x variant) instead of each alone: Holm's "
        "step-down or Bonferroni (see docs/study.md)",
    )
    s.set_defaults(func=cmd_compare)
    add_config_options(s)
    add_players_epilog(s, "study")


def add_target_options(s) -> None:
    s.add_argument(
        "--target-ci",
        action="append",
        default=[],
        metavar="METRIC=HALF_WIDTH",
        help="play blocks of tables until the 95%% half-width of METRIC is at most "
        "HALF_WIDTH (METRIC: a name of --list-metrics; repeatable; a confidence sequence, valid when stopping on "
        "the data: see docs/study.md); not with --tables (blocks of tables are played "
        "until the target holds); with --out "
        "DIR each chunk is saved, and --resume DIR stops at the same point",
    )
    s.add_argument(
        "--max-rounds",
        type=whole(1, maximum=10**13),
        default=None,
        metavar="N",
        help="with --target-ci: stop after at most N rounds (per arm) (default 100,000,000)",
    )


def check_output(out: str | None, kind: str, force: bool = False) -> None:
    """Refuse, before anything is played, an --out folder this command may
    not use (the folder policy of :func:`domeng.infra.fs.check_output`)."""
    if out is None:
        return
    from domeng.infra.fs import check_output as check
    from domeng.results.compare_report import KINDS

    finished, manifest, _ = KINDS[kind]
    check(out, finished, manifest, f"{kind} study", f"domeng {kind} --resume {out}", force)


def check_records(args, kind: str) -> None:
    """``--records`` needs ``--out`` and a fixed number of tables (one line otherwise)."""
    if not args.records:
        return
    if args.out is None and args.resume is None:
        raise UsageError(f"domeng {kind}: error: --records needs --out DIR")
    if getattr(args, "target_ci", None):
        raise UsageError(
            f"domeng {kind}: error: --records cannot be used with --target-ci (a study "
            "that stops on the data writes no records)"
        )


def study_arguments(args) -> dict:
    """tables, rounds, players, seed of compare and sweep, defaults applied."""
    return dict(
        tables=DEFAULT_TABLES if args.tables is None else args.tables,
        rounds=DEFAULT_ROUNDS if args.rounds is None else args.rounds,
        players=",".join(DEFAULT_PLAYERS) if args.players is None else args.players,
        seed=0 if args.seed is None else args.seed,
    )


def resume_arms(args, kind: str, study_flags: dict):
    """``--resume DIR`` of compare and sweep: the study's parameters come from
    DIR; ``study_flags`` (flag -> value) that define the arms may not be given."""
    from domeng.study.compare import resume_study
    from domeng.study.names import modules_named, resolve_names_safely

    if args.out is not None and Path(args.out).resolve() != Path(args.resume).resolve():
        raise UsageError(
            f"domeng {kind}: error: --resume DIR writes its results into DIR; "
            "do not give another --out"
        )
    for flag, value in study_flags.items():
        if value:
            raise UsageError(
                f"domeng {kind}: error: {flag} cannot be used with --resume (the "
                "study's arms come from DIR)"
            )
    allow = modules_named(resolve_names_safely(args.players)) if args.players else False
    return resume_study(
        args.resume,
        kind,
        workers=args.workers,
        progress=progress_wanted(args),
        allow_import=allow,
        fmt=args.format,
        dpi=args.dpi,
        metrics=getattr(args, "metric", None) or None,
        expect=dict(
            tables=args.tables,
            rounds=args.rounds,
            seed=args.seed,
            target_ci=getattr(args, "target_ci", None) or None,
            max_rounds=getattr(args, "max_rounds", None),
            records=True if args.records else None,
        ),
    )


def print_result(result, args, out, text, json_text: str | None = None) -> int:
    """What compare and sweep print: the JSON (``json_text``, or the
    result's), or the text and where the files are."""
    if args.json:
        print(result.to_json() if json_text is None else json_text)
    else:
        sys.stdout.write(text)
        if out is not None:
            print(f"results: {out}  (report: {Path(out) / 'report.html'})")
    return 0


def cmd_compare(args) -> int:
    from domeng.study.compare import _arms, run_compare
    from domeng.study.sequential import known_metrics, parse_targets

    study = study_arguments(args)
    if args.list_metrics:
        arms = _arms(args.variant or ["pollo=4"], args.baseline, study["players"], args.rule)
        print("\n".join(known_metrics(arms)))
        return 0
    check_records(args, "compare")
    if args.resume is not None:
        cmp = resume_arms(
            args,
            "compare",
            {"--variant": args.variant, "--baseline": args.baseline, "--rule": args.rule},
        )
        return _print_comparison(cmp, args, args.resume)
    if not args.variant:
        raise UsageError(
            "domeng compare: error: give at least one --variant, e.g. --variant "
            "pollo=4 (see domeng compare --help)"
        )
    if args.max_rounds is not None and not args.target_ci:
        raise UsageError(
            "domeng compare: error: --max-rounds caps a study that stops on the "
            "data; give --target-ci too"
        )
    if args.dry_run:
        from domeng.cli.config import dry_run

        return dry_run("compare", args, lambda out, force: check_output(out, "compare", force))
    check_output(args.out, "compare", args.force)
    arms = _arms(args.variant, args.baseline, study["players"], args.rule)  # in its own words
    if args.target_ci:
        parse_targets(args.target_ci, known_metrics(arms))
    cmp = run_compare(spec_from_args("compare", args), study_runtime(args))
    return _print_comparison(cmp, args, args.out)


def study_runtime(args):
    """The :class:`~domeng.study.runtime.Runtime` of a study command's flags."""
    from domeng.results.html import command_line
    from domeng.study.runtime import Runtime

    return Runtime(
        progress=progress_wanted(args), command=command_line(args.argv), overwrite=args.force
    )


def _print_comparison(cmp, args, out) -> int:
    adjust = getattr(args, "adjust", None)
    json_text = cmp.to_json(adjust=adjust) if args.json else None
    return print_result(cmp, args, out, "" if args.json else cmp.to_text(adjust=adjust), json_text)
