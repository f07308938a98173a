"""The one progress bar of domeng (studies, resumes, tournaments), drawn by ``tqdm``.

``Progress(total, ...)`` is a callable ``progress(done, total)`` (the
``progress=`` protocol of :func:`domeng.simulate`).  When the compiled engine
still has to be compiled (the first run after an install or an edit), it
says so at once -- "compiling the engine (first run only)" -- and leaves the
compile out of its rate and ETA: both are measured from the first update
after the compile, over the work done since.  On a terminal it redraws one
line; in a log it writes a line at most every 10 seconds (and the last one).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

COMPILING = "compiling the engine (first run only)"


def _fmt_rate(r: float) -> str:
    if r >= 1e6:
        return f"{r / 1e6:.2f}M"
    if r >= 1e3:
        return f"{r / 1e3:.1f}k"
    return f"{r:.0f}"


class Progress:
    """A progress bar on ``stream`` (default stderr) for ``total`` items
    (``unit``: "tables", "games"), each worth ``per_item`` of ``rate_unit``
    ("rounds") for the rate shown.  ``done0``: items already done (a resumed
    study: not counted in the rate).  ``compile_pending``: the engine will
    be compiled during the first item(s)."""

    def __init__(self, total: int, *, unit: str = "tables", per_item: float = 1.0,
                 rate_unit: str | None = "rounds", done0: int = 0,
                 compile_pending: bool = False, stream: TextIO | None = None) -> None:
        from tqdm import tqdm

        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.total = int(total)
        self.per_item = float(per_item)
        self.rate_unit = rate_unit or unit
        self.unit = unit
        self.compiling = bool(compile_pending)
        self._base = int(done0)  # items not counted in the rate
        self._t0 = time.perf_counter()
        self.bar = tqdm(total=self.total, initial=int(done0), file=self.stream,
                        dynamic_ncols=self.tty, mininterval=0.2 if self.tty else 10.0,
                        maxinterval=10.0 if self.tty else 1e9, smoothing=0, ascii=" .#", delay=0,
                        bar_format="{desc}{percentage:5.1f}% |{bar:24}| {n_fmt}/{total_fmt} "
                                   + unit + "{postfix}",
                        leave=True, disable=False)
        if self.compiling:
            self.bar.set_postfix_str(COMPILING + " ...", refresh=True)

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if self.compiling:  # the first update ends the compile: measure from here
            self.compiling = False
            self._base, self._t0 = done, now
            self.bar.start_t = self.bar._time()
        elapsed = now - self._t0
        new = done - self._base
        final = done >= total
        rate = new * self.per_item / elapsed if elapsed > 0 and new > 0 else 0.0
        if final:
            tail = f"{_fmt_rate(rate)} {self.rate_unit}/s  elapsed {self.bar.format_interval(elapsed)}"
        else:
            eta = self.bar.format_interval(elapsed * (total - done) / new) if new > 0 else "?"
            tail = f"{_fmt_rate(rate)} {self.rate_unit}/s  ETA {eta}"
        self.bar.set_postfix_str(tail, refresh=False)
        delta = done - self.bar.n
        if delta > 0:
            self.bar.update(delta)
        if final:
            self.bar.refresh()
            self.bar.close()
            if not self.tty:
                self.stream.write("\n")
                self.stream.flush()

    def close(self) -> None:
        self.bar.close()
