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

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from domeng.core.errors import DomengError, WebError
from domeng.core.events import (
    END_NAMES,
    Deal,
    Event,
    RoundEnd,
    for_seat,
    render_events,
    render_items,
    to_dict,
)
from domeng.core.glossary import explain_end
from domeng.core.tiles import N_TILES
from domeng.core.words import item
from domeng.engine.game import PASS, Game, action_of
from domeng.play.session import HUMAN, Session, check_seat
from domeng.web.tablespec import (  # also table.X for callers
    DEFAULT_STAND_IN,
    TableSpec,
    chain_json,
    derive_token,
    next_seed,
    replay_steps,
    tile_text,
    token_hash,
)
from domeng.web.tablespec import MAX_CAMATS as MAX_CAMATS  # table.X for callers
from domeng.web.tablespec import MAX_ROUNDS as MAX_ROUNDS
from domeng.web.tablespec import SEAT_KINDS as SEAT_KINDS
from domeng.web.words import refuse


@dataclass
class Seat:
    """One of the five seats.  ``kind`` is :data:`HUMAN` or a player name."""

    kind: str
    token_hash: str | None = None
    connections: int = 0
    ready: bool = False  # asked for the next round
    standin: bool = False  # a person away: the stand-in plays for them
    away_since: float = 0.0  # the server's clock when the last page of the seat closed

    @property
    def human(self) -> bool:
        return self.kind == HUMAN


