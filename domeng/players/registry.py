"""Players for the reference engine.

A player is anything with ``choose(obs, moves, rng) -> Move``: it gets its
seat's :class:`~domeng.core.observation.Observation` (D17), the legal moves
(D5, never empty: passes are made by the engine) and its seat's own generator,
and returns one of the moves.  All randomness must come from ``rng``.

:class:`RandomPlayer` is the reference definition of the ``random`` player.
The heuristic players (``heavy``, ``keeper``, ``hunter``) are the compiled
strategies of :mod:`domeng.players.heuristics`, run through the observation layout,
so they behave identically in both engines.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numba
import numpy as np

from domeng.core.errors import PlayerError
from domeng.core.observation import Observation
from domeng.core.rng import SplitMix64
from domeng.engine.reference import Move
from domeng.players.heuristics import P_CUSTOM, PLAYER_IDS, builtin_choose
from domeng.players.scoring import STRATEGY_SIG


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
    """A strategy over the observation arrays (see :mod:`domeng.players.heuristics`)
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


#: the search players, each with an optional budget ``NAME-N`` (samples per decision;
#: for ``ismcts``, iterations per decision)
SEARCH_PLAYERS = ("search", "esearch", "isearch", "nsearch", "ismcts")
BUILTIN_PLAYERS = tuple(PLAYER_IDS) + SEARCH_PLAYERS
#: the largest ``ismcts-N`` budget (its tree holds one node per iteration;
#: the twin of ``domeng.players.ismcts.MAX_ITERATIONS``, kept here so that
#: resolving a name does not import the search)
MAX_ISMCTS = 200_000


def _search_strategy(kind: str, samples: int | None) -> Callable:
    if kind == "search":
        from domeng.players.search import make_search_strategy

        return make_search_strategy(samples)
    if kind == "ismcts":  # N: iterations per decision
        from domeng.players.ismcts import make_ismcts_strategy

        return make_ismcts_strategy(samples)
    from domeng.players.isearch import make_isearch_strategy

    return make_isearch_strategy(kind, samples)


@dataclass(frozen=True)
class PlayerSpec:
    """A resolved player: a built-in of the kernel, a compiled function
    (runs in both engines at full speed), or a Python object with ``choose``
    (reference engine only: the slow path)."""

    name: str
    kind: str  # "builtin" | "compiled" | "python"
    pid: int = P_CUSTOM
    fn: Any = None
    obj: Any = None

    @property
    def compiled(self) -> bool:
        return self.kind in ("builtin", "compiled")

    def make(self) -> Player:
        """A reference-engine player for this spec."""
        if self.kind == "python":
            return self.obj
        if self.kind == "builtin" and self.pid == PLAYER_IDS["random"]:
            return RandomPlayer()
        if self.kind == "builtin":
            return CompiledPlayer(self.name, _builtin(self.pid))
        return CompiledPlayer(self.name, self.fn)


def compile_strategy(fn: Callable, name: str | None = None) -> Any:
    """A numba dispatcher of ``fn`` compiled for :data:`STRATEGY_SIG`.

    ``fn`` may be a plain Python function over the observation arrays or an
    ``@numba.njit`` function; it is compiled for exactly the kernel's player
    signature (a clear :class:`PlayerError` if it does not type-check)."""
    py = getattr(fn, "py_func", fn)
    disp = fn if _has_sig(fn) else None
    if disp is None:
        try:
            disp = numba.njit(STRATEGY_SIG, cache=False)(py)
        except Exception as e:  # numba typing errors are long: keep the first line
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise PlayerError(
                f"compiled player {name or py.__name__} does not compile for the "
                f"player signature (obs, hist, moves, n_moves, rng): {first}"
            ) from None
    return disp


def _has_sig(fn) -> bool:
    sigs = getattr(fn, "signatures", None)
    return bool(sigs) and len(sigs) == 1 and tuple(sigs[0]) == tuple(STRATEGY_SIG.args)


_SPEC_CACHE: dict[str, PlayerSpec] = {}


