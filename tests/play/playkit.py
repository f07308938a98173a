"""Helpers of the play tests: a terminal game driven in-process by a script
of answers, which records every screen it draws."""

from __future__ import annotations

import io
import re

from rich.console import Console

from domeng.core.tiles import parse_tile
from domeng.play.session import Session
from domeng.play.terminal import Terminal

SEATS = ["human", "hunter", "heavy", "keeper", "random"]
TOKEN = re.compile(r"\[(\d)\|(\d)\]")


def tiles_in(text: str) -> set[int]:
    """Every tile written as [a|b] in ``text``."""
    return {parse_tile(f"{a}-{b}") for a, b in TOKEN.findall(text)}


class Scripted(Terminal):
    """A terminal whose prompts are answered by ``answer(prompt, n)`` (``n``
    counts the prompts of that first word so far; None: the default, move 1
    or Enter) and which keeps every screen (``frames``: (text, session
    facts at that moment))."""

    def __init__(self, session: Session, answer=None, check=None, **kw):
        self.buf = io.StringIO()
        con = Console(
            file=self.buf,
            width=80,
            height=40,
            force_terminal=False,
            color_system=None,
            highlight=False,
        )
        self.answer = answer or (lambda prompt, n: None)
        self.counts: dict[str, int] = {}
        self.frames: list[str] = []
        self.check = check
        self.slept: list[float] = []
        kw.setdefault("delay", 0)
        super().__init__(session, console=con, read=self._reply, sleep=self.slept.append, **kw)
        self._prompt = ""

    def show(self, lines, clear=True):
        start = self.buf.tell()
        super().show(lines, clear)
        text = self.buf.getvalue()[start:]
        self.frames.append(text)
        if self.check is not None:
            self.check(self, text)

    def ask(self, prompt):
        self._prompt = prompt
        return super().ask(prompt)

    def _reply(self, _):
        kind = self._prompt.split(" ")[0]
        self.counts[kind] = self.counts.get(kind, 0) + 1
        a = self.answer(self._prompt, self.counts[kind])
        if isinstance(a, type) and issubclass(a, BaseException):
            raise a
        if a is None and self._prompt.startswith("Save the game?"):
            a = "no"  # Enter would save into the current folder: a test that saves says where
        if a is None:
            a = "1" if kind == "Your" and "Enter:" not in self._prompt else ""
        self.buf.write(a + "\n")
        return a

    @property
    def text(self) -> str:
        return self.buf.getvalue()


def play(seats=SEATS, seed=7, rounds=2, camats=None, answer=None, check=None, **kw):
    s = Session(seats, seed=seed, rounds=rounds, camats=camats)
    t = Scripted(s, answer, check, **kw)
    status = t.run()
    return t, status
