"""``domeng play``: the command-line options of the terminal game
(:mod:`domeng.play.terminal`)."""

from __future__ import annotations

import argparse
import random

from domeng.cli.args import UsageError, seed, whole
from domeng.core.errors import DomengError
from domeng.core.rules import Rules
from domeng.play.terminal import DEFAULT_DELAY, DEFAULT_SEATS, Game, parse_seats


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def _arg_seats(text: str) -> list[str]:
    try:
        return parse_seats(text)
    except DomengError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _arg_delay(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not (0 <= v <= 60):
        raise argparse.ArgumentTypeError(f"must be a number of seconds 0..60, got {text!r}")
    return v


def add_parser(sub) -> None:
    p = sub.add_parser("play", help="play Domeng at the terminal with computer players",
                       description="Sit at a Domeng table: any seats people (hot-seat on one "
                                   "terminal) or computer players.  Type help during the game.")
    p.set_defaults(func=run)
    p.add_argument("--seats", type=_arg_seats, default=None, metavar="S,S,S,S,S",
                   help="who sits at seats 0..4: human (a person; several make hot-seat play "
                        "on one terminal) or a computer player: random, heavy, keeper, hunter "
                        f"(default {','.join(DEFAULT_SEATS)})")
    p.add_argument("--rounds", "-r", type=whole(1), default=None, metavar="N",
                   help="end the game after N rounds")
    p.add_argument("--camats", type=whole(1), default=None, metavar="K",
                   help="end the game at the K-th CAMAT (default: the first CAMAT, "
                        "unless --rounds is given)")
    p.add_argument("--seed", "-s", type=seed, default=None, metavar="S",
                   help="seed of the deals and the computer players (default: a random one, "
                        "shown when the game is over); the same seed and the same choices give "
                        "the same game")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                   help="set a rule option, e.g. pollo=4 (repeatable; see `domeng rules`)")
    p.add_argument("--delay", type=_arg_delay, default=DEFAULT_DELAY, metavar="SECONDS",
                   help=f"pause before each computer move (default {DEFAULT_DELAY})")
    p.add_argument("--no-wait", action="store_true", help="no pause before computer moves")
    p.add_argument("--save", default=None, metavar="FILE",
                   help="save the game to FILE (JSON) after every round and when you leave")
    p.add_argument("--load", default=None, metavar="FILE",
                   help="resume the game saved in FILE (it fixes seats, seed and rules)")


def run(args: argparse.Namespace) -> int:
    """``domeng play``: returns the exit status (0, or 2 on bad usage via the CLI)."""
    delay = 0.0 if args.no_wait else args.delay
    if args.load is not None:
        fixed = [name for name, given in (("--seats", args.seats is not None),
                                          ("--seed", args.seed is not None),
                                          ("--rule", bool(args.rule))) if given]
        if fixed:
            raise UsageError(f"domeng play: error: {', '.join(fixed)} cannot be combined with "
                             "--load (the saved game fixes seats, seed and rules)")
        game = Game.load(args.load, rounds=args.rounds, camats=args.camats, delay=delay,
                         save_path=args.save)
    else:
        rules = Rules.parse(args.rule)
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
        game = Game(args.seats or list(DEFAULT_SEATS), rules=rules, seed=seed,
                    rounds=args.rounds, camats=args.camats, delay=delay, save_path=args.save)
    return game.run()
