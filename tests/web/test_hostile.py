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
httpx = pytest.importorskip("httpx")

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
    r = httpx.post(f"{base}/api/tables", json=body, timeout=BOUND)
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
            for _ in range(200000):  # bounded: the reader is behind long before
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
