"""``--config FILE`` and ``--dry-run`` of the study commands (simulate,
compare, sweep, tournament, ladder).

A study file is the command line written down: its keys are the command's
flags as argparse stores them (``dest``: ``--chunk-tables`` is
``chunk_tables``, ``--rule`` is ``rule``), read generically from the
command's parser, so that a flag added later is a key at once.  The file's
values are the parser's defaults for this run, so a flag given on the
command line wins (a repeatable flag replaces the file's list).  An unknown
key, a value of the wrong type or a bad value is refused in one line
naming the key and the file (exit 2).  ``kind``, when present, must be the
command.  The folder of every study records its resolved spec as
``config.toml`` (:mod:`domeng.study.spec`) in the same keys.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from domeng.core.errors import UsageError

#: the commands that take --config and --dry-run
STUDY_COMMANDS = ("simulate", "compare", "sweep", "tournament", "ladder")
#: dests that are not keys of a study file
_NOT_KEYS = ("help", "config")


def add_config_options(s: argparse.ArgumentParser) -> None:
    """``--config FILE`` and ``--dry-run`` of a study command."""
    s.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="read the study from a TOML file whose keys are this command's flags "
        '(e.g. tables = 100, rule = ["pollo=4"]; a study folder\'s config.toml '
        "reruns it); flags given here win over the file",
    )
    s.add_argument(
        "--dry-run",
        action="store_true",
        help="print what would be played (tables, rounds, players, rules, arms, "
        "chunking, output folder) and a time estimate from a short pilot, and exit "
        "without writing anything",
    )


def _command(parser: argparse.ArgumentParser) -> str:
    return parser.prog.split()[-1]


def _error(parser: argparse.ArgumentParser, path: str, key: str, problem: str) -> UsageError:
    return UsageError(f"{parser.prog}: error: {path}: key {key!r} {problem}")


def file_actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The keys a study file of ``parser``'s command may hold: every flag's dest."""
    return {
        a.dest: a
        for a in parser._actions
        if a.option_strings and a.dest not in _NOT_KEYS and a.dest != argparse.SUPPRESS
    }


def _config_path(args: list[str]) -> str | None:
    for i, a in enumerate(args):
        if a == "--":
            break
        if a == "--config" and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--config="):
            return a[len("--config=") :]
    return None


def parse_with_config(
    parser: argparse.ArgumentParser,
    parse: Callable[..., tuple[argparse.Namespace, list[str]]],
    args: list[str] | None,
    namespace: argparse.Namespace | None,
) -> tuple[argparse.Namespace, list[str]]:
    """``parse`` (argparse's own ``parse_known_args`` of ``parser``) with
    the values of ``--config FILE`` as the defaults: the command line wins."""
    words = list(sys.argv[1:] if args is None else args)
    path = _config_path(words)
    if path is None:
        return parse(words, namespace)
    values = load_config(parser, path)
    ns = namespace if namespace is not None else argparse.Namespace()
    for dest, value in values.items():
        setattr(ns, dest, list(value) if isinstance(value, list) else value)
    relaxed = [a for a in parser._actions if a.required and a.dest in values]
    for a in relaxed:  # given in the file
        a.required = False
    try:
        ns, extras = parse(words, ns)
    finally:
        for a in relaxed:
            a.required = True
    for dest, value in values.items():  # a repeatable flag given again replaces the file's
        got = getattr(ns, dest, None)
        if isinstance(value, list) and isinstance(got, list) and len(got) > len(value):
            setattr(ns, dest, got[len(value) :])
    _refuse_imports(parser, path, values, ns)
    return ns, extras


def load_config(parser: argparse.ArgumentParser, path: str) -> dict[str, Any]:
    """The values of study file ``path`` for ``parser``'s command, by dest,
    each converted and checked as the flag's own argument is."""
    from domeng.core.errors import StudyError
    from domeng.study.spec import read_toml

    try:
        data = read_toml(path)
    except StudyError as e:
        raise UsageError(f"{parser.prog}: error: {e}") from None
    command = _command(parser)
    kind = data.pop("kind", command)
    if kind != command:
        raise _error(
            parser, path, "kind", f"is {kind!r}: run it with `domeng {kind} --config {path}`"
        )
    actions = file_actions(parser)
    values: dict[str, Any] = {}
    for key, value in data.items():
        dest = key.replace("-", "_")
        action = actions.get(dest)
        if action is None:
            raise _error(
                parser, path, key, f"is not an option of {parser.prog} (see {parser.prog} --help)"
            )
        values[dest] = _value(parser, path, key, action, value)
    return values


