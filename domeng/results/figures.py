"""What every figure of a study shares: a colour-blind-safe style applied
locally, the Axes a plot draws into (the caller's, or a new figure's), the
caption that carries the configuration, and the files a figure is saved as.

Every plot of :mod:`domeng.results.plots` (a study) and
:mod:`domeng.results.diff_plots` (a comparison or a sweep) is a function
``plot_xxx(result, ax=None, **style)`` that returns a
:class:`matplotlib.figure.Figure`: drawn into the given Axes (its figure is
returned), or into a new figure made without pyplot (so no backend is set).
The style is the Okabe-Ito palette (:data:`OKABE_ITO`), applied by
:func:`plot_style` inside each plot only: the caller's ``rcParams`` are never
changed.  The configuration of the study (tables x rounds, seed, players,
rules) is in the figure's caption (:func:`add_caption`, text below the
axes), never in a title; the HTML report puts it in the ``<figcaption>``
(:func:`report_png` leaves the caption out of the image).  Files are
written at :data:`DPI` (300) unless asked otherwise.
"""

from __future__ import annotations

import contextlib
import functools
import io
import textwrap
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from domeng.core.defaults import PLOT_DPI

if TYPE_CHECKING:  # matplotlib loads only when a figure is drawn
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Okabe & Ito's eight colours, told apart with every common colour-vision deficiency
OKABE_ITO = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermilion
    "#56B4E9",  # sky blue
    "#CC79A7",  # reddish purple
    "#F0E442",  # yellow
    "#000000",  # black
)
BLUE, ORANGE, GREEN, VERMILION = OKABE_ITO[:4]
GREY = "#777777"
#: the sequential colour map of heat maps (one hue: its order reads in grey too)
CMAP = "Blues"
#: resolution of the plot files, dots per inch (``--dpi``)
DPI = PLOT_DPI
#: resolution of the PNGs the HTML reports embed (a page, not print)
REPORT_DPI = 150
FORMATS = ("png", "svg", "pdf")
#: the gid of a caption's text (:func:`report_png` hides it)
CAPTION_GID = "domeng-caption"


def _rc() -> Any:
    from cycler import cycler

    return {
        "axes.prop_cycle": cycler(color=list(OKABE_ITO)),
        "image.cmap": CMAP,
        "font.size": 9,
        "axes.titlesize": 10,
        "axes.labelsize": 9,
        "xtick.labelsize": 8,
        "ytick.labelsize": 8,
        "legend.fontsize": 8,
        "figure.titlesize": 11,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }


def plot_style() -> contextlib.AbstractContextManager:
    """The plots' style (Okabe-Ito colours, font sizes) as a context: inside
    it, ``matplotlib.rcParams`` holds the style; after it, what it held
    before (:func:`matplotlib.rc_context`).

    Returns
    -------
    contextlib.AbstractContextManager
        Use it in a ``with`` statement.

    Examples
    --------
    >>> import matplotlib
    >>> from domeng.results.figures import OKABE_ITO, plot_style
    >>> with plot_style():
    ...     matplotlib.rcParams["axes.prop_cycle"].by_key()["color"][0] == OKABE_ITO[0]
    True
    """
    import matplotlib

    return matplotlib.rc_context(_rc())


def styled(func):
    """Run a plot function inside :func:`plot_style`."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with plot_style():
            return func(*args, **kwargs)

    return wrapper


def new_figure(*args, figsize, layout="constrained", **kwargs) -> tuple[Figure, Any]:
    """A :class:`matplotlib.figure.Figure` and its axes (``Figure.subplots``),
    without pyplot (rendered by the Agg canvas on save; the backend is untouched)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout=layout)
    return fig, fig.subplots(*args, **kwargs)


def panel_axes(
    ax, panels: str | Sequence[str] | None, known: Sequence[str], make
) -> tuple[Figure, list[Axes], list[str], bool]:
    """The Axes a plot of several panels draws into.

    ``ax``: None (a new figure: ``make(panels)`` returns it and one Axes per
    panel), one Axes, or a sequence of them, one per panel.  ``panels``: the
    names of the panels to draw (default: every one of ``known`` in a new
    figure, else the first as many as Axes were given).  Returns the figure,
    the Axes, the panels and whether the figure is new.  Refuses
    (ValueError, one line) an unknown panel or a count that does not match."""
    if panels is not None:
        panels = [panels] if isinstance(panels, str) else list(panels)
        bad = [p for p in panels if p not in known]
        if bad or not panels:
            what = f"unknown panel {bad[0]!r}" if bad else "no panel asked"
            raise ValueError(f"{what}: the panels are {', '.join(known)}")
    if ax is None:
        panels = list(known) if panels is None else panels
        fig, axes = make(panels)
        return fig, list(np.ravel(axes)), panels, True
    axes = list(np.ravel(ax)) if isinstance(ax, (list, tuple, np.ndarray)) else [ax]
    if panels is None:
        if len(axes) > len(known):
            raise ValueError(f"{len(axes)} Axes given for at most {len(known)} panels")
        panels = list(known[: len(axes)])
    if len(panels) != len(axes):
        raise ValueError(f"{len(axes)} Axes given for {len(panels)} panels ({', '.join(panels)})")
    for a in axes:  # the first ticks take the style (later ones copy them)
        a.xaxis.get_major_ticks()
        a.yaxis.get_major_ticks()
    return axes[0].get_figure(), axes, panels, False


