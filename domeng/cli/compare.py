"""``domeng compare``: a baseline and variants on the same tables (paired differences)."""

from __future__ import annotations

import sys
from pathlib import Path

from domeng.cli.args import UsageError, seed, whole
from domeng.core.defaults import DEFAULT_PLAYERS, DEFAULT_ROUNDS, DEFAULT_TABLES


def add_study_options(s, what: str) -> None:
    """Options shared by compare and sweep (tables, rounds, players, seed, output)."""
    s.add_argument("--tables", "-t", type=whole(1), default=DEFAULT_TABLES, metavar="T",
                   help=f"tables per {what} (default {DEFAULT_TABLES})")
    s.add_argument("--rounds", "-r", type=whole(1), default=DEFAULT_ROUNDS, metavar="R",
                   help=f"rounds per table (default {DEFAULT_ROUNDS})")
    s.add_argument("--players", "-p", default=",".join(DEFAULT_PLAYERS), metavar="P[,P,P,P,P]",
                   help=f"the lineup, seat 0..4 (default {','.join(DEFAULT_PLAYERS)})")
    s.add_argument("--seed", "-s", type=seed, default=0, metavar="S",
                   help="study seed (default 0): every arm plays the same tables")
    s.add_argument("--workers", "-w", type=whole(1), default=None, metavar="N",
                   help="threads of the batch engine (results do not depend on it)")
    s.add_argument("--out", "-o", default=None, metavar="DIR",
                   help="write tables (Parquet, CSV), plots and report.html to DIR (an existing "
                        "folder of the same kind is replaced; anything else is refused)")
    add_plot_options(s)
    s.add_argument("--json", action="store_true", help="print only the JSON object on stdout")
    s.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def add_plot_options(s) -> None:
    s.add_argument("--format", choices=("png", "svg", "pdf"), default="png",
                   help="plot files: png (default), or vector svg or pdf (the report embeds PNG)")
    s.add_argument("--dpi", type=whole(30, maximum=1200), default=110, metavar="DPI",
                   help="resolution of the plots (default 110)")


def add_parser(sub) -> None:
    s = sub.add_parser(
        "compare", help="paired comparison of rule values or lineups on the same tables",
        description="Play a baseline and one or more variants with the same seed on the same "
                    "tables (common random numbers) and report every summary metric's difference "
                    "variant minus baseline, with its paired SE, the unpaired SE and a 95% "
                    "interval across groups of tables.")
    s.add_argument("--variant", "-V", action="append", default=[], metavar="SPEC",
                   help="a variant: NAME=VALUE rule values (comma-joined) and/or players=P,...; "
                        "items separated by ';', e.g. pollo=4 or 'pollo=4;players=heavy' "
                        "(repeatable, at least one)")
    s.add_argument("--baseline", default=None, metavar="SPEC",
                   help="the baseline, as a variant spec on top of --players and --rule "
                        "(default: those)")
    s.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                   help="a rule value of the baseline (and so of every variant)")
    add_study_options(s, "arm")
    add_target_options(s)
    s.add_argument("--list-metrics", action="store_true",
                   help="print the metric names (for --target-ci) and exit")
    s.set_defaults(func=cmd_compare)


def add_target_options(s) -> None:
    s.add_argument("--target-ci", action="append", default=[], metavar="METRIC=HALF_WIDTH",
                   help="play blocks of tables until the 95%% half-width of METRIC is at most "
                        "HALF_WIDTH (repeatable; a confidence sequence, valid when stopping on "
                        "the data: see docs/study.md); --tables is then not used")
    s.add_argument("--max-rounds", type=whole(1, maximum=10**13), default=None, metavar="N",
                   help="with --target-ci: stop after at most N rounds (per arm) "
                        "(default 100,000,000)")


def check_out(out: str | None, marker: str) -> None:
    """Refuse an output folder before anything is played (one line, exit 2)."""
    if out is None:
        return
    from domeng.results.results import ResultsError

    p = Path(out)
    if p.exists() and not p.is_dir():
        raise ResultsError(f"cannot write results to {out!r}: it is a file")
    if p.is_dir() and any(p.iterdir()) and not (p / marker).exists():
        raise ResultsError(f"refusing to write to {out!r}: the folder exists and holds something "
                           f"other than the output of this command (no {marker})")


def cmd_compare(args) -> int:
    from domeng.results.html import command_line
    from domeng.study.compare import _arms, compare
    from domeng.study.sequential import known_metrics

    if args.list_metrics:
        arms = _arms(args.variant or ["pollo=4"], args.baseline, args.players, args.rule)
        print("\n".join(known_metrics(arms)))
        return 0
    if not args.variant:
        raise UsageError("domeng compare: error: give at least one --variant, e.g. --variant "
                         "pollo=4 (see domeng compare --help)")
    if args.max_rounds is not None and not args.target_ci:
        raise UsageError("domeng compare: error: --max-rounds caps a study that stops on the "
                         "data; give --target-ci too")
    check_out(args.out, "compare.json")
    cmp = compare(args.variant, baseline=args.baseline, tables=args.tables, rounds=args.rounds,
                  players=args.players, rules=args.rule, seed=args.seed,
                  target_ci=args.target_ci or None, max_rounds=args.max_rounds,
                  workers=args.workers, progress=not args.no_progress,
                  command=command_line(args.argv))
    if args.out is not None:
        from domeng.results.compare_report import save_comparison

        save_comparison(cmp, args.out, args.format, args.dpi)
    if args.json:
        print(cmp.to_json())
    else:
        sys.stdout.write(cmp.to_text())
        if args.out is not None:
            print(f"results: {args.out}  (report: {Path(args.out) / 'report.html'})")
    return 0
