"""The interval estimators of domeng.results.stats (issue 23 item 1): the t
quantile against tables and scipy, and coverage by simulation for each kind
of quantity (rates, shares, zero counts, paired differences, simultaneous
intervals), with few and many groups.

Each coverage check simulates R = 2000 datasets with a fixed seed, so it is
deterministic; the bound is 4.5 binomial standard deviations of a 95%
coverage (0.0219), which a correct estimator cannot miss by luck at any seed
in practice (p < 1e-5), while the normal z = 1.96 with G = 5 groups covers
only P(|T_4| < 1.96) = 0.878 and fails it (checked below, so the test has
the power it claims)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from domeng.results import stats as S

R = 2000
BOUND = 4.5 * math.sqrt(0.95 * 0.05 / R)

# two-sided 95% (p = 0.975) quantiles from printed tables (e.g. Fisher and Yates)
T975 = {1: 12.7062, 2: 4.3027, 3: 3.1824, 4: 2.7764, 9: 2.2622, 29: 2.0452, 99: 1.9842}


@pytest.mark.parametrize(("df", "q"), sorted(T975.items()))
def test_t_quantile_matches_printed_tables(df, q):
    assert S.t_quantile(0.975, df) == pytest.approx(q, abs=6e-5)
    assert S.critical(df + 1) == S.t_quantile(0.975, df)
    assert S.t_cdf(S.t_quantile(0.975, df), df) == pytest.approx(0.975, abs=1e-13)


def test_t_quantile_matches_scipy():
    st = pytest.importorskip("scipy.stats")
    for df in [*range(1, 60), 99, 250, 999, 1000, 1001, 5000, 10**6]:
        for p in (0.6, 0.9, 0.975, 0.995, 0.99995, 0.025):
            assert S.t_quantile(p, df) == pytest.approx(st.t.ppf(p, df), rel=1e-10), (p, df)


def test_t_quantile_limits_and_bad_input():
    assert S.t_quantile(0.5, 3) == 0.0
    assert S.t_quantile(0.975, 10**7) == pytest.approx(S.Z95, rel=1e-6)
    assert S.t_quantile(0.9, 1) == pytest.approx(math.tan(0.4 * math.pi))
    assert math.isnan(S.critical(1))
    for bad in ((0.0, 3), (1.0, 3), (0.9, 0), (0.9, 2.5)):
        with pytest.raises(ValueError):
            S.t_quantile(*bad)


def _coverage(low, high, truth) -> float:
    return float(np.mean((low <= truth) & (truth <= high)))


def _rates(rng, G, per_group=1000.0, mu=0.3, spread=0.2):
    """Counts ``x[G, R]`` of ``per_group`` rounds per group with a group-level
    rate that varies (clustering by table), true rate ``mu``."""
    lam = mu * rng.gamma(1 / spread**2, spread**2, size=(G, R))
    return rng.poisson(lam * per_group).astype(float), np.full(G, per_group)


@pytest.mark.parametrize("G", [5, 10, 200])
def test_rate_intervals_cover(G):
    rng = np.random.default_rng(20261201 + G)
    x, n = _rates(rng, G)
    v, se, lo, hi = S.interval(x, n)
    cov = _coverage(lo, hi, 0.3)
    assert abs(cov - 0.95) < BOUND, cov
    if G == 5:  # the normal quantile undercovers with few groups, and the bound sees it
        z = _coverage(v - S.Z95 * se, v + S.Z95 * se, 0.3)
        assert z < 0.95 - BOUND, z


@pytest.mark.parametrize("G", [5, 50])
@pytest.mark.parametrize("p", [0.2, 0.03])
def test_share_intervals_cover_with_clustering(G, p):
    """Wilson with the groups' design effect and the t quantile: rounds at a
    table share a probability (a Beta-distributed one per group)."""
    rng = np.random.default_rng(7 + G + int(1000 * p))
    m = 400  # rounds per group
    pg = rng.beta(p * 30, (1 - p) * 30, size=(G, R))
    x = rng.binomial(m, pg).astype(float)
    v, se, lo, hi = S.interval(x, np.full(G, m), share=True)
    assert ((0 <= lo) & (lo <= v) & (v <= hi) & (hi <= 1)).all()
    cov = _coverage(lo, hi, p)
    assert cov > 0.95 - BOUND, cov
    assert cov < 0.995, cov  # not uselessly wide


@pytest.mark.parametrize("G", [5, 40])
def test_share_intervals_cover_with_zero_counts(G):
    """A rare event: about 0.6 expected in all, so most datasets have 0 or 1
    events; an interval never has zero width and covers."""
    rng = np.random.default_rng(11 + G)
    m, p = 100, 0.6 / (100 * G)
    x = rng.binomial(m, p, size=(G, R)).astype(float)
    assert (x.sum(axis=0) == 0).mean() > 0.4
    v, se, lo, hi = S.interval(x, np.full(G, m), share=True)
    assert (hi - lo > 0).all()
    zero = x.sum(axis=0) == 0
    t = S.critical(G)
    assert np.allclose(hi[zero], t * t / (m * G + t * t))  # Wilson's [0, t^2 / (n + t^2)]
    assert _coverage(lo, hi, p) > 0.95 - BOUND


@pytest.mark.parametrize("G", [5, 40])
def test_rate_intervals_cover_with_zero_counts(G):
    """A rare event per round (about 1 expected in all): no events give the
    rule of three, 2.996 / N, never an interval of zero width."""
    rng = np.random.default_rng(3 + G)
    m, mu = 50.0, 1.0 / (50 * G)
    x = rng.poisson(mu * m, size=(G, R)).astype(float)
    v, se, lo, hi = S.interval(x, np.full(G, m))
    zero = x.sum(axis=0) == 0
    assert zero.mean() > 0.3
    assert np.allclose(hi[zero], -math.log(0.05) / (m * G)) and (lo[zero] == 0).all()
    assert (hi > lo).all()
    assert _coverage(lo, hi, mu) > 0.95 - BOUND
    # one event counts 1000 in a rate per 1000 rounds: the bound scales with it
    _, _, _, h = S.interval(1000 * x[:, zero], np.full(G, m), event=1000.0)
    assert np.allclose(h, 1000 * -math.log(0.05) / (m * G))


@pytest.mark.parametrize("G", [5, 100])
def test_paired_differences_cover(G):
    rng = np.random.default_rng(5 + G)
    xb, n = _rates(rng, G)
    xv = xb + rng.poisson(0.02 * 1000, size=(G, R)) - rng.poisson(0.01 * 1000, size=(G, R))
    d, se, seu, lo, hi = S.difference_interval(xv, n, xb, n)
    assert (se < seu).all()  # the pairing pays
    cov = _coverage(lo, hi, 0.01)
    assert abs(cov - 0.95) < BOUND, cov
    if G == 5:
        assert _coverage(d - S.Z95 * se, d + S.Z95 * se, 0.01) < 0.95 - BOUND


def test_difference_of_two_arms_without_events_is_not_zero_width():
    x = np.zeros((10, 1))
    n = np.full(10, 20.0)
    d, se, _, lo, hi = S.difference_interval(x, n, x, n)
    u = -math.log(0.025) / 200
    assert d[0] == 0 and se[0] == 0
    assert lo[0] == pytest.approx(-u) and hi[0] == pytest.approx(u)


@pytest.mark.parametrize("method", ["bonferroni", "holm"])
def test_adjusted_intervals_hold_together(method):
    """m = 10 differences, all truly 0, G = 20 groups: the intervals each at
    95% alone miss one of ten about 40% of the time; adjusted, at most 5%."""
    rng = np.random.default_rng(99)
    G, m, reps = 20, 10, 1000
    y = rng.normal(size=(reps, G, m))
    v = y.mean(axis=1)
    se = y.std(axis=1, ddof=1) / math.sqrt(G)
    alone = any_miss = 0
    for k in range(reps):
        p = S.p_value(v[k], se[k], G)
        levels = S.adjusted_levels(p, method)
        lo, hi = S.t_interval(v[k], se[k], G, levels)
        any_miss += bool(((lo > 0) | (hi < 0)).any())
        lo1, hi1 = S.t_interval(v[k], se[k], G)
        alone += bool(((lo1 > 0) | (hi1 < 0)).any())
    bound = 4.5 * math.sqrt(0.05 * 0.95 / reps)
    assert alone / reps > 0.3
    assert any_miss / reps < 0.05 + bound, any_miss / reps


def test_holm_levels_step_down_and_stop():
    lv = S.adjusted_levels([0.001, 0.02, 0.021, 0.5], "holm")
    # 0.001 <= 0.05/4: rejected at 1 - 0.05/4; 0.02 > 0.05/3: stops, and the rest keep its level
    assert lv.tolist() == pytest.approx([1 - 0.05 / 4, 1 - 0.05 / 3, 1 - 0.05 / 3, 1 - 0.05 / 3])
    assert S.adjusted_levels([0.3, 0.1], "bonferroni").tolist() == [0.975, 0.975]
    assert S.adjusted_levels([0.3, 0.1], None).tolist() == [0.95, 0.95]
    with pytest.raises(ValueError):
        S.adjusted_levels([0.1], "sidak")


# ---------------------------------------------------------------- in a study
@pytest.fixture(scope="module")
def small():
    import domeng

    return domeng.simulate(tables=10, rounds=10, progress=False)


def _leaves(d, path=""):
    if isinstance(d, dict) and "value" in d and "se" in d:
        yield path, d
    elif isinstance(d, dict):
        for k, v in d.items():
            yield from _leaves(v, f"{path}.{k}")


def test_no_interval_of_zero_width_in_a_small_study(small):
    """The defect of issue 23: POLLO by starter offset with 0 wins had
    [0, 0] and printed "0.0000 ± 0.0000"; now every estimate of the summary
    and every frame has an interval of positive width, t with 9 degrees of
    freedom for 10 groups."""
    n = 0
    for path, est in _leaves(small.summary()):
        if est["value"] is None:
            continue
        assert est["ci_high"] > est["ci_low"], path
        n += 1
    assert n > 120
    off = small.win_by_starter_offset()
    zero = off[off.wins == 0]
    assert len(zero) > 0 and (zero.ci_high > 0).all() and (zero.ci_low == 0).all()
    for df in small.frames().values():
        for c in [c for c in df.columns if c.endswith("ci_high")]:
            lo = df[c.replace("ci_high", "ci_low")]
            assert (df[c] > lo).all(), c
    text = small.to_text()
    assert "9 degrees of freedom" in text
    import re

    assert not re.search(r"± 0\.0+(\s|$)", text), text


def test_point_estimates_are_the_ratio_estimates(small):
    """Only the intervals changed: each value is still sum x / sum n."""
    from domeng.results.metrics import metric_parts

    s = small.summary()
    for name, p in metric_parts(small).items():
        node = s
        for k in p.path:
            node = node[k]
        v, se = S.ratio(p.x, p.n)
        assert node["value"] == pytest.approx(float(v), abs=0, rel=0) or (
            np.isnan(v) and node["value"] is None
        ), name
