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

from collections.abc import Sequence
from itertools import combinations, pairwise
from math import comb
from typing import TYPE_CHECKING, Any

import numpy as np

from domeng.core.compiling import Stopwatch
from domeng.core.defaults import MAX_LADDER_PLAYERS, PLOT_DPI
from domeng.core.errors import DomengError
from domeng.core.rules import Rules
from domeng.core.wording import counted
from domeng.players.registry import resolve_player
from domeng.study.arrangements import seatings
from domeng.study.duplicate import DuplicateOptions, check_out, duplicate_spec
from domeng.study.names import refuse_research_players
from domeng.study.runtime import Runtime
from domeng.study.spec import StudySpec
from domeng.study.tournament import (
    DECISION_NOTE,
    STATS,
    TournamentResults,
    _est,
    _progress,
    margin_lines,
    run_tournament,
    save_duplicate,
    text_table,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.11

#: most lineups a ladder plays (C(12, 5) = 792)
MAX_LINEUPS = comb(MAX_LADDER_PLAYERS, 5)


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
            "ranked by net stones per round (lower is better), 95% CI across deals:",
        ]
        rows = [
            [
                str(k + 1),
                r["player"],
                _est(r, "net"),
                f"{r['win_rate']:.4f}",
                _est(r, "camat_per_1000", 1),
                *self._ms(r["player"]),
            ]
            for k, r in t.iterrows()
        ]
        header = ["#", "player", "net", "win rate", "CAMAT/1000", "ms p50", "ms p99"]
        lines += [*text_table(header, rows), DECISION_NOTE]
        lines += ["", *margin_lines(self.margins(), list(pairwise(t["player"])))]
        return "\n".join(lines)

    def plots(self, fmt: str = "png", dpi: int = PLOT_DPI) -> dict[str, bytes]:
        """The ladder figure: net stones and CAMATs per 1000 rounds of each
        player, in rank order (PNG; ``fmt`` svg or pdf is kept for
        :meth:`save` too)."""
        from domeng.results.figures import figure_files
        from domeng.study.tournament_plots import plot_ladder

        files = figure_files(plot_ladder(self), fmt, dpi)
        self._extra = {k: v for k, v in files.items() if k != "png"}
        return {"ladder": files["png"]}


def load_results(folder) -> TournamentResults:
    """The results of a tournament's or a ladder's folder (``--out DIR``): a
    :class:`LadderResults` for a ladder, a :class:`TournamentResults` for a
    tournament (:meth:`TournamentResults.load` checks the folder)."""
    res = TournamentResults.load(folder)
    if res.meta.get("kind") == "ladder":
        return LadderResults(res.per_deal, res.meta)
    return res


def ladder(
    players: Sequence[Any] | str | StudySpec | None = None,
    deals: int = 100,
    rounds: int = 10,
    seed: int = 0,
    rules: Rules | str | Sequence[str] | None = None,
    **options: Unpack[DuplicateOptions],
) -> LadderResults:
    """Rank five or more players in duplicate matches (see the module docstring).

    The keywords become a :class:`~domeng.study.spec.StudySpec` and a
    :class:`~domeng.study.runtime.Runtime`, run by :func:`run_ladder`.

    Parameters
    ----------
    players:
        Five to twelve players (names, comma-joined or a list, or player objects,
        as for :func:`domeng.tournament`); a name given twice is labelled by
        position (``random#0``, ``random#5``).
    deals, rounds, seed, rules, orders, workers, progress:
        As for :func:`domeng.tournament`, for every lineup of five.
    out, fmt, dpi, overwrite, command:
        As for :func:`~domeng.study.tournament.tournament`: save the results in
        ``out`` (checked first) with its resolved spec as ``config.toml``.
    spec:
        The whole ladder as one :class:`~domeng.study.spec.StudySpec` (kind
        ``ladder``; or given as ``players``) instead of the keywords.

    Returns
    -------
    LadderResults
        ``ranking()``, ``margins()`` (paired by deal), ``table()``,
        ``summary()`` (schema ``domeng.ladder/1``), ``save()``.

    Examples
    --------
    >>> import domeng
    >>> lad = domeng.ladder("random,heavy,keeper,hunter,expert,random", deals=1, rounds=1,
    ...                     orders="rotations", progress=False)
    >>> lad.meta["lineups"], lad.players[-1], lad.summary()["schema"]
    (6, 'random#5', 'domeng.ladder/1')
    """
    spec, runtime = duplicate_spec(ladder, (players, deals, rounds, seed, rules), options)
    return run_ladder(spec, runtime)


