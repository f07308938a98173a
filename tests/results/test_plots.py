"""Figures you can edit (issue 23 item 4): every plot is a function
``plot_xxx(result, ax=None, **style)`` that returns the matplotlib Figure it
drew into; labels are words with units, the configuration is in the
caption (never a title), one unit per axis, compare/sweep plots draw the
paired differences with their intervals, the style is colour-blind safe and
local, PNG files are 300 dpi by default.  Drawn with the Agg backend."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure

import domeng
from domeng.results import figures as F
from domeng.results import report
from domeng.results.comparison import KEY_METRICS
from domeng.results.diff_plots import plot_forest, plot_sweep, sweep_figures
from domeng.results.metrics import metric_names, metric_words
from domeng.results.plots import (
    PLOT_FUNCTIONS,
    caption,
    figures,
    plot_end_kinds,
    plot_passebunge,
    plot_win_rates,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def res():
    return domeng.simulate(tables=20, rounds=20, seed=3, progress=False)


@pytest.fixture(scope="module")
def cmp():
    return domeng.compare(
        ["pollo=4", "passebunge_award=1"], tables=20, rounds=10, seed=3, progress=False
    )


@pytest.fixture(scope="module")
def sw():
    return domeng.sweep(
        ["pollo=3,4", "passebunge_every_pass=true,false"],
        tables=12,
        rounds=10,
        seed=3,
        progress=False,
    )


def _all_figures(res, cmp, sw) -> dict[str, Figure]:
    out = dict(figures(res))
    out["forest"] = plot_forest(cmp)
    out.update(sweep_figures(sw))
    return out


def _texts(fig: Figure) -> dict[str, list[str]]:
    """The figure's titles, axis labels, legend texts and tick labels."""
    titles = [fig._suptitle.get_text()] if fig._suptitle is not None else []
    labels, legends, ticks = [], [], []
    for a in fig.axes:
        titles.append(a.get_title())
        labels += [a.get_xlabel(), a.get_ylabel()]
        ticks += [t.get_text() for t in a.get_xticklabels() + a.get_yticklabels()]
        if a.get_legend() is not None:
            legends += [t.get_text() for t in a.get_legend().get_texts()]
    for leg in fig.legends:
        legends += [t.get_text() for t in leg.get_texts()]
    return {
        "titles": [t for t in titles if t],
        "labels": labels,
        "legends": legends,
        "ticks": ticks,
    }


# ------------------------------------------------------------ ax= and the figure
def _one_axes_calls(res, cmp, sw):
    return [(name, lambda ax, f=f: f(res, ax=ax)) for name, f in PLOT_FUNCTIONS.items()] + [
        ("forest", lambda ax: plot_forest(cmp, ax=ax, metrics=["stones_per_round.total"])),
        ("sweep", lambda ax: plot_sweep(sw, "pollo_award", ax=ax, metrics=["tiles_per_round"])),
    ]


def test_a_plot_drawn_into_a_given_axes_returns_its_figure(res, cmp, sw):
    for name, call in _one_axes_calls(res, cmp, sw):
        fig = Figure()
        ax = fig.subplots()
        before = len(ax.get_children())
        got = call(ax)
        assert got is fig, name
        drawn = ax.patches + ax.lines + ax.collections + ax.images + ax.texts
        assert drawn and len(ax.get_children()) > before, name
        assert ax.get_xlabel() or ax.get_ylabel(), name
        assert not F.caption_of(fig), f"{name}: a caption was added to the caller's figure"


def test_pyplot_axes_too(res):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        assert plot_win_rates(res, ax=ax) is fig
        heights = [p.get_height() for p in ax.patches]
        off = res.win_by_starter_offset().query("kind == 'ALL'")
        assert heights == pytest.approx(list(off.rate))
    finally:
        plt.close(fig)


def test_several_panels_into_the_callers_axes(res):
    fig = Figure()
    axes = fig.subplots(1, 3)
    assert plot_win_rates(res, ax=axes) is fig
    assert all(a.patches for a in axes)
    seat = res.win_by_seat().query("kind == 'ALL'")
    assert [p.get_height() for p in axes[1].patches] == pytest.approx(list(seat.rate))
    # one panel by name into one Axes
    ax = Figure().subplots()
    plot_passebunge(res, ax=ax, panels="round_share")
    pb = res.passes_by_seat().query("event == 'PASSEBUNGE'")
    assert [p.get_height() for p in ax.patches] == pytest.approx(list(pb.round_share))
    with pytest.raises(ValueError, match="2 Axes given for 1 panels"):
        plot_passebunge(res, ax=Figure().subplots(1, 2), panels="per_round")
    with pytest.raises(ValueError, match="unknown panel 'bogus': the panels are"):
        plot_win_rates(res, panels="bogus")


