"""The ratings of domeng.results.stats (issue 25 item 5, the leaderboard):
pairwise duplicate wins, the Bradley-Terry fit on the Elo scale, and its
bootstrap intervals over deals.  Stones are penalties: the lower score wins."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from domeng.results import stats as S


def test_pairwise_wins_count_the_lower_score_and_ties_half():
    scores = [[0.5, 1.0, 2.0], [1.0, 1.0, 0.0], [2.0, 1.0, 1.0]]
    w = S.pairwise_wins(scores)
    assert w.tolist() == [[0.0, 1.5, 1.0], [1.5, 0.0, 1.5], [2.0, 1.5, 0.0]]
    assert ((w + w.T)[~np.eye(3, dtype=bool)] == 3).all()  # each pair meets in every unit
    with pytest.raises(ValueError, match="units, players"):
        S.pairwise_wins([1.0, 2.0])


def test_bradley_terry_solves_its_likelihood_equations():
    """The maximum likelihood fit (prior 0): each player's expected wins
    under the fitted ratings equal the wins it had (Zermelo's equations)."""
    w = np.array([[0, 7, 9, 4], [3, 0, 6, 5], [1, 4, 0, 2], [6, 5, 8, 0]], dtype=float)
    r = S.bradley_terry(w, prior=0)
    p = 1.0 / (1.0 + 10.0 ** ((r[None, :] - r[:, None]) / 400.0))  # P(i beats j)
    np.fill_diagonal(p, 0.0)
    assert ((w + w.T) * p).sum(axis=1) == pytest.approx(w.sum(axis=1), rel=1e-8)
    assert r.mean() == pytest.approx(0.0, abs=1e-9)
    assert r.argsort().tolist() == [2, 1, 3, 0]


def test_bradley_terry_recovers_known_ratings():
    truth = np.array([-300.0, -100.0, 0.0, 150.0, 250.0])
    p = 1.0 / (1.0 + 10.0 ** ((truth[None, :] - truth[:, None]) / 400.0))
    n = 4000
    wins = np.random.default_rng(11).binomial(n, np.triu(p, 1)).astype(float)
    wins = wins + np.tril(n - wins.T, -1)  # j's wins against i: the rest of their games
    np.fill_diagonal(wins, 0.0)
    r = S.bradley_terry(wins, prior=0)
    assert r == pytest.approx(truth - truth.mean(), abs=12)  # ~3 SE of 4000 games a pair


def test_bradley_terry_is_equivariant_and_needs_a_prior_for_a_clean_sweep():
    w = np.array([[0, 5, 4], [2, 0, 3], [1, 2, 0]], dtype=float)
    perm = [2, 0, 1]
    assert S.bradley_terry(w[np.ix_(perm, perm)]) == pytest.approx(S.bradley_terry(w)[perm])
    sweep = np.array([[0, 5], [0, 0]], dtype=float)  # player 1 never won
    with pytest.raises(ValueError, match="no win"):
        S.bradley_terry(sweep, prior=0)
    r = S.bradley_terry(sweep, prior=1.0)  # odds (5 + 1/2) to 1/2: 400 log10(11)
    assert r[0] - r[1] == pytest.approx(400 * np.log10(11))
    with pytest.raises(ValueError, match="square"):
        S.bradley_terry([[0, -1], [1, 0]])


def test_rating_intervals_are_reproducible_and_order_the_players():
    rng = np.random.default_rng(4)
    scores = rng.normal([1.0, 0.6, 0.6, 0.0], 0.5, size=(60, 4))  # lower is better
    r, lo, hi = S.rating_intervals(scores, boot=200, seed=9)
    again = S.rating_intervals(scores, boot=200, seed=9)
    assert all((a == b).all() for a, b in zip((r, lo, hi), again))
    assert ((lo <= r) & (r <= hi)).all() and (hi - lo > 0).all()
    assert r.argsort().tolist()[0] == 0 and r.argmax() == 3
    assert hi[0] < lo[3]  # a clear gap is resolved
    assert lo[1] < r[2] < hi[1]  # two equal players are not
    other = S.rating_intervals(scores, boot=200, seed=10)
    assert not np.array_equal(other[1], lo)  # the seed drives the resamples


@pytest.mark.parametrize("name", ["pairwise_wins", "bradley_terry", "rating_intervals"])
def test_the_rating_examples_run(name):
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    (test,) = finder.find(getattr(S, name), name, globs=dict(vars(S)))
    assert test.examples
    result = runner.run(test)
    assert result.failed == 0
