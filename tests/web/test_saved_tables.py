"""Saved browser tables (issue 22 item 1): every table in SQLite under
``--data``, back after ``kill -9`` and a restart with the same links, back
after it left memory, deleted after ``--keep-days``, and a database that is
not one refused in one line.  Loopback only, ports chosen by the system,
every wait bounded by a count or a failure bound (never a timed assertion)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import stat
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx2")
websockets = pytest.importorskip("websockets.sync.client")

from starlette.testclient import TestClient  # noqa: E402

from domeng.cli.main import main  # noqa: E402
from domeng.core.errors import StoreError  # noqa: E402
from domeng.web.server import create_app  # noqa: E402
from domeng.web.store import FILE, TableStore  # noqa: E402
from domeng.web.table import Table  # noqa: E402
from web._util import BOUND, check_d17, first_legal, served  # noqa: E402

#: what must be the same after a restart (the game), whatever the version
SAME = ("hand", "chain", "stones", "table_stones", "tiles_left", "turn", "round", "events", "log")
PEOPLE = ["human", "human", "random", "keeper", "hunter"]


def _tok(link: str) -> str:
    return link.split("#t=", 1)[1]


# ---------------------------------------------------------------- a real server
def _post(port: int, body: dict) -> dict:
    r = httpx.post(f"http://127.0.0.1:{port}/api/tables", json=body, timeout=BOUND)
    assert r.status_code == 200, r.text
    return r.json()


def _recv(ws) -> dict:
    return json.loads(ws.recv(timeout=BOUND))


def _state(ws, want=lambda m: True) -> dict:
    """The next state message that satisfies ``want`` (errors fail)."""
    for _ in range(10000):
        m = _recv(ws)
        assert m["type"] == "state", m
        if want(m):
            return m
    raise AssertionError("no such state")


def _settled(m: dict) -> bool:
    """A person must act (the computers wait for them)."""
    return m["round_over"] or (m["turn"] is not None and m["seats"][m["turn"]]["human"])


def _play(socks: dict, n: int, last: dict | None = None) -> dict:
    """The people at ``socks`` (seat -> websocket) take ``n`` actions between
    them (a next round counts once), from their ``last`` states (default:
    the next settled one each reads); returns each seat's state after."""
    last = dict(last or {})
    for s, ws in socks.items():
        if s not in last:
            last[s] = _state(ws, _settled)
    for _ in range(n):
        top = max(m["version"] for m in last.values())
        for s, ws in socks.items():  # every page at the same (settled) version
            if last[s]["version"] < top or not _settled(last[s]):
                last[s] = _state(ws, lambda m, top=top: m["version"] >= top and _settled(m))
        st = next(iter(last.values()))
        movers = list(socks) if st["round_over"] else [st["turn"]]
        for s in movers:
            socks[s].send(json.dumps(first_legal(last[s])))
        for s, ws in socks.items():
            last[s] = _state(ws, lambda m, v=st["version"]: m["version"] > v and _settled(m))
    return last


