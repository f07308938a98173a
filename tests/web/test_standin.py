"""Absent friends (issue 22 item 2): when a person who is away (no page
open) has had the turn for ``--turn-timeout`` seconds, the stand-in plays
for them, marked in the log and on their seat; they take the seat back the
moment a page opens their link; the stand-in's steps are stored like any
action and replayed (each checked to be the stand-in's own move).  The
timeout is checked with the hub's clock given (``stand_ins(now=)``): no
test waits on time."""

from __future__ import annotations

import contextlib
import json

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient

from domeng.core.errors import PlayerError, SaveFileError
from domeng.play.session import Session
from domeng.web.server import create_app
from domeng.web.store import TableStore
from domeng.web.table import Table
from web._util import check_d17

SEATS = ["human", "human", "random", "keeper", "hunter"]
TIMEOUT = 60.0


def _tok(link: str) -> str:
    return link.split("#t=", 1)[1]


def _hello(client, stack, tok: str):
    ws = stack.enter_context(client.websocket_connect("/ws"))
    ws.send_text(json.dumps({"type": "hello", "token": tok}))
    return ws


def _state(ws, want, limit: int = 500) -> dict:
    for _ in range(limit):
        m = ws.receive_json()
        assert m["type"] == "state", m
        if want(m):
            return m
    raise AssertionError("no such state")


def _until_turn_of(ws, seat: int, m: dict | None = None) -> dict:
    """Seat 0 (at ``ws``) plays its first legal move whenever it is to move,
    and starts the next round, until ``seat`` (a person away) is to move."""
    m = m or _state(ws, lambda m: True)
    for _ in range(400):
        if m["turn"] == seat and not m["round_over"]:
            return m
        if m["round_over"] or m["turn"] == 0:
            if m["round_over"]:
                msg = {"type": "next_round", "version": m["version"]}
            elif m["legal"][0].get("pass"):
                msg = {"type": "pass", "version": m["version"]}
            else:
                first = m["legal"][0]
                msg = {"type": "play", "tile": first["tile"], "end": first["end"]}
                msg["version"] = m["version"]
            ws.send_text(json.dumps(msg))
        m = _state(ws, lambda x, v=m["version"]: x["version"] > v)
    raise AssertionError(f"seat {seat} never came to move")


def _copy(rows) -> list[list]:
    return [list(r) for r in rows]


def _stood(m: dict) -> list[dict]:
    return [it for it in m["log_items"] if it["k"] == "log.stand_in"]


def test_the_stand_in_plays_an_away_seats_turn_and_the_seat_is_taken_back(tmp_path):
    """Seat 1's person never opens the link: at their turn nothing happens
    before the timeout; after it the stand-in plays (in the log, on the
    seat), every turn of theirs until they open their link, and then the
    seat is theirs at once.  The table then leaves memory and comes back
    from the store: the stand-in's steps replay as its own moves."""
    store = TableStore(tmp_path)
    app = create_app(delay=0, idle=600, store=store, turn_timeout=TIMEOUT)
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        hub = app.state.hub
        r = client.post("/api/tables", json={"seats": SEATS, "seed": 12, "rounds": 3})
        links = r.json()
        tid = links["table"]
        a = _hello(client, stack, _tok(links["seats"]["0"]))
        m = _until_turn_of(a, 1)
        assert m["seats"][1]["away"] and not m["seats"][1]["standin"]
        table = hub.tables[tid]
        assert hub.stand_ins(now=table.turn_since + TIMEOUT - 1) == []  # not yet
        assert table.session.to_move == 1 and table.version == m["version"]
        assert hub.stand_ins(now=table.turn_since + TIMEOUT) == [(tid, 1)]
        on = _state(a, lambda x: x["seats"][1]["standin"])
        assert on["seats"][1]["away"]
        played = _state(a, lambda x: _stood(x) != [])
        line = _stood(played)[0]
        assert line["a"]["line"]["a"]["who"] == {"seat": 1}
        assert any(ev.get("stand_in") and ev["seat"] == 1 for ev in played["events"])
        assert table.session.stood_in[-1] != []
        check_d17(played, table, 0, [_tok(links["seats"]["1"])])
        # the stand-in keeps the seat: seat 1's next turn is played without a new wait
        m = _until_turn_of(a, 1, played) if not played["round_over"] else played
        if not m["round_over"]:  # counted in the messages: the table may be ahead of them
            _state(a, lambda x: len(_stood(x)) > len(_stood(m)))
        # the person opens their link: the seat is theirs again at once
        b = _hello(client, stack, _tok(links["seats"]["1"]))
        # the state once the table waits for a person (seats 0 and 1) again:
        # the computers may still be playing when seat 1's link opens
        back = _state(b, lambda x: x["round_over"] or x["turn"] in (0, 1))
        assert back["seats"][1]["standin"] is False and back["seats"][1]["away"] is False
        assert not table.seats[1].standin
        before = {k: back[k] for k in ("events", "hand", "stones", "round")}
        stood = [list(r) for r in table.session.stood_in]
        b.close()
        a.close()
    # the table left memory with the server: the store replays it, the
    # stand-in's steps checked to be its own moves, the marks still there
    app = create_app(delay=0, idle=600, store=store, turn_timeout=TIMEOUT)
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        b = _hello(client, stack, _tok(links["seats"]["1"]))
        again = _state(b, lambda x: True)
        assert {k: again[k] for k in before} == before
        assert app.state.hub.tables[tid].session.stood_in == stood
    store.close()


