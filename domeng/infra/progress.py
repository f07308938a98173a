"""The one progress bar of domeng (studies, resumes, comparisons, sweeps, tournaments).

``Progress(total, ...)`` is a callable ``progress(done, total)`` (the
``progress=`` protocol of :func:`domeng.simulate`).  It tells the truth
(issue 23):

* "compiling the engine (first run only)" appears when numba actually
  compiles (measured by :mod:`domeng.core.compiling`, not guessed), at the
  moment it starts; the compile has its own timer, and the rate and the ETA
  never include it (both are over the seconds spent playing).
* It moves within a chunk: the engine reports the table-rounds it played
  between its calls of a few tenths of a second (:func:`advance`, inside a
  :func:`within` block), so a study of slow players is not stuck at 0%.
* One bar for a study of several parts: :meth:`Progress.part` gives each
  arm of a comparison or point of a sweep its share of one overall bar
  (with one ETA), its line labelled with the part's name.
* On a terminal it redraws one line (at most 5 times a second); anywhere
  else (a log, a batch job) it writes a plain line at most every 10
  seconds, and the last one: no carriage returns.

The bar is drawn here (in the layout ``tqdm`` gave it before) rather than by
``tqdm``, whose import (it reads its package metadata) cost about 0.02 s of
every study's start (issue 11).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import NamedTuple, TextIO

from domeng.core import compiling
from domeng.core.wording import counted

COMPILING = "compiling the engine (first run only)"

#: the bar's width in characters, and its characters (empty, half, full)
_WIDTH = 24
_CHARS = " .#"
#: seconds between two drawings: on a terminal, and in a log
TTY_EVERY = 0.2
LOG_EVERY = 10.0
#: seconds of work (the compile left out) before the bar shows a rate and an ETA
MIN_ESTIMATE_SECONDS = 1.0


def _fmt_rate(r: float) -> str:
    if r >= 1e6:
        return f"{r / 1e6:.2f}M"
    if r >= 1e3:
        return f"{r / 1e3:.1f}k"
    return f"{r:.0f}"


def format_interval(seconds: float) -> str:
    """``MM:SS``, or ``H:MM:SS`` from an hour on."""
    minutes, s = divmod(int(seconds), 60)
    h, m = divmod(minutes, 60)
    return f"{h:d}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def _bar(frac: float) -> str:
    steps = len(_CHARS) - 1
    full, part = divmod(int(min(max(frac, 0.0), 1.0) * _WIDTH * steps), steps)
    if full >= _WIDTH:
        return _CHARS[-1] * _WIDTH
    return _CHARS[-1] * full + _CHARS[part] + _CHARS[0] * (_WIDTH - full - 1)


class Clocks(NamedTuple):
    """A bar's two clocks, injectable for tests: ``wall``, the wall clock,
    and ``compiled``, the seconds compiled so far in the process (None:
    :func:`domeng.core.compiling.seconds`, the bar then told of each compile)."""

    wall: Callable[[], float] = time.perf_counter
    compiled: Callable[[], float] | None = None


class Progress:
    """A progress bar on ``stream`` (default stderr) for ``total`` items
    (``unit``: "table", "game": counted with its plural), each worth ``per_item`` of ``rate_unit``
    ("rounds") for the rate shown.  ``done0``: items already done (a resumed
    study: not counted in the rate).  ``label``: the line's prefix.
    ``clocks``: the wall clock and the compile clock (:class:`Clocks`; None:
    the real ones).

    ``total=None``: open-ended (a study that stops on the data): the items
    so far and the rate, no percentage and no ETA (the ``total`` given to
    each call, the study's cap, is not where it will stop); :meth:`close`
    draws the last count.  ``done`` may be fractional (the study layer's
    updates from within a chunk: :attr:`fractional`)."""

    #: takes fractional counts (updates from within a chunk)
    fractional = True

    def __init__(
        self,
        total: int | None,
        *,
        unit: str = "table",
        per_item: float = 1.0,
        rate_unit: str | None = "rounds",
        done0: int = 0,
        stream: TextIO | None = None,
        label: str = "",
        clocks: Clocks | None = None,
    ) -> None:
        clock, compile_clock = clocks if clocks is not None else Clocks()
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.total = None if total is None else int(total)
        self.per_item = float(per_item)
        self.rate_unit = rate_unit or unit + "s"
        self.unit = unit
        self.label = label
        self.n: float = int(done0)
        self._base: float = int(done0)  # items not counted in the rate
        self._clock = clock
        if compile_clock is None:
            compiling.notify(self)
            compile_clock = compiling.seconds
        self._compile_clock = compile_clock
        self._t0 = clock()
        self._c0 = compile_clock()
        self._every = TTY_EVERY if self.tty else LOG_EVERY
        # a terminal draws at once; a log's first line comes after LOG_EVERY
        self._drawn_at = -1e18 if self.tty else self._t0
        self._drawn_n = -1.0
        self._width = 0  # of the terminal line drawn last (a shorter one is padded over it)
        self._tail = ""  # the rate part of the line drawn last
        self._said_compiling = False
        self._lock = threading.RLock()  # a compile is announced from the compiling thread
        self.closed = False
        if self.tty:
            self._draw("")

    # ------------------------------------------------------------- timers
    @property
    def compile_seconds(self) -> float:
        """Seconds compiled since the bar started (its own timer)."""
        return max(self._compile_clock() - self._c0, 0.0)

    @property
    def elapsed(self) -> float:
        """Seconds of work since the bar started: the compile left out."""
        return max(self._clock() - self._t0 - self.compile_seconds, 0.0)

    def compile_started(self) -> None:
        """A compile has started (:mod:`domeng.core.compiling`): say so at once, once."""
        with self._lock:
            if self.closed or self._said_compiling:
                return
            self._said_compiling = True
            self._draw(COMPILING + " ...")

    # -------------------------------------------------------------- drawing
    def _line(self, postfix: str) -> str:
        n = int(self.n + 1e-9)
        if self.total is None:
            line = f"{counted(n, self.unit, ',')}{'' if self.closed else ' so far'}"
        else:
            frac = self.n / self.total if self.total else 1.0
            line = f"{100.0 * frac:5.1f}% |{_bar(frac)}| {n}/{counted(self.total, self.unit)}"
        line = (f"{self.label}: " if self.label else "") + line
        return line + (f", {postfix}" if postfix else "")

    def _draw(self, postfix: str) -> None:
        line = self._line(postfix)
        if self.tty:
            text = ("\r" if self._width else "") + line + " " * max(self._width - len(line), 0)
            self._width = len(line)
        else:
            text = line + "\n"  # a log: whole lines only
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError, AttributeError):
            pass  # a closed stderr never stops the work
        self._drawn_at = self._clock()
        self._drawn_n = self.n

    def _rate_tail(self, final: bool) -> str:
        """The rate and the estimate of the time left (none before
        :data:`MIN_ESTIMATE_SECONDS` of work), then the compile's seconds."""
        elapsed, new = self.elapsed, self.n - self._base
        rate = new * self.per_item / elapsed if elapsed > 0 and new > 0 else 0.0
        if final or self.total is None:
            tail = f"{_fmt_rate(rate)} {self.rate_unit}/s  elapsed {format_interval(elapsed)}"
        elif elapsed < MIN_ESTIMATE_SECONDS:
            # too little work to go by: the first update after a compile came
            # from a few tables and the start-up, which read as 1.4k rounds/s
            # and an ETA of 12 minutes for a study done 0.6 s later
            tail = "ETA ?"
        else:
            left = self.total - self.n
            eta = format_interval(elapsed * left / new) if new > 0 and elapsed > 0 else "?"
            tail = f"{_fmt_rate(rate)} {self.rate_unit}/s  ETA {eta}"
        took = self.compile_seconds
        if took >= 0.05:
            tail += f"  + {took:.1f} s compiling"
        return tail

    def __call__(self, done: float, total: int | None = None) -> None:
        with self._lock:
            self.n = max(self.n, float(done))
            final = self.total is not None and self.n >= self.total
            self._tail = self._rate_tail(final)
            if self.closed:
                return
            if final or self._clock() - self._drawn_at >= self._every:
                self._draw(self._tail)
            if final:
                self.close()

    def skip(self, items: float) -> None:
        """``items`` are done without being played here (a resumed part):
        counted in the bar, not in the rate."""
        with self._lock:
            self._base += items

    def part(self, offset: float, label: str = "") -> Part:
        """The progress callable of one part of the work (an arm, a sweep
        point): its ``done`` counts from ``offset`` of this bar, and its
        lines are labelled ``label``."""
        return Part(self, offset, label)

    def close(self) -> None:
        """End the bar (once): its last count is drawn if it was not (an
        open-ended bar's always), and a terminal's line is ended."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            compiling.forget(self)
            if self.total is None or self.n != self._drawn_n:
                self._draw(self._tail or self._rate_tail(True))
            if self.tty:
                try:
                    self.stream.write("\n")
                    self.stream.flush()
                except (OSError, ValueError, AttributeError):
                    pass


class Part:
    """One part of a :class:`Progress` (:meth:`Progress.part`): a callable
    ``part(done, total)`` for that part's own count."""

    fractional = True

    def __init__(self, bar: Progress, offset: float, label: str) -> None:
        self.bar, self.offset, self.label = bar, float(offset), label

    def __call__(self, done: float, total: int | None = None) -> None:
        self.bar.label = self.label
        self.bar(self.offset + done)

    def skip(self, items: float) -> None:
        """``items`` of this part are done already (a resumed arm)."""
        self.bar.skip(items)


class CompileNotice:
    """Say on ``stream`` (default stderr) when numba starts compiling (once),
    and at :meth:`close` how long it compiled: for a command without a bar
    (``domeng trace``).  Nothing at all when nothing compiles.

    Example
    -------
    >>> import io
    >>> out = io.StringIO()
    >>> with CompileNotice(out):
    ...     pass  # nothing compiled here
    >>> out.getvalue()
    ''
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.watch = compiling.Stopwatch()
        self.said = False
        compiling.notify(self)

    def compile_started(self) -> None:
        if not self.said:
            self.said = True
            self._write(COMPILING + " ...")

    def close(self) -> None:
        compiling.forget(self)
        if self.said:
            self.said = False
            self._write(f" {self.watch.compile_seconds:.1f} s\n")

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError, AttributeError):
            pass

    def __enter__(self) -> CompileNotice:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ------------------------------------------------------ within an engine call
_WITHIN: ContextVar[Callable[[int], None] | None] = ContextVar("domeng_within", default=None)


@contextmanager
def within(callback: Callable[[int], None] | None) -> Iterator[None]:
    """While in the block (in this thread), :func:`advance` calls ``callback``.

    Example
    -------
    >>> seen = []
    >>> with within(seen.append):
    ...     advance(128)
    >>> advance(5)  # outside: nobody is told
    >>> seen
    [128]
    """
    token = _WITHIN.set(callback)
    try:
        yield
    finally:
        _WITHIN.reset(token)


def advance(table_rounds: int) -> None:
    """The engine played ``table_rounds`` more table-rounds of its current
    call (the batch layer, between kernel calls): told to the :func:`within`
    block's callback, if any; the numbers played never depend on it."""
    cb = _WITHIN.get()
    if cb is not None:
        cb(table_rounds)
