"""Players for the reference engine.

A player is anything with ``choose(obs, moves, rng) -> Move``: it gets its
seat's :class:`~domeng.observation.Observation` (D17), the legal moves
(D5, never empty: passes are made by the engine) and the table's generator,
and returns one of the moves.  All randomness must come from ``rng``.

:class:`RandomPlayer` is the reference definition of the ``random`` player.
The heuristic players (``heavy``, ``keeper``, ``hunter``) are the compiled
strategies of :mod:`domeng.strategies`, run through the observation layout,
so they behave identically in both engines.
"""

from __future__ import annotations

from typing import Callable, Protocol, Sequence, runtime_checkable

import numpy as np

from .engine import Move
from .errors import PlayerError
from .observation import Observation
from .rng import SplitMix64
from .strategies import PLAYER_IDS, builtin_choose


@runtime_checkable
class Player(Protocol):
    """The player protocol of the reference engine."""

    def choose(self, obs: Observation, moves: list[Move], rng: SplitMix64) -> Move: ...


class RandomPlayer:
    """The ``random`` player, defined exactly: with one legal move, play it
    (no draw); otherwise ``moves[rng.randbelow(len(moves))]``, the moves in
    the engine's order (by tile, then end).  On a lead the moves are the
    tiles in hand, so it picks a tile uniformly (unless D3 forces the
    double); otherwise [L|R] with L != R counts as two moves (D5)."""

    name = "random"

    def choose(self, obs: Observation, moves: list[Move], rng: SplitMix64) -> Move:
        if len(moves) == 1:
            return moves[0]
        return moves[rng.randbelow(len(moves))]


class CompiledPlayer:
    """A strategy over the observation arrays (see :mod:`domeng.strategies`)
    run from the reference engine.  ``fn(obs, hist, moves, n_moves, rng)``
    returns an index into ``moves``."""

    def __init__(self, name: str, fn: Callable) -> None:
        self.name = name
        self.fn = fn

    def choose(self, obs: Observation, moves: list[Move], rng: SplitMix64) -> Move:
        o, hist = obs.to_array()
        enc = np.array([m.tile * 2 + m.end for m in moves], dtype=np.int64)
        state = np.array([rng.state], dtype=np.uint64)
        i = int(self.fn(o, hist, enc, len(moves), state))
        rng.state = int(state[0])
        if not 0 <= i < len(moves):
            raise PlayerError(f"player {self.name} returned move index {i} of {len(moves)}")
        return moves[i]


def _builtin(pid: int) -> Callable:
    def fn(obs, hist, moves, n_moves, rng):
        return builtin_choose(pid, obs, hist, moves, n_moves, rng)
    return fn


BUILTIN_PLAYERS = tuple(PLAYER_IDS)


def make_player(name: str) -> Player:
    """A reference-engine player by built-in name."""
    key = name.strip().lower()
    if key == "random":
        return RandomPlayer()
    if key in PLAYER_IDS:
        return CompiledPlayer(key, _builtin(PLAYER_IDS[key]))
    raise PlayerError(f"unknown player {name!r}; built-in players: {', '.join(BUILTIN_PLAYERS)}")


def parse_players(spec: str | Sequence[str]) -> list[str]:
    """Five player names from ``"random,heavy,..."`` or a list; one name means all seats."""
    names = [s.strip().lower() for s in (spec.split(",") if isinstance(spec, str) else spec)]
    if len(names) == 1:
        names = names * 5
    if len(names) != 5:
        raise PlayerError(f"give one player for all seats or five, one per seat; got {len(names)}")
    for n in names:
        if n not in PLAYER_IDS:
            raise PlayerError(f"unknown player {n!r}; built-in players: {', '.join(BUILTIN_PLAYERS)}")
    return names
