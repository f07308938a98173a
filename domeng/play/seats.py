"""Who sits at a table with people, and the one final ranking: the seat
checks of :mod:`domeng.play.session` (a person, or a computer player that
may sit there: the player catalogue's check), a seat's name, the stand-in,
the parts of a save that say who played what, and :func:`rank`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domeng.core.defaults import DEFAULT_SEATS, HUMAN
from domeng.core.errors import PlayerError
from domeng.core.layout import N_SEATS
from domeng.players import catalogue

#: the longest name a seat may be given (printable characters, after trimming)
MAX_NAME = 24
MAX_SAVED_ROUNDS = 100_000


def check_seat(name: Any, place: str = "terminal") -> str:
    """A seat's canonical name: ``human`` or a computer player that may sit
    at a table with people (the catalogue's check, :mod:`domeng.players.catalogue`:
    one budget limit and one refusal everywhere).  :class:`PlayerError` (one
    line) otherwise: a player that sees hidden tiles (D17), a name that would
    import code, an unknown name, a budget out of range.

    >>> check_seat("Hunter"), check_seat("you"), check_seat("esearch-0300")
    ('hunter', 'human', 'esearch-300')
    """
    if isinstance(name, str) and name.strip().lower() in (HUMAN, "you", "person"):
        return HUMAN
    return catalogue.seat_name(name, place)


def parse_seats(text: str | Sequence[str], place: str = "terminal") -> list[str]:
    """Five seats from ``"human,hunter,heavy,keeper,random"`` (or a list),
    seat 0 first; returns their canonical names (:func:`check_seat`), or
    raises :class:`PlayerError` for another number of seats.

    >>> parse_seats("you,hunter,keeper,heavy,random")
    ['human', 'hunter', 'keeper', 'heavy', 'random']
    """
    items = [s.strip() for s in text.split(",")] if isinstance(text, str) else list(text)
    if len(items) != N_SEATS or not all(isinstance(s, str) and s for s in items):
        raise PlayerError(
            f"--seats needs 5 comma-separated seats, seat 0 first, e.g. "
            f"{','.join(DEFAULT_SEATS)}; got {len(items)}"
        )
    return [check_seat(s, place) for s in items]


def check_name(text: Any) -> str:
    """A seat's name as it will be shown: ``text`` trimmed, 1 to
    :data:`MAX_NAME` printable characters (no control or format character,
    no line break).  :class:`PlayerError` (one line) otherwise.  A name is
    only ever shown as text (never as markup), so ``<b>`` is a name like any other.

    >>> check_name("  Ana <b>  ")
    'Ana <b>'
    """
    if not isinstance(text, str):
        raise PlayerError("a name is text")
    name = text.strip()
    if not name or len(name) > MAX_NAME:
        raise PlayerError(f"a name is 1 to {MAX_NAME} characters; got {len(name)}")
    if not name.isprintable():
        raise PlayerError("a name may hold only printable characters (no control characters)")
    return name


def rank(standings: Sequence[dict[str, int]]) -> list[dict[str, int]]:
    """The one final ranking of a game with people (the terminal, the
    browser, anything that ranks seats): most CAMATs first (a CAMAT rises
    above the table and returns every stone to it, D15, so stones alone
    rank nothing), then fewest stones held (stones are penalties), then
    fewest stones received over the whole game, then most rounds won; a
    tie left after that keeps seat order.  ``standings``: rows of
    :meth:`Session.standings`."""
    return sorted(
        standings,
        key=lambda r: (-r["camats"], r["stones"], r["received"], -r["wins"], r["seat"]),
    )


def check_stand_in(name: Any) -> str:
    """The canonical name of a stand-in: a computer player that may sit at
    a browser table (:func:`check_seat`); :class:`PlayerError` (one line)
    otherwise.

    >>> check_stand_in("Expert")
    'expert'
    """
    kind = check_seat(name, "browser")
    if kind == HUMAN:
        raise PlayerError("a stand-in is a computer player, not a person")
    return kind


def _stood_in(data: Any, rounds: int) -> list[set[int]]:
    """A save's ``stood_in`` (per round, the actions the stand-in took)."""
    if data is None:
        return [set() for _ in range(rounds)]
    if not isinstance(data, list) or len(data) != rounds:
        raise ValueError("stood_in must be a list with one list per round")
    out = []
    for r in data:
        if not isinstance(r, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in r
        ):
            raise ValueError("stood_in must hold lists of action numbers")
        out.append(set(r))
    return out


def _changes(data: Any) -> list[list[Any]]:
    """A save's ``changes`` (the seats replaced during the game)."""
    if data is None:
        return []
    if not isinstance(data, list) or len(data) > MAX_SAVED_ROUNDS:
        raise ValueError("changes must be a list")
    for c in data:
        if (
            not isinstance(c, list)
            or len(c) != 4
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in c[:3])
            or not isinstance(c[3], str)
        ):
            raise ValueError("each change is [rounds, actions, seat, kind]")
    return [list(c) for c in data]
