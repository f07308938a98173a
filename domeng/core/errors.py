"""Every exception of the domeng package, in one module.

All derive from :class:`DomengError`, so callers (and the CLI) catch them
in one place and show the message as one line.  Two families:

* a **mistake in the input** (a flag, a file, a player name, a rule value,
  a folder that may not be used): the CLI exits with status 2;
* an **environment failure** (:class:`EnvironmentFailure`: a full disk, a
  permission, a cluster that cannot start or stops making progress, a folder
  another run is writing): the CLI exits with status 1.  These are also
  ``OSError``\\ s, so code catching ``OSError`` keeps working.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


class DomengError(Exception):
    """Base class of every error raised by domeng on purpose."""


class EnvironmentFailure(DomengError, OSError):
    """The machine, not the input, stopped the work: a full disk, a
    permission, an unreachable or stalled cluster (CLI exit status 1)."""


# ---------------------------------------------------------------- core / engine
class TileError(DomengError, ValueError):
    """Tile text or a tile id that is not a tile of the double-six set."""


class RulesError(DomengError, ValueError):
    """An unknown rule option, or a value of the wrong type or range."""


class IllegalMoveError(DomengError, ValueError):
    """A move that the rules do not allow now (the state is left unchanged)."""


class PlayerError(DomengError, ValueError):
    """An unknown player name, a player that cannot be loaded (or may not be
    imported: see ``docs/security.md``), or a player that returned an
    invalid move or raised."""


# ---------------------------------------------------------------- command line
class UsageError(DomengError):
    """Bad command-line usage (reported as one line, exit 2)."""


# ---------------------------------------------------------------- studies and results
class StudyError(DomengError, ValueError):
    """A study asked for with bad arguments (counts, seed, workers, paths),
    or a budget that cannot finish on this machine."""


class CheckpointError(DomengError, ValueError):
    """A checkpoint folder that cannot be resumed (missing, corrupt, from
    another version, a chunk from another study, or asked to resume with
    other parameters)."""


class ResultsError(DomengError, OSError):
    """A results folder that cannot be read back (missing, corrupt) or used."""


class OutputFolderError(ResultsError):
    """An output folder the folder policy refuses: a file, a folder holding
    something else, an unfinished study."""


class UnsafePathError(OutputFolderError):
    """A path read from a file that leads outside its folder, or a symbolic
    link where a results folder needs a real file or folder."""


class ResultsWriteError(ResultsError, EnvironmentFailure):
    """Results that could not be written (disk full, permission)."""


class FolderBusyError(EnvironmentFailure):
    """Another domeng run is writing this folder (it holds the folder lock)."""


class ClusterError(DomengError, RuntimeError):
    """A bad cluster option, a worker running another domeng, or a task
    that keeps killing its workers."""


class ClusterFailure(ClusterError, EnvironmentFailure):
    """A cluster that cannot be reached or started, that was lost, or that
    made no progress for the stated time (the checkpoint is intact:
    ``--resume`` continues)."""


class SaveFileError(DomengError):
    """A saved game that cannot be read, or was edited."""


def refuse_unknown_keywords(entry: str, options: Mapping[str, Any], names: Iterable[str]) -> None:
    """Refuse a keyword of ``options`` (a function's ``**options``) that is
    not one of ``names``, as Python refuses an unknown keyword (``entry``:
    the function's name in the message).

    >>> refuse_unknown_keywords("f", {"colour": 1}, ("threads",))
    Traceback (most recent call last):
    ...
    TypeError: f() got an unexpected keyword argument 'colour'
    """
    known = set(names)
    for key in options:
        if key not in known:
            raise TypeError(f"{entry}() got an unexpected keyword argument {key!r}")


def is_environment_failure(e: BaseException) -> bool:
    """Is ``e`` a failure of the machine (disk, permission, memory, cluster)
    rather than a mistake in the input?  Decides the CLI exit status (1 or 2)."""
    import errno

    if isinstance(e, EnvironmentFailure):
        return True
    if isinstance(e, DomengError):
        return False
    if isinstance(e, MemoryError):
        return True
    if isinstance(e, OSError):
        return e.errno in {
            errno.ENOSPC,
            errno.EACCES,
            errno.EPERM,
            errno.EROFS,
            errno.EIO,
            getattr(errno, "EDQUOT", -1),
            errno.EMFILE,
            errno.ENFILE,
            errno.EBUSY,
            errno.ETXTBSY,
        }
    return False


__all__ = [
    "CheckpointError",
    "ClusterError",
    "ClusterFailure",
    "DomengError",
    "EngineBusyError",
    "EnvironmentFailure",
    "FolderBusyError",
    "IllegalMoveError",
    "InputError",
    "OutputFolderError",
    "PlayerError",
    "ResultsError",
    "ResultsWriteError",
    "RulesError",
    "SaveFileError",
    "StudyError",
    "TileError",
    "UnreachableTarget",
    "UnsafePathError",
    "UsageError",
    "WebError",
    "is_environment_failure",
]


class UnreachableTarget(DomengError, ValueError):
    """A target 95% half-width (``--target-ci``) that the round cap cannot
    reach, projected from the first look at the data."""


class InputError(DomengError, ValueError):
    """What a person typed is not a legal move now (the message says why);
    the terminal game shows it and asks again."""


class WebError(DomengError):
    """A request the browser table refuses; its text is shown on the page as
    is, or, with ``item`` (a catalogue key and its arguments,
    :func:`domeng.core.words.item`), in the page's own language."""

    def __init__(self, message: str, item: dict | None = None) -> None:
        super().__init__(message)
        self.item = item


class StoreError(DomengError):
    """A ``--data`` folder or database the browser table's server cannot use
    (one line): :mod:`domeng.web.store`."""


class EngineBusyError(DomengError, RuntimeError):
    """A compiled call abandoned by Ctrl-C (a player that never returns) is
    still running in this process: the engine is not used again here."""
