"""Player names read from files, and players that fail: the trust boundary
of the study layer (see ``docs/security.md``).

A name such as ``mymodule:strategy`` makes the player registry *import*
``mymodule`` -- that is, run its code.  A name typed by the user (``--players``,
``players=``) may do so; a name read from a file (a study's
``manifest.json``) never does implicitly: :func:`check_player_names` refuses
it, saying what would be imported, unless the user names the players again
or passes ``allow_import=``.  Names are also bounded (no control characters,
no ``search-N`` budget that cannot finish).  The built-in players are those
of :mod:`domeng.core.defaults` (``PLAYER_IDS`` and every ``SEARCH_FAMILY``
player, also as ``NAME-N``): one list for the registry, the table and here.
The ``omniscient`` research player (it sees every hand, D17) sits at no
study, tournament or ladder: :func:`refuse_research_players`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from domeng.core.defaults import PLAYER_IDS, SEARCH_FAMILY, TABLE_PLAYERS
from domeng.core.errors import DomengError, PlayerError

#: the largest ``search-N`` (``esearch-N``, ``isearch-N``) budget a study
#: accepts (samples per decision); more could not finish a single round in
#: reasonable time.  ``ismcts-N`` has the registry's cap
#: (``domeng.players.registry.MAX_ISMCTS`` iterations per decision).
MAX_SEARCH_SAMPLES = 100_000
#: names longer than this are refused (a player name is short)
MAX_NAME = 200
#: the built-in players by name (each search player also as ``NAME-N``)
BUILTIN_NAMES = tuple(PLAYER_IDS) + tuple(SEARCH_FAMILY)
#: the research players that see every hand (D17): never at a study, tournament or ladder
RESEARCH_PLAYERS = ("omniscient",)


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


def _budget_cap(kind: str) -> tuple[int, str]:
    """The largest ``KIND-N`` budget of a search player, and its unit."""
    if kind == "ismcts":
        from domeng.players.registry import MAX_ISMCTS

        return MAX_ISMCTS, "iterations per decision"
    return MAX_SEARCH_SAMPLES, "samples per move"


def _search_kind(low: str) -> str | None:
    """The search player of a lowercase ``KIND-N`` name (None: not one)."""
    kind, dash, _ = low.partition("-")
    return kind if dash and kind in SEARCH_FAMILY else None


def check_search_budget(name: str) -> None:
    """Refuse ``KIND-N`` (``search``, ``esearch``, ``isearch``, ``nsearch``, ``ismcts``) unless
    ``1 <= N <=`` its cap (:data:`MAX_SEARCH_SAMPLES`; ``ismcts``: the
    registry's) in ASCII digits."""
    low = name.strip().lower()
    kind = _search_kind(low)
    if kind is None:
        return
    cap, unit = _budget_cap(kind)
    digits = low[len(kind) + 1 :]
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 12:
        raise PlayerError(
            f"bad search budget in {name!r}: write {kind}-N with N from 1 to {cap:,} {unit}"
        )
    n = int(digits)
    if not 1 <= n <= cap:
        raise PlayerError(
            f"search budget {n:,} in {name!r} cannot finish: write {kind}-N with "
            f"N from 1 to {cap:,} {unit}"
        )


def research_refusal(name: str, where: str = "a study, tournament or ladder") -> PlayerError:
    """The one-line refusal of a research player (``omniscient``) at ``where``."""
    return PlayerError(
        f"{name} is a research player that sees every hand (it breaks D17 on "
        f"purpose): it cannot sit in {where}; it plays only in "
        "domeng.study.omniscient.omniscient_match (see docs/players.md)"
    )


def refuse_research_players(
    specs: Iterable[Any], where: str = "a study, tournament or ladder"
) -> None:
    """Refuse, before anything runs, a lineup with a player that sees every
    hand: resolved players (``PlayerSpec``) or names."""
    for p in specs:
        name = p if isinstance(p, str) else getattr(p, "name", "")
        obj = getattr(p, "obj", None)
        if getattr(obj, "omniscient", False) or (
            isinstance(name, str) and name.strip().lower() in RESEARCH_PLAYERS
        ):
            raise research_refusal(str(name).strip() or "omniscient", where)


def check_player_names(
    names: Any, *, source: str | None = None, allow_import: bool | Iterable[str] = False
) -> list[str]:
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
            if base in RESEARCH_PLAYERS:
                raise research_refusal(base)
            if base not in BUILTIN_NAMES and _search_kind(base) is None:
                raise PlayerError(
                    f"unknown player {n!r}{where}; built-in players: {', '.join(TABLE_PLAYERS)}"
                )
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
                "players again (--players / players=) or pass allow_import=[...]"
            )
    return out


def resolve_names_safely(spec: Any) -> list[str]:
    """The registry's ``parse_players``, with every failure as one :class:`PlayerError`
    (a player module that raises on import, a budget numba cannot compile);
    a research player (:func:`refuse_research_players`) is refused."""
    from domeng.players.registry import resolve_players

    items: Sequence = (
        spec.split(",")
        if isinstance(spec, str)
        else (spec if isinstance(spec, (list, tuple)) else [])
    )
    for x in items:
        if isinstance(x, str):
            check_search_budget(x)
    try:
        specs = resolve_players(spec)
    except DomengError:
        raise
    except (KeyboardInterrupt, SystemExit, MemoryError):
        raise
    except Exception as e:  # a player module's own error, numba typing errors ...
        text = " ".join(str(e).split())[:200] or type(e).__name__
        raise PlayerError(f"cannot use the players {spec!r}: {type(e).__name__}: {text}") from None
    refuse_research_players(specs)
    return [p.name for p in specs]
