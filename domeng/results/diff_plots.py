"""The plots of a comparison and of a sweep: paired differences against the
baseline (or the sweep's first point) with their 95% intervals, exactly the
estimates of :meth:`domeng.Comparison.differences` and
:meth:`domeng.Sweep.frame` (``diff``, ``diff_ci_low``, ``diff_ci_high``;
:mod:`domeng.results.stats`).  Marginal intervals of two arms overlap
where their paired difference is clearly not zero, so they are not drawn.

As for a study's plots (:mod:`domeng.results.plots`), each function takes
``ax=None`` (a new figure with a caption below) or the Axes to draw into,
one per panel, returns the figure, labels its axes in words with one unit
each, and applies its colour-blind-safe style locally.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from domeng.core.wording import counted, counted_x
from domeng.results import figures as F
from domeng.results.html import value_text as _value
from domeng.results.metrics import metric_words

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from domeng.results.comparison import Comparison
    from domeng.results.sweep import Sweep


def _config(cmp: Comparison, arm: str = "arm") -> str:
    """The configuration of a comparison (``arm="point"``: of a sweep)."""
    b = cmp.baseline
    name = cmp.baseline_name
    first = "the first point" if arm == "point" else "the baseline"
    if arm == "arm" and name != "baseline":
        first += f" ({_words(name)})"
    return (
        f"{counted_x((b.tables, 'table'), (b.rounds, 'round'))} per {arm}, seed {b.seed}, "
        f"the same tables in every {arm}; players (seat 0..4) {', '.join(b.players)}; "
        f"rules of {first}: {b.rules}. Intervals: 95%, paired across "
        f"{counted(b.groups, 'group')} of tables (t with {b.groups - 1} degrees of freedom)."
    )


def _units(d: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(d.unit))


def _words(text: str) -> str:
    """A rule option or value in words (``pollo_award`` -> ``pollo award``)."""
    return str(text).replace("_", " ")


@F.styled
def plot_forest(
    cmp: Comparison,
    ax: Any = None,
    *,
    metrics: Sequence[str] | None = None,
    adjust: str | None = None,
    with_caption: bool | None = None,
    **style: Any,
) -> Figure:
    """Paired differences variant - baseline with their 95% intervals, one
    panel per unit (stones per round, share of rounds, ...), one row per
    metric, one colour per variant.

    Parameters
    ----------
    cmp:
        The comparison.
    ax:
        None (a new figure), a matplotlib Axes (the metrics must then share
        one unit), or one Axes per unit, in the order the metrics first
        show them.
    metrics:
        The metrics to draw (default: :data:`domeng.results.comparison.KEY_METRICS`).
    adjust:
        None, ``"holm"`` or ``"bonferroni"``: as in
        :meth:`domeng.Comparison.differences` (over the metrics drawn).
    with_caption:
        Add the caption below the figure (default: only to a new figure).
    **style:
        Keywords of :meth:`matplotlib.axes.Axes.errorbar` (``ms``, ``capsize``...).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    Examples
    --------
    >>> import domeng
    >>> from domeng.results.diff_plots import plot_forest
    >>> cmp = domeng.compare(["pollo=4"], tables=2, rounds=2, seed=1, progress=False)
    >>> fig = plot_forest(cmp, metrics=["stones_per_round.total", "passes_per_round"])
    >>> [a.get_xlabel() for a in fig.axes]
    ['difference, variant - baseline (stones per round)', 'difference, variant - baseline (per round)']
    """
    from domeng.results.comparison import KEY_METRICS

    d = cmp.differences(adjust=adjust, metrics=list(metrics or KEY_METRICS))
    if d.empty:
        raise ValueError("no metric to plot: none of those asked is in every arm")
    units = _units(d)
    variants = list(cmp.variants)

    def make(panels):
        sizes = [len(set(d.metric[d.unit == u])) for u in panels]
        rows = [0.3 * n * max(1, len(variants)) ** 0.5 + 0.9 for n in sizes]
        fig, axes = F.new_figure(
            len(panels),
            1,
            figsize=(9, sum(rows) + 0.6),
            squeeze=False,
            gridspec_kw={"height_ratios": rows},
        )
        return fig, list(axes.flat)

    fig, axes, units, made = F.panel_axes(ax, None if ax is None else units, units, make)
    h = 0.8 / max(len(variants), 1)
    colors = F.OKABE_ITO
    for a, unit in zip(axes, units):
        names = list(dict.fromkeys(d.metric[d.unit == unit]))
        for k, v in enumerate(variants):
            g = d[d.variant == v].set_index("metric").reindex(names)
            y = np.arange(len(names)) + (k - (len(variants) - 1) / 2) * h
            kw = {"fmt": "o", "capsize": 2, "ms": 4, "color": colors[k % len(colors)], **style}
            a.errorbar(
                g.value,
                y,
                xerr=F.err(g.value, g.ci_low, g.ci_high),
                label=_words(v),
                **kw,
            )
        a.axvline(0, color=F.GREY, lw=1)
        a.set_yticks(range(len(names)))
        a.set_yticklabels([metric_words(m) for m in names])
        a.invert_yaxis()
        a.set_xlabel(f"difference, variant - baseline ({unit})")
        a.grid(axis="x", alpha=0.3)
    if made:
        fig.legend(
            *axes[0].get_legend_handles_labels(),
            loc="outside right upper",
            title="variant",
        )
        fig.suptitle("Paired differences from the baseline")
    if with_caption if with_caption is not None else made:
        level = {None: "", "holm": " (Holm-adjusted)", "bonferroni": " (Bonferroni-adjusted)"}
        F.add_caption(
            fig,
            f"Difference variant - baseline of each metric, with its 95% interval"
            f"{level[adjust]}; one panel per unit. {_config(cmp)}",
        )
    return fig


def swept_options(sw: Sweep) -> list[str]:
    """The options of a sweep's grid that take two values or more."""
    return [o for o, v in sw.grid.items() if len(v) > 1]