def run_ladder(spec: StudySpec, runtime: Runtime | None = None) -> LadderResults:
    """Run a ``ladder`` :class:`~domeng.study.spec.StudySpec` as ``runtime``
    says (None: the defaults): the core of :func:`ladder`, each lineup of
    five a :func:`~domeng.study.tournament.run_tournament`.  With
    ``spec.out`` the results are saved there, with the spec as ``config.toml``.

    Examples
    --------
    >>> from domeng.study.ladder import run_ladder
    >>> from domeng.study.runtime import Runtime
    >>> from domeng.study.spec import StudySpec
    >>> spec = StudySpec("ladder", players="random,heavy,keeper,hunter,expert,random",
    ...                  deals=1, rounds=1, orders="rotations")
    >>> run_ladder(spec, Runtime(progress=False)).meta["lineups"]
    6
    """
    from domeng.study.spec import check_kind

    rt = Runtime() if runtime is None else runtime
    check_kind("ladder", spec)
    players = list(spec.players or ()) if rt.players is None else rt.players
    out, orders = spec.out, spec.orders or "all"
    deals, rounds, seed = spec.deals or 100, spec.rounds or 10, spec.seed or 0
    if out is not None:
        check_out(out, rt.overwrite)  # before anything is played
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
            f"plays at most {MAX_LINEUPS} ({MAX_LADDER_PLAYERS} players)"
        )
    specs = [resolve_player(p, "tournament") for p in items]
    refuse_research_players(specs, "tournament")
    names = [p.name for p in specs]
    names = [f"{n}#{i}" if names.count(n) > 1 else n for i, n in enumerate(names)]
    design = len(seatings(orders))
    total = n_lineups * deals * design
    report = _progress(rt.progress, total, rounds)
    per_deal = np.zeros((deals, len(specs), len(STATS)), dtype=np.int64)
    watch = Stopwatch()  # compiles measured apart (domeng.core.compiling)
    one = StudySpec("tournament", players=("random",), deals=deals, rounds=rounds, seed=seed,
                    rules=spec.rules or (), orders=orders, workers=spec.workers)  # fmt: skip
    for k, lineup in enumerate(combinations(range(len(specs)), 5)):
        sub = _lineup_progress(report, k * deals * design, total)
        if sub is not None and hasattr(sub, "label"):
            sub.label = f"lineup {k + 1}/{n_lineups} ({', '.join(names[i] for i in lineup)})"
        five = [specs[i] for i in lineup]
        res = run_tournament(
            one.replace(players=tuple(p.name for p in five)),
            Runtime(progress=sub, time_decisions=False, players=five),
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
        "elapsed_seconds": watch.compute_seconds,
        "compile_seconds": watch.compile_seconds,
    }
    from domeng.study.decisions import decision_times

    meta["decision_ms"] = decision_times(specs, names, Rules.from_mapping(r["rules"]), seed)
    how = (spec.fmt or "png", spec.dpi or PLOT_DPI, rt.overwrite)
    return save_duplicate(LadderResults(per_deal, meta), players, out, how, rt.command)


def _lineup_progress(report, base: int, total: int):
    """The progress callable of the lineup whose games start at ``base`` of
    the ladder's ``total``: a labelled part of the one bar, or a callable
    counting from ``base`` (None: no progress)."""
    if report is None:
        return None
    part = getattr(report, "part", None)
    if callable(part):
        return part(base)

    def sub(done: int, _total: int) -> None:
        report(base + done, total)

    return sub
