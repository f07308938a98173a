"""Files of a comparison or a sweep: tables, plots (PNG, SVG or PDF, any
dpi, every axis labelled) and an HTML report (:mod:`domeng.results.html`).

A comparison folder holds ``compare-manifest.json`` (what the study is:
its arms and parameters, written first), ``arms/K/`` (each arm's results,
:meth:`domeng.Results.load`; while the study runs, its checkpoint),
``arms/arms.json`` (the arms' names and the digests of their
``results.npz``: every reader checks them, :func:`check_arms`), ``tables/differences.{csv,parquet}``,
``tables/values.{csv,parquet}``, ``plots/forest.{FORMAT}``, ``report.html``
and, written last, ``compare.json`` (schema ``domeng.compare/1``): a folder
without it is an unfinished study (``domeng compare --resume DIR``).  A
sweep folder is the same with ``sweep-manifest.json``, ``sweep.json``,
``tables/sweep.{csv,parquet}`` (the tidy DataFrame) and
``plots/sweep-OPTION.{FORMAT}``.  Folders are written in place under the
folder policy of :func:`domeng.infra.fs.writing_output` (each file
atomically; finished results replaced are kept as ``DIR.previous`` until the
new run has finished; a folder holding anything else is refused; the
folder is locked).
"""

from __future__ import annotations

import json
from pathlib import Path

from domeng.core.wording import counted, counted_x
from domeng.infra import fs, jsontext
from domeng.infra.fs import atomic_write, fixed_subfolder
from domeng.results import html as H
from domeng.results.armsfolder import (
    FILES,
    MANIFEST_FORMAT,
    arm_folder,
    read_manifest,
    write_arms_index,
)
from domeng.results.comparison import COMPARE_SCHEMA, KEY_METRICS, Comparison, stopping_text
from domeng.results.diff_plots import plot_forest, sweep_figures
from domeng.results.figures import (
    DPI,
    FORMATS,
    caption_of,
    figure_bytes,
    figure_files,
    report_png,
)
from domeng.results.sweep import PLOT_METRICS, SWEEP_SCHEMA, Sweep

#: kind -> (the finished marker, the manifest (the unfinished marker), its schema)
KINDS = {
    "compare": (*FILES["compare"], COMPARE_SCHEMA),
    "sweep": (*FILES["sweep"], SWEEP_SCHEMA),
}


def forest_plot(cmp: Comparison, metrics: list[str] | None = None):
    """The comparison's figure (:func:`domeng.results.diff_plots.plot_forest`)."""
    return plot_forest(cmp, metrics=metrics)


def sweep_plots(sw: Sweep, metrics: list[str] | None = None) -> dict:
    """One figure per swept option (:func:`domeng.results.diff_plots.plot_sweep`)."""
    return sweep_figures(sw, metrics)


def _write_table(folder: Path, name: str, df) -> None:
    tables = fixed_subfolder(folder, "tables")
    atomic_write(tables / f"{name}.csv", df.to_csv(index=False))
    atomic_write(tables / f"{name}.parquet", lambda f: df.to_parquet(f, index=False))


def _plots(folder: Path, figs: dict, fmt: str, dpi: int) -> tuple[dict, dict]:
    """Write each figure as FORMAT and PNG (at ``dpi``); returns the PNGs the
    report embeds (:func:`domeng.results.figures.report_png`) and their captions."""
    plots = fixed_subfolder(folder, "plots")
    pngs, captions = {}, {}
    for name, fig in figs.items():
        for f, data in figure_files(fig, fmt, dpi).items():
            atomic_write(plots / f"{name}.{f}", data)
        pngs[name] = report_png(fig)
        captions[name] = caption_of(fig)
    return pngs, captions


# ---------------------------------------------------------------- folders
def arms_manifest(kind: str, arms: dict[str, tuple[dict, list]], study: dict) -> dict:
    """What a comparison (or sweep) folder's manifest says: its arms (name ->
    rules, players) and ``study`` (``tables``, ``rounds``, ``seed``,
    ``target_ci``, ``max_rounds``, ``command``; a sweep's ``grid``, ``points``)."""
    from domeng.results.meta import package_version

    return {
        "format": MANIFEST_FORMAT,
        "kind": kind,
        "version": package_version(),
        "arms": [{"name": k, "rules": r, "players": list(p)} for k, (r, p) in arms.items()],
        **study,
    }


