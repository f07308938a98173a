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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
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
from domeng.web.table import SEAT_KINDS, Table, TableSpec, WebError, token_hash

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

HEADERS = {
    "Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'self'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


class Hub:
    """Every table of one server, the connections to them and the tasks
    that move their computer players."""

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
        self.sockets: dict[str, list[tuple[WebSocket, int | None]]] = {}
        self.drivers: dict[str, asyncio.Task] = {}
        self.moves = 0  # every action played (computer or person), for the load test

    # ------------------------------------------------------------ tables
    def create(self, data: Any) -> dict[str, Any]:
        """A new table from a creation request; returns its links (tokens),
        given once, to the one who created it."""
        return self.register(self.build(data))

    def build(self, data: Any) -> Table:
        """A checked table, not yet served (may run off the loop: a search
        player's first use compiles it)."""
        self.reap()
        if len(self.tables) >= self.max_tables:
            raise WebError("this server has as many tables as it takes; try again later")
        return Table(TableSpec.parse(data))

    def register(self, table: Table) -> dict[str, Any]:
        """Serve ``table``; returns its links."""
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

    def close(self, table: Table) -> None:
        table.closed = True
        self.tables.pop(table.id, None)
        for h in table.tokens:
            self.index.pop(h, None)
        task = self.drivers.pop(table.id, None)
        if task is not None:
            task.cancel()

    def reap(self, now: float | None = None) -> list[str]:
        """Close the tables no person has been at for ``idle`` seconds."""
        now = time.monotonic() if now is None else now
        gone = []
        for table in list(self.tables.values()):
            if any(table.seats[s].connections for s in table.humans):
                continue
            if now - table.last_human >= self.idle:
                self.close(table)
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
            for ws, _ in list(self.sockets.get(table.id, [])):
                await _send(ws, {"type": "error", "message": f"a computer player failed: {e}"})

    async def _drive_moves(self, table: Table) -> None:
        while self._work(table):
            await asyncio.sleep(self.delay)
            if not self._work(table):
                break
            if table.computer_to_move:
                version = table.version
                if table.slow_to_move:  # keep the other tables going meanwhile
                    action = await asyncio.to_thread(table.computer_action)
                else:
                    action = table.computer_action()
                if table.closed:
                    break
                table.computer_play(action, version)
                self.moves += 1
            else:
                table.start_round()
            await self.broadcast(table)

    # ------------------------------------------------------------ messages
    async def broadcast(self, table: Table) -> None:
        for ws, seat in list(self.sockets.get(table.id, [])):
            with contextlib.suppress(Exception):
                await ws.send_text(table.view_text(seat))

    async def connection(self, ws: WebSocket) -> None:
        """One page's websocket, from hello to goodbye."""
        await ws.accept()
        try:
            first = await asyncio.wait_for(ws.receive_text(), HELLO_TIMEOUT)
        except (asyncio.TimeoutError, WebSocketDisconnect, KeyError, RuntimeError):
            await _close(ws)
            return
        try:
            msg = parse(first)
            if msg.get("type") != "hello" or set(msg) != {"type", "token"}:
                raise WebError("say hello with your link's token first")
            table, seat = self.lookup(msg["token"])
        except WebError as e:
            await _send(ws, {"type": "error", "message": str(e), "fatal": True})
            await _close(ws)
            return
        tid = table.id
        self.sockets[tid].append((ws, seat))
        if seat is not None:
            table.seats[seat].connections += 1
            table.last_human = time.monotonic()
        try:
            await self.broadcast(table)
            self.kick(table)
            while True:
                try:
                    text = await ws.receive_text()
                except KeyError:  # a binary frame
                    text = None
                await self.handle(table, seat, ws, text)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            with contextlib.suppress(ValueError, KeyError):
                self.sockets[tid].remove((ws, seat))
            if seat is not None:
                table.seats[seat].connections -= 1
                table.last_human = time.monotonic()
            if not table.closed:
                await self.broadcast(table)

    async def handle(self, table: Table, seat: int | None, ws: WebSocket, text: str | None) -> None:
        """One message from a connected page: act, or say why not."""
        try:
            if table.closed:
                raise WebError("this table is closed")
            msg = parse(text)
            if msg.get("type") == "export" and set(msg) == {"type"}:
                await _send(ws, {"type": "export", "game": table.export(seat)})
                return
            before = table.version
            table.act(seat, msg)
            if table.version != before:
                self.moves += msg.get("type") in ("play", "pass")
            if seat is not None:
                table.last_human = time.monotonic()
        except WebError as e:
            await _send(ws, {"type": "error", "message": str(e)})
            return
        await self.broadcast(table)
        self.kick(table)


def parse(text: Any) -> dict[str, Any]:
    """A page's message: a small JSON object, or a :class:`WebError`."""
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
    return msg


async def _send(ws: WebSocket, msg: dict[str, Any]) -> None:
    with contextlib.suppress(Exception):
        await ws.send_text(json.dumps(msg))


async def _close(ws: WebSocket) -> None:
    with contextlib.suppress(Exception):
        await ws.close()


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
    delay: float = DEFAULT_DELAY, idle: float = DEFAULT_IDLE, max_tables: int = DEFAULT_MAX_TABLES
) -> Starlette:
    """The Starlette app; ``app.state.hub`` is its :class:`Hub`."""
    hub = Hub(delay=delay, idle=idle, max_tables=max_tables)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def create(request: Request) -> Response:
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_REQUEST:
                return JSONResponse({"error": "request too large"}, 413)
        try:
            data = jsontext.loads(body or b"null")
        except (ValueError, RecursionError):
            return JSONResponse({"error": "the request is not JSON"}, 400)
        try:
            table = await asyncio.to_thread(hub.build, data)
            return JSONResponse(hub.register(table))
        except WebError as e:
            return JSONResponse({"error": str(e)}, 400)

    async def players(request: Request) -> Response:
        about = catalogue.describe("browser", plugins=False)
        return JSONResponse({"seats": list(SEAT_KINDS), "about": about, "rules": Rules().to_dict()})

    async def reaper() -> None:
        while True:
            await asyncio.sleep(max(0.05, min(hub.idle / 4, 10.0)))
            for tid in hub.reap():
                for ws, _ in hub.sockets.pop(tid, []):
                    await _send(
                        ws,
                        {
                            "type": "error",
                            "message": "this table was closed: no person was at it",
                            "fatal": True,
                        },
                    )
                    await _close(ws)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        task = asyncio.create_task(reaper())
        try:
            yield
        finally:
            task.cancel()
            for t in list(hub.drivers.values()):
                t.cancel()

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/tables", create, methods=["POST"]),
            Route("/api/options", players),
            WebSocketRoute("/ws", hub.connection),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
        middleware=[Middleware(_Headers)],
    )
    app.state.hub = hub
    return app


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    delay: float = DEFAULT_DELAY,
    idle: float = DEFAULT_IDLE,
    max_tables: int = DEFAULT_MAX_TABLES,
    sock: socket.socket | None = None,
) -> None:
    """Run the server until interrupted (uvicorn; messages over
    :data:`MAX_MESSAGE` bytes are refused by the websocket layer too).
    ``sock``: a socket already bound to ``host``:``port`` (``domeng serve``
    binds first, so it can say the real port of ``--port 0``); it is then
    served instead of binding again."""
    import uvicorn

    config = uvicorn.Config(
        create_app(delay, idle, max_tables),
        host=host,
        port=port,
        ws_max_size=MAX_MESSAGE * 2,
        log_level="warning",
        access_log=False,
    )
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=None if sock is None else [sock])
    if not server.started:
        raise DomengError(
            f"the browser table could not start on {host}:{port} (uvicorn said why above)"
        )