def resolve_player(p: Any) -> PlayerSpec:
    """Resolve a player given by name (``random``, ``heavy``, ``keeper``,
    ``hunter``, ``expert``, ``search``, ``esearch``, ``isearch``, ``nsearch``, ``ismcts``,
    each search player also as ``NAME-N`` for N samples per move (``ismcts``:
    N iterations per decision),
    ``module:function``), a compiled function, or an object with ``choose``."""
    if isinstance(p, PlayerSpec):
        return p
    if isinstance(p, str):
        key = p.strip()
        low = key.lower()
        if low in PLAYER_IDS:
            return PlayerSpec(low, "builtin", PLAYER_IDS[low])
        if low in _SPEC_CACHE:
            return _SPEC_CACHE[low]
        if low == "omniscient":  # research only: it refuses every ordinary game
            from domeng.players.omniscient import OmniscientPlayer

            return PlayerSpec("omniscient", "python", obj=OmniscientPlayer())
        kind = low.split("-", 1)[0]
        if kind in SEARCH_PLAYERS and (low == kind or low.startswith(kind + "-")):
            samples = None
            if low != kind:
                try:
                    samples = int(low.split("-", 1)[1])
                    if samples < 1 or (kind == "ismcts" and samples > MAX_ISMCTS):
                        raise ValueError
                except ValueError:
                    if kind == "ismcts":
                        raise PlayerError(
                            f"bad search budget in {p!r}: write ismcts-N with N "
                            f"from 1 to {MAX_ISMCTS:,} iterations per decision"
                        ) from None
                    raise PlayerError(
                        f"bad search budget in {p!r}: write {kind}-N with N >= 1 samples per move"
                    ) from None
            spec = PlayerSpec(low, "compiled", P_CUSTOM, fn=_search_strategy(kind, samples))
            _SPEC_CACHE[low] = spec
            return spec
        if ":" in key:
            mod_name, _, attr = key.partition(":")
            try:
                mod = importlib.import_module(mod_name)
            except Exception as e:
                raise PlayerError(f"cannot import player module {mod_name!r}: {e}") from None
            if not hasattr(mod, attr):
                raise PlayerError(f"module {mod_name!r} has no player {attr!r}")
            spec = _resolve_object(getattr(mod, attr), key)
            _SPEC_CACHE[low] = spec
            return spec
        raise PlayerError(
            f"unknown player {p!r}; built-in players: {', '.join(BUILTIN_PLAYERS)}"
            " (or module:function for your own)"
        )
    return _resolve_object(p, None)


def _resolve_object(obj: Any, name: str | None) -> PlayerSpec:
    if isinstance(obj, type):
        try:
            obj = obj()
        except Exception as e:
            raise PlayerError(f"cannot create player {name or obj.__name__}: {e}") from None
    if hasattr(obj, "choose") and callable(obj.choose):
        return PlayerSpec(name or getattr(obj, "name", type(obj).__name__), "python", obj=obj)
    if isinstance(obj, numba.core.registry.CPUDispatcher) or callable(obj):
        label = name or getattr(getattr(obj, "py_func", obj), "__name__", "custom")
        if isinstance(obj, numba.core.registry.CPUDispatcher):
            return PlayerSpec(label, "compiled", fn=compile_strategy(obj, label))
        # a plain callable: compiled if numba can, else it cannot be a player
        return PlayerSpec(label, "compiled", fn=compile_strategy(obj, label))
    raise PlayerError(
        f"{name or obj!r} is not a player: give a compiled function "
        "(obs, hist, moves, n_moves, rng) -> index, or an object with choose()"
    )


def resolve_players(spec: Any) -> list[PlayerSpec]:
    """Five resolved players from ``"a,b,c,d,e"``, a list, or one player for all seats."""
    if isinstance(spec, str):
        items = [s for s in (x.strip() for x in spec.split(",")) if s]
    elif isinstance(spec, (list, tuple)):
        items = list(spec)
    else:
        items = [spec]
    if len(items) == 1:
        items = items * 5
    if len(items) != 5:
        raise PlayerError(f"give one player for all seats or five, one per seat; got {len(items)}")
    return [resolve_player(x) for x in items]


def make_player(name: Any) -> Player:
    """A reference-engine player from a name or object (see :func:`resolve_player`)."""
    return resolve_player(name).make()


def parse_players(spec: Any) -> list[str]:
    """The five players' names (validated); one name means all seats."""
    return [p.name for p in resolve_players(spec)]
