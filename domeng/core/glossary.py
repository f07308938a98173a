"""The one glossary of the game's words: every term the tables show (the
card's 14 terms, docs/rules.md), each with a one-line gloss and a short
explanation that cites the decisions (D1..D17) it rests on.

The terminal's ``glossary`` command and the browser table's glossary panel
both show it; the English text is here, the other languages' in their
catalogues (:mod:`domeng.core.words`: keys ``term.<TERM>.gloss``,
``term.<TERM>.text`` and ``term.<TERM>.card``, how that language's card
writes the term).  The terms themselves are never translated.

:func:`explain_end` puts a round's end in plain words, beside its term.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from domeng.core.events import MANGUNO, MATTIKKENG, Camat, Event, RoundEnd, from_dict
from domeng.core.words import LANGS, Item, Name, catalogue, count, fmt, item, seat


class Term(NamedTuple):
    """One glossary entry: the term as on the card, the decisions of
    docs/rules.md it rests on, a one-line gloss and a short explanation."""

    term: str
    decisions: tuple[str, ...]
    gloss: str
    text: str


GLOSSARY: tuple[Term, ...] = (
    Term(
        "LEMPA",
        ("D8",),
        "a double tile, e.g. [6|6]",
        "A double stands crosswise in the chain. Playing out with a double "
        "that makes both ends equal is a POLLO.",
    ),
    Term(
        "PASS",
        ("D5", "D6", "D7"),
        "a player with no playable tile passes; play continues with the next player",
        "Only a player who cannot play passes. The passer gets up to 1 stone, from the table, "
        "else from the LAST MAPPANO.",
    ),
    Term(
        "PASSEBUNGE",
        ("D6", "D7"),
        "a PASS by a player who has not yet played a tile in this round",
        "It costs more than a PASS: the passer gets up to 2 stones, from the table, else "
        "from the LAST MAPPANO.",
    ),
    Term(
        "LAST DOMINO",
        ("D17",),
        "the tile played most recently",
        "It is marked on the chain.",
    ),
    Term(
        "LAST MAPPANO",
        ("D6", "D11"),
        "the player who played the LAST DOMINO",
        "He pays the stones of a PASS the table cannot cover; if the four others pass and "
        "he cannot play either, he is the MANGUNO.",
    ),
    Term(
        "FIRST CAPPU",
        ("D8", "D9", "D10"),
        "the first player to play all of their tiles",
        "The round ends at once and the FIRST CAPPU wins it; the seat before (the CUCUQ) "
        "gets up to 1 stone (CEKI: 3, POLLO: 5), from the table, else from the FIRST CAPPU.",
    ),
    Term(
        "MAPPAKULING",
        ("D8",),
        "a play after which both open ends of the chain show the same number",
        "It changes the outcome only with a player's last tile: then it makes a CEKI or a "
        "POLLO. Any other time it is just a play.",
    ),
    Term(
        "CEKI",
        ("D8", "D10"),
        "becoming FIRST CAPPU by a MAPPAKULING with a non-double",
        "The CUCUQ gets up to 3 stones instead of 1.",
    ),
    Term(
        "POLLO",
        ("D8", "D10"),
        "becoming FIRST CAPPU by a MAPPAKULING with a LEMPA",
        "This needs both ends equal to the double's number before the play. The CUCUQ gets "
        "up to 5 stones.",
    ),
    Term(
        "MANGUNO",
        ("D11", "D13"),
        "the LAST MAPPANO when every player, himself included, must pass (the round is blocked)",
        "The pip sums left in the hands are compared: with no MATTIKKENG the MANGUNO wins and "
        "the CUCUQ gets up to 1 stone, from the table, else from the MANGUNO.",
    ),
    Term(
        "MATTIKKENG",
        ("D12", "D14"),
        "any other player whose unplayed pip sum is equal to or lower than the MANGUNO's",
        "The MATTIKKENG with the lowest sum wins the blocked round; the MANGUNO gets up to 5 "
        "stones (up to 1 with two or more MATTIKKENG, or an equal sum), paid by the MATTIKKENG.",
    ),
    Term(
        "CUCUQ",
        ("D1", "D10", "D13"),
        "the player before the FIRST CAPPU, or before the MANGUNO (when there is no MATTIKKENG)",
        "The seat before is seat (s-1) mod 5, whatever it did; the CUCUQ receives the stones.",
    ),
    Term(
        "STONES",
        ("D7",),
        "penalty tokens; a game starts with a number of them (25) on the table",
        "Fewer is better. Stones are paid one by one from the table, then from the named "
        "payer; they are never created or destroyed.",
    ),
    Term(
        "CAMAT",
        ("D4", "D15"),
        "once every stone has been handed out, the first FIRST CAPPU who holds no stones",
        "Every stone returns to the table and the CAMAT starts every round until a new one "
        "is chosen. Most CAMATs ranks first at the game's end.",
    ),
)
TERMS: tuple[str, ...] = tuple(t.term for t in GLOSSARY)
#: words the texts use for a term: the end kind and award reason of a plain
#: FIRST CAPPU is ``CAPPU`` (:data:`domeng.core.events.END_KINDS`)
ALIASES: dict[str, str] = {"CAPPU": "FIRST CAPPU"}
#: the terms and their aliases, longest first (to find them in a line of text)
_FIND = re.compile(
    r"\b(?:"
    + "|".join(re.escape(t) for t in sorted([*TERMS, *ALIASES], key=len, reverse=True))
    + r")\b"
)


def english() -> dict[str, str]:
    """The glossary's catalogue keys in English (the other languages' are
    in their catalogue files)."""
    out: dict[str, str] = {}
    for t in GLOSSARY:
        out[f"term.{t.term}.gloss"] = t.gloss
        out[f"term.{t.term}.text"] = t.text
        out[f"term.{t.term}.card"] = t.term
    return out


def entries(lang: str = "en") -> list[dict[str, Any]]:
    """The glossary in ``lang`` (one of :data:`~domeng.core.words.LANGS`):
    per term, its gloss, explanation, decisions and how that language's card writes it.

    Examples
    --------
    >>> e = entries("sv")[7]
    >>> e["term"], e["decisions"]
    ('CEKI', ['D8', 'D10'])
    """
    words: Mapping[str, str] = english() if lang == "en" else catalogue(lang)
    return [
        {
            "term": t.term,
            "decisions": list(t.decisions),
            "gloss": words[f"term.{t.term}.gloss"],
            "text": words[f"term.{t.term}.text"],
            "card": words[f"term.{t.term}.card"],
        }
        for t in GLOSSARY
    ]


def terms_in(text: str) -> list[str]:
    """The glossary's terms that ``text`` uses, in order (a term inside a
    longer one counts once: FIRST CAPPU, not CAPPU; an alias counts as its term).

    >>> terms_in("seat 2 is FIRST CAPPU by CEKI and wins; CUCUQ is seat 1")
    ['FIRST CAPPU', 'CEKI', 'CUCUQ']
    >>> terms_in("  CAPPU: seat 0 gets 1 stone from the table")
    ['FIRST CAPPU']
    """
    return [ALIASES.get(t, t) for t in _FIND.findall(text)]


def explain_end(events: Sequence[Event | dict[str, Any]]) -> list[Item]:
    """A round's end in plain words (an item per fact, :mod:`domeng.core.words`):
    how it ended, who wins, who receives the award and why; a CAMAT too.

    >>> explain_end([{"type": "end", "kind": "CEKI", "winner": 3, "cucuq": 2, "award": 3,
    ...               "first_cappu": 3, "manguno": None, "mattikkeng": [], "pip_sums": []}])
    [{'k': 'expl.ceki', 'a': {'who': {'seat': 3}, 'cucuq': {'seat': 2}, 'stones': {'n': 3, 'w': 'stone'}}}]
    """
    out: list[Item] = []
    for ev in map(from_dict, events):
        match ev:
            case RoundEnd(kind=kind) if kind == MATTIKKENG:
                assert ev.manguno is not None  # a blocked round names its MANGUNO (D11)
                out.append(
                    item(
                        "expl.mattikkeng",
                        who=seat(ev.manguno),
                        matt={"list": [seat(s) for s in ev.mattikkeng]},
                        winner=seat(ev.winner),
                        stones=count(ev.award, "stone"),
                    )
                )
            case RoundEnd(kind=kind):
                who = ev.manguno if kind == MANGUNO else ev.winner
                assert who is not None and ev.cucuq is not None  # a won round's CUCUQ (D7)
                stones = count(ev.award, "stone")
                out.append(
                    item(f"expl.{kind.lower()}", who=seat(who), cucuq=seat(ev.cucuq), stones=stones)
                )
            case Camat():
                stones = count(ev.table_stones, "stone")
                out.append(item("expl.camat", who=seat(ev.seat), stones=stones))
    return out


def explained(events: Sequence[Event | dict[str, Any]], name: Name) -> list[str]:
    """:func:`explain_end` in English, one line a fact."""
    return [fmt(it, name) for it in explain_end(events)]


def glossary_text(width: int = 100, lang: str = "en") -> str:
    """The glossary as plain text (the terminal's ``glossary`` command)."""
    if lang not in LANGS:
        raise KeyError(lang)
    out = ["Glossary: the game's words (docs/rules.md)", ""]
    for e in entries(lang):
        out.append(e["term"])
        body = f"{e['gloss']}. {e['text']} ({', '.join(e['decisions'])})"
        out += textwrap.wrap(body, max(30, width), initial_indent="  ", subsequent_indent="  ")
    return "\n".join(out) + "\n"
