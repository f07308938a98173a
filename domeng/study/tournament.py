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
(``mean +- 1.96 * sd / sqrt(deals)``): the pairing the design gives is the
deal.  Stones are penalties (term 13): a lower ``net_per_round`` (stones
received minus stones given, per round played) is better.  ``margins()``
compares two players deal by deal (a paired difference), which is far more
precise than comparing their intervals.
"""

from __future__ import annotations

import base64
import html
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from domeng.core import layout as L
from domeng.batch.tables import initial_states, kernel_players, run_tables
from domeng.core.errors import DomengError
from domeng.players.registry import resolve_players
from domeng.core.rng import MASK64, mix64, seat_state
from domeng.core.rules import Rules
from domeng.study.arrangements import seat_of, seatings

Z95 = 1.959963984540054
#: per-deal, per-player statistics (columns of TournamentResults.per_deal)
STATS = ("rounds", "received", "given", "net", "unpaid_owed", "wins", "wins_CAPPU", "wins_CEKI",
         "wins_POLLO", "wins_MANGUNO", "wins_MATTIKKENG", "camats", "passebunge")


def _player_seed(seed: int) -> int:
    return mix64((seed ^ 0x5DEECE66D2545F49) & MASK64)


def duplicate_states(seed: int, deal_start: int, n_deals: int, rotation: int,
                     rules: Rules, n_seatings: int = 5) -> np.ndarray:
    """Fresh table states of deals ``deal_start..`` for seating number
    ``rotation`` of a design of ``n_seatings``: the deal stream of deal ``d``
    is the same in every seating; the seats' player streams are the
    seating's own."""
    st = initial_states(seed, deal_start, n_deals, rules)
    pseed = _player_seed(seed)
    for i in range(n_deals):
        d = deal_start + i
        states = [seat_state(pseed, n_seatings * d + rotation, s) for s in range(5)]
        st[i, L.ST_SEAT_RNG:L.ST_SEAT_RNG + 5] = np.array(states, dtype=np.uint64).view(np.int64)
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
        cols = [agg[:, L.A_ROUNDS], received, given, received - given,
                unpaid[:, s, :].sum(axis=1), wins[:, s, :].sum(axis=1)]
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
        r = x.sum(0) / per.sum(0)
        d = self.deals
        if d < 2:
            return r, np.full_like(r, np.nan)
        resid = x - r * per
        se = np.sqrt((resid ** 2).sum(0) / (d * (d - 1))) / per.mean(0)
        return r, se

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
        rows: dict[str, Any] = {"player": self.players,
                                "position": list(range(self.per_deal.shape[1])),
                                "rounds": rounds.sum(0).astype(int)}
        for col, stat, scale in (("received", "received", 1), ("given", "given", 1),
                                 ("net", "net", 1), ("win_rate", "wins", 1),
                                 ("wins_cappu", "wins_CAPPU", 1), ("wins_ceki", "wins_CEKI", 1),
                                 ("wins_pollo", "wins_POLLO", 1),
                                 ("wins_manguno", "wins_MANGUNO", 1),
                                 ("wins_mattikkeng", "wins_MATTIKKENG", 1),
                                 ("passebunge", "passebunge", 1),
                                 ("camat_per_1000", "camats", 1000)):
            v, se = self._mean_ci(self._stat(stat) * scale, rounds)
            rows[col] = v
            rows[col + "_se"] = se
            rows[col + "_ci_low"] = v - Z95 * se
            rows[col + "_ci_high"] = v + Z95 * se
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
                diff = net[:, a] / rounds[:, a] - net[:, b] / rounds[:, b]
                m = float(diff.mean())
                se = float(diff.std(ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else math.nan
                rows.append({"a": self.players[a], "b": self.players[b], "net_diff": m,
                             "se": se, "ci_low": m - Z95 * se, "ci_high": m + Z95 * se,
                             "significant": bool(abs(m) > Z95 * se) if se == se else False})
        return pd.DataFrame(rows)

    def ranking(self) -> pd.DataFrame:
        """Players from the fewest net stones per round to the most."""
        return self.table().sort_values("net").reset_index(drop=True)

    def summary(self) -> dict[str, Any]:
        t = self.table()
        out = dict(self.meta)
        out["players_stats"] = []
        for _, r in t.iterrows():
            d = {"player": r["player"], "position": int(r["position"]), "rounds": int(r["rounds"])}
            for c in ("received", "given", "net", "win_rate", "wins_cappu", "wins_ceki",
                      "wins_pollo", "wins_manguno", "wins_mattikkeng", "passebunge",
                      "camat_per_1000"):
                d[c] = {"value": _f(r[c]), "se": _f(r[c + "_se"]),
                        "ci95": [_f(r[c + "_ci_low"]), _f(r[c + "_ci_high"])]}
            out["players_stats"].append(d)
        out["ranking"] = list(self.ranking()["player"])
        out["margins"] = [{k: (_f(v) if isinstance(v, float) else v) for k, v in row.items()}
                          for row in self.margins().to_dict("records")]
        return out

    def to_text(self) -> str:
        t = self.ranking()
        lines = [f"Duplicate tournament: {self.deals:,} deals x {self.meta['rounds']} rounds x "
                 f"{self.meta.get('seatings', 5)} seatings, seed {self.meta['seed']}, {self.meta['rules_text']}",
                 "stones per round (lower net is better), 95% CI:",
                 f"{'player':<16}{'net':>22}{'received':>10}{'given':>8}{'win rate':>10}"
                 f"{'CAMAT/1000':>12}"]
        for _, r in t.iterrows():
            net = f"{r['net']:+.4f} [{r['net_ci_low']:+.3f},{r['net_ci_high']:+.3f}]"
            lines.append(f"{r['player']:<16}{net:>22}{r['received']:>10.4f}{r['given']:>8.4f}"
                         f"{r['win_rate']:>10.4f}{r['camat_per_1000']:>12.2f}")
        return "\n".join(lines)

    def save(self, folder: str | Path) -> Path:
        """summary.json, players.csv/.parquet, margins.csv, per_deal.npz,
        plots and report.html, written atomically."""
        from domeng.results.results import atomic_directory
        folder = Path(folder)
        with atomic_directory(folder) as tmp:
            (tmp / "summary.json").write_text(json.dumps(self.summary(), indent=2))
            self.table().to_csv(tmp / "players.csv", index=False)
            self.table().to_parquet(tmp / "players.parquet", index=False)
            self.margins().to_csv(tmp / "margins.csv", index=False)
            np.savez_compressed(tmp / "per_deal.npz", per_deal=self.per_deal,
                                meta=json.dumps(self.meta))
            pngs = self.plots()
            (tmp / "plots").mkdir()
            for name, data in pngs.items():
                (tmp / "plots" / f"{name}.png").write_bytes(data)
            (tmp / "report.html").write_text(self.html(pngs))
        return folder

    @classmethod
    def load(cls, folder: str | Path) -> "TournamentResults":
        try:
            z = np.load(Path(folder) / "per_deal.npz")
            return cls(z["per_deal"], json.loads(str(z["meta"])))
        except (OSError, KeyError, ValueError) as e:
            raise DomengError(f"cannot read tournament results in {str(folder)!r}: {e}") from None

    def plots(self) -> dict[str, bytes]:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from domeng.results.report import _bars, _png
        t = self.table()
        labels = [f"{p}\n(#{i})" for i, p in enumerate(t["player"])]
        out = {}
        fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), layout="constrained")
        x = np.arange(5)
        axes[0].bar(x, t["net"], yerr=Z95 * t["net_se"].fillna(0), capsize=4,
                    color=["#2a7ab9" if v <= 0 else "#c0504d" for v in t["net"]])
        axes[0].axhline(0, color="#777777", lw=1)
        axes[0].set_xticks(x)
        axes[0].set_xticklabels(labels)
        axes[0].set_title("net stones per round (lower is better)")
        axes[0].grid(axis="y", alpha=0.3)
        _bars(axes[1], labels, t["win_rate"], t["win_rate_se"], ref=0.2)
        axes[1].set_title("round win rate")
        _bars(axes[2], labels, t["camat_per_1000"], t["camat_per_1000_se"], fmt="{:.1f}")
        axes[2].set_title("CAMAT per 1000 rounds")
        fig.suptitle(f"Duplicate tournament, {self.deals:,} deals x {self.meta['rounds']} rounds "
                     f"x {self.meta.get('seatings', 5)} seatings (95% CI)", fontsize=11)
        out["tournament"] = _png(fig)
        return out

    def html(self, pngs: dict[str, bytes] | None = None) -> str:
        pngs = self.plots() if pngs is None else pngs
        esc = html.escape
        parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
                 "<title>Domeng tournament</title><style>body{font-family:sans-serif;"
                 "max-width:1100px;margin:2em auto}table.df{border-collapse:collapse}"
                 "table.df td,table.df th{padding:2px 8px;border-bottom:1px solid #ddd}</style>"
                 "</head><body><h1>Domeng duplicate tournament</h1>",
                 f"<pre>{esc(self.to_text())}</pre>"]
        for name, data in pngs.items():
            parts.append(f"<img alt='{esc(name)}' src='data:image/png;base64,"
                         f"{base64.b64encode(data).decode()}'>")
        parts.append("<h2>Players</h2>" + self.table().to_html(index=False, classes="df",
                                                               float_format=lambda v: f"{v:.4f}"))
        parts.append("<h2>Paired margins of net stones per round</h2>" + self.margins().to_html(
            index=False, classes="df", float_format=lambda v: f"{v:.4f}"))
        parts.append("</body></html>")
        return "\n".join(parts)