@F.styled
def plot_sweep(
    sw: Sweep,
    option: str | None = None,
    ax: Any = None,
    *,
    metrics: Sequence[str] | None = None,
    with_caption: bool | None = None,
    **style: Any,
) -> Figure:
    """A sweep along one option: each metric's paired change from the
    sweep's first point (its reference), with its 95% interval, at every
    value of the option; one line per combination of the other swept
    options, one panel (one unit) per metric.

    Parameters
    ----------
    sw:
        The sweep.
    option:
        The swept option (default: the only one with two values or more).
    ax:
        None (a new figure), a matplotlib Axes (one metric), or one Axes per metric.
    metrics:
        The metrics to draw (default: :data:`domeng.results.sweep.PLOT_METRICS`).
    with_caption:
        Add the caption below the figure (default: only to a new figure).
    **style:
        Keywords of :meth:`matplotlib.axes.Axes.errorbar` (``marker``, ``capsize``...).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    Examples
    --------
    >>> import domeng
    >>> from domeng.results.diff_plots import plot_sweep
    >>> sw = domeng.sweep(["pollo=3,4"], tables=2, rounds=2, seed=1, progress=False)
    >>> fig = plot_sweep(sw, metrics=["stones_per_round.total"])
    >>> fig.axes[0].get_ylabel()
    'paired change (stones per round)'
    """
    from domeng.results.sweep import PLOT_METRICS

    swept = swept_options(sw)
    if option is None:
        if len(swept) != 1:
            raise ValueError(
                f"name the option to plot: the sweep varies {', '.join(swept) or 'none'}"
            )
        option = swept[0]
    if option not in sw.grid:
        raise ValueError(f"{option!r} is not an option of the sweep ({', '.join(sw.grid)})")
    df = sw.frame()
    names = [m for m in (metrics or PLOT_METRICS) if m in set(df.metric)]
    if not names:
        raise ValueError("no metric to plot: none of those asked is in every point")

    def make(panels):
        ncol = min(3, len(panels))
        nrow = -(-len(panels) // ncol)
        fig, axes = F.new_figure(nrow, ncol, figsize=(4.2 * ncol, 3.4 * nrow), squeeze=False)
        for extra in list(axes.flat)[len(panels) :]:
            extra.set_visible(False)
        return fig, list(axes.flat)[: len(panels)]

    fig, axes, names, made = F.panel_axes(ax, None if ax is None else names, names, make)
    values = sw.grid[option]
    others = [o for o in swept if o != option]
    ref = sw.points[0]
    ref_text = ", ".join(f"{_words(o)} {_value(ref[o])}" for o in swept) or "the first point"
    for a, m in zip(axes, names):
        g = df[df.metric == m]
        groups = list(g.groupby(others, sort=False)) if others else [((), g)]
        for k, (key, gg) in enumerate(groups):
            dodge = (k - (len(groups) - 1) / 2) * min(0.08, 0.4 / len(groups))  # lines apart
            gg = gg.set_index(option).reindex(values)
            key = key if isinstance(key, tuple) else (key,)
            label = ", ".join(f"{_words(o)} {_value(v)}" for o, v in zip(others, key)) or None
            kw = {"marker": "o", "capsize": 3, "color": F.OKABE_ITO[k % len(F.OKABE_ITO)], **style}
            a.errorbar(
                np.arange(len(values)) + dodge,
                gg["diff"],
                yerr=F.err(gg["diff"], gg.diff_ci_low, gg.diff_ci_high),
                label=label,
                **kw,
            )
        a.axhline(0, color=F.GREY, lw=1)
        a.set_xticks(np.arange(len(values)))
        a.set_xticklabels([_value(v) for v in values])
        a.set_xlabel(_words(option))
        a.set_ylabel(f"paired change ({g.unit.iloc[0]})")
        a.set_title(metric_words(m))
        a.grid(alpha=0.3)
    if made:
        if others:
            fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right upper")
        fig.suptitle(f"Sweep of {_words(option)}: paired change from {ref_text}")
    if with_caption if with_caption is not None else made:
        F.add_caption(
            fig,
            f"Change of each metric from the sweep's first point ({ref_text}), paired on "
            f"the same tables, with its 95% interval. {_config(sw.comparison, 'point')}",
        )
    return fig


def sweep_figures(sw: Sweep, metrics: Sequence[str] | None = None) -> dict[str, Figure]:
    """One figure per swept option (:func:`plot_sweep`), named ``sweep-OPTION``."""
    return {f"sweep-{o}": plot_sweep(sw, o, metrics=metrics) for o in swept_options(sw)}


__all__ = ["plot_forest", "plot_sweep", "sweep_figures", "swept_options"]
