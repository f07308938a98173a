"""Exact probabilities of the deal (D2) and the first round's opening (D3),
checked statistically on many deals.

Method
------
Every check compares a count X of N independent deals with its exact
probability p, X ~ Binomial(N, p), and accepts X in [lo, hi] where each tail
outside has exact binomial probability at most alpha/2 (computed below from
the binomial pmf, not from a normal approximation, so it is right for the
rare events too).  For the large counts this is the familiar z-bound:
alpha = 1e-4 is |X - Np| <= 3.9 sigma, sigma = sqrt(N p (1 - p)).

False-alarm budget: a correct engine must fail this whole file less than once
in 10,000 runs.  The budget 1e-4 is split (Bonferroni):

* opener's double, 4 checks ........... 1e-5 each  (about 4.4 sigma)
* first-turn PASS, 1 check ............ 4e-5       (about 4.1 sigma)
* D2 uniformity, 5 + 168 checks ....... 2e-5 total (about 5.3 sigma each)

N = 120,000 deals, drawn as table i = 0..N-1 of a study with a fixed seed, so
the test is deterministic (the bound above is the chance that a fixed seed
would be an unlucky one for a correct engine).  With N = 120,000 the checks
have the power to catch real mistakes, e.g. (half-widths of the intervals):
P(lead [6|6]) = 25/28 = 0.893 +- 0.0040; P(first-turn PASS) = 0.2502 +- 0.0051,
while an engine letting the opener lead any tile gives about 0.11; and the
[4|4]-or-[3|3] opening, 26/3276 = 0.0079 +- 0.0011.

The rare [3|3] opening (1/3276: about 37 deals in 120,000) is checked twice:
statistically, with its exact binomial interval (13..66: an engine
that never, or twice as often, opens with [3|3] fails), and by the exact
argument that the [3|3] holder opens exactly when the 3 tiles out of play are
[6|6], [5|5], [4|4] (one of C(28,3) = 3276 equally likely sets under D2),
which test_decisions checks on a hand-built deal.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from domeng.core.tiles import DOUBLE_OF
from domeng.engine.reference import LEFT, Move, Table
from domeng.players.registry import RandomPlayer

SEED = 20250101
N = 120_000
DOUBLES = {n: int(DOUBLE_OF[n]) for n in (6, 5, 4, 3)}

P_LEAD = {6: Fraction(25, 28), 5: Fraction(25, 252), 4: Fraction(25, 3276), 3: Fraction(1, 3276)}
P_FIRST_PASS = Fraction(322541, 1289288)


def binom_interval(n: int, p: float, alpha: float) -> tuple[int, int]:
    """[lo, hi] with P(X < lo) <= alpha/2 and P(X > hi) <= alpha/2, X ~ Bin(n, p), exact."""
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    k0 = max(0, int(mean - 20 * sd - 30))
    k1 = min(n, int(mean + 20 * sd + 30))
    lp, lq = math.log(p), math.log1p(-p)
    lg = math.lgamma(n + 1)
    pmf = [
        math.exp(lg - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * lp + (n - k) * lq)
        for k in range(k0, k1 + 1)
    ]
    lo, acc = k0, 0.0
    for i, q in enumerate(pmf):
        if acc + q > alpha / 2:
            lo = k0 + i
            break
        acc += q
    hi, acc = k1, 0.0
    for i, q in enumerate(reversed(pmf)):
        if acc + q > alpha / 2:
            hi = k1 - i
            break
        acc += q
    return lo, hi


def check(count: int, p, alpha: float, what: str) -> None:
    lo, hi = binom_interval(N, float(p), alpha)
    assert lo <= count <= hi, (
        f"{what}: {count} of {N} (expected {N * float(p):.1f}, accepted {lo}..{hi})"
    )


@pytest.fixture(scope="module")
def deals():
    """Sample N first rounds: which double is led, the opener's seat, where every
    tile lies, and whether the seat after the opener passes on its first turn."""
    lead = {n: 0 for n in DOUBLES}
    opener = [0] * 5
    where = [[0] * 6 for _ in range(28)]  # tile -> seat 0..4 or 5 (out of play)
    first_pass = 0
    player = RandomPlayer()
    for i in range(N):
        table = Table(seed=SEED, table_index=i)
        rnd = table.new_round()
        d = rnd.must_lead
        n = next(k for k, v in DOUBLES.items() if v == d)
        lead[n] += 1
        opener[rnd.starter] += 1
        for seat, h in enumerate(rnd.events[0]["hands"]):
            for t in h:
                where[t][seat] += 1
        for t in rnd.events[0]["out"]:
            where[t][5] += 1
        moves = rnd.legal_moves()
        move = player.choose(rnd.observation(rnd.to_move), moves, table.seat_rngs[rnd.to_move])
        assert move == Move(d, LEFT)  # D3: the opener leads that very double
        rnd.play(move)
        first_pass += not rnd.legal_moves()
    return {"lead": lead, "opener": opener, "where": where, "first_pass": first_pass}


def test_exact_values_are_consistent():
    """The stated probabilities follow from D2/D3 (exact arithmetic)."""
    assert sum(P_LEAD.values()) == 1  # one of the four doubles is always dealt (D3)
    c = math.comb
    assert P_LEAD[6] == 1 - Fraction(3, 28)
    assert P_LEAD[3] == Fraction(1, c(28, 3))
    # the next seat lacks the led number d: C(21-k, 5)/C(27-k, 5), k higher doubles out
    total = sum(P_LEAD[d] * Fraction(c(21 - (6 - d), 5), c(27 - (6 - d), 5)) for d in P_LEAD)
    assert total == P_FIRST_PASS


def test_binom_interval_is_calibrated():
    """The helper's interval matches the normal z-bound where that is accurate, and
    is exact (tail sums) for a small mean."""
    lo, hi = binom_interval(100_000, 0.5, 1e-4)
    z = 3.8906  # two-sided 1e-4
    assert abs((hi - 50_000) - z * math.sqrt(25_000)) <= 3
    assert abs((50_000 - lo) - z * math.sqrt(25_000)) <= 3
    # small n: compare with exact tail sums in rational arithmetic
    n, p, alpha = 300, Fraction(1, 100), 0.01
    pmf = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    lo, hi = binom_interval(n, float(p), alpha)
    assert sum(pmf[:lo]) <= alpha / 2 < sum(pmf[: lo + 1])
    assert sum(pmf[hi + 1 :]) <= alpha / 2 < sum(pmf[hi:])
    assert lo == 0 < hi  # mean 3: P(X = 0) = 0.049 lies inside the interval


@pytest.mark.parametrize("n", [6, 5])
def test_D3_opener_leads_six_six_or_five_five(deals, n):
    """D3: the first round opens with [6|6] w.p. 25/28, [5|5] w.p. 25/252."""
    check(deals["lead"][n], P_LEAD[n], 1e-5, f"lead [{n}|{n}]")


def test_D3_opener_leads_four_four_or_three_three(deals):
    """D3: [4|4] or [3|3] opens w.p. 25/3276 + 1/3276."""
    check(deals["lead"][4] + deals["lead"][3], P_LEAD[4] + P_LEAD[3], 1e-5, "lead [4|4]/[3|3]")


def test_D3_opener_leads_three_three(deals):
    """D3: [3|3] opens w.p. 1/3276 (rare: exact binomial interval, not a z-bound)."""
    lo, hi = binom_interval(N, float(P_LEAD[3]), 1e-5)
    assert lo >= 10 and hi <= 75  # the check can fail both ways
    check(deals["lead"][3], P_LEAD[3], 1e-5, "lead [3|3]")


def test_first_turn_pass_probability(deals):
    """D3/D5/D6: with random players, the seat after the opener passes on its first
    turn w.p. 322541/1289288 (it holds no tile with the led double's number)."""
    check(deals["first_pass"], P_FIRST_PASS, 4e-5, "first-turn pass")


def test_D2_deal_is_uniform(deals):
    """D2: each seat is the opener w.p. 1/5 and each tile lies in each hand w.p. 5/28
    and out of play w.p. 3/28."""
    alpha = 2e-5 / (5 + 28 * 6)
    for seat in range(5):
        check(deals["opener"][seat], Fraction(1, 5), alpha, f"opener seat {seat}")
    for t in range(28):
        assert sum(deals["where"][t]) == N
        for place in range(6):
            p = Fraction(3, 28) if place == 5 else Fraction(5, 28)
            check(deals["where"][t][place], p, alpha, f"tile {t} in place {place}")