def test_kill_9_and_restart_every_link_goes_on_with_the_same_game(tmp_path):
    """Two people and three computers play; the server is killed with
    SIGKILL mid-round and started again with the same ``--data``: each
    seat's link, and the spectators', shows the same hands, chain and
    stones (D17: each seat still sees only its own hand), a message from
    before the restart is refused as out of date, and the game goes on."""
    data = tmp_path / "tables"
    with served(data) as (proc, port):
        links = _post(port, {"seats": PEOPLE, "seed": 41, "rounds": 3})
        toks = {s: _tok(links["seats"][str(s)]) for s in (0, 1)}
        spect = _tok(links["spectator"])
        url = f"ws://127.0.0.1:{port}/ws"
        with contextlib.ExitStack() as stack:
            socks = {}
            for s, tok in toks.items():
                socks[s] = stack.enter_context(websockets.connect(url, open_timeout=BOUND))
                socks[s].send(json.dumps({"type": "hello", "token": tok}))
            before = _play(socks, 7)
            top = max(m["version"] for m in before.values())
            sp = stack.enter_context(websockets.connect(url, open_timeout=BOUND))
            sp.send(json.dumps({"type": "hello", "token": spect}))
            before[None] = _state(sp, lambda m: m["version"] >= top)
            assert len(before[0]["events"]) > 5 and not before[0]["round_over"]  # mid-round
            proc.kill()  # SIGKILL: no shutdown, no flush by the server
            proc.wait(BOUND)
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE((data / FILE).stat().st_mode) == 0o600
    side = list(data.glob(f"{FILE}-*"))  # the WAL a kill -9 leaves behind, and its index
    assert side and all(stat.S_IMODE(p.stat().st_mode) & 0o077 == 0 for p in side)
    with served(data) as (proc, port):
        url = f"ws://127.0.0.1:{port}/ws"
        after = {}
        with contextlib.ExitStack() as stack:
            socks = {}
            for s, tok in [*toks.items(), (None, spect)]:
                ws = stack.enter_context(websockets.connect(url, open_timeout=BOUND))
                ws.send(json.dumps({"type": "hello", "token": tok}))
                after[s] = _state(ws)
                if s is not None:
                    socks[s] = ws
            for s in (0, 1, None):
                assert {k: after[s][k] for k in SAME} == {k: before[s][k] for k in SAME}, s
                assert after[s]["version"] > before[s]["version"]
            assert after[None]["hand"] == [] and len(after[0]["hand"]) == before[0]["tiles_left"][0]
            mover = after[0]["turn"] if not after[0]["round_over"] else 0
            socks[mover].send(json.dumps(first_legal(before[mover])))  # the old version: refused
            m = _recv(socks[mover])
            for _ in range(10):  # the states the later connections caused come first
                if m["type"] == "error":
                    break
                assert m["version"] == after[None]["version"]  # nothing moved
                m = _recv(socks[mover])
            assert m["type"] == "error" and "out of date" in m["message"]
            later = _play(socks, 3, {0: after[0], 1: after[1]})  # and the game goes on
            assert later[0]["version"] > after[0]["version"]
            assert len(later[0]["events"]) != len(after[0]["events"]) or later[0]["round"] > 1
        proc.send_signal(signal.SIGTERM)
    # the same game, replayed in this process from the database: every message
    # the restarted server sent showed each seat only what it may see (D17)
    store = TableStore(data)
    try:
        saved = store.load(links["table"])
        assert saved is not None
        table = Table.restore(saved.game, saved.table_id, saved.tokens, saved.version)
    finally:
        store.close()
    for s in (0, 1):
        assert [h["id"] for h in later[s]["hand"]] == sorted(table.game.hand(s))
        check_d17(later[s], table, s, [toks[1 - s], spect])
    raw = (data / FILE).read_bytes() + b"".join(p.read_bytes() for p in data.glob(f"{FILE}-*"))
    for tok in [*toks.values(), spect]:  # links are secrets: only their hashes are kept
        assert tok.encode() not in raw


# ---------------------------------------------------------------- in process
def _create(client, seats=PEOPLE, **body) -> dict:
    r = client.post("/api/tables", json={"seats": seats, **body})
    assert r.status_code == 200, r.text
    return r.json()


def _hello(client_ws, token: str) -> dict:
    client_ws.send_text(json.dumps({"type": "hello", "token": token}))
    return client_ws.receive_json()


def test_an_idle_table_leaves_memory_and_comes_back_when_a_link_is_opened(tmp_path):
    """``--idle`` puts a table away (the page is told how to bring it back);
    its seat link brings it back from the store, the same game, that
    seat's own view only (D17); its computers go on."""
    store = TableStore(tmp_path)
    app = create_app(delay=0, idle=60, store=store)
    with TestClient(app) as client:
        hub = app.state.hub
        links = _create(client, seats=["human", "random", "keeper", "hunter", "heavy"], seed=9)
        tid, tok = links["table"], _tok(links["you"])
        with client.websocket_connect("/ws") as ws:
            m = _hello(ws, tok)
            for _ in range(3):  # three of seat 0's moves, the computers' in between
                while m["turn"] != 0 and not m["round_over"]:
                    m = ws.receive_json()
                if m["round_over"]:
                    break
                ws.send_text(json.dumps(first_legal(m)))
                m = ws.receive_json()
            while m["turn"] != 0 and not m["round_over"]:
                m = ws.receive_json()
        with client.websocket_connect("/ws") as sp:
            assert _hello(sp, _tok(links["spectator"]))["type"] == "state"
            assert hub.reap(now=time.monotonic() + 61) == [tid]
            gone = sp.receive_json()
            assert gone["fatal"] and "put away" in gone["message"]
        assert tid not in hub.tables and hub.index == {}
        with client.websocket_connect("/ws") as ws:
            back = _hello(ws, tok)
            assert back["type"] == "state", back
            assert {k: back[k] for k in SAME} == {k: m[k] for k in SAME}
            table = hub.tables[tid]
            check_d17(back, table, 0, [_tok(links["spectator"])])
            ws.send_text(json.dumps(first_legal(back)))  # and it goes on
            nxt = ws.receive_json()
            assert nxt["type"] == "state" and nxt["version"] > back["version"]
    store.close()


