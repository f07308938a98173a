"""The rules as text, for ``domeng rules``: the card's 14 terms, decisions
D1..D17 (docs/rules.md) in short, and every rule option with its default (read
from :class:`domeng.core.rules.Rules`, so the list never goes stale)."""

from __future__ import annotations

import inspect
import re
import textwrap
from dataclasses import fields

from domeng.core.rules import Rules

TERMS = (
    ("LEMPA", "a double tile, e.g. [6|6]"),
    ("PASS", "a player with no playable tile passes; play continues with the next player"),
    ("PASSEBUNGE", "a PASS by a player who has not yet played a tile in this round"),
    ("LAST DOMINO", "the tile played most recently"),
    ("LAST MAPPANO", "the player who played the LAST DOMINO"),
    ("FIRST CAPPU", "the first player to play all of their tiles"),
    ("MAPPAKULING", "a play after which both open ends of the chain show the same number"),
    ("CEKI", "becoming FIRST CAPPU by a MAPPAKULING with a non-double"),
    ("POLLO", "becoming FIRST CAPPU by a MAPPAKULING with a LEMPA"),
    ("MANGUNO", "the LAST MAPPANO when every player, himself included, must pass (blocked round)"),
    (
        "MATTIKKENG",
        "any other player whose unplayed pip sum is equal to or lower than the MANGUNO's",
    ),
    (
        "CUCUQ",
        "the player before the FIRST CAPPU, or before the MANGUNO (when there is no MATTIKKENG)",
    ),
    ("STONES", "penalty tokens; a game starts with 25 of them on the table"),
    ("CAMAT", "once every stone has been handed out, the first FIRST CAPPU who holds no stones"),
)

DECISIONS = (
    (
        "D1",
        "Seats",
        "Seats 0..4; the turn passes from seat s to (s+1) mod 5; the player before s is (s-1) mod 5.",
    ),
    (
        "D2",
        "Deal",
        "Every round a uniformly random permutation of the 28 tiles: 5 tiles per seat, "
        "3 out of play, seen and used by nobody.",
    ),
    (
        "D3",
        "First round",
        "The holder of [6|6] (else [5|5], [4|4], [3|3]) starts the game and must "
        "lead that double (option opener_leads_double).",
    ),
    (
        "D4",
        "Later rounds",
        "The CAMAT starts if there is one, else the previous round's winner; "
        "the starter leads any tile.",
    ),
    (
        "D5",
        "Forced play",
        "A player who can play must; only a player with no playable tile passes. "
        "A move is (tile, end); placements leaving the same open ends are one move.",
    ),
    (
        "D6",
        "PASS and PASSEBUNGE",
        "Every turn without a playable tile is a PASS, penalised at once; "
        "every pass before the passer's first play of the round is a PASSEBUNGE "
        "(option passebunge_every_pass).",
    ),
    (
        "D7",
        "Who pays",
        "Awards are paid stone by stone from the table, then from the named payer; "
        "what neither covers is not paid. Stones are never created or destroyed.",
    ),
    (
        "D8",
        "MAPPAKULING",
        "Judged right after the play. POLLO: last tile a double and a MAPPAKULING; "
        "CEKI: last tile not a double and a MAPPAKULING; otherwise a plain FIRST CAPPU.",
    ),
    ("D9", "FIRST CAPPU", "The round ends at once, the moment a player plays his last tile."),
    (
        "D10",
        "CUCUQ",
        "The seat before the FIRST CAPPU (or the MANGUNO), whatever it did last; it "
        "receives stones.",
    ),
    (
        "D11",
        "Block",
        "After the LAST MAPPANO M plays, the next four pass and M cannot play: M is "
        "MANGUNO. M's closing pass is not a PASS (option penalize_manguno_pass). Emptying "
        "one's hand is FIRST CAPPU even if it also blocks.",
    ),
    ("D12", "MATTIKKENG", "The other four players whose remaining pip sum is <= M's."),
    ("D13", "Block without MATTIKKENG", "M wins; the CUCUQ gets up to 1, M gives the rest."),
    (
        "D14",
        "Block with MATTIKKENG",
        "M gets up to 5 (up to 1 with two or more MATTIKKENG or an "
        "equal sum), paid by the winner first, then the other MATTIKKENG in turn order after M. "
        "The winner is the lowest sum; ties: first in turn order after M.",
    ),
    (
        "D15",
        "CAMAT",
        "After settlement: if the table is empty and the round ended with a FIRST CAPPU "
        "who holds no stones, he becomes CAMAT and every stone returns to the table.",
    ),
    (
        "D16",
        "A game",
        "One table of five seats playing rounds in sequence; stones, CAMAT and the next "
        "starter carry over. A study plays many independent tables.",
    ),
    (
        "D17",
        "What a player knows",
        "His own hand, every play and pass (with the open ends), hand "
        "sizes, all stone holdings, the CAMAT, seats and round number; never another hand or "
        "the 3 tiles out of play.",
    ),
)


def option_docs() -> dict[str, str]:
    """Each option's description, from the ``#:`` comments of :class:`Rules`."""
    try:
        src = inspect.getsource(Rules)
    except (OSError, TypeError):
        return {}
    docs: dict[str, str] = {}
    pending: list[str] = []
    for line in src.splitlines():
        s = line.strip()
        if s.startswith("#:"):
            pending.append(s[2:].strip())
            continue
        m = re.match(r"(\w+)\s*:\s*\w+\s*=", s)
        if m and pending:
            docs[m.group(1)] = " ".join(pending)
        pending = []
    return docs


def _fmt(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def _as_typed(doc: str) -> str:
    """An option's description with its values as typed after ``--rule``
    (the ``#:`` comments are Python's: ``False`` there is ``false`` here)."""
    return re.sub(r"\b(True|False)\b", lambda m: m.group(1).lower(), doc)


def rules_text(width: int = 100) -> str:
    """Terms, decisions and options with their defaults, as plain text."""
    out = ["Domeng rules (docs/rules.md: terms, decisions D1..D17, options)", "", "TERMS"]
    tw = max(len(t) for t, _ in TERMS)
    for i, (t, m) in enumerate(TERMS, 1):
        out += textwrap.wrap(
            m, width, initial_indent=f"  {i:2d}. {t.ljust(tw)}  ", subsequent_indent=" " * (tw + 8)
        )
    out += ["", "DECISIONS"]
    for did, title, text in DECISIONS:
        out += textwrap.wrap(
            f"{title}. {text}", width, initial_indent=f"  {did:<4} ", subsequent_indent="       "
        )
    out += ["", "OPTIONS (domeng simulate --rule NAME=VALUE; award names may drop _award)"]
    docs = option_docs()
    default = Rules()
    nw = max(len(f.name) for f in fields(Rules))
    for f in fields(Rules):
        head = f"  {f.name.ljust(nw)}  default {_fmt(getattr(default, f.name)):<5} "
        out += textwrap.wrap(
            _as_typed(docs.get(f.name, "")),
            width,
            initial_indent=head,
            subsequent_indent=" " * len(head),
        ) or [head.rstrip()]
    return "\n".join(out) + "\n"
