"""Domeng's players as agents over the environments' observations (issue 25,
item 6): ``domeng.players.load("expert")`` (or ``domeng.load_player``) is a policy
``policy(observation, action_mask) -> action`` for the PettingZoo and
Gymnasium environments, and :meth:`Agent.bot` an OpenSpiel bot, so that an
agent of your own can be measured against every built-in player.

An :class:`Agent` decides exactly as the built-in player does in the engine.
The observation vector (:mod:`domeng.core.encoding`) is decoded back into
the observation layout every player reads (:func:`decode`: the seat's D17
view and the round's public history; the vector holds the order, seat and
end of every play, so every pass follows from the turn order, D1), the legal
moves are the mask's (D5: ``PASS`` alone is played without asking the
player), and the player is called with the seat's generator as in the
engine.  So it sees only what the observation holds (D17) and, given the
same generator state (:attr:`Agent.rng_state`), makes the same move and the
same draws as the built-in seated in a study (``tests/envs/test_agents.py``
checks both, move by move, for several players).

The agent's generator starts as the stream of seat ``seat`` at table
``table`` of a study seeded ``seed`` (:func:`domeng.core.rng.seat_state`;
:meth:`Agent.reseed`).  The deterministic heuristics (``heavy``, ``keeper``,
``hunter``, ``expert``) draw only to break ties; ``random`` and the search
players draw at every decision with two or more moves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from domeng.core.encoding import OBS_SIZE, OFFSET
from domeng.core.errors import DomengError, PlayerError
from domeng.core.observation import (
    MAX_TURNS,
    OBS_CAMAT,
    OBS_CHAIN,
    OBS_D3_DOUBLE,
    OBS_D3_OPENER,
    OBS_HAND,
    OBS_HAND_SIZE,
    OBS_HAS_PLAYED,
    OBS_LAST_MAPPANO,
    OBS_LEFT,
    OBS_LEN,
    OBS_MUST_LEAD,
    OBS_PASSES,
    OBS_PLAYED_BY,
    OBS_RIGHT,
    OBS_ROUND,
    OBS_RULES,
    OBS_SEAT,
    OBS_STARTER,
    OBS_STONES,
    OBS_TABLE,
    OBS_TURN,
    OBS_VOID,
)
from domeng.core.rng import seat_state
from domeng.core.rules import R_LEN, R_OPENER_LEADS_DOUBLE
from domeng.core.tiles import DOUBLE_OF
from domeng.engine import kernel as K
from domeng.engine.step import N_ACTIONS, PASS
from domeng.players import catalogue
from domeng.players.heuristics import N_BUILTIN, builtin_choose
from domeng.players.registry import resolve_player

_BITS = np.int64(1) << np.arange(28, dtype=np.int64)
_NUMBERS = np.int64(1) << np.arange(7, dtype=np.int64)


def _mask(bits: np.ndarray, weights: np.ndarray = _BITS) -> int:
    return int(weights[bits > 0.5].sum())


def _one_hot(block: np.ndarray) -> int:
    """The index of the one set slot of a one-hot block, -1 when none is."""
    hot = np.flatnonzero(block > 0.5)
    return int(hot[0]) if hot.size else -1


def _check_vector(vec: Any) -> np.ndarray:
    v = np.asarray(vec)
    if v.shape != (OBS_SIZE,) or not np.issubdtype(v.dtype, np.number):
        raise DomengError(
            f"an observation is a vector of {OBS_SIZE} numbers "
            f"(domeng.core.encoding), got shape {v.shape}"
        )
    if _one_hot(v[OFFSET["seat"] : OFFSET["seat"] + 5]) < 0:
        raise DomengError("the observation names no seat (its seat block is all 0)")
    return v


def decode(vec: Any) -> tuple[np.ndarray, np.ndarray]:
    """The observation layout ``(obs, hist)`` (:mod:`domeng.core.observation`)
    of an observation vector (:func:`domeng.core.encoding.encode`): what the
    players read, rebuilt from what the vector holds, which is all of it.

    ``hist`` lists the turns in order: the turns go clockwise from the
    starter (D1), and between two plays the seats in turn passed (at most
    four of them: after four passes the LAST MAPPANO plays or the round is
    blocked, D11).  D3 shows in the first round of a game (every episode is
    a fresh game, D16): its starter holds the highest double, which it must
    lead unless the rules say otherwise (then ``OBS_D3_DOUBLE`` is that
    double for the whole round).

    Parameters
    ----------
    vec:
        An observation vector, ``float32[OBS_SIZE]``.

    Returns
    -------
    tuple of numpy.ndarray
        ``obs`` (``int64[OBS_LEN]``) and ``hist`` (``int64[MAX_TURNS, 3]``,
        ``-1`` past the turns taken), as :func:`domeng.engine.step.observe`
        and :func:`~domeng.engine.step.observe_history` give them.

    Examples
    --------
    >>> import numpy as np
    >>> from domeng.engine.game import Game
    >>> from domeng.core.encoding import encode
    >>> g = Game(seed=7)
    >>> _ = g.new_round(); _ = g.step(54)  # seat 3 leads [6|6] (D3)
    >>> vec = np.zeros(OBS_SIZE, dtype=np.float32)
    >>> encode(g.observe(4), g.history(), vec)
    >>> obs, hist = decode(vec)
    >>> int(obs[OBS_SEAT]), int(obs[OBS_STARTER]), hist[0].tolist()
    (4, 3, [3, 27, 0])
    >>> bool((obs == g.observe(4)).all())
    True
    """
    v = _check_vector(vec)

    def block(name: str, size: int) -> np.ndarray:
        return v[OFFSET[name] : OFFSET[name] + size]

    me = _one_hot(block("seat", 5))
    obs = np.zeros(OBS_LEN, dtype=np.int64)

    def seat(rel: int) -> int:
        return -1 if rel < 0 else (me + rel) % 5

    obs[OBS_SEAT] = me
    obs[OBS_ROUND] = round(float(block("round", 1)[0]))
    obs[OBS_STARTER] = seat(_one_hot(block("starter", 5)))
    obs[OBS_CAMAT] = seat(_one_hot(block("camat", 5)))
    obs[OBS_TABLE] = round(float(block("table", 1)[0]))
    obs[OBS_HAND] = _mask(block("hand", 28))
    obs[OBS_CHAIN] = _mask(block("chain", 28))
    left = _one_hot(block("left", 7))
    obs[OBS_LEFT] = left
    obs[OBS_RIGHT] = _one_hot(block("right", 7))
    played_by = block("played_by", 140).reshape(5, 28)
    void = block("void", 35).reshape(5, 7)
    for r in range(5):
        s = seat(r)
        obs[OBS_STONES + s] = round(float(block("stones", 5)[r]))
        obs[OBS_HAND_SIZE + s] = round(float(block("hand_size", 5)[r]))
        obs[OBS_PLAYED_BY + s] = _mask(played_by[r])
        obs[OBS_VOID + s] = _mask(void[r], _NUMBERS)
        obs[OBS_HAS_PLAYED + s] = int(block("has_played", 5)[r] > 0.5)
    obs[OBS_LAST_MAPPANO] = seat(_one_hot(block("last_mappano", 5)))
    turns = round(float(block("turn", 1)[0]))
    obs[OBS_TURN] = turns
    obs[OBS_PASSES] = round(float(block("passes_since_play", 1)[0]))
    must = _one_hot(block("must_lead", 7))
    obs[OBS_MUST_LEAD] = -1 if must < 0 or left >= 0 else int(DOUBLE_OF[must])
    obs[OBS_RULES : OBS_RULES + R_LEN] = np.rint(block("rules", R_LEN)).astype(np.int64)
    hist = _history(v, obs, played_by)
    # D3: the first round of a game; the double the opener must lead (or led)
    obs[OBS_D3_OPENER] = int(obs[OBS_ROUND] == 1)
    if obs[OBS_D3_OPENER] and obs[OBS_RULES + R_OPENER_LEADS_DOUBLE]:
        obs[OBS_D3_DOUBLE] = obs[OBS_MUST_LEAD] if turns == 0 else hist[0, 1]
    else:
        obs[OBS_D3_DOUBLE] = -1
    return obs, hist


def _history(v: np.ndarray, obs: np.ndarray, played_by: np.ndarray) -> np.ndarray:
    """The round's public history rebuilt from the plays' order, seats and
    ends (see :func:`decode`)."""
    hist = np.full((MAX_TURNS, 3), -1, dtype=np.int64)
    order = np.rint(v[OFFSET["play_order"] : OFFSET["play_order"] + 28] * 25.0).astype(np.int64)
    ends = v[OFFSET["play_end"] : OFFSET["play_end"] + 28]
    plays = sorted((int(order[t]), t) for t in np.flatnonzero(order > 0))
    me, starter, turns = int(obs[OBS_SEAT]), int(obs[OBS_STARTER]), int(obs[OBS_TURN])
    if turns > MAX_TURNS or len(plays) > turns:
        raise DomengError(f"the observation's history does not fit its {turns} turns")
    i = 0
    for _, t in plays:
        by = np.flatnonzero(played_by[:, t] > 0.5)
        if by.size != 1:
            raise DomengError(f"the observation shows tile {t} played but not by one seat")
        s = (me + int(by[0])) % 5
        while i < turns and (starter + i) % 5 != s:
            hist[i] = ((starter + i) % 5, -1, 0)  # a pass (D5, D6)
            i += 1
        if i >= turns:
            raise DomengError("the observation's plays do not follow the turn order (D1)")
        hist[i] = (s, t, int(ends[t] > 0.5))
        i += 1
    for k in range(i, turns):
        hist[k] = ((starter + k) % 5, -1, 0)
    return hist


class Agent:
    """A player of the catalogue as a policy over the environments'
    observations (see the module docstring); :func:`domeng.players.load` makes one.

    ``agent(observation, action_mask)`` returns the action (``int``): the
    observation vector and the ``int8[57]`` mask of a Gymnasium env (its
    ``info["action_mask"]``), or a PettingZoo observation dict (the mask is
    taken from it).  A batch of observations (``[N, OBS_SIZE]``, masks
    ``[N, 57]``: :class:`~domeng.envs.gym.DomengVectorEnv`) gives an array of
    N actions, decided row by row from the one generator.

    Parameters
    ----------
    name:
        A player name that may sit in an environment (the catalogue's
        grammar: ``hunter``, ``search-1000``, ``esearch-200:eps0.1``,
        ``module:function``).
    seed, table, seat:
        The generator starts as seat ``seat``'s stream at table ``table`` of
        a study seeded ``seed`` (:meth:`reseed`).

    Examples
    --------
    >>> import gymnasium, domeng.envs
    >>> env = gymnasium.make("domeng/Domeng-v0", opponents="hunter", seat=0)
    >>> obs, info = env.reset(seed=1)
    >>> expert = Agent("expert")
    >>> 0 <= expert(obs, info["action_mask"]) < 57
    True
    """

    def __init__(self, name: str, seed: int = 0, table: int = 0, seat: int = 0) -> None:
        pn = catalogue.check(name, "environment")
        spec = resolve_player(pn.text, "environment")
        if not spec.compiled:
            raise catalogue.refusal(
                name, "environment", "it is a Python object (choose), not a compiled player"
            )
        self.name = spec.name
        self._pid = int(spec.pid)
        self._fn = spec.fn
        self._rng = np.zeros(1, dtype=np.uint64)
        self._moves = np.full(64, -1, dtype=np.int64)
        self.reseed(seed, table, seat)

    def reseed(self, seed: int = 0, table: int = 0, seat: int = 0) -> None:
        """Start the generator as seat ``seat``'s stream at table ``table``
        of a study seeded ``seed`` (:func:`domeng.core.rng.seat_state`).

        >>> a = Agent("random"); a.reseed(3, table=1, seat=2)
        >>> from domeng.core.rng import seat_state
        >>> a.rng_state == seat_state(3, 1, 2)
        True
        """
        try:
            self.rng_state = seat_state(int(seed), int(table), int(seat))
        except (TypeError, ValueError) as e:
            raise DomengError(f"bad stream for player {self.name}: {e}") from None

    @property
    def rng_state(self) -> int:
        """The generator's state (a 64-bit word); set it to a seat's
        ``Game.state.prng[seat]`` to draw as that seat's player does."""
        return int(self._rng[0])

    @rng_state.setter
    def rng_state(self, value: int) -> None:
        self._rng[0] = np.uint64(int(value) & (2**64 - 1))

    def __repr__(self) -> str:
        return f"Agent({self.name!r})"

    def __call__(self, observation: Any, action_mask: Any = None) -> Any:
        if isinstance(observation, dict):
            if action_mask is None:
                action_mask = observation.get("action_mask")
            observation = observation.get("observation")
        vec = np.asarray(observation)
        if vec.ndim == 2:
            masks = [None] * len(vec) if action_mask is None else np.asarray(action_mask)
            if len(masks) != len(vec):
                raise DomengError(f"{len(vec)} observations but {len(masks)} action masks")
            return np.array([self.act(o, m) for o, m in zip(vec, masks)], dtype=np.int64)
        return self.act(vec, action_mask)

    def act(self, observation: Any, action_mask: Any = None) -> int:
        """The action for one observation vector (``action_mask``: the
        legal actions; None: computed from the observation, D5).

        >>> import numpy as np
        >>> from domeng.engine.game import Game
        >>> from domeng.core.encoding import encode
        >>> g = Game(seed=7); _ = g.new_round()
        >>> vec = np.zeros(OBS_SIZE, dtype=np.float32)
        >>> encode(g.observe(3), g.history(), vec)
        >>> Agent("hunter").act(vec)  # D3: the opener leads [6|6]
        54
        """
        obs, hist = decode(observation)
        n = K.legal_moves(obs[OBS_HAND], obs, self._moves)
        if action_mask is not None:
            self._check_mask(action_mask, n)
        if n == 0:
            return PASS
        self._moves[n:] = -1
        if self._pid < N_BUILTIN:
            i = int(builtin_choose(self._pid, obs, hist, self._moves, n, self._rng))
        else:
            i = int(self._fn(obs, hist, self._moves, n, self._rng))
        if not 0 <= i < n:
            raise PlayerError(f"player {self.name} returned move index {i} of {n}")
        return int(self._moves[i])

    def _check_mask(self, action_mask: Any, n: int) -> None:
        m = np.asarray(action_mask)
        if m.shape != (N_ACTIONS,):
            raise DomengError(f"an action mask has {N_ACTIONS} entries, got shape {m.shape}")
        legal = np.zeros(N_ACTIONS, dtype=bool)
        legal[self._moves[:n]] = True
        if n == 0:
            legal[PASS] = True
        if not (m.astype(bool) == legal).all():
            if not m.any():
                raise DomengError("the action mask is all 0: this seat is not to move")
            raise DomengError("the action mask is not the legal actions of this observation")

    def bot(self, game: Any, player_id: int) -> Any:
        """This agent as an OpenSpiel bot (a ``pyspiel.Bot``) for seat
        ``player_id`` of ``game`` (``pyspiel.load_game("python_domeng")``);
        it reads only the seat's observation tensor and legal actions.

        >>> import pyspiel, domeng.envs.open_spiel  # registers python_domeng
        >>> game = pyspiel.load_game("python_domeng")
        >>> bot = Agent("expert").bot(game, 0)
        >>> isinstance(bot, pyspiel.Bot)
        True
        """
        from domeng.players.spiel_bot import AgentBot

        return AgentBot(self, game, player_id)


__all__ = ["Agent", "decode"]
