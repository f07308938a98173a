"""Plots (matplotlib figures without pyplot, PNG) and a self-contained HTML report.

:func:`plots` returns each figure as PNG bytes; :func:`html_report` embeds
them (base64) with the study's tables; :func:`render` writes both into a
results folder (``plots/NAME.png``, ``report.html``), each file atomically.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np

from domeng.core.wording import counted_x
from domeng.infra.fs import atomic_write, fixed_subfolder
from domeng.results.results import Results

#: plot names, in report order, with their captions
PLOTS = {
    "win_rates": "Win rate by seat offset from the round's starter, by seat and by player "
    "(bars: estimate; whiskers: 95% CI across tables; dashed: 1/5).",
    "end_kinds": "How rounds end: share of rounds by end kind (95% CI).",
    "passebunge_by_seat": "PASSEBUNGE per seat: events per round and share of rounds with at "
    "least one (95% CI).",
    "stone_flows": "Stones per round from each source (the table, seats 0..4) to each "
    "destination seat, all reasons; bottom row: stones owed to the seat that "
    "nobody could pay (D7).",
    "camat_gaps": "Rounds between CAMATs (a table's first CAMAT: rounds since the start).",
    "round_length": "Round length: tiles played and turns per round.",
}

_BLUE = "#3b6ea8"
_ORANGE = "#d9822b"
_GREY = "#777777"


def _subplots(*args, figsize, layout=None, **kwargs):
    """A :class:`matplotlib.figure.Figure` and its axes, without pyplot
    (rendered by the Agg canvas on save; the process's backend is untouched)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout=layout)
    return fig, fig.subplots(*args, **kwargs)


#: what :func:`render` asks of the plots: a vector/raster format besides PNG, and the dpi
_OUTPUT: dict = {"fmt": "png", "dpi": 110, "extra": None}


def _png(fig) -> bytes:
    """The figure as PNG (and, while :func:`render` asks, as its format too)."""
    if _OUTPUT["extra"] is not None and _OUTPUT["fmt"] != "png":
        buf = io.BytesIO()
        fig.savefig(buf, format=_OUTPUT["fmt"], dpi=_OUTPUT["dpi"], bbox_inches="tight")
        _OUTPUT["extra"].append(buf.getvalue())
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=_OUTPUT["dpi"], bbox_inches="tight")
    return buf.getvalue()


def _err(values, low, high) -> np.ndarray:
    """Error bars ``[below, above]`` of 95% intervals (possibly asymmetric;
    none where an interval is undefined)."""
    v = np.asarray(values, dtype=float)
    lo, hi = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    return np.nan_to_num(np.clip(np.array([v - lo, hi - v]), 0, None))


def _subtitle(res: Results) -> str:
    return (
        f"{counted_x((res.tables, 'table'), (res.rounds, 'round'))}, seed {res.seed}; "
        f"players {','.join(res.players)}; {res.rules}"
    )


def _bars(ax, labels, values, ci, color=_BLUE, ref=None, fmt="{:.3f}"):
    """Bars of ``values`` with their 95% intervals ``ci = (low, high)``."""
    x = np.arange(len(labels))
    err = _err(values, *ci)
    ax.bar(
        x,
        values,
        yerr=err,
        color=color,
        capsize=4,
        width=0.65,
        error_kw={"elinewidth": 1, "ecolor": "#333333"},
    )
    ax.set_xticks(x)
    ax.set_xticklabels(labels)
    if ref is not None:
        ax.axhline(ref, color=_GREY, ls="--", lw=1)
    for xi, v, e in zip(x, values, err[1]):
        ax.annotate(
            fmt.format(v),
            (xi, v + e),
            xytext=(0, 3),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=8,
        )  # clear of the error bar's cap
    ax.margins(y=0.15)
    ax.set_ylim(bottom=0)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def plot_win_rates(res: Results) -> bytes:
    off = res.win_by_starter_offset().query("kind == 'ALL'")
    seat = res.win_by_seat().query("kind == 'ALL'")
    ply = res.win_by_player().query("kind == 'ALL'")
    fig, axes = _subplots(
        1,
        3,
        figsize=(13, 4.4),
        sharey=True,
        layout="constrained",
        gridspec_kw={"width_ratios": [5, 5, max(len(ply), 2)]},
    )
    _bars(
        axes[0],
        [f"+{o}" if o else "starter" for o in off.offset],
        off.rate,
        (off.ci_low, off.ci_high),
        ref=0.2,
    )
    axes[0].set_title("by seat offset from the starter")
    axes[0].set_ylabel("win rate (share of rounds)")
    axes[0].set_xlabel("seat offset from the round's starter")
    _bars(
        axes[1],
        [f"{s}\n{p}" for s, p in zip(seat.seat, seat.player)],
        seat.rate,
        (seat.ci_low, seat.ci_high),
        ref=0.2,
    )
    axes[1].set_title("by seat")
    axes[1].set_xlabel("seat and player")
    _bars(
        axes[2],
        [f"{p}\n({n} seat{'s' if n > 1 else ''})" for p, n in zip(ply.player, ply.n_seats)],
        ply.rate,
        (ply.ci_low, ply.ci_high),
        color=_ORANGE,
        ref=0.2,
    )
    axes[2].set_title("by player (per seat)")
    axes[2].set_xlabel("player (seats it occupies)")
    fig.suptitle("Win rate\n" + _subtitle(res), fontsize=10)
    return _png(fig)


