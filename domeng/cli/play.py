"""``domeng play``: the command-line options of the terminal game
(:mod:`domeng.play.terminal`, over a :class:`domeng.play.session.Session`)."""

from __future__ import annotations

import argparse
import random

from domeng.cli.args import UsageError, add_option, add_players_epilog, whole
from domeng.core.defaults import DEFAULT_DELAY, DEFAULT_SEATS
from domeng.core.errors import DomengError
from domeng.players import catalogue


def _arg_seats(text: str) -> list[str]:
    from domeng.play.session import parse_seats  # the game's modules load numba: not for --help

    try:
        return parse_seats(text)
    except DomengError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _arg_delay(text: str) -> float:
    try:
        v = float(text) if text.isascii() and len(text) < 20 else -1.0
    except ValueError:
        v = -1.0
    if not (0 <= v <= 60):
        raise argparse.ArgumentTypeError(f"must be a number of seconds 0..60, got {text[:20]!r}")
    return v


def add_parser(sub) -> None:
    p = sub.add_parser(
        "play",
        help="play Domeng at the terminal with computer players",
        description="Sit at a Domeng table: any seats people (hot-seat on one terminal) or "
        "computer players.  At any prompt: help, rules, save [FILE], quit.  A save "
        "file holds the game's seed: whoever reads it can work out every hand.",
    )
    p.set_defaults(func=run)
    p.add_argument(
        "--seats",
        type=_arg_seats,
        default=None,
        metavar="S,S,S,S,S",
        help="who sits at seats 0..4: human (a person; several make hot-seat play "
        "on one terminal) or a computer player: "
        f"{catalogue.players_help('terminal')} (default {','.join(DEFAULT_SEATS)})",
    )
    add_players_epilog(p, "terminal")
    add_option(p, "--rounds", metavar="N", help="end the game after N rounds")
    p.add_argument(
        "--camats",
        type=whole(1),
        default=None,
        metavar="K",
        help="end the game at the K-th CAMAT (default: the first CAMAT, unless --rounds is given)",
    )
    add_option(
        p,
        "--seed",
        help="seed of the deals and the computer players (default: a random one, "
        "shown when the game is over); the same seed and the same choices give "
        "the same game",
    )
    add_option(p, "--rule", help="set a rule option, e.g. pollo=4 (repeatable; see `domeng rules`)")
    p.add_argument(
        "--delay",
        type=_arg_delay,
        default=DEFAULT_DELAY,
        metavar="SECONDS",
        help=f"pause before each computer move (default {DEFAULT_DELAY})",
    )
    p.add_argument("--no-wait", action="store_true", help="no pause before computer moves")
    p.add_argument(
        "--save",
        default=None,
        metavar="FILE",
        help="save the game to FILE after every move and when you leave (signed "
        "JSON; it holds the seed, so keep it private)",
    )
    p.add_argument(
        "--load",
        default=None,
        metavar="FILE",
        help="resume the game saved in FILE (it fixes seats, seed and rules); it is "
        "then saved back to FILE after every move, unless --save is given",
    )
    p.add_argument(
        "--allow-modified",
        action="store_true",
        help="load a save that was edited (or saved by another user): the game is "
        "then marked MODIFIED on screen and in every later save",
    )


def _session(args: argparse.Namespace, saved, rules):
    """The game's session (a saved game replayed, or a new one) and where it
    is saved (None: nowhere)."""
    from domeng.play.savefile import check_writable, replay_save
    from domeng.play.session import Session

    if saved is not None:
        session = replay_save(args.load, *saved, rounds=args.rounds, camats=args.camats)
        save_path = args.save if args.save is not None else args.load
        if args.save is None:
            try:
                check_writable(save_path)
            except DomengError:
                save_path = None  # a read-only save: played on, saved only when asked
        return session, save_path
    seed_ = args.seed if args.seed is not None else random.SystemRandom().randrange(2**63)
    session = Session(
        args.seats or list(DEFAULT_SEATS),
        rules=rules,
        seed=seed_,
        rounds=args.rounds,
        camats=args.camats,
    )
    return session, args.save


def run(args: argparse.Namespace) -> int:
    """``domeng play``: returns the exit status (0; 2 on bad usage via the CLI)."""
    from domeng.core.rules import Rules
    from domeng.play.savefile import check_writable, read_save_data
    from domeng.play.terminal import Terminal
    from domeng.play.warmup import PREPARING, announce_compiles, warm_up

    delay = 0.0 if args.no_wait else args.delay
    saved = None
    if args.load is not None:
        fixed = [
            name
            for name, given in (
                ("--seats", args.seats is not None),
                ("--seed", args.seed is not None),
                ("--rule", bool(args.rule)),
            )
            if given
        ]
        if fixed:
            raise UsageError(
                f"domeng play: error: {', '.join(fixed)} cannot be combined with "
                "--load (the saved game fixes seats, seed and rules)"
            )
        # a missing, foreign or edited save is refused before anything is prepared
        saved = read_save_data(args.load, allow_modified=args.allow_modified)
    elif args.allow_modified:
        raise UsageError("domeng play: error: --allow-modified goes with --load")
    rules = Rules.parse(args.rule) if saved is None else None  # a bad --rule: refused first
    if args.save is not None:
        check_writable(args.save)  # refused before the game starts
    # a first run compiles the engine (~20 s): said when numba starts compiling
    # (measured, not guessed), and done before the game's first screen
    with announce_compiles(lambda: print(PREPARING, flush=True)):
        session, save_path = _session(args, saved, rules)
        warm_up(session)
    return Terminal(session, delay=delay, save_path=save_path).run()
