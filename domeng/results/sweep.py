"""A sweep: a grid of rule values played on the same tables, as one tidy DataFrame."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from domeng.core.wording import counted, counted_x
from domeng.results.comparison import Comparison
from domeng.results.stats import num
from domeng.results.texttable import column

SWEEP_SCHEMA = "domeng.sweep/1"
#: the metrics a sweep plots by default (every metric is in the DataFrame)
PLOT_METRICS = [
    "passebunge_per_round",
    "stones_per_round.total",
    "stones_per_round.from_table",
    "stones_per_round.from_players",
    "stones_per_round.unpaid.total",
    "camat_per_1000_rounds.total",
]


class Sweep:
    """``grid`` (option -> values), ``points`` (one dict per grid point, in
    order; the first is the reference of the paired differences) and the
    underlying :class:`~domeng.results.comparison.Comparison` (arm = point).
    :func:`domeng.sweep` makes one; :meth:`frame` is its tidy DataFrame,
    :meth:`summary` / :meth:`to_json` schema ``domeng.sweep/1``.

    Parameters
    ----------
    grid:
        Option -> its values, as :func:`domeng.study.compare.parse_grid` returns.
    points:
        One dict (option -> value) per grid point, in the comparison's order.
    comparison:
        The arms played, one per point.

    Examples
    --------
    >>> import domeng
    >>> sw = domeng.sweep(["pollo=3,4"], tables=2, rounds=2, seed=1, progress=False)
    >>> sw.grid, sw.points[0]
    ({'pollo_award': [3, 4]}, {'pollo_award': 3})
    >>> sw.summary()["schema"]
    'domeng.sweep/1'
    """

    def __init__(self, grid: dict[str, list], points: list[dict], comparison: Comparison) -> None:
        self.grid = grid
        self.points = points
        self.comparison = comparison
        self.meta = comparison.meta

    def __repr__(self) -> str:
        """One line: the grid, the tables, players, fixed rules and seed."""
        from domeng.results.texttable import study_repr

        b = self.comparison.baseline
        axes = ", ".join(f"{k}={','.join(map(str, v))}" for k, v in self.grid.items())
        design = (
            f"{counted(len(self.points), 'grid point')} ({axes}), "
            f"{counted_x((b.tables, 'table'), (b.rounds, 'round'))} each"
        )
        fixed = {k: v for k, v in b.rules.changed().items() if k not in self.grid}
        rules = str(type(b.rules)().replace(**fixed))  # those held fixed at every point
        return study_repr(self, "sweep", design, b.players, rules, b.seed)

    def equals(self, other: object) -> bool:
        """The same grid and points and equal comparisons (:meth:`Comparison.equals`)."""
        return (
            isinstance(other, Sweep)
            and self.grid == other.grid
            and self.points == other.points
            and self.comparison.equals(other.comparison)
        )

    @classmethod
    def load(cls, folder) -> Sweep:
        """Read a finished sweep folder (``domeng sweep --out DIR``,
        :func:`domeng.sweep` with ``out=``).

        Parameters
        ----------
        folder:
            The folder; an unfinished one is refused (finish it with
            ``domeng sweep --resume DIR``).

        Returns
        -------
        Sweep
            Equal to the one that wrote it (:meth:`equals`).

        Raises
        ------
        ResultsError
            For a folder that holds no finished sweep, or a corrupt one.

        Examples
        --------
        >>> import domeng, tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     sw = domeng.sweep(["pollo=3,4"], tables=2, rounds=2, progress=False, out=d + "/s")
        ...     domeng.Sweep.load(d + "/s").equals(sw)
        True
        """
        from domeng.core.errors import ResultsError
        from domeng.results.armsfolder import load_arms, read_manifest

        m = read_manifest(folder, "sweep")
        arms, meta = load_arms(folder, "sweep")
        try:
            return cls(m["grid"], m["points"], Comparison(arms, meta))
        except ValueError as e:
            raise ResultsError(f"{str(folder)!r}: {e}") from None

    def frame(self) -> pd.DataFrame:
        """One row per grid point and metric.

        Columns: one per swept option (its value), ``point`` (the arm's
        name), ``metric``, ``unit``, ``value``, ``se``, ``ci_low``, ``ci_high``
        (95%, by the rule for its kind: :mod:`domeng.results.stats`), then the
        paired difference from the first
        grid point: ``diff``, ``diff_se``, ``diff_se_unpaired``,
        ``diff_ci_low``, ``diff_ci_high`` (0 with SE 0 at the first point)."""
        c = self.comparison
        vals = c.values()
        d = c.differences().rename(
            columns={
                "variant": "arm",
                "value": "diff",
                "se": "diff_se",
                "se_unpaired": "diff_se_unpaired",
                "ci_low": "diff_ci_low",
                "ci_high": "diff_ci_high",
            }
        )
        d = d[
            ["arm", "metric", "diff", "diff_se", "diff_se_unpaired", "diff_ci_low", "diff_ci_high"]
        ]
        df = vals.merge(d, on=["arm", "metric"], how="left")
        ref = df.arm == c.baseline_name
        df.loc[ref, ["diff", "diff_se", "diff_se_unpaired", "diff_ci_low", "diff_ci_high"]] = 0.0
        names = list(c.arms)
        for opt in self.grid:
            df.insert(
                list(self.grid).index(opt),
                opt,
                df.arm.map({names[i]: p[opt] for i, p in enumerate(self.points)}),
            )
        return df.rename(columns={"arm": "point"})

    def summary(self) -> dict[str, Any]:
        b = self.comparison.baseline
        df = self.frame()
        return {
            "schema": SWEEP_SCHEMA,
            "version": b.meta.get("version"),
            "tables": b.tables,
            "rounds": b.rounds,
            "seed": b.seed,
            "groups": b.groups,
            "players": b.players,
            "rules": b.meta["rules"],
            "grid": self.grid,
            "points": self.points,
            "reference": self.comparison.baseline_name,
            "command": self.meta.get("command"),
            "rows": [
                {k: (num(v) if isinstance(v, float) else v) for k, v in r.items()}
                for r in df.to_dict("records")
            ],
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.summary(), indent=indent, allow_nan=False, default=str)

    def to_text(self, metrics: list[str] | None = None) -> str:
        """The plotted metrics at every grid point, as text."""
        metrics = metrics or PLOT_METRICS
        df = self.frame()
        df = df[df.metric.isin(metrics)]
        b = self.comparison.baseline
        grid = counted_x((len(self.points), "grid point"), (b.tables, "table"), (b.rounds, "round"))
        lines = [
            f"Sweep: {grid}, seed {b.seed}, the same tables at every point; players "
            f"{','.join(b.players)}",
            "value (95% CI); change: paired difference from the first point (95% CI, "
            f"t with {b.groups - 1} degrees of freedom)",
            "",
        ]
        ref = self.comparison.baseline_name
        width = max([44, *(len(str(p)) + 2 for p in df.point)])  # any point's name fits
        for m in metrics:
            g = df[df.metric == m]
            if g.empty:
                continue
            lines.append(m)
            est = [
                {"value": r.value, "ci_low": r.ci_low, "ci_high": r.ci_high} for r in g.itertuples()
            ]
            chg = [
                None
                if r.point == ref
                else {"value": r.diff, "ci_low": r.diff_ci_low, "ci_high": r.diff_ci_high}
                for r in g.itertuples()
            ]
            values = column(est)
            vw = max(len(v) for v in values)  # the values' column as wide as the widest
            for r, v, c in zip(g.itertuples(), values, column(chg, signed=True)):
                change = "(the reference)" if r.point == ref else f"change {c}"
                lines.append(f"  {r.point:<{width}}{v:>{vw}}  {change}")
            lines.append("")
        return "\n".join(lines)
