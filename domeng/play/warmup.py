"""Compile the engine before a game starts, saying so, rather than in the
middle of it (walk4: after an install ``domeng play`` was silent for about
20 s before the first computer move, and again after the person's first
move: numba compiling the engine's step and the computer players).

:func:`compile_pending` guesses whether the table's first steps will
compile (no machine code in numba's cache yet); ``domeng play`` then says
so at once and :func:`warm_up` plays one throwaway round at a table like
the game's, so everything the game runs is compiled (and cached for the
next run) before its first screen.  A search player's own compile happens
at its first move, as before (the game says so then).
"""

from __future__ import annotations

from domeng.play.session import Session

#: what ``domeng play`` says while :func:`warm_up` compiles
PREPARING = "domeng play: preparing the computer players (first run only: up to a minute)..."


def compile_pending() -> bool:
    """Will a table's first steps compile the engine (no cached machine code
    for the engine's step or the built-in players' dispatch, and not compiled
    in this process)?  A guess, never an error: when in doubt, yes
    (:func:`domeng.core.numba_cache.compile_pending`)."""
    from domeng.batch import loop
    from domeng.core.numba_cache import compile_pending as pending
    from domeng.engine import step

    return pending([step.step, loop.builtin_action])


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
