"""Files of a comparison or a sweep: tables, plots (PNG, SVG or PDF, any
dpi, every axis labelled) and an HTML report (:mod:`domeng.results.html`).

A comparison folder holds ``compare.json`` (schema ``domeng.compare/1``),
``tables/differences.{csv,parquet}``, ``tables/values.{csv,parquet}``,
``plots/forest.{FORMAT}``, ``report.html`` and ``arms/K/`` (each arm's
results, :meth:`domeng.Results.load`).  A sweep folder holds ``sweep.json``,
``tables/sweep.{csv,parquet}`` (the tidy DataFrame), ``plots/sweep-OPTION.{FORMAT}``
and ``report.html``.  Everything is written into a temporary folder that
replaces the target in one rename.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np

from domeng.results import html as H
from domeng.results.comparison import KEY_METRICS, Comparison, stopping_text
from domeng.results.results import atomic_directory
from domeng.results.sweep import PLOT_METRICS, Sweep

FORMATS = ("png", "svg", "pdf")


def figure_bytes(fig, fmt: str = "png", dpi: int = 110) -> bytes:
    """A matplotlib figure as PNG, SVG or PDF bytes."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


class _plt:
    """What the plots need of pyplot, without pyplot: figures from the object
    API (:func:`domeng.results.report._subplots`), so no backend is set."""

    @staticmethod
    def subplots(*args, **kwargs):
        from domeng.results.report import _subplots

        return _subplots(*args, **kwargs)

    @property
    def rcParams(self):  # noqa: N802 (matplotlib's name)
        import matplotlib

        return matplotlib.rcParams


def forest_plot(cmp: Comparison, metrics: list[str] | None = None):
    """Differences variant - baseline as a share of the baseline value (so
    metrics of every unit share one axis), with 95% intervals."""
    plt = _plt()
    d = cmp.differences()
    metrics = [m for m in (metrics or KEY_METRICS) if m in set(d.metric)]
    variants = list(cmp.variants)
    fig, ax = plt.subplots(figsize=(9, 0.3 * len(metrics) * max(1, len(variants)) ** 0.5 + 1.6),
                           layout="constrained")
    h = 0.8 / max(len(variants), 1)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, v in enumerate(variants):
        g = d[d.variant == v].set_index("metric").reindex(metrics)
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.where(g.baseline != 0, 100.0 / g.baseline.abs(), np.nan)
        y = np.arange(len(metrics)) + (k - (len(variants) - 1) / 2) * h
        x = g.value * scale
        ax.errorbar(x, y, xerr=[x - g.ci_low * scale, g.ci_high * scale - x], fmt="o",
                    color=colors[k % len(colors)], capsize=2, ms=4, label=v)
    ax.axvline(0, color="#777777", lw=1)
    ax.set_yticks(range(len(metrics)))
    ax.set_yticklabels(metrics, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("variant - baseline, % of the baseline value (95% CI, paired)")
    ax.set_ylabel("metric")
    ax.grid(axis="x", alpha=0.3)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", fontsize=8,
               title="variant", title_fontsize=8, ncols=1)
    b = cmp.baseline
    ax.set_title(f"Paired differences, {b.tables:,} tables x {b.rounds:,} rounds per arm",
                 fontsize=10)
    return fig


