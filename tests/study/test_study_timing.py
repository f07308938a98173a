"""What a study says about its time (walk4 findings, fixes4a items 2 and 3):
a study that stops on the data has an honest progress bar (tables so far,
no percentage or ETA, ended cleanly), and the engine's first compile is
reported apart from the simulation's time and rate."""

from __future__ import annotations

import io
import re
import time

import numpy as np
import pytest

import domeng
from domeng.batch import tables as batch_tables
from domeng.cli.main import main
from domeng.infra.progress import Progress
from domeng.study import summary
from domeng.study.sequential import simulate_until

#: the pause of the stand-in compile (a lower bound, never a timing race)
PAUSE = 0.3


def test_an_open_ended_bar_shows_the_count_without_percentage_or_eta():
    out = io.StringIO()
    bar = Progress(None, unit="table", per_item=10, stream=out)
    for done in (100, 200, 300):
        bar(done, 10_000)  # the cap, not where the study stops
    bar.close()
    bar.close()  # once
    text = out.getvalue()
    assert "%" not in text and "ETA" not in text and "/10000" not in text
    assert text.endswith("\n") and text.count("\n") == 1
    assert text.replace("\r", "\n").strip().splitlines()[-1].startswith("300 tables, ")


def test_a_study_that_stops_on_the_data_ends_its_bar(capsys):
    res = simulate_until(
        ["passebunge_per_round=0.05"], rounds=20, max_rounds=40_000, seed=3, progress=True
    )
    err = capsys.readouterr().err
    assert "%" not in err and "ETA" not in err
    assert err.endswith("\n") and err.count("\n") == 1
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith(f"{res.tables:,} tables, "), last


class SlowCompile:
    """The engine "still to compile" (until the warm-up round has run, which
    takes at least PAUSE s); ``calls``: (table_start, n_tables, rounds) of each."""

    def __init__(self) -> None:
        self.pending, self.calls = True, []


@pytest.fixture
def slow_compile(monkeypatch):
    state = SlowCompile()
    real = batch_tables.run_tables

    def warm_up(*args, **kwargs):
        state.calls.append(args[3:6])
        time.sleep(PAUSE)
        state.pending = False
        return real(*args, **kwargs)

    monkeypatch.setattr(summary, "compile_pending", lambda players=None: state.pending)
    monkeypatch.setattr(batch_tables, "run_tables", warm_up)
    return state


def test_the_first_compile_is_kept_out_of_the_study_time(slow_compile, monkeypatch):
    t0 = time.perf_counter()
    res = domeng.simulate(tables=6, rounds=4, seed=2, progress=False)
    wall = time.perf_counter() - t0
    assert slow_compile.calls == [(0, 1, 1)]  # one round of table 0, once
    assert res.meta["compile_seconds"] >= PAUSE
    assert res.meta["elapsed_seconds"] + res.meta["compile_seconds"] <= wall
    # the warm-up round changes no number
    monkeypatch.setattr(summary, "compile_pending", lambda players=None: False)
    plain = domeng.simulate(tables=6, rounds=4, seed=2, progress=False)
    assert plain.meta["compile_seconds"] == 0.0 and slow_compile.calls == [(0, 1, 1)]
    assert np.array_equal(res.group_agg, plain.group_agg)
    assert np.array_equal(res.group_state, plain.group_state)
    assert res.summary() == plain.summary()


def test_the_final_line_reports_the_compile_apart(slow_compile, capsys):
    assert main(["simulate", "-t", "4", "-r", "5", "--no-progress"]) == 0
    out = capsys.readouterr().out
    m = re.search(
        r"\n20 rounds in ([\d.]+) s \(([\d,]+) rounds/s\) \+ ([\d.]+) s compiling "
        r"the engine \(first run only\)\n",
        out,
    )
    assert m, out
    assert float(m[3]) >= PAUSE


def test_a_study_that_stops_on_the_data_keeps_the_compile_apart(slow_compile):
    res = simulate_until(
        ["passebunge_per_round=0.05"], rounds=20, max_rounds=40_000, seed=3, progress=False
    )
    assert res.meta["compile_seconds"] >= PAUSE and slow_compile.calls == [(0, 1, 1)]


def test_no_compile_no_mention(monkeypatch, capsys):
    monkeypatch.setattr(summary, "compile_pending", lambda players=None: False)
    assert main(["simulate", "-t", "4", "-r", "5", "--no-progress"]) == 0
    assert "compiling" not in capsys.readouterr().out
