"""Files and folders that domeng writes, in one place (see ``docs/security.md``).

* :func:`atomic_write` -- THE way a file is written: a temporary created
  exclusively (``O_CREAT | O_EXCL | O_NOFOLLOW``, an unpredictable name, in
  the target's folder), filled, ``fsync``-ed, renamed over the target, and
  the folder ``fsync``-ed.  A planted symlink is never followed: the rename
  replaces the link itself, never its target.
* :func:`atomic_directory` -- a whole results folder written under a
  temporary name and renamed in place at the end.
* The output-folder policy: :func:`inspect_output` says what a folder is
  (absent, empty, finished, unfinished) and refuses a file, a symlink and a
  folder holding something else; :func:`fixed_subfolder` refuses a fixed
  subfolder (``chunks``, ``tables``, ``plots``) that is a link;
  :func:`move_aside` keeps finished results as ``DIR.previous`` until the
  new run ends; :func:`clean_temporaries` removes the temporaries a crash
  left behind.  Files a write does not replace are kept.
  :func:`check_output` (before any work) and :func:`prepare_output` /
  :func:`drop_previous` (around the run) put these together: THE policy of
  every command that writes a results folder in place (``simulate``,
  ``compare``, ``sweep`` with ``--out DIR``), and :func:`atomic_directory`
  applies it to a folder written whole (``tournament``, ``ladder``,
  ``Results.save``): a folder that holds results is never overwritten
  unless asked (``--force``, ``overwrite=True``), and the refusal names
  ``--resume`` where the command can continue it.
* :class:`FolderLock` -- one writer per folder; a second is refused with one line.
* :func:`resolve_inside` -- a path read from a file must stay inside its folder.
* :func:`data_home` -- where domeng keeps the user's own data (the save key,
  the browser tables): ``$XDG_DATA_HOME/domeng``, else ``~/.local/share/domeng``.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from domeng.core.errors import (
    CheckpointError,
    FolderBusyError,
    OutputFolderError,
    ResultsWriteError,
    UnsafePathError,
    is_environment_failure,
)

#: every temporary this module creates ends with this
TEMP_SUFFIX = ".partial"
#: the lock file of a folder being written
LOCK_NAME = ".domeng.lock"
#: in a folder being written again: names the ``DIR.previous*`` results it replaces
PREVIOUS = "previous-results.txt"

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)


def data_home() -> Path:
    """The folder of the user's own domeng data: ``$XDG_DATA_HOME/domeng``
    (an absolute ``XDG_DATA_HOME`` only, as the XDG spec says), else
    ``~/.local/share/domeng``.  Not created here.

    >>> data_home().name
    'domeng'
    """
    base = os.environ.get("XDG_DATA_HOME") or ""
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "domeng"


def write_failure(target: str | os.PathLike, e: OSError, what: str = "results") -> Exception:
    """The one-line error for a failed write to ``target``: an environment
    failure (disk full, permission: exit 1) or a mistake (exit 2)."""
    text = f"cannot write {what} to {str(target)!r}: {e.strerror or e}"
    return ResultsWriteError(text) if is_environment_failure(e) else OutputFolderError(text)


def fsync_dir(path: str | os.PathLike) -> None:
    """``fsync`` a folder, so that a rename in it survives a power cut
    (quietly nothing where folders cannot be opened, e.g. Windows)."""
    try:
        fd = os.open(path, os.O_RDONLY | _CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_name(path: Path) -> Path:
    return path.parent / f".{path.name}.{secrets.token_hex(8)}{TEMP_SUFFIX}"


def open_exclusive(path: Path, mode: int = 0o600) -> tuple[int, Path]:
    """Create a fresh temporary beside ``path`` (never following a link,
    never reusing a name); returns ``(fd, temp_path)``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY
    for _ in range(16):
        tmp = _temp_name(path)
        try:
            return os.open(tmp, flags, mode), tmp
        except FileExistsError:  # pragma: no cover - 64 random bits
            continue
    raise FileExistsError(f"cannot create a temporary file beside {str(path)!r}")


