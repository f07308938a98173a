"""Saved browser tables: every table's game in one SQLite database (issue 22).

``domeng serve --data DIR`` keeps ``DIR/tables.sqlite3`` (the folder
created mode 0700, the file 0600: it holds every game's seed, so every
hand, and the hashes of the links).  What is stored is what the game is
made of, never what it looks like:

* a row per table: the session's save data without its actions
  (:meth:`domeng.play.session.Session.to_save`: rules, seats, seed,
  target), the version last shown to a page, and the times it was created
  and last touched (an action, or a link opened);
* a row per link: the SHA-256 hash of its token and its seat (NULL: the
  spectators' link); a token itself is never stored;
* a row per step of the action log: a deal (NULL) or an action, in order.

A table comes back (:meth:`TableStore.load`, then
:meth:`domeng.web.table.Table.restore`) by replaying its log through the
engine from the seed, every action checked legal and every computer move
checked to be the one its player makes (:meth:`Session.from_save`): nothing
derived is trusted.  The version is stored only so that a page's message
from before a restart is refused as out of date.

Every change of a table is one small transaction, committed before any
page is told of it.  The database runs in WAL mode with ``synchronous =
NORMAL``: a commit is in the operating system's hands at once (a ``kill
-9`` of the server loses nothing) and is flushed to the disk at each WAL
checkpoint, so a power cut may lose the last moments of play but never
damages the database.  Measured on the development VM: a commit of one
action (one INSERT and one UPDATE) takes about 20-30 microseconds (median;
the 99th percentile about 100), so the writes stay on the event loop;
``benchmarks/bench_web.py`` runs with the store.

A table nobody has played at or opened for ``keep_days`` days, finished or
not, is deleted (:meth:`TableStore.purge`: when the server starts and every
:data:`PURGE_EVERY` seconds).  A file that is not such a database (another
SQLite database, a damaged one, one of another format version, or no
database at all) is refused in one line when the server starts.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from domeng.core.errors import EnvironmentFailure, FolderBusyError, StoreError
from domeng.infra import jsontext
from domeng.infra.fs import FolderLock, data_home

if TYPE_CHECKING:
    from domeng.web.table import Table

FORMAT = "domeng-tables"
VERSION = 1
FILE = "tables.sqlite3"
DEFAULT_KEEP_DAYS = 7.0
#: seconds between two deletions of the tables kept past ``keep_days``
PURGE_EVERY = 3600.0
DAY = 86400.0

_SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE tables (id TEXT PRIMARY KEY, game TEXT NOT NULL, "
    "version INTEGER NOT NULL, created REAL NOT NULL, touched REAL NOT NULL)",
    "CREATE TABLE tokens (hash TEXT PRIMARY KEY, table_id TEXT NOT NULL, seat INTEGER)",
    "CREATE INDEX tokens_table ON tokens (table_id)",
    "CREATE TABLE log (table_id TEXT NOT NULL, seq INTEGER NOT NULL, action INTEGER, "
    "PRIMARY KEY (table_id, seq)) WITHOUT ROWID",
)


def default_folder() -> Path:
    """``$XDG_DATA_HOME/domeng/tables`` (else ``~/.local/share/domeng/tables``).

    >>> default_folder().parts[-2:]
    ('domeng', 'tables')
    """
    return data_home() / "tables"


def log_items(actions: list[list[int]]) -> list[int | None]:
    """A session's actions (one list per round) as the stored log: each
    round's deal (None), then its actions.

    >>> log_items([[3, 8], []])
    [None, 3, 8, None]
    """
    out: list[int | None] = []
    for r in actions:
        out.append(None)
        out.extend(int(a) for a in r)
    return out


def new_items(actions: list[list[int]], done: tuple[int, int]) -> list[int | None]:
    """The log items of ``actions`` after the first ``done`` = (rounds
    dealt, actions of the last of them) stored: only the new ones are
    walked, so a long game costs no more per move than a short one.

    >>> new_items([[3, 8], [5]], (1, 1))
    [8, None, 5]
    """
    rounds, k = done
    out: list[int | None] = []
    if rounds:
        out.extend(int(a) for a in actions[rounds - 1][k:])
    for r in actions[rounds:]:
        out.append(None)
        out.extend(int(a) for a in r)
    return out


def position(actions: list[list[int]]) -> tuple[int, int]:
    """Where the log of ``actions`` ends: (rounds dealt, actions of the last).

    >>> position([[3, 8], [5]])
    (2, 1)
    """
    return len(actions), len(actions[-1]) if actions else 0


def actions_of(items: list[int | None]) -> list[list[int]]:
    """:func:`log_items` undone (ValueError for a log that does not start
    with a deal).

    >>> actions_of([None, 3, 8, None])
    [[3, 8], []]
    """
    rounds: list[list[int]] = []
    for a in items:
        if a is None:
            rounds.append([])
        elif not rounds:
            raise ValueError("the log does not start with a deal")
        else:
            rounds[-1].append(int(a))
    return rounds


@dataclass
class Saved:
    """A stored table, read back: its save data (with its actions), its
    links (token hash -> seat, None for the spectators) and the version a
    page last saw."""

    table_id: str
    game: dict[str, Any]
    tokens: dict[str, int | None]
    version: int


class TableStore:
    """The saved tables of one server (see the module's text).

    Parameters
    ----------
    folder:
        The ``--data`` folder (created, mode 0700, when missing).
    keep_days:
        Days a table nobody played at or opened is kept.
    clock:
        Wall-clock seconds (``time.time``; tests give another).

    Raises
    ------
    StoreError
        For a folder that is a file, a database file that is not one of
        these (or is damaged), or one that another server uses.

    Examples
    --------
    >>> import tempfile
    >>> store = TableStore(tempfile.mkdtemp())
    >>> store.count()
    0
    >>> store.close()
    """

    def __init__(
        self,
        folder: str | os.PathLike,
        keep_days: float = DEFAULT_KEEP_DAYS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.folder = Path(folder)
        self.path = self.folder / FILE
        self.keep_days = float(keep_days)
        self.clock = clock
        self._mutex = threading.Lock()  # one transaction at a time, whatever thread asks
        #: table -> (log rows stored, where they end: see :func:`position`, the
        #: game number they are of), for the tables served now (the next
        #: write adds only what is new; Play again starts the log again)
        self._stored: dict[str, tuple[int, tuple[int, int], int]] = {}
        #: each table's links as last written (the host may replace one)
        self._tokens: dict[str, list[tuple[str, int | None]]] = {}
        #: each table's game data as last written (a rename writes it again)
        self._games: dict[str, str] = {}
        self._make_folder()
        self._lock = FolderLock(self.folder)
        try:
            self._lock.acquire()
        except FolderBusyError:
            raise StoreError(
                f"another domeng serve uses {str(self.folder)!r} (--data): stop it, "
                "or give this one another --data folder"
            ) from None
        try:
            self.db = self._open()
        except BaseException:
            self._lock.release()
            raise

    # ------------------------------------------------------------ opening
    def _make_folder(self) -> None:
        f = self.folder
        try:
            if f.exists() and not f.is_dir():
                raise StoreError(f"--data {str(f)!r} is not a folder")
            f.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as e:
            raise EnvironmentFailure(
                f"cannot use the --data folder {str(f)!r}: {e.strerror or e}"
            ) from None

    def _open(self) -> sqlite3.Connection:
        p = self.path
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            st = None
        except OSError as e:
            raise EnvironmentFailure(f"cannot read {str(p)!r}: {e.strerror or e}") from None
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise StoreError(f"{str(p)!r} is not a domeng tables database (not a plain file)")
        try:
            if st is None:  # created 0600 before SQLite sees it (its -wal and -shm follow)
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                os.close(os.open(p, flags, 0o600))
            elif stat.S_IMODE(st.st_mode) & 0o077:
                os.chmod(p, 0o600)
        except OSError as e:
            raise EnvironmentFailure(f"cannot create {str(p)!r}: {e.strerror or e}") from None
        db = sqlite3.connect(p, isolation_level=None, check_same_thread=False, timeout=5.0)
        try:
            self._check(db)
        except sqlite3.Error as e:
            db.close()
            why = " ".join(str(e).split())[:200] or type(e).__name__
            raise StoreError(
                f"{str(p)!r} is not a domeng tables database, or it is damaged ({why}); "
                "move it away to start with no saved tables"
            ) from None
        except BaseException:
            db.close()
            raise
        return db

    def _check(self, db: sqlite3.Connection) -> None:
        ok = db.execute("PRAGMA quick_check").fetchone()
        if not ok or ok[0] != "ok":
            raise sqlite3.DatabaseError(f"quick_check: {str(ok and ok[0])[:100]}")
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not names:  # a new (or empty) file
            db.execute("BEGIN IMMEDIATE")
            for sql in _SCHEMA:
                db.execute(sql)
            db.executemany(
                "INSERT INTO meta VALUES (?, ?)", [("format", FORMAT), ("version", str(VERSION))]
            )
            db.execute("COMMIT")
        elif not {"meta", "tables", "tokens", "log"} <= names:
            raise StoreError(
                f"{str(self.path)!r} is an SQLite database of something else, not of "
                "domeng's tables; give --data another folder"
            )
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("format") != FORMAT:
            raise StoreError(f"{str(self.path)!r} is not a domeng tables database")
        if meta.get("version") != str(VERSION):
            raise StoreError(
                f"{str(self.path)!r} holds tables of format version "
                f"{str(meta.get('version'))[:20]}; this domeng reads version {VERSION}"
            )
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(f"{str(self.path)!r}: SQLite cannot use WAL mode there ({mode})")
        db.execute("PRAGMA synchronous = NORMAL")

    def close(self) -> None:
        """Close the database and free the folder for another server."""
        with self._mutex:
            self.db.close()
        self._lock.release()

    # ------------------------------------------------------------ writing
    def _write(self, statements: list[tuple[str, Any]]) -> None:
        with self._mutex:
            db = self.db
            db.execute("BEGIN IMMEDIATE")
            try:
                for sql, args in statements:
                    if isinstance(args, list):
                        db.executemany(sql, args)
                    else:
                        db.execute(sql, args)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def add(self, table: Table) -> None:
        """Store a new table: its game, its links and its log so far."""
        game = {k: v for k, v in table.to_save().items() if k != "actions"}
        items = log_items(table.session.actions)
        now = self.clock()
        self._write(
            [
                (
                    "INSERT INTO tables VALUES (?, ?, ?, ?, ?)",
                    (table.id, json.dumps(game), table.version, now, now),
                ),
                (
                    "INSERT INTO tokens VALUES (?, ?, ?)",
                    [(h, table.id, s) for h, s in table.tokens.items()],
                ),
                (
                    "INSERT INTO log VALUES (?, ?, ?)",
                    [(table.id, i, a) for i, a in enumerate(items)],
                ),
            ]
        )
        self._stored[table.id] = (len(items), position(table.session.actions), table.games)
        self._games[table.id] = json.dumps(game)
        self._tokens[table.id] = sorted(table.tokens.items(), key=str)

    def save(self, table: Table) -> None:
        """Store what changed at ``table`` since the last write: the new
        steps of its log and its version (one transaction).  The table must
        have been stored by :meth:`add` or read by :meth:`load`."""
        actions = table.session.actions
        n, done, games = self._stored[table.id]
        statements: list[tuple[str, Any]] = []
        if games != table.games:  # Play again: the new game's log replaces the last one's
            statements.append(("DELETE FROM log WHERE table_id = ?", (table.id,)))
            n, done = 0, (0, 0)
        new = new_items(actions, done)
        statements += [
            (
                "INSERT INTO log VALUES (?, ?, ?)",
                [(table.id, n + i, a) for i, a in enumerate(new)],
            ),
            (
                "UPDATE tables SET version = ?, touched = ? WHERE id = ?",
                (table.version, self.clock(), table.id),
            ),
        ]
        game = json.dumps({k: v for k, v in table.to_save().items() if k != "actions"})
        if game != self._games.get(table.id):  # the game's own data changed (a seat's name)
            statements.append(("UPDATE tables SET game = ? WHERE id = ?", (game, table.id)))
        tokens = sorted(table.tokens.items(), key=str)
        if tokens != self._tokens.get(table.id):  # a seat given to another: its old link goes
            statements.append(("DELETE FROM tokens WHERE table_id = ?", (table.id,)))
            statements.append(
                ("INSERT INTO tokens VALUES (?, ?, ?)", [(h, table.id, s) for h, s in tokens])
            )
        self._write(statements)
        self._games[table.id] = game
        self._tokens[table.id] = tokens
        self._stored[table.id] = (n + len(new), position(actions), table.games)

    def touch(self, table_id: str) -> None:
        """A link of the table was opened: it is kept ``keep_days`` from now."""
        self._write([("UPDATE tables SET touched = ? WHERE id = ?", (self.clock(), table_id))])

    def forget(self, table_id: str) -> None:
        """The table left memory (its rows stay)."""
        self._stored.pop(table_id, None)
        self._games.pop(table_id, None)
        self._tokens.pop(table_id, None)

    def delete(self, table_id: str) -> None:
        """Delete a table (the host ended it): its links stop working."""
        ids = [(table_id,)]
        self._write(
            [
                ("DELETE FROM log WHERE table_id = ?", ids),
                ("DELETE FROM tokens WHERE table_id = ?", ids),
                ("DELETE FROM tables WHERE id = ?", ids),
            ]
        )
        self.forget(table_id)

    def purge(self, now: float | None = None) -> list[str]:
        """Delete the tables nobody played at or opened for ``keep_days``
        days; returns their ids."""
        now = self.clock() if now is None else now
        with self._mutex:
            old = [
                r[0]
                for r in self.db.execute(
                    "SELECT id FROM tables WHERE touched < ?", (now - self.keep_days * DAY,)
                )
            ]
        if old:
            ids = [(t,) for t in old]
            self._write(
                [
                    ("DELETE FROM log WHERE table_id = ?", ids),
                    ("DELETE FROM tokens WHERE table_id = ?", ids),
                    ("DELETE FROM tables WHERE id = ?", ids),
                ]
            )
            for t in old:
                self.forget(t)
        return old

    # ------------------------------------------------------------ reading
    def count(self) -> int:
        """The number of tables stored."""
        with self._mutex:
            return int(self.db.execute("SELECT COUNT(*) FROM tables").fetchone()[0])

    def find(self, hash_: str) -> tuple[str, int | None] | None:
        """(table id, seat) of a token's hash; None when no stored table has it."""
        with self._mutex:
            row = self.db.execute(
                "SELECT table_id, seat FROM tokens WHERE hash = ?", (hash_,)
            ).fetchone()
        return None if row is None else (str(row[0]), row[1])

    def load(self, table_id: str) -> Saved | None:
        """A stored table's rows, read (None if there is no such table).
        :class:`StoreError` for rows that are not a table's."""
        with self._mutex:
            db = self.db
            row = db.execute(
                "SELECT game, version FROM tables WHERE id = ?", (table_id,)
            ).fetchone()
            if row is None:
                return None
            tokens = db.execute("SELECT hash, seat FROM tokens WHERE table_id = ?", (table_id,))
            links = {str(h): s for h, s in tokens}
            log = db.execute(
                "SELECT seq, action FROM log WHERE table_id = ? ORDER BY seq", (table_id,)
            ).fetchall()
        try:
            game = jsontext.loads(row[0])
            if not isinstance(game, dict):
                raise ValueError("its game is not an object")
            if [s for s, _ in log] != list(range(len(log))):
                raise ValueError("its log has gaps")
            actions = actions_of([a for _, a in log])
            game["actions"] = actions
            own = game.get("table") or {}
            games = own.get("games", 1) if isinstance(own, dict) else 1
        except (ValueError, TypeError, RecursionError, AttributeError) as e:
            raise StoreError(f"the saved table {table_id} is damaged: {e}") from None
        self._stored[table_id] = (len(log), position(actions), games)
        self._games[table_id] = str(row[0])
        self._tokens[table_id] = sorted(links.items(), key=str)
        return Saved(table_id, game, links, int(row[1]))