class Table:
    """A browser table: a :class:`~domeng.play.session.Session` (the one
    session for people: turn flow, seat checks, D17 views, standings, the
    final ranking, save data) and what only a browser needs around it: a
    link (token) per person, who is connected, the next-round votes.

    Every change goes through :meth:`act` (a person's message) or
    :meth:`computer_step`; each bumps :attr:`version`, which a person's
    message must quote (a replayed or stale message is refused)."""

    def __init__(
        self,
        spec: TableSpec,
        table_id: str | None = None,
        session: Session | None = None,
        stand_in: str = DEFAULT_STAND_IN,
    ) -> None:
        self.id = table_id or secrets.token_urlsafe(9)
        self.spec = spec
        if session is None:
            seed = spec.seed if spec.seed is not None else secrets.randbelow(2**63)
            session = Session(
                spec.seats,
                spec.rules,
                seed,
                rounds=spec.rounds or None,
                camats=spec.camats or None,
                stand_in=stand_in,
            )
        self.session = session
        self.seats = [Seat(k) for k in session.seats]
        # the host's link: the creator's seat's (a pure host's when nobody sits);
        # every other link is derived from it (derive_token), so that the host
        # can see them again from any device, while only hashes are kept
        host = secrets.token_urlsafe(24)
        self.host: str | None = token_hash(host)  # None: a table without a host
        self.gens = [0] * len(self.seats)  # each seat's link generation (a new person: +1)
        self.salt = secrets.token_hex(16)  # the next games' seeds (next_seed): never sent
        self.games = 1  # this is the table's games-th game (Play again)
        self.tokens: dict[str, int | None] = {}  # token hash -> seat (None: spectator)
        self.links: dict[str, str] = {}  # seat label -> token (given once, to the creator)
        humans = self.humans
        for s in humans:
            tok = host if s == humans[0] else derive_token(host, self._label(s))
            self.seats[s].token_hash = token_hash(tok)
            self.tokens[token_hash(tok)] = s
            self.links[str(s)] = tok
        if not humans:  # nobody sits: the host's link watches
            self.tokens[self.host] = None
        spect = derive_token(host, "spectator")
        self.tokens[token_hash(spect)] = None
        self.links["spectator"] = spect
        self.links["host"] = host
        self.version = 0
        # the last round's replay for each seat, and its JSON text (built once)
        self._replays: dict[tuple[int, int | None], tuple[dict[str, Any], str]] = {}
        self.created = self.last_human = time.monotonic()
        self.turn_since = 0.0  # the server's clock when the seat to move became so
        self.turn_at: tuple[int, int] | None = None  # ... at this position
        self.closed = False
        if not session.actions:  # a new game (a saved one goes on where it was)
            session.deal()

    def _label(self, s: int) -> str:
        return f"seat:{s}:{self.gens[s]}"

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
        table = cls(spec, table_id, session)
        extra = data.get("table") if isinstance(data, dict) else None
        if extra is not None:
            table._read_extra(extra)
        return table

    def _read_extra(self, extra: Any) -> None:
        """The browser table's own saved data (:meth:`to_save`'s ``table``)."""
        try:
            if not isinstance(extra, dict):
                raise TypeError("not an object")
            host, salt, gens = extra["host"], extra["salt"], extra["gens"]
            games, standin = extra["games"], extra["standin"]
            ok = (
                (host is None or isinstance(host, str))
                and isinstance(salt, str)
                and isinstance(gens, list)
                and len(gens) == len(self.seats)
                and all(type(g) is int and g >= 0 for g in gens)
                and type(games) is int
                and games >= 1
                and isinstance(standin, list)
                and len(standin) == len(self.seats)
                and all(isinstance(b, bool) for b in standin)
            )
            if not ok:
                raise TypeError("a field of the wrong type")
        except (KeyError, TypeError) as e:
            raise WebError(f"the saved table's own data is damaged ({e})") from None
        self.host, self.salt, self.gens, self.games = host, salt, list(gens), games
        for seat, b in zip(self.seats, standin):
            seat.standin = b and seat.human

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
        if isinstance(data, dict) and data.get("table") is None:
            table.host = None  # saved before tables had a host: its links stay as they were
        table.tokens = dict(tokens)
        table.links = {}  # given once, at the creation: never again
        for h, s in tokens.items():
            if s is not None:
                table.seats[s].token_hash = h
        table.version = int(version) + 1
        return table

    def to_save(self) -> dict[str, Any]:
        """The game as the session saves it (:meth:`Session.to_save`: rules,
        seats, seed, target, every action, the stand-in's steps and the
        seats replaced) and, under ``table``, the browser table's own data:
        the hash of the host's link, each seat's link generation, the game
        number, the seats the stand-in plays and the salt of the next games'
        seeds.  It reveals every deal: it is for the server's own storage,
        never for a page."""
        data = self.session.to_save()
        data["table"] = {
            "host": self.host,
            "salt": self.salt,
            "gens": list(self.gens),
            "games": self.games,
            "standin": [seat.standin for seat in self.seats],
        }
        return data

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
        """Every finished round's events, all of them, in their JSON form
        (private: see :meth:`export`)."""
        return [[to_dict(ev) for ev in evs] for evs in self.session.finished]

    def seat_of(self, token: str) -> tuple[bool, int | None]:
        """(found, seat) for a token; seat None is a spectator."""
        h = token_hash(token)
        if h not in self.tokens:
            return False, None
        return True, self.tokens[h]

    def name(self, s: int) -> str:
        """``seat 2 (Ana)``: the session's name of the seat (the terminal's too)."""
        return self.session.label(s)

    @property
    def game_over(self) -> bool:
        return self.session.game_over

    @property
    def computer_to_move(self) -> bool:
        """A computer player is to move: a computer's seat, or a person's
        whom the stand-in plays for."""
        s = self.session.to_move
        return (
            not self.closed
            and not self.session.round_over
            and s is not None
            and (not self.session.is_human(s) or self.seats[s].standin)
        )

    @property
    def humans(self) -> list[int]:
        return self.session.humans

    # ------------------------------------------------------------ changes
    def computer_step(self) -> None:
        """The computer player to move plays (the engine picks its legal action)."""
        key = self.turn_key()
        if not self.computer_play(self.computer_action(), key):
            raise WebError("the table moved on")

    def turn_key(self) -> tuple[Any, ...]:
        """What a computer decision was made for: the position, the seats
        and who plays the seat to move (a decision for another is dropped)."""
        s = self.session.to_move
        stood = s is not None and self.seats[s].standin
        return (self.session.position, len(self.session.changes), s, stood, self.games)

    def computer_action(self) -> int:
        """The action of the computer player to move, or of the stand-in for
        the person away (nothing changes yet; only reads the table, so it
        may run outside the server's loop)."""
        if not self.computer_to_move:
            raise WebError("no computer player is to move")
        s = self.session.to_move
        if s is not None and self.session.is_human(s):
            return self.session.decide_stand_in()
        return self.session.decide()

    def computer_play(self, action: int, key: tuple[Any, ...]) -> bool:
        """Play a computer player's ``action`` decided at :meth:`turn_key`
        ``key``; False (nothing changed) if the table moved on meanwhile (a
        person came back, a seat was replaced): the decision is dropped, it
        drew nothing (:meth:`Session.decide`)."""
        if not self.computer_to_move or key != self.turn_key():
            return False
        s = self.session.to_move
        if s is not None and self.session.is_human(s):
            self.session.stand_in_step(action)
        else:
            self.session.auto_step(action)
        self._changed()
        return True

    def stand_in_for(self, seat: int, on: bool) -> bool:
        """The stand-in starts (``on``) or stops playing for the person at
        ``seat``; returns whether anything changed."""
        st = self.seats[seat]
        if not st.human or st.standin == on or (on and self.session.stand_in is None):
            return False
        st.standin = on
        self.version += 1
        return True

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
            raise refuse("error.spectator_name" if typ == "name" else "error.spectator_play")
        if self.closed:
            raise refuse("error.closed")
        if typ == "name":
            self.rename(seat, msg.get("name"))
            return
        v = msg.get("version")
        if isinstance(v, bool) or not isinstance(v, int):
            raise WebError("the message has no version")
        if v != self.version:
            raise refuse("error.out_of_date")
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

    def rename(self, seat: int, text: Any, host: bool = False) -> None:
        """Give ``seat`` the name ``text`` (the session's check: at most
        :data:`~domeng.play.session.MAX_NAME` printable characters, trimmed);
        :class:`WebError` (one line, nothing changed) otherwise.  A person
        names their own seat; the ``host`` names any seat."""
        seat = self._seat_number(seat)
        if not host and not self.seats[seat].human:
            raise refuse("error.person_name")
        try:
            self.session.set_name(seat, text)
        except DomengError as e:
            raise WebError(str(e), item("name.bad")) from None
        self._replays.clear()  # their texts name the seats
        self.version += 1

    # ------------------------------------------------------------ the host
    def is_host(self, token: Any) -> bool:
        """Whether ``token`` is this table's host link."""
        return self.host is not None and isinstance(token, str) and token_hash(token) == self.host

    def host_seat(self) -> int | None:
        """The seat the host sits at (None: a pure host, or no host)."""
        return None if self.host is None else self.tokens.get(self.host)

    def host_links(self, token: str) -> dict[str, Any]:
        """Every link of the table, derived from the host's ``token``
        (:func:`derive_token`): the message only the host's pages get.  It
        names links, never a hand (D17).

        Examples
        --------
        >>> t = Table(TableSpec(["human", "human", "random", "random", "random"], seed=3))
        >>> m = t.host_links(t.links["host"])
        >>> m["seats"]["1"] == "/#t=" + t.links["1"], m["you"]
        (True, 0)
        """
        if not self.is_host(token):
            raise refuse("error.host_only")
        seats = {}
        for s in self.humans:
            tok = (
                token
                if self.tokens.get(token_hash(token)) == s
                else derive_token(token, self._label(s))
            )
            if self.tokens.get(token_hash(tok)) == s:
                seats[str(s)] = f"/#t={tok}"
        return {
            "type": "links",
            "seats": seats,
            "spectator": f"/#t={derive_token(token, 'spectator')}",
            "you": self.host_seat(),
        }

    def _seat_number(self, seat: Any) -> int:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise refuse("error.no_seat", seat=str(seat)[:10], last=len(self.seats) - 1)
        return seat

    def replace(
        self, seat: Any, kind: Any, token: str, computers: Any = None
    ) -> tuple[str | None, str | None]:
        """The host gives ``seat`` to ``kind``: a new person (a new link,
        derived from the host's ``token``) or a computer player (a name of
        the catalogue; ``computers``: its compiled players, built before,
        off the loop).  The seat's old link stops working.  Returns (the old
        link's hash, the new link's token or None).  :class:`WebError`, the
        table unchanged, for anything else (the host's own seat: rename it)."""
        seat = self._seat_number(seat)
        if not self.is_host(token):
            raise refuse("error.host_only")
        if seat == self.host_seat():
            raise refuse("error.host_seat")
        try:
            kind = check_seat(kind, "browser")
        except DomengError as e:
            raise WebError(str(e)) from None
        old = self.seats[seat].token_hash
        if old is not None:
            del self.tokens[old]
        new = None
        if kind == HUMAN:
            self.gens[seat] += 1
            new = derive_token(token, self._label(seat))
        if kind != HUMAN or not self.seats[seat].human:  # the game's seats change
            try:
                self.session.replace_seat(seat, kind, computers)
            except DomengError as e:
                if old is not None:
                    self.tokens[old] = seat
                raise WebError(str(e)) from None
        else:
            self.session.names[seat] = None  # a new person names themself
        self.seats[seat] = Seat(kind)
        if new is not None:
            self.seats[seat].token_hash = token_hash(new)
            self.tokens[token_hash(new)] = seat
        self._replays.clear()
        self.version += 1
        return old, new

    def play_again(self) -> None:
        """A new game at the same table (after the last one is over): the
        same seats, names, links and stand-in; the next seed
        (:func:`next_seed`); the game counter up by one."""
        if not self.session.game_over:
            raise refuse("error.not_over")
        self.games += 1
        self.session = self.session.next_game(
            next_seed(self.session.game.seed, self.games, self.salt)
        )
        for seat in self.seats:
            seat.ready = seat.standin = False
        self._replays.clear()
        self.session.deal()
        self.version += 1

    def _changed(self) -> None:
        """After a step: a new version; at a round's end, new next-round votes."""
        self.version += 1
        if self.session.round_over:
            for seat in self.seats:
                seat.ready = False

    def _next_round(self, seat: int) -> None:
        if not self.session.round_over:
            raise refuse("error.round_on")
        if self.session.game_over:
            raise refuse("error.game_over")
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
    def view(self, seat: int | None, host: bool = False) -> dict[str, Any]:
        """Everything ``seat`` (None: a spectator) may know now, as one JSON
        message, built from the session's D17 view of that seat only
        (``host``: the page is the host's, which may ask for the links)."""
        v, replay = self._view(seat)
        v["host"] = host
        v["last_round"] = None if replay is None else replay[0]
        return v

    def view_text(self, seat: int | None, host: bool = False) -> str:
        """:meth:`view` as JSON text.  The last round's replay (most of the
        message, and the same for a whole round) is encoded once a seat."""
        v, replay = self._view(seat)
        v["host"] = host
        return (
            json.dumps(v)[:-1]
            + ', "last_round": '
            + ("null" if replay is None else replay[1])
            + "}"
        )

    def label(self, seat: int | None) -> Callable[[int], str]:
        """How the texts shown to ``seat`` name each seat."""
        return lambda s: self.session.label(s, seat)

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
            k = next(i for i, ev in enumerate(v.events) if isinstance(ev, RoundEnd))
            end_text = render_events(v.events[k:], name=label).splitlines()
            end_items = render_items(v.events[k:])
        done = s.finished
        last: list[Event] | None
        if s.game_over and done:  # the final round, too, in the replay
            last = done[-1]
        else:
            last = (
                done[-2] if over and len(done) >= 2 else (done[-1] if not over and done else None)
            )
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
                    "away": st.human and st.connections == 0,
                    "standin": st.standin,  # the stand-in plays for the person away
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
            "events": [to_dict(ev) for ev in v.events],
            "log": render_events(v.events, name=label).splitlines(),
            # the same lines as items a page writes in its language (core.words)
            "log_items": render_items(v.events),
            "round_over": over,
            "result": None if v.result is None else to_dict(v.result),
            "end_text": end_text,
            "end_items": end_items,
            "explain": explain_end(v.events) if over else [],  # the end in plain words
            "standings": self.standings(),
            "game_over": s.game_over,
            "seed": s.seed,
            "game_no": self.games,  # the table's games-th game (Play again)
            "stand_in": s.stand_in,
            "host": False,  # the host's pages get True (Hub: the host's link)
        }, None if last is None else self._replay(last, seat, label)

    def _replay(self, evs: list[Event], seat, label) -> tuple[dict[str, Any], str]:
        deal = evs[0]  # a round's events begin with its deal
        assert isinstance(deal, Deal)
        key = (deal.round, seat)
        if key not in self._replays:  # a finished round never changes: built once a seat
            mine = [for_seat(ev, seat) for ev in evs]
            self._replays = {k: v for k, v in self._replays.items() if k[0] == key[0]}
            r = {
                "round": key[0],
                "events": [to_dict(ev) for ev in mine],
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
        rounds = [[to_dict(for_seat(ev, seat)) for ev in evs] for evs in s.finished]
        if not s.round_over:
            rounds.append([to_dict(ev) for ev in s.view(seat).events])
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