def check_out(folder: str | Path) -> None:
    """Refuse an output folder :meth:`TournamentResults.save` could not use
    (a file, a folder holding other things, an unwritable place), before
    anything is played."""
    import os

    p = Path(folder)
    if p.exists() and not p.is_dir():
        raise DomengError(f"cannot write results to {str(p)!r}: it is a file")
    if p.is_dir() and any(p.iterdir()) and not (p / "per_deal.npz").exists():
        raise DomengError(f"refusing to write results to {str(p)!r}: the folder exists and holds "
                          "something other than tournament results")
    parent = p.parent if not p.exists() else p
    while not parent.exists():
        parent = parent.parent
    if not os.access(parent, os.W_OK | os.X_OK):
        raise DomengError(f"cannot write results to {str(p)!r}: permission denied")


def _f(v) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None


def tournament(
    players: Sequence[Any] | str,
    deals: int = 200,
    rounds: int = 10,
    seed: int = 0,
    rules: Rules | str | Sequence[str] | None = None,
    workers: int | None = None,
    chunk_deals: int | None = None,
    progress: bool | Callable[[int, int], None] | None = None,
    orders: str = "all",
) -> TournamentResults:
    """Play a duplicate tournament of five players (see the module docstring;
    ``orders``: the seating design, ``"all"``, ``"balanced"`` or ``"rotations"``)."""
    if isinstance(rules, Rules) or rules is None:
        rules = rules or Rules()
    else:
        rules = Rules.parse(rules)
    for name, v in (("deals", deals), ("rounds", rounds)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise DomengError(f"{name} must be a whole number >= 1, got {v!r}")
    specs = resolve_players(players)
    kernel_players(specs)  # compiled players only: a tournament runs on the batch engine
    names = [p.name for p in specs]
    if len(set(names)) != 5:
        # the same player twice is allowed; label by position
        names = [f"{n}#{i}" if names.count(n) > 1 else n for i, n in enumerate(names)]
    if chunk_deals is None:
        chunk_deals = max(1, min(deals, 200_000 // rounds))
    design = seatings(orders)
    report = _progress(progress)
    per_deal = np.zeros((deals, 5, len(STATS)), dtype=np.int64)
    total = deals * len(design)
    done = 0
    t0 = time.time()
    for start in range(0, deals, chunk_deals):
        n = min(chunk_deals, deals - start)
        for r, seating in enumerate(design):
            lineup = [specs[i] for i in seating]  # seat s: player seating[s]
            st = duplicate_states(seed, start, n, r, rules, len(design))
            out = run_tables(lineup, rules, seed, start, n, rounds, threads=workers, state=st)
            per_deal[start:start + n] += _per_player(out.agg, seat_of(seating))
            done += n
            if report:
                report(done, total)
    meta = {"kind": "tournament", "players": names, "deals": deals, "rounds": rounds,
            "seed": seed, "rules": rules.to_dict(), "rules_text": str(rules),
            "format": f"duplicate: each deal played once per seating ({orders}, "
                      f"{len(design)} seatings)",
            "orders": orders, "seatings": len(design),
            "elapsed_seconds": time.time() - t0}
    return TournamentResults(per_deal, meta)


def _progress(progress) -> Callable[[int, int], None] | None:
    if callable(progress):
        return progress
    if progress is None:
        progress = sys.stderr.isatty()
    if not progress:
        return None
    t0 = time.time()

    def bar(done: int, total: int) -> None:
        el = time.time() - t0
        rate = done / el if el > 0 else 0.0
        eta = (total - done) / rate if rate > 0 else 0.0
        frac = done / total
        sys.stderr.write(f"\r[{'#' * int(30 * frac):<30}] {100 * frac:5.1f}%  "
                         f"{rate:,.1f} games/s  ETA {eta:,.0f}s ")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()
    return bar
