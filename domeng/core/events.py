"""The one event vocabulary of a round of Domeng.

Both engines report what happens in a round as a list of events: the
reference engine builds them as it plays (``Round.events``), the compiled
engine writes rows (``EV_*`` below, one row of ``TR_WIDTH`` integers per
event) that :func:`decode_rows` turns into the same events.  An event is a
small dict (its JSON form, ``{"type": ..., ...}``) and has a typed form
(the dataclasses below, :func:`typed`).  One renderer, :func:`render_events`,
writes them in the game's words for the CLI, the terminal game, traces and
the browser table.

The names: :data:`END_KINDS` (how a round ends; each is also the reason of
its award) and :data:`REASONS` (why stones move); a transfer's source is a
seat or :data:`TABLE` (``"table"`` in JSON).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

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
    a seat may see only its own hand (D17, :func:`for_seat`)."""

    round: int
    starter: int
    hands: list
    out: list
    must_lead: int | None
    type: str = field(default="deal", init=False)


@dataclass(frozen=True)
class Lead:
    seat: int
    tile: int
    left: int
    right: int
    type: str = field(default="lead", init=False)


@dataclass(frozen=True)
class Play:
    seat: int
    tile: int
    end: str
    left: int
    right: int
    mappakuling: bool
    type: str = field(default="play", init=False)


@dataclass(frozen=True)
class Pass:
    """A PASS; ``passebunge`` when the passer has played no tile yet (D6)."""

    seat: int
    passebunge: bool
    left: int | None
    right: int | None
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


def typed(ev: dict[str, Any]) -> Event:
    """An event dict -> its dataclass."""
    cls = _TYPES[ev["type"]]
    return cls(**{k: v for k, v in ev.items() if k != "type"})


def as_dict(ev: Event | dict[str, Any]) -> dict[str, Any]:
    """An event (either form) -> its JSON dict, ``type`` first."""
    if isinstance(ev, dict):
        return ev
    d = asdict(ev)
    return {"type": d.pop("type"), **d}


def to_json_lines(events: Iterable[Event | dict[str, Any]]) -> str:
    return "".join(json.dumps(as_dict(e)) + "\n" for e in events)


#: the round ends whose rules compare the hands' pip sums (a block, D11..D14)
BLOCKED_ENDS = (MANGUNO, MATTIKKENG)


def for_seat(ev: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """The event as ``seat`` may see it (D17): a deal shows only that seat's
    hand (``seat=None``: a spectator, no hand) and never the tiles out of
    play; a round end shows every pip sum only where the rules compare them
    (a blocked round, D11..D14), else only the seat's own (the others are
    None: with the public record they would tell the hidden tiles); every
    other event is public."""
    if ev.get("type") == "end":
        if ev["kind"] in BLOCKED_ENDS:
            return ev
        sums = [v if s == seat else None for s, v in enumerate(ev["pip_sums"])]
        return {**ev, "pip_sums": sums}
    if ev.get("type") != "deal":
        return ev
    hands = [list(h) if s == seat else None for s, h in enumerate(ev["hands"])]
    return {
        "type": "deal",
        "round": ev["round"],
        "starter": ev["starter"],
        "hands": hands,
        "hand_sizes": [len(h) for h in ev["hands"]],
        "out": None,
        "must_lead": ev["must_lead"],
    }


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
    evs = [as_dict(e) for e in events]
    out: list[Item] = []
    i = 0
    while i < len(evs):
        ev = evs[i]
        typ = ev["type"]
        i += 1
        if typ == "deal":
            out.append(item("log.deal", round=ev["round"], who=seat(ev["starter"])))
            for s, h in enumerate(ev["hands"]):
                if h is not None:
                    out.append(item("log.hand", who=seat(s), tiles=hand_str(h)))
            if ev.get("out") is not None:
                out.append(item("log.out", tiles=hand_str(ev["out"])))
        elif typ in ("lead", "play"):
            key = "log.lead" if typ == "lead" else "log.play"
            if ev.get("mappakuling"):
                key += "_mappakuling"
            args = {"who": seat(ev["seat"]), "tile": tile_str(ev["tile"])}
            if typ == "play":
                args["end"] = item(f"word.{ev['end']}")
            out.append(_by(ev, item(key, **args, left=ev["left"], right=ev["right"])))
        elif typ == "pass":
            got = []
            while (
                i < len(evs)
                and evs[i]["type"] in ("transfer", "unpaid")
                and evs[i]["reason"] in (PASS, PASSEBUNGE)
            ):
                tr = evs[i]
                if tr["type"] == "transfer":
                    src = tr["source"]
                    where = (
                        item("word.the_table")
                        if src in ("table", TABLE)
                        else item("log.seat_plain", n=src)
                    )
                    got.append(item("log.got", n=tr["amount"], source=where))
                else:
                    got.append(item("log.got_unpaid", n=tr["amount"]))
                i += 1
            term = PASSEBUNGE if ev["passebunge"] else PASS
            moved = {"list": got} if got else item("log.no_stones")
            out.append(_by(ev, item("log.pass", who=seat(ev["seat"]), term=term, moved=moved)))
        elif typ == "block":
            out.append(item("log.block", who=seat(ev["seat"])))
        elif typ == "transfer":
            stones = count(ev["amount"], "stone")
            out.append(
                item(
                    "log.transfer",
                    reason=ev["reason"],
                    to=seat(ev["to"]),
                    stones=stones,
                    source=_source(ev["source"]),
                )
            )
        elif typ == "unpaid":
            stones = count(ev["amount"], "stone")
            out.append(item("log.unpaid", reason=ev["reason"], stones=stones, to=seat(ev["to"])))
        elif typ == "end":
            out.append(_end_item(ev))
        elif typ == "camat":
            stones = count(ev["table_stones"], "stone")
            out.append(item("log.camat", who=seat(ev["seat"]), stones=stones))
        else:  # pragma: no cover - unknown event types are rendered raw
            out.append(item("log.raw", text=str(ev)))
    return out


def _by(ev: dict[str, Any], it: Item) -> Item:
    """A step the stand-in took for a person away, so marked (a browser
    table's ``"stand_in": true``, :meth:`domeng.play.session.Session.stand_in_step`)."""
    return item("log.stand_in", line=it) if ev.get("stand_in") else it


def _end_item(ev: dict[str, Any]) -> Item:
    k = ev["kind"]
    sums = {"list": [item("log.sum", who=seat(s), v=v) for s, v in enumerate(ev["pip_sums"])]}
    size = ev.get("award")
    if k in (CAPPU, CEKI, POLLO):
        return item(
            f"log.end_{k.lower()}",
            who=seat(ev["winner"]),
            cucuq=seat(ev["cucuq"]),
            up_to=_up_to(size),
        )
    if k == MANGUNO:
        return item(
            "log.end_manguno",
            who=seat(ev["manguno"]),
            cucuq=seat(ev["cucuq"]),
            up_to=_up_to(size),
            sums=sums,
        )
    return item(
        "log.end_mattikkeng",
        who=seat(ev["manguno"]),
        matt={"list": [seat(s) for s in ev["mattikkeng"]]},
        winner=seat(ev["winner"]),
        award=size,
        sums=sums,
    )


def render_events(
    events: Sequence[Event | dict[str, Any]], name=lambda seat: f"seat {seat}"
) -> str:
    """The event log as readable text in the game's terms, one line a step
    (:func:`render_items` written in English).  ``name(seat)`` labels a seat
    (e.g. ``"you"`` or a player's name).  A deal's hands are shown only
    where the event holds them (see :func:`for_seat`)."""
    return "\n".join(fmt(it, name) for it in render_items(events))