def plot_end_kinds(res: Results) -> bytes:
    df = res.end_kinds()
    fig, ax = _subplots(figsize=(6.5, 4), layout="constrained")
    _bars(ax, list(df.kind), df.share, (df.ci_low, df.ci_high), fmt="{:.1%}")
    ax.set_ylabel("share of rounds")
    ax.set_xlabel("how the round ended (end kind)")
    ax.set_title("How rounds end\n" + _subtitle(res), fontsize=10)
    return _png(fig)


def plot_passebunge(res: Results) -> bytes:
    df = res.passes_by_seat().query("event == 'PASSEBUNGE'")
    fig, ax = _subplots(figsize=(7.5, 4), layout="constrained")
    x = np.arange(len(df))
    w = 0.38
    ax.bar(
        x - w / 2,
        df.per_round,
        w,
        yerr=_err(df.per_round, df.per_round_ci_low, df.per_round_ci_high),
        capsize=3,
        color=_BLUE,
        label="PASSEBUNGE events per round",
    )
    ax.bar(
        x + w / 2,
        df.round_share,
        w,
        yerr=_err(df.round_share, df.round_share_ci_low, df.round_share_ci_high),
        capsize=3,
        color=_ORANGE,
        label="share of rounds with >= 1 PASSEBUNGE",
    )
    ax.set_xticks(x)
    ax.set_xticklabels([f"seat {s}\n{p}" for s, p in zip(df.seat, df.player)])
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_xlabel("seat and player")
    ax.set_ylabel("PASSEBUNGE per round / share of rounds")
    ax.margins(y=0.2)
    ax.set_ylim(bottom=0)
    ax.set_title("PASSEBUNGE per seat\n" + _subtitle(res), fontsize=10)
    return _png(fig)


def plot_stone_flows(res: Results) -> bytes:
    m = res.flow_matrix()
    unpaid = res.unpaid().groupby("dest_seat").per_round.sum().reindex(range(5), fill_value=0.0)
    fig, (ax, ax2) = _subplots(
        2,
        1,
        figsize=(7.8, 6.2),
        sharex=True,
        layout="constrained",
        gridspec_kw={"height_ratios": [6, 1]},
    )
    vmax = max(float(m.to_numpy().max()), 1e-9)
    im = ax.imshow(m.to_numpy(), cmap="Blues", vmin=0, vmax=vmax, aspect="auto")
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            v = m.iat[i, j]
            ax.text(
                j,
                i,
                f"{v:.3f}",
                ha="center",
                va="center",
                fontsize=8,
                color="white" if v > 0.6 * vmax else "black",
            )
    ax.set_yticks(range(6))
    ax.set_yticklabels(["table"] + [f"seat {s} {p}" for s, p in enumerate(res.players)], fontsize=8)
    ax.set_ylabel("source")
    fig.colorbar(im, ax=ax, fraction=0.05, pad=0.02, label="stones per round")
    u = unpaid.to_numpy()[None, :]
    ax2.imshow(u, cmap="Greys", vmin=0, vmax=max(float(u.max()), 1e-9) * 2.5, aspect="auto")
    for j in range(5):
        ax2.text(j, 0, f"{u[0, j]:.3f}", ha="center", va="center", fontsize=8)
    ax2.set_yticks([0])
    ax2.set_yticklabels(["owed, unpaid (D7)"], fontsize=8)
    ax2.set_xticks(range(5))
    ax2.set_xticklabels([f"seat {d}\n{p}" for d, p in enumerate(res.players)], fontsize=8)
    ax2.set_xlabel("destination")
    fig.suptitle(
        "Stone flows per round: source -> destination (all reasons)\n" + _subtitle(res), fontsize=10
    )
    return _png(fig)


