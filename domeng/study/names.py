"""Player names read from files, and players that fail: the trust boundary
of the study layer (see ``docs/security.md``).

A name such as ``mymodule:strategy`` makes the player registry *import*
``mymodule`` -- that is, run its code.  A name typed by the user (``--players``,
``players=``) may do so; a name read from a file (a study's
``manifest.json``) never does implicitly: :func:`check_player_names` refuses
it, saying what would be imported, unless the user names the players again
or passes ``allow_import=``.  Names are also bounded (no control characters,
no ``search-N`` budget that cannot finish).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from domeng.core.errors import DomengError, PlayerError

#: the largest ``search-N`` budget a study accepts (samples per decision);
#: more could not finish a single round in reasonable time
MAX_SEARCH_SAMPLES = 100_000
#: names longer than this are refused (a player name is short)
MAX_NAME = 200
_BUILTIN = ("random", "heavy", "keeper", "hunter", "search")


def _printable(name: str) -> bool:
    return name.isprintable() and "\x1b" not in name


def modules_named(names: Iterable[str]) -> list[str]:
    """The Python modules that ``module:function`` names would import."""
    out: list[str] = []
    for n in names:
        if isinstance(n, str) and ":" in n:
            mod = n.partition(":")[0].strip()
            if mod not in out:
                out.append(mod)
    return out


def check_search_budget(name: str) -> None:
    """Refuse ``search-N`` unless ``1 <= N <=`` :data:`MAX_SEARCH_SAMPLES` (ASCII digits)."""
    low = name.strip().lower()
    if not low.startswith("search-"):
        return
    digits = low[len("search-"):]
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 12:
        raise PlayerError(f"bad search budget in {name!r}: write search-N with N from 1 to "
                          f"{MAX_SEARCH_SAMPLES:,} samples per move")
    n = int(digits)
    if not 1 <= n <= MAX_SEARCH_SAMPLES:
        raise PlayerError(f"search budget {n:,} in {name!r} cannot finish: write search-N with N "
                          f"from 1 to {MAX_SEARCH_SAMPLES:,} samples per move")


def check_player_names(names: Any, *, source: str | None = None,
                       allow_import: bool | Iterable[str] = False) -> list[str]:
    """Validate five player names; returns them as a list of str.

    ``source``: the file they were read from (None: typed by the user, who
    may name any ``module:function``).  From a file, a ``module:function``
    name is refused unless its module is in ``allow_import`` (or it is True).
    """
    where = f" in {source}" if source else ""
    if not isinstance(names, (list, tuple)) or len(names) != 5:
        raise PlayerError(f"bad players list{where}: expected a list of five names")
    out = []
    for n in names:
        if not isinstance(n, str) or not n.strip() or len(n) > MAX_NAME or not _printable(n):
            shown = repr(n)[:60]
            raise PlayerError(f"bad player name {shown}{where}")
        base = n.strip().lower()
        if ":" not in n:
            if base not in _BUILTIN and not base.startswith("search-"):
                raise PlayerError(f"unknown player {n!r}{where}; built-in players: "
                                  f"{', '.join(_BUILTIN)}, search-N")
            check_search_budget(n)
        out.append(n)
    if source is not None and allow_import is not True:
        allowed = set() if not allow_import else {str(m) for m in allow_import}
        refused = [m for m in modules_named(out) if m not in allowed]
        if refused:
            mods = ", ".join(repr(m) for m in refused)
            raise PlayerError(
                f"the players{where} would import the Python module(s) {mods} and run their "
                "code; domeng never imports code named in a file: if you trust it, name the "
                "players again (--players / players=) or pass allow_import=[...]")
    return out


def resolve_names_safely(spec: Any) -> list[str]:
    """The registry's ``parse_players``, with every failure as one :class:`PlayerError`
    (a player module that raises on import, a budget numba cannot compile)."""
    from domeng.players.registry import parse_players

    items: Sequence = spec.split(",") if isinstance(spec, str) else (
        spec if isinstance(spec, (list, tuple)) else [])
    for x in items:
        if isinstance(x, str):
            check_search_budget(x)
    try:
        return parse_players(spec)
    except DomengError:
        raise
    except (KeyboardInterrupt, SystemExit, MemoryError):
        raise
    except Exception as e:  # a player module's own error, numba typing errors ...
        text = " ".join(str(e).split())[:200] or type(e).__name__
        raise PlayerError(f"cannot use the players {spec!r}: {type(e).__name__}: {text}") \
            from None
