"""``domeng ladder``: rank five or more players in duplicate matches."""

from __future__ import annotations

from domeng.cli.args import (
    FORCE_HELP,
    add_players_epilog,
    add_progress_options,
    players_help,
    seed,
    whole,
)
from domeng.cli.config import add_config_options


def add_parser(sub) -> None:
    ld = sub.add_parser(
        "ladder",
        help="rank five or more players in duplicate matches",
        description="Every lineup of five of the players plays the same DEALS games of ROUNDS "
        "rounds, each under every seating (by default every cyclic order in every "
        "rotation), and the players are ranked by net stones per round, with "
        "CAMATs per 1000 rounds, 95% confidence intervals and paired margins.",
    )
    ld.add_argument(
        "--players",
        "-p",
        required=True,
        metavar="A,B,C,D,E,...",
        help=players_help("five to ten players", "tournament"),
    )
    ld.add_argument(
        "--deals",
        "-d",
        type=whole(1, maximum=10**6),
        default=100,
        metavar="N",
        help="games played by every lineup in every seating (default 100)",
    )
    ld.add_argument(
        "--rounds",
        "-r",
        type=whole(1),
        default=10,
        metavar="R",
        help="rounds per game (default 10)",
    )
    ld.add_argument("--seed", "-s", type=seed, default=0, metavar="S", help="seed (default 0)")
    ld.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a rule option (repeatable; see `domeng rules`)",
    )
    ld.add_argument(
        "--orders",
        choices=("all", "balanced", "rotations"),
        default="all",
        help="seating design of each lineup (see `domeng tournament --help`)",
    )
    ld.add_argument(
        "--workers",
        "-w",
        type=whole(1),
        default=None,
        metavar="N",
        help="threads of the batch engine",
    )
    ld.add_argument(
        "--out",
        "-o",
        default=None,
        metavar="DIR",
        help="write summary.json, players.csv/.parquet, margins.csv, plots and report.html to DIR "
        "(a folder that holds results is refused: --force replaces them)",
    )
    ld.add_argument("--force", action="store_true", help=FORCE_HELP)
    ld.add_argument(
        "--json", action="store_true", help="print only the summary as one JSON object on stdout"
    )
    add_progress_options(ld)
    from domeng.cli.compare import add_plot_options

    add_plot_options(ld)
    ld.set_defaults(func=cmd_ladder)
    add_config_options(ld)
    add_players_epilog(ld, "tournament")


def cmd_ladder(args) -> int:
    from domeng.cli.tournament import run_duplicate

    return run_duplicate("ladder", args)
