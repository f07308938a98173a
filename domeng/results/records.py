"""Reading a study's records and estimating custom metrics from them.

:func:`read_records` reads the per-round (or per-seat) records of a study
folder as one DataFrame: a ``simulate`` folder's ``records.parquet``, or a
``compare`` / ``sweep`` folder's arms, keyed by ``arm`` (and, for a sweep,
the swept options' values) beside ``table`` and ``round``.

:func:`metric_from_records` estimates a custom metric, the mean over rows
of any per-row quantity (or a ratio of two), with a standard error
clustered by table: the tables are the independent units (D16), the rounds
at a table are not (D4, D15).  :func:`difference_from_records` is the paired
difference of such a metric between two arms played on the same tables.
Both use the estimators of :mod:`domeng.results.stats` (the ratio
estimator, Student-t with ``G - 1`` degrees of freedom, Wilson for shares)
and return ``{value, se, ci_low, ci_high}``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import pandas as pd

from domeng.core.errors import ResultsError
from domeng.results import stats

#: per-row values: a column name, a function of the frame, or an array
Values: TypeAlias = "str | Callable[[pd.DataFrame], Any] | np.ndarray | pd.Series"


def read_records(folder: str | os.PathLike, seats: bool = False) -> pd.DataFrame:
    """The records of a study folder as one DataFrame.

    Parameters
    ----------
    folder:
        A folder written with ``--records``: by ``domeng simulate --out``
        (its ``records.parquet``), ``domeng compare --out`` or ``domeng sweep
        --out`` (each arm's ``arms/K/records.parquet``).
    seats:
        False: one row per table x round (``records.parquet``); True: one
        row per table x round x seat (``records_seats.parquet``).

    Returns
    -------
    pandas.DataFrame
        The rows in file order; for a comparison or sweep, every arm's rows
        with a first column ``arm`` (categorical, in the study's arm order:
        the baseline or first point first) and, for a sweep, a column per
        swept option holding the point's value.  ``(arm, table, round)`` is
        then a key, and the same ``table`` in two arms played the same deals
        until the arms' moves diverged (paired).

    Raises
    ------
    ResultsError
        A folder without records (one line saying so).

    Examples
    --------
    >>> import tempfile, domeng
    >>> from domeng.results import read_records
    >>> d = tempfile.mkdtemp()
    >>> _ = domeng.compare(["pollo=4"], tables=2, rounds=2, out=d + "/c", records=True,
    ...                    progress=False)
    >>> rec = read_records(d + "/c")
    >>> list(rec.columns[:3]), list(rec.arm.cat.categories)
    (['arm', 'table', 'round'], ['baseline', 'pollo_award=4'])
    >>> len(read_records(d + "/c", seats=True)) == 5 * len(rec)
    True
    """
    folder = Path(folder)
    name = "records_seats.parquet" if seats else "records.parquet"
    for kind in ("compare", "sweep"):
        from domeng.results.compare_report import KINDS

        if (folder / KINDS[kind][1]).is_file():
            return _read_arms(folder, kind, name)
    return _read_one(folder / name, folder)


def _read_one(path: Path, folder: Path) -> pd.DataFrame:
    if not path.is_file() or path.is_symlink():
        raise ResultsError(
            f"no records in {str(folder)!r} (no {path.name}): run the study with --records"
        )
    try:
        return pd.read_parquet(path)
    except (OSError, ValueError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ResultsError(f"cannot read {str(path)!r}: {first}") from None


def _read_arms(folder: Path, kind: str, name: str) -> pd.DataFrame:
    from domeng.results.compare_report import arm_folder, read_manifest

    m = read_manifest(folder, kind)
    names = [a["name"] for a in m["arms"]]
    frames = []
    for k, arm in enumerate(names):
        df = _read_one(arm_folder(folder, k) / name, folder)
        if kind == "sweep":
            point = m["points"][k]
            for j, (option, value) in enumerate(point.items()):
                df.insert(j, option, value)
        df.insert(0, "arm", pd.Categorical([arm] * len(df), categories=names))
        frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    if "player" in out.columns:  # each arm's file has its own players: one categorical
        out["player"] = out["player"].astype(str).astype("category")
    return out


def _values(df: pd.DataFrame, v: Values, what: str) -> np.ndarray:
    if isinstance(v, str):
        if v not in df.columns:
            raise ResultsError(f"{what}: no column {v!r} in the records")
        out = df[v]
    elif callable(v):
        out = v(df)
    else:
        out = v
    arr = np.asarray(out, dtype=np.float64)
    if arr.shape != (len(df),):
        raise ResultsError(f"{what}: expected one value per row ({len(df)}), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ResultsError(f"{what}: some values are missing or not finite")
    return arr


def _clustered(df: pd.DataFrame, per_round: Values, per, cluster: str):
    """Per-cluster sums ``x_g`` of the values and ``n_g`` of the denominator
    (one per row without ``per``), clusters in sorted order."""
    if cluster not in df.columns:
        raise ResultsError(f"cluster: no column {cluster!r} in the records")
    x = _values(df, per_round, "per_round")
    n = np.ones(len(df)) if per is None else _values(df, per, "per")
    keys, idx = np.unique(df[cluster].to_numpy(), return_inverse=True)
    xg = np.bincount(idx, weights=x, minlength=len(keys))
    ng = np.bincount(idx, weights=n, minlength=len(keys))
    return keys, xg, ng, bool((x < 0).any())


def metric_from_records(
    df: pd.DataFrame,
    per_round: Values,
    *,
    per: Values | None = None,
    cluster: str = "table",
    share: bool = False,
    level: float = stats.LEVEL,
) -> dict:
    """A custom metric from records, with a standard error clustered by table.

    The metric is ``sum(per_round) / sum(per)`` over the rows of ``df``
    (without ``per``: the mean of ``per_round`` over the rows), estimated
    as a ratio over the clusters ``g`` (every distinct value of
    ``df[cluster]``): ``r = sum_g x_g / sum_g n_g`` with ``x_g``, ``n_g``
    the cluster's sums, and ``SE = sqrt(sum_g z_g^2 / (G (G - 1)))`` with
    ``z_g = (x_g - r n_g) / mean(n)`` (:func:`domeng.results.stats.ratio`).
    The interval is the one a study gives such a quantity
    (:func:`domeng.results.stats.interval`): Wilson for a share, else
    ``r -/+ t SE`` with ``G - 1`` degrees of freedom, cut at 0 for values
    that are never negative (the rule of three when there are no events).

    Parameters
    ----------
    df:
        Records (:func:`read_records`, ``pd.read_parquet``), any subset of
        their rows (e.g. one arm, one seat, rounds after the first).
    per_round:
        The quantity of each row: a column name, a function of ``df``
        returning one value per row, or an array.
    per:
        The denominator of each row (the same forms), or None for 1 per row.
    cluster:
        The column whose values are the independent units (``"table"``).
    share:
        The values are 0/1 events per row (a proportion): Wilson interval.
    level:
        The interval's level (0.95).

    Returns
    -------
    dict
        ``{"value", "se", "ci_low", "ci_high"}`` (None for an undefined
        number: e.g. the SE of a single cluster).

    Examples
    --------
    >>> import pandas as pd
    >>> from domeng.results import metric_from_records
    >>> rec = pd.DataFrame({"table": [0, 0, 1, 1, 2, 2], "passes": [1, 3, 0, 2, 4, 2]})
    >>> est = metric_from_records(rec, "passes")  # PASS events per round
    >>> est["value"], round(est["se"], 4)
    (2.0, 0.5774)
    >>> metric_from_records(rec, lambda d: d.passes > 1, share=True)["value"]  # rounds with 2+
    0.6666666666666666
    """
    _keys, xg, ng, negative = _clustered(df, per_round, per, cluster)
    if len(xg) == 0 or ng.sum() == 0:
        raise ResultsError("no rows to estimate from (or a zero denominator)")
    value, se, lo, hi = stats.interval(xg, ng, share=share, signed=negative, level=level)
    return stats.estimate(value, se, lo, hi)


def difference_from_records(
    df: pd.DataFrame,
    per_round: Values,
    variant: str,
    baseline: str | None = None,
    *,
    per: Values | None = None,
    arm: str = "arm",
    cluster: str = "table",
    level: float = stats.LEVEL,
) -> dict:
    """The paired difference variant - baseline of :func:`metric_from_records`
    between two arms played on the same tables (records of a comparison or
    sweep, :func:`read_records`), with the paired SE across tables
    (:func:`domeng.results.stats.difference_interval`).

    Parameters
    ----------
    df:
        Records of several arms, with an ``arm`` column.
    per_round, per, cluster, level:
        As for :func:`metric_from_records`.
    variant, baseline:
        The two arms' names (``baseline``: None for the first arm).
    arm:
        The column naming the arm.

    Returns
    -------
    dict
        ``{"value", "se", "ci_low", "ci_high"}`` of the difference.

    Examples
    --------
    >>> import pandas as pd
    >>> from domeng.results import difference_from_records
    >>> rec = pd.DataFrame({"arm": ["b", "b", "v", "v"] * 2, "table": [0] * 4 + [1] * 4,
    ...                     "tiles": [10, 12, 11, 13, 8, 9, 10, 9]})
    >>> difference_from_records(rec, "tiles", "v", "b")["value"]  # tiles per round
    1.0
    """
    if arm not in df.columns:
        raise ResultsError(f"arm: no column {arm!r} in the records")
    arms = list(pd.unique(df[arm].astype(str)))
    baseline = arms[0] if baseline is None else baseline
    for a in (variant, baseline):
        if a not in arms:
            raise ResultsError(f"no arm {a!r} in the records; they have {', '.join(arms)}")
    rows = df[arm].astype(str).to_numpy()
    parts = []
    for a in (variant, baseline):
        sel = rows == a
        sub = df.loc[sel].reset_index(drop=True)
        x = _values(df, per_round, "per_round")[sel] if not isinstance(per_round, str) else None
        n = _values(df, per, "per")[sel] if per is not None and not isinstance(per, str) else None
        parts.append(
            _clustered(sub, per_round if x is None else x, per if n is None else n, cluster)
        )
    (kv, xv, nv, _), (kb, xb, nb, _) = parts
    if not np.array_equal(kv, kb):
        raise ResultsError(
            f"the arms {variant!r} and {baseline!r} do not hold the same {cluster}s: not paired"
        )
    d, se, _seu, lo, hi = stats.difference_interval(xv, nv, xb, nb, level=level)
    return stats.estimate(d, se, lo, hi)


__all__ = ["difference_from_records", "metric_from_records", "read_records"]
