"""``domeng tournament``: rank five players in a duplicate tournament."""

from __future__ import annotations

from domeng.cli.args import (
    add_option,
    add_players_epilog,
    add_progress_options,
    players_help,
    whole,
)
from domeng.cli.config import add_config_options


def add_parser(sub) -> None:
    tn = sub.add_parser(
        "tournament",
        help="rank five players in a duplicate tournament",
        description="Play DEALS games of ROUNDS rounds, each once for every seating of the "
        "five players around the table (by default every cyclic order in every "
        "rotation: 120 seatings; the same deals each time), and rank the "
        "players by net stones per round with 95% confidence intervals.",
    )
    tn.add_argument(
        "--players",
        "-p",
        required=True,
        metavar="A,B,C,D,E",
        help=players_help("five players", "tournament"),
    )
    tn.add_argument(
        "--deals",
        "-d",
        type=whole(1, maximum=10**6),
        default=200,
        metavar="N",
        help="games played in every seating (default 200)",
    )
    add_option(tn, "--rounds", default=10, help="rounds per game (default 10)")
    add_option(tn, "--seed", default=0, help="seed (default 0)")
    add_option(tn, "--rule")
    tn.add_argument(
        "--orders",
        choices=("all", "balanced", "rotations"),
        default="all",
        help="seating design: all = every cyclic order x 5 rotations (120, "
        "default), balanced = 4 cyclic orders x 5 rotations (20; neighbours "
        "cancelled to first order), rotations = the given order's 5 rotations "
        "(neighbours not cancelled)",
    )
    add_option(tn, "--workers")
    add_option(
        tn,
        "--out",
        help="write summary.json, players.csv/.parquet, margins.csv, plots and report.html to DIR "
        "(a folder that holds results is refused: --force replaces them)",
    )
    add_option(tn, "--force")
    add_option(tn, "--json")
    add_progress_options(tn)
    from domeng.cli.compare import add_plot_options

    add_plot_options(tn)
    tn.set_defaults(func=cmd_tournament)
    add_config_options(tn)
    add_players_epilog(tn, "tournament")


def cmd_tournament(args) -> int:
    return run_duplicate("tournament", args)


def run_duplicate(kind: str, args) -> int:
    """``domeng tournament`` and ``domeng ladder``: the spec of the flags
    (and ``--config`` file), run by its core entry, printed."""
    import json

    from domeng.cli.compare import study_runtime
    from domeng.cli.config import spec_from_args
    from domeng.core.rules import Rules
    from domeng.study.duplicate import check_out
    from domeng.study.entry import run

    Rules.parse(args.rule)  # refused in its own words
    if args.dry_run:
        from domeng.cli.config import dry_run

        return dry_run(kind, args, check_out)
    args.out = args.out or None
    if args.out:
        check_out(args.out, args.force)  # before the study is played, not after
    res = run(spec_from_args(kind, args), study_runtime(args))
    if args.json:
        print(json.dumps(res.summary()))
    else:
        print(res.to_text())
        if args.out:
            print(f"results written to {args.out}")
    return 0