def test_style_keywords_reach_the_artists(res):
    fig = plot_end_kinds(res, color="#123456", alpha=0.5)
    bar = fig.axes[0].patches[0]
    assert matplotlib.colors.to_hex(bar.get_facecolor()) == "#123456"
    assert bar.get_alpha() == 0.5


def test_a_new_figure_has_every_panel_and_a_caption(res):
    fig = plot_win_rates(res)
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    assert F.caption_of(fig).endswith(caption(res))
    ax = Figure().subplots()
    assert F.caption_of(plot_end_kinds(res, ax=ax, with_caption=True))


# ------------------------------------------------------------ labels, titles, units
#: a metric key or rule option as a program writes it: words joined by "_" or "."
KEY = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]|[a-z]\.[a-z]")


def test_labels_are_words_not_metric_keys(res, cmp, sw):
    keys = set(metric_names(res))
    for name, fig in _all_figures(res, cmp, sw).items():
        t = _texts(fig)
        for text in t["titles"] + t["labels"] + t["legends"] + t["ticks"]:
            assert not KEY.search(text), (name, text)
            assert text not in keys, (name, text)
        assert all(a.get_ylabel() or a.get_xlabel() for a in fig.axes if a.get_visible()), name


def test_metric_words_cover_every_metric(res):
    for m in metric_names(res):
        words = metric_words(m)
        assert words != m and not KEY.search(words), (m, words)


def test_each_axis_has_one_unit_and_says_it(res, cmp, sw):
    fig = plot_passebunge(res)
    assert [a.get_ylabel() for a in fig.axes] == [
        "PASSEBUNGEs per round",
        "share of rounds with a PASSEBUNGE",
    ]
    d = cmp.differences(metrics=KEY_METRICS)
    units = list(dict.fromkeys(d.unit))
    forest = plot_forest(cmp)
    assert len(forest.axes) == len(units) > 1
    for a, unit in zip(forest.axes, units):
        assert a.get_xlabel().endswith(f"({unit})")
        names = {metric_words(m) for m in d.metric[d.unit == unit]}
        assert {t.get_text() for t in a.get_yticklabels()} == names
    for a in sweep_figures(sw)["sweep-pollo_award"].axes:
        if a.get_visible():
            assert re.search(r"\((stones per round|per round|per 1000 rounds)\)$", a.get_ylabel())
    with pytest.raises(ValueError, match="1 Axes given for"):
        plot_forest(cmp, ax=Figure().subplots())  # several units: one Axes each


def test_end_kinds_percent_on_a_percent_axis(res):
    from matplotlib.ticker import PercentFormatter

    a = plot_end_kinds(res).axes[0]
    assert isinstance(a.yaxis.get_major_formatter(), PercentFormatter)
    assert "%" in a.get_ylabel()
    notes = [t.get_text() for t in a.texts]
    assert notes and all(n.endswith("%") for n in notes)
    shares = res.end_kinds().share
    assert notes == [f"{v:.1%}" for v in shares]


def test_titles_hold_no_configuration_the_caption_does(res, cmp, sw):
    config = [
        "seed",
        "tables",
        "rounds,",
        " x ",
        str(res.rules),
        ",".join(res.players),
        ", ".join(res.players),
    ]
    for name, fig in _all_figures(res, cmp, sw).items():
        for title in _texts(fig)["titles"]:
            for bit in config:
                assert bit not in title, (name, title, bit)
        cap = F.caption_of(fig)
        expect = {
            "forest": "20 tables x 10 rounds per arm, seed 3",
            "sweep-pollo_award": "12 tables x 10 rounds per point, seed 3",
            "sweep-passebunge_every_pass": "12 tables x 10 rounds per point, seed 3",
        }.get(name, "20 tables x 20 rounds, seed 3")
        assert expect in cap, (name, cap)
        assert "default rules" in cap or "pollo_award=3" in cap, (name, cap)