def atomic_write(
    path: str | os.PathLike, data: bytes | str | Callable[[Any], None], mode: int = 0o644
) -> Path:
    """Write ``path`` atomically and durably.  ``data``: bytes, text (UTF-8)
    or a function given the open binary file.  On any error the temporary is
    removed and ``path`` is unchanged.  Returns ``path``."""
    path = Path(path)
    if path.is_dir() and not path.is_symlink():
        raise IsADirectoryError(21, "Is a directory", str(path))
    fd, tmp = open_exclusive(path)
    try:
        with os.fdopen(fd, "wb") as f:
            if callable(data):
                data(f)
            else:
                f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)  # rename never follows a link at ``path``: it replaces it
    except BaseException as e:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        _name_the_file(e, path)
        raise
    fsync_dir(path.parent)
    return path


def _name_the_file(e: BaseException, path: Path) -> None:
    """A failed write (a full disk: ``os.write`` knows no file name) names ``path``."""
    if isinstance(e, OSError) and not e.filename:
        e.filename = str(path)


def temporary_beside(path: str | os.PathLike) -> Path:
    """A fresh, empty temporary file beside ``path`` (created exclusively,
    see :func:`open_exclusive`), for writers that need a file name (Parquet
    writers); :func:`commit` renames it over ``path``."""
    fd, tmp = open_exclusive(Path(path))
    os.close(fd)
    return tmp


