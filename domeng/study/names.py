"""Player names read from files, and players that fail: the trust boundary
of the study layer (see ``docs/security.md``).

A name such as ``mymodule:strategy`` makes the player registry *import*
``mymodule`` -- that is, run its code.  A name typed by the user (``--players``,
``players=``) may do so; a name read from a file (a study's
``manifest.json``) never does implicitly: :func:`check_player_names` refuses
it, saying what would be imported, unless the user names the players again
or passes ``allow_import=``.  Names are also bounded (no control characters,
no budget out of its range): every name goes through the one parser and
table of :mod:`domeng.players.catalogue`, as at the tables and in the
environments.  The ``omniscient`` research player (it sees every hand, D17)
sits at no study, tournament or ladder.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domeng.core.errors import DomengError, PlayerError
from domeng.players import catalogue


def modules_named(names: Iterable[str]) -> list[str]:
    """The Python modules that ``module:function`` names would import."""
    out: list[str] = []
    for n in names:
        if isinstance(n, str) and ":" in n:
            try:
                target = catalogue.parse(n).target
            except PlayerError:
                continue
            mod = target.partition(":")[0]
            if target and mod not in out:
                out.append(mod)
    return out


def refuse_research_players(specs: Iterable[Any], place: str = "study") -> None:
    """Refuse, before anything runs, a lineup with a player object that sees
    every hand (names are refused by :func:`domeng.players.catalogue.check`)."""
    for p in specs:
        obj = getattr(p, "obj", p)
        if getattr(obj, "omniscient", False):
            entry = catalogue.lookup("omniscient")
            assert entry is not None  # a built-in
            why = entry.why
            name = getattr(p, "name", "omniscient")
            raise catalogue.refusal(
                name, place, f"{why}: it sits only {catalogue.PLACES['research']}"
            )


def check_player_names(
    names: Any, *, source: str | None = None, allow_import: bool | Iterable[str] = False
) -> list[str]:
    """Validate five player names of a study; returns their canonical forms.

    ``source``: the file they were read from (None: typed by the user, who
    may name any ``module:function``).  From a file, a ``module:function``
    name is refused unless its module is in ``allow_import`` (or it is True).
    """
    where = f" in {source}" if source else ""
    if not isinstance(names, (list, tuple)) or len(names) != 5:
        raise PlayerError(f"bad players list{where}: expected a list of five names")
    out = [catalogue.check(n, "study", where=source or "").text for n in names]
    if source is not None and allow_import is not True:
        allowed = set() if not allow_import else {str(m) for m in allow_import}
        refused = [m for m in modules_named(out) if m not in allowed]
        if refused:
            mods = ", ".join(repr(m) for m in refused)
            raise PlayerError(
                f"the players{where} would import the Python module(s) {mods} and run their "
                "code; domeng never imports code named in a file: if you trust it, name the "
                "players again (--players / players=) or pass allow_import=[...]"
            )
    return out


def resolve_names_safely(spec: Any, place: str = "study") -> list[str]:
    """The registry's ``parse_players`` for a lineup at ``place`` (a study,
    unless said), with every failure as one :class:`PlayerError` (a player
    module that raises on import, a budget numba cannot compile); a research
    player (:func:`refuse_research_players`) is refused."""
    from domeng.players.registry import resolve_players

    try:
        specs = resolve_players(spec, place)
    except DomengError:
        raise
    except (KeyboardInterrupt, SystemExit, MemoryError):
        raise
    except Exception as e:  # a player module's own error, numba typing errors ...
        text = " ".join(str(e).split())[:200] or type(e).__name__
        raise PlayerError(f"cannot use the players {spec!r}: {type(e).__name__}: {text}") from None
    refuse_research_players(specs, place)
    return [p.name for p in specs]
