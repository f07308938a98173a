"""Words in five languages: one catalogue per language, and the one
formatter of a line written as a template key and its arguments.

The catalogues are ``domeng/core/i18n/{en,id,sv,ru,es}.json``: key ->
template.  A template names its arguments in braces (``{who} plays
{tile}``).  A line to show is an *item*, ``{"k": key, "a": {name: value}}``,
JSON data that a page formats in its own language with the same rules
(``domeng/web/static/app.js``).  An argument's value is one of:

- text or a number, shown as it is;
- ``{"seat": n}``: the seat's label (the ``name`` function given);
- ``{"n": count, "w": word}``: a count with its word in the right plural
  (key ``word.<w>.<plural category>``: ``one``/``other`` in English,
  ``one``/``few``/``many`` in Russian; ``other`` when a language has no
  form of its own);
- ``{"k": key, "a": {...}}``: another item;
- ``{"list": [values]}``: the values joined by ``word.sep``.

The game's own terms (FIRST CAPPU, CEKI, ...) are never translated: they
stay as on the card (docs/rules.md), in every language.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

#: the languages of the page, the create form and the glossary, English first
LANGS = ("en", "id", "sv", "ru", "es")
I18N = Path(__file__).resolve().parent / "i18n"
_ARG = re.compile(r"\{([a-z_]+)\}")

Item = dict[str, Any]
Name = Callable[[int], str]


def item(key: str, **args: Any) -> Item:
    """A line to show: its template key and arguments.

    Examples
    --------
    >>> item("log.block", who=seat(2))
    {'k': 'log.block', 'a': {'who': {'seat': 2}}}
    """
    return {"k": key, "a": args}


def seat(s: int) -> dict[str, int]:
    """An argument that names seat ``s`` (each reader labels it: "you", a name)."""
    return {"seat": int(s)}


def count(n: int, word: str) -> dict[str, Any]:
    """An argument ``n word`` in the plural the language needs (``word.<word>.*``)."""
    return {"n": int(n), "w": word}


@cache
def catalogue(lang: str = "en") -> Mapping[str, str]:
    """The catalogue file of ``lang`` (one of :data:`LANGS`), key -> template.

    Examples
    --------
    >>> catalogue("en")["word.sep"]
    ', '
    """
    if lang not in LANGS:
        raise KeyError(f"no catalogue for language {lang!r}; choose one of {', '.join(LANGS)}")
    data = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def plural(lang: str, n: int) -> str:
    """The plural category of ``n`` (CLDR's, as ``Intl.PluralRules`` gives
    it) for the languages of :data:`LANGS`."""
    if lang == "ru":
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    if lang == "id":
        return "other"
    return "one" if n == 1 else "other"


def fmt(it: Item, name: Name, lang: str = "en", words: Mapping[str, str] | None = None) -> str:
    """One item as text in ``lang``; ``name(seat)`` labels a seat.

    Examples
    --------
    >>> fmt(item("log.transfer", reason="CEKI", to=seat(1), stones=count(3, "stone"),
    ...          source=item("word.the_table")), lambda s: f"seat {s}")
    '  CEKI: seat 1 gets 3 stones from the table'
    """
    words = catalogue(lang) if words is None else words

    def value(v: Any) -> str:
        if isinstance(v, dict):
            if "seat" in v:
                return name(v["seat"])
            if "w" in v:
                forms = f"word.{v['w']}."
                key = forms + plural(lang, v["n"])
                return _fill(words.get(key) or words[forms + "other"], {"n": str(v["n"])})
            if "list" in v:
                return words["word.sep"].join(value(x) for x in v["list"])
            return fmt(v, name, lang, words)
        return str(v)

    args = {k: value(v) for k, v in it.get("a", {}).items()}
    return _fill(words[it["k"]], args)


def _fill(template: str, args: Mapping[str, str]) -> str:
    return _ARG.sub(lambda m: args.get(m.group(1), m.group(0)), template)


def arguments(template: str) -> set[str]:
    """The argument names a template uses (a translation must use the same)."""
    return set(_ARG.findall(template))
