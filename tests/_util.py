"""Small helpers shared by the test modules (not a test module itself).

Positions are written with tile text (``"2-5"``) so that each test reads
like the situation it builds; :func:`T` turns the text into tile ids.
"""

from __future__ import annotations

import copy

import numpy as np

from domeng.core.rules import Rules
from domeng.core.tiles import N_TILES, mask_of, parse_tile, tiles_of
from domeng.engine.reference import LEFT, RIGHT, TABLE, Move, Round, Table


def T(text: str) -> int:
    """Tile id of ``text`` (``"6-3"``, ``"[6|3]"``, ...)."""
    return parse_tile(text)


def H(*texts: str) -> list[int]:
    """A hand: tile ids of the given tile texts."""
    return [T(x) for x in texts]


def make_table(
    stones=(0, 0, 0, 0, 0), table_stones=None, rules: Rules | None = None, seed: int = 0
) -> Table:
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
    return copy.deepcopy(
        {
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
            "rng": t.rng_states(),
        }
    )


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


def two_pass_round(rules: Rules | None = None) -> Round:
    """Seat 3 (no number above 2) passes twice before playing while the others
    keep the ends among 3..6.  Table 10 stones, every seat 3."""
    table = make_table(stones=[3, 3, 3, 3, 3], table_stones=10, rules=rules)
    rnd = Round.from_position(
        table,
        [
            H("6-5", "4-4", "2-2"),
            H("6-4", "4-3", "6-0"),
            H("5-5", "3-3", "6-1"),
            H("0-0", "1-0", "1-1", "2-0", "2-1"),
            H("5-3", "6-2"),
        ],
        to_move=0,
        ends=(6, 6),
        last_mappano=4,
        has_played=[False, False, False, False, True],
        chain=[(4, T("6-6"), LEFT)],
    )
    script = [
        ("6-5", LEFT),
        ("6-4", RIGHT),
        ("5-5", LEFT),
        None,
        ("5-3", LEFT),
        ("4-4", RIGHT),
        ("4-3", RIGHT),
        ("3-3", LEFT),
        None,
    ]
    for step in script:
        if step is None:
            assert rnd.to_move == 3 and rnd.legal_moves() == []
            rnd.pass_turn()
        else:
            rnd.play(Move(T(step[0]), step[1]))
    return rnd


def block_position(
    manguno: int, hands, stones=(5, 5, 5, 5, 5), table_stones: int = 0, rules: Rules | None = None
) -> Round:
    """The moment the LAST MAPPANO ``manguno``, after four passes, is to move again
    on open ends 6 and 6 (the hands given should show no 6: then he must pass)."""
    table = make_table(stones=list(stones), table_stones=table_stones, rules=rules)
    return Round.from_position(
        table,
        hands,
        to_move=manguno,
        ends=(6, 6),
        last_mappano=manguno,
        passes_since_play=4,
        has_played=[True] * 5,
    )


def scramble_hidden(hands, seat: int, chain, rng):
    """D17 tests: the five ``hands`` with every tile ``seat`` cannot see (the
    others' hands and the tiles out of play: all but its own hand and the
    ``chain``) dealt anew among the other seats, each hand keeping its size;
    ``seat``'s hand is kept.  What ``seat`` observes is the same before and
    after, so a decision that changes is one that read a hidden tile.

    ``hands``: five collections of tile ids (a reference round's
    ``rnd.hands``), returned as a new list of sets; or five 28-bit masks (an
    engine state's ``hands`` array), returned as a new array.  ``chain``: the
    chain's tile ids or its mask.  The unseen tiles, ascending, are shuffled
    by ``rng`` (a numpy Generator or a ``random.Random``) and dealt seat by
    seat."""
    as_masks = isinstance(hands, np.ndarray)
    held = [set(tiles_of(h)) if as_masks else set(h) for h in hands]
    shown = set(tiles_of(chain)) if isinstance(chain, (int, np.integer)) else set(chain)
    hidden = [t for t in range(N_TILES) if t not in held[seat] and t not in shown]
    rng.shuffle(hidden)
    out, k = [], 0
    for s, h in enumerate(held):
        out.append(h if s == seat else set(hidden[k : k + len(h)]))
        k += 0 if s == seat else len(h)
    if not as_masks:
        return out
    masks = hands.copy()
    masks[:] = [mask_of(h) for h in out]
    return masks
