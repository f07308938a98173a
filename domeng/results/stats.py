"""The one statistics module: every estimate, standard error and interval of
domeng (results, comparisons, sweeps, tournaments, ladders, ``analysis/``)
comes from here.

Units.  A study's tables are independent (D16), but the rounds at one table
are not (stones, the CAMAT and the next starter carry over, D4, D15).  So
every standard error is computed across independent *units*: groups of
whole tables in a study, deals in a tournament, never rounds.  The
clustering of rounds by table is therefore in every SE below.

Ratio estimator.  A rate is ``r = sum_g x_g / sum_g n_g`` over the ``G``
units (``x_g``: e.g. wins of seat 0 in group g, ``n_g``: rounds played in
group g).  Its delta-method (linearised) standard error uses the
*influence* of each unit, ``z_g = (x_g - r n_g) / mean(n)``::

    SE(r) = sqrt( sum_g z_g^2 / (G (G - 1)) )

Paired differences.  Two arms played on the same units (common random
numbers: the same seeds, hence the same deals until the arms' moves
diverge) give ``d = r_v - r_b`` with influence ``z_vg - z_bg``, so
``SE_paired(d) = sqrt( sum_g (z_vg - z_bg)^2 / (G (G - 1)) )``; the unpaired
SE ``sqrt(SE(r_v)^2 + SE(r_b)^2)`` is what two independent studies would
give.  Their ratio shows what the pairing saved.

Intervals (level 95% unless asked; one estimator per kind of quantity, all
through :func:`interval` and :func:`difference_interval`):

* a **rate or mean** (events per round, stones per table, a paired
  difference): ``estimate -/+ t SE`` with ``t`` the Student-t quantile
  with ``G - 1`` degrees of freedom (:func:`critical`; 2.776 for G = 5,
  2.262 for G = 10, 1.962 for G = 1000), so few units widen the interval
  as they should.  A rate of a count (never negative) has its low end
  cut at 0.
* a **share** (a count of events out of ``n`` trials: end kinds, win rates,
  rounds with a pass, start shares): the Wilson score interval
  (:func:`wilson`) with the design effect of the clustering: the effective
  number of trials is ``n_eff = p (1 - p) / SE^2`` (the SE across units, so
  the clustering by table is accounted), capped at the ``n`` trials
  (design effect at least 1, as in Korn and Graubard 1998), and the
  quantile is the same ``t`` with ``G - 1`` degrees of freedom.  With 0 or
  ``n`` events (SE 0, so no design effect can be estimated) ``n_eff = n``:
  the interval is then never of zero width, e.g. ``[0, t^2 / (n + t^2)]``
  for no events.  It always lies in [0, 1].
* a **rate with no events at all** (every ``x_g`` zero, so the SE is 0):
  the one-sided upper bound of the Poisson rule of three,
  ``[0, -ln(1 - level) / N]`` per event (``-ln 0.05 = 2.996`` events in
  ``N`` rounds at 95%).  No clustering can be estimated from no events; the
  bound treats the rounds as independent.  A paired difference of two arms
  that both had no events gets ``[-U_b, U_v]``, each arm's bound at the
  level ``(1 + level) / 2``.

Simultaneous intervals.  :func:`adjusted_levels` gives the per-interval
levels that make ``m`` intervals hold together (Bonferroni: each at
``1 - alpha / m``; Holm: step-down, the k-th smallest p-value at
``1 - alpha / (m - k + 1)``).

Anytime-valid half-widths for studies that stop on the data are in
:mod:`domeng.results.sequential`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas loads only where a table is made (a study starts without it)
    import pandas as pd

#: the 97.5% quantile of the standard normal distribution (the limit of
#: :func:`critical` for many units; used by the anytime-valid bounds)
Z95 = 1.959963984540054
#: the default level of every interval
LEVEL = 0.95
#: how a set of intervals is adjusted to hold simultaneously (``None``: each alone)
ADJUSTMENTS = ("holm", "bonferroni")

__all__ = [
    "ADJUSTMENTS",
    "LEVEL",
    "Z95",
    "add_ci",
    "adjusted_levels",
    "critical",
    "difference_interval",
    "estimate",
    "estimate_of",
    "interval",
    "mean_se",
    "num",
    "p_value",
    "paired_difference",
    "ratio",
    "ratio_influence",
    "se_from_influence",
    "t_cdf",
    "t_interval",
    "t_quantile",
    "unpaired_se",
    "wilson",
    "zero_events_upper",
]


# ---------------------------------------------------------------- Student t
def _check_df(df) -> int:
    if isinstance(df, bool) or int(df) != df or df < 1:
        raise ValueError(f"degrees of freedom must be a whole number >= 1, got {df!r}")
    return int(df)


def _two_sided(t: float, df: int) -> float:
    """``P(|T| < t)`` for Student's t with ``df`` degrees of freedom, ``t >= 0``:
    the finite series of Abramowitz and Stegun 26.7.3 (odd) and 26.7.4 (even),
    exact up to rounding (every term is positive)."""
    theta = math.atan(t / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df == 1:
        return 2 * theta / math.pi
    if df % 2:  # 1 + 2/3 c^2 + (2 4)/(3 5) c^4 + ... up to c^(df-3), times cos
        k = np.arange(1, (df - 1) // 2, dtype=np.float64)
        terms = np.cumprod(2 * k / (2 * k + 1) * c2)
        return 2 / math.pi * (theta + s * math.sqrt(c2) * (1 + terms.sum()))
    k = np.arange(1, df // 2, dtype=np.float64)  # 1 + 1/2 c^2 + (1 3)/(2 4) c^4 + ...
    terms = np.cumprod((2 * k - 1) / (2 * k) * c2)
    return s * (1 + terms.sum())


def _density(t: float, df: int) -> float:
    lc = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(lc - (df + 1) / 2 * math.log1p(t * t / df))


def t_cdf(t: float, df: int) -> float:
    """The distribution function of Student's t with ``df`` (a whole number)
    degrees of freedom."""
    df = _check_df(df)
    a = _two_sided(abs(float(t)), df)
    return 0.5 + a / 2 if t >= 0 else 0.5 - a / 2


@lru_cache(maxsize=4096)
def _quantile(p: float, df: int) -> float:
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -_quantile(1 - p, df)
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    z = NormalDist().inv_cdf(p)
    if df > 1000:  # Cornish-Fisher expansion (A&S 26.7.5): error below 1e-12 here
        z2 = z * z
        g = (
            (z2 + 1) * z / 4,
            ((5 * z2 + 16) * z2 + 3) * z / 96,
            (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384,
            ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160,
        )
        return z + sum(gi / df ** (i + 1) for i, gi in enumerate(g))
    # Newton on P(|T| < q) = 2p - 1 from the normal quantile: the function is
    # concave for q > 0 and the start lies below the root, so the steps rise
    # monotonically to it (no overshoot)
    target, q, last = 2 * p - 1, z, math.inf
    for _ in range(400):
        miss = target - _two_sided(q, df)
        if abs(miss) <= 1e-12 and abs(miss) >= last:
            return q  # at the rounding of the series: the misses no longer shrink
        q, last = q + miss / (2 * _density(q, df)), abs(miss)
    raise ArithmeticError(f"t quantile did not converge (p={p}, df={df})")  # pragma: no cover


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` (a whole number >= 1)
    degrees of freedom, to about 1e-12 relative at the usual levels (1e-10 at
    p = 1 - 5e-7); tested against printed tables and scipy, which it does
    not need."""
    p = float(p)
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must lie in (0, 1), got {p!r}")
    return _quantile(p, _check_df(df))


