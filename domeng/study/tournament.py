"""Duplicate tournaments: rank five players with the luck of the deal cancelled.

A tournament plays ``deals`` independent games (tables) of ``rounds`` rounds.
Every game is played once for each seating of a design
(:mod:`domeng.study.arrangements`), with the *same sequence of deals* (the
deals come from a stream of their own, seeded by ``(seed, deal)``; each
seating's players draw from another stream, seeded by ``(seed, deal,
seating)``).  The default design, ``orders="all"``, plays every deal under
every cyclic order of the five players (24) in each of its five rotations:
every player sits in every seat, next to every other player, equally often,
and identical players come out equal in expectation.  ``"balanced"`` (20
seatings: every ordered pair at every distance once per rotation) cancels
neighbours to first order at a sixth of the cost; ``"rotations"`` (the five
rotations of the given order, the format before issue 13) keeps the cyclic
order, so who sits before and after whom is never cancelled.  From the
second round on the starter depends on who won, so later rounds diverge
between seatings: in long games the duplicate format cancels the seat and
the neighbours, not much of the deal's luck.

Per player, the statistics are summed over the seatings of a deal; the deals
are independent, so 95% confidence intervals are computed across deals
(:mod:`domeng.results.stats`: ``mean -/+ t SE`` with ``deals - 1`` degrees
of freedom, Wilson with the deals' design effect for the win shares,
``[0, rule of three]`` for a count with no events): the pairing the design
gives is the deal.  Stones are penalties (term 13): a lower ``net_per_round`` (stones
received minus stones given, per round played) is better.  ``margins()``
compares two players deal by deal (a paired difference), which is far more
precise than comparing their intervals.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from domeng.batch.tables import initial_states, kernel_players, run_tables
from domeng.core import layout as L
from domeng.core.compiling import Stopwatch
from domeng.core.defaults import PLOT_DPI
from domeng.core.errors import ResultsError
from domeng.core.rng import MASK64, mix64, seat_state
from domeng.core.rules import Rules
from domeng.core.wording import counted_x
from domeng.infra import jsontext
from domeng.infra.progress import within
from domeng.players.registry import resolve_players
from domeng.results.meta import load_error_text
from domeng.results.stats import interval, num, paired_difference, ratio, t_interval
from domeng.results.texttable import estimate_cell, study_repr, text_table
from domeng.study.arrangements import seat_of, seatings
from domeng.study.duplicate import DuplicateOptions, check_out, duplicate_spec
from domeng.study.runtime import Runtime
from domeng.study.spec import StudySpec
from domeng.study.spec import record as spec_record
from domeng.study.summary import coerce_rules

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.11

#: the schema of the JSON of a tournament and of a ladder (:meth:`TournamentResults.summary`)
SCHEMAS = {"tournament": "domeng.tournament/1", "ladder": "domeng.ladder/1"}
#: per-deal, per-player statistics (columns of TournamentResults.per_deal)
#: the columns of TournamentResults.table() that are shares (Wilson intervals)
SHARES = ("win_rate", "wins_cappu", "wins_ceki", "wins_pollo", "wins_manguno", "wins_mattikkeng")
#: printed wherever the result of a tournament with orders="rotations" is shown
NEIGHBOUR_CAVEAT = (
    "Caveat: a rotation keeps the players' cyclic order, so each player has the same "
    "neighbours in every rotation. Neighbour effects (hunter squeezes the next seat; the seat "
    "before a FIRST CAPPU is its CUCUQ) are part of each result, and two copies of one player "
    "at different positions can score differently. A ranking may change with the seating "
    "order (see docs/players.md)."
)
#: ... and with orders="all" or "balanced"
NEIGHBOUR_NOTE = (
    "Neighbours: every player sat next to every other player (seatings over the cyclic "
    "orders), so neighbour effects (hunter squeezes the next seat; the seat before a FIRST "
    "CAPPU is its CUCUQ) are averaged over the field, not cancelled: a result holds against "
    "this field of opponents (see docs/players.md)."
)


def neighbour_caveat(meta: dict) -> str:
    """The neighbour-effect caveat for a tournament's design."""
    return NEIGHBOUR_CAVEAT if meta.get("orders", "rotations") == "rotations" else NEIGHBOUR_NOTE