# ------------------------------------------------------------ paired differences
def _errorbars(ax):
    """(x, y, low, high) of each errorbar container of ``ax``, in order."""
    out = []
    for c in ax.containers:
        if not isinstance(c, ErrorbarContainer):
            continue
        line, _, (bars,) = c.lines
        x, y = line.get_xdata(), line.get_ydata()
        segs = bars.get_segments()
        if c.has_xerr:
            lo, hi = [s[0][0] for s in segs], [s[1][0] for s in segs]
        else:
            lo, hi = [s[0][1] for s in segs], [s[1][1] for s in segs]
        out.append((np.asarray(x), np.asarray(y), np.asarray(lo), np.asarray(hi)))
    return out


@pytest.mark.parametrize("adjust", [None, "holm"])
def test_forest_draws_the_paired_differences_and_intervals(cmp, adjust):
    metrics = ["stones_per_round.total", "stones_per_round.from_table", "end_kind.POLLO"]
    d = cmp.differences(adjust=adjust, metrics=metrics)
    fig = plot_forest(cmp, metrics=metrics, adjust=adjust)
    for a, unit in zip(fig.axes, ["stones per round", "share of rounds"]):
        bars = _errorbars(a)
        assert len(bars) == len(cmp.variants)
        for (x, _, lo, hi), v in zip(bars, cmp.variants):
            g = d[(d.variant == v) & (d.unit == unit)]
            assert x == pytest.approx(g.value.to_numpy())
            assert lo == pytest.approx(g.ci_low.to_numpy())
            assert hi == pytest.approx(g.ci_high.to_numpy())
    if adjust:  # the adjusted intervals are wider: the plot shows them, not the plain ones
        plain = cmp.differences(metrics=metrics)
        wide, narrow = d.ci_high - d.ci_low, plain.ci_high - plain.ci_low
        assert (wide >= narrow).all() and (wide > narrow).any()


def test_sweep_draws_the_paired_changes_and_intervals(sw):
    df = sw.frame()
    m = "stones_per_round.total"
    fig = plot_sweep(sw, "pollo_award", metrics=[m])
    a = fig.axes[0]
    lines = _errorbars(a)
    assert len(lines) == 2  # one per value of the other swept option
    for (x, y, lo, hi), other in zip(lines, [True, False]):
        g = df[(df.metric == m) & (df.passebunge_every_pass == other)].set_index("pollo_award")
        g = g.reindex([3, 4])
        assert list(np.round(x)) == [0, 1]  # at the option's values (the lines a little apart)
        assert y == pytest.approx(g["diff"].to_numpy())
        assert lo == pytest.approx(g.diff_ci_low.to_numpy())
        assert hi == pytest.approx(g.diff_ci_high.to_numpy())
    # the marginal values are not what is drawn (the paired change is)
    vals = df[df.metric == m].value.to_numpy()
    assert not np.allclose(np.concatenate([ln[1] for ln in lines]), vals)
    with pytest.raises(ValueError, match="name the option to plot"):
        plot_sweep(sw)


# ------------------------------------------------------------ style and files
def test_global_rcparams_unchanged_and_the_style_applied(res, cmp, sw):
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"axes.prop_cycle": matplotlib.cycler(color=["#abcdef"])}):
        before = dict(matplotlib.rcParams)
        figs = _all_figures(res, cmp, sw)
        fig, ax = plt.subplots()
        plot_forest(cmp, ax=ax, metrics=["passes_per_round"])
        assert dict(matplotlib.rcParams) == before
        # inside the plot, the colour-blind-safe cycle, not the caller's
        line = _errorbars(ax)[0]
        assert line is not None
        colors = {matplotlib.colors.to_hex(c[0].get_color()) for c in ax.containers}
        assert colors <= {c.lower() for c in F.OKABE_ITO}
        plt.close(fig)
    forest = figs["forest"]
    used = {matplotlib.colors.to_hex(c[0].get_color()) for c in forest.axes[0].containers}
    assert used == {c.lower() for c in F.OKABE_ITO[:2]}


