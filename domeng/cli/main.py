"""The ``domeng`` command.  Each command lives in its own module of this
package (``domeng/cli/<command>.py``) with ``add_parser(sub)``; the modules
import their heavy dependencies inside the command, so ``domeng --help`` stays
fast.

Exit status: 0 on success; 2 on bad usage or bad input (one line on
stderr, ``domeng: error: ...`` or ``domeng simulate: error: ...``, no
traceback); 1 when the machine stopped the work (a full disk, a
permission, a cluster lost or stalled: one line too); 130 when interrupted.  Progress goes to stderr, results to stdout.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from domeng.cli.args import Parser, UsageError, one_line
from domeng.core.errors import DomengError, is_environment_failure

EXIT_USAGE = 2
EXIT_ENVIRONMENT = 1

#: the commands, in the order ``domeng --help`` lists them (module domeng.cli.<name>)
COMMANDS = ("simulate", "compare", "sweep", "tournament", "ladder", "report", "rules", "play",
            "trace", "serve")


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="domeng", description="Domeng, the five-player domino game of South "
               "Sulawesi: Monte Carlo studies of its rules and strategies.")
    from domeng import __version__

    p.add_argument("--version", action="version", version=f"domeng {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=Parser, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"domeng.cli.{name}").add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the ``domeng`` command with ``argv`` (default ``sys.argv[1:]``); returns the exit status.

    After Ctrl-C stopped a compiled call that does not return (a player that
    loops), the process ends here at once with that status, its output
    flushed (:func:`domeng.infra.interrupt.leave`)."""
    from domeng.infra.interrupt import leave

    return leave(_main(argv))


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as e:  # --help, --version
            return e.code if isinstance(e.code, int) else (0 if e.code is None else EXIT_USAGE)
        if args.command is None:
            raise UsageError(f"domeng: error: choose a command: {', '.join(COMMANDS)} "
                             "(see domeng --help)")
        args.argv = list(sys.argv[1:] if argv is None else argv)  # the command, for reports
        return args.func(args)
    except UsageError as e:
        print(one_line(e), file=sys.stderr)
        return EXIT_USAGE
    except DomengError as e:
        print(f"domeng: error: {one_line(e)}", file=sys.stderr)
        return EXIT_ENVIRONMENT if is_environment_failure(e) else EXIT_USAGE
    except BrokenPipeError:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0  # a closed pipe (e.g. `domeng simulate | head -3`) is not an error
    except OSError as e:
        where = f" {e.filename!r}" if getattr(e, "filename", None) else ""
        print(f"domeng: error:{where} {e.strerror or one_line(e)}", file=sys.stderr)
        return EXIT_ENVIRONMENT if is_environment_failure(e) else EXIT_USAGE
    except MemoryError:
        print("domeng: error: not enough memory for this study; use fewer tables or chunk it "
              "(--chunk-tables)", file=sys.stderr)
        return EXIT_ENVIRONMENT
    except RecursionError:
        print("domeng: error: an input file is nested too deeply to be read", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\ndomeng: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
