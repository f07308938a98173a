"""The results of a study: group aggregates, tidy DataFrames, a summary, files.

A :class:`Results` holds only sums over ``G`` groups of tables
(``group_agg[G, AGG_LEN]`` in the layout of :mod:`domeng.core.layout`, a summary
of the final per-table state ``group_state[G, S_LEN]`` (see
:mod:`domeng.study.simulate`), the number of tables of each group) and the study's
metadata.  Everything else is computed from those arrays on demand.

Estimates and standard errors
-----------------------------
Every rate is a ratio estimator ``r = sum_g x_g / sum_g n_g`` over the
groups (``x_g``: e.g. wins of seat 0 in group g; ``n_g``: rounds played in
group g).  The groups are i.i.d. sums of independent tables (D16), so the
standard error is the delta-method (linearised) one across groups::

    SE(r) = sqrt( sum_g (x_g - r n_g)^2 / (G (G - 1)) ) / mean_g(n_g)

It accounts for the correlation of rounds at one table (stones, the
starter and the CAMAT carry over, D4, D15).  With a single group (one
table) the SE is undefined (NaN in DataFrames, ``null`` in JSON).  95%
confidence intervals are ``r -/+ t SE`` (Student t with G - 1 degrees of
freedom; cut at 0), ``[0, rule of three]`` for a count with no events, and
Wilson intervals with the groups' design effect for shares (end kinds, win
rates, round shares), within [0, 1] and never of zero width.  The
estimators are those of :mod:`domeng.results.stats`.

Per-player ("strategy") figures pool the seats the player occupies and are
given per seat: e.g. the win rate of ``random`` at a table with two random
seats is (wins of both seats) / (2 x rounds), comparable to a seat's rate.
"""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pandas loads with the first table (a study starts without it)
    import pandas as pd

from domeng.core import layout as L
from domeng.core.errors import DomengError, ResultsError, ResultsWriteError
from domeng.core.layout import CAMATS_BINS, S_CAMAT_HOLDER, S_CAMATS_HIST, S_STONES, S_TABLE
from domeng.core.rules import Rules
from domeng.infra import fs
from domeng.infra.fs import atomic_directory, atomic_write
from domeng.results.meta import (
    LOAD_ERRORS,
    _json_default,
    _layout_meta,
    check_loaded,
    check_manifest,
    read_results_file,
)
from domeng.results.stats import estimate, interval, num

SUMMARY_SCHEMA = "domeng.summary/1"
#: the DataFrames that :meth:`Results.frames` returns and :meth:`Results.save` writes
FRAME_NAMES = (
    "end_kinds",
    "win_by_seat",
    "win_by_player",
    "win_by_starter_offset",
    "passes_by_seat",
    "passes_by_player",
    "stone_flows",
    "unpaid",
    "camat_by_seat",
    "camat_by_player",
    "camat_gaps",
    "round_length",
    "final_state",
    "camats_per_table",
    "estimates",
)
ALL = "ALL"


# ---------------------------------------------------------------- estimators
# (all in domeng.results.stats; the names stay importable from here)
_num, _est = num, estimate


def _frame(*args, **kwargs) -> pd.DataFrame:
    """``pandas.DataFrame(...)``, pandas imported on first use (issue 11)."""
    import pandas as pd

    return pd.DataFrame(*args, **kwargs)


def _cols(name: str, est, prefixed: bool = False) -> dict:
    """The columns ``name``, ``se``, ``ci_low``, ``ci_high`` of an :func:`interval`
    (``name_se`` ... when ``prefixed``)."""
    v, se, lo, hi = est
    pre = name + "_" if prefixed else ""
    return {name: v, f"{pre}se": se, f"{pre}ci_low": lo, f"{pre}ci_high": hi}


# ---------------------------------------------------------------- Results
#: metadata that differs between two runs of the same study: how long it took
#: (:meth:`Results.equals` leaves them out) and the command line that ran it
TIMING_KEYS = frozenset({"elapsed_seconds", "compile_seconds", "compute_seconds", "command"})