STATS = (
    "rounds",
    "received",
    "given",
    "net",
    "unpaid_owed",
    "wins",
    "wins_CAPPU",
    "wins_CEKI",
    "wins_POLLO",
    "wins_MANGUNO",
    "wins_MATTIKKENG",
    "camats",
    "passebunge",
)


def _player_seed(seed: int) -> int:
    return mix64((seed ^ 0x5DEECE66D2545F49) & MASK64)


def duplicate_states(
    seed: int, deal_start: int, n_deals: int, rotation: int, rules: Rules, n_seatings: int = 5
) -> np.ndarray:
    """Fresh table states of deals ``deal_start..`` for seating number
    ``rotation`` of a design of ``n_seatings``: the deal stream of deal ``d``
    is the same in every seating; the seats' player streams are the
    seating's own."""
    st = initial_states(seed, deal_start, n_deals, rules)
    pseed = _player_seed(seed)
    for i in range(n_deals):
        d = deal_start + i
        states = [seat_state(pseed, n_seatings * d + rotation, s) for s in range(5)]
        st[i, L.ST_SEAT_RNG : L.ST_SEAT_RNG + 5] = np.array(states, dtype=np.uint64).view(np.int64)
    return st


def _per_player(agg: np.ndarray, seats: Sequence[int]) -> np.ndarray:
    """[deals, 5 players, len(STATS)] from one seating's per-table aggregates;
    player i sits at seat ``seats[i]``."""
    n = agg.shape[0]
    out = np.zeros((n, 5, len(STATS)), dtype=np.int64)
    flow = L.agg_field(agg, "A_FLOW")  # [n, 6, 5, 7]
    wins = L.agg_field(agg, "A_WINS")  # [n, 5, 5]
    unpaid = L.agg_field(agg, "A_UNPAID")  # [n, 5, 7]
    for i in range(5):
        s = seats[i]
        received = flow[:, :, s, :].sum(axis=(1, 2))
        given = flow[:, s + 1, :, :].sum(axis=(1, 2))
        cols = [
            agg[:, L.A_ROUNDS],
            received,
            given,
            received - given,
            unpaid[:, s, :].sum(axis=1),
            wins[:, s, :].sum(axis=1),
        ]
        cols += [wins[:, s, k] for k in range(5)]
        cols += [agg[:, L.A_CAMAT + s], agg[:, L.A_PASSEBUNGE + s]]
        out[:, i, :] = np.stack(cols, axis=1)
    return out


