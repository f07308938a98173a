"""Domeng as an OpenSpiel game: ``import domeng.envs.open_spiel`` registers
``python_domeng``, so that ``pyspiel.load_game("python_domeng")`` works.

The game (:data:`GAME_TYPE`): sequential, five players, imperfect
information, general-sum, explicit stochastic chance for the deal, rewards
after every step.  Parameters: ``rounds`` (a game of that many rounds, D16;
default 1), ``camat_bonus`` (added to the reward of a seat that becomes
CAMAT, D15; default 0) and ``seed`` (the seats' own random streams, used only
by domeng's compiled players seated with :func:`computer_action`; the deal is
OpenSpiel's chance).

**The deal (D2)** is 25 chance nodes per round: the k-th deals one tile (the
chance action is its id, 0..27, uniform over the tiles not dealt yet) to seat
``k // 5``; the 3 tiles never dealt are out of play.  Every deal is then
equally likely, as D2 asks (the engine draws the same distribution from its
own stream; OpenSpiel's chance nodes replace that stream).  The round then
starts in the engine (:func:`domeng.engine.step.new_round_from_hands`: D3,
D4) and every move goes through the step API (:func:`domeng.engine.step.step`);
the rules live there only.

**Actions** are the step API's 57 (``tile * 2 + end``, ``PASS = 56`` when
nothing else is legal, D5).  **Rewards** are minus the stones a seat gains in
the step (stones are penalties; a CAMAT's return of every stone is not a
reward, :func:`domeng.envs.tables.step_rewards`); ``rewards()`` is what the
seats got since the last player action (a round's settlement is reported at
the next decision), ``returns()`` their sum so far.

**What a seat sees (D17).** The observation tensor is the environments'
vector (:mod:`domeng.core.encoding`) of the seat's view; the information-state
tensor is the same vector, which holds the whole public history of the
current round (the order, seat and end of every play, hence every pass);
rounds before it are summed up by what carries over (stones, table, CAMAT),
the only thing of them that bears on the rest of the game.  The
information-state string is perfect recall: the seat's own tiles as dealt,
how many tiles each other seat was dealt, every action by every seat and each
round's public outcome.  Neither shows another seat's tiles or the tiles out
of play.

:meth:`DomengState.resample_from_infostate` draws a state the seat cannot
tell from this one with the one determinizer of the search players
(:func:`domeng.players.determinize.determinize`: exact hand sizes, known
voids and what D3 shows in the first round): the unseen tiles of the current round are dealt anew and the round is
replayed; earlier rounds are redealt the same way and kept only when the
replay shows the seat the same outcome (rejection).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pyspiel
from numba import njit

from domeng.batch.computer import Computers
from domeng.core.encoding import FIELDS, OBS_SIZE, encode
from domeng.core.errors import DomengError, IllegalMoveError
from domeng.core.layout import N_SEATS
from domeng.core.nbrng import randbelow
from domeng.core.observation import (
    MAX_TURNS,
    OBS_CAMAT,
    OBS_CHAIN,
    OBS_HAND_SIZE,
    OBS_LEFT,
    OBS_LEN,
    OBS_PLAYED_BY,
    OBS_RIGHT,
    OBS_STONES,
    OBS_TABLE,
    OBS_VOID,
)
from domeng.core.rules import Rules
from domeng.core.tiles import (
    N_TILES,
    hand_str,
    tile_str,
    tiles_of,
)
from domeng.engine import kernel as K
from domeng.engine import step as E
from domeng.engine.game import action_str
from domeng.envs.tables import step_rewards
from domeng.players.determinize import determinize
from domeng.players.spiel_bot import AgentBot

N_PLAYERS = N_SEATS  # the players of an OpenSpiel game
HAND = 5
DEALT = N_PLAYERS * HAND  # 25 tiles dealt a round; 3 out of play
#: stones in play: no seat gains or pays more than this in a round
_STONES = Rules().stones
#: rejection-sampling tries for each earlier round in resample_from_infostate
RESAMPLE_TRIES = 2000

GAME_TYPE = pyspiel.GameType(
    short_name="python_domeng",
    long_name="Python Domeng (five-player domino game of South Sulawesi)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=N_PLAYERS,
    min_num_players=N_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"rounds": 1, "camat_bonus": 0.0, "seed": 0},
)

_FIELD = {name: (off, size) for name, off, size, _ in FIELDS}
_CARRY = ("stones", "table", "camat", "rules")  # what a seat sees between rounds


def game_info(rounds: int, camat_bonus: float) -> pyspiel.GameInfo:
    """The game's sizes and bounds for ``rounds`` rounds (a ``pyspiel.GameInfo``).

    >>> game_info(1, 0.0).num_distinct_actions
    57
    """
    bonus = abs(camat_bonus) * rounds
    return pyspiel.GameInfo(
        num_distinct_actions=E.N_ACTIONS,
        max_chance_outcomes=N_TILES,
        num_players=N_PLAYERS,
        min_utility=-float(_STONES * rounds) - bonus,
        max_utility=float(_STONES * rounds) + bonus,
        utility_sum=None,
        max_game_length=rounds * MAX_TURNS,
    )


# ---------------------------------------------------------------- compiled helpers
@njit(cache=True)
def _apply(S, action, camat_bonus, rew, mask):
    """The seat to move takes ``action`` (legal); the step's rewards into
    ``rew`` and the next mover's legal actions into ``mask``; 1 if the round ended."""
    ended = E.step(S, action)
    step_rewards(S, ended, camat_bonus, rew)
    E.legal_action_mask(S, mask)
    return ended


