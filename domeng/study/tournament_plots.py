"""The plots of a duplicate tournament and of a ladder: functions
``plot_xxx(result, ax=None, **style)`` returning the Figure drawn into, as
for a study's plots (:mod:`domeng.results.plots`): the caller's Axes (one
per panel) or a new figure with the configuration in its caption, labels
in words with units, one unit per axis, the colour-blind-safe style applied
locally (:mod:`domeng.results.figures`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from domeng.results import figures as F

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: panel -> (column of the ranking, axis label, colour)
_PANELS = {
    "net": ("net", "net stones per round (received - given; lower is better)", F.BLUE),
    "win_rate": ("win_rate", "round win rate (share of rounds)", F.ORANGE),
    "camat_per_1000": ("camat_per_1000", "CAMATs per 1000 rounds", F.GREEN),
}
TOURNAMENT_PANELS = ("net", "win_rate", "camat_per_1000")
LADDER_PANELS = ("net", "camat_per_1000")


def tournament_caption(res: Any) -> str:
    """The configuration of a tournament (or a ladder), as its caption says it."""
    m = res.meta
    return (
        f"{res.design_text()}, seed {m['seed']}; players {', '.join(res.players)}; "
        f"{m.get('rules_text', 'default rules')}."
    )


def _draw(res: Any, ax, panels, with_caption, known, style, title: str) -> Figure:
    t = res.ranking()
    labels = [f"{i + 1}. {p}" for i, p in enumerate(t["player"])]
    y = np.arange(len(t))

    def make(names):
        return F.new_figure(
            1, len(names), figsize=(3.7 * len(names), 1.2 + 0.4 * len(t)), sharey=True
        )

    fig, axes, panels, made = F.panel_axes(ax, panels, known, make)
    for a, panel in zip(axes, panels):
        col, xlabel, color = _PANELS[panel]
        lo = (t[col] - t[col + "_ci_low"]).fillna(0).clip(lower=0)
        hi = (t[col + "_ci_high"] - t[col]).fillna(0).clip(lower=0)
        a.barh(y, t[col], xerr=[lo, hi], **{"color": color, "capsize": 3, "height": 0.6, **style})
        a.axvline(0, color=F.GREY, lw=1)
        if col == "win_rate":
            a.axvline(0.2, color=F.GREY, lw=1, ls="--")
        a.set_xlabel(xlabel)
        a.grid(axis="x", alpha=0.3)
        if not made or a is axes[0]:
            a.set_yticks(y)
            a.set_yticklabels(labels)
            a.set_ylabel("player, in rank order")
        if not a.yaxis_inverted():
            a.invert_yaxis()
    if made:
        fig.suptitle(title)
    if with_caption if with_caption is not None else made:
        F.add_caption(
            fig,
            "Players in rank order (fewest net stones first); whiskers: 95% intervals "
            f"across deals. {tournament_caption(res)}",
        )
    return fig


@F.styled
def plot_tournament(
    res: Any,
    ax: Any = None,
    *,
    panels: str | Sequence[str] | None = None,
    with_caption: bool | None = None,
    **style: Any,
) -> Figure:
    """A duplicate tournament: each player's net stones per round, round win
    rate and CAMATs per 1000 rounds, in rank order, with 95% intervals.

    Parameters
    ----------
    res:
        The tournament's results (:func:`domeng.study.tournament.tournament`).
    ax:
        None (a new figure), a matplotlib Axes, or one Axes per panel.
    panels:
        Which of ``"net"``, ``"win_rate"``, ``"camat_per_1000"`` to draw
        (default: all in a new figure, else the first as many as Axes given).
    with_caption:
        Add the caption below the figure (default: only to a new figure).
    **style:
        Keywords of :meth:`matplotlib.axes.Axes.barh`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    Examples
    --------
    >>> import domeng
    >>> from domeng.study.tournament_plots import plot_tournament
    >>> t = domeng.tournament("hunter,keeper,heavy,random,expert", deals=2, rounds=2,
    ...                       orders="rotations", progress=False)
    >>> plot_tournament(t, panels="net").axes[0].get_ylabel()
    'player, in rank order'
    """
    return _draw(res, ax, panels, with_caption, TOURNAMENT_PANELS, style, "Duplicate tournament")


@F.styled
def plot_ladder(
    res: Any,
    ax: Any = None,
    *,
    panels: str | Sequence[str] | None = None,
    with_caption: bool | None = None,
    **style: Any,
) -> Figure:
    """A ladder: each player's net stones per round and CAMATs per 1000
    rounds, in rank order, with 95% intervals (panels ``"net"``,
    ``"camat_per_1000"``; the parameters as for :func:`plot_tournament`).

    Parameters
    ----------
    res:
        The ladder's results (:func:`domeng.study.ladder.ladder`).
    ax:
        None (a new figure), a matplotlib Axes, or one Axes per panel.
    panels:
        Which of ``"net"``, ``"camat_per_1000"`` to draw.
    with_caption:
        Add the caption below the figure (default: only to a new figure).
    **style:
        Keywords of :meth:`matplotlib.axes.Axes.barh`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    Examples
    --------
    >>> from domeng.study.ladder import ladder
    >>> from domeng.study.tournament_plots import plot_ladder
    >>> lad = ladder("hunter,keeper,heavy,random,random,expert", deals=2, rounds=2,
    ...              orders="rotations", progress=False)
    >>> len(plot_ladder(lad).axes)
    2
    """
    return _draw(res, ax, panels, with_caption, LADDER_PANELS, style, "Ladder")


__all__ = ["plot_ladder", "plot_tournament", "tournament_caption"]
