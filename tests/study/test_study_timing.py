"""What a study says about its time (walk4 findings, fixes4a items 2 and 3):
a study that stops on the data has an honest progress bar (tables so far,
no percentage or ETA, ended cleanly), and the engine's first compile is
measured (never guessed) and reported apart from the simulation's time and rate."""

from __future__ import annotations

import io
import re
import time

import numpy as np
import pyarrow.parquet as pq
import pytest

import domeng
from domeng.cli.main import main
from domeng.infra.progress import COMPILING, Progress
from domeng.study import chunks
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


@pytest.fixture
def slow_compile(monkeypatch):
    """The engine's first call "compiles" for PAUSE s: a real ``numba:compile``
    event (what numba announces around a compile), measured by
    :mod:`domeng.core.compiling`; returns the calls made."""
    from numba.core import event as ev

    calls: list = []
    real = chunks.run_tables

    def compile_then_play(*args, **kwargs):
        calls.append(args[3:6])
        if len(calls) == 1:
            with ev.trigger_event("numba:compile", data={}):
                time.sleep(PAUSE)
        return real(*args, **kwargs)

    monkeypatch.setattr(chunks, "run_tables", compile_then_play)
    return calls


def test_the_first_compile_is_kept_out_of_the_study_time(slow_compile):
    t0 = time.perf_counter()
    res = domeng.simulate(tables=6, rounds=4, seed=2, progress=False)
    wall = time.perf_counter() - t0
    assert res.meta["compile_seconds"] >= PAUSE
    assert res.meta["elapsed_seconds"] + res.meta["compile_seconds"] <= wall
    plain = domeng.simulate(tables=6, rounds=4, seed=2, progress=False)  # nothing compiles
    assert plain.meta["compile_seconds"] < PAUSE
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


def test_the_bar_says_compiling_when_it_compiles_and_only_then(slow_compile, capsys):
    assert main(["simulate", "-t", "4", "-r", "5"]) == 0
    err = capsys.readouterr().err
    assert err.count(COMPILING) == 1 and "\r" not in err  # stderr is not a terminal here
    assert main(["simulate", "-t", "4", "-r", "5"]) == 0  # warm: nothing compiles
    captured = capsys.readouterr()
    assert "compiling" not in captured.err and "compiling" not in captured.out
    assert captured.err.startswith("100.0% |")


def test_a_study_that_stops_on_the_data_keeps_the_compile_apart(slow_compile):
    res = simulate_until(
        ["passebunge_per_round=0.05"], rounds=20, max_rounds=40_000, seed=3, progress=False
    )
    assert res.meta["compile_seconds"] >= PAUSE
    assert res.meta["elapsed_seconds"] is not None and res.meta["elapsed_seconds"] > 0


def test_no_compile_no_mention(capsys):
    domeng.simulate(tables=4, rounds=5, progress=False)  # warm the engine in this process
    assert main(["simulate", "-t", "4", "-r", "5", "--no-progress"]) == 0
    assert "compiling" not in capsys.readouterr().out


class Recorder:
    """A progress callable that takes the updates from within a chunk too."""

    fractional = True

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, done: float, total: int) -> None:
        self.calls.append(done)


def test_the_bar_moves_within_a_chunk_of_python_players():
    from domeng.players.registry import RandomPlayer

    rec = Recorder()
    kw = dict(tables=2, rounds=6, chunk_tables=2, seed=4)
    res = domeng.simulate(players=[RandomPlayer() for _ in range(5)], progress=rec, **kw)
    inside = [c for c in rec.calls if 0 < c < 2]
    assert len(inside) >= 11  # a report per round played (12), not one per chunk
    assert inside == sorted(inside) and rec.calls[-1] == 2
    plain = domeng.simulate(players=[RandomPlayer() for _ in range(5)], progress=False, **kw)
    assert res.summary() == plain.summary()  # reporting changes no number


def test_the_bar_moves_within_a_chunk_of_compiled_players(tmp_path):
    """Off the aggregate-mode loop (records here; ``search`` likewise) the
    engine's first slice is one round at one table per thread, so the first
    report comes after one table-round, not after the chunk."""
    rec = Recorder()
    kw = dict(tables=4, rounds=50, chunk_tables=4, seed=5, workers=1)
    res = domeng.simulate(records=tmp_path / "a.parquet", progress=rec, **kw)
    assert rec.calls[0] == 1 / 50
    assert len([c for c in rec.calls if 0 < c < 4]) >= 2 and rec.calls[-1] == 4
    plain = domeng.simulate(records=tmp_path / "b.parquet", progress=False, **kw)
    assert np.array_equal(res.group_agg, plain.group_agg)
    assert pq.read_table(tmp_path / "a.parquet").equals(pq.read_table(tmp_path / "b.parquet"))


def test_a_user_callable_still_gets_whole_chunks_only():
    calls: list = []
    domeng.simulate(tables=5, rounds=40, chunk_tables=2, progress=lambda d, t: calls.append(d))
    assert calls == [2, 4, 5]


class SlowWatch:
    """A stopwatch on which every chunk takes 100 s (and nothing compiles)."""

    compile_seconds = 0.0

    def __init__(self) -> None:
        self.now = 0.0

    @property
    def compute_seconds(self) -> float:
        self.now += 100.0
        return self.now


def test_a_resumed_study_counts_the_compute_of_every_run(tmp_path, monkeypatch, capsys):
    d = tmp_path / "study"
    real = chunks.chunk_task
    played: list = []

    def two_then_kill(plan, index, threads=None, **kw):
        if len(played) == 2:
            raise KeyboardInterrupt  # a kill between chunks
        played.append(index)
        return real(plan, index, threads, **kw)

    monkeypatch.setattr(chunks, "chunk_task", two_then_kill)
    monkeypatch.setattr(chunks, "Stopwatch", SlowWatch)
    argv = ["simulate", "-t", "8", "-r", "5", "--chunk-tables", "2", "--out", str(d)]
    assert main(argv) == 130
    monkeypatch.undo()
    err = capsys.readouterr().err
    # the message names the command that goes on with what was played
    assert f"domeng: interrupted; what was played is kept in {d}: go on with " in err
    assert f"`domeng simulate --resume {d}`" in err
    t0 = time.perf_counter()
    assert main(["simulate", "--resume", str(d), "--no-progress"]) == 0
    wall = time.perf_counter() - t0
    out = capsys.readouterr().out
    m = re.search(r"\n40 rounds in ([\d.]+) s \(([\d,]+) rounds/s\)", out)
    assert m, out
    # the two chunks of the first run (100 s each) and this run's own time
    assert 200.0 <= float(m[1]) <= 200.0 + wall + 0.1
    assert int(m[2].replace(",", "")) <= 1  # 40 rounds in 200 s, not in a few ms
    saved = domeng.Results.load(d)
    assert 200.0 <= saved.meta["elapsed_seconds"] <= 200.0 + wall
    assert "simulation time" in (d / "report.html").read_text()
