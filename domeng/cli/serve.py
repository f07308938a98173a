"""``domeng serve``: the browser table (:mod:`domeng.web.server`, docs/web.md)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from domeng.cli.args import UsageError

if TYPE_CHECKING:
    import socket


def _seconds(lo: float, hi: float):
    def conv(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            v = float("nan")
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(
                f"must be a number of seconds {lo:g}..{hi:g}, got {text!r}"
            )
        return v

    return conv


def _days(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not 0 < v <= 3650:
        raise argparse.ArgumentTypeError(f"must be a number of days 0..3650 (not 0), got {text!r}")
    return v


def _port(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number 0..65535, got {text!r}")
    return int(text)


def _bind(host: str, port: int, shown: str) -> socket.socket:
    """The socket the server will listen on, bound and listening now (IPv6
    when the host has a colon, SO_REUSEADDR as uvicorn does), so that the
    address announced is the real one (``--port 0``: the free port the
    system chose); an address it cannot be bound to (a port in use, a host
    that is not this machine's) is refused in one line before anything is
    announced."""
    import socket  # here: not imported by every command's --help

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((host, port))
        s.listen(2048)  # as uvicorn: a browser opening the address at once waits, not refused
    except OSError as e:
        s.close()
        why = e.strerror or " ".join(str(e).split())
        raise UsageError(
            f"domeng serve: error: cannot listen on {shown}:{port}: {why} (see --host and --port)"
        ) from None
    return s


def _tls(certfile: str | None, keyfile: str | None) -> tuple[str, str] | None:
    """The TLS certificate and key to serve with (None: plain HTTP), checked
    now: both given, readable, PEM, the key not encrypted (it would be asked
    for on the terminal) and the certificate's own.  One line otherwise."""
    if certfile is None and keyfile is None:
        return None
    if not certfile or not keyfile:
        raise UsageError("domeng serve: error: --certfile and --keyfile go together (give both)")
    import ssl

    try:
        with open(keyfile, "rb") as f:
            encrypted = b"ENCRYPTED" in f.read(1 << 20)
    except OSError as e:
        raise UsageError(
            f"domeng serve: error: cannot read --keyfile {keyfile!r}: {e.strerror or e}"
        ) from None
    if encrypted:
        raise UsageError(
            f"domeng serve: error: --keyfile {keyfile!r} is encrypted; give a key "
            "without a passphrase (readable by you only)"
        )
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        ctx.load_cert_chain(certfile, keyfile, password=lambda: b"")
    except (OSError, ssl.SSLError) as e:
        why = getattr(e, "strerror", None) or getattr(e, "reason", None) or str(e)
        raise UsageError(
            f"domeng serve: error: cannot serve TLS with --certfile {certfile!r} and "
            f"--keyfile {keyfile!r}: {' '.join(str(why).split())[:160]} (PEM files, "
            "the key the certificate's own)"
        ) from None
    return certfile, keyfile


def _host_name(text: str) -> bool:
    """A DNS name (letters, digits, ``-`` and ``.``), at most 253 characters."""
    t = text.strip()
    return 0 < len(t) <= 253 and t.isascii() and all(c.isalnum() or c in "-." for c in t)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="serve a browser table for people and computer players",
        description="Start the browser table: open the address it prints, "
        "create a table (each seat a person or a computer player) "
        "and send each friend the link of a seat.  Binds 127.0.0.1 "
        "(this machine only) unless --host says otherwise; see "
        "docs/web.md before opening it to a network.",
    )
    p.set_defaults(func=run)
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; "
        "0.0.0.0 opens it to your network)",
    )
    p.add_argument("--port", type=_port, default=8000, help="port (default 8000; 0: any free)")
    p.add_argument(
        "--delay",
        type=_seconds(0, 30),
        default=0.8,
        metavar="SECONDS",
        help="pause of a computer player before each move (default 0.8)",
    )
    p.add_argument(
        "--idle",
        type=_seconds(1, 7 * 24 * 3600),
        default=900,
        metavar="SECONDS",
        help="a table no person has been at for this long leaves memory "
        "(default 900); it is saved, and comes back when one of its links is opened",
    )
    p.add_argument(
        "--data",
        metavar="DIR",
        default=None,
        help="the folder of the saved tables (default $XDG_DATA_HOME/domeng/tables, "
        "else ~/.local/share/domeng/tables; created mode 0700).  Every table is "
        "saved there after every move and comes back after a restart",
    )
    p.add_argument(
        "--keep-days",
        type=_days,
        default=7.0,
        metavar="DAYS",
        help="delete a saved table nobody has played at or opened for this many "
        "days, finished or not (default 7)",
    )
    p.add_argument(
        "--max-per-address",
        type=int,
        default=32,
        metavar="N",
        help="connections at once from one address (default 32; behind a "
        "reverse proxy every friend comes from its address: raise it)",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a further host name the server answers to (the name a reverse "
        "proxy forwards; may be repeated).  Otherwise only its own address: "
        "a page elsewhere using DNS rebinding is refused",
    )
    p.add_argument(
        "--certfile",
        metavar="FILE",
        help="serve HTTPS (and wss:) with this TLS certificate (PEM, with its chain); "
        "needs --keyfile.  See docs/web.md: hosting for friends elsewhere",
    )
    p.add_argument(
        "--keyfile",
        metavar="FILE",
        help="the private key of --certfile (PEM, without a passphrase)",
    )
    p.add_argument(
        "--turn-timeout",
        type=_seconds(0, 24 * 3600),
        default=60,
        metavar="SECONDS",
        help="when a person who is away (no page open) has had the turn this long, "
        "the stand-in plays for them until they come back (default 60; 0: never)",
    )
    p.add_argument(
        "--stand-in",
        default="expert",
        metavar="NAME",
        help="the computer player that plays for a person away (default expert; "
        "any computer player a browser table seats)",
    )
    p.add_argument(
        "--max-tables",
        type=int,
        default=200,
        metavar="N",
        help="refuse new tables beyond N at once (default 200)",
    )


def run(args: argparse.Namespace) -> int:
    """``domeng serve``: runs until Ctrl-C; returns the exit status."""
    try:
        from domeng.web.server import serve
    except ImportError as e:
        raise UsageError(
            "domeng serve: error: the web extra is not installed "
            f"({e.name}); pip install 'domeng[web]' (in a checkout: make serve installs it)"
        ) from None
    if args.max_tables < 1:
        raise UsageError("domeng serve: error: --max-tables must be at least 1")
    if args.max_per_address < 2:
        raise UsageError("domeng serve: error: --max-per-address must be at least 2")
    bad = [h for h in args.allow_host if not _host_name(h)]
    if bad:
        raise UsageError(f"domeng serve: error: --allow-host {bad[0][:60]!r} is not a host name")
    from domeng.core.errors import PlayerError
    from domeng.play.seats import check_stand_in
    from domeng.web.store import TableStore, default_folder

    try:
        stand_in = check_stand_in(args.stand_in)
    except PlayerError as e:
        raise UsageError(f"domeng serve: error: --stand-in: {e}") from None

    tls = _tls(args.certfile, args.keyfile)
    scheme = "https" if tls else "http"
    shown = f"[{args.host}]" if ":" in args.host else args.host
    # the saved tables first: a database that cannot be used is refused in one line
    store = TableStore(args.data or default_folder(), keep_days=args.keep_days)
    try:
        with _bind(args.host, args.port, shown) as sock:
            port = sock.getsockname()[1]
            print(
                f"domeng: the table is at {scheme}://{shown}:{port}/  (Ctrl-C stops it)", flush=True
            )
            print(f"domeng: tables are saved in {store.folder} ({store.count()} kept)", flush=True)
            serve(
                args.host,
                port,
                delay=args.delay,
                idle=args.idle,
                max_tables=args.max_tables,
                turn_timeout=args.turn_timeout,
                stand_in=stand_in,
                sock=sock,
                per_address=args.max_per_address,
                allow_hosts=args.allow_host,
                store=store,
                tls=tls,
            )
    finally:
        store.close()
    return 0
