"""The browser table's connection guard (issue 22, H3 and H4).

:class:`Guard` is the HTTP protocol uvicorn runs (h11, its own limits on a
request's head) with what uvicorn leaves out:

* a request's head must arrive within :data:`HEAD_TIMEOUT` seconds of the
  connection (or of the previous response, on a kept-alive connection): a
  client that connects and says nothing, or sends its headers a byte at a
  time, is cut off;
* at most ``per_address`` connections at once from one client address (a
  websocket counts until it closes); the next one gets a 503 and is closed;
* every open connection is known by its client ``(host, port)``, so that
  the server can cut off a websocket whose client stopped reading (its
  transport aborted: a close frame could never be delivered).

:class:`Hosts` is the check of a request's ``Host`` and ``Origin`` headers:
the ``Host`` must be this server's own address (an IP literal, ``localhost``
on a loopback address, or a name given with ``--allow-host``), so that a
DNS-rebinding page (``Host: evil.example``) is refused; an ``Origin``, when
present, must be the same origin as that ``Host`` (a page of another site).
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: seconds a client has to send a request's whole head
HEAD_TIMEOUT = 10.0
#: the largest request head (bytes; h11's limit)
MAX_HEAD = 8192
#: connections at once from one client address
DEFAULT_PER_ADDRESS = 32

_BUSY_BODY = b"too many connections from your address\n"
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    + f"content-length: {len(_BUSY_BODY)}\r\nconnection: close\r\n\r\n".encode()
    + _BUSY_BODY
)


class Registry:
    """The open connections of one server, by client address."""

    def __init__(self, per_address: int = DEFAULT_PER_ADDRESS, head_timeout: float = HEAD_TIMEOUT):
        self.per_address = int(per_address)
        self.head_timeout = float(head_timeout)
        self.live: dict[str, set[object]] = {}
        self.transports: dict[tuple, asyncio.Transport] = {}
        self.refused = 0  # connections refused over the cap
        self.timed_out = 0  # connections cut off for a slow or missing head

    def admit(self, proto, client: tuple | None, transport) -> bool:
        host = client[0] if client else ""
        conns = self.live.setdefault(host, set())
        if len(conns) >= self.per_address:
            self.refused += 1
            return False
        conns.add(proto)
        if client:
            self.transports[tuple(client)] = transport
        return True

    def release(self, proto, client: tuple | None) -> None:
        host = client[0] if client else ""
        conns = self.live.get(host)
        if conns is not None:
            conns.discard(proto)
            if not conns:
                del self.live[host]
        if client:
            self.transports.pop(tuple(client), None)

    def abort(self, client: Iterable | None) -> bool:
        """Cut off the connection of ``client`` at once; False if unknown."""
        tr = self.transports.get(tuple(client)) if client else None
        if tr is None:
            return False
        tr.abort()
        return True

    def count(self, host: str) -> int:
        return len(self.live.get(host, ()))


def protocol_for(registry: Registry) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol under ``registry``'s limits (``Config(http=...)``)."""

    class Guard(H11Protocol):
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._released = False
            self._head_timer: asyncio.TimerHandle | None = None
            if not registry.admit(self, self.client, transport):
                self._released = True
                transport.write(_BUSY)
                transport.close()
                return
            self._arm()

        def _arm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
            self._head_timer = self.loop.call_later(registry.head_timeout, self._head_late)

        def _head_late(self) -> None:
            self._head_timer = None
            if self.transport.is_closing() or self.transport.get_protocol() is not self:
                return
            st = self.conn.their_state
            if st is h11.IDLE or (st is h11.DONE and self.conn.our_state is h11.DONE):
                registry.timed_out += 1  # no request's head in time (or none at all)
                self.transport.abort()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request's head has the same time

        def handle_websocket_upgrade(self, event) -> None:
            super().handle_websocket_upgrade(event)
            ws = self.transport.get_protocol()
            lost = ws.connection_lost

            def connection_lost(exc, _lost=lost) -> None:
                self._release()
                _lost(exc)

            ws.connection_lost = connection_lost  # type: ignore[method-assign]  # the websocket keeps its place

        def _release(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            if not self._released:
                self._released = True
                registry.release(self, self.client)

        def connection_lost(self, exc) -> None:
            self._release()
            super().connection_lost(exc)

    return Guard


_LOOPBACK = ("127.0.0.1", "::1", "localhost")


def _split_host(value: str) -> tuple[str, int | None] | None:
    """``"name:port"`` / ``"[v6]:port"`` / ``"name"`` -> (lower-case name, port)."""
    value = value.strip().lower()
    if not value or len(value) > 300:
        return None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1 :]
        if rest and not rest.startswith(":"):
            return None
        port = rest[1:] if rest else None
    else:
        name, _, port = value.partition(":") if value.count(":") == 1 else (value, "", None)
        port = port if port else None
    if port is not None and not (port.isascii() and port.isdigit() and int(port) < 65536):
        return None
    return name, (int(port) if port is not None else None)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Hosts:
    """The ``Host`` names this server answers to (see the module's text)."""

    port: int | None
    names: frozenset[str] = frozenset()  # this server's own names, on its port
    any_ip: bool = False  # a wildcard bind: any IP literal, on its port
    extra: frozenset[str] = field(default_factory=frozenset)  # --allow-host: any port

    @classmethod
    def of(cls, host: str, port: int, allow: Iterable[str] = ()) -> Hosts:
        """The names of a server bound to ``host``:``port``."""
        h = host.strip().strip("[]").lower()
        wild = h in ("", "0.0.0.0", "::")
        names = set() if wild else {h}
        if wild or h in _LOOPBACK:
            names.add("localhost")
        extra = frozenset(a.strip().lower() for a in allow if a.strip())
        return cls(port, frozenset(names), wild, extra)

    def host_ok(self, value: str | None) -> bool:
        hp = _split_host(value or "")
        if hp is None:
            return False
        name, port = hp
        if name in self.extra:
            return True
        if port != self.port and not (port is None and self.port in (80, 443)):
            return False
        return name in self.names or (self.any_ip and _is_ip(name))


def refusal(headers, hosts: Hosts | None) -> str | None:
    """Why a request with these headers is refused (None: it is not): a
    ``Host`` that is not this server's (when ``hosts`` is given), or an
    ``Origin`` that is not the ``Host``'s own."""
    host = headers.get("host")
    if hosts is not None and not hosts.host_ok(host):
        return "this server does not answer to that host name"
    origin = headers.get("origin")
    if origin is not None:
        scheme, sep, rest = origin.strip().lower().partition("://")
        if not sep or scheme not in ("http", "https") or rest != (host or "").strip().lower():
            return "requests from another site are refused"
    return None
