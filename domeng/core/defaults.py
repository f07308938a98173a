"""Names and defaults that the command line shows, in a module that imports
nothing: ``domeng --help`` and every ``domeng COMMAND --help`` build their
parsers from here without loading numpy, numba, pandas or matplotlib
(issue 11: ``domeng --help`` under 0.3 s).

The modules that use these values re-export them under their old names
(:mod:`domeng.players.heuristics`, :mod:`domeng.play.session`,
:mod:`domeng.play.terminal`, :mod:`domeng.study.simulate`).
"""

from __future__ import annotations

# ---------------------------------------------------------------- built-in players
#: (what each player is, its budget and where it may sit: domeng.players.catalogue)
#: kernel ids of the built-in compiled players (:mod:`domeng.players.heuristics`)
P_RANDOM = 0
P_HEAVY = 1
P_KEEPER = 2
P_HUNTER = 3
P_EXPERT = 4
PLAYER_IDS = {
    "random": P_RANDOM,
    "heavy": P_HEAVY,
    "keeper": P_KEEPER,
    "hunter": P_HUNTER,
    "expert": P_EXPERT,
}
N_BUILTIN = 5

# ---------------------------------------------------------------- studies
#: the default study of ``domeng simulate`` (about a million rounds, mixed players)
DEFAULT_TABLES = 2000
DEFAULT_ROUNDS = 500
DEFAULT_PLAYERS = ("random", "heavy", "keeper", "hunter", "random")
#: the most players a ladder takes (every lineup of five: C(12, 5) = 792),
#: every built-in player of the leaderboard (docs/leaderboard.md)
MAX_LADDER_PLAYERS = 12
#: the resolution of plot files, dots per inch (``--dpi``; :mod:`domeng.results.figures`)
PLOT_DPI = 300

# ---------------------------------------------------------------- a table with people
HUMAN = "human"
#: the seats of ``domeng play`` when none are given (a person at seat 0)
DEFAULT_SEATS = (HUMAN, "hunter", "keeper", "heavy", "random")
#: the terminal game's pause before each computer move, in seconds
DEFAULT_DELAY = 0.6
