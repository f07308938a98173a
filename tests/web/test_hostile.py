"""Hostile clients refused (issue 22 item 11, H1..H8): each attack found on
``5e0020c`` reproduced against the browser table's server and shown refused.

Loopback only, ports chosen by the system, every loop bounded by a count;
the few timeouts are failure bounds (a hung server fails the test instead
of hanging it), never what a test measures.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("starlette")

from domeng.core.events import BLOCKED_ENDS, for_seat
from domeng.web.table import Table, TableSpec
from web._util import check_pip_sums, end_events

SEATS = (0, 1, 2, 3, 4, None)


# ---------------------------------------------------------------- H2 (D17)
def test_h2_pip_sums_only_where_the_rules_compare_them():
    """Many seeded rounds of computer players: at every round end no seat's
    message (state, its text as sent, the replay of the last round, the
    export) shows another seat's pip sum unless the round was blocked
    (D11..D14); a blocked round shows them all, and each seat always sees
    its own."""
    kinds = {"plain": 0, "blocked": 0}
    for seed in range(6):
        t = Table(
            TableSpec.parse(
                {
                    "seats": ["hunter", "keeper", "heavy", "random", "hunter"],
                    "seed": seed,
                    "rounds": 40,
                    "camats": 0,
                }
            )
        )
        while not t.game_over:
            while not t.game.round_over:
                t.computer_step()
            end = t.game.result
            kinds["blocked" if end["kind"] in BLOCKED_ENDS else "plain"] += 1
            for s in SEATS:
                view = t.view(s)
                sent = json.loads(t.view_text(s))
                export = {"type": "export", "game": t.export(s)}
                for msg in (view, sent, export):
                    check_pip_sums(msg, s)
                mine = view["result"]["pip_sums"]
                if end["kind"] in BLOCKED_ENDS:
                    assert mine == end["pip_sums"]
                else:
                    assert mine == [v if i == s else None for i, v in enumerate(end["pip_sums"])]
                    assert "pip sum" not in " ".join(view["end_text"] + view["log"])
                assert len(end_events(export)) == t.game.rounds_played  # every round end
            if not t.game_over:
                t.start_round()
    assert kinds["plain"] > 100 and kinds["blocked"] > 3, kinds


def test_h2_for_seat_is_the_one_filter():
    """The engine's own event filter hides the sums (so the replay, the
    export, the terminal game and ``domeng trace --seat`` all agree)."""
    end = {
        "type": "end",
        "kind": "CEKI",
        "winner": 1,
        "first_cappu": 1,
        "cucuq": 0,
        "manguno": None,
        "mattikkeng": [],
        "pip_sums": [4, 0, 9, 12, 7],
        "award": 3,
    }
    assert for_seat(end, 2)["pip_sums"] == [None, None, 9, None, None]
    assert for_seat(end, None)["pip_sums"] == [None] * 5
    assert end["pip_sums"] == [4, 0, 9, 12, 7]  # the engine's own record unchanged
    blocked = {**end, "kind": "MATTIKKENG", "manguno": 3, "mattikkeng": [0]}
    assert for_seat(blocked, 2) == blocked


# ---------------------------------------------------------------- a real server
import contextlib  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import socket  # noqa: E402
import struct  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

pytest.importorskip("uvicorn")
websockets = pytest.importorskip("websockets.sync.client")
httpx = pytest.importorskip("httpx2")

#: a failure bound: a server that stopped answering fails the test after this
BOUND = 60.0


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record) -> None:
        self.records.append(record)


@contextlib.contextmanager
def serving(delay=0.0, idle=600.0, per_address=32, head_timeout=None):
    """``domeng serve``'s app and uvicorn configuration on 127.0.0.1, a port
    the system chose; yields (base url, port, hub); logs of warnings and
    errors in ``hub.log_records``."""
    import uvicorn

    from domeng.web.guard import Hosts
    from domeng.web.server import create_app, server_config

    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    app = create_app(delay=delay, idle=idle, hosts=Hosts.of("127.0.0.1", port))
    config = server_config(app, "127.0.0.1", port, per_address)
    hub = app.state.hub
    if head_timeout is not None:
        hub.guard.head_timeout = head_timeout
    srv = uvicorn.Server(config)
    errors = _Errors()
    th = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    th.start()
    deadline = time.monotonic() + BOUND
    while not srv.started:
        assert time.monotonic() < deadline and th.is_alive(), "the server did not start"
        time.sleep(0.02)
    loggers = [logging.getLogger(n) for n in ("uvicorn", "uvicorn.error", "domeng.web")]
    for lg in loggers:
        lg.addHandler(errors)
    hub.log_records = errors.records
    try:
        yield f"http://127.0.0.1:{port}", port, hub
    finally:
        for lg in loggers:
            lg.removeHandler(errors)
        srv.should_exit = True
        th.join(BOUND)
        sock.close()


def _create(base, **body):
    body.setdefault("seats", ["human"] * 5)
    # a table's first search seat compiles on a cold cache: minutes on a loaded machine
    r = httpx.post(f"{base}/api/tables", json=body, timeout=httpx.Timeout(BOUND, read=600.0))
    assert r.status_code == 200, r.text
    return r.json()


def _tok(link):
    return link.split("#t=", 1)[1]


@contextlib.contextmanager
def _ws(port, token, **kw):
    url = f"ws://127.0.0.1:{port}/ws"
    with websockets.connect(url, open_timeout=BOUND, max_size=2**24, **kw) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        yield ws


def _recv(ws):
    return json.loads(ws.recv(timeout=BOUND))


def _move(state):
    if state["round_over"]:
        if state["seats"][state["you"]]["ready"] or state["game_over"]:
            return None
        return {"type": "next_round", "version": state["version"]}
    if state["turn"] != state["you"] or not state["legal"]:
        return None
    first = state["legal"][0]
    if first.get("pass"):
        return {"type": "pass", "version": state["version"]}
    return {"type": "play", "tile": first["tile"], "end": first["end"], "version": state["version"]}


def _frame(text: str) -> bytes:
    """A client's masked websocket text frame."""
    data = text.encode()
    mask = os.urandom(4)
    n = len(data)
    head = bytes([0x81]) + (
        bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n)
    )
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def _raw_ws(port, token, rcvbuf=4096) -> socket.socket:
    """A websocket client that says hello and then never reads."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(BOUND)
    s.connect(("127.0.0.1", port))
    s.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head and len(head) < 4096:  # the handshake's answer first
        head += s.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    s.sendall(_frame(json.dumps({"type": "hello", "token": token})))
    return s


def _closed(s: socket.socket) -> bool:
    """Read until the server closes (True) or the bound passes (False)."""
    s.settimeout(BOUND)
    try:
        for _ in range(100000):
            if not s.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False
    return False


# ---------------------------------------------------------------- H1
def test_h1_a_client_that_stops_reading_is_cut_off_and_nobody_waits():
    """A spectator that says hello and never reads: the table goes on for
    its person (every move answered), the reader is cut off once it is
    SEND_QUEUE messages behind, and only it."""
    with serving() as (base, port, hub):
        links = _create(
            base,
            seats=["human", "random", "random", "random", "random"],
            seed=5,
            rounds=1000,
            camats=0,
        )
        tid = links["table"]
        slow = _raw_ws(port, _tok(links["spectator"]))
        with _ws(port, _tok(links["you"])) as me:
            states = after = 0
            acted = -1
            for _ in range(20000):  # bounded: the reader is cut off after about 250
                m = _recv(me)
                assert m["type"] == "state", m
                states += 1
                if hub.dropped:
                    after += 1
                    if after > 200:
                        break
                msg = _move(m)
                if msg and m["version"] > acted:  # a state may come twice (a page left)
                    acted = m["version"]
                    me.send(json.dumps(msg))
            assert hub.dropped == 1 and after > 200, (states, hub.dropped)
            assert len(hub.sockets[tid]) == 1  # the person's page only
        assert _closed(slow)  # cut off: its connection is gone
        slow.close()
        assert not [r for r in hub.log_records if r.levelno >= logging.ERROR]


# ---------------------------------------------------------------- H3
def _connect(port) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=BOUND)
    return s


def test_h3_silent_and_slow_header_connections_are_cut_off():
    """A connection that says nothing, and one that sends its request's head
    a byte at a time, are closed once the head's time is over; a normal
    request still works."""
    with serving(head_timeout=0.5) as (base, port, hub):
        silent = _connect(port)
        slow = _connect(port)
        head = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: {'a' * 400}".encode()
        cut = False
        for i in range(len(head)):  # 400 bytes at 0.05 s: 20 s, 40 times the head's time
            try:
                slow.sendall(head[i : i + 1])
            except (BrokenPipeError, ConnectionResetError):
                cut = True
                break
            time.sleep(0.05)
        assert cut or _closed(slow)
        assert _closed(silent)
        assert hub.guard.timed_out >= 2
        assert httpx.get(f"{base}/", timeout=BOUND).status_code == 200
        for s in (silent, slow):
            s.close()


def test_h3_connections_per_address_are_capped():
    """Beyond ``per_address`` open connections from one address the next is
    answered 503 and closed; once some close, new ones are served."""
    with serving(per_address=6, head_timeout=BOUND) as (base, port, hub):
        idle = [_connect(port) for _ in range(6)]
        for _ in range(int(BOUND / 0.02)):  # the server has seen all six
            if hub.guard.count("127.0.0.1") == 6:
                break
            time.sleep(0.02)
        assert hub.guard.count("127.0.0.1") == 6
        extra = _connect(port)
        extra.settimeout(BOUND)
        answer = extra.recv(4096)
        assert answer.startswith(b"HTTP/1.1 503") and _closed(extra)
        assert hub.guard.refused == 1
        for s in idle + [extra]:
            s.close()
        for _ in range(int(BOUND / 0.02)):
            if hub.guard.count("127.0.0.1") == 0:
                break
            time.sleep(0.02)
        assert httpx.get(f"{base}/", timeout=BOUND).status_code == 200


# ---------------------------------------------------------------- H4
def test_h4_tables_only_from_this_servers_own_page():
    """A text/plain POST (what a page elsewhere can send without asking), a
    POST with another site's Origin, and a DNS-rebinding Host are refused,
    and no table is made; the page's own request works; a websocket from
    another site is refused at the handshake."""
    with serving() as (base, port, hub):
        body = json.dumps({"seats": ["random"] * 5})
        url = f"{base}/api/tables"
        for headers, code in (
            ({"Content-Type": "text/plain"}, 415),
            ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
            ({"Content-Type": "application/json", "Origin": "http://evil.example"}, 403),
            ({"Content-Type": "application/json", "Origin": "null"}, 403),
            ({"Content-Type": "application/json", "Host": f"evil.example:{port}"}, 403),
            ({"Content-Type": "application/json", "Host": "127.0.0.1:1"}, 403),
        ):
            r = httpx.post(url, content=body, headers=headers, timeout=BOUND)
            assert r.status_code == code and r.json()["error"], (headers, r.text)
        assert hub.tables == {}
        own = {"Content-Type": "application/json", "Origin": base}
        r = httpx.post(url, content=body, headers=own, timeout=BOUND)
        assert r.status_code == 200 and len(hub.tables) == 1
        r = httpx.post(
            url,
            content=body,
            headers={**own, "Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"},
        )
        assert r.status_code == 200
        from websockets.exceptions import InvalidStatus

        with pytest.raises(InvalidStatus):
            with websockets.connect(
                f"ws://127.0.0.1:{port}/ws", origin="http://evil.example", open_timeout=BOUND
            ):
                pass


def test_h4_the_host_names_of_a_bound_address():
    from domeng.web.guard import Hosts

    lo = Hosts.of("127.0.0.1", 8000)
    assert lo.host_ok("127.0.0.1:8000") and lo.host_ok("localhost:8000")
    assert not lo.host_ok("evil.example:8000") and not lo.host_ok("127.0.0.1:8001")
    assert not lo.host_ok("192.168.1.5:8000") and not lo.host_ok(None) and not lo.host_ok("")
    lan = Hosts.of("0.0.0.0", 8000)
    assert lan.host_ok("192.168.1.5:8000") and lan.host_ok("[fe80::1]:8000")
    assert not lan.host_ok("rebind.evil.example:8000")
    proxied = Hosts.of("127.0.0.1", 8000, ["domeng.example.org"])
    assert proxied.host_ok("domeng.example.org") and proxied.host_ok("DOMENG.example.org:443")


# ---------------------------------------------------------------- H5
def test_h5_malformed_messages_are_refused_without_a_traceback():
    """``{"type": []}`` and other malformed messages each get one error line;
    the connection stays open (a legal move afterwards is played); an
    oversized frame is answered by a close frame (1009); nothing is logged
    as an error."""
    from websockets.exceptions import ConnectionClosed

    with serving() as (base, port, hub):
        links = _create(base, seed=3)
        table = hub.tables[links["table"]]
        mover = table.game.seat
        with _ws(port, _tok(links["seats"][str(mover)])) as ws:
            state = _recv(ws)
            v = state["version"]
            bad = [
                {"type": []},
                {"type": {}},
                {"type": None},
                {"type": "play", "tile": [], "end": "left", "version": v},
                {"type": "play", "tile": 1, "end": ["left"], "version": v},
                {"type": "play", "tile": 1, "end": "left", "version": "0"},
                {"type": "play", "tile": 1.5, "end": "left", "version": v},
                {"type": "play", "tile": 2**80, "end": "left", "version": v},
                {"type": "play", "tile": 1, "end": "x" * 1000, "version": v},
                {"type": "pass"},
                {"type": "next_round", "version": v, "more": 1},
                {"type": "export", "x": 1},
                {"type": "hello", "token": "x" * 40},
                {"type": "play" * 100},
                [
                    [
                        [
                            [
                                [
                                    [
                                        [
                                            [
                                                [
                                                    [
                                                        [
                                                            [
                                                                [
                                                                    [
                                                                        [
                                                                            [
                                                                                [
                                                                                    [
                                                                                        [
                                                                                            [
                                                                                                [
                                                                                                    [
                                                                                                        [
                                                                                                            [
                                                                                                                [
                                                                                                                    [
                                                                                                                        [
                                                                                                                            [
                                                                                                                                [
                                                                                                                                    [
                                                                                                                                        [
                                                                                                                                            [
                                                                                                                                                [
                                                                                                                                                    [
                                                                                                                                                        [
                                                                                                                                                            [
                                                                                                                                                                [
                                                                                                                                                                    [
                                                                                                                                                                        [
                                                                                                                                                                            [
                                                                                                                                                                                [
                                                                                                                                                                                    []
                                                                                                                                                                                ]
                                                                                                                                                                            ]
                                                                                                                                                                        ]
                                                                                                                                                                    ]
                                                                                                                                                                ]
                                                                                                                                                            ]
                                                                                                                                                        ]
                                                                                                                                                    ]
                                                                                                                                                ]
                                                                                                                                            ]
                                                                                                                                        ]
                                                                                                                                    ]
                                                                                                                                ]
                                                                                                                            ]
                                                                                                                        ]
                                                                                                                    ]
                                                                                                                ]
                                                                                                            ]
                                                                                                        ]
                                                                                                    ]
                                                                                                ]
                                                                                            ]
                                                                                        ]
                                                                                    ]
                                                                                ]
                                                                            ]
                                                                        ]
                                                                    ]
                                                                ]
                                                            ]
                                                        ]
                                                    ]
                                                ]
                                            ]
                                        ]
                                    ]
                                ]
                            ]
                        ]
                    ]
                ],
            ]
            texts = [json.dumps(b) for b in bad] + ["[" * 1000 + "]" * 1000, "{nope", "", "\x00"]
            for text in texts:
                ws.send(text)
                m = _recv(ws)
                assert m["type"] == "error" and m["message"], text[:60]
                assert "\n" not in m["message"] and "Traceback" not in m["message"]
            ws.send(b"\x00\x01")
            assert _recv(ws)["type"] == "error"
            assert table.version == v
            ws.send(json.dumps(_move(state)))
            assert _recv(ws)["version"] == v + 1  # the connection was kept
            ws.send("x" * 10000)  # over the websocket layer's limit
            with pytest.raises(ConnectionClosed) as e:
                for _ in range(100):
                    _recv(ws)
            assert e.value.rcvd is not None and e.value.rcvd.code == 1009
        assert not [r for r in hub.log_records if r.levelno >= logging.ERROR]


# ---------------------------------------------------------------- H6
def test_h6_a_thinking_computer_never_holds_up_another_table():
    """While a computer player at one table thinks (held until released),
    a person at another table plays and is answered; no computer decision
    ever runs on the event loop's thread."""
    from domeng.web import table as table_mod

    real = table_mod.Table.computer_action
    held: dict[str, str | None] = {"id": None}
    entered, release = threading.Event(), threading.Event()
    threads: list[int] = []

    def thinking(self):
        threads.append(threading.get_ident())
        if self.id == held["id"]:
            entered.set()
            release.wait(600.0)  # until the test releases it (the finally: at the latest)
        return real(self)

    table_mod.Table.computer_action = thinking
    try:
        with serving() as (base, port, hub):
            a = _create(base, seats=["random"] * 5, seed=1, rounds=1000, camats=0)
            held["id"] = a["table"]
            assert entered.wait(BOUND)
            ta = hub.tables[a["table"]]
            frozen = ta.version
            b = _create(base, seats=["human", "expert", "hunter", "search", "random"], seed=2)
            tb = hub.tables[b["table"]]
            answered = 0
            with _ws(port, _tok(b["you"])) as me:
                acted = -1
                for _ in range(10000):
                    m = _recv(me)
                    msg = _move(m)
                    if m["type"] == "state" and m["version"] > acted and msg and m["turn"] == 0:
                        acted = m["version"]
                        me.send(json.dumps(msg))
                        answered += _recv(me)["version"] == acted + 1
                        if answered >= 3:
                            break
            assert answered >= 3 and not release.is_set()
            assert ta.version == frozen  # the other table still waits for its thinker
            assert tb.version > 3
            release.set()
            assert hub.loop_thread not in threads and len(threads) > 5
    finally:
        release.set()
        table_mod.Table.computer_action = real