def test_a_change_that_cannot_be_stored_is_never_shown(tmp_path, monkeypatch):
    """The write fails (a full disk): the page is told the table could not
    be saved and is never shown the move; the link brings the table back at
    the last stored move."""
    store = TableStore(tmp_path)
    app = create_app(delay=0, idle=600, store=store)
    with TestClient(app) as client:
        links = _create(client, seats=["human"] * 5, seed=3)
        tok = _tok(links["seats"]["0"])
        tid = links["table"]
        hub = app.state.hub
        with client.websocket_connect("/ws") as ws:
            first = _hello(ws, tok)
            seat = first["turn"]
        tok = _tok(links["seats"][str(seat)])
        real = store.save

        def full(table):
            raise sqlite3.OperationalError("database or disk is full")

        monkeypatch.setattr(store, "save", full)
        with client.websocket_connect("/ws") as ws:
            m = _hello(ws, tok)
            ws.send_text(json.dumps(first_legal(m)))
            err = ws.receive_json()
            assert (
                err["type"] == "error" and err["fatal"] and "could not be saved" in err["message"]
            )
        assert tid not in hub.tables
        monkeypatch.setattr(store, "save", real)
        with client.websocket_connect("/ws") as ws:
            back = _hello(ws, tok)
            assert {k: back[k] for k in SAME} == {k: m[k] for k in SAME}
    store.close()


def test_keep_days_deletes_old_tables_with_an_injected_clock(tmp_path):
    """A table nobody played at or opened for ``keep_days`` is deleted
    (periodically and at the start); opening a link keeps it longer; its
    links then expire and no row of it is left."""
    now = [1_000_000.0]
    day = 86400.0
    store = TableStore(tmp_path, keep_days=7, clock=lambda: now[0])
    app = create_app(delay=0, store=store)
    with TestClient(app) as client:
        hub = app.state.hub
        old = _create(client, seats=["human"] * 5, seed=1)
        now[0] += 3 * day
        kept = _create(client, seats=["human"] * 5, seed=2)
        now[0] += 5 * day  # old: 8 days untouched; kept: 5
        with client.websocket_connect("/ws") as ws:
            assert _hello(ws, _tok(kept["spectator"]))["type"] == "state"  # touched now
        assert hub.purge() == [old["table"]]
        now[0] += 6 * day  # kept: 6 days since its link was opened
        assert hub.purge() == []
        with client.websocket_connect("/ws") as ws:
            m = _hello(ws, _tok(old["you"]))
            assert m["fatal"] and "expired" in m["message"]
        assert store.count() == 1
    now[0] += 8 * day
    app = create_app(delay=0, store=store)
    with TestClient(app):  # the start deletes what is past its days
        assert store.count() == 0
    rows = [store.db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("tokens", "log")]
    assert rows == [0, 0]
    store.close()


def test_a_damaged_table_is_refused_in_one_line_and_the_server_goes_on(tmp_path):
    """A table whose stored log does not replay (an edited row): its link
    gets one line; the other tables are served."""
    store = TableStore(tmp_path)
    app = create_app(delay=0, idle=60, store=store)
    with TestClient(app) as client:
        hub = app.state.hub
        bad = _create(client, seats=["human"] * 5, seed=4)
        gap = _create(client, seats=["human"] * 5, seed=6)
        good = _create(client, seats=["human"] * 5, seed=5)
        hub.reap(now=time.monotonic() + 61)
        assert hub.tables == {}
        # a move that is not legal appended to one table's log, a gap in another's
        store.db.execute("INSERT INTO log VALUES (?, 1, 999)", (bad["table"],))
        store.db.execute("INSERT INTO log VALUES (?, 5, 3)", (gap["table"],))
        for t, why in ((bad, "does not replay"), (gap, "damaged")):
            with client.websocket_connect("/ws") as ws:
                m = _hello(ws, _tok(t["you"]))
                assert m["fatal"] and "could not be brought back" in m["message"], m
                assert why in m["message"] and "\n" not in m["message"]
        with client.websocket_connect("/ws") as ws:
            assert _hello(ws, _tok(good["you"]))["type"] == "state"
    store.close()


def test_a_replay_that_breaks_is_one_line_and_the_next_link_tries_again(tmp_path, monkeypatch):
    """A bug while a table is brought back (not the link's fault): logged,
    one line to the page, and the next opening of a link replays it again."""
    store = TableStore(tmp_path)
    app = create_app(delay=0, idle=60, store=store)
    with TestClient(app) as client:
        hub = app.state.hub
        links = _create(client, seats=["human"] * 5, seed=8)
        hub.reap(now=time.monotonic() + 61)
        real = Table.restore

        def broken(*a, **k):
            raise RuntimeError("a bug")

        monkeypatch.setattr(Table, "restore", broken)
        with client.websocket_connect("/ws") as ws:
            m = _hello(ws, _tok(links["you"]))
            assert m["fatal"] and "internal error" in m["message"] and "a bug" not in m["message"]
        assert hub.loading == {} and hub.tables == {}
        monkeypatch.setattr(Table, "restore", real)
        with client.websocket_connect("/ws") as ws:
            assert _hello(ws, _tok(links["you"]))["type"] == "state"
    store.close()


