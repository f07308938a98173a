"""Hot-seat ``domeng play`` leaves nothing of a person's hand where the next
person could scroll back to it (D17; found by the walk4 new-user walk: the
previous person's hand stayed in the terminal's scrollback at the next
"look away" gate).  Each private view is drawn on the alternate screen and
leaving it clears screen and scrollback
(:data:`~domeng.play.terminal.PRIVATE_ON` / ``PRIVATE_OFF``); with one person
nothing changes.  In-process on a terminal console, and end to end in tmux
(``capture-pane -S -``: the whole history) when tmux is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from playkit import Scripted, tiles_in
from rich.console import Console

from domeng.play.session import Session
from domeng.play.terminal import PRIVATE_OFF, PRIVATE_ON

ROOT = Path(__file__).resolve().parents[2]
HOT = ["human", "heavy", "human", "heavy", "heavy"]


def _run_on_terminal(seats, seed=5, rounds=1) -> str:
    """A whole game with default answers, on a console that is a terminal
    (so the screen-control sequences are written); everything written."""
    t = Scripted(Session(seats, seed=seed, rounds=rounds))
    t.con = Console(
        file=t.buf,
        width=80,
        height=40,
        force_terminal=True,
        color_system=None,
        highlight=False,
        legacy_windows=False,
    )
    assert t.run() == 0
    return t.text


def _private_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every PRIVATE_ON .. PRIVATE_OFF span; they must
    alternate, opening with ON and each closed."""
    spans, pos = [], 0
    while True:
        on = text.find(PRIVATE_ON, pos)
        off = text.find(PRIVATE_OFF, pos)
        if on < 0:
            assert off < 0, "a PRIVATE_OFF without its PRIVATE_ON"
            return spans
        assert off > on, "a private view never closed"
        nxt = text.find(PRIVATE_ON, on + 1)
        assert nxt < 0 or nxt > off, "private views nested"
        spans.append((on, off + len(PRIVATE_OFF)))
        pos = off + len(PRIVATE_OFF)


def test_every_private_view_is_on_the_alternate_screen_and_cleared_after():
    assert "\x1b[?1049h" in PRIVATE_ON and PRIVATE_OFF.endswith("\x1b[?1049l")
    assert "\x1b[3J" in PRIVATE_OFF  # the scrollback too, where there is no alternate screen
    text = _run_on_terminal(HOT)
    spans = _private_spans(text)
    turns = text.count("Press Enter to see your hand")
    assert turns >= 2 and len(spans) == turns  # one private view per gate passed
    inside = "".join(text[a:b] for a, b in spans)
    cuts = [0] + [x for span in spans for x in span] + [len(text)]
    outside = "".join(text[a:b] for a, b in zip(cuts[::2], cuts[1::2]))
    assert "Your hand:" in inside and "Your move" in inside
    for private in ("Your hand:", "Your move", "Your moves:"):
        assert private not in outside, private
    # every gate is drawn outside a private view, after the previous one closed
    assert outside.count("look away please") == turns


def test_one_person_keeps_the_screen_as_it_was():
    text = _run_on_terminal(["human", "heavy", "keeper", "hunter", "random"])
    assert "Your hand:" in text
    assert "\x1b[?1049" not in text and "\x1b[3J" not in text


# ---------------------------------------------------------------- end to end in tmux


def _hidden_at_second_gate() -> tuple[set[int], int]:
    """Seed 5, seats HOT: seat 2 leads the forced [6|6], the computers move,
    then seat 0's gate.  The tiles nobody at the table may see then (every
    hand and the 3 out of play), and whose gate it is."""
    s = Session(HOT, seed=5)
    s.deal()
    assert s.to_move == 2 and len(s.moves()) == 1
    s.play(s.moves()[0].action)
    while not s.human_to_move():
        s.auto_step()
    g = s.game
    hidden = set(next(ev for ev in g.events if ev["type"] == "deal")["out"])
    for seat in range(5):
        hidden |= set(g.hand(seat))
    return hidden, s.to_move


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_tmux_history_at_the_gate_shows_no_hand(tmp_path):
    hidden, gate_seat = _hidden_at_second_gate()
    sock = f"domeng-test-{uuid.uuid4().hex[:8]}"
    tmux = ["tmux", "-L", sock, "-f", os.devnull]
    cmd = (
        f"cd {ROOT} && env XDG_DATA_HOME={tmp_path} {sys.executable} -m domeng play "
        f"--seats {','.join(HOT)} --no-wait --seed 5; sleep 60"
    )

    def capture() -> str:
        return subprocess.run(
            tmux + ["capture-pane", "-p", "-J", "-S", "-", "-t", "hs"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    def wait_for(what: str) -> str:
        deadline = time.monotonic() + 180  # a cold first run compiles the engine
        while time.monotonic() < deadline:
            text = capture()
            if what in text:
                return text
            time.sleep(0.2)
        pytest.fail(f"never saw {what!r}; the pane:\n{capture()}")

    subprocess.run(
        tmux + ["new-session", "-d", "-s", "hs", "-x", "120", "-y", "45", cmd], check=True
    )
    try:
        wait_for("seat 2 (person): your turn; the others look away")
        subprocess.run(tmux + ["send-keys", "-t", "hs", "Enter"], check=True)
        wait_for("Your move [Enter: [6|6]")
        subprocess.run(tmux + ["send-keys", "-t", "hs", "Enter"], check=True)
        history = wait_for(f"seat {gate_seat} (person): your turn; the others look away")
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)
    assert "Your hand" not in history and "Your move" not in history
    seen = tiles_in(history)
    assert seen, "the public table (the chain, the events) names tiles"
    assert not seen & hidden, f"hidden tiles in the terminal's history: {seen & hidden}"
