"""The browser table's server: a Starlette app (HTTP + websockets) on uvicorn.

The server is the only authority.  A page holds a token (in the link's
``#`` fragment, so it never reaches a server log or a ``Referer``); it
opens ``/ws`` and says ``{"type": "hello", "token": ...}``; from then on it
gets ``state`` messages (:meth:`domeng.web.table.Table.view`: that seat's D17
view) and sends ``play`` / ``pass`` / ``next_round`` quoting the state's
``version``, or ``export``.  Anything else is refused with an ``error``
message the page shows, and the table is left as it was.

Computer players move from one task per table, pausing ``delay`` seconds
per move; a table with no person connected for ``idle`` seconds is closed.

Against hostile clients (issue 22, H1..H8; docs/security.md): every message
is checked against its shape (:data:`SHAPES`) before anything reaches the
table; each connection has a bounded send queue (a client that falls behind
by :data:`SEND_QUEUE` messages is cut off; nobody else waits for it); every
computer decision runs in a worker thread; every table change happens on
the event loop; ``export`` is limited per connection and built once per
table version; a table is created only by a JSON request of this server's
own page (:mod:`domeng.web.guard`: ``Host``, ``Origin``, the connection caps
and timeouts).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from domeng.core.errors import DomengError
from domeng.core.rules import Rules
from domeng.infra import jsontext
from domeng.players import catalogue
from domeng.web.guard import DEFAULT_PER_ADDRESS, Hosts, refusal
from domeng.web.table import SEAT_KINDS, Table, TableSpec, WebError, token_hash
from domeng.web.words import pick, words_message

STATIC = Path(__file__).resolve().parent / "static"
#: the largest message a page may send (bytes); anything larger is refused
MAX_MESSAGE = 2048
#: the largest table-creation request (bytes)
MAX_REQUEST = 8192
#: seconds a new connection has to say hello
HELLO_TIMEOUT = 10.0
DEFAULT_DELAY = 0.8
DEFAULT_IDLE = 900.0
DEFAULT_MAX_TABLES = 200
#: messages a connection may fall behind by before it is cut off (H1)
SEND_QUEUE = 64
#: seconds a creation request has to send its body
BODY_TIMEOUT = 10.0
#: seconds uvicorn keeps an idle kept-alive HTTP connection
KEEP_ALIVE = 5
#: exports a connection may ask for at once, and seconds for each further one (H8)
EXPORT_BURST = 3
EXPORT_EVERY = 10.0
#: the longest text a message field may hold
MAX_FIELD = 64
#: every message a page may send: its type -> its other fields and their types (H5)
SHAPES: dict[str, dict[str, type]] = {
    "hello": {"token": str},
    "play": {"version": int, "tile": int, "end": str},
    "pass": {"version": int},
    "next_round": {"version": int},
    "name": {"name": str},
    "export": {},
}
log = logging.getLogger("domeng.web")

HEADERS = {
    "Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'self'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


class Conn:
    """One page's websocket: its seat, its bounded send queue (sent by its
    own task, so that nobody waits for a slow reader) and its export budget."""

    def __init__(self, ws: WebSocket, seat: int | None, limit: int = SEND_QUEUE) -> None:
        self.ws = ws
        self.seat = seat
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(limit)
        self.dropped = False
        self.closing = False
        self.sender: asyncio.Task | None = None
        self.tokens = float(EXPORT_BURST)
        self.tokens_at = time.monotonic()

    def offer(self, text: str) -> bool:
        """Queue ``text``; False when the client has fallen too far behind."""
        if self.closing:
            return True
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            return False
        return True

    def finish(self, last: str | None = None) -> None:
        """Send ``last`` (if any), then close: the page is told why."""
        if self.closing:
            return
        self.closing = True
        try:
            if last is not None:
                self.queue.put_nowait(last)
            self.queue.put_nowait(None)  # the sender stops there; the handler closes
        except asyncio.QueueFull:  # far behind already: cut off
            self.dropped = True
            if self.sender is not None:
                self.sender.cancel()

    def may_export(self, now: float) -> bool:
        """Take one export from the budget (:data:`EXPORT_BURST`, one more
        every :data:`EXPORT_EVERY` seconds)."""
        self.tokens = min(EXPORT_BURST, self.tokens + (now - self.tokens_at) / EXPORT_EVERY)
        self.tokens_at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def pump(self) -> None:
        while True:
            item = await self.queue.get()
            if item is None:
                return
            await self.ws.send_text(item)


class Hub:
    """Every table of one server, the connections to them and the tasks
    that move their computer players.  Every change of a table happens on
    the server's event loop (:meth:`on_loop`)."""

    def __init__(
        self,
        delay: float = DEFAULT_DELAY,
        idle: float = DEFAULT_IDLE,
        max_tables: int = DEFAULT_MAX_TABLES,
    ) -> None:
        self.delay = float(delay)
        self.idle = float(idle)
        self.max_tables = int(max_tables)
        self.tables: dict[str, Table] = {}
        self.index: dict[str, tuple[str, int | None]] = {}  # token hash -> (table, seat)
        self.sockets: dict[str, list[Conn]] = {}
        self.drivers: dict[str, asyncio.Task] = {}
        self.moves = 0  # every action played (computer or person), for the load test
        self.dropped = 0  # connections cut off for falling behind (H1)
        self.export_builds = 0  # exports built (once per table version and seat, H8)
        self._exports: dict[tuple[str, int | None], tuple[int, str]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.loop_thread: int | None = None
        self.guard = None  # the connection registry (domeng.web.guard), under uvicorn
        self.hosts: Hosts | None = None  # the Host names served (None: any)

    # ------------------------------------------------------------ the loop
    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop, self.loop_thread = loop, threading.get_ident()

    def on_loop(self, fn, *args):
        """``fn(*args)`` on the event loop: called there directly, from any
        other thread scheduled there (``call_soon_threadsafe``) and waited for."""
        if self.loop is None or threading.get_ident() == self.loop_thread:
            return fn(*args)
        import concurrent.futures

        done: concurrent.futures.Future = concurrent.futures.Future()

        def run() -> None:
            try:
                done.set_result(fn(*args))
            except BaseException as e:  # handed to the waiting thread
                done.set_exception(e)

        self.loop.call_soon_threadsafe(run)
        return done.result()

    # ------------------------------------------------------------ tables
    def create(self, data: Any) -> dict[str, Any]:
        """A new table from a creation request; returns its links (tokens),
        given once, to the one who created it."""
        self.reap()
        self.room()
        return self.register(self.build(data))

    def room(self) -> None:
        if len(self.tables) >= self.max_tables:
            raise WebError("this server has as many tables as it takes; try again later")

    @staticmethod
    def build(data: Any) -> Table:
        """A checked table, not yet served.  Runs off the loop (a computer
        player's first use compiles it); touches no served table."""
        table = Table(TableSpec.parse(data))
        for s in table.humans + [None]:  # the first views compile what they use, here
            table.view_text(s)
        legal = table.game.legal_actions()
        with contextlib.suppress(DomengError, IndexError):  # a person's turn: changes nothing
            table.game.preview(legal[0])
        return table

    def register(self, table: Table) -> dict[str, Any]:
        """Serve ``table`` (on the loop); returns its links."""
        return self.on_loop(self._register, table)

    def _register(self, table: Table) -> dict[str, Any]:
        self.room()
        self.tables[table.id] = table
        self.sockets[table.id] = []
        for h, s in table.tokens.items():
            self.index[h] = (table.id, s)
        links = {k: f"/#t={tok}" for k, tok in table.links.items()}
        humans = table.humans
        self.kick(table)
        return {
            "table": table.id,
            "seats": {str(s): links[str(s)] for s in humans},
            "spectator": links["spectator"],
            "you": links[str(humans[0])] if humans else links["spectator"],
        }

    def lookup(self, token: Any) -> tuple[Table, int | None]:
        if not isinstance(token, str) or not 10 <= len(token) <= 64:
            raise WebError("unknown or expired link")
        hit = self.index.get(token_hash(token))
        if hit is None or hit[0] not in self.tables:
            raise WebError("unknown or expired link")
        return self.tables[hit[0]], hit[1]

    def close(self, table: Table, why: str = "this table was closed") -> None:
        """Close ``table`` (on the loop, H7): its driver cancelled there, its
        pages told why and closed."""
        self.on_loop(self._close, table, why)

    def _close(self, table: Table, why: str) -> None:
        table.closed = True
        self.tables.pop(table.id, None)
        for h in table.tokens:
            self.index.pop(h, None)
        task = self.drivers.pop(table.id, None)
        if task is not None:
            task.cancel()
        msg = json.dumps({"type": "error", "message": why, "fatal": True})
        for conn in self.sockets.pop(table.id, []):
            conn.finish(msg)
        self._exports = {k: v for k, v in self._exports.items() if k[0] != table.id}

    def reap(self, now: float | None = None) -> list[str]:
        """Close the tables no person has been at for ``idle`` seconds (on the loop)."""
        return self.on_loop(self._reap, now)

    def _reap(self, now: float | None) -> list[str]:
        now = time.monotonic() if now is None else now
        gone = []
        for table in list(self.tables.values()):
            if any(table.seats[s].connections for s in table.humans):
                continue
            if now - table.last_human >= self.idle:
                self._close(table, "this table was closed: no person was at it")
                gone.append(table.id)
        return gone

    # ------------------------------------------------------------ computers
    def kick(self, table: Table) -> None:
        """Make sure the table's computer players move (one task per table)."""
        task = self.drivers.get(table.id)
        if task is not None and not task.done():
            return
        if not self._work(table):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # created outside the server loop: the first connection kicks it
        self.drivers[table.id] = loop.create_task(self._drive(table))

    def _work(self, table: Table) -> bool:
        if table.closed:
            return False
        if table.computer_to_move:
            return True
        # a table of computer players only goes on from round to round by itself
        return table.game.round_over and not table.humans and not table.game_over

    async def _drive(self, table: Table) -> None:
        try:
            await self._drive_moves(table)
        except DomengError as e:  # a computer player failed: say so at the table
            self.tell(table, {"type": "error", "message": f"a computer player failed: {e}"})

    async def _drive_moves(self, table: Table) -> None:
        while self._work(table):
            await asyncio.sleep(self.delay)
            if not self._work(table):
                break
            if table.computer_to_move:
                version = table.version
                # every decision (and a first compile) in a worker thread (H6):
                # the loop serves the other tables meanwhile
                action = await asyncio.to_thread(table.computer_action)
                if table.closed:
                    break
                table.computer_play(action, version)
                self.moves += 1
            else:
                table.start_round()
            self.broadcast(table)

    # ------------------------------------------------------------ messages
    def broadcast(self, table: Table) -> None:
        """Queue each page's view of ``table``; waits for nobody (H1)."""
        texts: dict[int | None, str] = {}
        for conn in list(self.sockets.get(table.id, [])):
            if conn.seat not in texts:
                texts[conn.seat] = table.view_text(conn.seat)
            if not conn.offer(texts[conn.seat]):
                self.drop(conn, table)

    def tell(self, table: Table, msg: dict[str, Any]) -> None:
        text = json.dumps(msg)
        for conn in list(self.sockets.get(table.id, [])):
            if not conn.offer(text):
                self.drop(conn, table)

    def drop(self, conn: Conn, table: Table) -> None:
        """Cut off a page that has fallen :data:`SEND_QUEUE` messages behind."""
        if conn.dropped:
            return
        conn.dropped = True
        self.dropped += 1
        with contextlib.suppress(ValueError, KeyError):
            self.sockets[table.id].remove(conn)
        if conn.sender is not None:
            conn.sender.cancel()  # its connection's handler closes it

    def export_text(self, table: Table, seat: int | None) -> str:
        """The export message of ``seat``, built once per table version (H8)."""
        key = (table.id, seat)
        hit = self._exports.get(key)
        if hit is None or hit[0] != table.version:
            self.export_builds += 1
            hit = (table.version, json.dumps({"type": "export", "game": table.export(seat)}))
            self._exports[key] = hit
        return hit[1]

    async def connection(self, ws: WebSocket) -> None:
        """One page's websocket, from hello to goodbye."""
        if refusal(ws.headers, self.hosts):
            await ws.close(code=1008)  # before the handshake: a 403 (H4)
            return
        await ws.accept()
        try:
            first = await asyncio.wait_for(ws.receive(), HELLO_TIMEOUT)
        except (asyncio.TimeoutError, WebSocketDisconnect, RuntimeError):
            await _close(ws)
            return
        try:
            if first.get("type") == "websocket.disconnect":
                return
            try:
                msg = parse(first.get("text"))
            except WebError:
                msg = {"type": None}
            if msg["type"] != "hello":
                raise WebError("say hello with your link's token first")
            table, seat = self.lookup(msg["token"])
        except WebError as e:
            await _send(ws, {"type": "error", "message": str(e), "fatal": True})
            await _close(ws)
            return
        conn = Conn(ws, seat)
        conn.sender = asyncio.create_task(conn.pump())
        tid = table.id
        self.sockets[tid].append(conn)
        if seat is not None:
            table.seats[seat].connections += 1
            table.last_human = time.monotonic()
        reader = asyncio.create_task(self._read(table, conn))
        try:
            self.broadcast(table)
            self.kick(table)
            await asyncio.wait({reader, conn.sender}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            reader.cancel()
            conn.sender.cancel()
            with contextlib.suppress(ValueError, KeyError):
                self.sockets[tid].remove(conn)
            if seat is not None:
                table.seats[seat].connections -= 1
                table.last_human = time.monotonic()
            if not table.closed:
                self.broadcast(table)
            if conn.dropped and self.guard is not None and self.guard.abort(ws.client):
                pass  # a client that does not read gets no close frame
            else:
                await _close(ws)

    async def _read(self, table: Table, conn: Conn) -> None:
        while True:
            m = await conn.ws.receive()
            if m.get("type") == "websocket.disconnect":
                return
            try:
                await self.handle(table, conn, m.get("text"))
            except Exception:  # a bug, never a message's fault: one line to the page
                log.exception("domeng serve: a message failed")
                conn.finish(json.dumps({"type": "error", "message": "internal error"}))
                return

    async def handle(self, table: Table, conn: Conn, text: str | None) -> None:
        """One message from a connected page: act, or say why not."""
        seat = conn.seat
        try:
            if table.closed:
                raise WebError("this table is closed")
            msg = parse(text)
            typ = msg["type"]
            if typ == "hello":
                raise WebError("you have said hello already")
            if typ == "export":
                if not conn.may_export(time.monotonic()):
                    raise WebError(
                        f"too many exports: {EXPORT_BURST} at once, then one every "
                        f"{EXPORT_EVERY:g} s"
                    )
                if not conn.offer(self.export_text(table, seat)):
                    self.drop(conn, table)
                return
            before = table.version
            table.act(seat, msg)
            if table.version != before:
                self.moves += typ in ("play", "pass")
            if seat is not None:
                table.last_human = time.monotonic()
        except WebError as e:
            if not conn.offer(json.dumps({"type": "error", "message": str(e)})):
                self.drop(conn, table)
            return
        self.broadcast(table)
        self.kick(table)


def parse(text: Any) -> dict[str, Any]:
    """A page's message, checked against its shape (:data:`SHAPES`): a small
    JSON object of a known type with exactly its fields, each of its type;
    else a one-line :class:`WebError` (H5)."""
    if not isinstance(text, str):
        raise WebError("messages are JSON text")
    if len(text) > MAX_MESSAGE:
        raise WebError(f"message too large (at most {MAX_MESSAGE} bytes)")
    try:
        msg = jsontext.loads(text)
    except (ValueError, RecursionError):
        raise WebError("that message is not JSON") from None
    if not isinstance(msg, dict):
        raise WebError("a message is a JSON object")
    typ = msg.get("type")
    if not isinstance(typ, str) or typ not in SHAPES:
        raise WebError(f"unknown message type: choose one of {', '.join(SHAPES)}")
    want = SHAPES[typ]
    if set(msg) != {"type", *want}:
        fields = ", ".join(want) if want else "none"
        raise WebError(f"a {typ} message has exactly these other fields: {fields}")
    for name, kind in want.items():
        if isinstance(msg[name], bool) or not isinstance(msg[name], kind):
            raise WebError(f"{name} must be {'a whole number' if kind is int else 'text'}")
        v: Any = msg[name]  # of its kind now
        if kind is str and len(v) > MAX_FIELD:
            raise WebError(f"{name} is too long (at most {MAX_FIELD} characters)")
        if kind is int and not -(2**53) <= v <= 2**53:
            raise WebError(f"{name} is out of range")
    return msg


async def _send(ws: WebSocket, msg: dict[str, Any]) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(ws.send_text(json.dumps(msg)), HELLO_TIMEOUT)


async def _close(ws: WebSocket) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(ws.close(), HELLO_TIMEOUT)


class _Headers:
    """Adds :data:`HEADERS` to every HTTP response (pages, files, API)."""

    def __init__(self, app) -> None:
        self.app = app
        self.extra = [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()]

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with(message) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (k, v) for k, v in self.extra if k not in have
                ]
            await send(message)

        await self.app(scope, receive, send_with)


def create_app(
    delay: float = DEFAULT_DELAY,
    idle: float = DEFAULT_IDLE,
    max_tables: int = DEFAULT_MAX_TABLES,
    hosts: Hosts | None = None,
) -> Starlette:
    """The Starlette app; ``app.state.hub`` is its :class:`Hub`.  ``hosts``:
    the ``Host`` names it answers to (:class:`~domeng.web.guard.Hosts`;
    None: any, for tests and embedding; ``serve`` always gives them)."""
    hub = Hub(delay=delay, idle=idle, max_tables=max_tables)
    hub.hosts = hosts

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def read_body(request: Request) -> bytes | None:
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_REQUEST:
                return None
        return body

    async def create(request: Request) -> Response:
        # only this server's own page creates tables (H4): a JSON body (a page
        # elsewhere cannot send one without asking first), its Host and Origin
        why = refusal(request.headers, hosts)
        if why:
            return JSONResponse({"error": why}, 403)
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            return JSONResponse({"error": "a table is created with a JSON request"}, 415)
        try:
            body = await asyncio.wait_for(read_body(request), BODY_TIMEOUT)
        except asyncio.TimeoutError:
            return JSONResponse({"error": "the request was too slow"}, 408)
        if body is None:
            return JSONResponse({"error": "request too large"}, 413)
        try:
            data = jsontext.loads(body or b"null")
        except (ValueError, RecursionError):
            return JSONResponse({"error": "the request is not JSON"}, 400)
        try:
            hub.reap()  # here, on the loop (H7), never in the worker thread
            hub.room()
            table = await asyncio.to_thread(hub.build, data)
            return JSONResponse(hub.register(table))
        except WebError as e:
            return JSONResponse({"error": str(e)}, 400)

    async def players(request: Request) -> Response:
        about = catalogue.describe("browser", plugins=False)
        return JSONResponse({"seats": list(SEAT_KINDS), "about": about, "rules": Rules().to_dict()})

    async def words(request: Request) -> Response:
        # the page's strings in one language (domeng.web.words), and the glossary
        return JSONResponse(words_message(pick(request.query_params.get("lang"))))

    async def reaper() -> None:
        while True:
            await asyncio.sleep(max(0.05, min(hub.idle / 4, 10.0)))
            hub.reap()

    @contextlib.asynccontextmanager
    async def lifespan(app):
        hub.bind(asyncio.get_running_loop())
        task = asyncio.create_task(reaper())
        try:
            yield
        finally:
            task.cancel()
            for t in list(hub.drivers.values()):
                t.cancel()
            hub.loop = None

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/tables", create, methods=["POST"]),
            Route("/api/options", players),
            Route("/api/words", words),
            WebSocketRoute("/ws", hub.connection),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
        middleware=[Middleware(_Headers)],
    )
    app.state.hub = hub
    return app