def plot_camat_gaps(res: Results) -> bytes:
    df = res.camat_gaps()
    fig, ax = _subplots(figsize=(7.5, 4), layout="constrained")
    nz = np.nonzero(df.camats.to_numpy())[0]
    if len(nz) == 0:
        ax.text(
            0.5, 0.5, "no CAMAT in this study", ha="center", va="center", transform=ax.transAxes
        )
        ax.set_xticks([])
        ax.set_yticks([])
    else:
        last = nz[-1] + 1
        d = df.iloc[:last]
        ax.bar(d.rounds_between, d.share, width=0.9, color=_BLUE)
        mean = res.summary()["rounds_between_camats"]["mean"]["value"]
        if mean is not None:
            ax.axvline(mean, color=_ORANGE, lw=1.5, label=f"mean {mean:.1f} rounds")
            ax.legend(fontsize=8)
        ax.set_xlabel("rounds between CAMATs" + (" (last bar: 127 or more)" if last >= 127 else ""))
        ax.set_ylabel("share of CAMATs")
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    ax.set_title(
        f"Rounds between CAMATs ({int(df.camats.sum()):,} CAMATs)\n" + _subtitle(res), fontsize=10
    )
    return _png(fig)


def plot_round_length(res: Results) -> bytes:
    df = res.round_length()
    fig, axes = _subplots(1, 2, figsize=(10, 3.8), layout="constrained")
    s = res.summary()
    for ax, measure, key, color in (
        (axes[0], "tiles", "tiles_per_round", _BLUE),
        (axes[1], "turns", "turns_per_round", _ORANGE),
    ):
        d = df[df.measure == measure]
        nz = np.nonzero(d.rounds.to_numpy())[0]
        if len(nz):
            d = d.iloc[nz[0] : nz[-1] + 1]
        ax.bar(d.value, d.share, width=0.9, color=color)
        ax.set_xlabel(f"{measure} per round (mean {s[key]['value']:.2f})")
        ax.set_ylabel("share of rounds")
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    fig.suptitle("Round length\n" + _subtitle(res), fontsize=10)
    return _png(fig)


_PLOT_FUNCS = {
    "win_rates": plot_win_rates,
    "end_kinds": plot_end_kinds,
    "passebunge_by_seat": plot_passebunge,
    "stone_flows": plot_stone_flows,
    "camat_gaps": plot_camat_gaps,
    "round_length": plot_round_length,
}


def plots(res: Results) -> dict[str, bytes]:
    """Every plot as PNG bytes, by name (:data:`PLOTS`)."""
    return {name: _PLOT_FUNCS[name](res) for name in PLOTS}


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


def html_report(res: Results, pngs: dict[str, bytes] | None = None) -> str:
    """One self-contained HTML page that fits a 1280-px and a 390-px window:
    a table of contents, the study, the key figures, every plot (embedded
    PNG), the main DataFrames and every estimate as real tables, every rule
    value, the glossary of the fourteen terms, the command that reproduces
    the study and the versions (:mod:`domeng.results.html`)."""
    from domeng.results import html as H

    pngs = plots(res) if pngs is None else pngs
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
    page.add("Plots", "".join(H.figure(n, pngs[n], c) for n, c in PLOTS.items() if n in pngs))
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
    res: Results, folder: str | os.PathLike, fmt: str = "png", dpi: int = 110
) -> dict[str, Path]:
    """Write ``plots/NAME.png`` (and ``plots/NAME.FORMAT`` for ``fmt`` svg or
    pdf, at ``dpi``) and ``report.html`` into ``folder`` (each file under a
    temporary name, then renamed).  Returns the paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    plots_dir = fixed_subfolder(folder, "plots")
    pngs, extra = {}, {}
    _OUTPUT.update(fmt=fmt, dpi=dpi)
    try:
        for name in PLOTS:
            _OUTPUT["extra"] = []
            pngs[name] = _PLOT_FUNCS[name](res)
            if _OUTPUT["extra"]:
                extra[name] = _OUTPUT["extra"][0]
    finally:
        _OUTPUT.update(fmt="png", dpi=110, extra=None)
    out = {}
    for name, data in pngs.items():
        p = plots_dir / f"{name}.png"
        atomic_write(p, data)
        out[name] = p
        if name in extra:
            atomic_write(plots_dir / f"{name}.{fmt}", extra[name])
    p = folder / "report.html"
    atomic_write(p, html_report(res, pngs))
    out["report"] = p
    return out