def one_axes(ax, figsize: tuple[float, float]) -> tuple[Figure, Axes, bool]:
    """The Axes a one-panel plot draws into: ``ax``, or a new figure's."""
    if ax is None:
        fig, new = new_figure(figsize=figsize)
        return fig, new, True
    if isinstance(ax, (list, tuple, np.ndarray)):
        raise ValueError("this plot has one panel: give one Axes")
    ax.xaxis.get_major_ticks()
    ax.yaxis.get_major_ticks()
    return ax.get_figure(), ax, False


def add_caption(fig: Figure, text: str, width: int | None = None) -> None:
    """``text`` below the figure's axes, wrapped to its width (the saved
    file grows to hold it: files are saved with ``bbox_inches="tight"``).

    Parameters
    ----------
    fig:
        The figure.
    text:
        The caption (the configuration of the study, what the bars and
        whiskers are).
    width:
        Characters per line (default: what fits the figure's width).

    Examples
    --------
    >>> from domeng.results.figures import CAPTION_GID, add_caption, new_figure
    >>> fig, ax = new_figure(figsize=(4, 3))
    >>> add_caption(fig, "2 tables x 2 rounds, seed 1")
    >>> [t.get_text() for t in fig.texts if t.get_gid() == CAPTION_GID]
    ['2 tables x 2 rounds, seed 1']
    """
    if width is None:
        width = max(40, int(fig.get_figwidth() * 72 / (8 * 0.55)))
    wrapped = "\n".join(textwrap.wrap(text, width))
    fig.text(0.01, 0.0, wrapped, ha="left", va="top", fontsize=8, color="#333333", gid=CAPTION_GID)


def caption_of(fig: Figure) -> str:
    """The caption :func:`add_caption` gave ``fig`` (lines joined), or ``""``."""
    return " ".join(" ".join(t.get_text().split()) for t in fig.texts if t.get_gid() == CAPTION_GID)


def figure_bytes(fig: Figure, fmt: str = "png", dpi: int = DPI) -> bytes:
    """A figure as PNG, SVG or PDF bytes, at ``dpi`` (300 by default).

    Parameters
    ----------
    fig:
        Any matplotlib figure.
    fmt:
        ``"png"``, ``"svg"`` or ``"pdf"``.
    dpi:
        Dots per inch (the PNG's size and its pHYs chunk; the raster parts
        of SVG and PDF).

    Returns
    -------
    bytes
        The file's content.

    Examples
    --------
    >>> from domeng.results.figures import figure_bytes, new_figure
    >>> fig, ax = new_figure(figsize=(2, 1))
    >>> figure_bytes(fig)[:4]
    b'\\x89PNG'
    """
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


def figure_files(fig: Figure, fmt: str = "png", dpi: int = DPI) -> dict[str, bytes]:
    """The figure as FORMAT bytes and as PNG (``{"png": ..., FORMAT: ...}``)."""
    return {f: figure_bytes(fig, f, dpi) for f in dict.fromkeys((fmt, "png"))}


@contextlib.contextmanager
def _caption_hidden(fig: Figure) -> Iterator[None]:
    texts = [t for t in fig.texts if t.get_gid() == CAPTION_GID and t.get_visible()]
    for t in texts:
        t.set_visible(False)
    try:
        yield
    finally:
        for t in texts:
            t.set_visible(True)


def report_png(fig: Figure, dpi: int = REPORT_DPI) -> bytes:
    """The PNG an HTML report embeds: the figure without its caption (the
    page's ``<figcaption>`` carries it), at ``dpi`` (150: a page, not print)."""
    with _caption_hidden(fig):
        return figure_bytes(fig, "png", dpi)


def err(values, low, high) -> np.ndarray:
    """Error bars ``[below, above]`` of intervals (possibly asymmetric;
    none where an interval is undefined)."""
    v = np.asarray(values, dtype=float)
    lo, hi = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    return np.nan_to_num(np.clip(np.array([v - lo, hi - v]), 0, None))


def bars(ax, labels, values, ci, ref=None, fmt="{:.3f}", **style) -> None:
    """Bars of ``values`` with their 95% intervals ``ci = (low, high)``, each
    labelled with ``fmt`` (the axis's unit: a fraction or a percent), a
    dashed line at ``ref``; ``style``: keywords of :meth:`Axes.bar`."""
    x = np.arange(len(labels))
    e = err(values, *ci)
    kw = {
        "color": BLUE,
        "capsize": 4,
        "width": 0.65,
        "error_kw": {"elinewidth": 1, "ecolor": "#333333"},
        **style,
    }
    ax.bar(x, values, yerr=e, **kw)
    ax.set_xticks(x)
    ax.set_xticklabels(labels)
    if ref is not None:
        ax.axhline(ref, color=GREY, ls="--", lw=1)
    for xi, v, top in zip(x, values, e[1]):
        ax.annotate(
            fmt.format(v),
            (xi, v + top),
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


__all__ = [
    "CAPTION_GID",
    "DPI",
    "FORMATS",
    "OKABE_ITO",
    "REPORT_DPI",
    "add_caption",
    "caption_of",
    "figure_bytes",
    "figure_files",
    "new_figure",
    "plot_style",
    "report_png",
]
