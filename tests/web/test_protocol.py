"""The browser table's protocol and its security (issue 14, D17), through
Starlette's test client: whole games with five people at five sockets and a
spectator, every message checked against every other seat's hidden tiles."""

from __future__ import annotations

import contextlib
import json
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient

from domeng.web.server import MAX_MESSAGE, create_app
from domeng.web.table import Table, TableSpec, WebError
from web._util import check_d17, first_legal

JSON = {"Content-Type": "application/json"}


def _token(link: str) -> str:
    return link.split("#t=", 1)[1]


def _create(client, **body):
    body.setdefault("seats", ["human"] * 5)
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def test_whole_games_every_message_is_each_seats_own_view():
    """Five people and a spectator play whole games (D16: 2 rounds); at every
    step every socket gets one state, and no message names a tile hidden
    from its seat (D17), another seat's token, or the seed before the end."""
    app = create_app(delay=0)
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        links = _create(client, seed=11, rounds=2)
        hub = app.state.hub
        table = hub.tables[links["table"]]
        tokens = [_token(links["seats"][str(s)]) for s in range(5)]
        seats = list(range(5)) + [None]
        toks = tokens + [_token(links["spectator"])]
        socks = []
        for tok in toks:
            ws = stack.enter_context(client.websocket_connect("/ws"))
            ws.send_text(json.dumps({"type": "hello", "token": tok}))
            socks.append(ws)
        last = {}

        def drain(i, n):
            for _ in range(n):
                m = socks[i].receive_json()
                assert m["type"] == "state"
                others = [t for j, t in enumerate(toks) if j != i]
                check_d17(m, table, seats[i], others)
                last[i] = m

        for i in range(6):  # each connection broadcasts to those already there
            drain(i, 6 - i)
        steps = 0
        while not table.game_over:
            if table.game.round_over:
                movers = [s for s in range(5)]
            else:
                movers = [table.game.seat]
            for s in movers:
                state = last[s]
                assert state["version"] == table.version
                if not table.game.round_over:
                    assert state["turn"] == s and state["legal"]
                    for o in range(6):
                        if seats[o] != s:
                            assert last[o]["legal"] == []
                socks[s].send_text(json.dumps(first_legal(state)))
                for i in range(6):
                    drain(i, 1)
                steps += 1
                if table.game_over:
                    break
        assert steps > 20 and table.game.rounds_played == 2
        for i in range(6):  # the export: each seat's own view of every round, seed now shown
            socks[i].send_text(json.dumps({"type": "export"}))
            m = socks[i].receive_json()
            assert m["type"] == "export" and len(m["game"]["rounds"]) == 2
            check_d17(m, table, seats[i], [t for j, t in enumerate(toks) if j != i])
        for i in range(6):
            assert last[i]["game_over"] and last[i]["seed"] == 11
            assert last[i]["result"]["kind"] in ("CAPPU", "CEKI", "POLLO", "MANGUNO", "MATTIKKENG")


def test_refusals_leave_the_table_unharmed():
    """Malformed, oversized, binary, out-of-turn, replayed and spectator
    messages get an error and change nothing."""
    app = create_app(delay=0)
    with TestClient(app) as client:
        links = _create(client, seed=3)
        table = app.state.hub.tables[links["table"]]
        tok = [_token(links["seats"][str(s)]) for s in range(5)]
        mover = table.game.seat
        other = (mover + 1) % 5
        with (
            client.websocket_connect("/ws") as a,
            client.websocket_connect("/ws") as b,
            client.websocket_connect("/ws") as sp,
        ):
            a.send_text(json.dumps({"type": "hello", "token": tok[mover]}))
            first = a.receive_json()
            b.send_text(json.dumps({"type": "hello", "token": tok[other]}))
            a.receive_json()
            b.receive_json()
            sp.send_text(json.dumps({"type": "hello", "token": _token(links["spectator"])}))
            for ws in (a, b, sp):
                ws.receive_json()
            before = {s: table.view(s) for s in (0, 1, 2, 3, 4, None)}
            good = first_legal(first)
            bad = [
                "not json",
                "[1, 2]",
                "null",
                "1e999",
                '"play"',
                "{" * 5000,
                json.dumps({"type": "play"}),
                json.dumps({"type": "hello", "token": tok[other]}),
                json.dumps({**good, "version": good["version"] + 1}),
                json.dumps({**good, "version": -1}),
                json.dumps({**good, "version": True}),
                json.dumps({**good, "extra": 1}),
                json.dumps({"type": "play", "tile": 99, "end": "left", "version": 0}),
                json.dumps({"type": "play", "tile": 5, "end": "middle", "version": 0}),
                json.dumps({"type": "next_round", "version": 0}),
                "x" * (MAX_MESSAGE + 1),
            ]
            illegal = next(a for a in range(56) if a not in table.game.legal_actions())
            bad.append(
                json.dumps(
                    {
                        "type": "play",
                        "tile": illegal >> 1,
                        "end": ["left", "right"][illegal & 1],
                        "version": 0,
                    }
                )
            )
            if not first["must_pass"]:
                bad.append(json.dumps({"type": "pass", "version": 0}))
            for text in bad:
                a.send_text(text)
                m = a.receive_json()
                assert m["type"] == "error" and m["message"], text[:40]
            a.send_bytes(b"\x00\x01")
            assert a.receive_json()["type"] == "error"
            b.send_text(json.dumps(good))  # out of turn
            assert "not your turn" in b.receive_json()["message"]
            sp.send_text(json.dumps(good))
            assert "spectator" in sp.receive_json()["message"]
            assert {s: table.view(s) for s in (0, 1, 2, 3, 4, None)} == before
            a.send_text(json.dumps(good))  # the real move goes through ...
            for ws in (a, b, sp):
                assert ws.receive_json()["version"] == good["version"] + 1
            a.send_text(json.dumps(good))  # ... and its replay is refused
            assert "out of date" in a.receive_json()["message"]
            assert table.version == good["version"] + 1


