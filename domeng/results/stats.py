"""The one statistics module: every estimate, standard error and interval of
domeng (results, comparisons, sweeps, tournaments, ``analysis/``) comes from here.

Units.  A study's tables are independent (D16), but the rounds at one table
are not (stones, the CAMAT and the next starter carry over, D4, D15).  So
every standard error is computed across independent *units*: groups of
tables in a study, deals in a tournament, never rounds.

Ratio estimator.  A rate is ``r = sum_g x_g / sum_g n_g`` over the units
(``x_g``: e.g. wins of seat 0 in group g, ``n_g``: rounds played in group
g).  Its delta-method (linearised) standard error uses the *influence* of
each unit, ``z_g = (x_g - r n_g) / mean(n)``::

    SE(r) = sqrt( sum_g z_g^2 / (G (G - 1)) )

Paired differences.  Two arms played on the same units (common random
numbers: the same seeds, hence the same deals until the arms' moves
diverge) give ``d = r_v - r_b`` with influence ``z_vg - z_bg``, so
``SE_paired(d) = sqrt( sum_g (z_vg - z_bg)^2 / (G (G - 1)) )``; the unpaired
SE ``sqrt(SE(r_v)^2 + SE(r_b)^2)`` is what two independent studies would
give.  Their ratio shows what the pairing saved.

Intervals.  95% intervals are ``estimate -/+ Z95 * SE`` (normal
approximation), except shares (a proportion in [0, 1]), which get the
Wilson score interval (:func:`wilson`), so they never leave [0, 1].

Anytime-valid half-widths for studies that stop on the data are in
:mod:`domeng.results.sequential`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas loads only where a table is made (a study starts without it)
    import pandas as pd

#: the 97.5% quantile of the standard normal distribution (two-sided 95% intervals)
Z95 = 1.959963984540054

__all__ = [
    "Z95",
    "add_ci",
    "estimate",
    "mean_se",
    "normal_ci",
    "num",
    "paired_difference",
    "ratio",
    "ratio_influence",
    "se_from_influence",
    "unpaired_se",
    "wilson",
]


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


def normal_ci(value, se, z: float = Z95):
    """``(low, high) = value -/+ z se`` (NaN when the SE is)."""
    value = np.asarray(value, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    return value - z * se, value + z * se


def wilson(share, se, z: float = Z95):
    """Wilson score interval of a share (a proportion) with standard error ``se``.

    The effective sample size is taken from the SE, ``n = p (1 - p) / se^2``
    (so the clustering of rounds at a table is kept); for ``p`` of 0 or 1,
    where that is undefined, the interval is the point itself.  The interval
    always lies in [0, 1] (Wilson, 1927, J. Amer. Statist. Assoc. 22: 209-212).
    Returns ``(low, high)`` arrays (NaN where the SE is)."""
    p = np.clip(np.asarray(share, dtype=np.float64), 0.0, 1.0)
    se = np.asarray(se, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        n = p * (1 - p) / se**2
        z2n = z * z / n
        centre = (p + z2n / 2) / (1 + z2n)
        half = z * np.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
        low = np.clip(centre - half, 0.0, 1.0)
        high = np.clip(centre + half, 0.0, 1.0)
    degenerate = np.isfinite(se) & ((p == 0) | (p == 1) | (se == 0))
    low = np.where(degenerate, p, low)
    high = np.where(degenerate, p, high)
    return low, high


def add_ci(
    df: pd.DataFrame, col: str = "rate", se: str = "se", *, share: bool = False, prefix: str = ""
) -> pd.DataFrame:
    """Add ``ci_low``/``ci_high`` (95%) to ``df`` for column ``col`` with SE
    column ``se``: Wilson for a share (``share=True``), normal otherwise.
    ``prefix`` names the new columns ``{prefix}ci_low``, ``{prefix}ci_high``."""
    lo, hi = (wilson if share else normal_ci)(
        df[col].to_numpy(dtype=float), df[se].to_numpy(dtype=float)
    )
    df[f"{prefix}ci_low"] = lo
    df[f"{prefix}ci_high"] = hi
    return df


def num(x) -> float | None:
    """A float for JSON: None for NaN and infinities."""
    x = float(x)
    return x if math.isfinite(x) else None


def estimate(value, se, share: bool = False) -> dict:
    """A JSON estimate ``{"value": v, "se": s}`` (None for a missing value);
    a share (``share=True``) also gets its Wilson 95% bounds ``ci_low``,
    ``ci_high`` (within [0, 1]; None where the SE is undefined)."""
    out = {"value": num(value), "se": num(se)}
    if share:
        lo, hi = wilson(value, se)
        out["ci_low"], out["ci_high"] = num(lo), num(hi)
    return out
