"""One table of Domeng, stepped one action at a time: a thin Python class
over the compiled step API (:mod:`domeng.engine.step`).

Every surface that plays one game at a time (the terminal game, the browser
table, the environments) drives a :class:`Game`.  It holds no rule of its
own: what a surface wants to show (the legal actions, the ends after a move,
whether it would be a MAPPAKULING, the award a round's end carries) it asks
the engine.

    >>> from domeng.engine.game import Game, PASS
    >>> g = Game(seed=7)
    >>> events = g.new_round()          # D2 deal, D3 opener
    >>> while not g.round_over:
    ...     events = g.step(g.legal_actions()[0])
    >>> g.stones, g.table_stones, g.result["kind"]
    ([2, 1, 1, 2, 2], 17, 'MATTIKKENG')

A game is a function of its rules, seed, table index and the actions taken:
two games with the same inputs are identical, and a game whose every seat
is a compiled player (:mod:`domeng.batch.computer`) is move for move the
same as table ``table`` of a study with that seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from domeng.core import layout as L
from domeng.core import observation as O
from domeng.core.errors import DomengError, IllegalMoveError
from domeng.core.events import (
    END_KINDS,
    END_NAMES,
    EV_DEAL,
    TR_ROWS_PER_ROUND,
    RoundEnd,
    decode_rows,
    for_seat,
    from_dict,
    to_dict,
)
from domeng.core.numba_cache import prepare
from domeng.core.observation import MAX_TURNS, OBS_LEN
from domeng.core.rules import Rules
from domeng.core.tiles import N_TILES, mask_of, numbers, tile_str, tiles_of
from domeng.engine import kernel as K
from domeng.engine import step as E

PASS = E.PASS
N_ACTIONS = E.N_ACTIONS


def action_of(tile: int, end: int = 0) -> int:
    """The action that plays ``tile`` (0..27) on ``end`` (0 left, 1 right).

    >>> action_of(27, 0)  # [6|6] on the left
    54
    """
    return int(tile) * 2 + int(end)


def action_str(action: int) -> str:
    """The action in words: ``"[5|3] left"``, or ``"pass"``.

    >>> action_str(54), action_str(PASS)
    ('[6|6] left', 'pass')
    """
    if action == PASS:
        return "pass"
    return f"{tile_str(action >> 1)} {END_NAMES[action & 1]}"


class Preview(NamedTuple):
    """What an action would do (the engine's answer, nothing played):
    the open ends after it, whether it is a MAPPAKULING (D8), whether it
    ends the round (the seat's last tile, D9; or a pass that blocks, D11),
    and for a last tile the end kind and the CUCUQ's award size.
    :meth:`Game.preview` returns one.

    >>> g = Game(seed=7)
    >>> _ = g.new_round()
    >>> g.preview(54)
    Preview(left=6, right=6, mappakuling=False, ends_round=False, kind=None, award=None)
    """

    left: int
    right: int
    mappakuling: bool
    ends_round: bool
    kind: str | None
    award: int | None


class Game:
    """One table (D16): stones, CAMAT and the next starter carry over from
    round to round.  Table ``table`` of seed ``seed`` draws its deals from the
    same stream as table ``table`` of a study with that seed.

    Parameters
    ----------
    rules:
        The rules in force (None: the defaults).
    seed:
        The study seed, ``0 <= seed < 2**64``.
    table:
        The table index within that study.

    Raises
    ------
    DomengError
        For a seed or table out of range (``TypeError`` for rules that are not
        :class:`~domeng.core.rules.Rules`).

    Examples
    --------
    >>> g = Game(seed=7)
    >>> g.round_over, g.seat
    (True, None)
    >>> [e["type"] for e in g.new_round()], g.seat, g.legal_actions()
    (['deal'], 3, [54])
    >>> [e["type"] for e in g.step(54)], g.ends
    (['lead'], (6, 6))
    """

    def __init__(self, rules: Rules | None = None, seed: int = 0, table: int = 0) -> None:
        self.rules = rules if rules is not None else Rules()
        if not isinstance(self.rules, Rules):
            raise TypeError("rules must be a domeng Rules")
        for name, v, hi in (("seed", seed, 2**64), ("table", table, 2**62)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v < hi:
                raise DomengError(f"{name} must be a whole number 0 <= {name} < {hi}, got {v!r}")
        self.seed = int(seed)
        self.table = int(table)
        prepare()  # the compiled engine's cache is checked before its first use
        st = K.init_states(np.uint64(self.seed), self.table, 1, self.rules.stones)[0]
        self._S = E.new_state(self.rules.to_array(), st, 1, E.keep(TR_ROWS_PER_ROUND))
        self._mask = np.zeros(N_ACTIONS, dtype=np.int64)
        self._obs: np.ndarray = np.zeros(OBS_LEN, dtype=np.int64)
        self._hist: np.ndarray = np.full((MAX_TURNS, 3), -1, dtype=np.int64)
        self._pre = np.zeros(6, dtype=np.int64)
        self._read = 0  # event rows already decoded
        self.events: list[dict[str, Any]] = []  # this round's events, in order

    # ------------------------------------------------------------- state
    @property
    def state(self) -> Any:  # E.State, a namedtuple built at run time
        """The compiled state record (for compiled callers; treat as read-only)."""
        return self._S

    @property
    def seat(self) -> int | None:
        """The seat to move, or None between rounds."""
        s = int(self._S.ctl[E.C_SEAT])
        return None if s < 0 else s

    @property
    def round_over(self) -> bool:
        """True before the first round and after a round has ended."""
        return bool(self._S.ctl[E.C_OVER])

    @property
    def round_number(self) -> int:
        """The current (or last) round's number; 0 before the first."""
        return int(self._S.ctl[E.C_ROUND])

    @property
    def rounds_played(self) -> int:
        """Rounds finished so far in this game."""
        return int(self._S.st[L.ST_ROUNDS])

    @property
    def starter(self) -> int | None:
        """The seat that started the current (or last) round, or None."""
        return None if self.round_number == 0 else int(self._S.ctl[E.C_STARTER])

    @property
    def stones(self) -> list[int]:
        """Stones each seat holds (penalties)."""
        return [int(x) for x in self._S.obs[O.OBS_STONES : O.OBS_STONES + 5]]

    @property
    def table_stones(self) -> int:
        """Stones still on the table (term 13)."""
        return int(self._S.obs[O.OBS_TABLE])

    @property
    def camat(self) -> int | None:
        """The seat that is CAMAT (D15), or None."""
        c = int(self._S.st[L.ST_CAMAT])
        return None if c < 0 else c

    @property
    def camats(self) -> int:
        """CAMATs so far in this game."""
        return int(self._S.st[L.ST_CAMATS])

    @property
    def ends(self) -> tuple[int, int] | None:
        """The open ends (left, right), or None before the lead."""
        left = int(self._S.obs[O.OBS_LEFT])
        return None if left < 0 else (left, int(self._S.obs[O.OBS_RIGHT]))

    @property
    def last_mappano(self) -> int | None:
        """The seat that played the LAST DOMINO (term 5), or None."""
        m = int(self._S.obs[O.OBS_LAST_MAPPANO])
        return None if m < 0 else m

    @property
    def must_lead(self) -> int | None:
        """The double the opener must lead (D3), or None."""
        m = int(self._S.obs[O.OBS_MUST_LEAD])
        return None if m < 0 or self.ends is not None else m

    @property
    def hand_sizes(self) -> list[int]:
        """Tiles left in each seat's hand (public)."""
        return [int(x) for x in self._S.obs[O.OBS_HAND_SIZE : O.OBS_HAND_SIZE + 5]]

    @property
    def deltas(self) -> list[int]:
        """Stones each seat gained in the last step (negative: paid or returned)."""
        return [int(x) for x in self._S.delta[:5]]

    @property
    def result(self) -> dict[str, Any] | None:
        """The last round's end event (kind, winner, CUCUQ, MANGUNO,
        MATTIKKENG, pip sums, award), or None while a round goes on."""
        if not self.round_over:
            return None
        for ev in reversed(self.events):
            end = from_dict(ev)
            if isinstance(end, RoundEnd):
                return to_dict(end)  # the JSON form, a new dict (the engine's own unchanged)
        return None

    def hand(self, seat: int) -> list[int]:
        """Seat ``seat``'s tiles (private: show it to that seat only, D17)."""
        self._check_seat(seat)
        return tiles_of(int(self._S.hands[seat]))

    def game_over(self, rounds: int = 0, camats: int = 0) -> bool:
        """D16: over after ``rounds`` rounds (if > 0) or at the ``camats``-th
        CAMAT (if > 0), between rounds."""
        return bool(E.game_over(self._S, int(rounds), int(camats)))

    # ------------------------------------------------------------- rounds
    def new_round(self, hands: Sequence[Sequence[int]] | None = None) -> list[dict[str, Any]]:
        """Deal the next round (D2; or play it with the given five hands of
        five tiles, the deal stream then not drawn from) and start it (D3,
        D4).  Returns the events so far (the deal)."""
        if not self.round_over:
            raise IllegalMoveError("a round is in progress; finish it first")
        E.clear_trace(self._S)
        self._read = 0
        self.events = []
        if hands is None:
            E.new_round(self._S)
        else:
            E.new_round_from_hands(self._S, self._check_hands(hands))
        return self._new_events()

    @staticmethod
    def _check_hands(hands: Sequence[Any]) -> np.ndarray:
        try:
            hs = [[int(t) for t in h] for h in hands]
        except (TypeError, ValueError):
            raise IllegalMoveError("hands must be five lists of tile ids") from None
        flat = [t for h in hs for t in h]
        if (
            len(hs) != 5
            or any(len(h) != 5 for h in hs)
            or len(set(flat)) != 25
            or not all(0 <= t < N_TILES for t in flat)
        ):
            raise IllegalMoveError("hands must be five lists of five different tiles (D2)")
        return np.array([mask_of(h) for h in hs], dtype=np.int64)

    # ------------------------------------------------------------- actions
    def legal_action_mask(self) -> np.ndarray:
        """``bool[57]``: the seat to move's legal actions (D5); PASS only when
        nothing else is; all False between rounds."""
        E.legal_action_mask(self._S, self._mask)
        return self._mask.astype(bool)

    def legal_actions(self) -> list[int]:
        """The seat to move's legal actions, ascending (empty between rounds)."""
        return [int(a) for a in np.flatnonzero(self.legal_action_mask())]

    def step(self, action: int) -> list[dict[str, Any]]:
        """The seat to move takes ``action`` (``tile * 2 + end`` or
        :data:`PASS`).  An illegal action raises :class:`IllegalMoveError`
        with the reason, and changes nothing.  Returns the events it caused
        (the play or pass, stones moved, the round's end and settlement)."""
        a = self._check_action(action)
        E.step(self._S, a)
        return self._new_events()

    def _check_action(self, action: object) -> int:
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalMoveError(
                f"an action is a whole number 0..{N_ACTIONS - 1}, got {action!r}"
            )
        a = int(action)
        if self.round_over:
            raise IllegalMoveError("no round is in progress; start one with new_round()")
        if not 0 <= a < N_ACTIONS:
            raise IllegalMoveError(f"no action {a}: actions are 0..{N_ACTIONS - 1}")
        if not E.is_legal(self._S, a):
            raise IllegalMoveError(self._why_illegal(a))
        return a

    def _why_illegal(self, a: int) -> str:
        s = self.seat
        assert s is not None  # asked only while a round is on
        legal = self.legal_actions()
        if a == PASS:
            return f"seat {s} can play, so it may not pass (D5)"
        if legal == [PASS]:
            return f"seat {s} has no playable tile and must pass"
        t, end = a >> 1, a & 1
        if t not in self.hand(s):
            return f"seat {s} does not hold {tile_str(t)}"
        if self.ends is None:
            if self.must_lead is not None:
                return f"the first round must be opened with {tile_str(self.must_lead)} (D3)"
            return "a lead is played on the left (action tile * 2)"
        left, right = self.ends
        if (left if end == 0 else right) not in numbers(t):
            return (
                f"{tile_str(t)} does not fit the {END_NAMES[end]} end "
                f"(open ends {left} and {right})"
            )
        return f"{tile_str(t)} on the left and on the right leave the same ends: play it left"

    def preview(self, action: int) -> Preview:
        """What the legal ``action`` would do, without doing it."""
        a = self._check_action(action)
        E.preview(self._S, a, self._pre)
        p = [int(x) for x in self._pre]
        return Preview(
            p[0],
            p[1],
            bool(p[2]),
            bool(p[3]),
            END_KINDS[p[4]] if p[4] >= 0 else None,
            p[5] if p[5] >= 0 else None,
        )

    # ------------------------------------------------------------- what a seat sees
    def observe(self, seat: int) -> np.ndarray:
        """Seat ``seat``'s D17 view in the observation layout
        (:mod:`domeng.core.observation`): a new array."""
        self._check_seat(seat)
        E.observe(self._S, seat, self._obs)
        out: np.ndarray = self._obs.copy()
        return out

    def history(self) -> np.ndarray:
        """The round's public history, ``int64[MAX_TURNS, 3]`` (unused rows -1)."""
        E.observe_history(self._S, self._hist)
        out: np.ndarray = self._hist.copy()
        return out

    def events_for(self, seat: int | None) -> list[dict[str, Any]]:
        """This round's events as ``seat`` may see them (None: a spectator)."""
        return [for_seat(ev, seat) for ev in self.events]

    # ------------------------------------------------------------- helpers
    def _new_events(self) -> list[dict[str, Any]]:
        n = int(self._S.tn[0])
        rows = self._S.tr[self._read : n]
        self._read = n
        if not len(rows):
            return []
        if rows[0, 0] == EV_DEAL:
            new = decode_rows(rows)[0]
        else:  # a continuation of the round: decode after a synthetic round start
            new = decode_rows(np.vstack([self._S.tr[:1], rows]))[0][1:]
        self.events.extend(new)
        return new

    @staticmethod
    def _check_seat(seat: object) -> None:
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < 5:
            raise IllegalMoveError(f"a seat is 0..4, got {seat!r}")