def test_hello_is_required_and_unknown_tokens_are_refused():
    app = create_app(delay=0)
    with TestClient(app) as client:
        for hello in (
            {"type": "hello", "token": "x" * 32},
            {"type": "hello"},
            {"type": "play", "token": "abc"},
            {"type": "hello", "token": 5},
        ):
            with client.websocket_connect("/ws") as ws:
                ws.send_text(json.dumps(hello))
                m = ws.receive_json()
                assert m["type"] == "error" and m["fatal"]
                assert "token" not in m["message"] or "hello" in m["message"]


def test_reconnecting_restores_the_seat_and_computers_play():
    """A person with four computer players (pause 0): the computers move by
    themselves; leaving and coming back with the same link gives the same state."""
    app = create_app(delay=0)
    with TestClient(app) as client:
        links = _create(client, seats=["human", "hunter", "keeper", "search", "random"], seed=8)
        table = app.state.hub.tables[links["table"]]
        tok = _token(links["you"])
        with client.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": tok}))
            m = ws.receive_json()
            while not (m["turn"] == 0 or m["round_over"]):
                check_d17(m, table, 0)
                m = ws.receive_json()
            if not m["round_over"]:
                ws.send_text(json.dumps(first_legal(m)))
                m = ws.receive_json()
                while not (m["turn"] == 0 or m["round_over"]):
                    check_d17(m, table, 0)
                    m = ws.receive_json()
        assert table.seats[0].connections == 0
        with client.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": tok}))
            again = ws.receive_json()
        assert again == m
        assert len(table.game.events) > 2


def test_an_idle_table_is_closed_and_its_links_expire():
    app = create_app(delay=0, idle=60)
    with TestClient(app) as client:
        links = _create(client, seats=["human", "random", "random", "random", "random"])
        hub = app.state.hub
        assert hub.reap() == []
        assert hub.reap(now=time.monotonic() + 61) == [links["table"]]
        with client.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": _token(links["you"])}))
            m = ws.receive_json()
            assert m["fatal"] and "expired" in m["message"]


def test_creation_refuses_code_names_and_bad_values_and_sets_headers():
    app = create_app(delay=0, max_tables=1)
    with TestClient(app) as client:
        for body in (
            {"seats": ["human", "this:x", "random", "random", "random"]},
            {"seats": ["human"] * 4},
            {"seats": ["human"] * 5, "seed": -1},
            {"seats": ["human"] * 5, "rules": {"pollo": "lots"}},
            {"seats": ["human"] * 5, "rules": {"nope": 1}},
            {"seats": ["human"] * 5, "rounds": 10**9},
            [1, 2],
            {"other": 1},
        ):
            r = client.post("/api/tables", json=body)
            assert r.status_code == 400 and r.json()["error"]
        r = client.post("/api/tables", content=b"{" * 10000, headers=JSON)
        assert r.status_code == 413
        r = client.post("/api/tables", content=b"{nope", headers=JSON)
        assert r.status_code == 400
        _create(client)
        r = client.post("/api/tables", json={"seats": ["human"] * 5})
        assert r.status_code == 400 and "tables" in r.json()["error"]
        page = client.get("/")
        assert page.status_code == 200 and 'data-testid="new-table"' in page.text
        assert "default-src 'self'" in page.headers["content-security-policy"]
        js = client.get("/static/app.js")
        assert js.status_code == 200 and js.headers["x-content-type-options"] == "nosniff"
        shipped = (page.text + js.text).replace("http://www.w3.org/2000/svg", "")
        assert "http://" not in shipped and "https://" not in shipped  # nothing from outside


def test_tokens_are_unguessable_and_kept_hashed():
    t = Table(TableSpec.parse({"seats": ["human", "human", "random", "random", "random"]}))
    toks = [t.links["0"], t.links["1"], t.links["spectator"]]
    assert len(set(toks)) == 3 and all(len(x) >= 32 for x in toks)
    assert not any(tok in t.tokens for tok in toks)  # only hashes are kept
    assert t.seat_of(toks[1]) == (True, 1) and t.seat_of(toks[2]) == (True, None)
    assert t.seat_of("x" * 32) == (False, None)
    with pytest.raises(WebError):
        t.act(None, {"type": "pass", "version": 0})


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_views_at_mixed_tables_hide_every_hidden_tile_at_every_step(seed):
    """People and computer players, three rounds: at every step, every seat's
    and the spectator's view (and the export) names no tile hidden from it;
    the text the server sends (``view_text``) is that view."""
    t = Table(
        TableSpec.parse(
            {"seats": ["human", "hunter", "human", "keeper", "random"], "seed": seed, "rounds": 3}
        )
    )
    steps = 0
    while not t.game_over:
        for s in (0, 1, 2, 3, 4, None):
            check_d17(t.view(s), t, s)
            assert json.loads(t.view_text(s)) == json.loads(json.dumps(t.view(s)))  # as sent
        if t.game.round_over:
            t.act(0, {"type": "next_round", "version": t.version})
        elif t.computer_to_move:
            t.computer_step()
        else:
            t.act(t.game.seat, first_legal(t.view(t.game.seat)))
        steps += 1
    for s in (0, 1, 2, 3, 4, None):
        view = t.view(s)
        check_d17(view, t, s)
        check_d17({"type": "export", "game": t.export(s)}, t, s)
        assert view["seed"] == seed and view["game_over"]
    assert t.game.rounds_played == 3 and steps > 30
