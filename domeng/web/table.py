"""One browser table: a :class:`~domeng.play.session.Session` (the one
session for people, shared with the terminal game) and what only a browser
needs around it: links, connections, next-round votes and JSON messages.

The table holds no rule and no bookkeeping of its own: the turn flow, the
seat checks, the legal actions and what each would do, the standings and
the final ranking (:func:`domeng.play.session.rank`), the round's end and
the save data are the session's, whose every rule is the engine's; the text
comes from the one renderer (:func:`domeng.core.events.render_events`).

D17 is the boundary the session keeps: :meth:`Table.view` builds a seat's
whole message from that seat's :meth:`~domeng.play.session.Session.view`
(public facts plus its own hand and, on its turn, its moves: one filter,
like boardgame.io's ``playerView``); the replay and the export pass each
finished round's events through :func:`domeng.core.events.for_seat` (no
other hand, never the 3 tiles out of play).  The seed, which fixes every
deal, is shown only once the game is over.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from domeng.core.errors import DomengError, PlayerError, WebError
from domeng.core.events import END_NAMES, for_seat, render_events, render_items
from domeng.core.glossary import explain_end
from domeng.core.rules import Rules
from domeng.core.tiles import N_TILES, is_double, numbers, tile_id
from domeng.engine.game import PASS, Game, action_of
from domeng.play.session import HUMAN, Session, chain_of, parse_seats
from domeng.players import catalogue

#: what the page offers for a seat: a person, or a built-in computer player
#: (never code named by a request); the session checks every seat
SEAT_KINDS = (HUMAN,) + catalogue.builtin_names("browser")
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
        try:  # the session's one check of who may sit at a table with people (D17)
            seats = parse_seats(seats, "browser")
        except PlayerError as e:
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
    """A browser table: a :class:`~domeng.play.session.Session` (the one
    session for people: turn flow, seat checks, D17 views, standings, the
    final ranking, save data) and what only a browser needs around it: a
    link (token) per person, who is connected, the next-round votes.

    Every change goes through :meth:`act` (a person's message) or
    :meth:`computer_step`; each bumps :attr:`version`, which a person's
    message must quote (a replayed or stale message is refused)."""

    def __init__(
        self, spec: TableSpec, table_id: str | None = None, session: Session | None = None
    ) -> None:
        self.id = table_id or secrets.token_urlsafe(9)
        self.spec = spec
        if session is None:
            seed = spec.seed if spec.seed is not None else secrets.randbelow(2**63)
            session = Session(
                spec.seats, spec.rules, seed, rounds=spec.rounds or None, camats=spec.camats or None
            )
        self.session = session
        self.seats = [Seat(k) for k in session.seats]
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
        self.version = 0
        # the last round's replay for each seat, and its JSON text (built once)
        self._replays: dict[tuple[int, int | None], tuple[dict[str, Any], str]] = {}
        self.created = self.last_human = time.monotonic()
        self.closed = False
        if not session.actions:  # a new game (a saved one goes on where it was)
            session.deal()

    @classmethod
    def from_save(cls, data: Any, table_id: str | None = None) -> Table:
        """A table from :meth:`to_save` data: the session replayed (every
        action checked by the engine), new links.  :class:`WebError` (one
        line) if the data is not a usable save."""
        try:
            session = Session.from_save(data)
        except DomengError as e:
            raise WebError(f"the saved table {e}") from None
        spec = TableSpec(
            list(session.seats),
            session.rules,
            None,
            session.target_rounds or 0,
            session.target_camats or 0,
        )
        return cls(spec, table_id, session)

    @classmethod
    def restore(
        cls, data: Any, table_id: str, tokens: dict[str, int | None], version: int
    ) -> Table:
        """A saved table brought back (:mod:`domeng.web.store`): the session
        replayed from ``data`` (:meth:`from_save`: every action checked by the
        engine), its links the stored ``tokens`` (hash -> seat, None for the
        spectators), its version past ``version`` (a page's message from
        before is out of date).  Runs off the server's loop (a replay may
        compile and ask computer players).  :class:`WebError` (one line) if
        the links do not fit the seats.

        Examples
        --------
        >>> t = Table(TableSpec(["human", "random", "random", "random", "random"], seed=3))
        >>> back = Table.restore(t.to_save(), t.id, t.tokens, t.version)
        >>> back.seats[0].token_hash == t.seats[0].token_hash, back.version > t.version
        (True, True)
        """
        table = cls.from_save(data, table_id)
        seats = sorted(s for s in tokens.values() if s is not None)
        if seats != table.humans or None not in tokens.values():
            raise WebError(f"the saved table {table_id} has links that do not fit its seats")
        table.tokens = dict(tokens)
        table.links = {}  # given once, at the creation: never again
        for h, s in tokens.items():
            if s is not None:
                table.seats[s].token_hash = h
        table.version = int(version) + 1
        return table

    def to_save(self) -> dict[str, Any]:
        """The game as the session saves it (:meth:`Session.to_save`: rules,
        seats, seed, target, every action).  It reveals every deal: it is
        for the server's own storage, never for a page."""
        return self.session.to_save()

    # ------------------------------------------------------------ who is who
    @property
    def game(self) -> Game:
        """The session's engine (read it; every change goes through the session)."""
        return self.session.game

    @property
    def seed(self) -> int:
        """The game's seed: never sent to a page before the game is over."""
        return self.session.game.seed

    @property
    def finished(self) -> list[list[dict[str, Any]]]:
        """Every finished round's events (private: see :meth:`export`)."""
        return self.session.finished

    def seat_of(self, token: str) -> tuple[bool, int | None]:
        """(found, seat) for a token; seat None is a spectator."""
        h = token_hash(token)
        if h not in self.tokens:
            return False, None
        return True, self.tokens[h]

    def name(self, s: int) -> str:
        """``seat 2 (Ana)``: the session's name of the seat (the terminal's too)."""
        return f"seat {s} ({self.session.name(s)})"

    @property
    def game_over(self) -> bool:
        return self.session.game_over

    @property
    def computer_to_move(self) -> bool:
        s = self.session.to_move
        return (
            not self.closed
            and not self.session.round_over
            and s is not None
            and not self.session.is_human(s)
        )

    @property
    def humans(self) -> list[int]:
        return self.session.humans

    # ------------------------------------------------------------ changes
    def computer_step(self) -> None:
        """The computer player to move plays (the engine picks its legal action)."""
        self.computer_play(self.computer_action(), self.version)

    def computer_action(self) -> int:
        """The action of the computer player to move (nothing changes yet;
        only reads the table, so it may run outside the server's loop)."""
        if not self.computer_to_move:
            raise WebError("no computer player is to move")
        return self.session.decide()

    def computer_play(self, action: int, version: int) -> None:
        """Play a computer player's ``action`` chosen at ``version``."""
        if not self.computer_to_move or version != self.version:
            raise WebError("the table moved on")
        self.session.auto_step(action)
        self._changed()

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
            "name": {"type", "name"},
        }
        if not isinstance(typ, str) or typ not in allowed:
            raise WebError("unknown message type")
        if set(msg) - allowed[typ]:
            raise WebError("unknown field in the message")
        if seat is None:
            raise WebError(
                "a spectator has no seat to name" if typ == "name" else "a spectator cannot play"
            )
        if self.closed:
            raise WebError("this table is closed")
        if typ == "name":
            self.rename(seat, msg.get("name"))
            return
        v = msg.get("version")
        if isinstance(v, bool) or not isinstance(v, int):
            raise WebError("the message has no version")
        if v != self.version:
            raise WebError("that message is out of date (the table has moved on); try again")
        if typ == "next_round":
            self._next_round(seat)
            return
        if typ == "pass":
            action = PASS
        else:
            tile, end = msg.get("tile"), msg.get("end")
            if isinstance(tile, bool) or not isinstance(tile, int) or not 0 <= tile < N_TILES:
                raise WebError("tile must be a tile id 0..27")
            if not isinstance(end, str) or end not in END_NAMES:
                raise WebError("end must be left or right")
            action = action_of(tile, END_NAMES.index(end))
        try:  # the session checks the seat, the engine the action: a refusal changes nothing
            self.session.play(action, seat)
        except DomengError as e:
            raise WebError(str(e)) from None
        self._changed()

    def rename(self, seat: int, text: Any) -> None:
        """Give ``seat`` the name ``text`` (the session's check: at most
        :data:`~domeng.play.session.MAX_NAME` printable characters, trimmed);
        :class:`WebError` (one line, nothing changed) otherwise."""
        if not self.seats[seat].human:
            raise WebError("only a person's seat takes a name")
        try:
            self.session.set_name(seat, text)
        except DomengError as e:
            raise WebError(str(e)) from None
        self._replays.clear()  # their texts name the seats
        self.version += 1

    def _changed(self) -> None:
        """After a step: a new version; at a round's end, new next-round votes."""
        self.version += 1
        if self.session.round_over:
            for seat in self.seats:
                seat.ready = False

    def _next_round(self, seat: int) -> None:
        if not self.session.round_over:
            raise WebError("the round is still being played")
        if self.session.game_over:
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
        try:
            self.session.deal()
        except DomengError as e:
            raise WebError(str(e)) from None
        for seat in self.seats:
            seat.ready = False
        self.version += 1

    # ------------------------------------------------------------ what a seat sees
    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` (None: a spectator) may know now, as one JSON
        message, built from the session's D17 view of that seat only."""
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

    def label(self, seat: int | None) -> Callable[[int], str]:
        """How the texts shown to ``seat`` name each seat."""
        return lambda s: f"seat {s} (you)" if s == seat else self.name(s)

    def _view(self, seat: int | None) -> tuple[dict[str, Any], tuple[dict[str, Any], str] | None]:
        s = self.session
        v = s.view(seat)  # the one D17 filter: everything below comes from it
        label = self.label(seat)
        legal: list[dict[str, Any]] = [
            {
                "tile": m.tile,
                "end": END_NAMES[m.action & 1],  # a lead's too: the page sends it back
                "left": m.preview.left,
                "right": m.preview.right,
                "mappakuling": m.preview.mappakuling,
                "mappakuling_matters": m.mappakuling_matters,  # D8: a last tile's only
                "ends_round": m.preview.ends_round,
                "kind": m.preview.kind,
                "award": m.preview.award,
            }
            for m in v.moves
        ]
        if v.may_pass:
            legal.append({"pass": True})
        playable = {m.tile for m in v.moves}
        hand = [{"id": t, "tile": tile_text(t), "playable": t in playable} for t in v.hand or []]
        over = s.round_over
        end_text = end_items = None
        if v.result is not None:
            k = next(i for i, ev in enumerate(v.events) if ev["type"] == "end")
            end_text = render_events(v.events[k:], name=label).splitlines()
            end_items = render_items(v.events[k:])
        done = s.finished
        last = done[-2] if over and len(done) >= 2 else (done[-1] if not over and done else None)
        return {
            "type": "state",
            "table": self.id,
            "version": self.version,
            "you": seat,
            "seats": [
                {
                    "seat": i,
                    "kind": st.kind,
                    "human": st.human,
                    "connected": st.connections > 0,
                    "ready": st.ready,
                    "name": label(i),
                    "given": s.names[i],  # the name the seat was given, or None
                    "player": s.name(i),  # the seat's name: given, or its player's
                }
                for i, st in enumerate(self.seats)
            ],
            "rules": s.rules.to_dict(),
            "limits": {"rounds": self.spec.rounds, "camats": self.spec.camats},
            "round": v.round,
            "rounds_played": s.rounds_played,
            "stones": v.stones,
            "table_stones": v.table_stones,
            "tiles_left": v.hand_sizes,
            "starter": v.starter,
            "last_mappano": v.last_mappano,
            "camat": v.camat,
            "turn": None if over else v.to_move,
            "ends": v.ends,
            "must_lead": v.must_lead,
            "chain": chain_json(v.chain, v.last_tile),
            "hand": hand,
            "legal": legal,
            "must_pass": legal == [{"pass": True}],
            "events": v.events,
            "log": render_events(v.events, name=label).splitlines(),
            # the same lines as items a page writes in its language (core.words)
            "log_items": render_items(v.events),
            "round_over": over,
            "result": v.result,
            "end_text": end_text,
            "end_items": end_items,
            "explain": explain_end(v.events) if over else [],  # the end in plain words
            "standings": self.standings(),
            "game_over": s.game_over,
            "seed": s.seed,
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
                "log_items": render_items(mine),
                "steps": replay_steps(mine),
            }
            self._replays[key] = (r, json.dumps(r))
        return self._replays[key]

    def standings(self) -> list[dict[str, Any]]:
        """The session's standings in the one final ranking's order
        (:func:`domeng.play.session.rank`: most CAMATs, then fewest stones
        held, fewest received, most rounds won)."""
        return self.session.ranking()

    def export(self, seat: int | None) -> dict[str, Any]:
        """The game so far as ``seat`` may see it (JSON); the seed only once over."""
        s = self.session
        rounds = [[for_seat(ev, seat) for ev in evs] for evs in s.finished]
        if not s.round_over:
            rounds.append(s.view(seat).events)
        v = s.view(None)
        return {
            "format": "domeng-web-game",
            "version": 1,
            "table": self.id,
            "you": seat,
            "seats": [st.kind for st in self.seats],
            "rules": s.rules.to_dict(),
            "limits": {"rounds": self.spec.rounds, "camats": self.spec.camats},
            "seed": s.seed,
            "stones": v.stones,
            "table_stones": v.table_stones,
            "standings": self.standings(),
            "rounds": rounds,
        }


def chain_json(chain: list[tuple[int, int]], last: int | None) -> list[dict[str, Any]]:
    """The chain as the page draws it, left to right, from the session's
    chain (:func:`domeng.play.session.chain_of`: the numbers each tile shows
    on its left and right, as the events say it lies)."""
    out = []
    for i, (a, b) in enumerate(chain):
        t = tile_id(a, b)
        out.append(
            {"tile": tile_text(t), "a": a, "b": b, "double": is_double(t), "last": i == last}
        )
    return out


def replay_steps(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The chain after each lead or play of a round (for the page's replay)."""
    steps = []
    for i, ev in enumerate(events):
        if ev["type"] in ("lead", "play"):
            steps.append(chain_json(*chain_of(events[: i + 1])))
    return steps
