"""The one event vocabulary of a round of Domeng.

Both engines report what happens in a round as a list of events: the
reference engine builds them as it plays (``Round.events``), the compiled
engine writes rows (``EV_*`` below, one row of ``TR_WIDTH`` integers per
event) that :func:`decode_rows` turns into the same events.  The engines
write an event as a small dict, its JSON form (``{"type": ..., ...}``);
everything that reads events (the renderer, the terminal, the browser
table, the trace, the session and its D17 filter :func:`for_seat`) reads
the typed form, the dataclasses below, matched by class.  One converter
each way: :func:`from_dict` where events come in from an engine or a file,
:func:`to_dict` where they go out as JSON (the browser's messages, a
trace's ``--json``); ``to_dict(from_dict(d)) == d``, key order included.
One renderer, :func:`render_items` (:func:`render_events` in English),
writes them in the game's words.

The names: :data:`END_KINDS` (how a round ends; each is also the reason of
its award) and :data:`REASONS` (why stones move); a transfer's source is a
seat or :data:`TABLE` (``"table"`` in JSON).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, overload

from domeng.core.layout import KIND_NAMES, REASON_NAMES
from domeng.core.tiles import hand_str, tile_str, tiles_of
from domeng.core.words import Item, count, fmt, item, seat

LEFT = 0
RIGHT = 1
END_NAMES = ("left", "right")
#: source id of stones paid from the table (``"table"`` in an event)
TABLE = -1

PASS, PASSEBUNGE, CAPPU, CEKI, POLLO, MANGUNO, MATTIKKENG = REASON_NAMES
#: why stones move (the card's STONES section), in the aggregate layout's order
REASONS = REASON_NAMES
#: how a round ends, in the aggregate layout's order
END_KINDS = KIND_NAMES

# compiled-engine event rows: column 0 is the type
EV_DEAL, EV_LEAD, EV_PLAY, EV_PASS, EV_TRANSFER, EV_UNPAID, EV_BLOCK, EV_END, EV_CAMAT = range(9)
TR_WIDTH = 13
#: worst case rows per round: deal, 25 plays, 100 passes with up to 3 rows each, block, end,
#: awards
TR_ROWS_PER_ROUND = 1 + 25 + 4 * 101 + 2 + 1 + 8 + 1


# ---------------------------------------------------------------- typed events
@dataclass(frozen=True)
class Deal:
    """A round begins: its number, the starter (D3/D4), the double the opener
    must lead (D3) or None, every hand and the 3 tiles out of play.  Private:
    a seat may see only its own hand (D17, :func:`for_seat`): in its view the
    other hands are None, ``out`` is None and ``hand_sizes`` says how many
    tiles each seat holds (None in the unfiltered event)."""

    round: int
    starter: int
    hands: list
    #: each seat's tile count, in a seat's view only (keyword-only: it sits
    #: between ``hands`` and ``out``, as in the JSON form)
    hand_sizes: list | None = field(default=None, kw_only=True)
    out: list | None
    must_lead: int | None
    type: str = field(default="deal", init=False)


@dataclass(frozen=True)
class Lead:
    """The opener's first tile; ``stand_in``: the stand-in took this step for
    a person away (a browser table, :meth:`domeng.play.session.Session.stand_in_step`)."""

    seat: int
    tile: int
    left: int
    right: int
    stand_in: bool = False
    type: str = field(default="lead", init=False)


@dataclass(frozen=True)
class Play:
    """A tile played at ``end`` (``"left"``/``"right"``), the ends after it;
    ``mappakuling``: it matched both ends (D8); ``stand_in`` as for :class:`Lead`."""

    seat: int
    tile: int
    end: str
    left: int
    right: int
    mappakuling: bool
    stand_in: bool = False
    type: str = field(default="play", init=False)


@dataclass(frozen=True)
class Pass:
    """A PASS; ``passebunge`` when the passer has played no tile yet (D6);
    ``stand_in`` as for :class:`Lead`."""

    seat: int
    passebunge: bool
    left: int | None
    right: int | None
    stand_in: bool = False
    type: str = field(default="pass", init=False)


@dataclass(frozen=True)
class Transfer:
    """Stones moved (D7): ``source`` a seat or ``"table"``, to seat ``to``."""

    reason: str
    source: int | str
    to: int
    amount: int
    type: str = field(default="transfer", init=False)


@dataclass(frozen=True)
class Unpaid:
    """Stones owed to seat ``to`` that neither the table nor the payers had (D7)."""

    reason: str
    to: int
    amount: int
    type: str = field(default="unpaid", init=False)


@dataclass(frozen=True)
class Block:
    """The LAST MAPPANO cannot play either: the round is blocked (D11)."""

    seat: int
    left: int
    right: int
    type: str = field(default="block", init=False)


@dataclass(frozen=True)
class RoundEnd:
    """How the round ended: ``kind`` in :data:`END_KINDS`, the winner, the
    FIRST CAPPU, CUCUQ, MANGUNO, MATTIKKENG (in turn order after the
    MANGUNO), every seat's unplayed pip sum, and the award's size ("up to N")."""

    kind: str
    winner: int
    first_cappu: int | None
    cucuq: int | None
    manguno: int | None
    mattikkeng: list
    pip_sums: list
    award: int
    type: str = field(default="end", init=False)


@dataclass(frozen=True)
class Camat:
    """Seat ``seat`` becomes CAMAT; every stone returns to the table (D15)."""

    seat: int
    table_stones: int
    type: str = field(default="camat", init=False)


Event = Deal | Lead | Play | Pass | Transfer | Unpaid | Block | RoundEnd | Camat
_TYPES = {
    c.__dataclass_fields__["type"].default: c
    for c in (Deal, Lead, Play, Pass, Transfer, Unpaid, Block, RoundEnd, Camat)
}


def from_dict(ev: Event | dict[str, Any]) -> Event:
    """An event's JSON dict -> its dataclass (an event already typed is
    returned as it is, so every reader takes either form).

    >>> from_dict({"type": "block", "seat": 3, "left": 2, "right": 5})
    Block(seat=3, left=2, right=5, type='block')
    """
    if not isinstance(ev, dict):
        return ev
    cls = _TYPES.get(ev.get("type"))
    if cls is None:
        raise ValueError(f"not an event: {str(ev)[:80]}")
    return cls(**{k: v for k, v in ev.items() if k != "type"})


#: the old name of :func:`from_dict`
typed = from_dict

#: fields written in the JSON form only when they differ from these (so a
#: plain event's JSON is as the engines write it)
_OMITTED = {"stand_in": False, "hand_sizes": None}


def to_dict(ev: Event | dict[str, Any]) -> dict[str, Any]:
    """An event -> its JSON dict, ``type`` first, then the fields in order
    (``stand_in`` only when true, ``hand_sizes`` only in a seat's view of a
    deal); a dict is returned as it is.  ``to_dict(from_dict(d)) == d``,
    key order included, for every event the engines and the filters write.

    >>> to_dict(Pass(seat=1, passebunge=True, left=6, right=2, stand_in=True))
    {'type': 'pass', 'seat': 1, 'passebunge': True, 'left': 6, 'right': 2, 'stand_in': True}
    """
    if isinstance(ev, dict):
        return ev
    out: dict[str, Any] = {"type": ev.type}
    for f in fields(ev):
        v = getattr(ev, f.name)
        if f.name != "type" and (f.name not in _OMITTED or v != _OMITTED[f.name]):
            out[f.name] = v
    return out


def to_json_lines(events: Iterable[Event | dict[str, Any]]) -> str:
    """Events as JSON lines (their :func:`to_dict` form), one a line."""
    return "".join(json.dumps(to_dict(e)) + "\n" for e in events)


#: the round ends whose rules compare the hands' pip sums (a block, D11..D14)
BLOCKED_ENDS = (MANGUNO, MATTIKKENG)


@overload
def for_seat(ev: dict[str, Any], seat: int | None) -> dict[str, Any]: ...
@overload
def for_seat(ev: Event, seat: int | None) -> Event: ...
def for_seat(ev, seat):
    """The event as ``seat`` may see it (D17), in the form it was given
    (typed or its dict): a deal shows only that seat's hand (``seat=None``: a
    spectator, no hand) and never the tiles out of play; a round end shows
    every pip sum only where the rules compare them (a blocked round,
    D11..D14), else only the seat's own (the others are None: with the
    public record they would tell the hidden tiles); every other event is
    public and returned as it is.

    >>> for_seat(Deal(1, 0, [[0], [1], [2], [3], [4]], [5, 6, 7], None), 1)
    Deal(round=1, starter=0, hands=[None, [1], None, None, None], hand_sizes=[1, 1, 1, 1, 1], out=None, must_lead=None, type='deal')
    """
    if isinstance(ev, dict):
        t = from_dict(ev)
        seen = for_seat(t, seat)
        return ev if seen is t else to_dict(seen)
    match ev:
        case RoundEnd(kind=kind) if kind not in BLOCKED_ENDS:
            sums = [v if s == seat else None for s, v in enumerate(ev.pip_sums)]
            return replace(ev, pip_sums=sums)
        case Deal():
            hands = [list(h) if s == seat else None for s, h in enumerate(ev.hands)]
            sizes = [len(h) for h in ev.hands]
            return Deal(
                ev.round, ev.starter, hands, hand_sizes=sizes, out=None, must_lead=ev.must_lead
            )
    return ev


# ---------------------------------------------------------------- compiled rows
def decode_rows(rows) -> list[list[dict[str, Any]]]:
    """Compiled-engine event rows -> one list of event dicts per round,
    exactly as the reference engine's ``Round.events``."""
    rounds: list[list[dict[str, Any]]] = []
    cur: list[dict[str, Any]] = []
    for row in rows:
        typ = int(row[0])
        a = [int(x) for x in row[1:]]
        if typ == EV_DEAL:
            cur = []
            rounds.append(cur)
            hands = [tiles_of(m) for m in a[3:8]]
            dealt = set().union(*map(set, hands))
            cur.append(
                {
                    "type": "deal",
                    "round": a[0],
                    "starter": a[1],
                    "hands": hands,
                    "out": sorted(set(range(28)) - dealt),
                    "must_lead": None if a[2] < 0 else a[2],
                }
            )
        elif typ == EV_LEAD:
            cur.append({"type": "lead", "seat": a[0], "tile": a[1], "left": a[2], "right": a[3]})
        elif typ == EV_PLAY:
            cur.append(
                {
                    "type": "play",
                    "seat": a[0],
                    "tile": a[1],
                    "end": END_NAMES[a[2]],
                    "left": a[3],
                    "right": a[4],
                    "mappakuling": bool(a[5]),
                }
            )
        elif typ == EV_PASS:
            cur.append(
                {
                    "type": "pass",
                    "seat": a[0],
                    "passebunge": bool(a[1]),
                    "left": a[2],
                    "right": a[3],
                }
            )
        elif typ == EV_TRANSFER:
            cur.append(
                {
                    "type": "transfer",
                    "reason": REASONS[a[0]],
                    "source": "table" if a[1] == TABLE else a[1],
                    "to": a[2],
                    "amount": a[3],
                }
            )
        elif typ == EV_UNPAID:
            cur.append({"type": "unpaid", "reason": REASONS[a[0]], "to": a[1], "amount": a[2]})
        elif typ == EV_BLOCK:
            cur.append({"type": "block", "seat": a[0], "left": a[1], "right": a[2]})
        elif typ == EV_END:
            m = a[4]
            mask = a[5]
            matt = [(m + k) % 5 for k in range(1, 5) if m >= 0 and (mask >> ((m + k) % 5)) & 1]
            cur.append(
                {
                    "type": "end",
                    "kind": END_KINDS[a[0]],
                    "winner": a[1],
                    "first_cappu": None if a[2] < 0 else a[2],
                    "cucuq": None if a[3] < 0 else a[3],
                    "manguno": None if m < 0 else m,
                    "mattikkeng": matt,
                    "pip_sums": a[6:11],
                    "award": a[11],
                }
            )
        elif typ == EV_CAMAT:
            cur.append({"type": "camat", "seat": a[0], "table_stones": a[1]})
    return rounds


