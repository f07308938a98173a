"""Hostile clients refused (issue 22 item 11, H1..H8): each attack found on
``5e0020c`` reproduced against the browser table's server and shown refused.

Loopback only, ports chosen by the system, every loop bounded by a count;
the few timeouts are failure bounds (a hung server fails the test instead
of hanging it), never what a test measures.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("starlette")

from domeng.core.events import BLOCKED_ENDS, for_seat
from domeng.web.table import Table, TableSpec
from web._util import check_pip_sums, end_events

SEATS = (0, 1, 2, 3, 4, None)


# ---------------------------------------------------------------- H2 (D17)
def test_h2_pip_sums_only_where_the_rules_compare_them():
    """Many seeded rounds of computer players: at every round end no seat's
    message (state, its text as sent, the replay of the last round, the
    export) shows another seat's pip sum unless the round was blocked
    (D11..D14); a blocked round shows them all, and each seat always sees
    its own."""
    kinds = {"plain": 0, "blocked": 0}
    for seed in range(6):
        t = Table(
            TableSpec.parse(
                {
                    "seats": ["hunter", "keeper", "heavy", "random", "hunter"],
                    "seed": seed,
                    "rounds": 40,
                    "camats": 0,
                }
            )
        )
        while not t.game_over:
            while not t.game.round_over:
                t.computer_step()
            end = t.game.result
            kinds["blocked" if end["kind"] in BLOCKED_ENDS else "plain"] += 1
            for s in SEATS:
                view = t.view(s)
                sent = json.loads(t.view_text(s))
                export = {"type": "export", "game": t.export(s)}
                for msg in (view, sent, export):
                    check_pip_sums(msg, s)
                mine = view["result"]["pip_sums"]
                if end["kind"] in BLOCKED_ENDS:
                    assert mine == end["pip_sums"]
                else:
                    assert mine == [v if i == s else None for i, v in enumerate(end["pip_sums"])]
                    assert "pip sum" not in " ".join(view["end_text"] + view["log"])
                assert len(end_events(export)) == t.game.rounds_played  # every round end
            if not t.game_over:
                t.start_round()
    assert kinds["plain"] > 100 and kinds["blocked"] > 3, kinds


def test_h2_for_seat_is_the_one_filter():
    """The engine's own event filter hides the sums (so the replay, the
    export, the terminal game and ``domeng trace --seat`` all agree)."""
    end = {
        "type": "end",
        "kind": "CEKI",
        "winner": 1,
        "first_cappu": 1,
        "cucuq": 0,
        "manguno": None,
        "mattikkeng": [],
        "pip_sums": [4, 0, 9, 12, 7],
        "award": 3,
    }
    assert for_seat(end, 2)["pip_sums"] == [None, None, 9, None, None]
    assert for_seat(end, None)["pip_sums"] == [None] * 5
    assert end["pip_sums"] == [4, 0, 9, 12, 7]  # the engine's own record unchanged
    blocked = {**end, "kind": "MATTIKKENG", "manguno": 3, "mattikkeng": [0]}
    assert for_seat(blocked, 2) == blocked