def write_manifest(folder: Path, manifest: dict) -> None:
    """The manifest of a comparison or sweep folder (written first)."""
    atomic_write(folder / KINDS[manifest["kind"]][1], json.dumps(manifest, indent=2) + "\n")


def write_comparison(cmp: Comparison, folder, fmt: str = "png", dpi: int = DPI) -> Path:
    """Write a comparison's tables, plots, report and, last, ``compare.json``
    into ``folder`` (an existing folder, locked by the caller; each file
    atomically; the arms' results are already in ``arms/K``)."""
    folder = Path(folder)
    _write_table(folder, "differences", cmp.differences())
    _write_table(folder, "values", cmp.values())
    write_arms_index(folder, list(cmp.arms))
    pngs, captions = _plots(folder, {"forest": forest_plot(cmp)}, fmt, dpi)
    atomic_write(folder / "report.html", comparison_html(cmp, pngs, captions))
    atomic_write(folder / "compare.json", cmp.to_json() + "\n")
    return folder


def write_sweep(
    sw: Sweep, folder, fmt: str = "png", dpi: int = DPI, metrics: list[str] | None = None
) -> Path:
    """Write a sweep's table, plots, report and, last, ``sweep.json`` (as
    :func:`write_comparison`)."""
    folder = Path(folder)
    _write_table(folder, "sweep", sw.frame())
    write_arms_index(folder, list(sw.comparison.arms))
    pngs, captions = _plots(folder, sweep_plots(sw, metrics), fmt, dpi)
    atomic_write(folder / "report.html", sweep_html(sw, pngs, metrics, captions))
    atomic_write(folder / "sweep.json", sw.to_json() + "\n")
    return folder


def _save(kind: str, cmp: Comparison, folder, write) -> Path:
    """An in-memory comparison or sweep into ``folder`` (the folder policy)."""
    folder = Path(folder)
    finished, manifest, _ = KINDS[kind]
    with fs.writing_output(
        folder, finished, manifest, f"{kind} study", f"domeng {kind} --resume {folder}"
    ):
        arms = {k: (r.meta["rules"], r.players) for k, r in cmp.arms.items()}
        write_manifest(
            folder,
            arms_manifest(
                kind,
                arms,
                cmp.meta.get("study")
                or {
                    "tables": cmp.baseline.tables,
                    "rounds": cmp.baseline.rounds,
                    "seed": cmp.baseline.seed,
                    "command": cmp.meta.get("command"),
                },
            ),
        )
        for k, r in enumerate(cmp.arms.values()):
            d = arm_folder(folder, k)
            d.mkdir(exist_ok=True)
            r.write_files(d)
        write(folder)
    return folder


def save_comparison(cmp: Comparison, folder, fmt: str = "png", dpi: int = DPI) -> Path:
    """Write a comparison folder (module docstring)."""
    return _save("compare", cmp, folder, lambda d: write_comparison(cmp, d, fmt, dpi))


def save_sweep(
    sw: Sweep, folder, fmt: str = "png", dpi: int = DPI, metrics: list[str] | None = None
) -> Path:
    """Write a sweep folder (module docstring)."""
    return _save("sweep", sw.comparison, folder, lambda d: write_sweep(sw, d, fmt, dpi, metrics))


def folder_kind(folder) -> str | None:
    """What ``folder`` holds, by its files: ``"compare"`` or ``"sweep"``
    (finished: its JSON has the kind's schema), ``"results"`` (a study:
    ``results.npz``), ``"tournament"`` (``per_deal.npz``), or None."""
    folder = Path(folder)
    for kind, (finished, _, schema) in KINDS.items():
        p = folder / finished
        if p.is_file() and not p.is_symlink():
            try:
                if jsontext.loads(p.read_text(encoding="utf-8")).get("schema") == schema:
                    return kind
            except (OSError, ValueError, AttributeError, RecursionError):
                pass
    for name, kind in (("results.npz", "results"), ("per_deal.npz", "tournament")):
        if (folder / name).is_file():
            return kind
    return None


def load_comparison(folder) -> Comparison:
    """The comparison of a finished comparison folder: :meth:`Comparison.load`."""
    return Comparison.load(folder)


