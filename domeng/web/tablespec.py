"""What a browser table is made of besides its game: what a creation
request may choose (:class:`TableSpec`), the links' tokens (kept only as
hashes; every link derived from the host's, :func:`derive_token`), the seed
of the next game (:func:`next_seed`), and the chain as a page draws it."""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from domeng.core.errors import DomengError, PlayerError, WebError
from domeng.core.events import Event, Lead, Play
from domeng.core.rules import Rules
from domeng.core.tiles import is_double, numbers, tile_id
from domeng.play.session import HUMAN, chain_of, parse_seats
from domeng.players import catalogue
from domeng.web.words import refuse

#: what the page offers for a seat: a person, or a built-in computer player
#: (never code named by a request); the session checks every seat
SEAT_KINDS = (HUMAN,) + catalogue.builtin_names("browser")
#: the largest game a request may ask for (D16: rounds / CAMATs)
MAX_ROUNDS = 1000
MAX_CAMATS = 20
#: the computer player that plays for a person who is away (``--stand-in``)
DEFAULT_STAND_IN = "expert"


def token_hash(token: str) -> str:
    """Tokens are kept only as hashes (a lookup leaks nothing about a near miss)."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def derive_token(host: str, label: str) -> str:
    """A link's token derived from the host's token (HMAC-SHA256): the
    server keeps only hashes, yet the host's link can show every seat's
    link again, from any device.

    >>> derive_token("a" * 32, "seat:1:0") == derive_token("a" * 32, "seat:1:0")
    True
    """
    mac = hmac.new(host.encode("utf-8", "replace"), label.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")[:32]


def next_seed(seed: int, game: int, salt: str) -> int:
    """The seed of a table's ``game``-th game (Play again), derived from the
    last game's seed, the game number and the table's secret ``salt``: the
    seed shown at a game's end (D17: only then) must not tell the next
    game's deals, so the salt never leaves the server.

    >>> next_seed(5, 2, "s") == next_seed(5, 2, "s") != next_seed(5, 3, "s")
    True
    """
    h = hashlib.sha256(f"domeng-play-again:{salt}:{seed}:{game}".encode()).digest()
    return int.from_bytes(h[:8], "big") >> 1


def tile_text(t: int) -> str:
    """``"A-B"`` with A >= B: the page's ``data-tile``."""
    hi, lo = numbers(t)
    return f"{hi}-{lo}"


@dataclass
class TableSpec:
    """What a request may choose when it creates a table (validated)."""

    seats: list[str]
    rules: Rules = field(default_factory=Rules)
    seed: int | None = None
    rounds: int = 0
    camats: int = 1

    @classmethod
    def parse(cls, data: Any) -> TableSpec:
        """Check a creation request: only known keys, built-in seat kinds,
        rule values the engine accepts, whole numbers in range."""
        if not isinstance(data, dict):
            raise WebError("a table is described by a JSON object")
        unknown = set(data) - {"seats", "rules", "seed", "rounds", "camats"}
        if unknown:
            raise WebError(f"unknown field(s): {', '.join(sorted(map(str, unknown)))[:200]}")
        seats = data.get("seats")
        if (
            not isinstance(seats, list)
            or len(seats) != 5
            or not all(isinstance(s, str) for s in seats)
        ):
            raise WebError("seats must be a list of five names")
        try:  # the session's one check of who may sit at a table with people (D17)
            seats = parse_seats(seats, "browser")
        except PlayerError as e:
            raise WebError(str(e)) from None
        rules = data.get("rules") or {}
        if (
            not isinstance(rules, dict)
            or not all(isinstance(k, str) for k in rules)
            or not all(isinstance(v, (bool, int, str)) for v in rules.values())
        ):
            raise WebError("rules must be an object of rule option values")
        try:
            r = Rules.from_mapping(rules)
        except DomengError as e:
            raise WebError(str(e)) from None
        seed = data.get("seed")
        if seed is not None and seed != "":
            seed = _whole(seed, "seed", 0, 2**63 - 1)
        else:
            seed = None
        rounds = _whole(data.get("rounds") or 0, "rounds", 0, MAX_ROUNDS)
        camats = _whole(
            data.get("camats") if data.get("camats") is not None else (0 if rounds else 1),
            "camats",
            0,
            MAX_CAMATS,
        )
        if rounds == 0 and camats == 0:
            camats = 1
        return cls(seats, r, seed, rounds, camats)


def _whole(v: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(v, str) and v.strip().isascii() and v.strip().isdigit() and len(v) < 30:
        v = int(v.strip())
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise refuse("error.whole", name=name, lo=lo, hi=hi)
    return v


def chain_json(chain: list[tuple[int, int]], last: int | None) -> list[dict[str, Any]]:
    """The chain as the page draws it, left to right, from the session's
    chain (:func:`domeng.play.session.chain_of`: the numbers each tile shows
    on its left and right, as the events say it lies)."""
    out = []
    for i, (a, b) in enumerate(chain):
        t = tile_id(a, b)
        out.append(
            {"tile": tile_text(t), "a": a, "b": b, "double": is_double(t), "last": i == last}
        )
    return out


def replay_steps(events: Sequence[Event]) -> list[list[dict[str, Any]]]:
    """The chain after each lead or play of a round (for the page's replay)."""
    steps = []
    for i, ev in enumerate(events):
        if isinstance(ev, Lead | Play):
            steps.append(chain_json(*chain_of(events[: i + 1])))
    return steps
