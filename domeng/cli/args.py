"""Shared pieces of the ``domeng`` command line: the one-line parser, and
the converters of counts and seeds that every command uses."""

from __future__ import annotations

import argparse
import re
import textwrap

from domeng.core.errors import UsageError
from domeng.players import catalogue


def players_help(what: str, place: str = "study") -> str:
    """The ``--players`` help of a command: ``what`` (e.g. "five players"),
    then every built-in player that may sit at ``place``, from the one
    catalogue (:mod:`domeng.players.catalogue`, so a new player is listed
    everywhere; argparse ``%``-formats the help)."""
    return f"{what}: {catalogue.players_help(place)}".replace("%", "%%")


def add_players_epilog(parser: argparse.ArgumentParser, place: str = "study") -> None:
    """End ``parser``'s help with one line per player that may sit at
    ``place``: the catalogue's own description, budget range and options."""
    lines = "\n".join(f"  {s}" for s in catalogue.describe(place, plugins=False).values())
    parser.epilog = f"players ({catalogue.PLACES[place]}; see docs/players.md):\n{lines}"
    parser.formatter_class = _EpilogFormatter


class _EpilogFormatter(argparse.HelpFormatter):
    """argparse's formatter, except that text lines indented by two spaces
    (the players of the epilog) stay one item each, wrapped under themselves."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n  " not in text:
            return super()._fill_text(text, width, indent)
        head, *items = text.split("\n  ")
        out = [super()._fill_text(head, width, indent)]
        for item in items:
            out.append(
                textwrap.fill(
                    " ".join(item.split()),
                    width,
                    initial_indent=indent + "  ",
                    subsequent_indent=indent + "      ",
                    break_on_hyphens=False,
                    break_long_words=False,
                )
            )
        return "\n".join(out)


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line instead of usage + message
        raise UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")

    def parse_args(self, args=None, namespace=None):
        """As argparse's, but an unknown option is reported by the command it
        was given to (``domeng simulate: error: unrecognized arguments:
        --foo (see domeng simulate --help)``), not by ``domeng``."""
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            self._command_parser(ns).error(f"unrecognized arguments: {' '.join(extras)}")
        return ns

    def parse_known_args(self, args=None, namespace=None):
        """As argparse's; a command with ``--config FILE`` takes the file's
        values as its defaults (:mod:`domeng.cli.config`: the command line wins)."""
        if not any(a.dest == "config" for a in self._actions):
            return super().parse_known_args(args, namespace)
        from domeng.cli.config import parse_with_config

        return parse_with_config(self, super().parse_known_args, args, namespace)

    def _command_parser(self, ns: argparse.Namespace) -> argparse.ArgumentParser:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                command = getattr(ns, action.dest, None)
                if command in action.choices:
                    return action.choices[command]
        return self


def whole(minimum: int, name: str = "a whole number", maximum: int = 10**9):
    def conv(text: str) -> int:
        try:
            v = _ascii_int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {name} >= {minimum}, got {text!r}") from None
        if v < minimum or v > maximum:
            raise argparse.ArgumentTypeError(
                f"must be {name} from {minimum} to {maximum:,}, got {text!r}"
            )
        return v

    return conv


#: a Dask scheduler's address: [SCHEME://]HOST:PORT (checked before dask is imported)
_ADDRESS = re.compile(
    r"^(?:(?P<scheme>[A-Za-z]+)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s/:\[\]]+)"
    r":(?P<port>[0-9]{1,5})$"
)
_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")


def scheduler_address(text: str) -> str:
    """A Dask scheduler's address ``[tcp|tls|ws|wss|ucx://]HOST:PORT``; a
    malformed one is a usage mistake (exit 2), not a cluster that cannot be
    reached (exit 1)."""
    m = _ADDRESS.match(text.strip())
    if (
        m is None
        or not 1 <= int(m["port"]) <= 65535
        or (m["scheme"] is not None and m["scheme"].lower() not in _SCHEMES)
    ):
        raise argparse.ArgumentTypeError(
            f"must be a Dask scheduler address like tcp://HOST:PORT, got {text!r}"
        )
    return text.strip()


def seed(text: str) -> int:
    """A seed: a whole number 0 <= seed < 2**64."""
    try:
        v = _ascii_int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {text!r}") from None
    if not 0 <= v < 2**64:
        raise argparse.ArgumentTypeError(
            f"must be a whole number from 0 to 2**64 - 1, got {text!r}"
        )
    return v


def _ascii_int(text: str) -> int:
    """A whole number in ASCII digits (``int`` alone accepts Unicode digits
    and thousands of them: refused here, over 40 digits)."""
    t = text.strip().replace("_", "")
    if not t.isascii() or len(t) > 40:
        raise ValueError(text)
    return int(t)


def one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text or type(e).__name__


#: the help of ``--force`` in every command that writes a study folder (issue 23)
FORCE_HELP = "replace the results already in --out DIR (without it such a folder is refused)"


def add_progress_options(parser: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--no-progress`` of every command that plays a study
    (read by :func:`progress_wanted`)."""
    g = parser.add_mutually_exclusive_group()
    g.add_argument(
        "--progress",
        action="store_true",
        help="show the progress on stderr even with --json (where stderr is not a "
        "terminal: a plain line at most every 10 s)",
    )
    g.add_argument("--no-progress", action="store_true", help="no progress on stderr")


def progress_wanted(args: argparse.Namespace) -> bool:
    """Show the progress?  ``--progress`` forces it; ``--no-progress`` and
    ``--json`` (nothing on stderr unless asked) silence it; otherwise yes (a
    bar on a terminal, plain lines in a log: :mod:`domeng.infra.progress`)."""
    if getattr(args, "progress", False):
        return True
    return not (getattr(args, "no_progress", False) or getattr(args, "json", False))


#: the options that several commands share, each defined once: its short
#: flag and how it is read (``add_option`` adds one; a command passes its
#: own help, and a default or type where it differs)
COMMON_OPTIONS: dict[str, tuple[tuple[str, ...], dict]] = {
    "--tables": (("-t",), {"type": whole(1), "default": None, "metavar": "T"}),
    "--rounds": (("-r",), {"type": whole(1), "default": None, "metavar": "R"}),
    "--seed": (("-s",), {"type": seed, "default": None, "metavar": "S"}),
    "--workers": (
        ("-w",),
        {"type": whole(1), "default": None, "metavar": "N", "help": "threads of the batch engine"},
    ),
    "--rule": (
        (),
        {
            "action": "append",
            "default": [],
            "metavar": "NAME=VALUE",
            "help": "set a rule option (repeatable; see `domeng rules`)",
        },
    ),
    "--out": (("-o",), {"default": None, "metavar": "DIR"}),
    "--force": ((), {"action": "store_true", "help": FORCE_HELP}),
    "--json": (
        (),
        {"action": "store_true", "help": "print only the summary as one JSON object on stdout"},
    ),
}


def add_option(parser: argparse.ArgumentParser, flag: str, **given) -> None:
    """Add the shared option ``flag`` (a key of :data:`COMMON_OPTIONS`) to
    ``parser``; ``given`` overrides its help, default, type or metavar."""
    short, spec = COMMON_OPTIONS[flag]
    parser.add_argument(flag, *short, **{**spec, **given})
