"""One browser table: five seats (people or computer players) around a
:class:`~domeng.engine.game.Game`, and what each seat may see.

The table holds no rule of its own: the legal actions, the ends after a
move, MAPPAKULING, the award sizes and the round's end all come from the
Game; the text comes from the one renderer (:func:`domeng.core.events.render_events`).

D17 is the boundary this module keeps: :meth:`Table.view` builds a seat's
whole message from public facts plus that seat's own hand, and the deal
events pass through :func:`domeng.core.events.for_seat` (no other hand, never
the 3 tiles out of play).  The seed, which fixes every deal, is shown only
once the game is over.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from domeng.batch.computer import Computers
from domeng.core.errors import (
    DomengError,
    WebError,
)
from domeng.core.events import END_NAMES, for_seat, render_events
from domeng.core.rules import Rules
from domeng.core.tiles import N_TILES, is_double, numbers
from domeng.engine.game import PASS, Game, action_of
from domeng.players import catalogue

HUMAN = "human"
#: what a seat may be: a person, or a built-in computer player (never code named by a request)
SEAT_KINDS = (HUMAN,) + catalogue.builtin_names("browser")
#: placeholder player for a person's seat (the Computers object never asks it)
_UNASKED = "random"
#: the largest game a request may ask for (D16: rounds / CAMATs)
MAX_ROUNDS = 1000
MAX_CAMATS = 20


def token_hash(token: str) -> str:
    """Tokens are kept only as hashes (a lookup leaks nothing about a near miss)."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def tile_text(t: int) -> str:
    """``"A-B"`` with A >= B: the page's ``data-tile``."""
    hi, lo = numbers(t)
    return f"{hi}-{lo}"


@dataclass
class Seat:
    """One of the five seats.  ``kind`` is :data:`HUMAN` or a player name."""

    kind: str
    token_hash: str | None = None
    connections: int = 0
    ready: bool = False  # asked for the next round

    @property
    def human(self) -> bool:
        return self.kind == HUMAN


@dataclass
class TableSpec:
    """What a request may choose when it creates a table (validated)."""

    seats: list[str]
    rules: Rules = field(default_factory=Rules)
    seed: int | None = None
    rounds: int = 0
    camats: int = 1

    @classmethod
    def parse(cls, data: Any) -> TableSpec:
        """Check a creation request: only known keys, built-in seat kinds,
        rule values the engine accepts, whole numbers in range."""
        if not isinstance(data, dict):
            raise WebError("a table is described by a JSON object")
        unknown = set(data) - {"seats", "rules", "seed", "rounds", "camats"}
        if unknown:
            raise WebError(f"unknown field(s): {', '.join(sorted(map(str, unknown)))[:200]}")
        seats = data.get("seats")
        if (
            not isinstance(seats, list)
            or len(seats) != 5
            or not all(isinstance(s, str) for s in seats)
        ):
            raise WebError("seats must be a list of five names")
        try:  # the one check of a seat's name (catalogue: budget range, places)
            seats = [
                HUMAN if s.strip().lower() == HUMAN else catalogue.seat_name(s, "browser")
                for s in seats
            ]
        except DomengError as e:
            raise WebError(str(e)) from None
        rules = data.get("rules") or {}
        if (
            not isinstance(rules, dict)
            or not all(isinstance(k, str) for k in rules)
            or not all(isinstance(v, (bool, int, str)) for v in rules.values())
        ):
            raise WebError("rules must be an object of rule option values")
        try:
            r = Rules.from_mapping(rules)
        except DomengError as e:
            raise WebError(str(e)) from None
        seed = data.get("seed")
        if seed is not None and seed != "":
            seed = _whole(seed, "seed", 0, 2**63 - 1)
        else:
            seed = None
        rounds = _whole(data.get("rounds") or 0, "rounds", 0, MAX_ROUNDS)
        camats = _whole(
            data.get("camats") if data.get("camats") is not None else (0 if rounds else 1),
            "camats",
            0,
            MAX_CAMATS,
        )
        if rounds == 0 and camats == 0:
            camats = 1
        return cls(seats, r, seed, rounds, camats)