# ---------------------------------------------------------------- H7
def test_h7_a_table_reaped_from_another_thread_is_closed_on_the_loop():
    """The reaper called from a thread that is not the loop's (as a creation
    request's worker did): the spectators are told and closed, the driver
    is cancelled, both on the loop."""
    from websockets.exceptions import ConnectionClosedOK

    with serving(delay=30.0, idle=60.0) as (base, port, hub):
        links = _create(base, seats=["random"] * 5, seed=4)
        tid = links["table"]
        where: list[int] = []
        real = hub._close
        hub._close = lambda t, why: (where.append(threading.get_ident()), real(t, why))[1]
        with _ws(port, _tok(links["spectator"])) as sp:
            assert _recv(sp)["type"] == "state"
            task = hub.drivers[tid]  # a computer is to move (it waits 30 s first)
            assert hub.reap(now=time.monotonic() + 61) == [tid]
            m = _recv(sp)
            assert m["type"] == "error" and m["fatal"] and "closed" in m["message"]
            with pytest.raises(ConnectionClosedOK):
                sp.recv(timeout=BOUND)
        assert where == [hub.loop_thread]
        for _ in range(int(BOUND / 0.02)):
            if task.done():
                break
            time.sleep(0.02)
        assert task.cancelled() and tid not in hub.tables and tid not in hub.drivers