def _png_dpi(data: bytes) -> float:
    """The PNG's resolution from its pHYs chunk (pixels per metre -> per inch)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    i = 8
    while i < len(data):
        (n,) = struct.unpack(">I", data[i : i + 4])
        kind = data[i + 4 : i + 8]
        if kind == b"pHYs":
            x, y, unit = struct.unpack(">IIB", data[i + 8 : i + 17])
            assert unit == 1 and x == y
            return x * 0.0254
        i += 12 + n
    raise AssertionError("no pHYs chunk")


def test_png_files_are_300_dpi_by_default(res, tmp_path):
    paths = report.render(res, tmp_path)
    for name in report.PLOTS:
        assert _png_dpi(paths[name].read_bytes()) == pytest.approx(300, abs=0.1), name
    fig = plot_end_kinds(res)
    assert _png_dpi(F.figure_bytes(fig)) == pytest.approx(300, abs=0.1)
    assert _png_dpi(F.figure_bytes(fig, dpi=72)) == pytest.approx(72, abs=0.1)
    w = fig.get_figwidth()
    import io

    from PIL import Image

    px = Image.open(io.BytesIO(F.figure_bytes(fig))).size[0]
    assert px >= 0.9 * w * 300  # tight bbox trims a little, never to 110 dpi
    report.render(res, tmp_path / "low", dpi=60)
    assert _png_dpi((tmp_path / "low/plots/end_kinds.png").read_bytes()) == pytest.approx(
        60, abs=0.1
    )


def test_the_cli_default_dpi_is_300():
    from domeng.cli.main import build_parser

    args = build_parser().parse_args(["report", "x"])
    assert args.dpi == 300


def test_the_report_embeds_the_plots_and_captions_them(res, tmp_path):
    paths = report.render(res, tmp_path)
    html = paths["report"].read_text()
    caps = re.findall(r"<figcaption>(.*?)</figcaption>", html)
    assert len(caps) == len(report.PLOTS)
    assert all("20 tables x 20 rounds, seed 3" in c for c in caps)
    # the embedded image leaves the caption to the figcaption: it is shorter
    import io

    from PIL import Image

    fig = plot_end_kinds(res)
    with_cap = Image.open(io.BytesIO(F.figure_bytes(fig, dpi=100))).size[1]
    without = Image.open(io.BytesIO(F.report_png(fig, dpi=100))).size[1]
    assert without < with_cap
    assert F.caption_of(fig)  # hidden for the report only


# ------------------------------------------------------------ the docs' example
def test_the_figures_section_of_docs_study_runs(tmp_path, monkeypatch):
    text = (ROOT / "docs/study.md").read_text()
    section = text.split("### Figures", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert blocks, "docs/study.md has no example in its Figures section"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(blocks[0], "docs/study.md", "exec"), namespace)
    fig = namespace["fig"]
    assert isinstance(fig, matplotlib.figure.Figure) and fig.axes[0].patches
    saved = sorted(p.name for p in tmp_path.iterdir())
    assert saved, "the example saves its figure"
    for p in tmp_path.iterdir():
        if p.suffix == ".png":
            assert _png_dpi(p.read_bytes()) == pytest.approx(300, abs=0.1)


# ------------------------------------------------------------ tournament and ladder
def test_tournament_and_ladder_plots_are_functions_too(tmp_path):
    from domeng.study.ladder import ladder
    from domeng.study.tournament import tournament
    from domeng.study.tournament_plots import plot_ladder, plot_tournament

    t = tournament(
        "hunter,keeper,heavy,random,random", deals=3, rounds=3, orders="rotations", progress=False
    )
    fig = Figure()
    axes = fig.subplots(1, 3)
    assert plot_tournament(t, ax=axes) is fig
    r = t.ranking()
    widths = [p.get_width() for p in axes[0].patches]
    assert widths == pytest.approx(list(r["net"]))
    new = plot_tournament(t)
    assert "3 deals x 3 rounds x 5 seatings" in F.caption_of(new)
    for text in _texts(new)["titles"] + _texts(new)["labels"]:
        assert "seed" not in text and " x " not in text and not KEY.search(text), text
    lad = ladder(
        "hunter,keeper,heavy,random,random,expert",
        deals=2,
        rounds=2,
        orders="rotations",
        progress=False,
    )
    lfig = plot_ladder(lad)
    assert [a.get_xlabel() for a in lfig.axes] == [
        "net stones per round (received - given; lower is better)",
        "CAMATs per 1000 rounds",
    ]
    assert _png_dpi(t.plots()["tournament"]) == pytest.approx(300, abs=0.1)