def _whole(v: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(v, str) and v.strip().isascii() and v.strip().isdigit() and len(v) < 30:
        v = int(v.strip())
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise WebError(f"{name} must be a whole number {lo}..{hi}")
    return v


class Table:
    """A table: the Game, its seats, and the log of finished rounds.

    Every change goes through :meth:`act` (a person's message) or
    :meth:`computer_step`; each bumps :attr:`version`, which a person's
    message must quote (a replayed or stale message is refused)."""

    def __init__(self, spec: TableSpec, table_id: str | None = None) -> None:
        self.id = table_id or secrets.token_urlsafe(9)
        self.spec = spec
        self.seed = spec.seed if spec.seed is not None else secrets.randbelow(2**63)
        self.game = Game(spec.rules, self.seed)
        self.cpu = Computers([_UNASKED if k == HUMAN else k for k in spec.seats])
        self.seats = [Seat(k) for k in spec.seats]
        self.tokens: dict[str, int | None] = {}  # token hash -> seat (None: spectator)
        self.links: dict[str, str] = {}  # seat label -> token (given once, to the creator)
        for s, seat in enumerate(self.seats):
            if seat.human:
                tok = secrets.token_urlsafe(24)
                seat.token_hash = token_hash(tok)
                self.tokens[seat.token_hash] = s
                self.links[str(s)] = tok
        spect = secrets.token_urlsafe(24)
        self.tokens[token_hash(spect)] = None
        self.links["spectator"] = spect
        self.finished: list[list[dict[str, Any]]] = []  # every finished round's events (private)
        self.wins = [0] * 5
        self.camat_seats: list[int] = []
        self.version = 0
        # the last round's replay for each seat, and its JSON text (built once)
        self._replays: dict[tuple[int, int | None], tuple[dict[str, Any], str]] = {}
        self.created = self.last_human = time.monotonic()
        self.closed = False
        self.game.new_round()

    # ------------------------------------------------------------ who is who
    def seat_of(self, token: str) -> tuple[bool, int | None]:
        """(found, seat) for a token; seat None is a spectator."""
        h = token_hash(token)
        if h not in self.tokens:
            return False, None
        return True, self.tokens[h]

    def name(self, s: int) -> str:
        k = self.seats[s].kind
        return f"seat {s} ({'person' if k == HUMAN else k})"

    @property
    def game_over(self) -> bool:
        return self.game.round_over and self.game.game_over(self.spec.rounds, self.spec.camats)

    @property
    def computer_to_move(self) -> bool:
        s = self.game.seat
        return (
            not self.closed
            and not self.game.round_over
            and s is not None
            and not self.seats[s].human
        )

    @property
    def humans(self) -> list[int]:
        return [s for s, seat in enumerate(self.seats) if seat.human]

    # ------------------------------------------------------------ changes
    def computer_step(self) -> None:
        """The computer player to move plays (the engine picks its legal action)."""
        self.computer_play(self.computer_action(), self.version)

    def computer_action(self) -> int:
        """The action of the computer player to move (nothing changes yet;
        only reads the table, so it may run outside the server's loop)."""
        if not self.computer_to_move:
            raise WebError("no computer player is to move")
        return self.cpu.action(self.game)

    def computer_play(self, action: int, version: int) -> None:
        """Play a computer player's ``action`` chosen at ``version``."""
        if not self.computer_to_move or version != self.version:
            raise WebError("the table moved on")
        self._step(action)

    @property
    def slow_to_move(self) -> bool:
        """True when the seat to move is a search player (its moves and its
        first compile take long: the server runs it off its loop)."""
        s = self.game.seat
        return s is not None and self.seats[s].kind.startswith("search")

    def act(self, seat: int | None, msg: Any) -> None:
        """A person's message (already a parsed JSON value).  Refuses with
        :class:`WebError` (the table unchanged) anything but a well-formed,
        current (``version``), legal action of that seat."""
        if not isinstance(msg, dict):
            raise WebError("a message is a JSON object")
        typ = msg.get("type")
        allowed = {
            "play": {"type", "version", "tile", "end"},
            "pass": {"type", "version"},
            "next_round": {"type", "version"},
        }
        if typ not in allowed:
            raise WebError("unknown message type")
        if set(msg) - allowed[typ]:
            raise WebError("unknown field in the message")
        if seat is None:
            raise WebError("a spectator cannot play")
        if self.closed:
            raise WebError("this table is closed")
        v = msg.get("version")
        if isinstance(v, bool) or not isinstance(v, int):
            raise WebError("the message has no version")
        if v != self.version:
            raise WebError("that message is out of date (the table has moved on); try again")
        if typ == "next_round":
            self._next_round(seat)
            return
        if self.game.round_over:
            raise WebError("the round is over")
        if self.game.seat != seat:
            raise WebError(f"it is not your turn: {self.name(self.game.seat)} is to play")
        if typ == "pass":
            action = PASS
        else:
            tile, end = msg.get("tile"), msg.get("end")
            if isinstance(tile, bool) or not isinstance(tile, int) or not 0 <= tile < N_TILES:
                raise WebError("tile must be a tile id 0..27")
            if end not in END_NAMES:
                raise WebError("end must be left or right")
            action = action_of(tile, END_NAMES.index(end))
        try:
            self._step(action)  # the engine validates: an illegal action changes nothing
        except DomengError as e:
            raise WebError(str(e)) from None

    def _step(self, action: int) -> None:
        before = self.game.round_over
        self.game.step(action)
        self.version += 1
        if self.game.round_over and not before:
            self._round_finished()

    def _round_finished(self) -> None:
        evs = list(self.game.events)
        self.finished.append(evs)
        for ev in evs:
            if ev["type"] == "end":
                self.wins[ev["winner"]] += 1
            elif ev["type"] == "camat":
                self.camat_seats.append(ev["seat"])
        for seat in self.seats:
            seat.ready = False

    def _next_round(self, seat: int) -> None:
        if not self.game.round_over:
            raise WebError("the round is still being played")
        if self.game_over:
            raise WebError("the game is over")
        self.seats[seat].ready = True
        waiting = [
            s for s in self.humans if self.seats[s].connections > 0 and not self.seats[s].ready
        ]
        if not waiting:
            self.start_round()
        else:
            self.version += 1

    def start_round(self) -> None:
        """Deal the next round (D2..D4: the engine chooses the starter)."""
        self.game.new_round()
        for seat in self.seats:
            seat.ready = False
        self.version += 1

    # ------------------------------------------------------------ what a seat sees
    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` (None: a spectator) may know now, as one JSON
        message.  Built from public facts and ``game.hand(seat)`` only."""
        v, replay = self._view(seat)
        v["last_round"] = None if replay is None else replay[0]
        return v

    def view_text(self, seat: int | None) -> str:
        """:meth:`view` as JSON text.  The last round's replay (most of the
        message, and the same for a whole round) is encoded once a seat."""
        v, replay = self._view(seat)
        return (
            json.dumps(v)[:-1]
            + ', "last_round": '
            + ("null" if replay is None else replay[1])
            + "}"
        )

    def _view(self, seat: int | None) -> tuple[dict[str, Any], tuple[dict[str, Any], str] | None]:
        g = self.game

        def label(s: int) -> str:
            return f"seat {s} (you)" if s == seat else self.name(s)

        events = g.events_for(seat)
        legal = []
        mine = seat is not None and not g.round_over and g.seat == seat
        if mine:
            for a in g.legal_actions():
                if a == PASS:
                    legal.append({"pass": True})
                    continue
                p = g.preview(a)
                legal.append(
                    {
                        "tile": a >> 1,
                        "end": END_NAMES[a & 1],
                        "left": p.left,
                        "right": p.right,
                        "mappakuling": p.mappakuling,
                        "ends_round": p.ends_round,
                        "kind": p.kind,
                        "award": p.award,
                    }
                )
        hand = []
        if seat is not None:
            playable = {x["tile"] for x in legal if "tile" in x}
            hand = [
                {"id": t, "tile": tile_text(t), "playable": t in playable} for t in g.hand(seat)
            ]
        over = self.game_over
        result = g.result
        end_text = None
        if result is not None:
            k = next(i for i, ev in enumerate(events) if ev["type"] == "end")
            end_text = render_events(events[k:], name=label).splitlines()
        last = (
            self.finished[-2]
            if g.round_over and len(self.finished) >= 2
            else (self.finished[-1] if not g.round_over and self.finished else None)
        )
        return {
            "type": "state",
            "table": self.id,
            "version": self.version,
            "you": seat,
            "seats": [
                {
                    "seat": s,
                    "kind": st.kind,
                    "human": st.human,
                    "connected": st.connections > 0,
                    "ready": st.ready,
                    "name": label(s),
                }
                for s, st in enumerate(self.seats)
            ],
            "rules": self.spec.rules.to_dict(),
            "limits": {"rounds": self.spec.rounds, "camats": self.spec.camats},
            "round": g.round_number,
            "rounds_played": g.rounds_played,
            "stones": g.stones,
            "table_stones": g.table_stones,
            "tiles_left": g.hand_sizes,
            "starter": g.starter,
            "last_mappano": g.last_mappano,
            "camat": g.camat,
            "turn": None if g.round_over else g.seat,
            "ends": g.ends,
            "must_lead": g.must_lead,
            "chain": chain_of(events),
            "hand": hand,
            "legal": legal,
            "must_pass": legal == [{"pass": True}],
            "events": events,
            "log": render_events(events, name=label).splitlines(),
            "round_over": g.round_over,
            "result": result,
            "end_text": end_text,
            "standings": self.standings(),
            "game_over": over,
            "seed": self.seed if over else None,
        }, None if last is None else self._replay(last, seat, label)

    def _replay(self, evs, seat, label) -> tuple[dict[str, Any], str]:
        key = (evs[0]["round"], seat)
        if key not in self._replays:  # a finished round never changes: built once a seat
            mine = [for_seat(ev, seat) for ev in evs]
            self._replays = {k: v for k, v in self._replays.items() if k[0] == key[0]}
            r = {
                "round": mine[0]["round"],
                "events": mine,
                "log": render_events(mine, name=label).splitlines(),
                "steps": replay_steps(mine),
            }
            self._replays[key] = (r, json.dumps(r))
        return self._replays[key]

    def standings(self) -> list[dict[str, Any]]:
        """Seats by stones held (fewest first: stones are penalties), then
        rounds won; with CAMATs so far."""
        st = self.game.stones
        rows = [
            {"seat": s, "stones": st[s], "wins": self.wins[s], "camats": self.camat_seats.count(s)}
            for s in range(5)
        ]
        return sorted(rows, key=lambda r: (r["stones"], -r["wins"], r["seat"]))

    def export(self, seat: int | None) -> dict[str, Any]:
        """The game so far as ``seat`` may see it (JSON); the seed only once over."""
        rounds = [[for_seat(ev, seat) for ev in evs] for evs in self.finished]
        if not self.game.round_over:
            rounds.append(self.game.events_for(seat))
        return {
            "format": "domeng-web-game",
            "version": 1,
            "table": self.id,
            "you": seat,
            "seats": [st.kind for st in self.seats],
            "rules": self.spec.rules.to_dict(),
            "limits": {"rounds": self.spec.rounds, "camats": self.spec.camats},
            "seed": self.seed if self.game_over else None,
            "stones": self.game.stones,
            "table_stones": self.game.table_stones,
            "standings": self.standings(),
            "rounds": rounds,
        }


def chain_of(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chain as drawn, left to right: each tile with the numbers it
    shows on its left and right, read from the events' open ends (no rule
    is derived here: the engine's events say where each tile went)."""
    chain: list[dict[str, Any]] = []
    left = right = None
    last = None
    for ev in events:
        if ev["type"] == "lead":
            chain = [
                {
                    "tile": tile_text(ev["tile"]),
                    "a": ev["left"],
                    "b": ev["right"],
                    "double": is_double(ev["tile"]),
                }
            ]
            last = 0
        elif ev["type"] == "play":
            item = {"tile": tile_text(ev["tile"]), "double": is_double(ev["tile"])}
            if ev["end"] == "left":
                item.update(a=ev["left"], b=left)
                chain.insert(0, item)
                last = 0
            else:
                item.update(a=right, b=ev["right"])
                chain.append(item)
                last = len(chain) - 1
        else:
            continue
        left, right = ev["left"], ev["right"]
    for i, item in enumerate(chain):
        item["last"] = i == last
    return chain


def replay_steps(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The chain after each lead or play of a round (for the page's replay)."""
    steps = []
    for i, ev in enumerate(events):
        if ev["type"] in ("lead", "play"):
            steps.append(chain_of(events[: i + 1]))
    return steps
