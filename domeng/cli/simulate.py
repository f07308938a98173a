"""``domeng simulate``: play many tables and summarise them."""

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
    scheduler_address,
    whole,
)
from domeng.cli.compare import add_plot_options, add_target_options
from domeng.cli.config import add_config_options, spec_from_args
from domeng.core.defaults import DEFAULT_PLAYERS, DEFAULT_ROUNDS, DEFAULT_TABLES


def add_parser(sub) -> None:
    s = sub.add_parser(
        "simulate",
        help="play many tables and summarise them",
        description="Play TABLES independent tables of ROUNDS rounds each and print a summary "
        "(every estimate with a 95% confidence half-width across tables). "
        f"Default: {DEFAULT_TABLES} tables x {DEFAULT_ROUNDS} rounds, players "
        f"{','.join(DEFAULT_PLAYERS)}.",
    )
    add_option(
        s, "--tables", help=f"number of independent tables (games) (default {DEFAULT_TABLES})"
    )
    add_option(s, "--rounds", help=f"rounds per table (default {DEFAULT_ROUNDS})")
    s.add_argument(
        "--players",
        "-p",
        default=None,
        metavar="P[,P,P,P,P]",
        help=players_help("one player for all seats or five, seat 0..4")
        + f" (default {','.join(DEFAULT_PLAYERS)})",
    )
    add_option(s, "--seed", help="study seed (default 0); the same seed gives the same numbers")
    add_option(
        s,
        "--rule",
        help="set a rule option, e.g. passebunge_every_pass=false or pollo=4 "
        "(repeatable; see `domeng rules`)",
    )
    add_option(
        s,
        "--workers",
        help="threads of the batch engine (default: its own; results do not depend on it)",
    )
    s.add_argument(
        "--chunk-tables",
        type=whole(1),
        default=None,
        metavar="N",
        help="tables per engine call (default: about 200,000 rounds; results do not depend on it)",
    )
    _add_output_options(s)
    _add_cluster_options(s)
    add_target_options(s)
    s.add_argument(
        "--list-metrics",
        action="store_true",
        help="print the metric names (for --target-ci) and exit",
    )
    add_plot_options(s)
    s.set_defaults(func=cmd_simulate)
    add_config_options(s)
    add_players_epilog(s, "study")


def _add_output_options(s) -> None:
    """The study folder, records, JSON, progress and --resume of ``domeng simulate``."""
    add_option(
        s,
        "--out",
        help="write summary.json, tables (Parquet, CSV), plots (PNG), report.html and "
        "results.npz to DIR; each finished chunk is saved there as it completes, "
        "so a crashed run can be continued with --resume DIR (a folder that holds "
        "a study already is refused: --force replaces it)",
    )
    add_option(s, "--force")
    s.add_argument(
        "--records",
        action="store_true",
        help="also write one row per table-round to DIR/records.parquet and one per "
        "table-round-seat to DIR/records_seats.parquet (needs --out)",
    )
    add_option(s, "--json")
    add_progress_options(s)
    s.add_argument(
        "--resume",
        default=None,
        metavar="DIR",
        help="continue the unfinished study in DIR (written by --out DIR) after a crash "
        "or kill: only missing chunks are played; the study's parameters come from "
        "DIR/manifest.json (any given must match)",
    )


def _add_cluster_options(s) -> None:
    """The Dask cluster of ``domeng simulate`` (see docs/cluster.md)."""
    s.add_argument(
        "--scheduler",
        default=None,
        metavar="tcp://HOST:PORT",
        type=scheduler_address,
        help="run the chunks on the Dask cluster of this scheduler (see docs/cluster.md)",
    )
    s.add_argument(
        "--cluster",
        default=None,
        metavar="local:N",
        help="start a local Dask cluster of N worker processes (1 thread each) for "
        "this study, and stop it at the end (secured with temporary TLS "
        "credentials; see docs/security.md)",
    )
    s.add_argument(
        "--dashboard",
        action="store_true",
        help="with --cluster: also serve the Dask dashboard (on 127.0.0.1, a free "
        "port; off by default)",
    )
    s.add_argument(
        "--stall-timeout",
        type=whole(1, maximum=10**6),
        default=600,
        metavar="S",
        help="with a cluster: fail (the checkpoint intact) when no chunk finishes "
        "for S seconds (default 600)",
    )


