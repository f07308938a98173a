"""The progress bar tells the truth (issue 23 item 2), with injected clocks
(never real time): plain lines off a terminal, at most one per 10 s and no
carriage return; compiles said only when they happen, timed apart and kept
out of the rate and ETA; one bar for the parts of a study, each labelled;
the engine's reports from within a call reach only the bar that asked."""

from __future__ import annotations

import io
import re
import time
from itertools import pairwise

import pytest

from domeng.core import compiling
from domeng.infra.progress import COMPILING, Clocks, CompileNotice, Progress, advance, within


class Clock:
    """A wall clock moved by hand, and a compile clock (seconds compiled)."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.compiled = 0.0

    def __call__(self) -> float:
        return self.t

    def compile_clock(self) -> float:
        return self.compiled


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def bar_on(stream, clock: Clock, total=100, **kw) -> Progress:
    return Progress(
        total, per_item=10, stream=stream, clocks=Clocks(clock, clock.compile_clock), **kw
    )


def rate_of(line: str) -> float:
    value = re.search(r"([\d.]+)([kM]?) rounds/s", line)
    assert value, line
    return float(value[1]) * {"k": 1e3, "M": 1e6, "": 1}[value[2]]


def test_a_log_gets_plain_lines_at_most_every_10_seconds():
    clock, out = Clock(), io.StringIO()
    bar = bar_on(out, clock)
    written_at = []
    for step in range(1, 201):  # an update every 0.5 s for 100 s
        clock.t += 0.5
        before = out.getvalue().count("\n")
        bar(step / 2, 100)
        if out.getvalue().count("\n") > before:
            written_at.append(clock.t)
    text = out.getvalue()
    assert "\r" not in text and text.endswith("\n")
    lines = text.splitlines()
    assert len(lines) == len(written_at) and len(lines) >= 9  # it does report
    gaps = [b - a for a, b in pairwise(written_at)]
    assert min(gaps[:-1]) >= 10.0  # the last one (100%) is written when it comes
    assert lines[-1].startswith("100.0% |") and "elapsed 01:40" in lines[-1]
    assert " 0/100 tables" not in text  # no empty first line in a log


def test_a_terminal_redraws_one_line_at_most_five_times_a_second():
    clock, out = Clock(), Tty()
    bar = bar_on(out, clock, total=10)
    for step in range(1, 101):
        clock.t += 0.01
        bar(step / 10, 10)
    text = out.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    assert 2 <= text.count("\r") <= 1 + 5 + 1  # the first line, ~5 in the second, the last


def test_a_compile_is_said_when_it_starts_and_kept_out_of_the_rate_and_eta():
    clock, out = Clock(), io.StringIO()
    bar = bar_on(out, clock, total=100)
    assert out.getvalue() == ""  # nothing compiles: nothing said
    bar.compile_started()  # what domeng.core.compiling calls
    bar.compile_started()  # once
    assert out.getvalue().count(COMPILING) == 1
    clock.t += 60.0
    clock.compiled = 60.0  # a minute of compiling ...
    clock.t += 10.0
    bar(50, 100)  # ... then 50 tables (500 rounds) in 10 s
    line = out.getvalue().splitlines()[-1]
    assert rate_of(line) == 50.0  # not 500 / 70 s
    assert "ETA 00:10" in line and "+ 60.0 s compiling" in line
    assert bar.elapsed == 10.0 and bar.compile_seconds == 60.0


def test_no_estimate_from_the_first_moments_after_a_compile():
    """``make run`` once printed "1.4k rounds/s  ETA 11:57" after its compile,
    for a study done 0.6 s later: the first update came from a few tables."""
    clock, out = Clock(), io.StringIO()
    bar = bar_on(out, clock, total=2000)
    bar.compile_started()
    clock.t += 12.6
    clock.compiled = 12.6
    clock.t += 0.02
    bar(1, 2000)  # drawn at once: the compile's notice is 12 s old
    line = out.getvalue().splitlines()[-1]
    assert "ETA ?" in line and "/s" not in line and "+ 12.6 s compiling" in line
    clock.t += 10.0  # a log is drawn every 10 s
    bar(1000, 2000)
    line = out.getvalue().splitlines()[-1]
    assert "ETA 00:10" in line and rate_of(line) > 0


def test_a_bar_without_a_compile_never_mentions_one():
    clock, out = Clock(), io.StringIO()
    bar = bar_on(out, clock, total=4)
    for done in (1, 2, 3, 4):
        clock.t += 20
        bar(done, 4)
    assert "compil" not in out.getvalue() and out.getvalue().count("\n") == 4


def test_a_real_compile_event_is_measured_and_announced(monkeypatch):
    from numba.core import event as ev

    out = io.StringIO()
    compiling.watch()
    bar = Progress(10, stream=out)
    notice_out = io.StringIO()
    before = compiling.seconds()
    with CompileNotice(notice_out):
        with ev.trigger_event("numba:compile", data={}):
            assert compiling.compiling()
            with ev.trigger_event("numba:compile", data={}):  # nested: counted once
                time.sleep(0.2)
    assert compiling.seconds() - before >= 0.2 and not compiling.compiling()
    assert out.getvalue().count(COMPILING) == 1
    assert re.fullmatch(re.escape(COMPILING) + r" \.\.\. \d+\.\d s\n", notice_out.getvalue())
    bar.close()


def test_nested_compiles_count_once_and_loading_from_the_cache_not_at_all(monkeypatch):
    from numba.core import event as ev

    compiling.watch()
    now = [50.0]
    monkeypatch.setattr(compiling.time, "perf_counter", lambda: now[0])
    before = compiling.seconds()
    with ev.trigger_event("numba:compile", data={}):
        now[0] += 1.0
        with ev.trigger_event("numba:compile", data={}):  # a function it calls
            now[0] += 2.0
        now[0] += 1.0
        assert compiling.seconds() - before == 4.0  # under way: counted up to now
    now[0] += 100.0  # playing (or loading machine code): no compile event
    assert compiling.seconds() - before == 4.0


def test_one_bar_for_the_parts_of_a_study_each_labelled():
    clock, out = Clock(), io.StringIO()
    bar = bar_on(out, clock, total=30)
    for k in range(3):
        part = bar.part(10 * k, f"arm {k + 1}/3 pollo={k + 3}")
        for done in (5, 10):
            clock.t += 10
            part(done, 10)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("arm 1/3 pollo=3:") and "5/30 tables" in lines[0]
    assert lines[2].startswith("arm 2/3 pollo=4:") and "15/30 tables" in lines[2]
    assert lines[-1].startswith("arm 3/3 pollo=5: 100.0% |") and "30/30" in lines[-1]
    assert "ETA 00:50" in lines[0]  # one ETA for the whole study, not for the arm


def test_work_done_before_a_resume_is_on_the_bar_not_in_its_rate():
    clock, out = Clock(), io.StringIO()
    bar = bar_on(out, clock, total=20)
    part = bar.part(0, "arm 1/2")
    part.skip(10)  # a resumed arm: 10 tables on disk
    clock.t += 10
    part(10, 10)  # reported at once ...
    clock.t += 15
    bar.part(10, "arm 2/2")(5, 10)  # ... then 5 tables played
    line = out.getvalue().splitlines()[-1]
    assert "15/20 tables" in line and rate_of(line) == 2.0  # 5 tables x 10 rounds / 25 s


def test_fractional_updates_from_within_a_chunk():
    clock, out = Clock(), io.StringIO()
    bar = bar_on(out, clock, total=2)
    clock.t += 10
    bar(0.5, 2)
    assert " 25.0% |" in out.getvalue() and "0/2 tables" in out.getvalue()


def test_the_engine_reports_reach_only_the_block_that_asked():
    seen: list[int] = []
    advance(3)  # nobody asked
    with within(seen.append):
        advance(128)
        with within(None):
            advance(7)  # an inner block without a callback
        advance(2)
    advance(5)
    assert seen == [128, 2]


def test_a_closed_stream_never_stops_the_work():
    class Closed(io.StringIO):
        def write(self, s):
            raise ValueError("I/O operation on closed file")

    clock = Clock()
    bar = bar_on(Closed(), clock, total=2)
    clock.t += 11
    bar(1, 2)
    bar(2, 2)
    assert bar.closed


@pytest.mark.parametrize("total", [None, 5])
def test_close_draws_the_last_count_once(total):
    clock, out = Clock(), io.StringIO()
    bar = bar_on(out, clock, total=total)
    clock.t += 1
    bar(3, 5)  # not drawn yet (a log: after 10 s)
    bar.close()
    bar.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and "3" in lines[0]
