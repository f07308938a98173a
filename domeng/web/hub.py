"""The tables of one browser-table server and their connections (:class:`Hub`).

The server is the only authority.  A page holds a token (in the link's
``#`` fragment, so it never reaches a server log or a ``Referer``); it
opens ``/ws`` and says ``{"type": "hello", "token": ...}``; from then on it
gets ``state`` messages (:meth:`domeng.web.table.Table.view`: that seat's D17
view) and sends ``play`` / ``pass`` / ``next_round`` quoting the state's
``version``, or ``export``.  Anything else is refused with an ``error``
message the page shows, and the table is left as it was.

Computer players move from one task per table, pausing ``delay`` seconds
per move; a table with no person connected for ``idle`` seconds leaves
memory.  With a :class:`~domeng.web.store.TableStore` (``domeng serve``
always has one: ``--data``) every change of a table is stored before any
page is told of it, and a table that left memory (or was served by a server
that stopped, even by ``kill -9``) comes back when one of its links is
opened; without one (tests, embedding) a table that leaves memory is closed
and its links expire.

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
import sqlite3
import threading
import time
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from domeng.core.errors import DomengError, StoreError
from domeng.infra import jsontext
from domeng.play.session import HUMAN, check_seat
from domeng.play.warmup import warm_up
from domeng.web.guard import Hosts, refusal
from domeng.web.store import TableStore
from domeng.web.table import DEFAULT_STAND_IN, Table, TableSpec, WebError, token_hash
from domeng.web.words import error_text, refuse

#: the largest message a page may send (bytes); anything larger is refused
MAX_MESSAGE = 2048
#: seconds a new connection has to say hello
HELLO_TIMEOUT = 10.0
DEFAULT_DELAY = 0.8
DEFAULT_IDLE = 900.0
DEFAULT_MAX_TABLES = 200
#: seconds a person away may have the turn before the stand-in plays (0: never)
DEFAULT_TURN_TIMEOUT = 60.0
#: tables a store keeps at most, per table served at once (``--max-tables``)
STORED_PER_TABLE = 50
#: messages a connection may fall behind by before it is cut off (H1)
SEND_QUEUE = 64
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
    "play_again": {"version": int},
    # the host's (the link the table was created with): refused for any other link
    "host_links": {},
    "host_rename": {"seat": int, "name": str},
    "host_seat": {"seat": int, "kind": str},
    "host_end": {},
}
#: the messages only the host's link may send
HOST_ONLY = ("host_links", "host_rename", "host_seat", "host_end")
log = logging.getLogger("domeng.web")


class Conn:
    """One page's websocket: its seat, its bounded send queue (sent by its
    own task, so that nobody waits for a slow reader) and its export budget."""

    def __init__(
        self, ws: WebSocket, seat: int | None, limit: int = SEND_QUEUE, host: str | None = None
    ) -> None:
        self.ws = ws
        self.seat = seat
        self.host = host  # the host's token, when the page opened the host's link
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(limit)
        self.dropped = False
        self.closing = False
        self.replaced = False  # the host gave its seat to another: it counts no more
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
        store: TableStore | None = None,
        turn_timeout: float = DEFAULT_TURN_TIMEOUT,
        stand_in: str = DEFAULT_STAND_IN,
        clock=time.monotonic,
    ) -> None:
        self.turn_timeout = float(turn_timeout)  # 0: no stand-in ever plays
        self.stand_in = stand_in  # the new tables' stand-in (a saved table keeps its own)
        self.clock = clock  # seconds (the turn timeout's; tests give another)
        self.delay = float(delay)
        self.idle = float(idle)
        self.max_tables = int(max_tables)
        self.store = store
        self.loading: dict[str, asyncio.Future] = {}  # tables being brought back
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
            raise refuse("error.full")

    def room_to_keep(self) -> None:
        """A new table must fit in the store too (a table is kept for
        ``--keep-days``, so creating tables must not fill the disk)."""
        if self.store is not None and self.store.count() >= STORED_PER_TABLE * self.max_tables:
            raise refuse("error.store_full")

    def build(self, data: Any) -> Table:
        """A checked table, not yet served.  Runs off the loop, in a worker
        thread: every compile a table needs happens here (issue 22 item 10),
        never on the loop that serves every table.  The session compiles its
        computer players (every one the catalogue allows at a browser table);
        a throwaway round at a table like it (:func:`~domeng.play.warmup.warm_up`)
        compiles the engine's steps, which the loop runs later (a person's
        move, a computer's chosen action); the first views compile the
        previews.  Touches no served table."""
        table = Table(TableSpec.parse(data), stand_in=self.stand_in)
        warm_up(table.session)  # the engine's step and the built-in players, here
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
        self.room_to_keep()
        if self.store is not None:
            try:  # stored before its links are given: a link always finds its table
                self.store.add(table)
            except (sqlite3.Error, OSError) as e:
                log.error("domeng serve: a new table could not be stored: %s", e)
                raise refuse("error.not_created") from None
        self._serve(table)
        links = {k: f"/#t={tok}" for k, tok in table.links.items()}
        humans = table.humans
        return {
            "table": table.id,
            "seats": {str(s): links[str(s)] for s in humans},
            "spectator": links["spectator"],
            "you": links["host"],  # the creator's seat's link, with the host's rights
            "host": links["host"],
        }

    def _serve(self, table: Table) -> None:
        """Put ``table`` in memory: its links known, its computers moving."""
        self.tables[table.id] = table
        self.sockets[table.id] = []
        for h, s in table.tokens.items():
            self.index[h] = (table.id, s)
        table.last_human = time.monotonic()
        table.turn_at, table.turn_since = table.session.position, self.clock()
        for seat in table.seats:
            seat.away_since = table.turn_since
        self.kick(table)

    def lookup(self, token: Any) -> tuple[Table, int | None]:
        """The table in memory of a link's token, and its seat."""
        if not isinstance(token, str) or not 10 <= len(token) <= 64:
            raise refuse("error.unknown_link")
        hit = self.index.get(token_hash(token))
        if hit is None or hit[0] not in self.tables:
            raise refuse("error.unknown_link")
        return self.tables[hit[0]], hit[1]

    async def find(self, token: Any) -> tuple[Table, int | None]:
        """The table of a link's token (brought back from the store when it
        is not in memory), and its seat; :class:`WebError` if none has it."""
        try:
            return self.lookup(token)
        except WebError:
            if self.store is None or not isinstance(token, str) or not 10 <= len(token) <= 64:
                raise
        try:
            hit = self.store.find(token_hash(token))
        except sqlite3.Error as e:
            log.error("domeng serve: the table store could not be read: %s", e)
            raise refuse("error.store_unreadable") from None
        if hit is None:
            raise refuse("error.unknown_link")
        tid, seat = hit
        task = self.loading.get(tid)
        if task is None:  # one replay, however many links are opened meanwhile
            task = asyncio.ensure_future(self._bring_back(tid))
            self.loading[tid] = task

            def done(_t: asyncio.Future, tid: str = tid) -> None:
                self.loading.pop(tid, None)

            task.add_done_callback(done)
        return await asyncio.shield(task), seat

    async def _bring_back(self, tid: str) -> Table:
        """A stored table replayed (off the loop) and served again."""
        assert self.store is not None
        self.room()
        try:
            saved = self.store.load(tid)
        except (StoreError, sqlite3.Error) as e:
            log.error("domeng serve: table %s could not be read: %s", tid, e)
            raise refuse("error.damaged") from None
        if saved is None:
            raise refuse("error.unknown_link")
        try:
            table = await asyncio.to_thread(
                Table.restore, saved.game, tid, saved.tokens, saved.version
            )
        except DomengError as e:
            log.error("domeng serve: table %s could not be replayed: %s", tid, e)
            raise refuse("error.no_replay") from None
        except Exception:  # a bug, never the link's fault: logged, one line to the page
            log.exception("domeng serve: table %s could not be brought back", tid)
            raise refuse("error.bring_back_failed") from None
        if tid in self.tables:  # pragma: no cover - one replay at a time (find)
            return self.tables[tid]
        self.room()
        self._serve(table)
        return table

    def commit(self, table: Table) -> bool:
        """Store ``table``'s change, before any page is told of it.  A change
        that cannot be stored is never shown: the table leaves memory, and
        comes back from its last stored step when a link is opened."""
        if table.session.position != table.turn_at:  # a new turn: the timeout counts from now
            table.turn_at, table.turn_since = table.session.position, self.clock()
        if self.store is None:
            return True
        try:
            self.store.save(table)
        except (sqlite3.Error, OSError) as e:
            log.error("domeng serve: table %s could not be stored: %s", table.id, e)
            self._close(table, refuse("error.not_saved"))
            return False
        return True

    def close(self, table: Table, why: WebError | None = None) -> None:
        """Close ``table`` (on the loop, H7): its driver cancelled there, its
        pages told why and closed."""
        self.on_loop(self._close, table, why or refuse("error.closed"))

    def _close(self, table: Table, why: WebError) -> None:
        table.closed = True
        self.tables.pop(table.id, None)
        for h in table.tokens:
            self.index.pop(h, None)
        task = self.drivers.pop(table.id, None)
        if task is not None:
            task.cancel()
        msg = error_text(why, fatal=True)
        for conn in self.sockets.pop(table.id, []):
            conn.finish(msg)
        self._exports = {k: v for k, v in self._exports.items() if k[0] != table.id}
        if self.store is not None:
            self.store.forget(table.id)

    def reap(self, now: float | None = None) -> list[str]:
        """Close the tables no person has been at for ``idle`` seconds (on the loop)."""
        return self.on_loop(self._reap, now)

    def _reap(self, now: float | None) -> list[str]:
        now = time.monotonic() if now is None else now
        why = refuse("error.closed_idle" if self.store is None else "error.put_away")
        gone = []
        for table in list(self.tables.values()):
            if any(table.seats[s].connections for s in table.humans):
                continue
            if now - table.last_human >= self.idle:
                self._close(table, why)
                gone.append(table.id)
        return gone

    def purge(self, now: float | None = None) -> list[str]:
        """Delete the stored tables kept past ``--keep-days`` (on the loop;
        one still in memory is closed); returns their ids."""
        return self.on_loop(self._purge, now)

    def _purge(self, now: float | None) -> list[str]:
        if self.store is None:
            return []
        try:
            gone = self.store.purge(now)
        except sqlite3.Error as e:
            log.error("domeng serve: old tables could not be deleted: %s", e)
            return []
        for tid in gone:
            table = self.tables.get(tid)
            if table is not None:
                self._close(table, refuse("error.deleted"))
        return gone

    def stand_ins(self, now: float | None = None) -> list[tuple[str, int]]:
        """Let the stand-in play for each person away (no page open) who has
        had the turn for ``turn_timeout`` seconds (on the loop; ``now``: the
        hub's clock, :attr:`clock`); returns the (table, seat) it took."""
        return self.on_loop(self._stand_ins, now)

    def _stand_ins(self, now: float | None) -> list[tuple[str, int]]:
        if self.turn_timeout <= 0:
            return []
        now = self.clock() if now is None else now
        took = []
        for table in list(self.tables.values()):
            s = table.session.to_move
            if table.closed or s is None or table.session.round_over:
                continue
            seat = table.seats[s]
            if not seat.human or seat.standin or seat.connections:
                continue
            if now - max(table.turn_since, seat.away_since) < self.turn_timeout:
                continue
            if table.stand_in_for(s, True):
                took.append((table.id, s))
                if self.commit(table):
                    self.broadcast(table)
                    self.kick(table)
        return took

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
            self.tell(table, error_text(refuse("error.computer_failed", why=str(e))))

    async def _drive_moves(self, table: Table) -> None:
        while self._work(table):
            await asyncio.sleep(self.delay)
            if not self._work(table):
                break
            if table.computer_to_move:
                key = table.turn_key()
                # every decision (and a first compile) in a worker thread (H6):
                # the loop serves the other tables meanwhile
                action = await asyncio.to_thread(table.computer_action)
                if table.closed:
                    break
                if not table.computer_play(action, key):
                    continue  # the table moved on (a person came back): decided again
                self.moves += 1
            else:
                table.start_round()
            if not self.commit(table):  # stored before anyone is told
                break
            self.broadcast(table)

    # ------------------------------------------------------------ messages
    def broadcast(self, table: Table) -> None:
        """Queue each page's view of ``table``; waits for nobody (H1)."""
        texts: dict[tuple[int | None, bool], str] = {}
        for conn in list(self.sockets.get(table.id, [])):
            key = (conn.seat, conn.host is not None)
            if key not in texts:
                texts[key] = table.view_text(*key)
            if not conn.offer(texts[key]):
                self.drop(conn, table)

    def tell(self, table: Table, text: str) -> None:
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
                raise refuse("error.hello_first")
            table, seat = await self.find(msg["token"])
            if self.store is not None:
                self.store.touch(table.id)  # a link opened: kept --keep-days from now
        except sqlite3.Error as e:
            log.error("domeng serve: the table store could not be written: %s", e)
            await _send(ws, error_text(refuse("error.store_unwritable")))
            await _close(ws)
            return
        except WebError as e:
            await _send(ws, error_text(e, fatal=True))
            await _close(ws)
            return
        conn = Conn(ws, seat, host=msg["token"] if table.is_host(msg["token"]) else None)
        conn.sender = asyncio.create_task(conn.pump())
        tid = table.id
        self.sockets[tid].append(conn)
        if seat is not None:
            table.seats[seat].connections += 1
            table.last_human = time.monotonic()
            if table.stand_in_for(seat, False):  # back: the person takes the seat at once
                self.commit(table)
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
            if seat is not None and not conn.replaced:
                table.seats[seat].connections -= 1
                table.seats[seat].away_since = self.clock()
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
                conn.finish(error_text(refuse("error.internal")))
                return

    async def handle(self, table: Table, conn: Conn, text: str | None) -> None:
        """One message from a connected page: act, or say why not."""
        seat = conn.seat
        try:
            if table.closed or conn.replaced:
                raise refuse("error.closed" if table.closed else "error.link_gone")
            msg = parse(text)
            typ = msg["type"]
            if typ == "hello":
                raise refuse("error.hello_again")
            if typ == "export":
                if not conn.may_export(time.monotonic()):
                    raise refuse("error.exports", burst=EXPORT_BURST, every=f"{EXPORT_EVERY:g}")
                if not conn.offer(self.export_text(table, seat)):
                    self.drop(conn, table)
                return
            before = table.version
            if typ in HOST_ONLY or typ == "play_again":
                await self.host_act(table, conn, msg)
                if table.closed:
                    return
            else:
                table.act(seat, msg)
            if table.version != before:
                self.moves += typ in ("play", "pass")
            if seat is not None:
                table.last_human = time.monotonic()
        except WebError as e:
            if not conn.offer(error_text(e)):
                self.drop(conn, table)
            return
        if table.version != before and not self.commit(table):
            return  # not stored: nobody is told (the table left memory)
        self.broadcast(table)
        self.kick(table)

    async def host_act(self, table: Table, conn: Conn, msg: dict[str, Any]) -> None:
        """A host's message (:data:`HOST_ONLY`), or Play again (any person
        at the table, or the host).  :class:`WebError` for any other link."""
        typ = msg["type"]
        if typ == "play_again":
            if conn.seat is None and conn.host is None:
                raise refuse("error.spectator_again")
            if msg["version"] != table.version:
                raise refuse("error.out_of_date")
            table.play_again()
            return
        token = conn.host
        if token is None:
            raise refuse("error.host_only")
        if typ == "host_links":
            if not conn.offer(json.dumps(table.host_links(token))):
                self.drop(conn, table)
        elif typ == "host_rename":
            table.rename(msg["seat"], msg["name"], host=True)
        elif typ == "host_end":
            if self.store is not None:
                self.store.delete(table.id)
            self._close(table, refuse("error.host_ended"))
        else:
            await self._replace(table, conn, token, msg["seat"], msg["kind"])

    async def _replace(self, table: Table, conn: Conn, token: str, seat: Any, kind: Any) -> None:
        """The host gives a seat to a computer player or a new person: the
        old link stops working (its pages are told, and closed)."""
        computers = None
        try:
            name = check_seat(kind, "browser")
        except DomengError as e:
            raise WebError(str(e)) from None
        if name != HUMAN:  # a computer player's first use compiles it: off the loop (H6)
            seats = [name if i == seat else k for i, k in enumerate(table.session.seats)]
            if isinstance(seat, int) and 0 <= seat < len(seats):
                computers = await asyncio.to_thread(table.session.computers_for, seats)
        if table.closed:
            return
        old, new = table.replace(seat, name, token, computers)
        if old is not None:
            self.index.pop(old, None)
        if new is not None:
            self.index[token_hash(new)] = (table.id, seat)
        why = error_text(refuse("error.seat_given"), fatal=True)
        for other in list(self.sockets.get(table.id, [])):
            if other.seat == seat and other.host is None:
                other.replaced = True
                self.sockets[table.id].remove(other)
                other.finish(why)
        if not conn.offer(json.dumps(table.host_links(token))):
            self.drop(conn, table)


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


async def _send(ws: WebSocket, text: str) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(ws.send_text(text), HELLO_TIMEOUT)


async def _close(ws: WebSocket) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(ws.close(), HELLO_TIMEOUT)
