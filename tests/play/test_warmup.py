"""A first ``domeng play`` says at once that it prepares the computer players
and compiles before the game, not silently in the middle of it (walk4:
~20 s of silence before the first computer move after an install)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect
import pytest

import domeng.play.terminal as terminal
import domeng.play.warmup as warmup
from domeng.cli.main import main
from domeng.core.defaults import DEFAULT_SEATS
from domeng.play.session import Session

ROOT = Path(__file__).resolve().parents[2]
SEATS = ["human", "heavy", "human", "search-5", "keeper"]


def _play_round(s: Session) -> None:
    s.deal()
    while not s.round_over:
        s.play(s.moves()[-1].action) if s.human_to_move() else s.auto_step()


def test_warm_up_leaves_the_game_as_it_would_have_been():
    a, b = Session(SEATS, seed=11, rounds=1), Session(SEATS, seed=11, rounds=1)
    warmup.warm_up(a)
    assert a.to_save() == b.to_save()  # untouched
    _play_round(a)
    _play_round(b)
    assert a.to_save() == b.to_save() and a.standings() == b.standings()


def test_compiles_are_announced_once_and_only_within_the_block():
    """Measured, not guessed: ``say`` is called when numba really starts
    compiling (a fresh function here), once however many compile, and not
    for a function already compiled or after the block."""
    import numba

    said = []
    with warmup.announce_compiles(lambda: said.append(1)) as once:
        f = numba.njit(lambda x: x + 1)
        g = numba.njit(lambda x: x * 2)
        assert f(1) == 2 and g(2) == 4 and said == [1] and once.said
    assert f(2) == 3 and said == [1]
    with warmup.announce_compiles(lambda: said.append(2)) as quiet:
        assert f(3) == 4  # compiled already: nothing to say
    assert not quiet.said and said == [1]
    h = numba.njit(lambda x: x - 1)
    assert h(1) == 0 and said == [1]  # a compile after the block: not told


@pytest.mark.parametrize("compiles", [True, False])
def test_play_says_it_prepares_at_once_and_warms_up_first(compiles, monkeypatch, capsys):
    """``domeng play`` warms up before the game, and says PREPARING (first,
    once) exactly when the warm-up compiles."""
    import numba

    calls = []

    def fake_warm_up(session):
        calls.append("warm_up")
        if compiles:  # as on a first run: numba compiles (twice)
            numba.njit(lambda x: x + 1)(1)
            numba.njit(lambda x: x + 2)(1)

    if not compiles:  # compiled now what making the game's session compiles on a cold cache
        warmup.warm_up(Session(list(DEFAULT_SEATS), seed=3, rounds=1))
    monkeypatch.setattr(warmup, "warm_up", fake_warm_up)
    monkeypatch.setattr(terminal.Terminal, "run", lambda self: calls.append("game") or 0)
    assert main(["play", "--seed", "3", "--no-wait"]) == 0
    out = capsys.readouterr().out
    assert calls == ["warm_up", "game"]
    if compiles:
        assert out.splitlines() == [warmup.PREPARING] and "first run only" in out
    else:
        assert "preparing" not in out


@pytest.mark.slow
def test_a_cold_cache_says_so_and_a_warm_one_does_not(tmp_path):
    """End to end with an empty numba cache (NUMBA_CACHE_DIR): the message,
    then the game; the next run, with the cache filled, goes straight in."""
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(tmp_path / "cache"),
        COLUMNS="80",
        LINES="24",
        XDG_DATA_HOME=str(tmp_path),
        TERM="xterm-256color",
    )
    for cold in (True, False):
        child = pexpect.spawn(
            sys.executable,
            [
                "-m",
                "domeng",
                "play",
                "--no-wait",
                "--seed",
                "4",
                "--seats",
                "human,heavy,keeper,hunter,random",
            ],
            cwd=str(ROOT),
            env=env,
            encoding="utf-8",
            dimensions=(24, 80),
            timeout=300,
        )
        child.expect([r"Your move \[.*?\]: ", r"Press Enter[^\n]*?: "])
        assert ("first run only" in child.before) is cold
        child.sendline("quit")
        child.expect(r"File name[^\n]*?: ")
        child.sendline("n")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0


@pytest.mark.slow
def test_every_search_player_says_it_prepares_at_its_first_move():
    """Not only ``search``: ``esearch`` (and isearch, ismcts) compile at their
    first move too; the game says so instead of going silent (walk4)."""
    from playkit import play

    t, status = play(seats=["human", "esearch-3", "heavy", "keeper", "random"], seed=3, rounds=1)
    assert status == 0
    said = [f for f in t.frames if "seat 1 (esearch-3) is thinking" in f]
    assert len(said) == 1  # its first move only
    assert not any("is thinking" in f and "seat 1" not in f for f in t.frames)
    assert Session(["human", "esearch-3", "heavy", "isearch", "ismcts-4"]).is_builtin(2)
    assert not any(
        Session(["human", "esearch-3", "heavy", "isearch", "ismcts-4"]).is_builtin(i)
        for i in (1, 3, 4)
    )