def _value(parser, path: str, key: str, action: argparse.Action, value: Any) -> Any:
    """``value`` from the file for ``action``, as the command line would give it."""
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
        if not isinstance(value, bool):
            raise _error(parser, path, key, f"must be true or false, got {value!r}")
        return value
    if isinstance(action, argparse._AppendAction):
        items = value if isinstance(value, list) else [value]
        return [_one(parser, path, key, action, v) for v in items]
    if isinstance(action, argparse._StoreAction) and action.nargs is None:
        if action.type is None and isinstance(value, list):  # players = ["a", "b", ...]
            if not all(isinstance(v, str) for v in value):
                raise _error(
                    parser, path, key, f"must be a string or a list of strings, got {value!r}"
                )
            value = ",".join(value)
        return _one(parser, path, key, action, value)
    raise _error(parser, path, key, "cannot be given in a file")


def _one(parser, path: str, key: str, action: argparse.Action, value: Any) -> Any:
    """One argument of a flag: a string (a whole number where the flag takes
    one), converted by the flag's own type and checked against its choices."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise _error(parser, path, key, f"must be a string or a number, got {value!r}")
    if action.type is None and not isinstance(value, str):
        raise _error(parser, path, key, f"must be a string, got {value!r}")
    text = str(value)
    conv: Any = action.type
    if conv is not None:
        try:
            converted = conv(text)
        except (argparse.ArgumentTypeError, TypeError, ValueError) as e:
            raise _error(parser, path, key, str(e)) from None
    else:
        converted = text
    if action.choices is not None and converted not in action.choices:
        choices = ", ".join(map(str, action.choices))
        raise _error(parser, path, key, f"must be one of {choices}, got {value!r}")
    return converted


def _refuse_imports(parser, path: str, values: dict, ns: argparse.Namespace) -> None:
    """A file never makes domeng import code: ``module:function`` players
    read from it are refused unless named again on the command line."""
    from domeng.study.names import modules_named

    players = values.get("players")
    if not isinstance(players, str) or getattr(ns, "players", None) != players:
        return
    modules = modules_named(p.strip() for p in players.split(","))
    if modules:
        mods = ", ".join(repr(m) for m in modules)
        raise _error(
            parser,
            path,
            "players",
            f"would import the Python module(s) {mods}; domeng never imports code named in "
            "a file: if you trust it, give --players again on the command line",
        )


def spec_from_args(kind: str, args: argparse.Namespace):
    """The :class:`~domeng.study.spec.StudySpec` of a parsed study command
    (each field read from its flag's dest: :func:`domeng.study.spec.file_key`)."""
    from domeng.study.spec import StudySpec, fields_of, file_key

    values = {}
    for name in fields_of(kind):
        value = getattr(args, file_key(kind, name), None)
        if value is not None and value != []:
            values[name] = value
    return StudySpec(kind, **values)


def dry_run(kind: str, args: argparse.Namespace, check: Callable[[str, bool], Any]) -> int:
    """``--dry-run``: print the plan of the study the flags (and file) give,
    the output folder's fate under the folder policy (``check(out, force)``)
    and a time estimate from a short pilot; write nothing; exit 0."""
    from domeng.core.errors import DomengError
    from domeng.study.dryrun import dry_run_text

    if getattr(args, "resume", None) is not None:
        raise UsageError(
            f"domeng {kind}: error: --dry-run plans a new study; it cannot go with --resume"
        )
    spec = spec_from_args(kind, args)
    folder = "none (the results are printed only)"
    if args.out is not None:
        from pathlib import Path

        try:
            check(args.out, args.force)
            exists = Path(args.out).is_dir() and any(Path(args.out).iterdir())
            folder = args.out + (" (its results would be replaced: --force)" if exists else "")
        except DomengError as e:
            folder = f"{args.out}: would be refused: {' '.join(str(e).split())}"
    threads = args.workers
    if threads is None:
        import numba

        threads = int(numba.get_num_threads())
    print(dry_run_text(spec, folder, threads))
    return 0
