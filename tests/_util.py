"""Small helpers shared by the test modules (not a test module itself).

Positions are written with tile text (``"2-5"``) so that each test reads
like the situation it builds; :func:`T` turns the text into tile ids.
"""

from __future__ import annotations

import copy

from domeng.engine import TABLE, Round, Table
from domeng.rules import Rules
from domeng.tiles import N_TILES, parse_tile


def T(text: str) -> int:
    """Tile id of ``text`` (``"6-3"``, ``"[6|3]"``, ...)."""
    return parse_tile(text)


def H(*texts: str) -> list[int]:
    """A hand: tile ids of the given tile texts."""
    return [T(x) for x in texts]


def make_table(stones=(0, 0, 0, 0, 0), table_stones=None, rules: Rules | None = None,
               seed: int = 0) -> Table:
    """A table whose stone holdings are set by hand.  ``table_stones``
    defaults to whatever makes the total equal ``rules.stones`` (D7)."""
    table = Table(rules if rules is not None else Rules(), seed=seed)
    table.stones = list(stones)
    if table_stones is None:
        table_stones = table.rules.stones - sum(stones)
    table.table_stones = table_stones
    assert table.total_stones() == table.rules.stones, "a test position must hold every stone"
    return table


def transfers(rnd_or_result) -> list[tuple]:
    """The transfers of a round (or a RoundResult) as ``(source, dest, amount, reason)``;
    source ``"table"`` for the table."""
    trs = rnd_or_result.transfers
    return [("table" if t.source == TABLE else t.source, t.dest, t.amount, t.reason) for t in trs]


def events_of(rnd: Round, *types: str) -> list[dict]:
    return [e for e in rnd.events if e["type"] in types]


def snapshot(rnd: Round) -> dict:
    """Everything a failed action must leave unchanged."""
    t = rnd.table
    return copy.deepcopy({
        "hands": [sorted(h) for h in rnd.hands],
        "out": sorted(rnd.out_of_play),
        "ends": (rnd.left, rnd.right),
        "to_move": rnd.to_move,
        "chain": list(rnd.chain),
        "history": list(rnd.history),
        "has_played": list(rnd.has_played),
        "last_mappano": rnd.last_mappano,
        "passes_since_play": rnd.passes_since_play,
        "must_lead": rnd.must_lead,
        "ended": rnd.ended,
        "transfers": list(rnd.transfers),
        "unpaid": dict(rnd.unpaid),
        "events": list(rnd.events),
        "stones": list(t.stones),
        "table_stones": t.table_stones,
        "camat": t.camat,
        "next_starter": t.next_starter,
        "rounds_played": t.rounds_played,
        "rng": t.rng.state,
    })


def check_stones(table: Table) -> None:
    """D7: stones are never created or destroyed and never negative."""
    assert table.table_stones >= 0
    assert all(s >= 0 for s in table.stones), table.stones
    assert table.total_stones() == table.rules.stones


def check_tiles(rnd: Round) -> None:
    """Every tile is in exactly one place: a hand, the chain or out of play (D2)."""
    places = [set(h) for h in rnd.hands] + [{t for _, t, _ in rnd.chain}, set(rnd.out_of_play)]
    assert sum(len(p) for p in places) == N_TILES
    assert set().union(*places) == set(range(N_TILES))
    assert len(rnd.out_of_play) == 3
