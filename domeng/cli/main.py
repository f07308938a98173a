"""The ``domeng`` command: ``simulate``, ``report``, ``rules``.

Exit status: 0 on success; 2 on bad usage or bad input (one line on
stderr, ``domeng: error: ...`` or ``domeng simulate: error: ...``, no
traceback); 130 when interrupted.  Progress goes to stderr, results to stdout.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from domeng.core.errors import DomengError
from domeng.study.simulate import DEFAULT_PLAYERS, DEFAULT_ROUNDS, DEFAULT_TABLES

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad command-line usage (reported as one line, exit 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line instead of usage + message
        raise UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")


def _whole(minimum: int, name: str = "a whole number", maximum: int = 10**9):
    def conv(text: str) -> int:
        try:
            v = int(text.replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {name} >= {minimum}, got {text!r}") from None
        if v < minimum or v > maximum:
            raise argparse.ArgumentTypeError(
                f"must be {name} from {minimum} to {maximum:,}, got {text!r}")
        return v
    return conv


def _seed(text: str) -> int:
    """A seed: a whole number 0 <= seed < 2**64."""
    try:
        v = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {text!r}") from None
    if not 0 <= v < 2**64:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 2**64 - 1, "
                                         f"got {text!r}")
    return v


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text or type(e).__name__


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="domeng", description="Domeng, the five-player domino game of South "
                "Sulawesi: Monte Carlo studies of its rules and strategies.")
    from domeng.results.results import package_version

    p.add_argument("--version", action="version", version=f"domeng {package_version()}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")

    s = sub.add_parser(
        "simulate", help="play many tables and summarise them",
        description="Play TABLES independent tables of ROUNDS rounds each and print a summary "
                    "(every estimate with a 95%% confidence half-width across tables). "
                    f"Default: {DEFAULT_TABLES} tables x {DEFAULT_ROUNDS} rounds, players "
                    f"{','.join(DEFAULT_PLAYERS)}.")
    s.add_argument("--tables", "-t", type=_whole(1), default=None, metavar="T",
                   help=f"number of independent tables (games) (default {DEFAULT_TABLES})")
    s.add_argument("--rounds", "-r", type=_whole(1), default=None, metavar="R",
                   help=f"rounds per table (default {DEFAULT_ROUNDS})")
    s.add_argument("--players", "-p", default=None, metavar="P[,P,P,P,P]",
                   help="one player for all seats or five, seat 0..4: random, heavy, keeper, "
                        "hunter, search, search-N, or module:function for your own compiled "
                        f"player (default {','.join(DEFAULT_PLAYERS)})")
    s.add_argument("--seed", "-s", type=_seed, default=None, metavar="S",
                   help="study seed (default 0); the same seed gives the same numbers")
    s.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                   help="set a rule option, e.g. passebunge_every_pass=false or pollo=4 "
                        "(repeatable; see `domeng rules`)")
    s.add_argument("--workers", "-w", type=_whole(1), default=None, metavar="N",
                   help="threads of the batch engine (default: its own; results do not depend on it)")
    s.add_argument("--chunk-tables", type=_whole(1), default=None, metavar="N",
                   help="tables per engine call (default: about 200,000 rounds; results do not "
                        "depend on it)")
    s.add_argument("--out", "-o", default=None, metavar="DIR",
                   help="write summary.json, tables (Parquet, CSV), plots (PNG), report.html and "
                        "results.npz to DIR; each finished chunk is saved there as it completes, "
                        "so a crashed run can be continued with --resume DIR (an existing "
                        "results folder is replaced)")
    s.add_argument("--records", action="store_true",
                   help="also write one row per table-round to DIR/records.parquet (needs --out)")
    s.add_argument("--json", action="store_true",
                   help="print only the summary as one JSON object on stdout")
    s.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    s.add_argument("--resume", default=None, metavar="DIR",
                   help="continue the unfinished study in DIR (written by --out DIR) after a crash "
                        "or kill: only missing chunks are played; the study's parameters come from "
                        "DIR/manifest.json (any given must match)")
    s.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="run the chunks on the Dask cluster of this scheduler (see docs/cluster.md)")
    s.add_argument("--cluster", default=None, metavar="local:N",
                   help="start a local Dask cluster of N worker processes (1 thread each) for "
                        "this study, and stop it at the end")
    s.set_defaults(func=cmd_simulate)

    r = sub.add_parser("report", help="render tables, plots and report.html again from a results folder",
                       description="Load a results folder written by `domeng simulate --out DIR` and "
                                   "write its tables, plots and report.html again.")
    r.add_argument("dir", metavar="DIR", help="results folder")
    r.add_argument("--json", action="store_true", help="print only the summary JSON on stdout")
    r.set_defaults(func=cmd_report)

    ru = sub.add_parser("rules", help="print the rules: terms, decisions, options and defaults",
                        description="Print the card's terms, the decisions D1..D17 and every rule "
                                    "option with its default.")
    ru.add_argument("--json", action="store_true", help="print the options' defaults as JSON")
    ru.set_defaults(func=cmd_rules)

    from domeng.play import terminal as _play

    pl = sub.add_parser("play", help="play Domeng at the terminal with computer players",
                        description="Sit at a Domeng table: any seats people (hot-seat on one "
                                    "terminal) or computer players.  Type help during the game.")
    _play.add_arguments(pl)
    pl.set_defaults(func=_play.run)

    tn = sub.add_parser(
        "tournament", help="rank five players in a duplicate tournament",
        description="Play DEALS games of ROUNDS rounds, each once for every rotation of the "
                    "five players around the table (the same deals each time), and rank the "
                    "players by net stones per round with 95%% confidence intervals.")
    tn.add_argument("--players", "-p", required=True, metavar="A,B,C,D,E",
                    help="five players: random, heavy, keeper, hunter, search, search-N "
                         "(N samples per move) or module:function (a compiled player)")
    tn.add_argument("--deals", "-d", type=_whole(1, maximum=10**6), default=200, metavar="N",
                    help="games played in every rotation (default 200)")
    tn.add_argument("--rounds", "-r", type=_whole(1), default=10, metavar="R",
                    help="rounds per game (default 10)")
    tn.add_argument("--seed", "-s", type=_seed, default=0, metavar="S", help="seed (default 0)")
    tn.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                    help="set a rule option (repeatable; see `domeng rules`)")
    tn.add_argument("--workers", "-w", type=_whole(1), default=None, metavar="N",
                    help="threads of the batch engine")
    tn.add_argument("--out", "-o", default=None, metavar="DIR",
                    help="write summary.json, players.csv/.parquet, margins.csv, plots and "
                         "report.html to DIR")
    tn.add_argument("--json", action="store_true",
                    help="print only the summary as one JSON object on stdout")
    tn.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    tn.set_defaults(func=cmd_tournament)
    return p


# ---------------------------------------------------------------- commands
def cmd_simulate(args) -> int:
    from domeng.study.cluster import client_for
    from domeng.results.report import render
    from domeng.core.rules import Rules
    from domeng.study.simulate import simulate

    if args.scheduler and args.cluster:
        raise UsageError("domeng simulate: error: give either --scheduler or --cluster, not both")
    if args.workers is not None and (args.scheduler or args.cluster):
        raise UsageError("domeng simulate: error: --workers sets local engine threads; with "
                         "--scheduler or --cluster each task uses its worker's threads")
    if args.resume is not None:
        if args.out is not None and Path(args.out).resolve() != Path(args.resume).resolve():
            raise UsageError("domeng simulate: error: --resume DIR writes its results into DIR; "
                             "do not give another --out")
        from domeng.study.checkpoint import Checkpoint, resume

        Checkpoint.open(args.resume)  # refuse a folder it cannot resume before any cluster starts
        expect = dict(tables=args.tables, rounds=args.rounds, seed=args.seed, players=args.players,
                      chunk_tables=args.chunk_tables,
                      rules=Rules.parse(args.rule) if args.rule else None,
                      records=True if args.records else None)
        with client_for(args.scheduler, args.cluster) as client:
            res = resume(args.resume, client=client, workers=args.workers,
                         progress=not args.no_progress, **expect)
        out = args.resume
        render(res, out)
    else:
        if args.records and args.out is None:
            raise UsageError("domeng simulate: error: --records needs --out DIR")
        rules = Rules.parse(args.rule)  # fail fast, before any output folder exists
        kwargs = dict(tables=DEFAULT_TABLES if args.tables is None else args.tables,
                      rounds=DEFAULT_ROUNDS if args.rounds is None else args.rounds,
                      players=",".join(DEFAULT_PLAYERS) if args.players is None else args.players,
                      rules=rules, seed=0 if args.seed is None else args.seed,
                      workers=args.workers, chunk_tables=args.chunk_tables,
                      progress=not args.no_progress)
        out = args.out
        if out is not None:
            _check_out(out)
        with client_for(args.scheduler, args.cluster) as client:
            if out is None:
                res = simulate(client=client, **kwargs)
            else:
                # checkpointed: chunks are saved in DIR as they finish (--resume DIR continues)
                res = simulate(client=client, checkpoint=out,
                               records=(Path(out) / "records.parquet") if args.records else None,
                               **kwargs)
        if out is not None:
            render(res, out)
    if args.json:
        print(res.to_json())
    else:
        sys.stdout.write(res.to_text())
        secs = res.meta.get("elapsed_seconds")
        if secs:
            print(f"\n{res.total_rounds:,} rounds in {secs:.1f} s "
                  f"({res.total_rounds / secs:,.0f} rounds/s)")
        if out is not None:
            print(f"results: {out}  (report: {Path(out) / 'report.html'})")
    return 0


def _check_out(out: str) -> None:
    """Refuse an --out folder that a new study may not use, before a cluster starts."""
    from domeng.study.checkpoint import CheckpointError, MANIFEST
    from domeng.results.results import ResultsError

    p = Path(out)
    if p.exists() and not p.is_dir():
        raise ResultsError(f"cannot write results to {out!r}: it is a file")
    if p.is_dir() and not (p / "results.npz").exists():
        names = [q.name for q in p.iterdir()]
        if MANIFEST in names:
            raise CheckpointError(f"{out!r} holds an unfinished study: continue it with "
                                  f"`domeng simulate --resume {out}`, or delete the folder")
        if names:
            raise ResultsError(f"refusing to write results to {out!r}: the folder exists and "
                               "holds something other than domeng results")


def cmd_report(args) -> int:
    from domeng.results.report import render
    from domeng.results.results import Results, ResultsError

    res = Results.load(args.dir)
    try:
        res.write_files(args.dir)
        paths = render(res, args.dir)
    except OSError as e:
        raise ResultsError(f"cannot write the report into {args.dir!r}: {e.strerror or e}") from None
    if args.json:
        print(res.to_json())
    else:
        sys.stdout.write(res.to_text())
        print(f"\nreport: {paths['report']}")
    return 0


def cmd_rules(args) -> int:
    from domeng.core.rules import Rules

    if args.json:
        import json

        print(json.dumps(Rules().to_dict(), indent=2))
        return 0
    from domeng.core.ruletext import rules_text

    sys.stdout.write(rules_text())
    return 0


# ---------------------------------------------------------------- main
def cmd_tournament(args) -> int:
    import json

    from domeng.core.rules import Rules
    from domeng.study.tournament import check_out, tournament

    rules = Rules.parse(args.rule)
    if args.out:
        check_out(args.out)  # before the tournament is played, not after
    res = tournament(args.players, deals=args.deals, rounds=args.rounds, seed=args.seed,
                     rules=rules, workers=args.workers,
                     progress=False if (args.no_progress or args.json) else None)
    if args.out:
        res.save(args.out)
    if args.json:
        print(json.dumps(res.summary()))
    else:
        print(res.to_text())
        if args.out:
            print(f"results written to {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the ``domeng`` command with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    parser = build_parser()
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as e:  # --help, --version
            return e.code if isinstance(e.code, int) else (0 if e.code is None else EXIT_USAGE)
        if args.command is None:
            raise UsageError("domeng: error: choose a command: simulate, tournament, report, rules or play "
                             "(see domeng --help)")
        return args.func(args)
    except UsageError as e:
        print(_one_line(e), file=sys.stderr)
        return EXIT_USAGE
    except DomengError as e:
        print(f"domeng: error: {_one_line(e)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
    except OSError as e:
        where = f" {e.filename!r}" if getattr(e, "filename", None) else ""
        print(f"domeng: error:{where} {e.strerror or _one_line(e)}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError:
        print("domeng: error: not enough memory for this study; use fewer tables or chunk it "
              "(--chunk-tables)", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\ndomeng: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