@njit(cache=True)
def _start(S, hands, mask):
    """Start the round with the five dealt hands (D3, D4)."""
    E.new_round_from_hands(S, hands)
    E.legal_action_mask(S, mask)


@njit(cache=True)
def _view(S, seat, obs, out):
    """``seat``'s observation vector (its D17 view)."""
    E.observe(S, seat, obs)
    encode(obs, S.hist, out)


_STATE_CACHE: dict = {}


def _fresh_engine(rules: Rules, seed: int) -> E.State:
    key = (rules.to_array().tobytes(), seed)
    if key not in _STATE_CACHE:
        st = K.init_states(np.uint64(seed), 0, 1, rules.stones)[0]
        _STATE_CACHE[key] = E.new_state(
            rules.to_array(), st, 1, E.keep(0, record=False, deltas=True)
        )
    return E.copy_state(_STATE_CACHE[key])


# ---------------------------------------------------------------- the game
class DomengGame(pyspiel.Game):
    """``python_domeng``: a game of ``rounds`` rounds of Domeng (default rules).

    ``params``: ``rounds`` (1..1000), ``camat_bonus`` (added to the reward of
    a seat that becomes CAMAT) and ``seed`` (the seats' streams); a bad value
    raises :class:`~domeng.core.errors.DomengError`.  The deals are OpenSpiel
    chance nodes.

    >>> import pyspiel
    >>> game = pyspiel.load_game("python_domeng", {"rounds": 1})
    >>> game.num_players(), game.num_distinct_actions()
    (5, 57)
    >>> state = game.new_initial_state()
    >>> while not state.is_terminal():
    ...     if state.is_chance_node():
    ...         state.apply_action(state.chance_outcomes()[0][0])
    ...     else:
    ...         state.apply_action(state.legal_actions()[0])
    >>> len(state.returns())
    5
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        rounds = params.get("rounds", 1)
        bonus = params.get("camat_bonus", 0.0)
        seed = params.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise DomengError(f"seed must be a whole number 0 <= seed < 2**63, got {seed!r}")
        if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= 1000:
            raise DomengError(f"rounds must be a whole number 1..1000, got {rounds!r}")
        if not isinstance(bonus, (int, float)) or not np.isfinite(bonus):
            raise DomengError(f"camat_bonus must be a finite number, got {bonus!r}")
        self.rounds, self.camat_bonus, self.seed = int(rounds), float(bonus), int(seed)
        self.rules = Rules()
        super().__init__(
            GAME_TYPE,
            game_info(self.rounds, self.camat_bonus),
            {"rounds": self.rounds, "camat_bonus": self.camat_bonus, "seed": self.seed},
        )

    def new_initial_state(self) -> DomengState:
        return DomengState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> DomengObserver:
        if params:
            raise DomengError(f"python_domeng's observer takes no parameters, got {params}")
        return DomengObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class DomengState(pyspiel.State):
    """A state of ``python_domeng``: the engine's state record (``_S``) and
    what OpenSpiel needs on top (the deal in progress, the rewards, each
    seat's perfect-recall log).  Everything is plain data, so OpenSpiel's
    clone (deepcopy) and serialisation (pickle) work as they are."""

    def __init__(self, game: DomengGame) -> None:
        super().__init__(game)
        self._rounds = game.rounds
        self._bonus = game.camat_bonus
        self._S = _fresh_engine(game.rules, game.seed)
        self._dealt: list[int] = []  # this round's tiles, in deal order (tile k to seat k // 5)
        self._mask = np.zeros(E.N_ACTIONS, dtype=np.int64)
        self._rew = np.zeros(N_PLAYERS)
        self._rewards = np.zeros(N_PLAYERS)  # since the last player action
        self._returns = np.zeros(N_PLAYERS)
        self._over = False
        # per seat, its perfect-recall log (tokens); _round_marks: log lengths at each round's end
        self._log: list[list[str]] = [[] for _ in range(N_PLAYERS)]
        self._round_marks: list[int] = []
        self._past: list[tuple[list[int], list[int]]] = []  # earlier rounds: (deal, actions)
        self._actions: list[int] = []  # this round's player actions

    # ------------------------------------------------------------- OpenSpiel API
    def current_player(self) -> int:
        if self._over:
            return pyspiel.PlayerId.TERMINAL
        if len(self._dealt) < DEALT:
            return pyspiel.PlayerId.CHANCE
        return int(self._S.ctl[E.C_SEAT])

    def _legal_actions(self, player: int) -> list[int]:
        return [int(a) for a in np.flatnonzero(self._mask)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = sorted(set(range(N_TILES)) - set(self._dealt))
        p = 1.0 / len(left)
        return [(t, p) for t in left]

    def _apply_action(self, action: int) -> None:
        """Deal a tile (chance) or take a seat's action; anything illegal
        raises :class:`~domeng.core.errors.IllegalMoveError` and changes nothing."""
        if self._over:
            raise IllegalMoveError("the game is over")
        if len(self._dealt) < DEALT:
            if not 0 <= action < N_TILES or action in self._dealt:
                raise IllegalMoveError(f"chance action {action} is not a tile left to deal")
            self._deal(int(action))
            return
        if not 0 <= action < E.N_ACTIONS or not self._mask[action]:
            legal = ", ".join(action_str(int(a)) for a in np.flatnonzero(self._mask))
            raise IllegalMoveError(
                f"action {action} is not legal for seat "
                f"{int(self._S.ctl[E.C_SEAT])} now; legal: {legal} (D5); "
                "nothing was played"
            )
        self._rewards[:] = 0.0
        seat = int(self._S.ctl[E.C_SEAT])
        ended = _apply(self._S, int(action), self._bonus, self._rew, self._mask)
        self._rewards += self._rew
        self._returns += self._rew
        self._actions.append(int(action))
        for p in range(N_PLAYERS):
            self._log[p].append(f"{seat}:{int(action)}")
        if ended:
            self._end_round()

    def _deal(self, tile: int) -> None:
        to = len(self._dealt) // HAND
        self._dealt.append(tile)
        for p in range(N_PLAYERS):
            self._log[p].append(f"d{to}:{tile}" if p == to else f"d{to}")
        if len(self._dealt) == DEALT:
            hands = np.zeros(N_PLAYERS, dtype=np.int64)
            for k, t in enumerate(self._dealt):
                hands[k // HAND] |= np.int64(1) << t
            _start(self._S, hands, self._mask)

    def _end_round(self) -> None:
        S = self._S
        w = S.w
        out = (
            f"end:{int(w[K.W_KIND])}:{int(w[K.W_WINNER])}:"
            + ",".join(str(int(x)) for x in S.obs[OBS_STONES : OBS_STONES + 5])
            + f":{int(S.obs[OBS_TABLE])}:{int(S.obs[OBS_CAMAT])}"
        )
        for p in range(N_PLAYERS):
            self._log[p].append(out)
        self._round_marks.append(len(self._log[0]))
        self._past.append((list(self._dealt), list(self._actions)))
        self._actions = []
        self._mask[:] = 0
        if len(self._past) >= self._rounds:
            self._over = True
        else:
            self._dealt = []

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {tile_str(int(action))} to seat {len(self._dealt) // HAND}"
        return action_str(int(action))

    def is_terminal(self) -> bool:
        return self._over

    def rewards(self) -> list[float]:
        return [float(x) for x in self._rewards]

    def returns(self) -> list[float]:
        return [float(x) for x in self._returns]

    def __str__(self) -> str:
        """The whole state (every hand: for debugging, never for a seat)."""
        S = self._S
        if len(self._dealt) < DEALT:
            hands = [
                [t for k, t in enumerate(self._dealt) if k // HAND == s] for s in range(N_PLAYERS)
            ]
        else:
            hands = [tiles_of(int(S.hands[s])) for s in range(N_PLAYERS)]
        return (
            f"round {len(self._past) + (0 if self._over else 1)}; "
            + "; ".join(f"seat {s}: {hand_str(h)}" for s, h in enumerate(hands))
            + f"; actions {self._actions}; stones "
            + ",".join(str(int(x)) for x in S.obs[OBS_STONES : OBS_STONES + 5])
            + f"; table {int(S.obs[OBS_TABLE])}"
        )

    # ------------------------------------------------------------- views
    def own_tiles(self, seat: int) -> int:
        """``seat``'s tiles now (a 28-bit mask; during the deal, those dealt so far)."""
        if len(self._dealt) < DEALT:
            m = 0
            for k, t in enumerate(self._dealt):
                if k // HAND == seat:
                    m |= 1 << t
            return m
        return int(self._S.hands[seat])

    def vector(self, seat: int, out: np.ndarray) -> None:
        """``seat``'s observation vector (:mod:`domeng.core.encoding`) into ``out``.
        During a deal only what carries over between rounds and the tiles
        dealt to the seat so far are set."""
        obs = np.zeros(OBS_LEN, dtype=np.int64)
        if len(self._dealt) == DEALT and not self._over:
            _view(self._S, seat, obs, out)
            return
        full = np.zeros(OBS_SIZE, dtype=np.float32)
        _view(self._S, seat, obs, full)
        out[:] = 0.0
        for name in _CARRY:
            off, size = _FIELD[name]
            out[off : off + size] = full[off : off + size]
        if self._over:  # the last round as it ended
            out[:] = full
            return
        off = _FIELD["hand"][0]
        for t in tiles_of(self.own_tiles(seat)):
            out[off + t] = 1.0
        off = _FIELD["seat"][0]
        out[off + seat] = 1.0
        out[_FIELD["round"][0]] = float(len(self._past) + 1)

    def view_string(self, seat: int, private: bool = True) -> str:
        """``seat``'s D17 view now, as text (the observation string);
        ``private=False``: without its hand."""
        S = self._S
        rnd = len(self._past) + (0 if self._over else 1)
        stones = ",".join(str(int(x)) for x in S.obs[OBS_STONES : OBS_STONES + 5])
        camat = int(S.obs[OBS_CAMAT])
        hand = hand_str(tiles_of(self.own_tiles(seat))) if private else "?"
        head = (
            f"seat {seat} round {rnd} hand {hand} "
            f"stones {stones} table {int(S.obs[OBS_TABLE])} camat "
            f"{'-' if camat < 0 else camat}"
        )
        if len(self._dealt) < DEALT and not self._over:
            return f"{head} dealing {len(self._dealt)}/{DEALT}"
        o = S.obs
        ends = "-" if o[OBS_LEFT] < 0 else f"{int(o[OBS_LEFT])}-{int(o[OBS_RIGHT])}"
        played = " ".join(
            f"{p}:{hand_str(tiles_of(int(o[OBS_PLAYED_BY + p])))}" for p in range(N_PLAYERS)
        )
        voids = ",".join(f"{int(o[OBS_VOID + p]):07b}" for p in range(N_PLAYERS))
        sizes = ",".join(str(int(o[OBS_HAND_SIZE + p])) for p in range(N_PLAYERS))
        mover = int(S.ctl[E.C_SEAT])
        return (
            f"{head} ends {ends} chain {int(o[OBS_CHAIN])} played {played} voids {voids} "
            f"sizes {sizes} starter {int(S.ctl[E.C_STARTER])} last "
            f"{int(o[K.OBS_LAST_MAPPANO])} turn {int(o[K.OBS_TURN])} to_move {mover}"
        )

    def recall_string(self, seat: int, private: bool = True) -> str:
        """``seat``'s perfect-recall log (the information-state string);
        ``private=False``: without the tiles dealt to it."""
        log = (
            self._log[seat]
            if private
            else [t.split(":")[0] if t.startswith("d") else t for t in self._log[seat]]
        )
        return f"p{seat} " + " ".join(log)

    # ------------------------------------------------------------- resampling
    def resample_from_infostate(self, player_id: int, probability_sampler) -> DomengState:
        """A state that ``player_id`` cannot tell from this one: the tiles it
        cannot see are dealt anew by the one determinizer
        (:func:`domeng.players.determinize.determinize`: exact hand sizes,
        known voids and D3, D17) and the game is replayed through the step
        API with the same actions; a redeal is kept only if the replay shows
        the seat exactly what it saw (same information-state string).  Earlier rounds
        are redealt the same way.  ``probability_sampler()`` (a float in
        [0, 1)) seeds the draws."""
        seat = int(player_id)
        if not 0 <= seat < N_PLAYERS:
            raise DomengError(f"a player is 0..4, got {player_id!r}")
        rng = np.array(
            [(int(probability_sampler() * 2**53) * 2654435761 + 1) % 2**64], dtype=np.uint64
        )
        new = self.get_game().new_initial_state()
        for r, (deal, actions) in enumerate(self._past):
            true = new.clone()
            for a in deal + actions:
                true.apply_action(int(a))
            mark = self._round_marks[r]
            new = self._replay(new, seat, deal, actions, true._S, rng, self._log[seat][:mark])
        if self._over:
            return new
        if len(self._dealt) < DEALT:  # a deal in progress: the others' tiles so far anew
            mine = [t for k, t in enumerate(self._dealt) if k // HAND == seat]
            pool = np.array(sorted(set(range(N_TILES)) - set(mine)), dtype=np.int64)
            _shuffle(pool, rng)
            others = iter(pool)
            for k, t in enumerate(self._dealt):
                new.apply_action(int(t) if k // HAND == seat else int(next(others)))
            return new
        return self._replay(new, seat, self._dealt, self._actions, self._S, rng, self._log[seat])

    @staticmethod
    def _replay(
        base: DomengState,
        seat: int,
        deal: list[int],
        actions: list[int],
        S: E.State,
        rng: np.ndarray,
        want: list[str],
    ) -> DomengState:
        """``base`` after a round (``deal``, then ``actions``; ``S``: the
        engine's record of it now) replayed with the tiles ``seat`` cannot
        see redealt, retried until the seat's log is ``want``."""
        for _ in range(RESAMPLE_TRIES):
            cand = base.clone()
            try:
                for a in _redeal(seat, S, deal, rng) + actions:
                    cand.apply_action(int(a))
            except IllegalMoveError:  # the redeal cannot explain the moves seen
                continue
            if cand._log[seat] == want:
                return cand
        raise DomengError(
            f"no redeal of round {len(base._past) + 1} matched seat {seat}'s "
            f"view in {RESAMPLE_TRIES} tries"
        )


def _redeal(seat: int, S: E.State, deal: list[int], rng: np.ndarray) -> list[int]:
    """A deal (25 tiles in deal order) for the round ``S`` is playing (or has
    just ended) as ``seat`` sees it: its own tiles where they were; the
    others' unplayed tiles drawn by the one determinizer
    (:func:`domeng.players.determinize.determinize`: uniform among the deals
    consistent with the seat's view: hand sizes, known voids, D3) and joined
    to the tiles they have played."""
    view = np.zeros(OBS_LEN, dtype=np.int64)
    E.observe(S, seat, view)
    hands = np.zeros(N_PLAYERS, dtype=np.int64)
    if not determinize(view, rng, hands):
        raise DomengError("no deal is consistent with this view (a corrupt state)")
    out: list[int] = []
    for s in range(N_PLAYERS):
        if s == seat:
            out += deal[s * HAND : (s + 1) * HAND]
        else:
            out += tiles_of(int(hands[s]) | int(view[OBS_PLAYED_BY + s]))
    return out


class _AtTable(NamedTuple):
    state: E.State
    round_over: bool
    seat: int


def computer_action(computers: Computers, state: DomengState) -> int:
    """The action a domeng compiled player (:class:`domeng.batch.computer.Computers`)
    takes at ``state`` for the seat to move: it sees only that seat's D17
    view, as at any table, and draws from the seat's stream (``seed``)."""
    if state.is_chance_node() or state.is_terminal():
        raise DomengError("no seat is to move at a chance node or at the end")
    return computers.action(_AtTable(state._S, False, state.current_player()))


@njit(cache=True)
def _shuffle(a, rng):
    for i in range(a.shape[0] - 1, 0, -1):
        j = randbelow(rng, i + 1)
        a[i], a[j] = a[j], a[i]


# ---------------------------------------------------------------- observer
class DomengObserver:
    """OpenSpiel's observer for ``python_domeng`` (the PyObserver interface):
    ``tensor`` is the seat's observation vector (:mod:`domeng.core.encoding`);
    the string is the perfect-recall log (``perfect_recall=True``) or the
    current view.  ``private_info`` other than the seat's own zeroes its hand;
    ``public_info=False`` keeps only the hand."""

    def __init__(self, iig_obs_type) -> None:
        self.iig = iig_obs_type
        self.tensor = np.zeros(OBS_SIZE, dtype=np.float32)
        self.dict = {name: self.tensor[off : off + size] for name, (off, size) in _FIELD.items()}
        self._private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self._public = bool(iig_obs_type.public_info)

    def set_from(self, state: DomengState, player: int) -> None:
        state.vector(int(player), self.tensor)
        if not self._private:
            self.dict["hand"][:] = 0.0
        if not self._public:
            hand = self.dict["hand"].copy()
            self.tensor[:] = 0.0
            self.dict["hand"][:] = hand

    def string_from(self, state: DomengState, player: int) -> str:
        if self.iig.perfect_recall:
            return state.recall_string(int(player), self._private)
        return state.view_string(int(player), self._private)


pyspiel.register_game(GAME_TYPE, DomengGame)

__all__ = [
    "GAME_TYPE",
    "AgentBot",
    "DomengGame",
    "DomengObserver",
    "DomengState",
    "computer_action",
    "game_info",
]