def commit(tmp: str | os.PathLike, path: str | os.PathLike, mode: int = 0o644) -> Path:
    """``fsync`` a finished temporary, rename it to ``path``, ``fsync`` the folder."""
    tmp, path = Path(tmp), Path(path)
    try:
        fd = os.open(tmp, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as e:
        _name_the_file(e, path)
        raise
    fsync_dir(path.parent)
    return path


# ---------------------------------------------------------------- folder policy
def clean_temporaries(folder: str | os.PathLike, subfolders: Iterable[str] = ()) -> int:
    """Remove the temporaries (``.NAME.*.partial``) an interrupted write left
    in ``folder`` and its fixed ``subfolders``; links are removed, never
    followed.  Returns how many were removed."""
    n = 0
    folder = Path(folder)
    for d in [folder, *(folder / s for s in subfolders)]:
        if d.is_symlink() or not d.is_dir():
            continue
        for p in d.iterdir():
            if p.name.startswith(".") and p.name.endswith(TEMP_SUFFIX):
                try:
                    if p.is_dir() and not p.is_symlink():
                        shutil.rmtree(p)
                    else:
                        p.unlink()
                    n += 1
                except OSError:
                    pass
    return n


def fixed_subfolder(folder: str | os.PathLike, name: str, create: bool = True) -> Path:
    """``folder/name``, a fixed subfolder of a results folder (``chunks``,
    ``tables``, ``plots``): created if missing, refused if it is a symlink
    or not a folder (a planted link would send writes elsewhere)."""
    p = Path(folder) / name
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        if create:
            p.mkdir()
        return p
    if stat.S_ISLNK(st.st_mode):
        raise UnsafePathError(
            f"refusing to write into {str(p)!r}: it is a symbolic link "
            "(a results folder's subfolders must be real folders)"
        )
    if not stat.S_ISDIR(st.st_mode):
        raise OutputFolderError(f"refusing to write into {str(p)!r}: it is not a folder")
    return p


def inspect_output(
    folder: str | os.PathLike,
    finished: str,
    unfinished: str | None = None,
    what: str = "domeng results",
) -> str:
    """What ``folder`` is, for a command about to write there:
    ``"absent"``, ``"empty"``, ``"finished"`` (holds the marker file
    ``finished``) or ``"unfinished"`` (holds ``unfinished`` but not
    ``finished``).  Refuses (:class:`OutputFolderError`) a file, a symbolic
    link, and a folder holding anything else."""
    p = Path(folder)
    if p.is_symlink():
        raise UnsafePathError(f"refusing to write results to {str(p)!r}: it is a symbolic link")
    if not p.exists():
        return "absent"
    if not p.is_dir():
        raise OutputFolderError(f"cannot write results to {str(p)!r}: it is a file")
    names = {q.name for q in p.iterdir()}
    if not names - {LOCK_NAME}:
        return "empty"
    if finished in names:
        return "finished"
    if unfinished is not None and unfinished in names:
        return "unfinished"
    shown = ", ".join(repr(n) for n in sorted(names - {LOCK_NAME})[:3])
    more = ", ..." if len(names - {LOCK_NAME}) > 3 else ""
    raise OutputFolderError(
        f"refusing to write results to {str(p)!r}: the folder is not empty and holds "
        f"no {what} (it has {shown}{more}); choose another folder"
    )


def check_writable(folder: str | os.PathLike) -> None:
    """Refuse (:class:`EnvironmentFailure`) a folder that cannot be created
    or written, before any work is done."""
    p = Path(folder)
    parent = p if p.exists() else p.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise OutputFolderError(f"cannot write results to {str(p)!r}: {str(parent)!r} is a file")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ResultsWriteError(f"cannot write results to {str(p)!r}: permission denied")


def move_aside(folder: str | os.PathLike) -> Path:
    """Rename a finished results folder to ``DIR.previous`` (``DIR.previous2``
    ... if taken), so that a new run replacing it loses nothing if it fails.
    Returns the new name."""
    folder = Path(folder)
    previous = folder.with_name(folder.name + ".previous")
    k = 1
    while previous.exists() or previous.is_symlink():
        k += 1
        previous = folder.with_name(f"{folder.name}.previous{k}")
    try:
        os.rename(folder, previous)
    except OSError as e:
        raise write_failure(folder, e, "(move aside) the results") from None
    return previous


def is_previous_of(folder: str | os.PathLike, candidate: str | os.PathLike) -> bool:
    """Is ``candidate`` one of ``folder``'s ``DIR.previous*`` siblings (the only
    thing a crafted ``previous-results.txt`` may make us delete)?"""
    folder, cand = Path(folder).absolute(), Path(candidate)
    if not cand.is_absolute():
        cand = folder.parent / cand
    cand = cand.absolute()
    if cand.parent != folder.parent or cand.is_symlink():
        return False
    name, base = cand.name, folder.name + ".previous"
    return name == base or (
        name.startswith(base) and name[len(base) :].isdigit() and name[len(base) :].isascii()
    )


def _unfinished(folder: Path, what: str, resume_hint: str | None) -> CheckpointError:
    hint = f"continue it with `{resume_hint}`" if resume_hint else "it cannot be continued"
    return CheckpointError(
        f"{str(folder)!r} holds an unfinished {what}: {hint}, or replace it with --force "
        "(overwrite=True in Python)"
    )


def _finished(folder: Path, what: str, resume_hint: str | None) -> OutputFolderError:
    """THE refusal of an output folder that holds results (issue 23): one line
    naming --force (replace) and, where the command has it, --resume (continue)."""
    cont = f", or reopen them with `{resume_hint}`" if resume_hint else ""
    return OutputFolderError(
        f"refusing to write into {str(folder)!r}: it already holds results ({what}); give "
        f"--force to replace them{cont} (overwrite=True in Python)"
    )


refusal = _finished


def _refuse(folder: Path, state: str, what: str, resume_hint: str | None, force: bool) -> None:
    """Nothing is overwritten unless asked: refuse a folder holding results."""
    if force:
        return
    if state == "unfinished":
        raise _unfinished(folder, what, resume_hint)
    if state == "finished":
        raise _finished(folder, what, resume_hint)


def check_output(
    folder: str | os.PathLike,
    finished: str,
    unfinished: str | None = None,
    what: str = "domeng results",
    resume_hint: str | None = None,
    force: bool = False,
) -> str:
    """Refuse, before anything runs, an output folder a new run may not use
    (see :func:`prepare_output`); returns its state (:func:`inspect_output`)."""
    state = inspect_output(folder, finished, unfinished, what)
    _refuse(Path(folder), state, what, resume_hint, force)
    check_writable(folder)
    return state


def prepare_output(
    folder: str | os.PathLike,
    finished: str,
    unfinished: str | None = None,
    what: str = "domeng results",
    resume_hint: str | None = None,
    force: bool = False,
) -> Path | None:
    """Make ``folder`` ready for a new run that writes it in place: create it
    (or use it if empty); refuse a folder holding results, finished (holding
    ``finished``) or unfinished (holding ``unfinished``: ``resume_hint``
    says how to continue it), unless ``force``: then move it aside to
    ``DIR.previous`` and name it in ``DIR/PREVIOUS``, so that a failed or
    killed run loses nothing (:func:`drop_previous` deletes it when the new
    run has finished); refuse a file, a link and a folder holding anything
    else.  Returns where the previous results went, if anywhere."""
    folder = Path(folder)
    state = inspect_output(folder, finished, unfinished, what)
    _refuse(folder, state, what, resume_hint, force)
    previous = move_aside(folder) if state in ("finished", "unfinished") else None
    try:
        folder.mkdir(parents=True, exist_ok=state == "empty")
        if previous is not None:
            atomic_write(folder / PREVIOUS, previous.name + "\n")
    except OSError as e:
        raise write_failure(folder, e) from None
    return previous


def drop_previous(folder: str | os.PathLike) -> None:
    """The run writing ``folder`` has finished: delete the results it replaced
    (only a ``DIR.previous*`` sibling, whatever ``DIR/PREVIOUS`` says) and the marker."""
    folder = Path(folder).absolute()  # a relative DIR/SUB: its sibling is DIR/SUB.previous
    marker = folder / PREVIOUS
    try:
        if marker.is_symlink():
            raise OSError
        text = marker.read_text()[:4096].strip()
    except (OSError, UnicodeDecodeError):
        marker.unlink(missing_ok=True)
        return
    previous = folder.parent / Path(text).name if text else None
    if previous is not None and is_previous_of(folder, previous) and previous.is_dir():
        shutil.rmtree(previous, ignore_errors=True)
    marker.unlink(missing_ok=True)


@contextmanager
def writing_output(
    folder: str | os.PathLike,
    finished: str,
    unfinished: str | None = None,
    what: str = "domeng results",
    resume_hint: str | None = None,
    resume: bool = False,
    force: bool = False,
) -> Iterator[Path]:
    """THE policy around a run that writes ``folder`` in place: a new run
    prepares it (:func:`prepare_output`), a resumed one (``resume``) accepts
    only an unfinished (or finished) folder of its kind; the folder is locked
    (:class:`FolderLock`) while the ``with`` block runs, and when it ends
    without error the results it replaced are deleted (:func:`drop_previous`).
    On error, the folder (unfinished: it lacks ``finished``) and
    ``DIR.previous`` are left as they are, each file in them complete."""
    folder = Path(folder)
    if resume:
        if inspect_output(folder, finished, unfinished, what) not in ("finished", "unfinished"):
            raise CheckpointError(f"no {what} to resume in {str(folder)!r}")
    else:
        prepare_output(folder, finished, unfinished, what, resume_hint, force)
    with FolderLock(folder):
        clean_temporaries(folder, ("tables", "plots", "arms"))
        yield folder
        drop_previous(folder)


@contextmanager
def atomic_directory(
    target: str | os.PathLike,
    finished: str = "results.npz",
    what: str = "domeng results",
    overwrite: bool = False,
) -> Iterator[Path]:
    """Yield a fresh temporary folder next to ``target``; on success it
    replaces ``target`` in one rename (only an empty folder, or with
    ``overwrite`` a finished results folder holding ``finished``, is
    replaced; see :func:`inspect_output`).  On error the temporary folder is
    removed, so a half-written folder never sits under the final name."""
    import tempfile

    target = Path(target)
    _refuse(target, inspect_output(target, finished, what=what), what, None, overwrite)
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=parent))
    except OSError as e:
        raise write_failure(target, e) from None
    # the lock file goes with the folder: the target is locked from the moment it appears
    lock = FolderLock(tmp)
    try:
        lock.acquire()
        yield tmp
        os.chmod(tmp, 0o755)
        _install(tmp, target, finished, what, overwrite)
        fsync_dir(parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        lock.release()


def _install(tmp: Path, target: Path, finished: str, what: str, overwrite: bool) -> None:
    """Rename the written folder ``tmp`` to ``target``: in one step where
    ``target`` is absent; else under ``target``'s lock, after checking again
    what it holds (another writer may have finished there meanwhile: it is
    refused unless ``overwrite``, never mixed)."""
    import tempfile

    try:
        os.rename(tmp, target)  # target absent (or an empty folder): replaced in one step
        return
    except OSError as e:
        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
            raise
    inspect_output(target, finished, what=what)  # refuses a link or a file before locking
    with FolderLock(target):
        _refuse(target, inspect_output(target, finished, what=what), what, None, overwrite)
        old = Path(
            tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old" + TEMP_SUFFIX, dir=tmp.parent)
        )
        os.rmdir(old)
        os.rename(target, old)
        try:
            os.rename(tmp, target)
        except OSError:
            os.rename(old, target)  # the previous results stay where they were
            raise
    shutil.rmtree(old, ignore_errors=True)


# ---------------------------------------------------------------- paths from files
def resolve_inside(folder: str | os.PathLike, relative: str, what: str = "path") -> Path:
    """The path ``relative`` (read from a file in ``folder``) inside ``folder``,
    or :class:`UnsafePathError`: absolute paths, ``..``, and links leading
    out of the folder are refused."""
    if not isinstance(relative, str) or not relative or "\x00" in relative:
        raise UnsafePathError(f"bad {what} {relative!r} in {str(folder)!r}")
    rel = Path(relative)
    if rel.is_absolute() or rel.drive or ".." in rel.parts:
        raise UnsafePathError(
            f"refusing the {what} {relative!r} read from {str(folder)!r}: "
            "it must be a path inside that folder"
        )
    base = Path(folder).resolve()
    full = (base / rel).resolve()
    try:
        full.relative_to(base)
    except ValueError:
        raise UnsafePathError(
            f"refusing the {what} {relative!r} read from {str(folder)!r}: "
            "it leads outside that folder"
        ) from None
    if full == base:
        raise UnsafePathError(
            f"refusing the {what} {relative!r} read from {str(folder)!r}: "
            "it names the folder itself"
        )
    return Path(folder) / rel


# ---------------------------------------------------------------- lock
class FolderLock:
    """An exclusive lock on a folder for the time one run writes it.

    ``with FolderLock(folder):`` -- a second writer (another process, or
    another lock in this one) is refused at once with
    :class:`FolderBusyError`.  The lock is held by the open lock file
    (``flock``), so it is released when the process dies, even by ``kill
    -9``; the lock file itself stays (harmless)."""

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = Path(folder)
        self._fd: int | None = None

    def acquire(self) -> FolderLock:
        path = self.folder / LOCK_NAME
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o644)
        except OSError as e:
            if getattr(e, "errno", None) in (40,):  # ELOOP: the lock file is a link
                raise UnsafePathError(
                    f"refusing to lock {str(self.folder)!r}: its lock file is a symbolic link"
                ) from None
            raise ResultsWriteError(
                f"cannot lock {str(self.folder)!r}: {e.strerror or e}"
            ) from None
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no advisory lock
            self._fd = fd
            return self
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise FolderBusyError(
                f"{str(self.folder)!r} is being written by another domeng run "
                "(wait for it to finish, or stop it)"
            ) from None
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the file releases the flock
            self._fd = None

    def __enter__(self) -> FolderLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
