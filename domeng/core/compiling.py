"""The compile clock: how long numba actually compiled in this process (issue 23).

Whether the engine "will compile" used to be guessed from numba's cache
files; a guess shows "compiling" on warm runs and misses kernels it did
not know of (the records loop, a custom player).  This measures instead:
numba announces every real compile (a cache miss; loading machine code
from the cache is not one) as a ``numba:compile`` event around the
compiler's work, and :func:`watch` installs one listener for those events.
:func:`seconds` is the time spent compiling in this process so far (a
compile under way counted up to now), :func:`compiling` whether one is
under way; :func:`notify` registers a callable told when a compile starts
(the progress bar says "compiling" then, and only then).

Nested compiles (a function compiling the functions it calls) count once:
the clock runs from the outermost start to its end.  Compiles run under
numba's global compiler lock, one at a time, whichever thread asks.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

_LOCK = threading.Lock()
_INSTALLED = False
_depth = 0
_started = 0.0
_total = 0.0
#: objects told when a compile starts (their ``compile_started()``), held weakly
_WATCHERS: weakref.WeakSet[Any] = weakref.WeakSet()


def _start() -> None:
    global _depth, _started
    with _LOCK:
        _depth += 1
        if _depth > 1:
            return
        _started = time.perf_counter()
        watchers = list(_WATCHERS)
    for w in watchers:
        try:
            w.compile_started()
        except Exception:  # a watcher never breaks a compile
            pass


def _end() -> None:
    global _depth, _total
    with _LOCK:
        if _depth == 0:  # an end without a start (installed mid-compile)
            return
        _depth -= 1
        if _depth == 0:
            _total += time.perf_counter() - _started


def watch() -> bool:
    """Install the listener (once per process; imports numba's event module).
    False where this numba has no compile events (then :func:`seconds` stays 0)."""
    global _INSTALLED
    with _LOCK:
        if _INSTALLED:
            return True
        try:
            from numba.core import event as ev
        except ImportError:  # pragma: no cover - a numba without events
            return False

        class _Listener(ev.Listener):
            def on_start(self, event) -> None:
                _start()

            def on_end(self, event) -> None:
                _end()

        ev.register("numba:compile", _Listener())
        _INSTALLED = True
        return True


def seconds() -> float:
    """Seconds numba spent compiling in this process since :func:`watch`
    (a compile under way: up to now).

    Example
    -------
    >>> from domeng.core import compiling
    >>> _ = compiling.watch()
    >>> before = compiling.seconds()
    >>> compiling.seconds() - before  # nothing compiled in between
    0.0
    """
    with _LOCK:
        running = time.perf_counter() - _started if _depth else 0.0
        return _total + running


def compiling() -> bool:
    """Is numba compiling right now (in any thread)?"""
    with _LOCK:
        return _depth > 0


def notify(watcher: Any) -> None:
    """Call ``watcher.compile_started()`` whenever a compile starts (held
    weakly: a watcher that is gone is forgotten)."""
    watch()
    with _LOCK:
        _WATCHERS.add(watcher)


def forget(watcher: Any) -> None:
    """Stop telling ``watcher``."""
    with _LOCK:
        _WATCHERS.discard(watcher)


class Stopwatch:
    """Wall seconds since it was made, split into compute and compile.

    ``compile_seconds``: numba compiled this long since then (measured:
    :func:`seconds`); ``compute_seconds``: the rest.  ``clock``: the wall
    clock (injectable for tests)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        watch()
        self.clock = clock
        self.t0 = clock()
        self.c0 = seconds()

    @property
    def compile_seconds(self) -> float:
        return seconds() - self.c0

    @property
    def compute_seconds(self) -> float:
        return max(self.clock() - self.t0 - self.compile_seconds, 0.0)