def test_a_stand_in_step_that_is_not_the_stand_ins_move_is_refused():
    """A save whose stand-in step is another legal move does not replay
    (one line): the record is checked, never trusted."""
    s = Session(SEATS, seed=12, rounds=1, stand_in="expert")
    s.deal()
    while s.to_move != 1:
        s.play(s.moves()[0].action) if s.human_to_move() else s.auto_step()
    legal = s.game.legal_actions()
    s.stand_in_step()
    data = s.to_save()
    other = [a for a in legal if a != data["actions"][0][-1]]
    if other:
        data["actions"][0][-1] = other[0]
        with pytest.raises(SaveFileError, match="the stand-in does not play that"):
            Session.from_save(data)
    assert Session.from_save(s.to_save()).stood_in == s.stood_in
    with pytest.raises(PlayerError, match="computer player"):
        Session(SEATS, stand_in="human")


def test_no_stand_in_with_a_timeout_of_0():
    app = create_app(delay=0, turn_timeout=0)
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        hub = app.state.hub
        links = client.post("/api/tables", json={"seats": SEATS, "seed": 12}).json()
        a = _hello(client, stack, _tok(links["seats"]["0"]))
        _until_turn_of(a, 1)
        assert hub.stand_ins(now=hub.clock() + 10**6) == []
        assert not hub.tables[links["table"]].seats[1].standin


def test_a_kill_in_the_middle_of_a_stand_ins_move_brings_the_table_back_consistently(
    tmp_path, monkeypatch
):
    """The server dies (``kill -9``) while the stand-in decides for the
    person away: what is on disk at that moment (the database and its WAL,
    copied while the decision is held) serves again as a restarted server's
    ``--data``.  The table comes back at the last stored step with the
    stand-in still playing for the seat: the stand-in then plays that very
    turn (nothing was lost or played twice), the person takes the seat back
    on their return, and the record replays."""
    import shutil
    import threading

    held, release = threading.Event(), threading.Event()
    decide = Session.decide_stand_in

    def slow(self):  # the stand-in's decision, held until the copy is made
        held.set()
        assert release.wait(60), "never released"
        return decide(self)

    monkeypatch.setattr(Session, "decide_stand_in", slow)
    live, disk = tmp_path / "live", tmp_path / "disk"
    store = TableStore(live)
    app = create_app(delay=0, idle=600, store=store, turn_timeout=TIMEOUT)
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        hub = app.state.hub
        links = client.post("/api/tables", json={"seats": SEATS, "seed": 12, "rounds": 3}).json()
        a = _hello(client, stack, _tok(links["seats"]["0"]))
        before = _until_turn_of(a, 1)
        table = hub.tables[links["table"]]
        assert hub.stand_ins(now=table.turn_since + TIMEOUT) == [(table.id, 1)]
        assert held.wait(60), "the stand-in never started deciding"
        assert table.session.to_move == 1 and table.seats[1].standin
        shutil.copytree(live, disk)  # the disk as a kill -9 leaves it, mid-decision
        release.set()
        _state(a, lambda x: _stood(x) != [])  # this server went on (its state is not kept)
        a.close()
    store.close()
    store = TableStore(disk)
    app = create_app(delay=0, idle=600, store=store, turn_timeout=TIMEOUT)
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        a = _hello(client, stack, _tok(links["seats"]["0"]))
        first = _state(a, lambda x: True)
        same = ("hand", "chain", "stones", "tiles_left", "round")
        assert first["seats"][1]["standin"] is True and first["seats"][1]["away"] is True
        if first["turn"] == 1:  # the stand-in had not played: it plays that turn now
            assert {k: first[k] for k in same} == {k: before[k] for k in same}
        played = _state(a, lambda x: _stood(x) != [])
        # the game as it stood, then seat 1's turn, played once, by the stand-in
        assert played["events"][: len(before["events"])] == before["events"]
        turn = played["events"][len(before["events"])]
        assert turn["seat"] == 1 and turn.get("stand_in") is True, turn
        table = app.state.hub.tables[links["table"]]
        assert sum(map(len, table.session.stood_in)) >= 1
        b = _hello(client, stack, _tok(links["seats"]["1"]))  # back: the seat is theirs
        assert _state(b, lambda x: True)["seats"][1]["standin"] is False
        check_d17(played, table, 0, [_tok(links["seats"]["1"])])

        # read on the server's loop, where a computer's step and its storing
        # happen together: the computers may still be playing meanwhile
        def snapshot():
            live = table.session
            return store.load(table.id), _copy(live.actions), _copy(live.stood_in)

        saved, actions, stood_in = app.state.hub.on_loop(snapshot)
        assert saved is not None
        back = Table.restore(saved.game, table.id, saved.tokens, saved.version)
        assert back.session.actions == actions
        assert back.session.stood_in == stood_in
    store.close()