def load_sweep(folder) -> Sweep:
    """The sweep of a finished sweep folder: :meth:`Sweep.load`."""
    return Sweep.load(folder)


def comparison_html(
    cmp: Comparison, pngs: dict[str, bytes], captions: dict[str, str] | None = None
) -> str:
    """The comparison's report; ``captions``: the plots' (default: a short one)."""
    b = cmp.baseline
    page = H.Page(
        f"Domeng paired comparison: {counted_x((b.tables, 'table'), (b.rounds, 'round'))} per arm"
    )
    page.intro.append(
        f"<p>Baseline <b>{H.esc(cmp.baseline_name)}</b> and "
        f"{counted(len(cmp.variants), 'variant')}, played with seed {b.seed} on the "
        "same "
        "tables (common random numbers). Differences are variant minus baseline; "
        f"SEs are paired, across {counted(b.groups, 'group')} of tables. The median "
        "paired SE "
        f"is {cmp.se_ratio():.2f} of the unpaired SE.</p>"
    )
    stop = cmp.meta.get("stopping")
    if stop:
        page.add("Why the study stopped", f"<pre>{H.esc(stopping_text(stop))}</pre>")
    page.add(
        "Forest plot",
        H.figure(
            "forest",
            pngs["forest"],
            (captions or {}).get("forest")
            or "Paired differences variant - baseline, 95% intervals, one panel per unit.",
        ),
    )
    d = cmp.differences()
    for v in cmp.variants:
        g = d[(d.variant == v) & d.metric.isin(KEY_METRICS)].drop(columns=["variant"])
        g = g[
            [
                "metric",
                "value",
                "ci_low",
                "ci_high",
                "se",
                "se_unpaired",
                "baseline",
                "variant_value",
                "unit",
            ]
        ].rename(columns={"value": "difference"})
        page.add(f"Key differences: {v}", H.table(g))
    page.add(
        "Every difference",
        "<p>All metrics of the summary, every variant (also in "
        "<code>tables/differences.csv</code>; <code>value</code> is the difference "
        "variant - baseline).</p>" + H.table(d),
    )
    page.add(
        "Rules of each arm",
        H.rules_table(b.meta["rules"], {k: r.meta["rules"] for k, r in cmp.arms.items()}),
    )
    page.add(
        "Players of each arm",
        H.table(
            __import__("pandas").DataFrame(
                [
                    {"arm": k, **{f"seat {s}": p for s, p in enumerate(r.players)}}
                    for k, r in cmp.arms.items()
                ]
            )
        ),
    )
    page.add("Glossary", H.glossary())
    page.add("Reproduce", H.reproduce(cmp.meta.get("command") or "domeng compare ..."))
    return page.render()


def sweep_html(
    sw: Sweep,
    pngs: dict[str, bytes],
    metrics: list[str] | None = None,
    captions: dict[str, str] | None = None,
) -> str:
    """The sweep's report; ``captions``: the plots' (default: a short one)."""
    df = sw.frame()
    b = sw.comparison.baseline
    page = H.Page(
        "Domeng sweep: "
        + counted_x((len(sw.points), "grid point"), (b.tables, "table"), (b.rounds, "round"))
    )
    page.intro.append(
        "<p>Every grid point is played with the same seed on the same tables; "
        "the paired differences are from the first point.</p>"
    )
    for name, png in pngs.items():
        page.add(
            f"Plot: {name[len('sweep-') :]}",
            H.figure(
                name,
                png,
                (captions or {}).get(name)
                or f"Paired change from the first point, 95% intervals across "
                f"{counted(b.groups, 'group')} of tables.",
            ),
        )
    key = df[df.metric.isin(metrics or PLOT_METRICS)]
    page.add("Plotted metrics", H.table(key))
    page.add("Rules", H.rules_table(b.meta["rules"]))
    page.add("Glossary", H.glossary())
    page.add("Reproduce", H.reproduce(sw.meta.get("command") or "domeng sweep ..."))
    return page.render()


__all__ = [
    "FORMATS",
    "KINDS",
    "arms_manifest",
    "comparison_html",
    "figure_bytes",
    "folder_kind",
    "forest_plot",
    "load_comparison",
    "load_sweep",
    "read_manifest",
    "save_comparison",
    "save_sweep",
    "stopping_text",
    "sweep_html",
    "sweep_plots",
    "write_comparison",
    "write_sweep",
]
