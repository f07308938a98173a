"""A game of Domeng at one table, with people and computer players: the
session every front end drives (the terminal game, and a browser table).

It does no input or output.  It holds the seats (``human`` or a built-in
computer player), the game's target (D16: rounds, or the K-th CAMAT), the
turn flow, what each seat may see (D17), and the record that makes a game
replayable: the actions taken, round by round.  Every rule is the engine's
(:class:`domeng.engine.game.Game`); the computer players are the compiled
ones of a study (:class:`domeng.batch.computer.Computers`), so a session
with five computers is move for move table 0 of a study with the same seed.

A saved session (:meth:`Session.to_save`) holds the rules, seats, seed,
target and actions, never a hand nor a generator state: loading
(:meth:`Session.from_save`) replays the actions through the engine, each
checked legal, and every computer seat's move checked to be the one its
player makes.  The seed is needed to replay the deals, so a save reveals
the game to whoever reads it (see :mod:`domeng.play.savefile`).

    >>> s = Session(["human", "hunter", "keeper", "heavy", "random"], seed=5, rounds=1)
    >>> events = s.deal()
    >>> while not s.round_over:
    ...     events = s.play(s.moves()[0].action) if s.human_to_move() else s.auto_step()
    >>> s.game_over, s.seed  # the seed is shown once the game is over
    (True, 5)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from domeng.batch.computer import Computers
from domeng.core.defaults import HUMAN, N_BUILTIN
from domeng.core.errors import DomengError, IllegalMoveError, PlayerError, SaveFileError
from domeng.core.events import (
    CEKI,
    END_NAMES,
    POLLO,
    Camat,
    Event,
    Lead,
    Pass,
    Play,
    RoundEnd,
    Transfer,
    for_seat,
    from_dict,
)
from domeng.core.layout import N_SEATS
from domeng.core.rules import Rules
from domeng.engine.game import PASS, Game, Preview
from domeng.infra.interrupt import interruptible
from domeng.play.seats import MAX_NAME as MAX_NAME  # session.MAX_NAME for callers
from domeng.play.seats import (  # also session.X for callers
    _changes,
    _stood_in,
    check_name,
    check_seat,
    check_stand_in,
    parse_seats,
    rank,
)

SAVE_FORMAT = "domeng-play-save"
SAVE_VERSION = 3
#: a round has at most 25 plays and, in practice, far fewer than 200 passes
MAX_ACTIONS_PER_ROUND = 1_000
MAX_SAVED_ROUNDS = 100_000  # also in play.seats (a save's changes)


# ---------------------------------------------------------------------------
# What a seat sees
# ---------------------------------------------------------------------------


class Move(NamedTuple):
    """A legal action of the seat to move and what it would do (the engine's
    :class:`~domeng.engine.game.Preview`); :meth:`Session.moves` lists them.

    >>> s = Session(["human", "hunter", "keeper", "heavy", "random"], seed=1, rounds=1)
    >>> _ = s.deal()
    >>> all(isinstance(m, Move) for m in s.moves())
    True
    """

    action: int
    tile: int
    end: str  # "left" | "right" | "lead"
    preview: Preview

    @property
    def mappakuling_matters(self) -> bool:
        """Whether this play's MAPPAKULING changes the outcome (D8): only
        with the seat's last tile, where it makes a CEKI or a POLLO instead
        of a plain FIRST CAPPU; any other MAPPAKULING moves no stone."""
        return self.preview.mappakuling and self.preview.kind in (CEKI, POLLO)


class View(NamedTuple):
    """What one seat may see now (D17): public facts, and that seat's own
    hand (``hand`` is None for a spectator); :meth:`Session.view` makes one.

    >>> s = Session(["human", "hunter", "keeper", "heavy", "random"], seed=5, rounds=1)
    >>> _ = s.deal()
    >>> s.view(1).hand, s.view(None).hand
    ([6, 10, 15, 17, 25], None)
    """

    round: int
    starter: int | None
    to_move: int | None
    stones: list[int]
    table_stones: int
    camat: int | None
    hand_sizes: list[int]
    ends: tuple[int, int] | None
    chain: list[tuple[int, int]]  # the tiles from the left end to the right, as they lie
    last_tile: int | None  # index in ``chain`` of the tile played last
    last_mappano: int | None
    must_lead: int | None
    hand: list[int] | None  # during the round and after it: the tiles it still holds
    events: list[Event]  # this round's events, as this seat may see them (typed)
    #: the seat's legal plays when it is to move (only the seat to move is
    #: told them), and whether it may pass (D5: only when it cannot play)
    moves: tuple[Move, ...] = ()
    may_pass: bool = False
    result: RoundEnd | None = None  # the round's end, once it is over (public)


def chain_of(events: Sequence[Event | dict[str, Any]]) -> tuple[list[tuple[int, int]], int | None]:
    """The chain as the tiles lie, left to right, from the round's events
    (each play event carries the ends after it), and the index of the tile
    played last (None before the lead).

    >>> chain_of([Lead(seat=0, tile=27, left=6, right=6),
    ...           Play(seat=1, tile=24, end="right", left=6, right=3, mappakuling=False)])
    ([(6, 6), (6, 3)], 1)
    """
    chain: list[tuple[int, int]] = []
    last = None
    for ev in map(from_dict, events):
        match ev:
            case Lead():
                chain = [(ev.left, ev.right)]
                last = 0
            case Play(end=end) if end == END_NAMES[0]:
                chain.insert(0, (ev.left, chain[0][0]))
                last = 0
            case Play():
                chain.append((chain[-1][1], ev.right))
                last = len(chain) - 1
    return chain, last


# ---------------------------------------------------------------------------
# The session
# ---------------------------------------------------------------------------


class Session:
    """One game: five seats, a target, the engine and the record of actions.

    Parameters
    ----------
    seats:
        Five seats, seat 0 first: ``human`` or a built-in player
        (:func:`check_seat`).
    rules:
        The rules in force (None: the defaults).
    seed:
        The game's seed: table 0 of a study with that seed.
    rounds, camats:
        The target (D16): after ``rounds`` rounds, or at the ``camats``-th
        CAMAT (neither given: the first CAMAT).

    Raises
    ------
    PlayerError, DomengError
        For a seat that may not sit at the table, or a bad target.

    Examples
    --------
    >>> s = Session(["human", "hunter", "keeper", "heavy", "random"], seed=5, rounds=1)
    >>> _ = s.deal()
    >>> s.humans, s.to_move, s.human_to_move()
    ([0], 2, False)
    >>> while not s.round_over:
    ...     _ = s.play(s.moves()[0].action) if s.human_to_move() else s.auto_step()
    >>> s.ranking()[0]["seat"], sorted(s.to_save())[:3]
    (4, ['actions', 'format', 'modified'])
    >>> Session.from_save(s.to_save()).rounds_played
    1
    """

    def __init__(
        self,
        seats: Sequence[str],
        rules: Rules | None = None,
        seed: int = 0,
        rounds: int | None = None,
        camats: int | None = None,
        stand_in: str | None = None,
    ) -> None:
        self.seats = parse_seats(list(seats))
        #: the seats the game began with (:meth:`replace_seat` changes :attr:`seats`)
        self.first_seats = list(self.seats)
        self.rules = rules if rules is not None else Rules()
        if rounds is None and camats is None:
            camats = 1
        for name, v in (("rounds", rounds), ("camats", camats)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise DomengError(f"the game's {name} target must be a whole number >= 1")
        self.target_rounds = rounds
        self.target_camats = camats
        self.game = Game(self.rules, seed=seed)
        #: the computer player that may play for a person who is away
        #: (:meth:`stand_in_step`); None: nobody plays for a person
        self.stand_in = None if stand_in is None else check_stand_in(stand_in)
        self.computers = self.computers_for(self.seats)
        self.actions: list[list[int]] = []  # per round, every action taken
        #: per round, the indices (into that round's actions) the stand-in took
        self.stood_in: list[list[int]] = []
        #: the seats replaced during the game: [rounds dealt, actions of the
        #: last, seat, new kind] each, in order (:meth:`replace_seat`)
        self.changes: list[list[Any]] = []
        #: the last decision (where, action, the draws its player made), kept
        #: aside until that action is played (:meth:`_decide`)
        self._drawn: tuple[tuple[int, int, int], int, Any] | None = None
        #: each seat's name (:meth:`set_name`); None: not named (see :meth:`name`)
        self.names: list[str | None] = [None] * N_SEATS
        self.finished: list[list[Event]] = []  # each finished round's events (typed)
        #: the engine's event list last typed and its events typed
        #: (:meth:`_typed`: a view types only the events new since)
        self._typed_of: list[dict[str, Any]] | None = None
        self._typed_events: list[Event] = []
        self.modified = False  # loaded from an edited save (--allow-modified)
        #: a computer decision was interrupted (Ctrl-C): the engine's state may
        #: have been touched by it, so the game only saves from now on
        self.interrupted = False

    # -- who is where ---------------------------------------------------------
    def computers_for(self, seats: Sequence[str]) -> Computers:
        """The compiled players of ``seats`` (a person's seat holds the
        stand-in, else a placeholder never asked).  May compile: a server
        builds them off its loop and hands them to :meth:`replace_seat`."""
        standin = self.stand_in or HUMAN_STAND_IN
        return Computers([standin if s == HUMAN else s for s in seats])

    @property
    def position(self) -> tuple[int, int]:
        """Where the record of actions ends: (rounds dealt, actions of the last).

        >>> s = Session(["human", "hunter", "keeper", "heavy", "random"], seed=5)
        >>> s.position, (s.deal() and s.position)
        ((0, 0), (1, 0))
        """
        return len(self.actions), len(self.actions[-1]) if self.actions else 0

    def _where(self) -> tuple[int, int, int]:
        return (*self.position, len(self.changes))

    def replace_seat(
        self, seat: int, kind: str, computers: Computers | None = None, place: str = "browser"
    ) -> str:
        """Seat ``kind`` (a person, or a computer player that may sit at a
        table with people, :func:`check_seat`) at ``seat`` from now on, for
        the rest of the game; its name is cleared (it was the one who left).
        Recorded (:attr:`changes`) so that a save replays it where it
        happened.  ``computers``: the players of the new seats, built
        beforehand (:meth:`computers_for`).  Returns the seat's canonical kind.

        >>> s = Session(["human", "hunter", "keeper", "heavy", "random"], seed=5)
        >>> _ = s.deal()
        >>> s.replace_seat(0, "expert"), s.humans, s.changes
        ('expert', [], [[1, 0, 0, 'expert']])
        """
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < N_SEATS:
            raise PlayerError(f"no seat {str(seat)[:10]}: seats are 0..4")
        name = check_seat(kind, place)
        seats = list(self.seats)
        seats[seat] = name
        self.computers = computers if computers is not None else self.computers_for(seats)
        self.seats = seats
        self.names[seat] = None
        self.changes.append([*self.position, seat, name])
        self._drawn = None
        return name

    def next_game(self, seed: int) -> Session:
        """A new game at this table: the same seats, names, rules, target
        and stand-in, dealt from ``seed`` (Play again).

        >>> s = Session(["human", "hunter", "keeper", "heavy", "random"], seed=5)
        >>> s.set_name(0, "Ana") and s.next_game(6).names[0], s.next_game(6).seed
        ('Ana', None)
        """
        nxt = Session(
            self.seats,
            self.rules,
            seed,
            rounds=self.target_rounds,
            camats=self.target_camats,
            stand_in=self.stand_in,
        )
        nxt.names = list(self.names)
        return nxt

    @property
    def humans(self) -> list[int]:
        """The seats people sit at."""
        return [i for i, s in enumerate(self.seats) if s == HUMAN]

    def name(self, seat: int) -> str:
        """The seat's name: the one it was given (:meth:`set_name`), else its
        player's (``person`` for a person's seat).  Every front end labels
        seats with it (``seat 2 (Ana)``)."""
        given = self.names[seat]
        if given is not None:
            return given
        return "person" if self.is_human(seat) else self.seats[seat]

    def label(self, seat: int, you: int | None = None) -> str:
        """How a text names ``seat`` to the viewer at seat ``you``: ``seat 2
        (Ana)`` (:meth:`name`), or ``seat 0 (you)`` for the viewer's own seat;
        the one label of the terminal and the browser table."""
        return f"seat {seat} (you)" if seat == you else f"seat {seat} ({self.name(seat)})"

    def set_name(self, seat: int, text: Any) -> str:
        """Name ``seat`` (:func:`check_name`: PlayerError, nothing changed,
        if it is not a name); returns the name as it will be shown."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < N_SEATS:
            raise PlayerError(f"no seat {str(seat)[:10]}: seats are 0..4")
        name = check_name(text)
        self.names[seat] = name
        return name

    def is_human(self, seat: int) -> bool:
        """Whether a person sits at ``seat``."""
        return self.seats[seat] == HUMAN

    def is_builtin(self, seat: int) -> bool:
        """A person's seat, or a built-in heuristic's (it moves in
        microseconds); not a search player's (it thinks, and compiles first)."""
        return self.is_human(seat) or 0 <= int(self.computers.pids[seat]) < N_BUILTIN

    @property
    def to_move(self) -> int | None:
        """The seat to move, or None between rounds."""
        return self.game.seat

    @property
    def round_over(self) -> bool:
        """True before the first round and after a round has ended."""
        return self.game.round_over

    @property
    def rounds_played(self) -> int:
        """Rounds finished so far."""
        return self.game.rounds_played

    @property
    def game_over(self) -> bool:
        """D16: the target reached, between rounds."""
        return self.round_over and self.game.game_over(
            self.target_rounds or 0, self.target_camats or 0
        )

    @property
    def seed(self) -> int | None:
        """The game's seed, once the game is over (with it and the engine
        anyone can recompute every deal, so no seat may learn it before)."""
        return self.game.seed if self.game_over else None

    def human_to_move(self) -> bool:
        """A person must choose (they hold a playable tile); a seat that can
        only pass passes by :meth:`auto_step`."""
        s = self.to_move
        return s is not None and self.is_human(s) and self.game.legal_actions() != [PASS]

    # -- turn flow ------------------------------------------------------------
    def deal(self) -> list[Event]:
        """Start the next round (D2..D4); the deal event is private (see :meth:`view`)."""
        if self.game_over:
            raise IllegalMoveError("the game is over")
        events = self.game.new_round()
        self.actions.append([])
        self.stood_in.append([])
        return [from_dict(e) for e in events]

    def moves(self) -> list[Move]:
        """The seat to move's legal plays with what each would do (empty
        when it can only pass)."""
        return self._moves(self.game.legal_actions())

    def _moves(self, legal: list[int]) -> list[Move]:
        """:meth:`moves` of the legal actions ``legal``."""
        g = self.game
        out = []
        for a in legal:
            if a == PASS:
                continue
            end = "lead" if g.ends is None else END_NAMES[a & 1]
            out.append(Move(a, a >> 1, end, g.preview(a)))
        return out

    def play(self, action: int, seat: int | None = None) -> list[Event]:
        """A person's action at the seat to move (IllegalMoveError if not
        legal); with ``seat``, also refused unless that seat is to move (a
        front end where each person has a seat of their own)."""
        s = self.to_move
        if self.round_over:
            raise IllegalMoveError("the round is over")
        if seat is not None and seat != s:
            raise IllegalMoveError(f"it is not your turn: seat {s} is to play")
        if s is None or not self.is_human(s):
            raise IllegalMoveError("it is not a person's turn")
        return self._step(action)

    def auto_step(self, action: int | None = None) -> list[Event]:
        """The step no person decides: a computer seat's move, or a forced
        PASS.  ``action``: the computer's move that :meth:`decide` chose at
        this position (a front end that lets it think elsewhere)."""
        s = self.to_move
        if s is None:
            raise IllegalMoveError("no round is in progress")
        if self.human_to_move():
            raise IllegalMoveError(f"seat {s} is a person's: they choose their move")
        if action is None:
            action = PASS if self.is_human(s) else self.decide()
        return self._step(action)

    def decide(self) -> int:
        """The computer to move's action, nothing changed yet (it only reads
        the game: a server may run it off its loop; the draws its player
        made count only once that action is played).  A search player's is
        interruptible by Ctrl-C however long it thinks
        (:func:`domeng.infra.interrupt.interruptible`).  An interrupted
        decision is not in the record (a save replays to the position before
        it); the session then refuses to go on."""
        self._check_not_interrupted()
        s = self.to_move
        if s is None or self.is_human(s):
            raise IllegalMoveError("no computer player is to move")
        return self._decide(s)

    def decide_stand_in(self) -> int:
        """The action the stand-in (:attr:`stand_in`) would take for the
        person to move, nothing changed yet (as :meth:`decide`)."""
        self._check_not_interrupted()
        s = self.to_move
        if self.stand_in is None:
            raise IllegalMoveError("this game has no stand-in")
        if s is None or self.round_over or not self.is_human(s):
            raise IllegalMoveError("no person is to move")
        return self._decide(s)

    def _decide(self, s: int) -> int:
        # the player draws from its seat's stream in the game's state: the
        # draws are put aside and the stream restored, so that a decision
        # nobody plays (the table moved on meanwhile) changes nothing, and
        # a replay, which decides each move once, draws the same numbers
        st = self.game.state
        before = st.prng.copy()
        where = self._where()
        try:
            if 0 <= int(self.computers.pids[s]) < N_BUILTIN:
                a = self.computers.action(self.game)  # a heuristic: microseconds, no thread
            else:
                a = interruptible(self.computers.action, self.game)
        except KeyboardInterrupt:
            self.interrupted = True
            raise
        finally:
            drawn = st.prng.copy()
            st.prng[:] = before
        self._drawn = (where, int(a), drawn)
        return int(a)

    def stand_in_step(self, action: int | None = None) -> list[Event]:
        """The stand-in plays for the person to move (who is away): its
        ``action`` from :meth:`decide_stand_in` (None: decided now).  The
        step is recorded as the stand-in's (:attr:`stood_in`; the events of
        that step carry ``stand_in=True``).

        >>> s = Session(["human"] + ["hunter"] * 4, seed=5, stand_in="expert")
        >>> _ = s.deal()
        >>> while s.to_move != 0:
        ...     _ = s.auto_step()
        >>> _ = s.stand_in_step()
        >>> mine = [e for e in s.view(0).events if isinstance(e, Lead | Play | Pass) and e.seat == 0]
        >>> s.stood_in[0] == [len(s.actions[0]) - 1], mine[0].stand_in
        (True, True)
        """
        s = self.to_move
        if s is None or self.round_over:
            raise IllegalMoveError("no round is in progress")
        if not self.is_human(s):
            raise IllegalMoveError(f"seat {s} is a computer player's")
        if action is None:
            action = self.decide_stand_in()
        return self._step(action, stood=True)

    def _check_not_interrupted(self) -> None:
        if self.interrupted:
            raise DomengError(
                "a computer player's move was interrupted: save the game and load it again to go on"
            )

    def _step(self, action: int, stood: bool = False) -> list[Event]:
        self._check_not_interrupted()
        drawn, self._drawn = self._drawn, None
        where = self._where()
        events = self.game.step(action)
        if drawn is not None and drawn[0] == where and drawn[1] == int(action):
            self.game.state.prng[:] = drawn[2]  # the decided move's draws count now
        self.actions[-1].append(int(action))
        if stood:
            self.stood_in[-1].append(len(self.actions[-1]) - 1)
        if self.round_over:
            self.finished.append(self._marked(list(self._typed())))
        return [from_dict(e) for e in events]

    def _marked(self, events: list[Event]) -> list[Event]:
        """This round's ``events`` with ``stand_in=True`` on each step the
        stand-in took (the k-th lead, play or pass is the k-th action)."""
        stood = set(self.stood_in[-1]) if self.stood_in else set()
        if not stood:
            return events
        out, k = [], 0
        for ev in events:
            if isinstance(ev, Lead | Play | Pass):
                if k in stood:
                    ev = replace(ev, stand_in=True)
                k += 1
            out.append(ev)
        return out

    # -- what a seat sees ----------------------------------------------------------
    def view(self, seat: int | None) -> View:
        """What ``seat`` may see now (``None``: a spectator): D17.  Every
        front end builds what it shows a seat from this one filter."""
        g = self.game
        events = self._marked([for_seat(e, seat) for e in self._typed()])  # D17
        chain, last = chain_of(events)
        hand = None if seat is None else sorted(g.hand(seat))
        mine = seat is not None and not self.round_over and g.seat == seat
        legal = g.legal_actions() if mine else []
        ends = [e for e in events if isinstance(e, RoundEnd)] if self.round_over else []
        return View(
            g.round_number,
            g.starter,
            g.seat,
            g.stones,
            g.table_stones,
            g.camat,
            g.hand_sizes,
            g.ends,
            chain,
            last,
            g.last_mappano,
            g.must_lead,
            hand,
            events,
            tuple(self._moves(legal)),
            PASS in legal,
            ends[-1] if ends else None,  # the round's end as this seat sees it (D17)
        )

    def _typed(self) -> list[Event]:
        """This round's events, typed (the engine's, unfiltered: :meth:`view`
        filters them for a seat, D17).  The engine only appends to a round's
        list (a new round is a new list), so only the events new since the
        last call are converted."""
        src = self.game.events
        if src is not self._typed_of or len(self._typed_events) > len(src):
            self._typed_of, self._typed_events = src, []
        done = len(self._typed_events)
        if done < len(src):
            self._typed_events.extend(from_dict(e) for e in src[done:])
        return self._typed_events

    def standings(self) -> list[dict[str, int]]:
        """Per seat over the whole game: stones held now, rounds won, CAMATs,
        and every stone received (a CAMAT returns the stones to the table,
        D15; ``received`` still counts them)."""
        wins = [0] * N_SEATS
        camats = [0] * N_SEATS
        received = [0] * N_SEATS
        for events in self.finished:
            for ev in events:
                match ev:
                    case RoundEnd():
                        wins[ev.winner] += 1
                    case Camat():
                        camats[ev.seat] += 1
                    case Transfer():
                        received[ev.to] += ev.amount
        st = self.game.stones
        return [
            {
                "seat": s,
                "stones": st[s],
                "wins": wins[s],
                "camats": camats[s],
                "received": received[s],
            }
            for s in range(N_SEATS)
        ]

    def ranking(self) -> list[dict[str, int]]:
        """:meth:`standings` in the final order (:func:`rank`)."""
        return rank(self.standings())

    # -- save and load ----------------------------------------------------------------
    def to_save(self) -> dict[str, Any]:
        """The game as JSON data: rules, seats, seed, target and actions; no
        hand and no generator state (a load replays the actions)."""
        data: dict[str, Any] = {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "rules": self.rules.to_dict(),
            "seats": list(self.seats),
            "seed": self.game.seed,
            "target": {"rounds": self.target_rounds, "camats": self.target_camats},
            "actions": [list(r) for r in self.actions],
            "modified": self.modified,
            "names": list(self.names),
        }
        if self.stand_in is not None:  # a browser table's (a terminal save has none)
            data["stand_in"] = self.stand_in
            data["stood_in"] = [list(r) for r in self.stood_in]
        if self.changes:
            data["seats"] = list(self.first_seats)  # the replay makes each change in turn
            data["changes"] = [list(c) for c in self.changes]
        return data

    @classmethod
    def from_save(
        cls, data: Any, *, rounds: int | None = None, camats: int | None = None
    ) -> Session:
        """Replay a saved game; :class:`SaveFileError` (one line) if the data
        is not a usable save of this version.  ``rounds``/``camats`` replace
        the saved target."""
        if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
            raise SaveFileError("is not a domeng play save file")
        if data.get("version") != SAVE_VERSION:
            raise SaveFileError(
                f"is a save of format version {str(data.get('version'))[:20]}; "
                f"this domeng reads version {SAVE_VERSION}"
            )
        try:
            return cls._replay(data, rounds, camats)
        except SaveFileError:
            raise
        except (DomengError, KeyError, TypeError, ValueError, IndexError) as e:
            why = " ".join(str(e).split())[:200] or type(e).__name__
            if isinstance(e, KeyError):
                why = f"missing {why}"
            raise SaveFileError(f"is corrupt: {why}") from None

    @classmethod
    def _replay(cls, data: dict, rounds: int | None, camats: int | None) -> Session:
        rules_map = data["rules"]
        if not isinstance(rules_map, dict):
            raise ValueError("rules must be an object")
        rules = Rules.from_mapping(rules_map)
        seats = data["seats"]
        if not isinstance(seats, list):
            raise ValueError("seats must be a list of 5 names")
        seed = data["seed"]
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise ValueError("seed must be a whole number 0 <= seed < 2**64")
        target = data["target"]
        if not isinstance(target, dict):
            raise ValueError("target must be an object")
        if rounds is None and camats is None:
            rounds, camats = target.get("rounds"), target.get("camats")
        stand_in = data.get("stand_in")
        s = cls(seats, rules=rules, seed=seed, rounds=rounds, camats=camats, stand_in=stand_in)
        s.modified = data.get("modified") is True
        log = data["actions"]
        if not isinstance(log, list) or len(log) > MAX_SAVED_ROUNDS:
            raise ValueError("actions must be a list of rounds")
        stood = _stood_in(data.get("stood_in"), len(log))
        changes = _changes(data.get("changes"))
        done = 0  # changes made

        def change() -> None:  # the seat changes made at this point of the game
            nonlocal done
            while done < len(changes) and changes[done][:2] == list(s.position):
                s.replace_seat(changes[done][2], changes[done][3])
                done += 1

        for r, acts in enumerate(log, 1):
            if not isinstance(acts, list) or len(acts) > MAX_ACTIONS_PER_ROUND:
                raise ValueError(f"round {r}'s actions must be a list")
            if not s.round_over:
                raise ValueError(f"round {r - 1} does not end where the save says")
            change()
            s.deal()
            for i, a in enumerate(acts, 1):
                change()
                if s.round_over:
                    raise ValueError(f"round {r} ends before its action {i}")
                if isinstance(a, bool) or not isinstance(a, int):
                    raise ValueError(f"round {r}, action {i}: not a whole number")
                seat = s.to_move
                if i - 1 in stood[r - 1]:
                    s.stand_in_step()
                    who = "the stand-in"
                elif s.is_human(seat) and s.human_to_move():
                    s.play(a)  # IllegalMoveError with the reason if it is not legal
                    continue
                else:
                    s.auto_step()
                    who = f"seat {seat} ({s.seats[seat]})"
                if s.actions[-1][-1] != a:
                    raise ValueError(f"round {r}, action {i}: {who} does not play that")
        change()
        if done != len(changes):
            raise ValueError("a seat change is recorded where the game never was")
        names = data.get("names")  # optional: saves before names had none
        if names is not None:
            if not isinstance(names, list) or len(names) != N_SEATS:
                raise ValueError("names must be a list of 5 names or nulls")
            for seat, name in enumerate(names):
                if name is not None:
                    s.set_name(seat, name)
        return s


#: the compiled player that holds a person's seat when the game has no
#: stand-in (never asked to move)
HUMAN_STAND_IN = "random"
