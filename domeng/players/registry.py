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
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

import numba
import numpy as np

from domeng.core.defaults import PLAYER_IDS
from domeng.core.errors import PlayerError
from domeng.core.observation import Observation
from domeng.core.rng import SplitMix64
from domeng.engine.records import Move
from domeng.players import catalogue
from domeng.players.heuristics import P_CUSTOM, builtin_choose
from domeng.players.scoring import STRATEGY_SIG


@runtime_checkable
class Player(Protocol):
    """The player protocol of the reference engine.

    ``choose(obs, moves, rng)`` gets the seat's
    :class:`~domeng.core.observation.Observation` (D17), the legal moves (never
    empty) and the seat's own generator, and returns one of ``moves``.

    >>> class Lowest:
    ...     name = "lowest"
    ...     def choose(self, obs, moves, rng):
    ...         return moves[0]
    >>> isinstance(Lowest(), Player)
    True
    >>> from domeng import Table
    >>> Table(seed=7).play_round([Lowest()] * 5).kind
    'MATTIKKENG'
    """

    def choose(self, obs: Observation, moves: list[Move], rng: SplitMix64) -> Move: ...


class RandomPlayer:
    """The ``random`` player, defined exactly: with one legal move, play it
    (no draw); otherwise ``moves[rng.randbelow(len(moves))]``, the moves in
    the engine's order (by tile, then end).  On a lead the moves are the
    tiles in hand, so it picks a tile uniformly (unless D3 forces the
    double); otherwise [L|R] with L != R counts as two moves (D5).

    >>> from domeng import Table
    >>> from domeng.core.rng import SplitMix64
    >>> rnd = Table(seed=7).new_round()
    >>> RandomPlayer().choose(rnd.observation(3), rnd.legal_moves(), SplitMix64(1))
    Move(tile=27, end=0)
    """

    name = "random"

    def choose(self, obs: Observation, moves: list[Move], rng: SplitMix64) -> Move:
        if len(moves) == 1:
            return moves[0]
        return moves[rng.randbelow(len(moves))]


class CompiledPlayer:
    """A strategy over the observation arrays (see :mod:`domeng.players.heuristics`)
    run from the reference engine.  ``fn(obs, hist, moves, n_moves, rng)``
    returns an index into ``moves``.

    Parameters
    ----------
    name:
        The player's name.
    fn:
        The strategy (compiled, or a plain function over the arrays).

    Examples
    --------
    >>> make_player("hunter").name  # a built-in heuristic is one
    'hunter'
    """

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


#: the built-in players by name (the catalogue's, which says what each is)
BUILTIN_PLAYERS = catalogue.builtin_names()


