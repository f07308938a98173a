"""Load test of the browser table (issue 14): many tables at once on one
process, loopback only, bounded in time.

Each table has one simulated person (a websocket client that plays the first
legal move its state offers, and asks for the next round) and four computer
players (no pause).  Reports the moves per second of the whole server and the
round trip of a person's move (send -> the state that shows it).

    python benchmarks/bench_web.py --tables 100 --seconds 30
    python benchmarks/bench_web.py --slow-readers 0,1   # without, then with a slow reader

``--slow-readers K`` adds K spectators (of the first K tables) that say hello
and then never read (issue 22, H1): the server cuts each off once it is
``SEND_QUEUE`` messages behind; the other tables' round trips must not change.
    python benchmarks/bench_web.py --code both   # the code before issue 14's speed-up, then now
    python benchmarks/bench_web.py --store none,sqlite   # tables in memory only, then saved

``--store sqlite`` saves every table as ``domeng serve`` does (issue 22:
:mod:`domeng.web.store`, a temporary ``--data`` folder; each change stored
on the event loop before any page is told) and reports the time of each
write (median, 99th percentile, max, in microseconds: wall-clock, and the
loop thread's CPU time, which leaves out the waits for the GIL and the CPU
that a busy machine adds).

``--code before`` puts back the two costs removed in session 3: the computer
players' old per-move call (the tuple of player functions typed on every
move, ``bench_computer.py``) and the state message encoded whole every time
(the last round's replay, most of it, is now encoded once a seat and round).

Needs the web extra (``pip install -e '.[web]'``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import threading
import time

import uvicorn
import websockets

from domeng.web.server import create_app, server_config

PLAYERS = ["human", "hunter", "keeper", "heavy", "random"]


def start_server(tables: int, delay: float, store=None):
    app = create_app(delay=delay, idle=3600, max_tables=tables + 10, store=store)
    # domeng serve's own configuration (its guard), room for every table's client
    srv = uvicorn.Server(server_config(app, "127.0.0.1", 0, per_address=2 * tables + 20))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    while not srv.started:
        time.sleep(0.05)
    return srv, th, app, srv.servers[0].sockets[0].getsockname()[1]


async def person(port: int, token: str, stop: float, lat: list, rounds: list) -> None:
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws", max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        sent_at = None
        sent_version = -1
        while time.monotonic() < stop:
            try:
                raw = await asyncio.wait_for(ws.recv(), max(0.01, stop - time.monotonic()))
            except asyncio.TimeoutError:
                break
            m = json.loads(raw)
            if m["type"] != "state":
                sent_at = None
                continue
            if sent_at is not None and m["version"] > sent_version:
                lat.append(time.perf_counter() - sent_at)
                sent_at = None
            if m["game_over"]:
                break
            if m["round_over"]:
                if not m["seats"][m["you"]]["ready"]:
                    msg = {"type": "next_round", "version": m["version"]}
                    rounds.append(1)
                else:
                    continue
            elif m["turn"] == m["you"] and m["legal"]:
                first = m["legal"][0]
                msg = (
                    {"type": "pass", "version": m["version"]}
                    if first.get("pass")
                    else {
                        "type": "play",
                        "tile": first["tile"],
                        "end": first["end"],
                        "version": m["version"],
                    }
                )
            else:
                continue
            sent_version = m["version"]
            sent_at = time.perf_counter()
            await ws.send(json.dumps(msg))


def slow_reader(port: int, token: str):
    """A spectator that says hello and never reads (a small receive buffer)."""
    import os
    import socket

    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.sendall(
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    data = json.dumps({"type": "hello", "token": token}).encode()
    mask = os.urandom(4)
    assert len(data) < 126  # one length byte
    s.sendall(
        bytes([0x81, 0x80 | len(data)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))
    )
    return s


async def main_async(port: int, hub, n: int, seconds: float, slow: int = 0) -> dict:
    import httpx2 as httpx  # the test extra's client (httpx's maintained successor)

    readers: list = []
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
        links = []
        for i in range(n):
            r = await http.post(
                "/api/tables", json={"seats": PLAYERS, "seed": i, "rounds": 1000, "camats": 20}
            )
            r.raise_for_status()
            links.append(r.json()["you"].split("#t=")[1])
            if i < slow:
                readers.append(slow_reader(port, r.json()["spectator"].split("#t=")[1]))
    lat: list[float] = []
    rounds: list[int] = []
    m0, t0, c0 = hub.moves, time.perf_counter(), time.process_time()
    stop = time.monotonic() + seconds
    await asyncio.gather(*(person(port, tok, stop, lat, rounds) for tok in links))
    el, cpu = time.perf_counter() - t0, time.process_time() - c0
    for r in readers:
        r.close()
    moves = hub.moves - m0
    lat.sort()
    q = (lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] * 1e3) if lat else (lambda p: 0.0)
    return {
        "tables": n,
        "slow_readers": slow,
        "slow_readers_cut_off": hub.dropped,
        "delay": hub.delay,
        "seconds": round(el, 1),
        "moves": moves,
        "moves_per_s": round(moves / el, 1),
        "cpu_s": round(cpu, 1),
        "moves_per_cpu_s": round(moves / cpu, 1),
        "person_moves": len(lat),
        "rounds_started": len(rounds),
        "rtt_ms_p50": round(q(0.5), 2),
        "rtt_ms_p95": round(q(0.95), 2),
        "rtt_ms_max": round(lat[-1] * 1e3, 2) if lat else 0.0,
        "rtt_ms_mean": round(statistics.mean(lat) * 1e3, 2) if lat else 0.0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument(
        "--delay",
        type=float,
        default=0.0,
        help="computer players' pause per move (default 0: as fast as it goes)",
    )
    ap.add_argument(
        "--code",
        choices=("now", "before", "both"),
        default="now",
        help="the server as it is (now), with the two costs removed in session 3 "
        "put back (before), or both, one after the other",
    )
    ap.add_argument(
        "--store",
        default="none",
        metavar="none|sqlite[,...]",
        help="tables in memory only (none) or saved as domeng serve does (sqlite); "
        "one run for each (default none)",
    )
    ap.add_argument(
        "--slow-readers",
        default="0",
        metavar="K[,K...]",
        help="spectators that never read, one run for each K (default 0)",
    )
    a = ap.parse_args()
    for code in ("before", "now") if a.code == "both" else (a.code,):
        for k in (int(x) for x in a.slow_readers.split(",")):
            for store in a.store.split(","):
                a.slow, a.saved = k, store == "sqlite"
                print(json.dumps(run(a, code), indent=1), flush=True)


def run(a, code: str) -> dict:
    from domeng.batch.computer import Computers
    from domeng.web.table import Table

    now = Computers.action, Table.view_text
    if code == "before":
        from bench_computer import old_computers_action

        Computers.action = old_computers_action
        Table.view_text = lambda self, seat: json.dumps(self.view(seat))
    store, writes, cpus = None, [], []
    if a.saved:
        import tempfile

        from domeng.web.store import TableStore

        store = TableStore(tempfile.mkdtemp(prefix="bench-web-"))
        save = store.save

        def timed(table) -> None:
            t, c = time.perf_counter(), time.thread_time()
            save(table)
            writes.append(time.perf_counter() - t)
            cpus.append(time.thread_time() - c)

        store.save = timed  # type: ignore[method-assign]
    srv, th, app, port = start_server(a.tables, a.delay, store)
    try:
        # warm up: compile the engine and the players before timing
        from domeng.engine.game import Game

        g, c = Game(seed=1), Computers(PLAYERS[1:] + ["random"])
        g.new_round()
        while not g.round_over:
            g.step(c.action(g))
        res = asyncio.run(main_async(port, app.state.hub, a.tables, a.seconds, a.slow))
    finally:
        srv.should_exit = True
        th.join(30)
        Computers.action, Table.view_text = now
        if store is not None:
            store.close()
    if writes:
        writes.sort()
        res["store_writes"] = len(writes)
        for name, p in (("p50", 0.5), ("p99", 0.99)):
            res[f"store_write_us_{name}"] = round(writes[int(p * (len(writes) - 1))] * 1e6, 1)
        res["store_write_us_max"] = round(writes[-1] * 1e6, 1)
        cpus.sort()  # the loop thread's CPU time of a write (without the waits for the GIL)
        for name, p in (("p50", 0.5), ("p99", 0.99)):
            res[f"store_write_cpu_us_{name}"] = round(cpus[int(p * (len(cpus) - 1))] * 1e6, 1)
    return {"code": code, "store": "sqlite" if a.saved else "none", **res}


if __name__ == "__main__":
    main()
