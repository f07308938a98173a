"""The browser table's server: a Starlette app (HTTP + websockets) on uvicorn.

The pages, the creation of a table (``POST /api/tables``), the player
options and the websocket (:meth:`domeng.web.hub.Hub.connection`: the
protocol, the tables and the hostile-client limits are the hub's); every
HTTP response gets :data:`HEADERS`.  :func:`serve` runs it for
``domeng serve``, under :mod:`domeng.web.guard`'s limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
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

from domeng.core.errors import DomengError
from domeng.core.rules import Rules
from domeng.infra import jsontext
from domeng.players import catalogue
from domeng.web.guard import DEFAULT_PER_ADDRESS, Hosts, refusal
from domeng.web.hub import (  # the protocol's names, also as server.X for callers
    DEFAULT_DELAY,
    DEFAULT_IDLE,
    DEFAULT_MAX_TABLES,
    DEFAULT_TURN_TIMEOUT,
    EXPORT_BURST,
    EXPORT_EVERY,
    HELLO_TIMEOUT,
    MAX_FIELD,
    MAX_MESSAGE,
    SEND_QUEUE,
    SHAPES,
    Conn,
    Hub,
    parse,
)
from domeng.web.store import PURGE_EVERY, TableStore
from domeng.web.table import DEFAULT_STAND_IN, SEAT_KINDS, WebError
from domeng.web.words import pick, words_message

__all__ = [
    "DEFAULT_DELAY",
    "DEFAULT_IDLE",
    "DEFAULT_MAX_TABLES",
    "DEFAULT_STAND_IN",
    "DEFAULT_TURN_TIMEOUT",
    "EXPORT_BURST",
    "EXPORT_EVERY",
    "HEADERS",
    "HELLO_TIMEOUT",
    "MAX_FIELD",
    "MAX_MESSAGE",
    "SEND_QUEUE",
    "SHAPES",
    "Conn",
    "Hub",
    "create_app",
    "parse",
    "serve",
    "server_config",
]

STATIC = Path(__file__).resolve().parent / "static"

#: the largest table-creation request (bytes)
MAX_REQUEST = 8192
#: seconds a creation request has to send its body
BODY_TIMEOUT = 10.0
#: seconds uvicorn keeps an idle kept-alive HTTP connection
KEEP_ALIVE = 5

HEADERS = {
    "Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'self'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


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
    store: TableStore | None = None,
    turn_timeout: float = DEFAULT_TURN_TIMEOUT,
    stand_in: str = DEFAULT_STAND_IN,
) -> Starlette:
    """The Starlette app; ``app.state.hub`` is its :class:`Hub`.  ``hosts``:
    the ``Host`` names it answers to (:class:`~domeng.web.guard.Hosts`;
    None: any, for tests and embedding; ``serve`` always gives them).
    ``store``: where the tables are saved (:mod:`domeng.web.store`; None:
    in memory only; ``serve`` always gives one).  ``turn_timeout``: seconds
    a person away may have the turn before ``stand_in`` plays for them (0:
    never)."""
    hub = Hub(
        delay=delay,
        idle=idle,
        max_tables=max_tables,
        store=store,
        turn_timeout=turn_timeout,
        stand_in=stand_in,
    )
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
        except WebError as e:  # item: the page writes it in its language
            return JSONResponse({"error": str(e), "item": e.item}, 400)

    async def players(request: Request) -> Response:
        about = catalogue.describe("browser", plugins=False)
        return JSONResponse({"seats": list(SEAT_KINDS), "about": about, "rules": Rules().to_dict()})

    async def words(request: Request) -> Response:
        # the page's strings in one language (domeng.web.words), and the glossary
        return JSONResponse(words_message(pick(request.query_params.get("lang"))))

    async def stander() -> None:  # the stand-in plays for the friends away too long
        while hub.turn_timeout > 0:
            await asyncio.sleep(max(0.05, min(hub.turn_timeout / 4, 1.0)))
            hub.stand_ins()

    async def reaper() -> None:
        purged = time.monotonic()
        while True:
            await asyncio.sleep(max(0.05, min(hub.idle / 4, 10.0)))
            hub.reap()
            if time.monotonic() - purged >= PURGE_EVERY:
                purged = time.monotonic()
                hub.purge()

    @contextlib.asynccontextmanager
    async def lifespan(app):
        hub.bind(asyncio.get_running_loop())
        hub.purge()  # the tables kept past --keep-days go at the start
        task = asyncio.create_task(reaper())
        standing = asyncio.create_task(stander())
        try:
            yield
        finally:
            task.cancel()
            standing.cancel()
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
    sock: socket.socket | None = None,
    per_address: int = DEFAULT_PER_ADDRESS,
    allow_hosts: Sequence[str] = (),
    store: TableStore | None = None,
    tls: tuple[str, str] | None = None,
    **tables: Any,
) -> None:
    """Run the server until interrupted.  ``tables``: :func:`create_app`'s
    options of the tables (``delay``, ``idle``, ``max_tables``,
    ``turn_timeout``, ``stand_in``).  ``sock``: a socket already bound
    to ``host``:``port`` (``domeng serve`` binds first, so it can say the
    real port of ``--port 0``); it is then served instead of binding again.
    ``allow_hosts``: more ``Host`` names it answers to (a reverse proxy's).
    ``store``: the saved tables (:class:`~domeng.web.store.TableStore`,
    opened by the caller, who closes it).  ``tls``: (certificate file, key
    file) to serve HTTPS and ``wss:`` (uvicorn's ``ssl_certfile`` and
    ``ssl_keyfile``); None: plain HTTP."""
    import uvicorn

    app = create_app(**tables, hosts=Hosts.of(host, port, allow_hosts), store=store)
    kw = {} if tls is None else {"ssl_certfile": tls[0], "ssl_keyfile": tls[1]}
    server = uvicorn.Server(server_config(app, host, port, per_address, **kw))
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=None if sock is None else [sock])
    if not server.started:
        raise DomengError(
            f"the browser table could not start on {host}:{port} (uvicorn said why above)"
        )