# ---------------------------------------------------------------- H8
def test_h8_exports_are_limited_and_built_once_per_version():
    """Twenty exports at once: the first EXPORT_BURST are answered, the rest
    refused (plus at most one for each EXPORT_EVERY seconds that passed);
    one table version is built into an export once, for any connection."""
    from domeng.web.server import EXPORT_BURST, EXPORT_EVERY

    with serving() as (base, port, hub):
        links = _create(base, seed=6)
        tok = _tok(links["seats"]["0"])
        t0 = time.monotonic()
        with _ws(port, tok) as ws:
            assert _recv(ws)["type"] == "state"
            for _ in range(20):
                ws.send(json.dumps({"type": "export"}))
            got = [_recv(ws) for _ in range(20)]
        elapsed = time.monotonic() - t0
        exports = [m for m in got if m["type"] == "export"]
        refused = [m for m in got if m["type"] == "error"]
        assert len(exports) + len(refused) == 20
        assert EXPORT_BURST <= len(exports) <= EXPORT_BURST + int(elapsed / EXPORT_EVERY) + 1
        assert all("too many exports" in m["message"] for m in refused)
        with _ws(port, tok) as again:  # another connection of the same seat
            assert _recv(again)["type"] == "state"
            again.send(json.dumps({"type": "export"}))
            assert _recv(again) == exports[0]
        assert hub.export_builds == 1
