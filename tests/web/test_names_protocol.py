"""Names through the browser table's protocol: a person names their own seat
(the session's name, one line refused otherwise, the table unchanged); every
other page gets it as JSON text, markup and all; /api/words serves each
language; "(MAPPAKULING)" is flagged only where it changes the outcome."""

from __future__ import annotations

import contextlib
import json

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient

from domeng.core.words import LANGS, catalogue
from domeng.play.session import Session
from domeng.web.server import create_app, parse
from domeng.web.table import Table, TableSpec, WebError
from web._util import hello, next_message

NAME = "<b>Ana</b><img src=x>"


def _named(m: dict) -> bool:
    return m["type"] == "state" and m["seats"][0]["given"] is not None


def _error(m: dict) -> bool:
    return m["type"] == "error"


def test_a_person_names_their_seat_and_every_page_gets_it_as_text():
    app = create_app(delay=0)
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        r = client.post(
            # seed 4: seat 0, a person, leads, so no computer moves while the test reads
            "/api/tables",
            json={"seats": ["human", "human", "hunter", "keeper", "random"], "seed": 4},
        )
        links = r.json()
        a = hello(client, stack, links["seats"]["0"])
        b = hello(client, stack, links["seats"]["1"])
        spect = hello(client, stack, links["spectator"])
        first = next_message(a, lambda m: m["type"] == "state")
        assert first["seats"][0]["given"] is None
        table = app.state.hub.tables[links["table"]]
        a.send_text(json.dumps({"type": "name", "name": "  " + NAME + "  "}))
        for ws in (a, b, spect):
            m = next_message(ws, _named)
            assert m["seats"][0]["given"] == NAME, m
            assert m["seats"][0]["player"] == NAME and m["seats"][1]["given"] is None
        assert table.session.names[0] == NAME
        # the raw JSON carries the name as a JSON string, never anything else
        assert json.dumps(NAME) in table.view_text(1)
        before = table.version
        for bad, why in (
            ("x" * 25, "1 to 24"),
            ("a\u0007b", "printable"),
            ("", "1 to 24"),
        ):
            b.send_text(json.dumps({"type": "name", "name": bad}))
            m = next_message(b, _error)
            assert why in m["message"], m
        spect.send_text(json.dumps({"type": "name", "name": "Eve"}))
        assert "spectator" in next_message(spect, _error)["message"]
        assert table.version == before and table.session.names[1] is None  # nothing changed


def test_the_name_message_has_one_shape():
    assert parse(json.dumps({"type": "name", "name": "Ana"})) == {"type": "name", "name": "Ana"}
    for bad in (
        {"type": "name"},
        {"type": "name", "name": 5},
        {"type": "name", "name": "Ana", "version": 1},
        {"type": "name", "name": "x" * 65},
    ):
        with pytest.raises(WebError):
            parse(json.dumps(bad))
    t = Table(TableSpec.parse({"seats": ["human", "hunter", "keeper", "heavy", "random"]}))
    with pytest.raises(WebError, match="person's seat"):
        t.act(1, {"type": "name", "name": "Bot"})
    with pytest.raises(WebError):
        t.act(0, {"type": "name", "name": ["Ana"]})
    t.act(0, {"type": "name", "name": "Ana"})
    assert t.name(0) == "seat 0 (Ana)" and t.view(None)["seats"][0]["name"] == "seat 0 (Ana)"


def test_api_words_serves_each_language_and_english_for_anything_else():
    app = create_app(delay=0)
    with TestClient(app) as client:
        for lang in LANGS:
            m = client.get(f"/api/words?lang={lang}").json()
            assert m["lang"] == lang and m["words"]["create.title"]
        assert (
            client.get("/api/words?lang=sv-SE").json()["words"]["create.title"]
            == catalogue("sv")["create.title"]
        )
        assert client.get("/api/words?lang=<script>").json()["lang"] == "en"
        assert client.get("/api/words").json()["lang"] == "en"


def test_mappakuling_is_flagged_only_where_it_changes_the_outcome():
    """D8: a MAPPAKULING matters only with a seat's last tile (CEKI or POLLO);
    the legal moves sent to the page say so, from the session's moves."""
    seen = {True: 0, False: 0}
    for seed in range(40):
        s = Session(["human"] * 5, seed=seed, rounds=1)
        s.deal()
        while not s.round_over:
            moves = s.moves()
            for m in moves:
                if m.preview.mappakuling:
                    last = s.game.hand_sizes[s.to_move] == 1
                    assert m.mappakuling_matters == last, (seed, m)
                    assert m.mappakuling_matters == (m.preview.kind in ("CEKI", "POLLO"))
                    seen[m.mappakuling_matters] += 1
                else:
                    assert not m.mappakuling_matters
            s.play(moves[0].action) if moves else s.auto_step()
    assert seen[True] and seen[False], seen
    t = Table(TableSpec.parse({"seats": ["human"] * 5, "seed": 1}))
    legal = t.view(t.session.to_move)["legal"]
    assert legal and all("mappakuling_matters" in x for x in legal if "tile" in x)
