"""``domeng trace``: the event log of one table of a study, round by round.

Table ``T`` of a study with seed ``S`` and the same players and rules plays
exactly these rounds, so any round of any study can be inspected here and
replayed elsewhere (the JSON lines are the events of
:mod:`domeng.core.events`).
"""

from __future__ import annotations

import contextlib
import sys

from domeng.cli.args import add_progress_options, progress_wanted, seed, whole


def add_parser(sub) -> None:
    p = sub.add_parser(
        "trace",
        help="print the event log of one table of a study",
        description="Play table T of a study (seed, players, rules) for R rounds and print "
        "every event: the deal, each lead, play and PASS/PASSEBUNGE, every stone "
        "moved and why, how each round ended, CAMAT.  The log shows every hand "
        "(it is the study's, not a seat's view); --seat N shows only what seat N "
        "may know (D17).",
    )
    p.add_argument("--seed", "-s", type=seed, default=0, metavar="S", help="study seed (default 0)")
    p.add_argument(
        "--table",
        "-t",
        type=whole(0, maximum=2**62),
        default=0,
        metavar="T",
        help="table index in the study (default 0)",
    )
    p.add_argument(
        "--rounds",
        "-r",
        type=whole(1, maximum=10_000),
        default=1,
        metavar="R",
        help="rounds to play (default 1)",
    )
    p.add_argument(
        "--players",
        "-p",
        default=None,
        metavar="P[,P,P,P,P]",
        help="one compiled player for all seats or five (default: the study default)",
    )
    p.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a rule option (repeatable; see `domeng rules`)",
    )
    p.add_argument(
        "--seat",
        type=whole(0, maximum=4),
        default=None,
        metavar="N",
        help="show only what seat N may know: its own hand, public events",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per event, per line")
    add_progress_options(p)
    p.set_defaults(func=cmd_trace)


def cmd_trace(args) -> int:
    from domeng.batch.tables import trace_table
    from domeng.core.defaults import DEFAULT_PLAYERS
    from domeng.core.events import for_seat, render_events, to_json_lines
    from domeng.core.rules import Rules
    from domeng.infra.progress import CompileNotice

    rules = Rules.parse(args.rule)
    players = args.players or ",".join(DEFAULT_PLAYERS)
    # a first run compiles the trace kernel (seconds): said on stderr, unless --json
    notice = CompileNotice() if progress_wanted(args) else contextlib.nullcontext()
    with notice:
        rounds, _, _ = trace_table(players, rules, args.seed, args.table, args.rounds)
    out = sys.stdout
    for events in rounds:
        if args.seat is not None:
            events = [for_seat(e, args.seat) for e in events]
        if args.json:
            out.write(to_json_lines(events))
        else:
            out.write(render_events(events) + "\n\n")
    return 0
