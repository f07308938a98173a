"""``domeng ladder``: rank five or more players in duplicate matches."""

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
        help=players_help("five to twelve players", "tournament"),
    )
    ld.add_argument(
        "--deals",
        "-d",
        type=whole(1, maximum=10**6),
        default=100,
        metavar="N",
        help="games played by every lineup in every seating (default 100)",
    )
    add_option(ld, "--rounds", default=10, help="rounds per game (default 10)")
    add_option(ld, "--seed", default=0, help="seed (default 0)")
    add_option(ld, "--rule")
    ld.add_argument(
        "--orders",
        choices=("all", "balanced", "rotations"),
        default="all",
        help="seating design of each lineup (see `domeng tournament --help`)",
    )
    add_option(ld, "--workers")
    add_option(
        ld,
        "--out",
        help="write summary.json, players.csv/.parquet, margins.csv, plots and report.html to DIR "
        "(a folder that holds results is refused: --force replaces them)",
    )
    add_option(ld, "--force")
    add_option(ld, "--json")
    add_progress_options(ld)
    from domeng.cli.compare import add_plot_options

    add_plot_options(ld)
    ld.set_defaults(func=cmd_ladder)
    add_config_options(ld)
    add_players_epilog(ld, "tournament")


def cmd_ladder(args) -> int:
    from domeng.cli.tournament import run_duplicate

    return run_duplicate("ladder", args)
