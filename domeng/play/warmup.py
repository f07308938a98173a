"""Compile the engine before a game starts, saying so, rather than in the
middle of it (walk4: after an install ``domeng play`` was silent for about
20 s before the first computer move, and again after the person's first
move: numba compiling the engine's step and the computer players).

:func:`warm_up` plays one throwaway round at a table like the game's, so
everything the game runs is compiled (and cached for the next run) before
its first screen; with the machine code cached it takes milliseconds.
:func:`announce_compiles` says :data:`PREPARING` once, at the moment numba
really starts compiling (measured by :mod:`domeng.core.compiling`, as the
progress bar is; nothing is guessed from numba's cache files), and says
nothing when everything was cached.  A search player's own compile happens
at its first move, as before (the game says so then).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from domeng.core import compiling
from domeng.play.session import Session

#: what ``domeng play`` says while :func:`warm_up` compiles
PREPARING = "domeng play: preparing the computer players (first run only: up to a minute)..."


class _Once:
    """Told by :mod:`domeng.core.compiling` when a compile starts: says it once."""

    def __init__(self, say: Callable[[], None]) -> None:
        self.say, self.said = say, False

    def compile_started(self) -> None:
        if not self.said:
            self.said = True
            self.say()


@contextmanager
def announce_compiles(say: Callable[[], None]) -> Iterator[_Once]:
    """Within the block, call ``say()`` once, when numba first starts
    compiling (not at all when everything is loaded from the cache).  The
    object yielded tells afterwards (``.said``) whether it was called."""
    once = _Once(say)
    compiling.notify(once)
    try:
        yield once
    finally:
        compiling.forget(once)


def warm_up(session: Session) -> None:
    """Play one throwaway round at a table like ``session``'s (its rules, its
    people and built-in players; ``random`` for a search player) so that the
    engine and the players are compiled now.  ``session`` is not touched."""
    seats = [name if session.is_builtin(i) else "random" for i, name in enumerate(session.seats)]
    w = Session(seats, rules=session.rules, seed=0, rounds=1)
    w.deal()
    while not w.round_over:
        if w.human_to_move():
            seat = w.to_move
            w.view(seat)
            w.play(w.moves()[0].action)
        else:
            w.auto_step()
    w.view(None)
    w.standings()