class TournamentResults:
    """Per-deal statistics of each player (summed over the rotations), with
    tidy tables and confidence intervals."""

    def __init__(self, per_deal: np.ndarray, meta: dict[str, Any]):
        self.per_deal = per_deal  # [deals, 5, len(STATS)]
        self.meta = meta

    @property
    def players(self) -> list[str]:
        return list(self.meta["players"])

    @property
    def deals(self) -> int:
        return int(self.per_deal.shape[0])

    def _stat(self, name: str) -> np.ndarray:
        return self.per_deal[:, :, STATS.index(name)].astype(float)

    def _mean_ci(self, x: np.ndarray, per: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Ratio of sums over deals, and its SE across deals."""
        return ratio(x, per)

    def _interval(self, col: str, stat: str, scale: float, rounds: np.ndarray):
        """``(value, se, low, high)`` of one column of :meth:`table`."""
        x = self._stat(stat) * scale
        return interval(x, rounds, share=col in SHARES, event=scale, signed=col == "net")

    def table(self) -> pd.DataFrame:
        """One row per player: per-round rates with SE and 95% CI.

        Columns: ``player``, ``position`` (the player's index in the lineup),
        ``rounds`` (played in all), then for each of ``received``, ``given``,
        ``net`` (stones per round; lower is better), ``win_rate``,
        ``wins_cappu``, ``wins_ceki``, ``wins_pollo``, ``wins_manguno``,
        ``wins_mattikkeng`` (round wins per round, by end kind),
        ``passebunge`` (per round) and ``camat_per_1000``: the value, ``_se``
        and ``_ci_low``/``_ci_high``.
        """
        rounds = self._stat("rounds")
        rows: dict[str, Any] = {
            "player": self.players,
            "position": list(range(self.per_deal.shape[1])),
            "rounds": rounds.sum(0).astype(int),
        }
        for col, stat, scale in (
            ("received", "received", 1),
            ("given", "given", 1),
            ("net", "net", 1),
            ("win_rate", "wins", 1),
            ("wins_cappu", "wins_CAPPU", 1),
            ("wins_ceki", "wins_CEKI", 1),
            ("wins_pollo", "wins_POLLO", 1),
            ("wins_manguno", "wins_MANGUNO", 1),
            ("wins_mattikkeng", "wins_MATTIKKENG", 1),
            ("passebunge", "passebunge", 1),
            ("camat_per_1000", "camats", 1000),
        ):
            v, se, lo, hi = self._interval(col, stat, scale, rounds)
            rows[col] = v
            rows[col + "_se"] = se
            rows[col + "_ci_low"], rows[col + "_ci_high"] = lo, hi
        return pd.DataFrame(rows)

    def margins(self) -> pd.DataFrame:
        """Paired differences of net stones per round between every two
        players (``a`` minus ``b``; negative: ``a`` collects fewer stones)."""
        rounds = self._stat("rounds")
        net = self._stat("net")
        rows = []
        n = self.per_deal.shape[1]
        for a in range(n):
            for b in range(n):
                if a == b:
                    continue
                # per-deal means of each player's net per round, differenced deal by deal
                ones = np.ones(len(net))
                md, sed, _ = paired_difference(
                    net[:, a] / rounds[:, a], ones, net[:, b] / rounds[:, b], ones
                )
                m, se = float(md), float(sed)
                lo, hi = (float(v) for v in t_interval(m, se, self.deals))
                rows.append(
                    {
                        "a": self.players[a],
                        "b": self.players[b],
                        "net_diff": m,
                        "se": se,
                        "ci_low": lo,
                        "ci_high": hi,
                        "significant": bool(lo > 0 or hi < 0),
                    }
                )
        return pd.DataFrame(rows)

    def ranking(self) -> pd.DataFrame:
        """Players from the fewest net stones per round to the most."""
        return self.table().sort_values("net").reset_index(drop=True)

    def summary(self) -> dict[str, Any]:
        t = self.table()
        kind = self.meta.get("kind", "tournament")
        # "kind" stays for one release beside "schema" (docs/study.md)
        out = {"schema": SCHEMAS.get(kind, SCHEMAS["tournament"]), **self.meta}
        times = out.pop("decision_ms", None) or {}
        out["players_stats"] = []
        for _, r in t.iterrows():
            d = {"player": r["player"], "position": int(r["position"]), "rounds": int(r["rounds"])}
            for c in (
                "received",
                "given",
                "net",
                "win_rate",
                "wins_cappu",
                "wins_ceki",
                "wins_pollo",
                "wins_manguno",
                "wins_mattikkeng",
                "passebunge",
                "camat_per_1000",
            ):
                lo, hi = _f(r[c + "_ci_low"]), _f(r[c + "_ci_high"])
                # "ci95" stays for one release beside ci_low/ci_high (docs/study.md)
                d[c] = {"value": _f(r[c]), "se": _f(r[c + "_se"]), "ci_low": lo, "ci_high": hi}
                d[c]["ci95"] = [lo, hi]
            d["decision_ms"] = times.get(r["player"])  # CPU ms per decision: p50, p99
            out["players_stats"].append(d)
        out["ranking"] = list(self.ranking()["player"])
        out["caveat"] = neighbour_caveat(self.meta)
        out["margins"] = [
            {
                "a": row["a"],
                "b": row["b"],
                "value": _f(row["net_diff"]),
                "se": _f(row["se"]),
                "ci_low": _f(row["ci_low"]),
                "ci_high": _f(row["ci_high"]),
                "significant": bool(row["significant"]),
                "net_diff": _f(row["net_diff"]),  # = value; stays for one release
            }
            for row in self.margins().to_dict("records")
        ]
        return out

    def design_text(self) -> str:
        """``D deals x R rounds x S seatings`` (each count with its plural where it is not 1)."""
        return counted_x(
            (self.deals, "deal"),
            (self.meta["rounds"], "round"),
            (self.meta.get("seatings", 5), "seating"),
        )

    def report_title(self) -> str:
        """The title of :meth:`html`'s page."""
        return f"Domeng duplicate tournament: {self.design_text()}"

    def to_text(self) -> str:
        t = self.ranking()
        lines = [
            f"Duplicate tournament: {self.design_text()}, seed {self.meta['seed']}, "
            f"{self.meta['rules_text']}",
            "stones per round (lower net is better), 95% CI across deals:",
        ]
        rows = [
            [
                r["player"],
                _est(r, "net"),
                f"{r['received']:.4f}",
                f"{r['given']:.4f}",
                f"{r['win_rate']:.4f}",
                _est(r, "camat_per_1000", 2),
                *self._ms(r["player"]),
            ]
            for _, r in t.iterrows()
        ]
        header = ["player", "net", "received", "given", "win rate", "CAMAT/1000"]
        lines += text_table(header + ["ms p50", "ms p99"], rows, left=1)
        lines.append(DECISION_NOTE)
        lines += ["", *margin_lines(self.margins(), list(itertools.combinations(t["player"], 2)))]
        import textwrap

        lines += [""] + textwrap.wrap(neighbour_caveat(self.meta), 92)
        return "\n".join(lines)

    def _ms(self, player: str) -> list[str]:
        """The player's CPU ms per decision, p50 and p99, as text ("-": not measured)."""
        d = (self.meta.get("decision_ms") or {}).get(player) or {}
        return [_ms_text(d.get("p50")), _ms_text(d.get("p99"))]

    def save(
        self, folder: str | Path, fmt: str = "png", dpi: int = PLOT_DPI, overwrite: bool = False
    ) -> Path:
        """summary.json, players.csv/.parquet, margins.csv, per_deal.npz,
        plots and report.html, written atomically; a folder that holds
        tournament results already is refused unless ``overwrite``."""
        from domeng.infra.fs import atomic_directory

        folder = Path(folder)
        with atomic_directory(
            folder, finished="per_deal.npz", what="tournament results", overwrite=overwrite
        ) as tmp:
            self.write_files(tmp, fmt, dpi)
        return folder

    def write_files(self, folder: str | Path, fmt: str = "png", dpi: int = PLOT_DPI) -> None:
        """Write every file of :meth:`save` into the existing ``folder``, each
        atomically (what ``domeng report DIR`` renders again).  Prefer :meth:`save`."""
        from domeng.infra.fs import atomic_write, fixed_subfolder

        folder = Path(folder)
        atomic_write(folder / "summary.json", self.to_json())
        atomic_write(folder / "players.csv", self.table().to_csv(index=False))
        atomic_write(folder / "players.parquet", lambda f: self.table().to_parquet(f, index=False))
        atomic_write(folder / "margins.csv", self.margins().to_csv(index=False))
        atomic_write(
            folder / "per_deal.npz",
            lambda f: np.savez_compressed(f, per_deal=self.per_deal, meta=json.dumps(self.meta)),
        )
        pngs = self.plots(fmt, dpi)
        plots = fixed_subfolder(folder, "plots")
        for name, data in pngs.items():
            atomic_write(plots / f"{name}.png", data)
            for ext, extra in getattr(self, "_extra", {}).items():
                atomic_write(plots / f"{name}.{ext}", extra)
        atomic_write(folder / "report.html", self.html(pngs))

    def to_json(self, indent: int | None = 2) -> str:
        """:meth:`summary` as JSON text (schema ``domeng.tournament/1`` or
        ``domeng.ladder/1``; no NaN: missing values are null)."""
        return json.dumps(self.summary(), indent=indent, allow_nan=False)

    @classmethod
    def load(cls, folder: str | Path) -> TournamentResults:
        """Read the results :meth:`save` wrote (``per_deal.npz``; a ladder's
        folder: :meth:`LadderResults.load <domeng.study.ladder.LadderResults>`,
        or :func:`domeng.study.ladder.load_results` for either).

        Raises :class:`ResultsError` for a missing, incomplete or corrupt folder.

        Parameters
        ----------
        folder:
            A folder written by :meth:`save` (``domeng tournament --out DIR``
            or ``domeng ladder --out DIR``).

        Returns
        -------
        TournamentResults
            Equal to the saved one (:meth:`equals`).

        Examples
        --------
        >>> import domeng, tempfile
        >>> t = domeng.tournament("random,heavy,keeper,hunter,expert", deals=2, rounds=2,
        ...                       orders="rotations", progress=False)
        >>> with tempfile.TemporaryDirectory() as d:
        ...     _ = t.save(d + "/t")
        ...     TournamentResults.load(d + "/t").equals(t)
        True
        """
        try:
            with np.load(Path(folder) / "per_deal.npz", allow_pickle=False) as z:
                per_deal, meta = z["per_deal"], jsontext.loads(str(z["meta"]))
            if not isinstance(meta, dict):
                raise ValueError("meta is not an object")
            players = meta.get("players")
            if (
                per_deal.ndim != 3
                or per_deal.dtype.kind not in "iu"
                or per_deal.shape[0] < 1
                or per_deal.shape[2] != len(STATS)
                or not isinstance(players, list)
                or len(players) != per_deal.shape[1]
                or not all(isinstance(p, str) and p.isprintable() for p in players)
            ):
                raise ValueError("its arrays do not match its players")
            res = cls(per_deal, meta)
            res.to_text()  # everything a report reads must be computable
            return res
        except (OSError, KeyError, ValueError, TypeError, RecursionError, ZeroDivisionError) as e:
            raise ResultsError(
                f"cannot read tournament results in {str(folder)!r}: {load_error_text(e)}"
            ) from None

    def equals(self, other: object) -> bool:
        """Same kind, the same per-deal statistics and the same metadata."""
        return (
            type(other) is type(self)
            and isinstance(other, TournamentResults)
            and np.array_equal(self.per_deal, other.per_deal)
            and json.dumps(self.meta, sort_keys=True) == json.dumps(other.meta, sort_keys=True)
        )

    def __repr__(self) -> str:
        m = self.meta
        kind, rules = m.get("kind", "tournament"), m.get("rules_text", "")
        return study_repr(self, kind, self.design_text(), self.players, rules, m.get("seed"))

    def plots(self, fmt: str = "png", dpi: int = PLOT_DPI) -> dict[str, bytes]:
        """The tournament figure: players in rank order (fewest net stones
        first), one horizontal bar each, so every label is readable."""
        from domeng.results.figures import figure_files
        from domeng.study.tournament_plots import plot_tournament

        files = figure_files(plot_tournament(self), fmt, dpi)
        self._extra = {k: v for k, v in files.items() if k != "png"}
        return {"tournament": files["png"]}

    def html(self, pngs: dict[str, bytes] | None = None) -> str:
        """The report: ranking, caveat, plot, the players' table (one metric
        per row, so it fits a narrow window), paired margins, rules, glossary,
        command and versions."""
        from domeng.results import html as H

        pngs = self.plots() if pngs is None else pngs
        page = H.Page(self.report_title())
        page.intro.append(f"<p class='note'>{H.esc(neighbour_caveat(self.meta))}</p>")
        t = self.ranking()
        key = pd.DataFrame(
            {
                "rank": range(1, len(t) + 1),
                "player": t["player"],
                "net / round": t["net"],
                "95% CI": [
                    f"[{a:+.3f}, {b:+.3f}]" for a, b in zip(t["net_ci_low"], t["net_ci_high"])
                ],
                "win rate": t["win_rate"],
                "CAMAT / 1000": t["camat_per_1000"],
                "CPU ms / decision p50": [self._ms(p)[0] for p in t["player"]],
                "CPU ms / decision p99": [self._ms(p)[1] for p in t["player"]],
            }
        )
        page.add("Ranking", H.table(key))
        page.add(
            "Plot",
            "".join(
                H.figure(n, d, "Players in rank order; 95% intervals across deals.")
                for n, d in pngs.items()
            ),
        )
        long = t.set_index("player").drop(columns=["position"]).T
        long.index.name = "statistic"
        page.add(
            "Every statistic",
            "<p>One row per statistic, one column per player (value, "
            "<code>_se</code>, 95% <code>_ci_low</code>/<code>_ci_high</code>).</p>"
            + H.table(long, index=True),
        )
        page.add("Paired margins of net stones per round", H.table(self.margins()))
        page.add("Rules", H.rules_table(self.meta["rules"]))
        page.add("Glossary", H.glossary())
        page.add(
            "Reproduce",
            H.reproduce(
                self.meta.get("command") or f"domeng {self.meta.get('kind', 'tournament')} ..."
            ),
        )
        return page.render()


#: under the text's table: what the time columns are
DECISION_NOTE = (
    "ms p50, p99: CPU milliseconds per decision, median and 99th percentile (measured "
    "in the reference engine)"
)


def _ms_text(v) -> str:
    """A time per decision in ms, to three significant digits ("-": none)."""
    return "-" if v is None else f"{v:.3g}"


def _est(row, col: str, digits: int = 4) -> tuple:
    """The estimate of column ``col`` of a :meth:`TournamentResults.table` row, as a text-table cell."""
    est = {"value": row[col], "ci_low": row[col + "_ci_low"], "ci_high": row[col + "_ci_high"]}
    return estimate_cell(est, digits)


def margin_lines(margins: pd.DataFrame, pairs: list[tuple[str, str]]) -> list[str]:
    """The paired margins of net stones per round of ``pairs`` (``a`` minus
    ``b``) as a text table, every column as wide as its widest name."""
    rows = []
    for a, b in pairs:
        r = margins[(margins.a == a) & (margins.b == b)].iloc[0]
        est = {"value": r.net_diff, "ci_low": r.ci_low, "ci_high": r.ci_high}
        rows.append([a, b, estimate_cell(est), "*" if r.significant else ""])
    head = "paired margins of net stones per round, a - b by deal, 95% CI (* : excludes 0):"
    return [head, *text_table(["a", "b", "a - b", ""], rows)]


_f = num


def tournament(
    players: Sequence[Any] | str | StudySpec | None = None,
    deals: int = 200,
    rounds: int = 10,
    seed: int = 0,
    rules: Rules | str | Sequence[str] | None = None,
    **options: Unpack[DuplicateOptions],
) -> TournamentResults:
    """Play a duplicate tournament of five players (see the module docstring;
    ``orders``: the seating design, ``"all"``, ``"balanced"`` or ``"rotations"``).

    ``players``: five players (names or player objects, as for
    :func:`domeng.simulate`); each deal of ``rounds`` rounds is played in every
    seating of the design.  ``seed``, ``rules``, ``workers``, ``progress``: as
    for :func:`domeng.simulate`; ``chunk_deals``: deals per engine call;
    ``time_decisions``: also measure each player's CPU time per decision
    (:mod:`domeng.study.decisions`; ``meta["decision_ms"]``).
    ``out``: save the results there (:meth:`TournamentResults.save` with
    ``fmt``, ``dpi``, ``overwrite``; ``command`` recorded in its metadata),
    the folder checked before anything is played, and its resolved spec
    written as ``config.toml``.  ``spec``: the whole tournament as one
    :class:`~domeng.study.spec.StudySpec` (kind ``tournament``; or given as
    ``players``) instead of the keywords.  The keywords become a spec and a
    :class:`~domeng.study.runtime.Runtime`, run by :func:`run_tournament`.
    Returns :class:`TournamentResults` (``ranking()``, ``margins()``, ``save()``).

    >>> import domeng
    >>> t = domeng.tournament("random,heavy,keeper,hunter,expert", deals=2, rounds=2,
    ...                       orders="rotations", progress=False)
    >>> t.deals, list(t.ranking().columns[:2])
    (2, ['player', 'position'])
    """
    spec, runtime = duplicate_spec(tournament, (players, deals, rounds, seed, rules), options)
    return run_tournament(spec, runtime)


def run_tournament(spec: StudySpec, runtime: Runtime | None = None) -> TournamentResults:
    """Run a ``tournament`` :class:`~domeng.study.spec.StudySpec` as
    ``runtime`` says (None: the defaults): the core of :func:`tournament`.
    With ``spec.out`` the results are saved there, with the spec as ``config.toml``.

    >>> from domeng.study.tournament import run_tournament
    >>> from domeng.study.runtime import Runtime
    >>> from domeng.study.spec import StudySpec
    >>> spec = StudySpec("tournament", players="random,heavy,keeper,hunter,expert",
    ...                  deals=2, rounds=2, orders="rotations")
    >>> run_tournament(spec, Runtime(progress=False)).deals
    2
    """
    from domeng.study.spec import check_kind

    rt = Runtime() if runtime is None else runtime
    check_kind("tournament", spec)
    players = list(spec.players or ()) if rt.players is None else rt.players
    out, orders = spec.out, spec.orders or "all"
    if out is not None:
        check_out(out, rt.overwrite)  # before anything is played
    rules = coerce_rules(list(spec.rules or ()) or None)
    deals, rounds, seed = spec.deals or 200, spec.rounds or 10, spec.seed or 0
    from domeng.study.names import refuse_research_players

    specs = resolve_players(players, "tournament")
    refuse_research_players(specs, "tournament")
    kernel_players(specs)  # compiled players only: a tournament runs on the batch engine
    names = [p.name for p in specs]
    if len(set(names)) != 5:
        # the same player twice is allowed; label by position
        names = [f"{n}#{i}" if names.count(n) > 1 else n for i, n in enumerate(names)]
    chunk_deals = rt.chunk_deals
    if chunk_deals is None:
        chunk_deals = max(1, min(deals, 200_000 // rounds))
    design = seatings(orders)
    per_deal = _play_design(
        specs, design, (deals, rounds, seed, rules, chunk_deals), spec.workers, rt.progress
    )
    meta = {
        "kind": "tournament",
        "players": names,
        "deals": deals,
        "rounds": rounds,
        "seed": seed,
        "rules": rules.to_dict(),
        "rules_text": str(rules),
        "format": f"duplicate: each deal played once per seating ({orders}, "
        f"{len(design)} seatings)",
        "orders": orders,
        "seatings": len(design),
        **per_deal[1],
    }
    if rt.time_decisions:
        from domeng.study.decisions import decision_times

        meta["decision_ms"] = decision_times(specs, names, rules, seed)
    res = TournamentResults(per_deal[0], meta)
    how = (spec.fmt or "png", spec.dpi or PLOT_DPI, rt.overwrite)
    return save_duplicate(res, players, out, how, rt.command)


def _play_design(specs, design, study: tuple, workers, progress) -> tuple[np.ndarray, dict]:
    """Every deal of ``study`` (deals, rounds, seed, rules, deals per engine
    call) in every seating of ``design``: the per-deal sums and the timing."""
    deals, rounds, seed, rules, chunk_deals = study
    report = _progress(progress, deals * len(design), rounds)
    per_deal = np.zeros((deals, 5, len(STATS)), dtype=np.int64)
    total = deals * len(design)
    watch = Stopwatch()  # compiles measured apart (domeng.core.compiling)
    ticks = _GameTicks(report, rounds, total)
    with within(ticks if ticks.fractional else None):
        for start in range(0, deals, chunk_deals):
            n = min(chunk_deals, deals - start)
            for r, seating in enumerate(design):
                lineup = [specs[i] for i in seating]  # seat s: player seating[s]
                st = duplicate_states(seed, start, n, r, rules, len(design))
                played = run_tables(
                    lineup, rules, seed, start, n, rounds, threads=workers, state=st
                )
                per_deal[start : start + n] += _per_player(played.agg, seat_of(seating))
                ticks.games(n)
    timing = {"elapsed_seconds": watch.compute_seconds, "compile_seconds": watch.compile_seconds}
    return per_deal, timing


def save_duplicate(res, players, out, how: tuple, command: str | None):
    """With ``out``: save a tournament's (or ladder's) results there (``how``:
    format, dpi, overwrite) and record its resolved spec (``players``: as
    given) as ``config.toml``; returns ``res``."""
    if out is None:
        return res
    fmt, dpi, overwrite = how
    if command is not None:
        res.meta["command"] = command
    res.save(out, fmt, dpi, overwrite=overwrite)
    m = res.meta
    spec_record(
        out,
        m["kind"],
        players=players,
        deals=m["deals"],
        rounds=m["rounds"],
        seed=m["seed"],
        rules=m["rules"],
        orders=m["orders"],
        fmt=fmt,
        dpi=dpi,
    )
    return res


def _progress(progress, total: int, rounds: int) -> Callable[[int, int], None] | None:
    """The progress callable for ``progress=`` (the one bar of :mod:`domeng.infra.progress`)."""
    if callable(progress):
        return progress
    if progress is None:
        progress = sys.stderr.isatty()
    if not progress:
        return None
    from domeng.infra.progress import Progress

    return Progress(total, unit="game", per_item=rounds, rate_unit="rounds")


class _GameTicks:
    """A tournament's progress: whole games after each engine call
    (:meth:`games`) and, for a bar, the table-rounds played within one."""

    def __init__(self, report, rounds: int, total: int) -> None:
        self.report, self.rounds, self.total = report, rounds, total
        self.fractional = bool(getattr(report, "fractional", False))
        self.done, self.acc = 0, 0

    def __call__(self, table_rounds: int) -> None:
        self.acc += table_rounds
        self.report(self.done + self.acc / self.rounds, self.total)

    def games(self, n: int) -> None:
        self.done, self.acc = self.done + n, 0
        if self.report:
            self.report(self.done, self.total)
