"""The one progress bar of domeng (studies, resumes, tournaments).

``Progress(total, ...)`` is a callable ``progress(done, total)`` (the
``progress=`` protocol of :func:`domeng.simulate`).  When the compiled engine
still has to be compiled (the first run after an install or an edit), it
says so at once -- "compiling the engine (first run only)" -- and leaves the
compile out of its rate and ETA: both are measured from the first update
after the compile, over the work done since.  On a terminal it redraws one
line (at most 5 times a second); in a log it writes a line at most every 10
seconds (and the last one).

The bar is drawn here (in the layout ``tqdm`` gave it before) rather than by
``tqdm``, whose import (it reads its package metadata) cost about 0.02 s of
every study's start (issue 11).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from domeng.core.wording import counted

COMPILING = "compiling the engine (first run only)"

#: the bar's width in characters, and its characters (empty, half, full)
_WIDTH = 24
_CHARS = " .#"


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


class Progress:
    """A progress bar on ``stream`` (default stderr) for ``total`` items
    (``unit``: "table", "game": counted with its plural), each worth ``per_item`` of ``rate_unit``
    ("rounds") for the rate shown.  ``done0``: items already done (a resumed
    study: not counted in the rate).  ``compile_pending``: the engine will
    be compiled during the first item(s).

    ``total=None``: open-ended (a study that stops on the data): the items
    so far and the rate, no percentage and no ETA (the ``total`` given to
    each call, the study's cap, is not where it will stop); :meth:`close`
    draws the last count."""

    def __init__(
        self,
        total: int | None,
        *,
        unit: str = "table",
        per_item: float = 1.0,
        rate_unit: str | None = "rounds",
        done0: int = 0,
        compile_pending: bool = False,
        stream: TextIO | None = None,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.total = None if total is None else int(total)
        self._tail = ""  # the rate part of the line drawn last
        self.per_item = float(per_item)
        self.rate_unit = rate_unit or unit + "s"
        self.unit = unit
        self.compiling = bool(compile_pending)
        self.n = int(done0)
        self._base = int(done0)  # items not counted in the rate
        self._t0 = time.perf_counter()
        self._every = 0.2 if self.tty else 10.0  # seconds between two drawings
        self._drawn_at = -1e9
        self._width = 0  # of the line drawn last (a shorter one is padded over it)
        self.closed = False
        self._draw(COMPILING + " ..." if self.compiling else "")

    def _draw(self, postfix: str) -> None:
        if self.total is None:
            line = f"{counted(self.n, self.unit, ',')}{'' if self.closed else ' so far'}" + (
                f", {postfix}" if postfix else ""
            )
        else:
            pct = 100.0 * self.n / self.total if self.total else 100.0
            line = (
                f"{pct:5.1f}% |{_bar(self.n / self.total if self.total else 1.0)}| "
                f"{self.n}/{counted(self.total, self.unit)}" + (f", {postfix}" if postfix else "")
            )
        pad = " " * max(self._width - len(line), 0)
        try:
            self.stream.write(("\r" if self._width else "") + line + pad)
            self.stream.flush()
        except (OSError, ValueError, AttributeError):
            pass  # a closed stderr never stops the work
        self._width = len(line)
        self._drawn_at = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if self.compiling:  # the first update ends the compile: measure from here
            self.compiling = False
            self._base, self._t0 = done, now
        elapsed = now - self._t0
        new = done - self._base
        final = self.total is not None and done >= total
        rate = new * self.per_item / elapsed if elapsed > 0 and new > 0 else 0.0
        if final or self.total is None:
            tail = f"{_fmt_rate(rate)} {self.rate_unit}/s  elapsed {format_interval(elapsed)}"
        else:
            eta = format_interval(elapsed * (total - done) / new) if new > 0 else "?"
            tail = f"{_fmt_rate(rate)} {self.rate_unit}/s  ETA {eta}"
        self.n = max(self.n, int(done))
        self._tail = tail
        if self.closed:
            return
        if final or now - self._drawn_at >= self._every:
            self._draw(tail)
        if final:
            self.close()

    def close(self) -> None:
        """End the bar's line (once); an open-ended bar shows its last count first."""
        if self.closed:
            return
        self.closed = True
        if self.total is None:
            self._draw(self._tail)
        try:
            self.stream.write("\n")
            self.stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