def server_config(
    app: Starlette,
    host: str = "127.0.0.1",
    port: int = 8000,
    per_address: int = DEFAULT_PER_ADDRESS,
    **kw: Any,
):
    """The uvicorn configuration of ``app`` (``domeng serve``'s, also the
    tests' and the benchmark's): h11 under :mod:`domeng.web.guard`'s limits
    (the time for a request's head, connections per address), kept-alive
    connections closed after :data:`KEEP_ALIVE` s, websocket messages over
    :data:`MAX_MESSAGE` bytes refused by the websocket layer too."""
    import uvicorn

    from domeng.web.guard import MAX_HEAD, Registry, protocol_for

    registry = Registry(per_address)
    app.state.hub.guard = registry
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol_for(registry),
        h11_max_incomplete_event_size=MAX_HEAD,
        timeout_keep_alive=KEEP_ALIVE,
        ws_max_size=MAX_MESSAGE * 2,
        log_level="warning",
        access_log=False,
        **kw,
    )


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    delay: float = DEFAULT_DELAY,
    idle: float = DEFAULT_IDLE,
    max_tables: int = DEFAULT_MAX_TABLES,
    sock: socket.socket | None = None,
    per_address: int = DEFAULT_PER_ADDRESS,
    allow_hosts: Sequence[str] = (),
) -> None:
    """Run the server until interrupted.  ``sock``: a socket already bound
    to ``host``:``port`` (``domeng serve`` binds first, so it can say the
    real port of ``--port 0``); it is then served instead of binding again.
    ``allow_hosts``: more ``Host`` names it answers to (a reverse proxy's)."""
    import uvicorn

    app = create_app(delay, idle, max_tables, hosts=Hosts.of(host, port, allow_hosts))
    server = uvicorn.Server(server_config(app, host, port, per_address))
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=None if sock is None else [sock])
    if not server.started:
        raise DomengError(
            f"the browser table could not start on {host}:{port} (uvicorn said why above)"
        )
