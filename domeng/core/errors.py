"""Exceptions of the domeng package.  Every error a user can cause derives
from :class:`DomengError`, so callers (and the CLI) can catch it in one place
and show its message as one line."""


class DomengError(Exception):
    """Base class of every error caused by bad input to domeng."""


class TileError(DomengError, ValueError):
    """Tile text or a tile id that is not a tile of the double-six set."""


class RulesError(DomengError, ValueError):
    """An unknown rule option, or a value of the wrong type or range."""


class IllegalMoveError(DomengError, ValueError):
    """A move that the rules do not allow now (the state is left unchanged)."""


class PlayerError(DomengError, ValueError):
    """An unknown player name, or a player that returned an invalid move."""