# ---------------------------------------------------------------- text
def _source(source) -> Any:
    return item("word.the_table") if source in ("table", TABLE) else seat(source)


def _up_to(award) -> Any:
    return "" if award is None else item("log.up_to", award=award)


def render_items(events: Sequence[Event | dict[str, Any]]) -> list[Item]:
    """The event log in the game's terms, one item a line
    (:mod:`domeng.core.words`: a template key and its arguments, which a
    reader writes in its own language and with its own seat labels).  A
    deal's hands appear only where the event holds them (see :func:`for_seat`).

    >>> render_items([{"type": "block", "seat": 3, "left": 2, "right": 5}])
    [{'k': 'log.block', 'a': {'who': {'seat': 3}}}]
    """
    evs = [from_dict(e) for e in events]
    out: list[Item] = []
    i = 0
    while i < len(evs):
        ev = evs[i]
        i += 1
        match ev:
            case Deal():
                out.append(item("log.deal", round=ev.round, who=seat(ev.starter)))
                for s, h in enumerate(ev.hands):
                    if h is not None:
                        out.append(item("log.hand", who=seat(s), tiles=hand_str(h)))
                if ev.out is not None:
                    out.append(item("log.out", tiles=hand_str(ev.out)))
            case Lead() | Play():
                key = "log.lead" if isinstance(ev, Lead) else "log.play"
                if isinstance(ev, Play) and ev.mappakuling:
                    key += "_mappakuling"
                args = {"who": seat(ev.seat), "tile": tile_str(ev.tile)}
                if isinstance(ev, Play):
                    args["end"] = item(f"word.{ev.end}")
                out.append(_by(ev, item(key, **args, left=ev.left, right=ev.right)))
            case Pass():
                got = []
                while i < len(evs) and _paid_for_pass(evs[i]):
                    got.append(_got(evs[i]))
                    i += 1
                term = PASSEBUNGE if ev.passebunge else PASS
                moved = {"list": got} if got else item("log.no_stones")
                out.append(_by(ev, item("log.pass", who=seat(ev.seat), term=term, moved=moved)))
            case Block():
                out.append(item("log.block", who=seat(ev.seat)))
            case Transfer():
                stones = count(ev.amount, "stone")
                out.append(
                    item(
                        "log.transfer",
                        reason=ev.reason,
                        to=seat(ev.to),
                        stones=stones,
                        source=_source(ev.source),
                    )
                )
            case Unpaid():
                stones = count(ev.amount, "stone")
                out.append(item("log.unpaid", reason=ev.reason, stones=stones, to=seat(ev.to)))
            case RoundEnd():
                out.append(_end_item(ev))
            case Camat():
                stones = count(ev.table_stones, "stone")
                out.append(item("log.camat", who=seat(ev.seat), stones=stones))
    return out


