"""Save files of ``domeng play``: signed, written atomically, read with care.

A save holds what :meth:`domeng.play.session.Session.to_save` gives (rules,
seats, seed, target, actions) plus ``"hmac"``: an HMAC-SHA256 of the rest,
keyed by a secret kept in the user's data folder
(``$XDG_DATA_HOME/domeng/save-key``, default ``~/.local/share/domeng/save-key``,
created mode 0600 at the first save).  An edited save, or one written by
another user or on another machine, does not verify: it is refused, or
loaded visibly marked as modified when the user asks (``--allow-modified``);
a modified game stays marked in every later save.

What a save reveals: no hand and no generator state is stored, but the seed
is (a load replays the deals from it), so whoever reads a save file can
recompute every hand of the game.  Keep it to yourself when people share a
table; ``domeng play`` warns when it saves a game with two or more people.

Writes are atomic: a temporary file created exclusively (unpredictable name,
no following of links) in the target's folder, fsynced, then renamed over
the target.  A save is written mode 0600 (only its owner reads it; an
existing file saved over gets that mode too), since it holds the seed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import tempfile
from pathlib import Path
from typing import Any

from domeng.core.errors import DomengError
from domeng.infra import jsontext
from domeng.infra.fs import atomic_write, data_home
from domeng.play.session import SaveFileError, Session

KEY_BYTES = 32
#: a save is a few kilobytes; anything far larger is not one
MAX_SAVE_BYTES = 8 * 1024 * 1024


def key_path() -> Path:
    """Where the save key lives (``$XDG_DATA_HOME/domeng/save-key``)."""
    return data_home() / "save-key"


def _read_key(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        raise SaveFileError(f"cannot read the save key {path}: {e.strerror or e}") from None
    with os.fdopen(fd, "rb") as f:
        raw = f.read(4 * KEY_BYTES)
    try:
        key = bytes.fromhex(raw.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        key = b""
    if len(key) != KEY_BYTES:
        raise SaveFileError(
            f"the save key {path} is damaged; delete it (older saves will then "
            "load only with --allow-modified)"
        )
    return key


def load_key(create: bool) -> bytes | None:
    """The user's save key; created (0600, folder 0700) when ``create`` and missing."""
    path = key_path()
    key = _read_key(path)
    if key is not None or not create:
        return key
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(
            path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600
        )
    except FileExistsError:  # another process made it just now
        return _read_key(path)
    except OSError as e:
        raise SaveFileError(f"cannot create the save key {path}: {e.strerror or e}") from None
    key = secrets.token_bytes(KEY_BYTES)
    with os.fdopen(fd, "w") as f:
        f.write(key.hex() + "\n")
        f.flush()
        os.fsync(f.fileno())
    return key


def _digest(key: bytes, data: dict[str, Any]) -> str:
    body = {k: v for k, v in data.items() if k != "hmac"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hmac.new(key, text.encode("ascii"), hashlib.sha256).hexdigest()


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def check_writable(path: str) -> None:
    """Refuse (SaveFileError, one line) a save path that cannot be written,
    before a game starts: a folder, a missing or read-only folder."""
    p = Path(path)
    if p.is_dir():
        raise SaveFileError(f"cannot save to {path}: it is a folder")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise SaveFileError(f"cannot save to {path}: there is no folder {folder}")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".check", dir=folder)
    except OSError as e:
        raise SaveFileError(f"cannot save to {path}: {e.strerror or e}") from None
    os.close(fd)
    os.unlink(tmp)


def write_save(path: str, session: Session) -> None:
    """Sign ``session``'s save and write it to ``path`` atomically, mode
    0600: it holds the seed, so only its owner may read it (D17)."""
    data = session.to_save()
    data["hmac"] = _digest(load_key(create=True), data)  # type: ignore[arg-type]
    text = (
        "{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in data.items()) + "\n}\n"
    )
    try:
        atomic_write(path, text, mode=0o600)  # the one atomic write (domeng.infra.fs)
    except OSError as e:
        raise SaveFileError(f"cannot save to {path}: {e.strerror or e}") from None


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


#: what every save that domeng has written holds (:meth:`Session.to_save`)
SAVE_KEYS = ("format", "version", "rules", "seats", "seed", "actions")


def read_save_data(path: str, *, allow_modified: bool = False) -> tuple[dict, bool]:
    """The data saved in ``path`` and whether its HMAC verifies, checked
    without replaying it (nothing compiles): one line for a file that cannot
    be read, is not a save file at all, or was modified (unless
    ``allow_modified``)."""
    where = f"save file {path!r}"
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_SAVE_BYTES + 1)
    except OSError as e:
        raise SaveFileError(f"cannot read {where}: {e.strerror or e}") from None
    if len(raw) > MAX_SAVE_BYTES:
        raise SaveFileError(f"{where} is not a domeng play save file (too large)")
    try:
        data = jsontext.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SaveFileError(f"{where} is corrupt: not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise SaveFileError(
            f"{where} is corrupt: not valid JSON ({e.msg}, line {e.lineno})"
        ) from None
    except RecursionError:
        raise SaveFileError(f"{where} is corrupt: nested too deeply") from None
    if not isinstance(data, dict) or any(k not in data for k in SAVE_KEYS):
        # a file with none of a save's parts is not a save, whatever its HMAC says
        raise SaveFileError(f"{where} is not a domeng play save file")
    key = load_key(create=False)
    sig = data.get("hmac")
    ok = (
        key is not None
        and isinstance(sig, str)
        and hmac.compare_digest(sig.encode("ascii", "replace"), _digest(key, data).encode("ascii"))
    )
    if not ok and not allow_modified:
        raise SaveFileError(
            f"{where} was modified since domeng saved it (or was saved by "
            "another user); load it anyway with --allow-modified"
        )
    return data, ok


def read_save(
    path: str, *, allow_modified: bool = False, rounds: int | None = None, camats: int | None = None
) -> Session:
    """The session saved in ``path``, replayed.  An edited save (its HMAC
    does not verify with this user's key) is refused with one line, unless
    ``allow_modified``: then it loads with ``session.modified`` set."""
    data, ok = read_save_data(path, allow_modified=allow_modified)
    return replay_save(path, data, ok, rounds=rounds, camats=camats)


def replay_save(
    path: str, data: dict, ok: bool, *, rounds: int | None = None, camats: int | None = None
) -> Session:
    """The session of save data read by :func:`read_save_data`, replayed
    through the engine (each action checked legal)."""
    where = f"save file {path!r}"
    try:
        session = Session.from_save(data, rounds=rounds, camats=camats)
    except SaveFileError as e:
        raise SaveFileError(f"{where} {e}") from None
    except DomengError as e:  # pragma: no cover - from_save maps these
        raise SaveFileError(f"{where} is corrupt: {e}") from None
    if not ok:
        session.modified = True
    return session
