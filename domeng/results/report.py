"""A study's plot files and its self-contained HTML report.

The plots are the functions of :mod:`domeng.results.plots` (each returns a
matplotlib Figure); :func:`plots` gives each as the PNG the report embeds;
:func:`html_report` embeds them (base64) with the study's tables;
:func:`render` writes both into a results folder (``plots/NAME.png`` and
``plots/NAME.FORMAT``, at 300 dpi unless asked, and ``report.html``), each
file atomically.
"""

from __future__ import annotations

import os
from pathlib import Path

from domeng.core.wording import counted_x
from domeng.infra.fs import atomic_write, fixed_subfolder
from domeng.results import figures as F
from domeng.results.plots import PLOTS, caption, figures
from domeng.results.results import Results

#: what the other study modules still take from here (the plots' machinery is
#: :mod:`domeng.results.figures`)
_subplots, _bars, _err = F.new_figure, F.bars, F.err


def plots(res: Results) -> dict[str, bytes]:
    """Every plot as the PNG the HTML report embeds (:func:`figures.report_png`), by name."""
    return {name: F.report_png(fig) for name, fig in figures(res).items()}


def estimates_frame(res: Results, names: list[str] | None = None):
    """Every metric (or ``names``) with its value, SE and 95% interval (by
    the rule for its kind, :mod:`domeng.results.stats`), as a DataFrame: ``metric``, ``value``, ``ci_low``,
    ``ci_high``, ``se``, ``unit``."""
    import pandas as pd

    from domeng.results.metrics import metric_parts

    rows = []
    for name, p in metric_parts(res).items():
        if names is not None and name not in names:
            continue
        v, se, lo, hi = p.interval()
        rows.append(
            {
                "metric": name,
                "value": float(v),
                "ci_low": float(lo),
                "ci_high": float(hi),
                "se": float(se),
                "unit": p.unit,
            }
        )
    return pd.DataFrame(rows)


#: the metrics of the report's first table
KEY = [
    "end_kind.CAPPU",
    "end_kind.CEKI",
    "end_kind.POLLO",
    "end_kind.MANGUNO",
    "end_kind.MATTIKKENG",
    "passes_per_round",
    "passebunge_per_round",
    "passebunge_round_share",
    "tiles_per_round",
    "stones_per_round.total",
    "stones_per_round.from_table",
    "stones_per_round.from_players",
    "stones_per_round.unpaid.total",
    "camat_per_1000_rounds.total",
    "rounds_between_camats.mean",
    "win_rate_by_starter_offset.0",
    "final_state.no_camat_share",
]


def html_report(
    res: Results, pngs: dict[str, bytes] | None = None, captions: dict[str, str] | None = None
) -> str:
    """One self-contained HTML page that fits a 1280-px and a 390-px window:
    a table of contents, the study, the key figures, every plot (embedded
    PNG), the main DataFrames and every estimate as real tables, every rule
    value, the glossary of the fourteen terms, the command that reproduces
    the study and the versions (:mod:`domeng.results.html`).  ``pngs``: the
    plots as :func:`plots` gives them; ``captions``: their captions (default:
    what each shows and the study's configuration, :func:`caption`)."""
    from domeng.results import html as H

    pngs = plots(res) if pngs is None else pngs
    captions = captions or {n: f"{c} {caption(res)}" for n, c in PLOTS.items()}
    page = H.Page(f"Domeng study: {counted_x((res.tables, 'table'), (res.rounds, 'round'))}")
    rows = [
        ("rounds in all", f"{res.total_rounds:,}"),
        ("seed", str(res.seed)),
        ("players (seat 0..4)", ", ".join(res.players)),
        ("rules", str(res.rules)),
        ("groups of tables (for SE)", str(res.groups)),
    ]
    if res.meta.get("elapsed_seconds") is not None:
        rows.append(("simulation time", f"{res.meta['elapsed_seconds']:.1f} s"))
    if res.meta.get("compile_seconds"):
        rows.append(
            ("compiling the engine (first run only)", f"{res.meta['compile_seconds']:.1f} s")
        )
    page.intro.append(H.kv_table(rows))
    page.intro.append(
        "<p>Estimates are ratios over all rounds; intervals are 95%, from standard "
        "errors computed across independent groups of tables (so the correlation "
        f"of rounds at one table is accounted for): t with {res.groups - 1} degrees of "
        "freedom, Wilson intervals with the groups' design effect for shares, and "
        "[0, rule of three] for a count with no events.</p>"
    )
    stop = res.meta.get("stopping")
    if stop:
        from domeng.results.sequential import stopping_text

        page.add("Why the study stopped", f"<pre>{H.esc(stopping_text(stop))}</pre>")
    page.add("Key figures", H.table(estimates_frame(res, KEY)))
    page.add("Plots", "".join(H.figure(n, pngs[n], captions[n]) for n in PLOTS if n in pngs))
    fm = res.flow_matrix()
    body = [
        "<h3>Stones per round, source (rows) to destination (columns)</h3>",
        H.table(fm, index=True),
    ]
    for title, df in (
        ("End kinds", res.end_kinds()),
        ("Win rate by seat offset from the starter", res.win_by_starter_offset()),
        ("Win rate by seat", res.win_by_seat().query("kind == 'ALL'")),
        ("Win rate by player (per seat)", res.win_by_player()),
        ("PASS and PASSEBUNGE by seat", res.passes_by_seat()),
        ("PASS and PASSEBUNGE by player (per seat)", res.passes_by_player()),
        ("CAMAT per 1000 rounds by seat", res.camat_by_seat()),
        ("CAMAT per 1000 rounds by player (per seat)", res.camat_by_player()),
        ("Final state of the tables", res.final_state()),
    ):
        body.append(f"<h3>{H.esc(title)}</h3>" + H.table(df))
    body.append(
        "<p>All tables (and the stone flows by reason) are in <code>tables/</code> as "
        "Parquet and CSV; <code>summary.json</code> holds every estimate with its SE.</p>"
    )
    page.add("Tables", "".join(body))
    page.add(
        "Every estimate",
        "<p>Each metric by the name <code>domeng compare</code> and "
        "<code>--target-ci</code> use.</p>" + H.table(estimates_frame(res)),
    )
    page.add("Rules", H.rules_table(res.meta["rules"]))
    page.add("Glossary", H.glossary())
    page.add("Reproduce", H.reproduce(res.meta.get("command") or H.simulate_command(res.meta)))
    return page.render()


def render(
    res: Results, folder: str | os.PathLike, fmt: str = "png", dpi: int = F.DPI
) -> dict[str, Path]:
    """Write ``plots/NAME.png`` (and ``plots/NAME.FORMAT`` for ``fmt`` svg or
    pdf), at ``dpi`` (300 by default), with the study's configuration in
    each one's caption, and ``report.html`` into ``folder`` (each file under
    a temporary name, then renamed).  Returns the paths."""
    if fmt not in F.FORMATS:
        raise ValueError(f"format must be one of {', '.join(F.FORMATS)}, got {fmt!r}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    plots_dir = fixed_subfolder(folder, "plots")
    pngs, captions, out = {}, {}, {}
    for name, fig in figures(res).items():
        for ext, data in F.figure_files(fig, fmt, dpi).items():
            atomic_write(plots_dir / f"{name}.{ext}", data)
        out[name] = plots_dir / f"{name}.png"
        pngs[name] = F.report_png(fig)
        captions[name] = F.caption_of(fig)
    p = folder / "report.html"
    atomic_write(p, html_report(res, pngs, captions))
    out["report"] = p
    return out
