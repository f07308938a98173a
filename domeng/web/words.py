"""The browser table's words: the page's catalogue of one language, as
``/api/words?lang=xx`` serves it.

A page's catalogue is its language's catalogue file
(:func:`domeng.core.words.catalogue`) plus, in English, the keys whose
English text lives beside what it describes: the glossary's
(:func:`domeng.core.glossary.english`), each computer player's line
(:func:`domeng.players.catalogue.table_lines`, ``player.<name>``) and each
rule option's words (:func:`domeng.core.ruletext.option_docs`,
``rule.<name>``).  Every language has exactly the English keys (a test
checks it; a counted word has the plural forms its language needs), so no
string is missing on the page.
"""

from __future__ import annotations

import json
from typing import Any

from domeng.core.errors import WebError
from domeng.core.glossary import ALIASES, GLOSSARY, english
from domeng.core.ruletext import option_docs
from domeng.core.words import LANGS, catalogue, fmt, item
from domeng.players import catalogue as players


def page_words(lang: str) -> dict[str, str]:
    """Every string of the page in ``lang`` (one of :data:`~domeng.core.words.LANGS`).

    Examples
    --------
    >>> page_words("sv")["lang.label"]
    'Språk'
    >>> page_words("ru")["word.stone.few"]  # Russian counts need three forms
    '{n} камня'
    """
    words = dict(catalogue(lang))
    if lang == "en":
        words.update(english())
        words.update({f"player.{k}": v for k, v in players.table_lines("browser").items()})
        words.update({f"rule.{k}": v for k, v in option_docs().items()})
    return words


def pick(wanted: Any) -> str:
    """The language to serve for ``?lang=``: one of :data:`LANGS` (its
    first two letters), else English."""
    if isinstance(wanted, str):
        code = wanted.strip().lower()[:2]
        if code in LANGS:
            return code
    return "en"


def words_message(lang: str) -> dict[str, Any]:
    """What ``/api/words`` answers: the language, every language's own
    name (for the switch), the page's catalogue and the glossary's terms
    with the decisions they cite."""
    return {
        "lang": lang,
        "langs": {code: catalogue(code)["lang.self"] for code in LANGS},
        "words": page_words(lang),
        "terms": [{"term": t.term, "decisions": list(t.decisions)} for t in GLOSSARY],
        "aliases": dict(ALIASES),
    }


def refuse(key: str, **args: Any) -> WebError:
    """A refusal every page shows in its own language: its English text
    (the catalogue's ``key``, the ``message`` of the error message) and its
    item (``key`` and ``args``), which a page writes with its catalogue.

    Examples
    --------
    >>> e = refuse("error.no_seat", seat=7, last=4)
    >>> str(e), e.item
    ('no seat 7: seats are 0..4', {'k': 'error.no_seat', 'a': {'seat': 7, 'last': 4}})
    """
    it = item(key, **args)
    return WebError(fmt(it, str), it)


def error_text(err: WebError, fatal: bool = False) -> str:
    """The ``error`` message of ``err`` for a page (JSON text): its English
    ``message``, and its ``item`` when it has one (:func:`refuse`);
    ``fatal``: the page's link works no more (the page stops reconnecting)."""
    msg: dict[str, Any] = {"type": "error", "message": str(err)}
    if err.item is not None:
        msg["item"] = err.item
    if fatal:
        msg["fatal"] = True
    return json.dumps(msg)
