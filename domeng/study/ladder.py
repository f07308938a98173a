"""The ladder: rank any number of players (five or more) in duplicate matches.

Every lineup of five of the ``N`` players (all ``C(N, 5)`` of them: every
player meets every other equally often) plays the same ``deals`` games of
``rounds`` rounds, each under every seating of a design
(:mod:`domeng.study.arrangements`, default ``"all"``: every cyclic order in
every rotation), so seats and neighbours are balanced and identical players
come out equal in expectation.

A player's statistics in a deal are summed over the lineups and seatings it
played; deals are independent (their deal streams are seeded by ``(seed,
deal)`` and shared by every lineup and seating), so 95% intervals are
computed across deals and the pairwise margins are paired by deal.
Stones are penalties (term 13): the ranking is by net stones per round
(received minus given), lower is better; CAMATs per 1000 rounds are shown
beside it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from itertools import combinations, pairwise
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from domeng.core.errors import DomengError
from domeng.core.rules import Rules
from domeng.core.wording import counted
from domeng.players.registry import resolve_player
from domeng.study.arrangements import seatings
from domeng.study.names import refuse_research_players
from domeng.study.spec import StudySpec
from domeng.study.tournament import (
    STATS,
    TournamentResults,
    _progress,
    check_out,
    save_duplicate,
    tournament,
)

#: most lineups a ladder plays (C(10, 5) = 252)
MAX_LINEUPS = 252


class LadderResults(TournamentResults):
    """Per-deal statistics of each of the ladder's players (summed over its
    lineups and seatings); the tables and estimators of a tournament."""

    def design_text(self) -> str:
        """``L lineups x D deals x R rounds x S seatings``."""
        return f"{counted(self.meta['lineups'], 'lineup')} x {super().design_text()}"

    def report_title(self) -> str:
        return f"Domeng ladder: {len(self.players)} players, {self.design_text()}"

    def to_text(self) -> str:
        t = self.ranking()
        m = self.meta
        lines = [
            f"Ladder: {len(self.players)} players, {self.design_text()}, "
            f"seed {m['seed']}, {m['rules_text']}",
            "ranked by net stones per round (lower is better), 95% CI:",
            f"{'#':>3} {'player':<16}{'net':>24}{'win rate':>10}{'CAMAT/1000':>22}",
        ]
        for k, r in t.iterrows():
            net = f"{r['net']:+.4f} [{r['net_ci_low']:+.3f},{r['net_ci_high']:+.3f}]"
            cam = (
                f"{r['camat_per_1000']:.1f} [{r['camat_per_1000_ci_low']:.1f},"
                f"{r['camat_per_1000_ci_high']:.1f}]"
            )
            lines.append(f"{k + 1:>3} {r['player']:<16}{net:>24}{r['win_rate']:>10.4f}{cam:>22}")
        mg = self.margins()
        order = list(t["player"])
        lines.append("paired margins of net stones per round between neighbours in the ranking:")
        for a, b in pairwise(order):
            r = mg[(mg.a == a) & (mg.b == b)].iloc[0]
            lines.append(
                f"    {a} - {b}: {r.net_diff:+.4f} [{r.ci_low:+.4f}, {r.ci_high:+.4f}]"
                f"{'  *' if r.significant else ''}"
            )
        return "\n".join(lines)

    def plots(self, fmt: str = "png", dpi: int = 110) -> dict[str, bytes]:
        """The ladder figure: net stones and CAMATs per 1000 rounds of each
        player, in rank order (PNG; ``fmt`` svg or pdf is kept for
        :meth:`save` too)."""
        from domeng.results.compare_report import figure_files
        from domeng.results.report import _bars, _err, _subplots

        t = self.ranking()
        n = len(t)
        fig, axes = _subplots(1, 2, figsize=(max(9, 1.3 * n + 4), 4.2), layout="constrained")
        x = np.arange(n)
        axes[0].bar(
            x,
            t["net"],
            yerr=_err(t["net"], t["net_ci_low"], t["net_ci_high"]),
            capsize=4,
            color=["#2a7ab9" if v <= 0 else "#c0504d" for v in t["net"]],
        )
        axes[0].axhline(0, color="#777777", lw=1)
        axes[0].set_xticks(x)
        axes[0].set_xticklabels(t["player"], rotation=30, ha="right")
        axes[0].set_title("net stones per round (lower is better)")
        axes[0].grid(axis="y", alpha=0.3)
        _bars(
            axes[1],
            list(t["player"]),
            t["camat_per_1000"],
            (t["camat_per_1000_ci_low"], t["camat_per_1000_ci_high"]),
            fmt="{:.1f}",
        )
        axes[1].set_xticks(x)
        axes[1].set_xticklabels(t["player"], rotation=30, ha="right")
        axes[1].set_title("CAMAT per 1000 rounds")
        fig.suptitle(f"Ladder, {self.design_text()} (95% CI)", fontsize=11)
        files = figure_files(fig, fmt, dpi)
        self._extra = {k: v for k, v in files.items() if k != "png"}
        return {"ladder": files["png"]}


def ladder(
    players: Sequence[Any] | str | StudySpec | None = None,
    deals: int = 100,
    rounds: int = 10,
    seed: int = 0,
    rules: Rules | str | Sequence[str] | None = None,
    orders: str = "all",
    workers: int | None = None,
    progress: bool | Callable[[int, int], None] | None = None,
    out: str | Path | None = None,
    fmt: str = "png",
    dpi: int = 110,
    overwrite: bool = False,
    command: str | None = None,
    spec: StudySpec | None = None,
) -> LadderResults:
    """Rank five or more players in duplicate matches (see the module docstring).

    Parameters
    ----------
    players:
        Five to ten players (names or player objects), or a comma-separated string.
    deals, rounds, seed, rules, orders, workers, progress:
        As for :func:`~domeng.study.tournament.tournament`, for every lineup of five.
    out, fmt, dpi, overwrite, command:
        As for :func:`~domeng.study.tournament.tournament`: save the results in
        ``out`` (checked first) with its resolved spec as ``config.toml``.
    spec:
        The whole ladder as one :class:`~domeng.study.spec.StudySpec` (kind
        ``ladder``; or given as ``players``) instead of the keywords.

    Returns
    -------
    LadderResults
        The ranking, margins and per-deal sums.

    Examples
    --------
    >>> from domeng.study.ladder import ladder
    >>> r = ladder("random,heavy,keeper,hunter,expert,random", deals=2, rounds=2,
    ...            orders="rotations", progress=False)
    >>> r.meta["lineups"]
    6
    """
    if spec is not None or isinstance(players, StudySpec):
        from domeng.study.spec import call_with_spec

        return call_with_spec(ladder, players if spec is None else spec, locals())
    if players is None:
        raise DomengError("a ladder needs its players (or spec=)")
    if out is not None:
        check_out(out, overwrite)  # before anything is played
    if isinstance(players, str):
        items = [s for s in (x.strip() for x in players.split(",")) if s]
    else:
        items = list(players)
    if len(items) < 5:
        raise DomengError(f"a ladder needs at least 5 players, got {len(items)}")
    n_lineups = comb(len(items), 5)
    if n_lineups > MAX_LINEUPS:
        raise DomengError(
            f"{len(items)} players make {n_lineups} lineups of five; a ladder "
            f"plays at most {MAX_LINEUPS} (10 players)"
        )
    specs = [resolve_player(p, "tournament") for p in items]
    refuse_research_players(specs, "tournament")
    names = [p.name for p in specs]
    names = [f"{n}#{i}" if names.count(n) > 1 else n for i, n in enumerate(names)]
    design = len(seatings(orders))
    total = n_lineups * deals * design
    report = _progress(progress, total, rounds)
    per_deal = np.zeros((deals, len(specs), len(STATS)), dtype=np.int64)
    t0 = time.time()
    for k, lineup in enumerate(combinations(range(len(specs)), 5)):
        base = k * deals * design

        def sub(done: int, _total: int, base=base) -> None:
            if report:
                report(base + done, total)

        res = tournament(
            [specs[i] for i in lineup],
            deals=deals,
            rounds=rounds,
            seed=seed,
            rules=rules,
            workers=workers,
            progress=sub,
            orders=orders,
        )
        for j, i in enumerate(lineup):
            per_deal[:, i, :] += res.per_deal[:, j, :]
    r = res.meta
    meta = {
        "kind": "ladder",
        "players": names,
        "deals": deals,
        "rounds": rounds,
        "seed": seed,
        "rules": r["rules"],
        "rules_text": r["rules_text"],
        "orders": orders,
        "seatings": design,
        "lineups": n_lineups,
        "format": f"duplicate: every lineup of five of the {len(specs)} players, each deal "
        f"once per seating ({orders}, {design} seatings)",
        "elapsed_seconds": time.time() - t0,
    }
    return save_duplicate(
        LadderResults(per_deal, meta), players, out, (fmt, dpi, overwrite), command
    )