class Results:
    """The outcome of :func:`domeng.simulate`.

    Attributes: ``group_agg`` (``int64[G, AGG_LEN]``), ``group_state``
    (``int64[G, S_LEN]``), ``group_tables`` (``int64[G]``), ``meta`` (dict:
    ``tables``, ``rounds`` per table, ``seed``, ``rules`` (every option),
    ``players`` (seat 0..4), ``version``, ``groups``, ``elapsed_seconds``,
    ``records_rows``).

    DataFrame methods (each documents its columns): :meth:`end_kinds`,
    :meth:`win_by_seat`, :meth:`win_by_player`, :meth:`win_by_starter_offset`,
    :meth:`passes_by_seat`, :meth:`passes_by_player`, :meth:`stone_flows`,
    :meth:`flow_matrix`, :meth:`unpaid`, :meth:`camat_by_seat`,
    :meth:`camat_by_player`, :meth:`camat_gaps`, :meth:`round_length`,
    :meth:`final_state`, :meth:`camats_per_table`.  Returns of :meth:`summary` and
    :meth:`to_json`: schema ``domeng.summary/1``; :meth:`save` / :meth:`load`: a folder.

    >>> import domeng
    >>> res = domeng.simulate(tables=2, rounds=2, seed=1, progress=False)
    >>> res.tables, res.rounds, list(res.win_by_player().columns[:3])
    (2, 2, ['player', 'seats', 'n_seats'])
    """

    def __init__(
        self, group_agg: np.ndarray, group_state: np.ndarray, group_tables: np.ndarray, meta: dict
    ) -> None:
        self.group_agg = np.asarray(group_agg, dtype=np.int64)
        self.group_state = np.asarray(group_state, dtype=np.int64)
        self.group_tables = np.asarray(group_tables, dtype=np.int64)
        self.meta = dict(meta)

    # ------------------------------------------------------------ basics
    @property
    def tables(self) -> int:
        return int(self.meta["tables"])

    @property
    def rounds(self) -> int:
        """Rounds per table."""
        return int(self.meta["rounds"])

    @property
    def total_rounds(self) -> int:
        return int(self.group_agg[:, L.A_ROUNDS].sum())

    @property
    def seed(self) -> int:
        return int(self.meta["seed"])

    @property
    def players(self) -> list[str]:
        return list(self.meta["players"])

    @property
    def rules(self) -> Rules:
        return Rules.from_mapping(self.meta["rules"])

    @property
    def groups(self) -> int:
        return int(self.group_agg.shape[0])

    def player_seats(self) -> dict[str, list[int]]:
        """Each distinct player, in order of first seat, with its seats."""
        out: dict[str, list[int]] = {}
        for s, p in enumerate(self.players):
            out.setdefault(p, []).append(s)
        return out

    def field(self, name: str) -> np.ndarray:
        """A field ``A_*`` of the group aggregates, shape ``[G, ...]``."""
        return L.agg_field(self.group_agg, name)

    def state_field(self, name: str) -> np.ndarray:
        """A column ``S_*`` of the per-group state summary, shape ``[G]``
        (e.g. ``"S_TABLE"``: stones on the table at the end, summed over the
        group's tables)."""
        return self.group_state[:, self.state_field_index(name)]

    @staticmethod
    def state_field_index(name: str) -> int:
        """The column of ``S_*`` in ``group_state`` (:mod:`domeng.core.layout`)."""
        if not name.startswith("S_") or not isinstance(getattr(L, name, None), int):
            raise KeyError(f"no state summary field {name!r}")
        return int(getattr(L, name))

    def totals(self, name: str) -> np.ndarray:
        """A field ``A_*`` summed over all tables."""
        return self.field(name).sum(axis=0)

    def _rounds_g(self) -> np.ndarray:
        return self.field("A_ROUNDS")

    def _per_round(self, x: np.ndarray, scale: float = 1.0, share: bool = False, seats: int = 1):
        """``(value, se, ci_low, ci_high)`` of ``x`` per round (``seats``: a
        player's figure averaged over that many seats)."""
        x = np.asarray(x, dtype=np.float64) * scale
        return interval(x, self._rounds_g(), share=share, event=scale / seats)

    def _by_player(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """``x[G, 5, ...]`` (seat on axis 1) -> per player, averaged over its seats."""
        return {p: x[:, seats].sum(axis=1) / len(seats) for p, seats in self.player_seats().items()}

    def __repr__(self) -> str:
        """One line: ``Results(simulate: T tables x R rounds; players ...; rules; seed S)``."""
        from domeng.core.wording import counted_x
        from domeng.results.texttable import study_repr

        design = counted_x((self.tables, "table"), (self.rounds, "round"))
        return study_repr(self, "simulate", design, self.players, str(self.rules), self.seed)

    def equals(self, other: Results, *, timings: bool = False) -> bool:
        """Same arrays and the same metadata: two runs of one study (same
        seed, any core count or chunking) are equal.  The metadata's timings
        (:data:`TIMING_KEYS`: how long the run took, how long it compiled)
        and the command line that ran it are left out unless ``timings=True``.

        Example
        -------
        >>> import domeng
        >>> a = domeng.simulate(tables=4, rounds=2, players="random", progress=False)
        >>> b = domeng.simulate(tables=4, rounds=2, players="random", progress=False)
        >>> a.equals(b), a.equals(b, timings=True)
        (True, False)
        """

        def meta(r: Results) -> str:
            m = r.meta if timings else {k: v for k, v in r.meta.items() if k not in TIMING_KEYS}
            return json.dumps(m, sort_keys=True, default=_json_default)

        return (
            isinstance(other, Results)
            and np.array_equal(self.group_agg, other.group_agg)
            and np.array_equal(self.group_state, other.group_state)
            and np.array_equal(self.group_tables, other.group_tables)
            and meta(self) == meta(other)
        )

    # ------------------------------------------------------------ DataFrames
    def end_kinds(self) -> pd.DataFrame:
        """Share of rounds by how they ended.

        Columns: ``kind`` (CAPPU: plain FIRST CAPPU; CEKI; POLLO; MANGUNO:
        blocked, won by the MANGUNO; MATTIKKENG: blocked, won by a
        MATTIKKENG), ``rounds`` (count), ``share`` (of all rounds), ``se``,
        ``ci_low``, ``ci_high`` (95%)."""
        wins = self.field("A_WINS").sum(axis=1)  # [G, kind]
        est = self._per_round(wins, share=True)
        return _frame(
            {"kind": list(L.KIND_NAMES), "rounds": wins.sum(axis=0), **_cols("share", est)}
        )

    def _wins_with_all(self, name: str) -> np.ndarray:
        w = self.field(name)  # [G, 5, kind]
        return np.concatenate([w, w.sum(axis=2, keepdims=True)], axis=2)

    def win_by_seat(self) -> pd.DataFrame:
        """Win rate of each seat, by end kind.

        Columns: ``seat`` (0..4), ``player``, ``kind`` (an end kind, or
        ``ALL`` for any), ``wins`` (rounds won), ``rate`` (wins / rounds),
        ``se``, ``ci_low``, ``ci_high`` (95%)."""
        w = self._wins_with_all("A_WINS")
        est = self._per_round(w, share=True)
        kinds = list(L.KIND_NAMES) + [ALL]
        rows = [
            {
                "seat": s,
                "player": self.players[s],
                "kind": k,
                "wins": int(w[:, s, j].sum()),
                **_cols("rate", (e[s, j] for e in est)),
            }
            for s in range(L.N_SEATS)
            for j, k in enumerate(kinds)
        ]
        return _frame(rows)

    def win_by_player(self) -> pd.DataFrame:
        """Win rate of each player (strategy) per seat it occupies, by end kind.

        Columns: ``player``, ``seats`` (e.g. ``"0,4"``), ``n_seats``,
        ``kind`` (an end kind or ``ALL``), ``wins`` (rounds won by those
        seats), ``rate`` (wins / (rounds x n_seats)), ``se``, ``ci_low``,
        ``ci_high`` (95%)."""
        w = self._wins_with_all("A_WINS")
        kinds = list(L.KIND_NAMES) + [ALL]
        rows = []
        seats = self.player_seats()
        for p, x in self._by_player(w).items():
            est = self._per_round(x, share=True, seats=len(seats[p]))
            for j, k in enumerate(kinds):
                rows.append(
                    {
                        "player": p,
                        "seats": ",".join(map(str, seats[p])),
                        "n_seats": len(seats[p]),
                        "kind": k,
                        "wins": int(w[:, seats[p], j].sum()),
                        **_cols("rate", (e[j] for e in est)),
                    }
                )
        return _frame(rows)

    def win_by_starter_offset(self) -> pd.DataFrame:
        """Win rate by seat offset from the round's starter (0: the starter,
        1: the next seat clockwise, ... D1, D4), by end kind.

        Columns: ``offset`` (0..4), ``kind`` (an end kind or ``ALL``),
        ``wins``, ``rate`` (wins / rounds), ``se``, ``ci_low``, ``ci_high``."""
        w = self._wins_with_all("A_WINS_OFFSET")
        est = self._per_round(w, share=True)
        kinds = list(L.KIND_NAMES) + [ALL]
        rows = [
            {
                "offset": o,
                "kind": k,
                "wins": int(w[:, o, j].sum()),
                **_cols("rate", (e[o, j] for e in est)),
            }
            for o in range(L.N_SEATS)
            for j, k in enumerate(kinds)
        ]
        return _frame(rows)

    def _pass_arrays(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        return {
            "PASS": (self.field("A_PASSES"), self.field("A_PASS_ROUNDS")),
            "PASSEBUNGE": (self.field("A_PASSEBUNGE"), self.field("A_PASSEBUNGE_ROUNDS")),
        }

    def passes_by_seat(self) -> pd.DataFrame:
        """PASS and PASSEBUNGE frequency of each seat (D6).

        Columns: ``seat``, ``player``, ``event`` (``PASS``: every pass,
        PASSEBUNGE included; ``PASSEBUNGE``), ``events`` (count),
        ``per_round`` (events per round), ``per_round_se``, ``rounds_with``
        (rounds in which the seat made at least one), ``round_share``
        (rounds_with / rounds), ``round_share_se``; their 95% intervals
        ``per_round_ci_low``, ``per_round_ci_high`` (t) and
        ``round_share_ci_low``, ``round_share_ci_high`` (Wilson)."""
        rows = []
        for ev, (e, rw) in self._pass_arrays().items():
            e1 = self._per_round(e)
            e2 = self._per_round(rw, share=True)
            for s in range(L.N_SEATS):
                rows.append(
                    {
                        "seat": s,
                        "player": self.players[s],
                        "event": ev,
                        "events": int(e[:, s].sum()),
                        **_cols("per_round", (a[s] for a in e1), True),
                        "rounds_with": int(rw[:, s].sum()),
                        **_cols("round_share", (a[s] for a in e2), True),
                    }
                )
        return _frame(rows)

    def passes_by_player(self) -> pd.DataFrame:
        """PASS and PASSEBUNGE frequency of each player, per seat it occupies.

        Columns: ``player``, ``n_seats``, ``event`` (``PASS`` incl.
        PASSEBUNGE, or ``PASSEBUNGE``), ``events`` (count over its seats),
        ``per_round`` (events per round per seat), ``per_round_se``,
        ``round_share`` (share of rounds in which one such seat made at
        least one, averaged over its seats), ``round_share_se``; their 95%
        intervals ``per_round_ci_low``, ``per_round_ci_high``,
        ``round_share_ci_low``, ``round_share_ci_high``."""
        rows = []
        seats = self.player_seats()
        for ev, (e, rw) in self._pass_arrays().items():
            pe, prw = self._by_player(e), self._by_player(rw)
            for p in seats:
                k = len(seats[p])
                rows.append(
                    {
                        "player": p,
                        "n_seats": k,
                        "event": ev,
                        "events": int(e[:, seats[p]].sum()),
                        **_cols("per_round", map(float, self._per_round(pe[p], seats=k)), True),
                        **_cols(
                            "round_share", map(float, self._per_round(prw[p], True, seats=k)), True
                        ),
                    }
                )
        return _frame(rows)

    @staticmethod
    def _source_name(i: int) -> str:
        return "table" if i == 0 else f"seat {i - 1}"

    def stone_flows(self) -> pd.DataFrame:
        """Stones moved per round, from each source to each destination, by reason.

        Columns: ``source`` (``table`` or ``seat k``), ``source_seat`` (-1
        for the table), ``source_player`` (``table`` or the seat's player),
        ``dest_seat``, ``dest_player``, ``reason`` (PASS, PASSEBUNGE, CAPPU,
        CEKI, POLLO, MANGUNO, MATTIKKENG), ``stones`` (total moved),
        ``per_round``, ``se``, ``ci_low``, ``ci_high``.  Stones owed but not
        paid are in :meth:`unpaid`."""
        f = self.field("A_FLOW")  # [G, 6, 5, 7]
        est = self._per_round(f)
        rows = []
        for i in range(6):
            for d in range(L.N_SEATS):
                for k, reason in enumerate(L.REASON_NAMES):
                    rows.append(
                        {
                            "source": self._source_name(i),
                            "source_seat": i - 1,
                            "source_player": "table" if i == 0 else self.players[i - 1],
                            "dest_seat": d,
                            "dest_player": self.players[d],
                            "reason": reason,
                            "stones": int(f[:, i, d, k].sum()),
                            **_cols("per_round", (a[i, d, k] for a in est)),
                        }
                    )
        return _frame(rows)

    def flow_matrix(self, reason: str | None = None) -> pd.DataFrame:
        """Stones per round as a matrix: rows ``table, seat 0..4`` (source),
        columns ``seat 0..4`` (destination); all reasons, or one ``reason``."""
        f = self.totals("A_FLOW").astype(np.float64)  # [6, 5, 7]
        if reason is None:
            m = f.sum(axis=2)
        else:
            if reason.upper() not in L.REASON_NAMES:
                raise DomengError(
                    f"unknown reason {reason!r}; reasons: {', '.join(L.REASON_NAMES)}"
                )
            m = f[:, :, L.REASON_NAMES.index(reason.upper())]
        m = m / max(self.total_rounds, 1)
        return _frame(
            m,
            index=[self._source_name(i) for i in range(6)],
            columns=[f"seat {d}" for d in range(L.N_SEATS)],
        )

    def unpaid(self) -> pd.DataFrame:
        """Stones owed to a seat that neither the table nor the payer could
        cover (D7), per round.

        Columns: ``dest_seat``, ``dest_player``, ``reason``, ``stones``
        (total), ``per_round``, ``se``, ``ci_low``, ``ci_high``."""
        u = self.field("A_UNPAID")  # [G, 5, 7]
        est = self._per_round(u)
        rows = [
            {
                "dest_seat": d,
                "dest_player": self.players[d],
                "reason": reason,
                "stones": int(u[:, d, k].sum()),
                **_cols("per_round", (a[d, k] for a in est)),
            }
            for d in range(L.N_SEATS)
            for k, reason in enumerate(L.REASON_NAMES)
        ]
        return _frame(rows)

    def camat_by_seat(self) -> pd.DataFrame:
        """CAMAT designations (D15) per 1000 rounds, by seat.

        Columns: ``seat``, ``player``, ``camats`` (count),
        ``per_1000_rounds``, ``se``, ``ci_low``, ``ci_high``."""
        c = self.field("A_CAMAT")
        est = self._per_round(c, 1000.0)
        return _frame(
            {
                "seat": range(L.N_SEATS),
                "player": self.players,
                "camats": c.sum(axis=0),
                **_cols("per_1000_rounds", est),
            }
        )

    def camat_by_player(self) -> pd.DataFrame:
        """CAMAT designations per 1000 rounds per seat of each player.

        Columns: ``player``, ``n_seats``, ``camats`` (count over its seats),
        ``per_1000_rounds`` (per seat), ``se``, ``ci_low``, ``ci_high``."""
        c = self.field("A_CAMAT")
        seats = self.player_seats()
        rows = []
        for p, x in self._by_player(c).items():
            est = self._per_round(x, 1000.0, seats=len(seats[p]))
            rows.append(
                {
                    "player": p,
                    "n_seats": len(seats[p]),
                    "camats": int(c[:, seats[p]].sum()),
                    **_cols("per_1000_rounds", map(float, est)),
                }
            )
        return _frame(rows)

    def camat_gaps(self) -> pd.DataFrame:
        """Distribution of the number of rounds between CAMATs (for a table's
        first CAMAT: rounds since the start of the game, counting the round
        that made it).

        Columns: ``rounds_between`` (1..127; 127 means 127 or more),
        ``camats`` (count), ``share`` (of all CAMATs)."""
        h = self.totals("A_CAMAT_GAP_HIST")[1:]
        total = h.sum()
        share = h / total if total else np.full(len(h), np.nan)
        return _frame({"rounds_between": np.arange(1, L.GAP_BINS), "camats": h, "share": share})

    def round_length(self) -> pd.DataFrame:
        """Distribution of round length.

        Columns: ``measure`` (``tiles``: tiles played; ``turns``: plays incl.
        the lead, passes, and the MANGUNO's closing pass), ``value`` (0..25
        tiles, 0..127 turns; 127 means 127 or more), ``rounds`` (count),
        ``share`` (of all rounds)."""
        n = max(self.total_rounds, 1)
        th = self.totals("A_TILES_HIST")
        uh = self.totals("A_TURNS_HIST")
        return _frame(
            {
                "measure": ["tiles"] * len(th) + ["turns"] * len(uh),
                "value": np.concatenate([np.arange(len(th)), np.arange(len(uh))]),
                "rounds": np.concatenate([th, uh]),
                "share": np.concatenate([th, uh]) / n,
            }
        )

    def final_state(self) -> pd.DataFrame:
        """The tables' state after their last round, averaged over tables.

        Columns: ``holder`` (``table`` or ``seat k``), ``seat`` (-1 for the
        table), ``player`` (``table`` or the seat's player), ``mean_stones``
        (stones held at the end), ``mean_stones_se``, ``camat_share`` (share
        of tables where this seat is CAMAT at the end; for ``table``: share
        of tables with no CAMAT), ``camat_share_se``; their 95% intervals
        ``mean_stones_ci_low``, ``mean_stones_ci_high``,
        ``camat_share_ci_low``, ``camat_share_ci_high``."""
        st = self.group_state
        n = self.group_tables
        stones = np.concatenate(
            [st[:, S_TABLE : S_TABLE + 1], st[:, S_STONES : S_STONES + 5]], axis=1
        )
        holder = np.concatenate(
            [
                st[:, S_CAMAT_HOLDER + 5 : S_CAMAT_HOLDER + 6],
                st[:, S_CAMAT_HOLDER : S_CAMAT_HOLDER + 5],
            ],
            axis=1,
        )
        return _frame(
            {
                "holder": [self._source_name(i) for i in range(6)],
                "seat": range(-1, 5),
                "player": ["table"] + self.players,
                **_cols("mean_stones", interval(stones, n), True),
                **_cols("camat_share", interval(holder, n, share=True), True),
            }
        )

    def camats_per_table(self) -> pd.DataFrame:
        """Distribution of the number of CAMATs a table had over its game.

        Columns: ``camats`` (0..31; 31 means 31 or more), ``tables``, ``share``."""
        h = self.group_state[:, S_CAMATS_HIST : S_CAMATS_HIST + CAMATS_BINS].sum(axis=0)
        return _frame(
            {"camats": np.arange(CAMATS_BINS), "tables": h, "share": h / max(self.tables, 1)}
        )

    def estimates(self) -> pd.DataFrame:
        """Every estimate, a row each, as one tidy long frame (``tables/estimates.csv``):
        ``metric`` (its family, e.g. ``end_kind``), the group keys ``seat``, ``player``,
        ``kind``, ``reason``, ``offset`` (empty where they do not apply), ``value``, ``se``,
        ``ci_low``, ``ci_high`` (95%, by the rule for its kind: :mod:`domeng.results.stats`),
        ``n`` (the rounds, tables or CAMATs it is over), ``unit``, and ``name`` (the
        metric's full name, as ``--target-ci`` and ``compare`` use it)."""
        from domeng.results.metrics import tidy_estimates

        return tidy_estimates(self)

    def frames(self) -> dict[str, pd.DataFrame]:
        """Every DataFrame, by name (:data:`FRAME_NAMES`)."""
        return {name: getattr(self, name)() for name in FRAME_NAMES}

    # ------------------------------------------------------------ summary
    def summary(self) -> dict:
        """The study as one JSON-friendly dict (schema in ``docs/study.md``).

        Every estimated quantity is ``{"value", "se", "ci_low", "ci_high"}``
        (95%, by the rule for its kind, :mod:`domeng.results.stats`; ``se``
        and the bounds are null with a single table); a share's bounds lie
        within [0, 1]."""
        from domeng.results.metrics import metric_parts, nest

        out: dict = {
            "schema": SUMMARY_SCHEMA,
            "version": self.meta.get("version"),
            "tables": self.tables,
            "rounds": self.rounds,
            "total_rounds": self.total_rounds,
            "seed": self.seed,
            "groups": self.groups,
            "rules": dict(self.meta["rules"]),
            "players": self.players,
        }
        flat: dict = {}
        for p in metric_parts(self).values():
            if p.path == ("rounds_between_camats", "mean"):  # the count goes first
                flat[("rounds_between_camats", "camats")] = int(self.field("A_CAMAT").sum())
            flat[p.path] = estimate(*p.interval())
        out.update(nest(flat))
        if self.meta.get("stopping"):  # a study that stopped on the data: why, and the precision
            out["stopping"] = self.meta["stopping"]
        return out

    def to_json(self, indent: int | None = 2) -> str:
        """:meth:`summary` as JSON text (no NaN: missing values are null)."""
        return json.dumps(self.summary(), indent=indent, allow_nan=False)

    def to_text(self) -> str:
        """A readable summary table (what ``domeng simulate`` prints)."""
        from domeng.results.texttable import format_summary

        return format_summary(self.summary())

    # ------------------------------------------------------------ files
    def write_files(self, folder: str | os.PathLike) -> None:
        """Write ``summary.json``, ``results.npz`` and ``tables/NAME.{parquet,csv}``
        into an existing folder (each file atomically).  Prefer :meth:`save`."""
        folder = Path(folder)
        try:
            fs.clean_temporaries(folder, ("tables", "plots"))
            tables = fs.fixed_subfolder(folder, "tables")
            for name, df in self.frames().items():
                atomic_write(tables / f"{name}.parquet", partial(_to_parquet, df))
                atomic_write(tables / f"{name}.csv", df.to_csv(index=False))
            atomic_write(folder / "summary.json", self.to_json() + "\n")
            meta = dict(self.meta)
            meta["layout"] = _layout_meta()
            text = json.dumps(meta, default=_json_default)
            atomic_write(
                folder / "results.npz",
                lambda f: np.savez_compressed(
                    f,
                    group_agg=self.group_agg,
                    group_state=self.group_state,
                    group_tables=self.group_tables,
                    meta=np.array(text),
                ),
            )
        except DomengError:
            raise
        except OSError as e:
            raise ResultsWriteError(
                f"cannot write results to {str(e.filename or folder)!r}: {e.strerror or e}"
            ) from None

    def save(self, folder: str | os.PathLike, overwrite: bool = False) -> Path:
        """Save to ``folder`` (created), atomically: everything is written
        under a temporary name that is renamed at the end.  :meth:`load`
        reads it back.

        A folder that already holds results is refused unless ``overwrite``
        (the folder policy of :mod:`domeng.infra.fs`).  With ``overwrite``,
        into an existing results folder (e.g. a study folder of ``domeng
        simulate --out``, with its records, manifest, chunks, plots and
        report), only ``summary.json``, ``results.npz`` and ``tables/`` are
        replaced, each file atomically; every other file is kept.  A folder
        holding anything else is refused (:class:`ResultsError`), and so are
        results of another study than a study folder's ``manifest.json`` says.
        The folder is locked while it is written (:class:`~domeng.infra.fs.FolderLock`:
        a second writer is refused with one line, never mixed in)."""
        target = Path(folder)
        if target.is_dir() and (target / "results.npz").is_file():
            if not overwrite:
                fs.inspect_output(target, "results.npz")
                raise fs.refusal(target, "results", None)
            with fs.FolderLock(target):
                check_manifest(target, self.meta, saving=True)  # never another study's results
                self.write_files(target)
            return target
        with atomic_directory(folder) as tmp:
            self.write_files(tmp)
        return Path(folder)

    def _repr_html_(self) -> str:
        """The key figures as an HTML table (Jupyter shows it for a Results)."""
        from domeng.results.texttable import results_html

        return results_html(self)

    @classmethod
    def load(cls, folder: str | os.PathLike) -> Results:
        """Read results saved by :meth:`save` (from ``results.npz``).

        Raises :class:`ResultsError` for a missing, incomplete or corrupt folder."""
        folder = Path(folder)
        if not folder.is_dir():
            raise ResultsError(f"no results folder {str(folder)!r}")
        path = folder / "results.npz"
        if not path.is_file():
            raise ResultsError(f"{str(folder)!r} is not a domeng results folder (no results.npz)")
        agg, state, ntab, meta = read_results_file(path)
        check_loaded(folder, path, (agg, state, ntab), meta)
        try:
            res = cls(agg, state, ntab, meta)
            res.summary()  # everything a report reads must be computable
        except LOAD_ERRORS as e:
            raise ResultsError(
                f"corrupt results file {str(path)!r}: "
                f"{' '.join(str(e).split()) or type(e).__name__}"
            ) from None
        check_manifest(folder, meta)  # a results.npz copied in from another study is refused
        return res


def _to_parquet(df: pd.DataFrame, f: Any) -> None:
    """Write ``df`` to the open file ``f`` as Parquet (no index)."""
    df.to_parquet(f, index=False)