# ---------------------------------------------------------------- refusals
def _sqlite_with(path: Path, *sql: str) -> None:
    db = sqlite3.connect(path)
    for s in sql:
        db.execute(s)
    db.commit()
    db.close()


def _store_file(folder: Path) -> None:
    TableStore(folder).close()


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda d: (d / FILE).write_bytes(b"not a database at all\n" * 50), "is not a domeng"),
        (lambda d: _sqlite_with(d / FILE, "CREATE TABLE notes (x TEXT)"), "something else"),
        (
            lambda d: (
                _store_file(d),
                _sqlite_with(d / FILE, "UPDATE meta SET value = '99' WHERE key = 'version'"),
            ),
            "format version 99",
        ),
        (
            lambda d: (
                _store_file(d),
                _sqlite_with(d / FILE, "UPDATE meta SET value = 'x' WHERE key = 'format'"),
            ),
            "is not a domeng",
        ),
        (
            lambda d: (
                _store_file(d),
                (d / FILE).write_bytes((d / FILE).read_bytes()[:100] + b"\0garbage" * 500),
            ),
            "damaged",
        ),
    ],
    ids=["not-sqlite", "foreign-sqlite", "newer-version", "other-format", "truncated"],
)
def test_a_corrupt_or_foreign_database_is_refused_in_one_line(
    tmp_path, make, words, monkeypatch, capsys
):
    import domeng.web.server as server

    data = tmp_path / "tables"
    data.mkdir()
    make(data)
    raw = (data / FILE).read_bytes()
    monkeypatch.setattr(server, "serve", lambda *a, **k: pytest.fail("must not start"))
    assert main(["serve", "--port", "0", "--data", str(data)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and words in err, err
    assert (data / FILE).read_bytes() == raw  # left as it was


def test_a_data_folder_that_is_a_file_or_in_use_is_refused_in_one_line(
    tmp_path, capsys, monkeypatch
):
    import domeng.web.server as server

    monkeypatch.setattr(server, "serve", lambda *a, **k: pytest.fail("must not start"))
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["serve", "--port", "0", "--data", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is not a folder" in err
    busy = TableStore(tmp_path / "busy")  # another server holds it
    try:
        with pytest.raises(StoreError, match="another domeng serve"):
            TableStore(tmp_path / "busy")
        assert main(["serve", "--port", "0", "--data", str(tmp_path / "busy")]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "another domeng serve" in err
    finally:
        busy.close()


def test_the_default_data_folder_is_the_users_data_home(tmp_path, monkeypatch):
    """``--data`` defaults to ``$XDG_DATA_HOME/domeng/tables``, created 0700;
    ``--keep-days`` to 7, and it refuses nonsense in one line."""
    import domeng.web.server as server

    got = {}
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(server, "serve", lambda *a, **k: got.update(k))
    assert main(["serve", "--port", "0"]) == 0
    folder = tmp_path / "xdg" / "domeng" / "tables"
    assert got["store"].folder == folder and got["store"].keep_days == 7
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / FILE).stat().st_mode) == 0o600
    assert main(["serve", "--port", "0", "--keep-days", "0.5"]) == 0
    assert got["store"].keep_days == 0.5
    for bad in ("0", "-1", "x", "nan"):
        assert main(["serve", "--keep-days", bad]) == 2
    assert os.environ["XDG_DATA_HOME"] == str(tmp_path / "xdg")


def test_a_seats_name_is_stored_and_comes_back_with_the_table(tmp_path):
    """A name given after the table was created (the ``name`` message) is
    written with the game, so the table brought back from the store shows it."""
    store = TableStore(tmp_path)
    app = create_app(delay=0, idle=60, store=store)
    with TestClient(app) as client:
        hub = app.state.hub
        links = _create(client, seats=["human", "random", "keeper", "hunter", "heavy"], seed=9)
        tid, tok = links["table"], _tok(links["you"])
        with client.websocket_connect("/ws") as ws:
            m = _hello(ws, tok)
            ws.send_text(json.dumps({"type": "name", "name": "Ana"}))
            while m["seats"][0]["given"] != "Ana":
                m = ws.receive_json()
        assert hub.reap(now=time.monotonic() + 61) == [tid]
        assert tid not in hub.tables
        with client.websocket_connect("/ws") as ws:
            back = _hello(ws, tok)
            assert back["type"] == "state", back
            assert back["seats"][0]["given"] == "Ana"
    store.close()
