"""The game's ``help`` is wrapped to the terminal's width (walk4: its
paragraphs broke at about 60 characters after the awards were filled in,
and a narrow terminal cropped its lines)."""

from __future__ import annotations

import itertools

import pytest
from playkit import Scripted
from rich.console import Console

from domeng.core.rules import Rules
from domeng.play.session import Session


def _help_screen(width: int, rules: Rules) -> list[str]:
    s = Session(["human", "heavy", "keeper", "hunter", "random"], rules=rules, seed=7, rounds=1)
    t = Scripted(
        s,
        answer=lambda prompt, n: (
            "help"
            if prompt.startswith("Your") and n == 1
            else ("quit" if prompt.startswith("Your") else None)
        ),
    )
    t.con = Console(
        file=t.buf, width=width, height=40, force_terminal=False, color_system=None, highlight=False
    )
    t.run()
    frame = next(f for f in t.frames if "Commands at any prompt" in f)
    return frame.rstrip("\n").split("\n")


@pytest.mark.parametrize("width", [50, 80, 100])
def test_help_fills_the_terminal_width_and_never_crops(width):
    rules = Rules.parse(["pollo=12", "pass_award=3"])
    lines = _help_screen(width, rules)
    room = min(width, 100) - 1
    assert all(len(ln) <= room for ln in lines), [ln for ln in lines if len(ln) > room]
    text = " ".join(" ".join(lines).split())
    assert "5 for a POLLO" not in text and "12 for a POLLO" in text and "A PASS earns 3" in text
    assert "every stone returns to the table." in text and "Ctrl-D also leave" in text
    # filled: a line ends early only where its paragraph or a command's entry ends
    for ln, nxt in itertools.pairwise(lines):
        first_word = nxt.split()[0] if nxt.strip() else ""
        if nxt.startswith(" " * 17) and not ln.startswith("Commands"):  # a command's 2nd line
            first_word = nxt.strip().split()[0]
        elif nxt.startswith(("  ", "Commands", "Stones")) or not nxt.strip():
            continue
        assert len(ln) + 1 + len(first_word) > room, (ln, nxt)
