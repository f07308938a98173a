"""The plots of a study: one function each, ``plot_xxx(res, ax=None, **style)``,
returning the :class:`matplotlib.figure.Figure` drawn into.

Each draws into the Axes given (one, or one per panel: ``panels`` names
them) and returns that Axes' figure, or makes a figure of its own (without
pyplot) with every panel and a caption below (:func:`caption`: tables x
rounds, seed, players, rules).  Axis labels say what is counted and its
unit; an axis holds one unit; intervals are 95%
(:mod:`domeng.results.stats`).  The style is applied inside each function
only (:func:`domeng.results.figures.plot_style`).  ``style``: keywords of
the plot's main artist (:meth:`~matplotlib.axes.Axes.bar`,
:meth:`~matplotlib.axes.Axes.imshow`), e.g. ``color``, ``alpha``, ``cmap``.

>>> import domeng
>>> from domeng.results.plots import plot_end_kinds
>>> res = domeng.simulate(tables=2, rounds=2, seed=1, progress=False)
>>> fig = plot_end_kinds(res)
>>> fig.axes[0].get_ylabel()
'share of rounds (%)'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from domeng.core.wording import counted, counted_x
from domeng.results import figures as F

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from domeng.results.results import Results


#: the report's plots, in order, with what each shows (the start of its caption)
PLOTS = {
    "win_rates": "Win rate by seat offset from the round's starter, by seat and by player. Bars: "
    "estimate; whiskers: 95% interval across tables; dashed: 1/5.",
    "end_kinds": "How rounds end: the share of rounds of each end kind; whiskers: 95% interval.",
    "passebunge_by_seat": "PASSEBUNGE by seat: events per round (left) and the share of rounds with at "
    "least one (right); whiskers: 95% interval.",
    "stone_flows": "Stones per round from each source (the table, seats 0..4) to each destination "
    "seat, all reasons; bottom row: stones owed to the seat that nobody could pay (D7).",
    "camat_gaps": "Rounds between CAMATs (a table's first CAMAT: rounds since the start).",
    "round_length": "Round length: tiles played and turns per round; dashed: the mean.",
}


def caption(res: Results) -> str:
    """The configuration of a study, as a figure's caption says it.

    Parameters
    ----------
    res:
        The study.

    Returns
    -------
    str
        Tables x rounds, seed, players (seat 0..4), rules.

    Examples
    --------
    >>> import domeng
    >>> from domeng.results.plots import caption
    >>> res = domeng.simulate(tables=2, rounds=2, seed=1, progress=False)
    >>> caption(res).split(";")[0]
    '2 tables x 2 rounds, seed 1'
    """
    return (
        f"{counted_x((res.tables, 'table'), (res.rounds, 'round'))}, seed {res.seed}; "
        f"players (seat 0..4) {', '.join(res.players)}; {res.rules}."
    )


def _finish(fig: Figure, res: Results, made: bool, text: str, with_caption: bool | None) -> Figure:
    """Add the caption (``text``, then the configuration) to a figure the plot made
    (or, with ``with_caption=True``, to the caller's figure)."""
    if with_caption if with_caption is not None else made:
        F.add_caption(fig, f"{text} {caption(res)}")
    return fig


def _row(width: float, height: float, **extra):
    """``make(panels)``: a new figure of one row of panels, each ``width`` wide."""

    def make(panels):
        fig, axes = F.new_figure(
            1, len(panels), figsize=(width * len(panels), height), squeeze=False, **extra
        )
        return fig, list(axes.flat)

    return make


WIN_PANELS = ("offset", "seat", "player")


@F.styled
def plot_win_rates(
    res: Results,
    ax: Any = None,
    *,
    panels: str | Sequence[str] | None = None,
    with_caption: bool | None = None,
    **style: Any,
) -> Figure:
    """Win rates: by seat offset from the round's starter, by seat, by player.

    Parameters
    ----------
    res:
        The study.
    ax:
        None (a new figure), a matplotlib Axes, or one Axes per panel.
    panels:
        Which of ``"offset"``, ``"seat"``, ``"player"`` to draw (default:
        all three in a new figure, else the first as many as Axes given).
    with_caption:
        Add the caption below the figure (default: only to a new figure).
    **style:
        Keywords of :meth:`matplotlib.axes.Axes.bar` (``color``, ``alpha``...).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    Examples
    --------
    >>> import domeng
    >>> from matplotlib.figure import Figure
    >>> from domeng.results.plots import plot_win_rates
    >>> res = domeng.simulate(tables=2, rounds=2, seed=1, progress=False)
    >>> ax = Figure().subplots()
    >>> plot_win_rates(res, ax=ax) is ax.get_figure()
    True
    >>> ax.get_ylabel()
    'win rate (share of rounds)'
    """
    ply = res.win_by_player().query("kind == 'ALL'")

    def make(panels):
        widths = {"offset": 5, "seat": 5, "player": max(len(ply), 2)}
        return F.new_figure(
            1,
            len(panels),
            figsize=(2.6 * len(panels) + 0.3 * sum(widths[p] for p in panels), 4.4),
            sharey=True,
            gridspec_kw={"width_ratios": [widths[p] for p in panels]},
            squeeze=False,
        )

    fig, axes, panels, made = F.panel_axes(ax, panels, WIN_PANELS, make)
    for a, panel in zip(axes, panels):
        if panel == "offset":
            d = res.win_by_starter_offset().query("kind == 'ALL'")
            labels = [f"+{o}" if o else "starter" for o in d.offset]
            a.set_title("by seat offset from the starter")
            a.set_xlabel("seat offset from the round's starter")
        elif panel == "seat":
            d = res.win_by_seat().query("kind == 'ALL'")
            labels = [f"{s}\n{p}" for s, p in zip(d.seat, d.player)]
            a.set_title("by seat")
            a.set_xlabel("seat and its player")
        else:
            d = ply
            labels = [f"{p}\n({counted(n, 'seat')})" for p, n in zip(d.player, d.n_seats)]
            a.set_title("by player (per seat)")
            a.set_xlabel("player (the seats it occupies)")
            style = {"color": F.ORANGE, **style}
        F.bars(a, labels, d.rate, (d.ci_low, d.ci_high), ref=0.2, **style)
        if not made or a is axes[0]:  # a new figure's panels share the first one's axis
            a.set_ylabel("win rate (share of rounds)")
    if made:
        fig.suptitle("Win rate")
    return _finish(
        fig,
        res,
        made,
        PLOTS["win_rates"],
        with_caption,
    )


@F.styled
def plot_end_kinds(
    res: Results, ax: Any = None, *, with_caption: bool | None = None, **style: Any
) -> Figure:
    """How rounds end: the share of rounds of each end kind, in percent.

    Parameters
    ----------
    res:
        The study.
    ax:
        None (a new figure) or a matplotlib Axes.
    with_caption:
        Add the caption below the figure (default: only to a new figure).
    **style:
        Keywords of :meth:`matplotlib.axes.Axes.bar`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    Examples
    --------
    >>> import domeng
    >>> from domeng.results.plots import plot_end_kinds
    >>> res = domeng.simulate(tables=2, rounds=2, seed=1, progress=False)
    >>> plot_end_kinds(res).axes[0].get_xlabel()
    'how the round ended (end kind)'
    """
    from matplotlib.ticker import PercentFormatter

    df = res.end_kinds()
    fig, a, made = F.one_axes(ax, (6.5, 4))
    F.bars(a, list(df.kind), df.share, (df.ci_low, df.ci_high), fmt="{:.1%}", **style)
    a.yaxis.set_major_formatter(PercentFormatter(xmax=1.0, decimals=0))
    a.set_ylabel("share of rounds (%)")
    a.set_xlabel("how the round ended (end kind)")
    if made:
        a.set_title("How rounds end")
    return _finish(fig, res, made, PLOTS["end_kinds"], with_caption)


PASSEBUNGE_PANELS = ("per_round", "round_share")


@F.styled
def plot_passebunge(
    res: Results,
    ax: Any = None,
    *,
    panels: str | Sequence[str] | None = None,
    with_caption: bool | None = None,
    **style: Any,
) -> Figure:
    """PASSEBUNGE by seat: events per round (``"per_round"``) and the share of
    rounds with at least one (``"round_share"``), one unit per panel.

    Parameters
    ----------
    res:
        The study.
    ax:
        None (a new figure), a matplotlib Axes, or one Axes per panel.
    panels:
        Which of ``"per_round"``, ``"round_share"`` to draw (default: both
        in a new figure, else the first as many as Axes given).
    with_caption:
        Add the caption below the figure (default: only to a new figure).
    **style:
        Keywords of :meth:`matplotlib.axes.Axes.bar`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    Examples
    --------
    >>> import domeng
    >>> from domeng.results.plots import plot_passebunge
    >>> res = domeng.simulate(tables=2, rounds=2, seed=1, progress=False)
    >>> [a.get_ylabel() for a in plot_passebunge(res).axes]
    ['PASSEBUNGEs per round', 'share of rounds with a PASSEBUNGE']
    """
    df = res.passes_by_seat().query("event == 'PASSEBUNGE'")
    fig, axes, panels, made = F.panel_axes(ax, panels, PASSEBUNGE_PANELS, _row(4.6, 4))
    labels = [f"seat {s}\n{p}" for s, p in zip(df.seat, df.player)]
    for a, panel in zip(axes, panels):
        if panel == "per_round":
            ci = (df.per_round_ci_low, df.per_round_ci_high)
            F.bars(a, labels, df.per_round, ci, **style)
            a.set_ylabel("PASSEBUNGEs per round")
            a.set_title("events per round")
        else:
            ci = (df.round_share_ci_low, df.round_share_ci_high)
            F.bars(a, labels, df.round_share, ci, **{"color": F.ORANGE, **style})
            a.set_ylabel("share of rounds with a PASSEBUNGE")
            a.set_title("rounds with at least one")
        a.set_xlabel("seat and its player")
    if made:
        fig.suptitle("PASSEBUNGE by seat")
    return _finish(
        fig,
        res,
        made,
        PLOTS["passebunge_by_seat"],
        with_caption,
    )


FLOW_PANELS = ("flows", "unpaid")


def _cells(a, m: np.ndarray, vmax: float) -> None:
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            v = m[i, j]
            a.text(
                j,
                i,
                f"{v:.3f}",
                ha="center",
                va="center",
                fontsize=8,
                color="white" if v > 0.6 * vmax else "black",
            )


@F.styled
def plot_stone_flows(
    res: Results,
    ax: Any = None,
    *,
    panels: str | Sequence[str] | None = None,
    with_caption: bool | None = None,
    **style: Any,
) -> Figure:
    """Stones per round from each source (the table, seats 0..4) to each
    destination seat, all reasons (``"flows"``), and the stones owed to a
    seat that nobody could pay (``"unpaid"``, D7).

    Parameters
    ----------
    res:
        The study.
    ax:
        None (a new figure), a matplotlib Axes, or one Axes per panel.
    panels:
        Which of ``"flows"``, ``"unpaid"`` to draw (default: both in a new
        figure, else the first as many as Axes given).
    with_caption:
        Add the caption below the figure (default: only to a new figure).
    **style:
        Keywords of :meth:`matplotlib.axes.Axes.imshow` (``cmap``...).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    Examples
    --------
    >>> import domeng
    >>> from domeng.results.plots import plot_stone_flows
    >>> res = domeng.simulate(tables=2, rounds=2, seed=1, progress=False)
    >>> plot_stone_flows(res, panels="flows").axes[0].get_ylabel()
    'source of the stones'
    """

    def make(panels):
        ratios = {"flows": 6, "unpaid": 1}
        return F.new_figure(
            len(panels),
            1,
            figsize=(7.8, 0.8 + 0.9 * sum(ratios[p] for p in panels)),
            sharex=True,
            gridspec_kw={"height_ratios": [ratios[p] for p in panels]},
            squeeze=False,
        )

    fig, axes, panels, made = F.panel_axes(ax, panels, FLOW_PANELS, make)
    seats = [f"seat {d}\n{p}" for d, p in enumerate(res.players)]
    for a, panel in zip(axes, panels):
        if panel == "flows":
            m = res.flow_matrix().to_numpy()
            vmax = max(float(m.max()), 1e-9)
            im = a.imshow(m, **{"cmap": F.CMAP, "vmin": 0, "vmax": vmax, "aspect": "auto", **style})
            _cells(a, m, vmax)
            a.set_yticks(range(6))
            a.set_yticklabels(["the table"] + [f"seat {s} {p}" for s, p in enumerate(res.players)])
            a.set_ylabel("source of the stones")
            fig.colorbar(im, ax=a, fraction=0.05, pad=0.02, label="stones per round")
        else:
            by_dest = res.unpaid().groupby("dest_seat").per_round.sum()
            u = by_dest.reindex(range(5), fill_value=0.0).to_numpy()[None, :]
            vmax = max(float(u.max()), 1e-9)
            a.imshow(u, cmap="Greys", vmin=0, vmax=vmax * 2.5, aspect="auto")
            _cells(a, u, vmax * 2.5)
            a.set_yticks([0])
            a.set_yticklabels(["owed, unpaid (D7)"])
        a.set_xticks(range(5))
        a.set_xticklabels(seats)
    axes[-1].set_xlabel("destination seat")
    if made:
        fig.suptitle("Stone flows per round: source to destination (all reasons)")
    return _finish(
        fig,
        res,
        made,
        PLOTS["stone_flows"],
        with_caption,
    )


@F.styled
def plot_camat_gaps(
    res: Results, ax: Any = None, *, with_caption: bool | None = None, **style: Any
) -> Figure:
    """The distribution of the number of rounds between CAMATs (a table's
    first CAMAT: rounds since the start), with its mean.

    Parameters
    ----------
    res:
        The study.
    ax:
        None (a new figure) or a matplotlib Axes.
    with_caption:
        Add the caption below the figure (default: only to a new figure).
    **style:
        Keywords of :meth:`matplotlib.axes.Axes.bar`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    Examples
    --------
    >>> import domeng
    >>> from domeng.results.plots import plot_camat_gaps
    >>> res = domeng.simulate(tables=20, rounds=30, seed=1, progress=False)
    >>> plot_camat_gaps(res).axes[0].get_ylabel()
    'share of CAMATs'
    """
    df = res.camat_gaps()
    fig, a, made = F.one_axes(ax, (7.5, 4))
    nz = np.nonzero(df.camats.to_numpy())[0]
    if len(nz) == 0:
        a.text(0.5, 0.5, "no CAMAT in this study", ha="center", va="center", transform=a.transAxes)
        a.set_xticks([])
        a.set_yticks([])
    else:
        last = nz[-1] + 1
        d = df.iloc[:last]
        a.bar(d.rounds_between, d.share, **{"width": 0.9, "color": F.BLUE, **style})
        mean = res.summary()["rounds_between_camats"]["mean"]["value"]
        if mean is not None:
            a.axvline(mean, color=F.VERMILION, lw=1.5, label=f"mean {mean:.1f} rounds")
            a.legend()
        a.set_xlabel("rounds between CAMATs" + (" (last bar: 127 or more)" if last >= 127 else ""))
        a.set_ylabel("share of CAMATs")
        a.grid(axis="y", alpha=0.3)
        a.set_axisbelow(True)
    if made:
        a.set_title("Rounds between CAMATs")
    n = counted(int(df.camats.sum()), "CAMAT")
    return _finish(
        fig,
        res,
        made,
        f"{PLOTS['camat_gaps']} {n} in all.",
        with_caption,
    )


LENGTH_PANELS = ("tiles", "turns")


@F.styled
def plot_round_length(
    res: Results,
    ax: Any = None,
    *,
    panels: str | Sequence[str] | None = None,
    with_caption: bool | None = None,
    **style: Any,
) -> Figure:
    """Round length: the distribution of tiles played (``"tiles"``) and of
    turns (``"turns"``) per round, each with its mean.

    Parameters
    ----------
    res:
        The study.
    ax:
        None (a new figure), a matplotlib Axes, or one Axes per panel.
    panels:
        Which of ``"tiles"``, ``"turns"`` to draw (default: both in a new
        figure, else the first as many as Axes given).
    with_caption:
        Add the caption below the figure (default: only to a new figure).
    **style:
        Keywords of :meth:`matplotlib.axes.Axes.bar`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    Examples
    --------
    >>> import domeng
    >>> from domeng.results.plots import plot_round_length
    >>> res = domeng.simulate(tables=2, rounds=2, seed=1, progress=False)
    >>> [a.get_xlabel() for a in plot_round_length(res).axes]
    ['tiles played per round', 'turns per round']
    """
    df = res.round_length()
    s = res.summary()
    fig, axes, panels, made = F.panel_axes(ax, panels, LENGTH_PANELS, _row(5, 3.8))
    for a, measure in zip(axes, panels):
        key, color = (
            ("tiles_per_round", F.BLUE) if measure == "tiles" else ("turns_per_round", F.ORANGE)
        )
        d = df[df.measure == measure]
        nz = np.nonzero(d.rounds.to_numpy())[0]
        if len(nz):
            d = d.iloc[nz[0] : nz[-1] + 1]
        a.bar(d.value, d.share, **{"width": 0.9, "color": color, **style})
        mean = s[key]["value"]
        a.axvline(mean, color=F.GREY, lw=1.5, ls="--", label=f"mean {mean:.2f}")
        a.legend()
        a.set_xlabel("tiles played per round" if measure == "tiles" else "turns per round")
        a.set_ylabel("share of rounds")
        a.grid(axis="y", alpha=0.3)
        a.set_axisbelow(True)
    if made:
        fig.suptitle("Round length")
    return _finish(fig, res, made, PLOTS["round_length"], with_caption)


#: the report's plots, in order: name -> function
PLOT_FUNCTIONS = {
    "win_rates": plot_win_rates,
    "end_kinds": plot_end_kinds,
    "passebunge_by_seat": plot_passebunge,
    "stone_flows": plot_stone_flows,
    "camat_gaps": plot_camat_gaps,
    "round_length": plot_round_length,
}


def figures(res: Results) -> dict[str, Figure]:
    """Every plot of the report as a new figure with its caption, by name.

    Parameters
    ----------
    res:
        The study.

    Returns
    -------
    dict[str, matplotlib.figure.Figure]
        ``win_rates``, ``end_kinds``, ``passebunge_by_seat``,
        ``stone_flows``, ``camat_gaps``, ``round_length``.

    Examples
    --------
    >>> import domeng
    >>> from domeng.results.plots import figures
    >>> res = domeng.simulate(tables=2, rounds=2, seed=1, progress=False)
    >>> list(figures(res))[:2]
    ['win_rates', 'end_kinds']
    """
    return {name: f(res) for name, f in PLOT_FUNCTIONS.items()}


__all__ = [
    "PLOTS",
    "PLOT_FUNCTIONS",
    "caption",
    "figures",
    "plot_camat_gaps",
    "plot_end_kinds",
    "plot_passebunge",
    "plot_round_length",
    "plot_stone_flows",
    "plot_win_rates",
]
