"""Fair duplicate formats (issue 13): the seating designs of
:mod:`domeng.study.arrangements` and what they cancel."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import numpy as np
import pytest

from domeng.core.errors import DomengError
from domeng.study.arrangements import seat_of, seatings
from domeng.study.tournament import STATS, tournament


def test_all_is_every_permutation_and_rotations_keep_the_order():
    assert sorted(seatings("all")) == sorted(permutations(range(5)))
    rot = seatings("rotations")
    assert len(rot) == 5
    for lineup in rot:  # the cyclic order 0 -> 1 -> 2 -> 3 -> 4 is kept
        s = seat_of(lineup)
        assert all((s[(i + 1) % 5] - s[i]) % 5 == 1 for i in range(5))
    with pytest.raises(DomengError, match="unknown seating design"):
        seatings("random")


@pytest.mark.parametrize("orders", ["all", "balanced", "rotations"])
def test_every_player_sits_in_every_seat_equally_often(orders):
    design = seatings(orders)
    counts = Counter((i, seat_of(lu)[i]) for lu in design for i in range(5))
    assert set(counts.values()) == {len(design) // 5}
    assert len(counts) == 25


@pytest.mark.parametrize("orders", ["all", "balanced"])
def test_every_pair_sits_at_every_distance_equally_often(orders):
    """Who sits 1, 2, 3, 4 seats after whom is balanced (the rotations'
    design fails this: player 1 always sits right after player 0)."""
    design = seatings(orders)
    counts = Counter()
    for lu in design:
        s = seat_of(lu)
        for a in range(5):
            for b in range(5):
                if a != b:
                    counts[(a, b, (s[b] - s[a]) % 5)] += 1
    assert len(counts) == 5 * 4 * 4 and len(set(counts.values())) == 1
    rot = Counter()
    for lu in seatings("rotations"):
        s = seat_of(lu)
        rot[(s[1] - s[0]) % 5] += 1
    assert rot == {1: 5}


def test_tournament_plays_every_seating_of_the_same_deals():
    res = tournament("hunter,keeper,heavy,random,random", deals=6, rounds=3, seed=2)
    assert res.meta["seatings"] == 120
    assert (res.per_deal[:, :, STATS.index("rounds")] == 120 * 3).all()
    again = tournament(
        "hunter,keeper,heavy,random,random", deals=6, rounds=3, seed=2, chunk_deals=4
    )
    np.testing.assert_array_equal(res.per_deal, again.per_deal)
    bal = tournament(
        "hunter,keeper,heavy,random,random", deals=6, rounds=3, seed=2, orders="balanced"
    )
    assert (bal.per_deal[:, :, STATS.index("rounds")] == 20 * 3).all()


@pytest.mark.slow
def test_identical_players_margin_covers_zero_in_about_95_percent_of_seeds():
    """Two identical random players in a field of hunter, keeper, heavy:
    with every cyclic order played, their paired margin's 95% interval
    covers 0 in about 95% of small tournaments (binomial bounds for 160
    tournaments: 0.95 +- about 3.5 SD)."""
    covered = 0
    n = 160
    for seed in range(n):
        res = tournament(
            "random,hunter,keeper,random,heavy",
            deals=25,
            rounds=2,
            seed=seed,
            progress=False,
            time_decisions=False,  # the margins only (the timing was 2/3 of this test)
        )
        m = res.margins()
        row = m[(m.a == "random#0") & (m.b == "random#3")].iloc[0]
        covered += int(row.ci_low <= 0 <= row.ci_high)
    assert 0.88 <= covered / n <= 0.995, covered
