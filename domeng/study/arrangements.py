"""Seatings of a duplicate match: which player sits at which seat.

A seating is a tuple ``lineup`` of length 5: ``lineup[s]`` is the index of
the player at seat ``s``.  Every design here puts each player in each seat
equally often; they differ in how they treat who sits next to whom:

``rotations`` (5 seatings)
    the five rotations of the players' given order.  The cyclic order is
    kept, so who sits before and after whom is never cancelled: two
    identical players can come out "significantly" different (issue 13).
``balanced`` (20 seatings)
    four cyclic orders ``(0, m, 2m, 3m, 4m) mod 5`` for m = 1..4, each in its
    five rotations: every ordered pair of players sits at every distance
    (1..4 seats apart) exactly once per rotation, so the effect of a
    neighbour is cancelled to first order.
``all`` (120 seatings)
    the 24 cyclic orders of five players around a table (every permutation
    up to rotation), each in its five rotations, i.e. every permutation: the
    design is symmetric under any exchange of players, so identical players
    come out equal in expectation.

Every seating of a deal plays the same deals (the deal stream is shared); the
per-deal statistics are summed over the seatings, so deals stay the
independent units of the confidence intervals.
"""

from __future__ import annotations

from itertools import permutations

from domeng.core.errors import DomengError

ORDERS = ("all", "balanced", "rotations")


def seatings(orders: str = "all") -> list[tuple[int, ...]]:
    """The seatings of the design ``orders`` (see the module docstring)."""
    cycles: list[tuple[int, ...]]
    if orders == "rotations":
        cycles = [(0, 1, 2, 3, 4)]
    elif orders == "balanced":
        cycles = [tuple((m * i) % 5 for i in range(5)) for m in range(1, 5)]
    elif orders == "all":
        cycles = [(0,) + p for p in permutations(range(1, 5))]
    else:
        raise DomengError(f"unknown seating design {orders!r}; choose one of {', '.join(ORDERS)}")
    # cycle c in rotation r: seat s holds player c[(s - r) % 5]
    return [tuple(c[(s - r) % 5] for s in range(5)) for c in cycles for r in range(5)]


def seat_of(lineup: tuple[int, ...]) -> list[int]:
    """``seat_of(lineup)[i]``: the seat of player ``i``."""
    out = [0] * 5
    for s, i in enumerate(lineup):
        out[i] = s
    return out
