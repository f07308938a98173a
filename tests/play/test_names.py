"""Seat names: they live in the session (the terminal and the browser use
the same), at most 24 printable characters, trimmed, refused in one line
otherwise; markup is a name like any other, sent and shown as text."""

from __future__ import annotations

import json

import pytest

from domeng.core.errors import PlayerError, SaveFileError
from domeng.core.events import RoundEnd
from domeng.play.session import MAX_NAME, Session, check_name
from domeng.play.terminal import Terminal

SEATS = ["human", "hunter", "human", "keeper", "random"]


def test_a_name_is_trimmed_and_at_most_24_printable_characters():
    assert MAX_NAME == 24
    assert check_name("  Ana  ") == "Ana"
    assert check_name("x" * 24) == "x" * 24
    assert check_name("Анна Łukasz ß 李") == "Анна Łukasz ß 李"
    assert check_name("<b>Ana</b>") == "<b>Ana</b>"  # text, not markup
    for bad in (
        "",
        "   ",
        "x" * 25,
        "a\x00b",
        "a\nb",
        "a\tb",
        "a\x1b[31mb",
        "\u202eevil",
        "a\u200bb",
    ):
        with pytest.raises(PlayerError) as e:
            check_name(bad)
        assert "\n" not in str(e.value) and str(e.value)
    for bad in (None, 5, ["Ana"]):
        with pytest.raises(PlayerError):
            check_name(bad)


def test_the_session_names_its_seats_and_saves_the_names():
    s = Session(SEATS, seed=3, rounds=1)
    assert [s.name(i) for i in range(5)] == ["person", "hunter", "person", "keeper", "random"]
    assert s.set_name(2, "  <i>Bo</i> ") == "<i>Bo</i>"
    assert s.name(2) == "<i>Bo</i>" and s.names[0] is None
    with pytest.raises(PlayerError):
        s.set_name(0, "x" * 25)
    with pytest.raises(PlayerError):
        s.set_name(5, "Ana")
    assert s.names[0] is None  # a refusal changes nothing
    s.deal()
    data = json.loads(json.dumps(s.to_save()))
    assert data["names"] == [None, None, "<i>Bo</i>", None, None]
    back = Session.from_save(data)
    assert back.names == s.names
    old = {k: v for k, v in data.items() if k != "names"}  # a save from before names
    assert Session.from_save(old).names == [None] * 5
    for bad in ([None] * 4, "Bo", [None, None, "x" * 30, None, None], [1, None, None, None, None]):
        with pytest.raises(SaveFileError):
            Session.from_save({**data, "names": bad})


def test_the_terminal_labels_seats_with_the_sessions_names_and_names_a_person():
    s = Session(SEATS, seed=3, rounds=1)
    t = Terminal(s, delay=0, read=lambda _: "", sleep=lambda _: None)
    assert t.label(0) == "seat 0 (person)" and t.label(1) == "seat 1 (hunter)"
    s.set_name(0, "Ana")
    assert t.label(0) == "seat 0 (Ana)"
    s.deal()
    while not s.human_to_move():
        s.auto_step()
    seat = s.to_move
    assert t._command("name   Bo Ek ")
    assert s.name(seat) == "Bo Ek" and t.label(seat) == f"seat {seat} (Bo Ek)"
    assert t._command("name " + "x" * 30)
    assert t.message.startswith("Refused: a name is 1 to 24") and s.name(seat) == "Bo Ek"


def test_the_terminal_shows_the_one_glossary_and_explains_a_round_end():
    import io

    from rich.console import Console

    from domeng.core.glossary import TERMS
    from domeng.play import screen

    out = io.StringIO()
    con = Console(file=out, width=80, height=40, force_terminal=False)
    s = Session(SEATS, seed=3, rounds=1)
    t = Terminal(s, delay=0, console=con, read=lambda _: "", sleep=lambda _: None)
    assert t._command("glossary")
    text = out.getvalue()
    assert all(term in text for term in TERMS) and "(D8, D10)" in text
    s.deal()
    while not s.round_over:
        s.play(s.moves()[0].action) if s.human_to_move() else s.auto_step()
    _, summary = screen.round_summary(s.finished[-1], t.label, 80)
    end = next(ev for ev in s.finished[-1] if isinstance(ev, RoundEnd))
    term = "FIRST CAPPU" if end.kind == "CAPPU" else end.kind
    assert any(line.plain.strip().startswith(f"{term}: ") for line in summary)