def cmd_simulate(args) -> int:
    from domeng.core.rules import Rules
    from domeng.study.cluster import client_for
    from domeng.study.runtime import Runtime
    from domeng.study.simulate import run_simulate

    if args.list_metrics:
        from domeng.study.names import resolve_names_safely
        from domeng.study.sequential import known_metrics

        players = ",".join(DEFAULT_PLAYERS) if args.players is None else args.players
        lineup = tuple(resolve_names_safely(players))
        print("\n".join(known_metrics({"study": (Rules.parse(args.rule), lineup)})))
        return 0
    if args.dashboard and not args.cluster:
        raise UsageError("domeng simulate: error: --dashboard goes with --cluster local:N")
    if args.scheduler and args.cluster:
        raise UsageError("domeng simulate: error: give either --scheduler or --cluster, not both")
    if args.workers is not None and (args.scheduler or args.cluster):
        raise UsageError(
            "domeng simulate: error: --workers sets local engine threads; with "
            "--scheduler or --cluster each task uses its worker's threads"
        )
    if args.max_rounds is not None and not args.target_ci and args.resume is None:
        raise UsageError(
            "domeng simulate: error: --max-rounds caps a study that stops on the "
            "data; give --target-ci too"
        )
    if args.dry_run:
        from domeng.cli.config import dry_run

        return dry_run("simulate", args, _check_out)
    if args.resume is not None:
        if args.out is not None and Path(args.out).resolve() != Path(args.resume).resolve():
            raise UsageError(
                "domeng simulate: error: --resume DIR writes its results into DIR; "
                "do not give another --out"
            )
        from domeng.study.checkpoint import Checkpoint, resume
        from domeng.study.names import modules_named, resolve_names_safely

        # refuse a folder it cannot resume before any cluster starts; a player module named
        # in its manifest is imported only if the user names the players again
        allow = modules_named(resolve_names_safely(args.players)) if args.players else False
        with Checkpoint.open(args.resume, allow_import=allow) as ck:
            sequential = bool(ck.manifest.get("sequential"))
        if sequential or args.target_ci or args.max_rounds is not None:
            return _sequential(args, allow)
        expect = dict(
            tables=args.tables,
            rounds=args.rounds,
            seed=args.seed,
            players=args.players,
            chunk_tables=args.chunk_tables,
            rules=Rules.parse(args.rule) if args.rule else None,
            records=True if args.records else None,
        )
        with client_for(args.scheduler, args.cluster, args.dashboard) as client:
            res = resume(
                args.resume,
                client=client,
                workers=args.workers,
                progress=progress_wanted(args),
                stall_seconds=args.stall_timeout,
                **expect,
            )
        out = args.resume
        _render(res, out, args)
    elif args.target_ci:
        return _sequential(args)
    else:
        if args.records and args.out is None:
            raise UsageError("domeng simulate: error: --records needs --out DIR")
        Rules.parse(args.rule)  # fail fast, before any output folder exists
        spec = spec_from_args("simulate", args)
        out = args.out
        if out is not None:
            _check_out(out, args.force)  # checkpointed: --resume DIR continues
        with client_for(args.scheduler, args.cluster, args.dashboard) as client:
            runtime = Runtime(
                progress=progress_wanted(args),
                client=client,
                stall_seconds=args.stall_timeout,
                overwrite=args.force,
            )
            res = run_simulate(spec, runtime)
        if out is not None:
            _render(res, out, args, command=True)
    return _print(res, args, out)


def _render(res, out, args, command: bool = False) -> None:
    """Write the reports of ``res`` into ``out`` (their libraries load only
    here: a study printed with --json needs none of them)."""
    from domeng.infra.fs import FolderLock
    from domeng.results.report import render

    if command:
        from domeng.results.html import command_line

        res.meta["command"] = command_line(args.argv)
    if progress_wanted(args):  # the plots take seconds after the bar's 100%: say so
        print(f"writing the report and its figures to {out} ...", file=sys.stderr, flush=True)
    with FolderLock(out):  # one writer at a time (issue 23)
        render(res, out, args.format, args.dpi)


def _print(res, args, out) -> int:
    if args.json:
        print(res.to_json())
    else:
        sys.stdout.write(res.to_text())
        secs, compiling = res.meta.get("elapsed_seconds"), res.meta.get("compile_seconds")
        if secs:
            from domeng.core.wording import counted

            print(
                f"\n{counted(res.total_rounds, 'round', ',')} in {secs:.1f} s "
                f"({res.total_rounds / secs:,.0f} rounds/s)"
                + (
                    f" + {compiling:.1f} s compiling the engine (first run only)"
                    if compiling and compiling >= 0.05  # measured (domeng.core.compiling)
                    else ""
                )
            )
        if out is not None:
            print(f"results: {out}  (report: {Path(out) / 'report.html'})")
    return 0


def _sequential(args, allow_import=None) -> int:
    """--target-ci: play blocks of tables until the targets are met; with
    --out DIR each chunk is saved there, and --resume DIR (``allow_import``
    given) goes on to the same stopping point."""
    from domeng.core.rules import Rules
    from domeng.study.names import resolve_names_safely
    from domeng.study.sequential import (
        known_metrics,
        parse_targets,
        resume_until,
        run_simulate_until,
    )

    for flag, v in (
        ("--records", args.records or None),
        ("--scheduler", args.scheduler),
        ("--cluster", args.cluster),
        ("--tables", args.tables),
        ("--chunk-tables", args.chunk_tables),
    ):
        if v is not None:
            raise UsageError(
                f"domeng simulate: error: {flag} cannot be used with a study that "
                "stops on the data (--target-ci sets its own size; cap it with "
                "--max-rounds)"
            )
    rules = Rules.parse(args.rule) if args.rule else None
    if allow_import is not None:
        out = args.resume
        res = resume_until(
            out,
            dict(
                rounds=args.rounds,
                seed=args.seed,
                players=args.players,
                rules=rules,
                target_ci=args.target_ci or None,
                max_rounds=args.max_rounds,
            ),
            workers=args.workers,
            progress=progress_wanted(args),
            allow_import=allow_import,
        )
    else:
        from domeng.study.runtime import Runtime

        out = args.out
        if out is not None:
            _check_out(out, args.force)
        players = ",".join(DEFAULT_PLAYERS) if args.players is None else args.players
        arm = (rules or Rules(), tuple(resolve_names_safely(players)))
        parse_targets(args.target_ci, known_metrics({"study": arm}))  # in its own words
        runtime = Runtime(progress=progress_wanted(args), overwrite=args.force)
        res = run_simulate_until(spec_from_args("simulate", args), runtime)
    if out is not None:
        _render(res, out, args, command=allow_import is None)
    return _print(res, args, out)


def _check_out(out: str, force: bool = False) -> None:
    """Refuse an --out folder that a new study may not use, before a cluster starts."""
    from domeng.study.checkpoint import check_new_output

    check_new_output(out, force)
