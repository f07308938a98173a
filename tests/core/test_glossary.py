"""The one glossary (domeng.core.glossary): every term a table shows has an
entry, each cites decisions that exist, and a round's end is explained in
plain words in every language."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from domeng.core.events import REASONS, render_events, render_items
from domeng.core.glossary import (
    ALIASES,
    GLOSSARY,
    TERMS,
    entries,
    explain_end,
    explained,
    glossary_text,
    terms_in,
)
from domeng.core.ruletext import TERMS as CARD_TERMS
from domeng.core.words import LANGS, catalogue, fmt
from domeng.engine.game import Game

ROOT = Path(__file__).resolve().parents[2]
#: the rules document of the project, and the spec's RULES.md where it is checked out
#: beside the repository (../shared/spec, from the repository or a folder above it)
SPEC = [ROOT / "docs" / "rules.md"] + [
    next(
        (
            p / "shared" / "spec" / "RULES.md"
            for p in ROOT.parents
            if (p / "shared" / "spec").is_dir()
        ),
        ROOT.parent / "shared" / "spec" / "RULES.md",
    )
]
#: a run of upper-case words: how the texts write a term of the game
UPPER = re.compile(r"\b[A-Z]{3,}(?: [A-Z]{3,})*\b")


def _rounds(n: int = 60) -> list[list[dict]]:
    """Finished rounds of random play (every end kind appears in 60 games)."""
    out = []
    for seed in range(n):
        g = Game(seed=seed)
        rng = random.Random(seed)
        for _ in range(3):
            g.new_round()
            while not g.round_over:
                g.step(rng.choice(g.legal_actions()))
            out.append(list(g.events))
    return out


ROUNDS = _rounds()


def test_the_glossary_has_the_cards_terms_and_the_ones_the_page_shows():
    assert set(TERMS) == {t for t, _ in CARD_TERMS}
    for term in (
        "FIRST CAPPU",
        "CUCUQ",
        "MAPPAKULING",
        "CEKI",
        "POLLO",
        "MANGUNO",
        "MATTIKKENG",
        "PASSEBUNGE",
        "CAMAT",
        "LAST MAPPANO",
    ):
        assert term in TERMS
    for t in GLOSSARY:
        assert t.gloss and t.text and t.decisions, t
        assert "\n" not in t.gloss and len(t.gloss) < 120, t  # one line


def test_every_term_the_renderer_can_emit_has_an_entry():
    emitted: set[str] = set()
    for evs in ROUNDS:
        emitted |= set(UPPER.findall(render_events(evs)))
        emitted |= set(UPPER.findall("\n".join(explained(evs, lambda s: f"seat {s}"))))
    emitted |= set(REASONS)  # every award reason, whether or not these games paid it
    for template in catalogue("en").values():  # and every term a template writes
        emitted |= set(UPPER.findall(template))
    emitted -= {"JSON"}  # "Export the game (JSON)": a file format, not a term
    assert {"CEKI", "POLLO", "MANGUNO", "MATTIKKENG", "PASSEBUNGE", "CAMAT"} <= emitted
    unknown = {w for w in emitted if ALIASES.get(w, w) not in TERMS}
    assert unknown == set()


def test_terms_in_finds_the_longest_term_and_the_alias():
    assert terms_in("seat 1 is FIRST CAPPU by POLLO; LAST MAPPANO; PASSEBUNGE") == [
        "FIRST CAPPU",
        "POLLO",
        "LAST MAPPANO",
        "PASSEBUNGE",
    ]
    assert terms_in("  CAPPU: seat 0 gets 1 stone") == ["FIRST CAPPU"]
    assert terms_in("a PASS") == ["PASS"] and terms_in("PASSES") == []


@pytest.mark.parametrize("path", SPEC, ids=["docs-rules", "spec-RULES"])
def test_the_decisions_cited_exist_in_the_rules(path):
    if not path.is_file():
        pytest.skip(f"{path} is not checked out here")
    text = path.read_text(encoding="utf-8")
    defined = set(re.findall(r"(?m)^(?:###\s+|\*\*)(D\d+)\b", text))
    assert {f"D{i}" for i in range(1, 18)} <= defined
    cited = {d for t in GLOSSARY for d in t.decisions}
    for lang in LANGS:  # the explanations and notes cite them too, in every language
        for template in catalogue(lang).values():
            cited |= set(re.findall(r"\bD\d+\b", template))
    assert cited and cited <= defined, cited - defined


def test_each_round_end_is_explained_in_plain_words_in_every_language():
    kinds = set()
    for evs in ROUNDS:
        end = next(ev for ev in evs if ev["type"] == "end")
        kinds.add(end["kind"])
        items = explain_end(evs)
        assert items[0]["k"] == f"expl.{end['kind'].lower()}"
        assert len(items) == 1 + any(ev["type"] == "camat" for ev in evs)
        for lang in LANGS:
            for it in items:
                text = fmt(it, lambda s: f"<{s}>", lang)
                assert "{" not in text and "}" not in text, (lang, text)
                who = end["manguno"] if end["kind"] in ("MANGUNO", "MATTIKKENG") else end["winner"]
                assert f"<{who}>" in text
                assert text.split(":")[0] in TERMS  # the term first, the plain words beside it
    assert kinds == {"CAPPU", "CEKI", "POLLO", "MANGUNO", "MATTIKKENG"}


def test_a_ceki_explained():
    end = {
        "type": "end",
        "kind": "CEKI",
        "winner": 2,
        "first_cappu": 2,
        "cucuq": 1,
        "manguno": None,
        "mattikkeng": [],
        "pip_sums": [1, 2, 0, 3, 4],
        "award": 3,
    }
    (line,) = explained([end], lambda s: ["", "seat 1 (Bo)", "seat 2 (Ana)"][s])
    assert line.startswith("CEKI: seat 2 (Ana) played out with a non-double")
    assert "seat 1 (Bo), the seat before (CUCUQ), receives up to 3 stones (D8, D10)" in line


def test_the_glossary_in_every_language_and_as_the_terminal_shows_it():
    for lang in LANGS:
        es = entries(lang)
        assert [e["term"] for e in es] == list(TERMS)
        assert all(e["gloss"] and e["text"] and e["card"] for e in es)
    assert entries("ru")[TERMS.index("FIRST CAPPU")]["card"] == "ПЕРВЫЙ КАППУ"
    sv = {e["term"]: e["gloss"] for e in entries("sv")}
    assert sv["CEKI"] == "när en spelare blir FIRST CAPPU genom att MAPPAKULING med en icke LEMPA"
    text = glossary_text(60)
    assert all(term in text for term in TERMS)
    assert "(D8, D10)" in text and max(map(len, text.splitlines())) <= 60


def test_the_log_items_write_the_same_english_text():
    for evs in ROUNDS[:20]:
        lines = [fmt(it, lambda s: f"seat {s}") for it in render_items(evs)]
        assert "\n".join(lines) == render_events(evs)
        for lang in LANGS:  # and every language has every line's words
            for it in render_items(evs):
                assert "{" not in fmt(it, lambda s: f"seat {s}", lang)
