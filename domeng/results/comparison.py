"""Paired comparisons of studies played on the same tables (common random numbers).

A :class:`Comparison` holds one :class:`~domeng.results.results.Results` per
arm (a baseline and its variants), all with the same seed, tables, rounds and
groups of tables.  For every metric of the summary
(:mod:`domeng.results.metrics`) and every variant it gives the difference
variant minus baseline, its paired SE across the groups of tables, the
unpaired SE (what two independent studies would give), and a 95% interval
(t with ``G - 1`` degrees of freedom, :mod:`domeng.results.stats`).  Many
metrics and variants make many intervals, and about one in twenty of them
misses its value by chance: ``differences(adjust="holm")`` or
``"bonferroni"`` (``domeng compare --adjust``) makes them hold together.  :meth:`Comparison.to_json` is the
``domeng.compare/1`` object of ``domeng compare --json``.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pandas as pd

from domeng.core.wording import counted, counted_x
from domeng.results.metrics import metric_parts
from domeng.results.results import Results
from domeng.results.sequential import stopping_text
from domeng.results.stats import (
    ADJUSTMENTS,
    LEVEL,
    adjusted_levels,
    difference_interval,
    num,
    p_value,
    ratio,
)

COMPARE_SCHEMA = "domeng.compare/1"


def arm_label(
    rules: dict,
    players: list[str],
    base_rules: dict | None = None,
    base_players: list[str] | None = None,
) -> str:
    """A short name for an arm: the rule values (and lineup) that differ from the baseline."""
    from domeng.core.rules import Rules

    base_rules = Rules().to_dict() if base_rules is None else base_rules
    from domeng.results.html import value_text

    bits = [f"{k}={value_text(v)}" for k, v in rules.items() if base_rules.get(k) != v]
    if base_players is not None and list(players) != list(base_players):
        bits.append("players=" + ",".join(players))
    return ";".join(bits) or "baseline"


class Comparison:
    """A baseline and variants on the same tables; see the module docstring.

    :func:`domeng.compare` makes one; :meth:`differences` returns the paired
    differences, :meth:`summary` / :meth:`to_json` schema ``domeng.compare/1``.

    Parameters
    ----------
    arms:
        Arm name -> :class:`~domeng.results.results.Results` (the first is the
        baseline), all played on the same tables with the same seed.
    meta:
        Anything to keep with it (the command, the stopping record ...).

    Raises
    ------
    ValueError
        If an arm was not played on the baseline's tables.

    Examples
    --------
    >>> import domeng
    >>> cmp = domeng.compare(["pollo=4"], tables=2, rounds=2, seed=1, progress=False)
    >>> cmp.baseline_name, cmp.baseline.tables
    ('baseline', 2)
    >>> cmp.summary()["schema"]
    'domeng.compare/1'
    """

    def __init__(self, arms: dict[str, Results], meta: dict | None = None) -> None:
        if len(arms) < 2:
            raise ValueError("a comparison needs a baseline and at least one variant")
        self.arms = dict(arms)
        self.meta = dict(meta or {})
        first = next(iter(self.arms.values()))
        for name, r in self.arms.items():
            if (r.seed, r.tables, r.rounds) != (
                first.seed,
                first.tables,
                first.rounds,
            ) or not np.array_equal(r.group_tables, first.group_tables):
                raise ValueError(f"arm {name!r} was not played on the baseline's tables")

    def __repr__(self) -> str:
        """One line: the baseline and variants, the tables, players, rules and seed."""
        from domeng.results.texttable import study_repr

        b = self.baseline
        design = (
            f"{self.baseline_name} + {counted(len(self.variants), 'variant')} "
            f"({', '.join(self.variants)}), "
            f"{counted_x((b.tables, 'table'), (b.rounds, 'round'))} per arm"
        )
        return study_repr(self, "compare", design, b.players, str(b.rules), b.seed)

    def equals(self, other: object) -> bool:
        """The same arms (names, order and results: :meth:`Results.equals`)
        and the same stopping record."""
        return (
            isinstance(other, Comparison)
            and list(self.arms) == list(other.arms)
            and all(r.equals(other.arms[k]) for k, r in self.arms.items())
            and self.meta.get("stopping") == other.meta.get("stopping")
        )

    @classmethod
    def load(cls, folder) -> Comparison:
        """Read a finished comparison folder (``domeng compare --out DIR``,
        :func:`domeng.compare` with ``out=``).

        Parameters
        ----------
        folder:
            The folder; an unfinished one is refused (finish it with
            ``domeng compare --resume DIR``).

        Returns
        -------
        Comparison
            Equal to the one that wrote it (:meth:`equals`).

        Raises
        ------
        ResultsError
            For a folder that holds no finished comparison, or a corrupt one.

        Examples
        --------
        >>> import domeng, tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     cmp = domeng.compare(["pollo=4"], tables=2, rounds=2, progress=False, out=d + "/c")
        ...     domeng.Comparison.load(d + "/c").equals(cmp)
        True
        """
        from domeng.core.errors import ResultsError
        from domeng.results.armsfolder import load_arms

        arms, meta = load_arms(folder, "compare")
        try:
            return cls(arms, meta)
        except ValueError as e:
            raise ResultsError(f"{str(folder)!r}: {e}") from None

    @property
    def baseline_name(self) -> str:
        return next(iter(self.arms))

    @property
    def baseline(self) -> Results:
        return self.arms[self.baseline_name]

    @property
    def variants(self) -> dict[str, Results]:
        return {k: v for k, v in self.arms.items() if k != self.baseline_name}

    def metrics(self) -> list[str]:
        """Metrics present in every arm (by-player metrics need the player in each lineup)."""
        names = [set(metric_parts(r)) for r in self.arms.values()]
        common = set.intersection(*names)
        return [m for m in metric_parts(self.baseline) if m in common]

    def values(self) -> pd.DataFrame:
        """Each arm's estimate of each metric.

        Columns: ``arm``, ``metric``, ``unit``, ``value``, ``se``, ``ci_low``,
        ``ci_high`` (95%, by the rule for its kind: :mod:`domeng.results.stats`)."""
        keep = set(self.metrics())
        rows = []
        for arm, r in self.arms.items():
            for name, p in metric_parts(r).items():
                if name not in keep:
                    continue
                v, se, lo, hi = p.interval()
                rows.append(
                    {
                        "arm": arm,
                        "metric": name,
                        "unit": p.unit,
                        "value": float(v),
                        "se": float(se),
                        "ci_low": float(lo),
                        "ci_high": float(hi),
                    }
                )
        return pd.DataFrame(rows)

    def differences(
        self, adjust: str | None = None, metrics: list[str] | None = None, level: float = LEVEL
    ) -> pd.DataFrame:
        """Variant minus baseline for every metric (or ``metrics``).

        Columns: ``variant``, ``metric``, ``unit``, ``baseline`` (its value),
        ``variant_value``, ``value`` (the difference), ``se`` (paired, across
        groups of tables), ``se_unpaired``, ``p_value`` (two-sided, t with
        ``G - 1`` degrees of freedom), ``level``, ``ci_low``, ``ci_high``
        (from the paired SE, t with ``G - 1`` degrees of freedom; for a
        study stopped on the data, the targeted metrics' interval is the
        confidence sequence's, see ``meta["stopping"]``).

        ``adjust``: ``None`` (each interval at ``level`` alone), ``"holm"``
        or ``"bonferroni"``: the intervals of every row returned hold
        together (:func:`domeng.results.stats.adjusted_levels`); the
        family is every metric and variant of the frame."""
        if adjust not in (None, *ADJUSTMENTS):
            raise ValueError(
                f"adjust must be one of {', '.join(ADJUSTMENTS)} or None, got {adjust!r}"
            )
        base = metric_parts(self.baseline)
        keys = self.metrics()
        if metrics is not None:
            keys = [m for m in metrics if m in set(keys)]
        G = self.baseline.groups
        rows, raw = [], []
        for vname, r in self.variants.items():
            parts = metric_parts(r)
            for m in keys:
                pb, pv = base[m], parts[m]
                raw.append((vname, m, pb, pv))
                d, se, seu, _, _ = difference_interval(pv.x, pv.n, pb.x, pb.n, event=pb.event)
                b, _ = ratio(pb.x, pb.n)
                rows.append(
                    {
                        "variant": vname,
                        "metric": m,
                        "unit": pb.unit,
                        "baseline": float(b),
                        "variant_value": float(b + d),
                        "value": float(d),
                        "se": float(se),
                        "se_unpaired": float(seu),
                    }
                )
        df = pd.DataFrame(rows)
        if df.empty:
            return df
        df["p_value"] = p_value(df.value, df.se, G)
        df["level"] = adjusted_levels(df.p_value, adjust, level)
        stop = (self.meta.get("stopping") or {}).get("targets") or {}
        lows, highs = [], []
        for (vname, m, pb, pv), lv in zip(raw, df.level):
            d, _, _, lo, hi = difference_interval(pv.x, pv.n, pb.x, pb.n, event=pb.event, level=lv)
            tg = stop.get(f"{vname}:{m}")
            if tg is not None and tg.get("half_width") is not None:
                lo, hi = d - tg["half_width"], d + tg["half_width"]
            lows.append(float(lo))
            highs.append(float(hi))
        df["ci_low"], df["ci_high"] = lows, highs
        return df

    def intervals_text(self, n: int, adjust: str | None, what: str = "") -> str:
        """One line saying how many intervals are shown and how they hold."""
        head = f"{counted(n, 'interval')}{what}"
        if adjust is None:
            return (
                f"{head}, each at 95% alone: about {0.05 * n:.1f} of them may miss "
                "by chance (--adjust holm or bonferroni: intervals that hold together)"
            )
        name = {"holm": "Holm (step-down)", "bonferroni": "Bonferroni"}[adjust]
        return f"{head}, adjusted by {name} to hold together at 95%"

    def summary(self, adjust: str | None = None) -> dict[str, Any]:
        """The ``domeng.compare/1`` object (see ``docs/study.md``); ``adjust``:
        as in :meth:`differences`, over every metric and variant in it."""
        b = self.baseline
        diffs = self.differences(adjust=adjust)
        out: dict[str, Any] = {
            "schema": COMPARE_SCHEMA,
            "version": b.meta.get("version"),
            "tables": b.tables,
            "rounds": b.rounds,
            "seed": b.seed,
            "groups": b.groups,
            "baseline": {
                "name": self.baseline_name,
                "rules": b.meta["rules"],
                "players": b.players,
            },
            "variants": [
                {"name": k, "rules": v.meta["rules"], "players": v.players}
                for k, v in self.variants.items()
            ],
            "intervals": {"count": len(diffs), "level": LEVEL, "adjust": adjust},
            "differences": {},
            "baseline_values": {},
            "stopping": self.meta.get("stopping"),
            "command": self.meta.get("command"),
        }
        for vname, g in diffs.groupby("variant", sort=False):
            out["differences"][vname] = {
                row.metric: {
                    "value": num(row.value),
                    "se": num(row.se),
                    "se_unpaired": num(row.se_unpaired),
                    "p_value": num(row.p_value),
                    "ci_low": num(row.ci_low),
                    "ci_high": num(row.ci_high),
                }
                for row in g.itertuples()
            }
        vals = self.values()
        for row in vals[vals.arm == self.baseline_name].itertuples():
            out["baseline_values"][row.metric] = {
                "value": num(row.value),
                "se": num(row.se),
                "ci_low": num(row.ci_low),
                "ci_high": num(row.ci_high),
            }
        return out

    def to_json(self, indent: int | None = 2, adjust: str | None = None) -> str:
        return json.dumps(self.summary(adjust), indent=indent, allow_nan=False)

    def se_ratio(self) -> float:
        """Median over metrics and variants of paired SE / unpaired SE (what pairing saved)."""
        d = self.differences()
        ok = (d.se_unpaired > 0) & np.isfinite(d.se)
        return float((d.se[ok] / d.se_unpaired[ok]).median()) if ok.any() else math.nan

    def to_text(self, metrics: list[str] | None = None, adjust: str | None = None) -> str:
        """The key differences as a text table (what ``domeng compare``
        prints); ``adjust``: over the differences shown (:meth:`differences`)."""
        keys = metrics or KEY_METRICS
        d = self.differences(adjust=adjust, metrics=keys)
        b = self.baseline
        lines = [
            f"Paired comparison: {counted_x((b.tables, 'table'), (b.rounds, 'round'))} "
            f"per arm, seed "
            f"{b.seed}, the same tables in every arm (common random numbers)",
            f"baseline: {self.baseline_name} (players {','.join(b.players)}; {b.rules})",
            "difference variant - baseline, 95% CI (paired SE across "
            f"{counted(b.groups, 'group')} of tables, t with {b.groups - 1} degrees of "
            "freedom; unpaired SE for comparison)",
            self.intervals_text(
                len(d),
                adjust,
                f" ({counted(len(set(d.metric)), 'metric')} x "
                f"{counted(len(self.variants), 'variant')})",
            ),
            "",
        ]
        head = f"  {'metric':<38}{'baseline':>11}{'difference':>12}  {'95% CI':<23}{'SE':>9}{'unpaired':>10}"
        for vname, g in d.groupby("variant", sort=False):
            lines += [f"variant {vname}", head]
            g = g.set_index("metric").reindex([k for k in keys if k in set(g.metric)])
            for m, row in g.iterrows():
                ci = f"[{row.ci_low:+.4f}, {row.ci_high:+.4f}]"
                lines.append(
                    f"  {m:<38}{row.baseline:>11.4f}{row.value:>+12.4f}  {ci:<23}"
                    f"{row.se:>9.4f}{row.se_unpaired:>10.4f}"
                )
            lines.append("")
        lines.append(f"median paired SE / unpaired SE: {self.se_ratio():.2f}")
        stop = self.meta.get("stopping")
        if stop:
            lines.append(stopping_text(stop))
        return "\n".join(lines) + "\n"


#: the metrics ``domeng compare`` prints (all are in the JSON and the tables)
KEY_METRICS = [
    "passebunge_per_round",
    "passebunge_round_share",
    "passes_per_round",
    "stones_per_round.total",
    "stones_per_round.from_table",
    "stones_per_round.from_players",
    "stones_per_round.by_reason.PASSEBUNGE",
    "stones_per_round.by_reason.PASS",
    "stones_per_round.unpaid.total",
    "end_kind.CEKI",
    "end_kind.POLLO",
    "end_kind.MATTIKKENG",
    "camat_per_1000_rounds.total",
    "win_rate_by_starter_offset.0",
    "tiles_per_round",
]
