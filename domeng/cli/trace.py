"""``domeng trace``: the event log of one table of a study, round by round.

Table ``T`` of a study with seed ``S`` and the same players and rules plays
exactly these rounds, so any round of any study can be inspected here and
replayed elsewhere.  With ``--json`` the lines are a ``players`` line (the
five seats' players), then each round's events of :mod:`domeng.core.events`
with every tile id also given as ``"6-4"`` (``tile_name``, ``hands_names``
...), and after each round a ``holdings`` line: the stones each seat holds
after it (D15: none after a CAMAT), the table's and the CAMAT.
"""

from __future__ import annotations

import contextlib
import sys

from domeng.cli.args import add_option, add_progress_options, progress_wanted, whole


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
    add_option(p, "--seed", default=0, help="study seed (default 0)")
    p.add_argument(
        "--table",
        "-t",
        type=whole(0, maximum=2**62),
        default=0,
        metavar="T",
        help="table index in the study (default 0)",
    )
    add_option(
        p, "--rounds", type=whole(1, maximum=10_000), default=1, help="rounds to play (default 1)"
    )
    p.add_argument(
        "--players",
        "-p",
        default=None,
        metavar="P[,P,P,P,P]",
        help="one compiled player for all seats or five (default: the study default)",
    )
    add_option(p, "--rule")
    p.add_argument(
        "--seat",
        type=whole(0, maximum=4),
        default=None,
        metavar="N",
        help="show only what seat N may know: its own hand, public events",
    )
    add_option(
        p,
        "--json",
        help="one JSON object per line: the players, each event (tiles as ids and as "
        '"6-4"), the stones held after each round',
    )
    add_progress_options(p)
    p.set_defaults(func=cmd_trace)


def _tile_name(t: int | None) -> str | None:
    """A tile as ``"6-4"`` (high number first), None for none."""
    from domeng.core.tiles import numbers

    if t is None:
        return None
    hi, lo = numbers(t)
    return f"{hi}-{lo}"


def named_tiles(ev: dict) -> dict:
    """An event's JSON form with each tile id also given as ``"6-4"``, right after it
    (``tile_name``, ``must_lead_name``, ``hands_names``, ``out_names``; a
    hidden hand stays None)."""
    out = {}
    for key, v in ev.items():
        out[key] = v
        if key in ("tile", "must_lead"):
            out[f"{key}_name"] = _tile_name(v)
        elif key == "out":
            out["out_names"] = None if v is None else [_tile_name(t) for t in v]
        elif key == "hands":
            out["hands_names"] = [None if h is None else [_tile_name(t) for t in h] for h in v]
    return out


def holdings(rec, rules) -> dict:
    """The stones after a round, from its record (:mod:`domeng.core.layout`):
    each seat's (after a CAMAT's return, D15), the table's and the CAMAT."""
    from domeng.core import layout as L

    held = [int(rec[L.seat_col(s, L.SC_STONES)]) for s in range(L.N_SEATS)]
    return {
        "type": "holdings",
        "round": int(rec[L.RC_ROUND]),
        "stones": held,
        "table_stones": int(rules.stones - sum(held)),
        "camat": None if rec[L.RC_CAMAT] < 0 else int(rec[L.RC_CAMAT]),
    }


def cmd_trace(args) -> int:
    import json

    from domeng.batch.tables import trace_table_records
    from domeng.core.defaults import DEFAULT_PLAYERS
    from domeng.core.events import for_seat, from_dict, render_events, to_dict, to_json_lines
    from domeng.core.rules import Rules
    from domeng.infra.progress import CompileNotice
    from domeng.study.names import resolve_names_safely

    rules = Rules.parse(args.rule)
    players = args.players or ",".join(DEFAULT_PLAYERS)
    # a first run compiles the trace kernel (seconds): said on stderr, unless --json
    notice = CompileNotice() if progress_wanted(args) else contextlib.nullcontext()
    with notice:
        rounds, _, _, recs = trace_table_records(players, rules, args.seed, args.table, args.rounds)
    out = sys.stdout
    if args.json:
        names = list(resolve_names_safely(players))
        out.write(json.dumps({"type": "players", "players": names}) + "\n")
    for dicts, rec in zip(rounds, recs):
        events = [from_dict(e) for e in dicts]  # read typed; JSON again only to write it
        if args.seat is not None:
            events = [for_seat(e, args.seat) for e in events]
        if args.json:
            out.write(to_json_lines(named_tiles(to_dict(e)) for e in events))
            out.write(json.dumps(holdings(rec, rules)) + "\n")
        else:
            out.write(render_events(events) + "\n\n")
    return 0