def _paid_for_pass(ev: Event) -> bool:
    """Stones moved (or owed) for the PASS or PASSEBUNGE just before (D6, D7)."""
    return isinstance(ev, Transfer | Unpaid) and ev.reason in (PASS, PASSEBUNGE)


def _got(ev: Event) -> Item:
    """What a passer's payment brought, as the pass's line says it."""
    if isinstance(ev, Transfer):
        src = ev.source
        where = item("word.the_table") if src in ("table", TABLE) else item("log.seat_plain", n=src)
        return item("log.got", n=ev.amount, source=where)
    assert isinstance(ev, Unpaid)
    return item("log.got_unpaid", n=ev.amount)


def _by(ev: Lead | Play | Pass, it: Item) -> Item:
    """A step the stand-in took for a person away, so marked (``stand_in``,
    :meth:`domeng.play.session.Session.stand_in_step`)."""
    return item("log.stand_in", line=it) if ev.stand_in else it


def _end_item(ev: RoundEnd) -> Item:
    k = ev.kind
    sums = {"list": [item("log.sum", who=seat(s), v=v) for s, v in enumerate(ev.pip_sums)]}
    size = ev.award
    if k == MATTIKKENG:
        assert ev.manguno is not None  # a blocked round names its MANGUNO (D11)
        return item(
            "log.end_mattikkeng",
            who=seat(ev.manguno),
            matt={"list": [seat(s) for s in ev.mattikkeng]},
            winner=seat(ev.winner),
            award=size,
            sums=sums,
        )
    assert ev.cucuq is not None  # a won round names its CUCUQ (D7)
    if k == MANGUNO:
        assert ev.manguno is not None
        return item(
            "log.end_manguno",
            who=seat(ev.manguno),
            cucuq=seat(ev.cucuq),
            up_to=_up_to(size),
            sums=sums,
        )
    return item(
        f"log.end_{k.lower()}",
        who=seat(ev.winner),
        cucuq=seat(ev.cucuq),
        up_to=_up_to(size),
    )


def render_events(
    events: Sequence[Event | dict[str, Any]], name=lambda seat: f"seat {seat}"
) -> str:
    """The event log as readable text in the game's terms, one line a step
    (:func:`render_items` written in English).  ``name(seat)`` labels a seat
    (e.g. ``"you"`` or a player's name).  A deal's hands are shown only
    where the event holds them (see :func:`for_seat`)."""
    return "\n".join(fmt(it, name) for it in render_items(events))
