"""Ctrl-C during long compiled calls (issue 10, item 7).

Python handles Ctrl-C (``SIGINT``) in the main thread, between bytecodes:
a compiled (numba) call that runs for minutes -- a user's compiled player
that never returns, one decision of a ``search-100000`` player -- would
delay ``KeyboardInterrupt`` until it returns, i.e. forever.

:func:`interruptible` runs such a call in a worker thread (the compiled
entry points release the GIL: ``nogil=True``) while the main thread waits
in short steps, so ``KeyboardInterrupt`` is raised at once, whatever the
compiled code does.  The compiled call cannot be stopped: its thread is
*abandoned* (it keeps a core busy until it returns; it only ever writes to
arrays of its own call, which nobody reads again).  So:

* the caller keeps nothing of the interrupted call (finished chunks of a
  study are already on disk; a game's pending computer decision is simply
  not in its save, which holds actions only);
* a later :func:`interruptible` call in the same process waits up to
  :data:`ABANDONED_WAIT` seconds for an abandoned call to end (a slice of
  a long table ends within a second), then refuses with one line;
* :func:`leave` (called by the ``domeng`` command as it exits) flushes
  stdout and stderr and ends the process with ``os._exit(status)`` if an
  abandoned call is still running, because the interpreter's normal exit
  could wait for it forever.

Calls from other threads than the main one (Dask workers, the browser
table's threads) run directly: Python never delivers ``KeyboardInterrupt``
to them anyway.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from domeng.core.errors import EngineBusyError

T = TypeVar("T")

#: how long the waiting main thread sleeps between checks (seconds); a
#: signal wakes it earlier (a lock wait is interrupted by signals on POSIX)
POLL_SECONDS = 0.1
#: how long a new call waits for an abandoned one to end before refusing
ABANDONED_WAIT = 2.0

#: the "finished" events of compiled calls abandoned by Ctrl-C
_abandoned: list[threading.Event] = []
_lock = threading.Lock()


def interruptible(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``, run so that Ctrl-C interrupts it at once.

    In the main thread, ``fn`` runs in a daemon worker thread and the main
    thread waits; ``KeyboardInterrupt`` abandons the worker (see the module
    doc) and propagates.  ``fn``'s result or exception is returned or raised
    as if it had been called directly."""
    if threading.current_thread() is not threading.main_thread():
        return fn(*args)
    _wait_for_abandoned()
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as e:
            box["error"] = e
        finally:
            done.set()

    # the main thread waits on an Event, not Thread.join: a join interrupted by
    # KeyboardInterrupt marks a running thread as stopped (CPython 3.11)
    t = threading.Thread(target=work, name="domeng-compiled-call", daemon=True)
    try:
        t.start()
        while not done.wait(POLL_SECONDS):
            pass
    except BaseException:
        if not done.is_set():
            with _lock:
                _abandoned.append(done)
        raise
    if "error" in box:
        err = box.pop("error")
        try:
            raise err
        finally:
            del err
    return box["value"]


def abandoned_running() -> bool:
    """Is a compiled call abandoned by Ctrl-C still running in this process?"""
    with _lock:
        _abandoned[:] = [d for d in _abandoned if not d.is_set()]
        return bool(_abandoned)


def _wait_for_abandoned() -> None:
    deadline = time.monotonic() + ABANDONED_WAIT
    while abandoned_running():
        left = deadline - time.monotonic()
        if left <= 0:
            raise EngineBusyError(
                "an interrupted compiled call (a player that never returns, "
                "or a very long search decision) is still running in this "
                "process: restart Python to use the engine again"
            )
        with _lock:
            d = _abandoned[0] if _abandoned else None
        if d is not None:
            d.wait(min(POLL_SECONDS, left))


def leave(status: int) -> int:
    """The exit status ``status``; but if an abandoned compiled call still
    runs, flush stdout and stderr and end the process now with
    ``os._exit(status)`` (a normal exit could wait for that call forever)."""
    if not abandoned_running():
        return status
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(status)
