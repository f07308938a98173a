"""The page's words: one catalogue per language (domeng/core/i18n, served
by /api/words), each with exactly the English keys; the page (app.js,
index.html) uses only keys that exist and writes no word of its own."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from domeng.core.glossary import TERMS
from domeng.core.rules import Rules
from domeng.core.words import LANGS, arguments, catalogue, plural
from domeng.web.table import SEAT_KINDS
from domeng.web.words import page_words, pick, words_message

STATIC = Path(__file__).resolve().parents[2] / "domeng" / "web" / "static"
APP = (STATIC / "app.js").read_text(encoding="utf-8")
HTML = (STATIC / "index.html").read_text(encoding="utf-8")
#: the plural categories each language's counted words need (CLDR, as Intl.PluralRules)
PLURALS = {"en": {"one", "other"}, "sv": {"one", "other"}, "es": {"one", "other"}}
PLURALS |= {"id": {"other"}, "ru": {"one", "few", "many", "other"}}
_FORM = re.compile(r"^(word\.[a-z_]+)\.(one|few|many|other)$")


def _split(words: dict[str, str]) -> tuple[set[str], dict[str, set[str]]]:
    """(the keys but counted words, counted word -> its plural categories)."""
    keys, forms = set(), {}
    for k in words:
        m = _FORM.match(k)
        if m:
            forms.setdefault(m.group(1), set()).add(m.group(2))
        else:
            keys.add(k)
    return keys, forms


@pytest.mark.parametrize("lang", LANGS)
def test_every_catalogue_has_every_english_key_and_no_other(lang):
    en_keys, en_forms = _split(page_words("en"))
    keys, forms = _split(page_words(lang))
    assert keys - en_keys == set(), "keys English lacks"
    assert en_keys - keys == set(), "keys missing"
    assert set(forms) == set(en_forms)
    for word, cats in forms.items():
        assert cats == PLURALS[lang], (word, cats)


@pytest.mark.parametrize("lang", LANGS)
def test_each_translation_keeps_the_arguments_and_the_terms(lang):
    en, words = page_words("en"), page_words(lang)
    for k, v in words.items():
        base = _FORM.sub(r"\1.other", k)
        assert arguments(v) == arguments(en[base]), (k, v)
        assert v.strip() or k == "word.sep", k
        if k.startswith(("log.", "expl.")):  # the game's terms stay as on the card
            for term in re.findall(r"\b[A-Z]{3,}(?: [A-Z]{3,})*\b", en[base]):
                assert term in v, (k, term)


def test_the_plural_categories_are_cldrs():
    assert [plural("ru", n) for n in (1, 2, 5, 11, 21, 22, 25, 112)] == [
        "one",
        "few",
        "many",
        "many",
        "one",
        "few",
        "many",
        "many",
    ]
    assert plural("en", 1) == "one" and plural("en", 0) == "other" and plural("id", 1) == "other"


def test_the_words_message_and_the_language_picked():
    m = words_message("ru")
    assert m["lang"] == "ru" and set(m["langs"]) == set(LANGS)
    assert m["langs"]["id"] == "Bahasa Indonesia"
    assert [t["term"] for t in m["terms"]] == list(TERMS)
    assert m["aliases"] == {"CAPPU": "FIRST CAPPU"}
    json.dumps(m)
    assert pick("sv-SE") == "sv" and pick("xx") == "en" and pick(None) == "en"
    assert pick("ID") == "id"


class _Texts(HTMLParser):
    """Every key index.html names, and every text it holds itself."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: set[str] = set()
        self.texts: list[str] = []
        self.attrs: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("data-i18n", "data-i18n-aria"):
                self.keys.add(v)
            elif k in ("title", "aria-label", "placeholder", "alt"):
                self.attrs.append((k, v))

    def handle_data(self, data):
        if data.strip():
            self.texts.append(data.strip())


def test_index_html_uses_only_keys_that_exist_and_no_words_of_its_own():
    p = _Texts()
    p.feed(HTML)
    en = page_words("en")
    assert p.keys and p.keys <= set(en), p.keys - set(en)
    assert [t for t in p.texts if re.search(r"[^\W\d_]", t)] == []  # only «‹›» arrows
    assert p.attrs == []  # labels and titles come from data-i18n-aria


def _static_keys(src: str) -> set[str]:
    return set(re.findall(r"""\bt\(\s*"([a-z_]+(?:\.[A-Za-z_ ]+)+)"\s*[,)]""", src))