def sweep_plots(sw: Sweep, metrics: list[str] | None = None) -> dict:
    """One figure per swept option: each metric against the option's values
    (one line per combination of the other options), with 95% intervals."""
    plt = _plt()
    df = sw.frame()
    metrics = [m for m in (metrics or PLOT_METRICS) if m in set(df.metric)]
    out = {}
    for opt, values in sw.grid.items():
        if len(values) < 2:
            continue
        others = [o for o in sw.grid if o != opt and len(sw.grid[o]) > 1]
        ncol = min(3, len(metrics))
        nrow = -(-len(metrics) // ncol)
        fig, axes = plt.subplots(nrow, ncol, figsize=(4.2 * ncol, 3.3 * nrow),
                                 layout="constrained", squeeze=False)
        for ax, m in zip(axes.flat, metrics):
            g = df[df.metric == m]
            groups = g.groupby(others, sort=False) if others else [((), g)]
            for key, gg in groups:
                gg = gg.set_index(opt).reindex(values)
                xs = np.arange(len(values))
                label = ", ".join(f"{o}={H.value_text(k)}" for o, k in
                                  zip(others, key if isinstance(key, tuple) else (key,))) or None
                ax.errorbar(xs, gg.value, yerr=[gg.value - gg.ci_low, gg.ci_high - gg.value],
                            marker="o", capsize=3, label=label)
            ax.set_xticks(np.arange(len(values)))
            ax.set_xticklabels([H.value_text(v) for v in values])
            ax.set_xlabel(opt)
            ax.set_ylabel(f"{m}\n({g.unit.iloc[0]})", fontsize=8)
            ax.grid(alpha=0.3)
        for ax in list(axes.flat)[len(metrics):]:
            ax.set_visible(False)
        if others:
            handles, labels = axes.flat[0].get_legend_handles_labels()
            fig.legend(handles, labels, loc="outside lower center", ncols=min(4, len(labels)),
                       fontsize=8)
        b = sw.comparison.baseline
        fig.suptitle(f"Sweep of {opt}: {b.tables:,} tables x {b.rounds:,} rounds per point "
                     "(95% CI)", fontsize=10)
        out[f"sweep-{opt}"] = fig
    return out


def _write_table(folder: Path, name: str, df) -> None:
    df.to_csv(folder / "tables" / f"{name}.csv", index=False)
    df.to_parquet(folder / "tables" / f"{name}.parquet", index=False)


def figure_files(fig, fmt: str = "png", dpi: int = 110) -> dict[str, bytes]:
    """The figure as FORMAT bytes and as PNG (for the HTML report)."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    out = {}
    for f in dict.fromkeys((fmt, "png")):
        buf = io.BytesIO()
        fig.savefig(buf, format=f, dpi=dpi, bbox_inches="tight")
        out[f] = buf.getvalue()
    return out


def _plots(folder: Path, figs: dict, fmt: str, dpi: int) -> dict[str, bytes]:
    """Write each figure as FORMAT (and PNG for the report); returns the PNGs."""
    (folder / "plots").mkdir()
    pngs = {}
    for name, fig in figs.items():
        files = figure_files(fig, fmt, dpi)
        for f, data in files.items():
            (folder / "plots" / f"{name}.{f}").write_bytes(data)
        pngs[name] = files["png"]
    return pngs


def save_comparison(cmp: Comparison, folder, fmt: str = "png", dpi: int = 110) -> Path:
    """Write a comparison folder (module docstring)."""
    folder = Path(folder)
    with atomic_directory(folder) as tmp:
        (tmp / "tables").mkdir()
        (tmp / "compare.json").write_text(cmp.to_json() + "\n")
        diffs, vals = cmp.differences(), cmp.values()
        _write_table(tmp, "differences", diffs)
        _write_table(tmp, "values", vals)
        for i, (name, r) in enumerate(cmp.arms.items()):
            (tmp / "arms" / str(i)).mkdir(parents=True)
            r.write_files(tmp / "arms" / str(i))
        (tmp / "arms" / "arms.json").write_text(json.dumps(list(cmp.arms), indent=2) + "\n")
        pngs = _plots(tmp, {"forest": forest_plot(cmp)}, fmt, dpi)
        (tmp / "report.html").write_text(comparison_html(cmp, pngs))
    return folder


def comparison_html(cmp: Comparison, pngs: dict[str, bytes]) -> str:
    b = cmp.baseline
    page = H.Page(f"Domeng paired comparison: {b.tables:,} tables x {b.rounds:,} rounds per arm")
    page.intro.append(f"<p>Baseline <b>{H.esc(cmp.baseline_name)}</b> and "
                      f"{len(cmp.variants)} variant(s), played with seed {b.seed} on the same "
                      "tables (common random numbers). Differences are variant minus baseline; "
                      f"SEs are paired, across {b.groups} groups of tables. The median paired SE "
                      f"is {cmp.se_ratio():.2f} of the unpaired SE.</p>")
    stop = cmp.meta.get("stopping")
    if stop:
        page.add("Why the study stopped", f"<pre>{H.esc(stopping_text(stop))}</pre>")
    page.add("Forest plot", H.figure("forest", pngs["forest"],
                                     "Differences as % of the baseline value, 95% CI (paired)."))
    d = cmp.differences()
    for v in cmp.variants:
        g = d[(d.variant == v) & d.metric.isin(KEY_METRICS)].drop(columns=["variant"])
        g = g[["metric", "value", "ci_low", "ci_high", "se", "se_unpaired", "baseline",
               "variant_value", "unit"]].rename(columns={"value": "difference"})
        page.add(f"Key differences: {v}", H.table(g))
    page.add("Every difference", "<p>All metrics of the summary, every variant (also in "
             "<code>tables/differences.csv</code>; <code>value</code> is the difference "
             "variant - baseline).</p>" + H.table(d))
    page.add("Rules of each arm", H.rules_table(b.meta["rules"],
                                                {k: r.meta["rules"] for k, r in cmp.arms.items()}))
    page.add("Players of each arm", H.table(__import__("pandas").DataFrame(
        [{"arm": k, **{f"seat {s}": p for s, p in enumerate(r.players)}}
         for k, r in cmp.arms.items()])))
    page.add("Glossary", H.glossary())
    page.add("Reproduce", H.reproduce(cmp.meta.get("command") or "domeng compare ..."))
    return page.render()


def save_sweep(sw: Sweep, folder, fmt: str = "png", dpi: int = 110,
               metrics: list[str] | None = None) -> Path:
    """Write a sweep folder (module docstring)."""
    folder = Path(folder)
    with atomic_directory(folder) as tmp:
        (tmp / "tables").mkdir()
        (tmp / "sweep.json").write_text(sw.to_json() + "\n")
        df = sw.frame()
        _write_table(tmp, "sweep", df)
        pngs = _plots(tmp, sweep_plots(sw, metrics), fmt, dpi)
        b = sw.comparison.baseline
        page = H.Page(f"Domeng sweep: {len(sw.points)} grid points x {b.tables:,} tables x "
                      f"{b.rounds:,} rounds")
        page.intro.append("<p>Every grid point is played with the same seed on the same tables; "
                          "the paired differences are from the first point.</p>")
        for name, png in pngs.items():
            page.add(f"Plot: {name[len('sweep-'):]}", H.figure(name, png, "95% CI across "
                                                               f"{b.groups} groups of tables."))
        key = df[df.metric.isin(metrics or PLOT_METRICS)]
        page.add("Plotted metrics", H.table(key))
        page.add("Rules", H.rules_table(b.meta["rules"]))
        page.add("Glossary", H.glossary())
        page.add("Reproduce", H.reproduce(sw.meta.get("command") or "domeng sweep ..."))
        (tmp / "report.html").write_text(page.render())
    return folder


__all__ = ["FORMATS", "figure_bytes", "forest_plot", "sweep_plots", "save_comparison",
           "save_sweep", "comparison_html", "stopping_text"]