def critical(groups: int, level: float = LEVEL) -> float:
    """The two-sided critical value of a ``level`` interval across ``groups``
    units: ``t_{(1 + level)/2}`` with ``groups - 1`` degrees of freedom (NaN
    with fewer than 2 units)."""
    groups = int(groups)
    if groups < 2:
        return math.nan
    return t_quantile((1 + float(level)) / 2, groups - 1)


def _critical(groups: int, level) -> np.ndarray | float:
    """:func:`critical` for a scalar or an array of levels."""
    lv = np.asarray(level, dtype=np.float64)
    if lv.ndim == 0:
        return critical(groups, float(lv))
    return np.array([critical(groups, float(x)) for x in lv.ravel()]).reshape(lv.shape)


# ---------------------------------------------------------------- estimators
def ratio_influence(x: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ratio ``sum x / sum n`` over units (axis 0) and each unit's influence.

    ``x``: ``[G, ...]``; ``n``: ``[G]`` or the shape of ``x``.  Returns ``r``
    (shape ``x.shape[1:]``) and ``z`` (shape of ``x``) with
    ``z_g = (x_g - r n_g) / mean(n)`` (NaN where ``sum n`` is 0)."""
    x = np.asarray(x, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    if n.ndim < x.ndim:
        n = n.reshape(n.shape + (1,) * (x.ndim - n.ndim))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = x.sum(axis=0) / n.sum(axis=0)
        z = (x - r * n) / n.mean(axis=0)
    return r, z


def se_from_influence(z: np.ndarray) -> np.ndarray:
    """Standard error of an estimator with per-unit influence ``z`` (axis 0;
    NaN with fewer than 2 units)."""
    z = np.asarray(z, dtype=np.float64)
    G = z.shape[0]
    if G < 2:
        return np.full(z.shape[1:], np.nan)
    with np.errstate(invalid="ignore"):
        return np.sqrt((z**2).sum(axis=0) / (G * (G - 1)))


def ratio(x: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ratio estimate ``sum x / sum n`` and its SE across units (axis 0).

    ``x``: ``[G, ...]``, ``n``: ``[G]`` (or the shape of ``x``).  Returns
    arrays of shape ``x.shape[1:]``; the SE is NaN with one unit or when
    ``sum n`` is 0."""
    r, z = ratio_influence(x, n)
    return r, se_from_influence(z)


def paired_difference(
    xv: np.ndarray, nv: np.ndarray, xb: np.ndarray, nb: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``r_v - r_b`` of two ratio estimators on the same units (the same
    groups of tables), with its paired SE and the unpaired SE.

    Returns ``(difference, se_paired, se_unpaired)``."""
    rv, zv = ratio_influence(xv, nv)
    rb, zb = ratio_influence(xb, nb)
    if zv.shape != zb.shape:
        raise ValueError(f"paired arms need the same units: shapes {zv.shape} and {zb.shape}")
    return (
        rv - rb,
        se_from_influence(zv - zb),
        unpaired_se(se_from_influence(zv), se_from_influence(zb)),
    )


def unpaired_se(se_a, se_b):
    """SE of a difference of two independent estimates."""
    return np.hypot(se_a, se_b)


def mean_se(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean over independent units (axis 0) and its standard error."""
    x = np.asarray(x, dtype=np.float64)
    return ratio(x, np.ones(x.shape[0]))


# ---------------------------------------------------------------- intervals
def t_interval(value, se, groups: int, level=LEVEL):
    """``value -/+ t SE`` with the t quantile of ``groups - 1`` degrees of
    freedom (:func:`critical`; ``level`` may be an array); NaN where the SE is."""
    c = _critical(groups, level)
    value = np.asarray(value, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    return value - c * se, value + c * se


def wilson(share, se, trials, groups: int, level=LEVEL):
    """Wilson score interval of a share with the design effect of its units.

    ``share``: the estimate ``p``; ``se``: its SE across the ``groups``
    units; ``trials``: the number ``n`` of trials it counts (rounds, seats x
    rounds, tables).  The effective number of trials is
    ``n_eff = min(n, p (1 - p) / se^2)`` (so the clustering of rounds at a
    table is kept, and the design effect is at least 1); with 0 or ``n``
    events, or an SE of 0, ``n_eff = n``.  The quantile is the t quantile of
    ``groups - 1`` degrees of freedom.  The interval always lies in [0, 1]
    and has positive width (Wilson, 1927, J. Amer. Statist. Assoc. 22:
    209-212; Korn and Graubard, 1998, Survey Methodology 24: 193-201).
    Returns ``(low, high)`` arrays (NaN where the SE is undefined)."""
    p = np.clip(np.asarray(share, dtype=np.float64), 0.0, 1.0)
    se = np.asarray(se, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    c = _critical(groups, level)
    with np.errstate(invalid="ignore", divide="ignore"):
        inner = (se > 0) & (p > 0) & (p < 1)
        n_eff = np.where(inner, np.minimum(n, p * (1 - p) / np.where(inner, se, 1.0) ** 2), n)
        c2n = c * c / n_eff
        centre = (p + c2n / 2) / (1 + c2n)
        half = c * np.sqrt(p * (1 - p) / n_eff + c2n / (4 * n_eff)) / (1 + c2n)
        low = np.minimum(np.clip(centre - half, 0.0, 1.0), p)  # exact at 0 and n events
        high = np.maximum(np.clip(centre + half, 0.0, 1.0), p)
    bad = ~np.isfinite(se) | ~(n > 0)
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


def zero_events_upper(exposure, level=LEVEL):
    """The one-sided ``level`` upper bound of a Poisson rate with no events in
    ``exposure`` (trials, rounds): ``-ln(1 - level) / exposure`` (the rule of
    three: 2.996 / exposure at 95%)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.log1p(-np.asarray(level, dtype=np.float64)) / np.asarray(exposure, float)


def _totals(x: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sum x`` and ``sum n`` over the units, ``n`` broadcast to ``x``."""
    n = np.asarray(n, dtype=np.float64)
    if n.ndim < x.ndim:
        n = n.reshape(n.shape + (1,) * (x.ndim - n.ndim))
    return np.abs(x).sum(axis=0), np.broadcast_to(n, x.shape).sum(axis=0)


def interval(x, n, *, share: bool = False, event=1.0, level=LEVEL, signed: bool = False):
    """A ratio estimate over units (axis 0) with its SE and interval, by the
    rule for its kind (module docstring).

    ``x``: ``[G, ...]``, ``n``: ``[G]`` or the shape of ``x``; ``share``: a
    proportion (Wilson); otherwise a rate (t; cut at 0 unless ``signed``;
    with no events at all, ``[0, rule of three]``).  ``event``: the value one
    event adds to ``x`` (1; 1000 for a rate per 1000 rounds; 1/k for a player
    averaged over k seats), so that ``sum n / event`` counts the trials.
    Returns ``(value, se, low, high)``, each of shape ``x.shape[1:]``."""
    x = np.asarray(x, dtype=np.float64)
    G = x.shape[0]
    r, se = ratio(x, n)
    ax, N = _totals(x, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        trials = N / event
    if share:
        lo, hi = wilson(r, se, trials, G, level)
        return r, se, lo, hi
    lo, hi = t_interval(r, se, G, level)
    if not signed:
        lo = np.maximum(lo, 0.0)
        zero = (ax == 0) & (N > 0) & np.isfinite(se)
        hi = np.where(zero, event * zero_events_upper(N, level), hi)
    return r, se, lo, hi


def difference_interval(xv, nv, xb, nb, *, event=1.0, level=LEVEL):
    """Paired difference ``r_v - r_b`` of two ratio estimators on the same
    units with its interval (t with ``G - 1`` degrees of freedom; where both
    arms had no events, ``[-U_b, U_v]``, each arm's rule-of-three bound at
    the level ``(1 + level) / 2``).

    Returns ``(difference, se_paired, se_unpaired, low, high)``."""
    d, se, seu = paired_difference(xv, nv, xb, nb)
    xv, xb = np.asarray(xv, dtype=np.float64), np.asarray(xb, dtype=np.float64)
    lo, hi = t_interval(d, se, xv.shape[0], level)
    (av, Nv), (ab, Nb) = _totals(xv, nv), _totals(xb, nb)
    both = (av == 0) & (ab == 0) & (Nv > 0) & (Nb > 0) & np.isfinite(se)
    if np.any(both):
        half = (1 + np.asarray(level, dtype=np.float64)) / 2
        lo = np.where(both, -event * zero_events_upper(Nb, half), lo)
        hi = np.where(both, event * zero_events_upper(Nv, half), hi)
    return d, se, seu, lo, hi


def p_value(value, se, groups: int) -> np.ndarray:
    """Two-sided p-value of ``value = 0`` with the t distribution of
    ``groups - 1`` degrees of freedom (1 where the SE is 0 or undefined)."""
    value = np.atleast_1d(np.asarray(value, dtype=np.float64))
    se = np.atleast_1d(np.asarray(se, dtype=np.float64))
    out = np.ones(value.shape)
    if groups < 2:
        return out
    for i, (v, s) in enumerate(zip(value, se)):
        if s > 0 and np.isfinite(s) and np.isfinite(v):
            out[i] = 1.0 - _two_sided(abs(v) / s, groups - 1)
    return out


def adjusted_levels(pvalues, method: str | None, level: float = LEVEL) -> np.ndarray:
    """The level of each of ``m`` intervals so that they hold together.

    ``None``: each at ``level`` alone.  ``"bonferroni"``: each at
    ``1 - alpha / m`` (``alpha = 1 - level``): the ``m`` intervals cover
    their values simultaneously with probability at least ``level``.
    ``"holm"``: Holm's step-down: the k-th smallest p-value's interval at
    ``1 - alpha / (m - k + 1)`` until the first one that holds 0, and every
    later one at that one's level; an interval then excludes 0 exactly for
    the differences Holm's test finds (family-wise error at most alpha), and
    is narrower than Bonferroni's except for the first."""
    p = np.asarray(pvalues, dtype=np.float64).ravel()
    m = len(p)
    alpha = 1.0 - float(level)
    if method is None or m == 0:
        return np.full(m, float(level))
    if method == "bonferroni":
        return np.full(m, 1.0 - alpha / m)
    if method != "holm":
        raise ValueError(f"adjust must be one of {', '.join(ADJUSTMENTS)} or None, got {method!r}")
    out = np.empty(m)
    stop = None
    for k, i in enumerate(np.argsort(p, kind="stable")):
        if stop is None and p[i] > alpha / (m - k):
            stop = k
        out[i] = 1.0 - alpha / (m - (k if stop is None else stop))
    return out


def add_ci(
    df: pd.DataFrame,
    col: str = "rate",
    se: str = "se",
    *,
    share: bool = False,
    prefix: str = "",
    groups: int | None = None,
    trials=None,
) -> pd.DataFrame:
    """Add ``ci_low``/``ci_high`` (95%) to ``df`` for column ``col`` with SE
    column ``se`` across ``groups`` units: Wilson with ``trials`` (an array,
    or a column name) for a share (``share=True``), t otherwise (no
    zero-event rule: prefer :func:`interval` where the counts are at hand).
    Without ``groups`` (a caller that knows only values and SEs) the
    quantile is the normal one, valid for many units.  ``prefix`` names the
    new columns ``{prefix}ci_low``, ``{prefix}ci_high``."""
    v = df[col].to_numpy(dtype=float)
    s = df[se].to_numpy(dtype=float)
    G = groups if groups is not None else 10**9
    if share:
        n = df[trials].to_numpy(dtype=float) if isinstance(trials, str) else trials
        if n is None:  # the trials implied by the SE alone (no cap, no zero-event rule)
            with np.errstate(divide="ignore", invalid="ignore"):
                n = np.where(s > 0, v * (1 - v) / s**2, np.nan)
        lo, hi = wilson(v, s, n, G)
    else:
        lo, hi = t_interval(v, s, G)
    df[f"{prefix}ci_low"] = lo
    df[f"{prefix}ci_high"] = hi
    return df


def num(x) -> float | None:
    """A float for JSON: None for NaN and infinities."""
    x = float(x)
    return x if math.isfinite(x) else None


def estimate(value, se, low=None, high=None) -> dict:
    """A JSON estimate ``{"value", "se", "ci_low", "ci_high"}`` (None for a
    missing number); the bounds come from :func:`interval`."""
    return {"value": num(value), "se": num(se), "ci_low": num(low), "ci_high": num(high)}


def estimate_of(x, n, *, share: bool = False, event=1.0) -> dict:
    """:func:`estimate` of a ratio estimator (:func:`interval`), as JSON."""
    return estimate(*interval(x, n, share=share, event=event))


# ---------------------------------------------------------------- ratings
#: Elo points per unit of log-odds: a gap of 400 points is odds of 10 to 1
ELO_SCALE = 400.0 / math.log(10.0)


def pairwise_wins(scores) -> np.ndarray:
    """``W[i, j]``: the units (deals) in which player ``i`` scored lower than
    player ``j`` (stones are penalties: lower is better), a tie counting half
    to each; ``scores`` is ``[units, players]``.

    >>> pairwise_wins([[0.5, 1.0], [1.0, 1.0], [2.0, 1.0]]).tolist()
    [[0.0, 1.5], [1.5, 0.0]]
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2:
        raise ValueError("scores are [units, players]")
    w = (s[:, :, None] < s[:, None, :]).sum(axis=0) + 0.5 * (s[:, :, None] == s[:, None, :]).sum(
        axis=0
    )
    np.fill_diagonal(w, 0.0)
    return w.astype(np.float64)


def bradley_terry(wins, prior: float = 1.0, tol: float = 1e-10, max_iter: int = 100_000):
    """Bradley-Terry ratings on the Elo scale from a matrix of pairwise wins
    (``wins[i, j]``: games ``i`` won against ``j``): ``P(i beats j) = 1 /
    (1 + 10 ** ((r_j - r_i) / 400))``, the ratings centred on 0.

    ``prior`` virtual games per pair, drawn (half a win each way), keep the
    fit finite when a player won or lost every game against another (the
    maximum a posteriori fit under that prior; 0: the maximum likelihood
    fit, which needs every player to have won and lost a game in every
    split of the players).  Fitted by Hunter's (2004) MM iteration.

    >>> r = bradley_terry([[0, 30], [10, 0]], prior=0)
    >>> round(float(r[0] - r[1]), 1)  # odds 3 to 1: 400 log10(3)
    190.8
    """
    w = np.asarray(wins, dtype=np.float64).copy()
    n = w.shape[0]
    if w.shape != (n, n) or (w < 0).any() or not np.isfinite(w).all():
        raise ValueError("wins is a square matrix of counts")
    w += (prior / 2.0) * (1.0 - np.eye(n))
    games = w + w.T
    won = w.sum(axis=1)
    if (won <= 0).any():
        raise ValueError("a player with no win has no finite rating: give prior > 0")
    p = np.ones(n)
    for _ in range(max_iter):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = won / denom
        new /= np.exp(np.log(new).mean())
        done = np.max(np.abs(np.log(new) - np.log(p))) < tol
        p = new
        if done:
            break
    r = ELO_SCALE * np.log(p)
    return r - r.mean()


def rating_intervals(scores, boot: int = 2000, seed: int = 0, prior: float = 1.0, level=LEVEL):
    """Bradley-Terry ratings (:func:`bradley_terry`, Elo scale) of players
    from their scores in independent units (``[units, players]``, lower is
    better: a duplicate match's net stones per round in each deal), with
    percentile bootstrap intervals: the units are resampled with
    replacement ``boot`` times (a generator seeded ``seed``) and refitted.

    Returns ``(rating, low, high)``, arrays over the players.

    >>> import numpy as np
    >>> s = np.random.default_rng(1).normal([0.0, 0.5, 1.0], 1.0, size=(40, 3))
    >>> r, lo, hi = rating_intervals(s, boot=200)
    >>> bool(r[0] > r[1] > r[2]), bool((lo <= r).all() and (r <= hi).all())
    (True, True)
    """
    s = np.asarray(scores, dtype=np.float64)
    point = bradley_terry(pairwise_wins(s), prior)
    rng = np.random.default_rng(seed)
    g = s.shape[0]
    reps = np.array(
        [bradley_terry(pairwise_wins(s[rng.integers(0, g, g)]), prior) for _ in range(boot)]
    )
    alpha = (1.0 - float(level)) / 2.0
    low, high = np.quantile(reps, [alpha, 1.0 - alpha], axis=0)
    return point, low, high
