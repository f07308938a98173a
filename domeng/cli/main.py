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
COMMANDS = (
    "simulate",
    "compare",
    "sweep",
    "tournament",
    "ladder",
    "report",
    "rules",
    "play",
    "trace",
    "serve",
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``domeng``; ``only``: of that command alone (the others'
    modules are not imported: the parser of a command run is built in a few ms)."""
    p = Parser(
        prog="domeng",
        description="Domeng, the five-player domino game of South "
        "Sulawesi: Monte Carlo studies of its rules and strategies.",
    )
    from domeng import __version__

    p.add_argument("--version", action="version", version=f"domeng {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=Parser, metavar="COMMAND")
    for name in (only,) if only in COMMANDS else COMMANDS:
        importlib.import_module(f"domeng.cli.{name}").add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the ``domeng`` command with ``argv`` (default ``sys.argv[1:]``); returns the exit status.

    After Ctrl-C stopped a compiled call that does not return (a player that
    loops), the process ends here at once with that status, its output
    flushed (:func:`domeng.infra.interrupt.leave`)."""
    from domeng.infra.interrupt import leave

    status = leave(_main(argv))
    if argv is None:  # the process's own command (the console script, python -m domeng)
        _end_process(status)
    return status


def _end_process(status: int) -> None:
    """End the ``domeng`` process now with ``status``, as a normal exit
    does (output flushed, the ``atexit`` handlers run) but without the
    interpreter's teardown of every module and object, which costs about
    0.1 s of CPU once numba is loaded (issue 11: a study's start and end).
    Returns (a normal exit follows) when another non-daemon thread still
    runs, or the output cannot be flushed (a closed pipe: Python's own exit
    handles it)."""
    import atexit
    import threading

    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_handlers is None or any(
        t is not threading.main_thread() and not t.daemon and t.is_alive()
        for t in threading.enumerate()
    ):
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    run_exit_handlers()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(status if isinstance(status, int) else EXIT_USAGE)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning during a command: one line each on stderr (``domeng:
    warning: ...``), never Python's file:line; a warning with ``details``
    (:class:`~domeng.study.checkpoint.DamagedChunksWarning`) prints them
    first, one line each."""
    try:
        for text in [*getattr(message, "details", ()), message]:
            print(f"domeng: warning: {' '.join(str(text).split())}", file=sys.stderr)
    except (OSError, ValueError):
        pass  # a closed stderr never stops the work


def _main(argv: list[str] | None) -> int:
    import warnings

    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return _run(argv)


def _run(argv: list[str] | None) -> int:
    words = sys.argv[1:] if argv is None else argv
    # `domeng COMMAND ...` needs only that command's parser (its --help and errors are the same)
    parser = build_parser(words[0] if words and words[0] in COMMANDS else None)
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as e:  # --help, --version
            return e.code if isinstance(e.code, int) else (0 if e.code is None else EXIT_USAGE)
        if args.command is None:
            raise UsageError(
                f"domeng: error: choose a command: {', '.join(COMMANDS)} (see domeng --help)"
            )
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
        print(
            "domeng: error: not enough memory for this study; use fewer tables or chunk it "
            "(--chunk-tables)",
            file=sys.stderr,
        )
        return EXIT_ENVIRONMENT
    except RecursionError:
        print("domeng: error: an input file is nested too deeply to be read", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\ndomeng: interrupted" + resume_note(locals().get("args")), file=sys.stderr)
        return 130


def resume_note(args) -> str:
    """After Ctrl-C: where a study's chunks played so far are kept, and the
    command that goes on with them ("" when there is nothing to go on with)."""
    kind = getattr(args, "command", None)
    out = getattr(args, "resume", None) or getattr(args, "out", None)
    if kind not in ("simulate", "compare", "sweep") or not isinstance(out, str):
        return ""
    from domeng.infra.fs import inspect_output

    if kind == "simulate":
        from domeng.study.checkpoint import MANIFEST as manifest

        finished = "results.npz"
    else:
        from domeng.results.compare_report import KINDS

        finished, manifest, _ = KINDS[kind]
    try:  # the folder policy's own reading of a folder (infra/fs.py)
        if inspect_output(out, finished, manifest) != "unfinished":
            return ""
    except (DomengError, OSError):
        return ""
    return f"; what was played is kept in {out}: go on with `domeng {kind} --resume {out}`"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