def test_app_js_uses_only_keys_that_exist():
    en = page_words("en")
    used = _static_keys(APP)
    assert len(used) > 40
    assert used - set(en) == set()
    # the keys it builds: a player's line, a rule's words, a term's entry, an end
    assert 't("player." + k)' in APP and 't("rule." + k)' in APP
    for k in SEAT_KINDS:
        assert k == "human" or f"player.{k}" in en
    for k in Rules().to_dict():
        assert f"rule.{k}" in en
    for term in TERMS:
        assert {f"term.{term}.{x}" for x in ("gloss", "text", "card")} <= set(en)
    assert "t(`end.${o.end}_to`" in APP and "t(`end.${o.end}`)" in APP
    for end in ("left", "right"):
        assert f"end.{end}_to" in en and f"end.{end}" in en
    dynamic = set(re.findall(r"\bt\(`([^`]*)`", APP))
    assert dynamic <= {
        "end.${o.end}_to",
        "end.${o.end}",
        "term.${x.term}.gloss",
        "term.${x.term}.text",
        "term.${x.term}.card",
    }, dynamic
    built = {f"end.{end}{x}" for end in ("left", "right") for x in ("", "_to")}
    for k in en:  # every key is used somewhere: by the page or by the items the server sends
        if k in built or k.startswith(
            ("log.", "expl.", "word.", "term.", "player.", "rule.", "lang.self", "error.")
        ):
            continue
        assert f'"{k}"' in APP or f'"{k}"' in HTML, f"{k} is used nowhere"


def test_app_js_writes_no_word_of_its_own():
    """No text literal reaches the page but through the catalogue: nothing
    that looks like a sentence is set as an element's text, a message, a
    title or a label."""
    bad = []
    for pat in (
        r'textContent\s*=\s*[`"][^`"]*[A-Za-z]{2}',
        r'\bsay\(\s*[`"]',
        r'\bel\(\s*"[a-z0-9]+"\s*,\s*\{[^}]*\}\s*,\s*[`"][^`"]*[A-Za-z]{2}',
        r'(?:title|"aria-label")\s*:\s*[`"][^`"]*[A-Za-z]{2}',
    ):
        bad += re.findall(pat, re.sub(r"\$\{[^}]*\}", "", APP))
    assert bad == []
    assert "innerHTML" not in APP and "insertAdjacentHTML" not in APP and "outerHTML" not in APP


def test_the_catalogue_files_are_json_objects_of_text():
    for lang in LANGS:
        for k, v in catalogue(lang).items():
            assert isinstance(k, str) and isinstance(v, str), (lang, k)


def test_every_refusal_key_is_raised_by_the_server_and_reaches_the_page_as_an_item():
    """The server's refusals (``error.*``, domeng.web.words.refuse) are each
    used by the server; the page writes a refusal's item in its language,
    the English text stays its ``message``."""
    src = "".join(p.read_text() for p in STATIC.parent.glob("*.py"))
    keys = [k for k in page_words("en") if k.startswith("error.")]
    assert len(keys) >= 30
    for k in keys:
        assert f'"{k}"' in src, f"{k} is used nowhere"
    assert "refusalText(m)" in APP and "fmt(m.item)" in APP


def test_refusals_come_with_their_item_and_read_in_every_language():
    """Refusals a person's page meets (an unknown link, an out-of-date move,
    a spectator's move, a bad name, a table too large) each come with the
    item of their catalogue key: each reads in all five languages, every
    argument filled, and its English is the message."""
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from domeng.core.words import fmt
    from domeng.web.server import create_app

    def readable(err: dict, key: str) -> None:
        it = err["item"]
        assert it["k"] == key, err
        assert fmt(it, str) == err.get("message", err.get("error"))
        texts = {lang: fmt(it, str, lang) for lang in LANGS}
        assert all(t and "{" not in t for t in texts.values()), texts
        assert len(set(texts.values())) == len(LANGS), texts  # each its own language

    with TestClient(create_app(delay=0, turn_timeout=0)) as client:
        r = client.post("/api/tables", json={"seats": ["human"] * 5, "rounds": 10**6})
        assert r.status_code == 400
        readable(r.json(), "error.whole")
        links = client.post("/api/tables", json={"seats": ["human"] * 5, "seed": 3}).json()
        with client.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": "x" * 20}))
            err = ws.receive_json()
            assert err["fatal"] is True
            readable(err, "error.unknown_link")
        with client.websocket_connect("/ws") as ws, client.websocket_connect("/ws") as sp:
            ws.send_text(json.dumps({"type": "hello", "token": links["you"].split("#t=")[1]}))
            st = ws.receive_json()
            sp.send_text(json.dumps({"type": "hello", "token": links["spectator"].split("#t=")[1]}))
            sp.receive_json()
            sp.send_text(json.dumps({"type": "pass", "version": st["version"]}))
            readable(sp.receive_json(), "error.spectator_play")
            for msg, key in (
                ({"type": "pass", "version": st["version"] - 1}, "error.out_of_date"),
                ({"type": "name", "name": "\u0007"}, "name.bad"),
                ({"type": "host_rename", "seat": 9, "name": "Bo"}, "error.no_seat"),
            ):
                ws.send_text(json.dumps(msg))
                m = ws.receive_json()
                while m["type"] == "state":  # the spectator's arrival
                    m = ws.receive_json()
                if key == "name.bad":
                    assert m["item"]["k"] == key and "printable" in m["message"]
                else:
                    readable(m, key)