def _load(target: str) -> Any:
    """The object ``module:attribute`` names."""
    mod_name, _, attr = target.partition(":")
    obj = importlib.import_module(mod_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class PlayerSpec:
    """A resolved player: a built-in of the kernel, a compiled function
    (runs in both engines at full speed), or a Python object with ``choose``
    (reference engine only: the slow path).  :func:`resolve_player` makes one.

    >>> spec = resolve_player("hunter")
    >>> spec.name, spec.kind, spec.compiled
    ('hunter', 'builtin', True)
    """

    name: str
    kind: str  # "builtin" | "compiled" | "python"
    pid: int = P_CUSTOM
    fn: Any = None
    obj: Any = None

    @property
    def compiled(self) -> bool:
        """True when the batch engine can play it (a built-in or compiled player)."""
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
    signature (a clear :class:`PlayerError` if it does not type-check).

    Parameters
    ----------
    fn:
        ``fn(obs, hist, moves, n_moves, rng) -> int``: the index of the move.
    name:
        The player's name in the error message (None: ``fn``'s name).

    Returns
    -------
    numba.core.registry.CPUDispatcher

    Examples
    --------
    >>> def first(obs, hist, moves, n_moves, rng):
    ...     return 0
    >>> type(compile_strategy(first)).__name__
    'CPUDispatcher'
    """
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
    sigs: Any = getattr(fn, "signatures", None)
    return bool(sigs) and len(sigs) == 1 and tuple(sigs[0]) == tuple(STRATEGY_SIG.args)


_SPEC_CACHE: dict[str, PlayerSpec] = {}


def resolve_player(p: Any, place: str | None = None) -> PlayerSpec:
    """Resolve a player given by name (the grammar of
    :mod:`domeng.players.catalogue`: ``hunter``, ``search-1000``,
    ``esearch-1000:eps0.1``, ``module:function``, a plugin's name), a compiled
    function, or an object with ``choose``.

    Parameters
    ----------
    p:
        A name, a :class:`PlayerSpec`, a function or an object.
    place:
        One of :data:`domeng.players.catalogue.PLACES`: a name that may not
        sit there is refused (None: anywhere).

    Returns
    -------
    PlayerSpec

    Raises
    ------
    PlayerError
        For an unknown name, a bad budget, a place it may not sit, or
        something that is not a player.

    Examples
    --------
    >>> resolve_player("Keeper").name
    'keeper'
    """
    if isinstance(p, PlayerSpec):
        return p
    if not isinstance(p, str):
        return _resolve_object(p, None)
    pn = catalogue.parse(p) if place is None else catalogue.check(p, place)
    key = pn.text
    if key in _SPEC_CACHE:
        return _SPEC_CACHE[key]
    entry = pn.entry
    if entry is not None and entry.kind == "builtin":
        assert entry.pid is not None  # every built-in has its kernel id
        return PlayerSpec(key, "builtin", entry.pid)
    if entry is None or entry.kind == "plugin":
        try:
            if entry is None:
                what = f"player module {pn.target.partition(':')[0]!r}"
                spec = _from_code(key, pn.target, what)
            else:
                what = f"the plugin {key} ({entry.make}, {entry.source})"
                spec = _from_code(key, entry.make, what, call=True)
        except PlayerError as e:  # the one wording of a refused name
            raise catalogue.refusal(p, place, str(e)) from None
    elif entry.kind == "python":
        return PlayerSpec(key, "python", obj=_load(entry.make)())
    elif entry.kind == "alias":  # ``best``: another catalogue name, under its own
        spec = replace(resolve_player(entry.make, place), name=key)
    else:
        try:
            fn = _load(entry.make)(*entry.make_args, pn.budget, **pn.kwargs())
        except ValueError as e:
            raise catalogue.refusal(p, place, f"{e}") from None
        spec = PlayerSpec(key, "compiled", P_CUSTOM, fn=fn)
    _SPEC_CACHE[key] = spec
    return spec


def _from_code(name: str, target: str, what: str, call: bool = False) -> PlayerSpec:
    """The player that ``target`` (``module:attribute``) names; a plugin's
    is called first (it returns the player, or a class of players).  Any
    failure of that code is one :class:`PlayerError` line."""
    try:
        obj = _load(target)
    except ModuleNotFoundError as e:
        raise PlayerError(f"cannot import {what}: {e}") from None
    except AttributeError:
        raise PlayerError(f"{what} has no player {target.partition(':')[2]!r}") from None
    except Exception as e:  # the module's own error on import
        raise PlayerError(f"cannot import {what}: {type(e).__name__}: {_short(e)}") from None
    if call:
        try:
            obj = obj()
        except Exception as e:
            raise PlayerError(f"{what} is broken: {type(e).__name__}: {_short(e)}") from None
        try:
            return _resolve_object(obj, name)
        except PlayerError as e:
            raise PlayerError(f"{what} is refused: {e}") from None
    return _resolve_object(obj, name)


def _short(e: BaseException) -> str:
    return " ".join(str(e).split())[:200] or type(e).__name__


def _resolve_object(obj: Any, name: Any) -> PlayerSpec:
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


def resolve_players(spec: Any, place: str | None = None) -> list[PlayerSpec]:
    """Five resolved players from ``"a,b,c,d,e"``, a list, or one player for all
    seats (``place``: as for :func:`resolve_player`); returns a list of five
    :class:`PlayerSpec` (raises :class:`PlayerError` for another number).

    >>> [p.name for p in resolve_players("random,heavy,keeper,hunter,expert")]
    ['random', 'heavy', 'keeper', 'hunter', 'expert']
    """
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
    return [resolve_player(x, place) for x in items]


def make_player(name: Any) -> Player:
    """A reference-engine player (an object with ``choose``) from a name or
    object (see :func:`resolve_player`).

    >>> type(make_player("random")).__name__
    'RandomPlayer'
    """
    return resolve_player(name).make()


def parse_players(spec: Any) -> list[str]:
    """The five players' names (validated); one name means all seats.

    >>> parse_players("hunter")
    ['hunter', 'hunter', 'hunter', 'hunter', 'hunter']
    """
    return [p.name for p in resolve_players(spec)]
