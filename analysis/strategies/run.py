"""Study 2: which built-in strategy collects the fewest stones and wins the
most CAMATs against four random players.

Reproduce with ``.venv/bin/python analysis/strategies/run.py`` (about two
minutes on 2 cores, most of it the search player; ``--no-search`` skips it);
everything goes to ``analysis/strategies/output/``.

For each strategy X in random (the control), heavy, keeper, hunter and
search-50 (the Monte Carlo search player with 50 samples per decision):

A. ``domeng.simulate`` with X at seat 0 and random at seats 1..4.  Per seat:
   stones received, given and net (received - given) per round, round win
   rate, CAMAT designations per 1000 rounds, passes and PASSEBUNGE per round.
   X is compared with the mean of the four random seats *of the same
   tables* (a paired difference); the SE is across the 1000 groups of tables.

B. ``domeng.study.tournament`` (duplicate format) with the lineup X, random x 4:
   every deal is played five times, X sitting once in each seat, so the luck
   of the deal cancels.  X is compared with the mean of the four random
   players deal by deal; the SE is across deals.  In this format every player
   keeps the same neighbours in all five rotations (random#1 always sits right
   after X, random#4 right before it), so neighbour effects are *not*
   cancelled: what X does to the seat after it stays in the comparison.

Stones are penalty tokens (term 13): a player wants to *receive* few, and
stones it *gives* are penalties it passes on to others (paid when the table
is empty, D7).  The number that measures a strategy is the net, received -
given, per round: lower is better.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import itertools

import numpy as np
import pandas as pd
from _common import (
    Z95,
    Timer,
    add_ci,
    environment,
    est,
    fmt_ci,
    out_dir,
    ratio_se,
    save_fig,
    setup_matplotlib,
    write_csv,
    write_json,
    write_timings,
)

import domeng
from domeng.study.tournament import tournament

SEED = 20240602
BUILTINS = ("random", "heavy", "keeper", "hunter")
SEARCH = "search-50"
# sizes: (tables, rounds) for simulate, (deals, rounds) for the tournament
SIZES = {
    "builtin": {"sim": (2000, 500), "tour": (2000, 100)},
    "search": {"sim": (300, 150), "tour": (200, 50)},
}
METRICS = (
    "received",
    "given",
    "net",
    "win_rate",
    "camat_per_1000",
    "passes",
    "passebunge",
    "unpaid_owed",
)
COLORS = {
    "random": "#888888",
    "heavy": "#c0504d",
    "keeper": "#2a7ab9",
    "hunter": "#4f9a4f",
    SEARCH: "#e39b2d",
}


def per_seat_arrays(r: domeng.Results) -> dict[str, np.ndarray]:
    """[G, 5] per-seat sums of each metric (before dividing by rounds)."""
    flow = r.field("A_FLOW").astype(float)
    received = flow.sum(axis=(1, 3))
    given = flow[:, 1:, :, :].sum(axis=(2, 3))
    return {
        "received": received,
        "given": given,
        "net": received - given,
        "win_rate": r.field("A_WINS").sum(axis=2).astype(float),
        "camat_per_1000": 1000.0 * r.field("A_CAMAT").astype(float),
        "passes": r.field("A_PASSES").astype(float),
        "passebunge": r.field("A_PASSEBUNGE").astype(float),
        "unpaid_owed": r.field("A_UNPAID").sum(axis=2).astype(float),
    }


def simulate_one(x: str, timer: Timer):
    kind = "search" if x.startswith("search") else "builtin"
    tables, rounds = SIZES[kind]["sim"]
    t0 = time.perf_counter()
    r = domeng.simulate(
        tables=tables, rounds=rounds, players=[x] + ["random"] * 4, seed=SEED, progress=False
    )
    elapsed = time.perf_counter() - t0
    timer.mark(f"simulate {x} vs 4 random ({tables} x {rounds})")
    arr = per_seat_arrays(r)
    n = r.field("A_ROUNDS").astype(float)
    cmp = {
        "strategy": x,
        "format": "simulate (X at seat 0)",
        "units": r.groups,
        "unit": "groups of tables",
        "rounds": int(n.sum()),
        "seconds": round(elapsed, 1),
    }
    seat_rows = [
        {
            "strategy": x,
            "seat": s,
            "player": r.players[s],
            "position": ["X", "next seat (X+1)", "X+2", "X+3", "seat before X (X-1)"][s],
        }
        for s in range(5)
    ]
    compare_x_with_random(arr, n, seat_rows, cmp)
    return cmp, seat_rows


def compare_x_with_random(arr: dict, n, rows: list, cmp: dict) -> None:
    """For each metric ``m`` in ``arr`` (units x 5 positions, position 0 = X):
    the per-position rates into ``rows``, and X, the mean random seat and
    their difference (paired by unit), each with its SE, into ``cmp``."""
    for m, a in arr.items():
        v, se = ratio_se(a, n)
        for i in range(5):
            rows[i][m] = v[i]
            rows[i][m + "_se"] = se[i]
        rnd = a[:, 1:].mean(axis=1)
        vx, sex = ratio_se(a[:, 0], n)
        vr, ser = ratio_se(rnd, n)
        vd, sed = ratio_se(a[:, 0] - rnd, n)
        cmp.update(
            {
                f"{m}_X": vx,
                f"{m}_X_se": sex,
                f"{m}_random": vr,
                f"{m}_random_se": ser,
                f"{m}_diff": vd,
                f"{m}_diff_se": sed,
            }
        )


def tournament_one(x: str, timer: Timer):
    kind = "search" if x.startswith("search") else "builtin"
    deals, rounds = SIZES[kind]["tour"]
    t0 = time.perf_counter()
    tr = tournament([x] + ["random"] * 4, deals=deals, rounds=rounds, seed=SEED, progress=False)
    elapsed = time.perf_counter() - t0
    timer.mark(f"tournament {x} vs 4 random ({deals} deals x {rounds} rounds x 5)")
    pd_ = tr.per_deal.astype(float)  # [deals, 5 players, STATS]
    from domeng.study.tournament import STATS

    def stat(name):
        return pd_[:, :, STATS.index(name)]

    n = stat("rounds")[:, 0]  # rounds per deal, the same for every player
    arr = {
        "received": stat("received"),
        "given": stat("given"),
        "net": stat("net"),
        "win_rate": stat("wins"),
        "camat_per_1000": 1000 * stat("camats"),
        "passebunge": stat("passebunge"),
        "unpaid_owed": stat("unpaid_owed"),
    }
    cmp = {
        "strategy": x,
        "format": "duplicate tournament",
        "units": deals,
        "unit": "deals",
        "rounds": int(stat("rounds").sum()),
        "seconds": round(elapsed, 1),
    }
    names = tr.players
    player_rows = [
        {
            "strategy": x,
            "player": names[i],
            "position": ["X", "always right after X", "X+2", "X+3", "always right before X"][i],
        }
        for i in range(5)
    ]
    compare_x_with_random(arr, n, player_rows, cmp)
    # the package's own paired margins, X against each random player
    marg = tr.margins()
    marg = marg[marg.a == names[0]].copy()
    marg.insert(0, "strategy", x)
    return cmp, player_rows, marg


# ---------------------------------------------------------------- plots
def plot_main(cmp: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6), layout="constrained")
    strategies = list(dict.fromkeys(cmp["strategy"]))
    formats = ["simulate (X at seat 0)", "duplicate tournament"]
    x = np.arange(len(strategies))
    w = 0.38
    panels = [
        ("net_diff", "X - mean of the random seats:\nnet stones per round (lower is better)", 1.0),
        (
            "camat_per_1000_diff",
            "X - mean of the random seats:\nCAMAT designations per 1000 rounds",
            1.0,
        ),
        ("win_rate_diff", "X - mean of the random seats:\nround win rate", 1.0),
    ]
    for ax, (col, title, scale) in zip(axes, panels):
        for j, f in enumerate(formats):
            g = cmp[cmp.format == f].set_index("strategy").reindex(strategies)
            v = g[col].to_numpy() * scale
            se = g[col + "_se"].to_numpy() * scale
            ax.bar(
                x + (j - 0.5) * w,
                v,
                w,
                yerr=Z95 * se,
                capsize=3,
                color=[COLORS[s] for s in strategies],
                alpha=1.0 if j == 0 else 0.55,
                hatch=None if j == 0 else "//",
                edgecolor="black",
                linewidth=0.4,
                label=f,
            )
        ax.axhline(0, color="#555555", lw=1)
        ax.set_xticks(x)
        ax.set_xticklabels(strategies)
        ax.set_title(title)
        ax.legend(fontsize=8, title="format (95% CI)", title_fontsize=8)
    fig.suptitle(
        "One strategy against four random players: paired differences with the random seats",
        fontsize=12,
    )
    save_fig(fig, out / "strategies_vs_random.png")


def plot_flows(cmp: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    g = cmp[cmp.format == "simulate (X at seat 0)"]
    strategies = list(g["strategy"])
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.4), layout="constrained")
    x = np.arange(len(strategies))
    w = 0.2
    spec = [
        ("received_X", "X: received", 1.0, None),
        ("received_random", "random seats: received", 0.45, None),
        ("given_X", "X: given", 1.0, "//"),
        ("given_random", "random seats: given", 0.45, "//"),
    ]
    for k, (col, label, alpha, hatch) in enumerate(spec):
        axes[0].bar(
            x + (k - 1.5) * w,
            g[col],
            w,
            yerr=Z95 * g[col + "_se"],
            capsize=2,
            color=[COLORS[s] for s in strategies],
            alpha=alpha,
            hatch=hatch,
            edgecolor="black",
            linewidth=0.4,
            label=label,
        )
    axes[0].set_xticks(x)
    axes[0].set_xticklabels(strategies)
    axes[0].set_ylabel("stones per round (95% CI)")
    axes[0].set_title(
        "Stones received and given per round (simulate, X at seat 0)\n"
        "bars in each group: X received, random received, X given, random given"
    )
    axes[0].set_ylim(0, max(g["received_X"].max(), g["received_random"].max()) * 1.18)
    for k, (col, lab) in enumerate(
        (("camat_per_1000_X", "X"), ("camat_per_1000_random", "mean random seat"))
    ):
        axes[1].bar(
            x + (k - 0.5) * 0.38,
            g[col],
            0.38,
            yerr=Z95 * g[col + "_se"],
            capsize=3,
            color=[COLORS[s] for s in strategies],
            alpha=1.0 if k == 0 else 0.45,
            edgecolor="black",
            linewidth=0.4,
            label=lab,
        )
    axes[1].set_xticks(x)
    axes[1].set_xticklabels(strategies)
    axes[1].set_ylabel("per 1000 rounds (95% CI)")
    axes[1].set_title(
        "CAMAT designations per 1000 rounds, per seat (simulate)\n"
        "left bar: X; right bar: mean of its four random opponents"
    )
    save_fig(fig, out / "received_given_camat.png")


def plot_neighbours(seats: pd.DataFrame, players: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.4), layout="constrained")
    strategies = list(dict.fromkeys(seats["strategy"]))
    labels = ["X", "X+1\n(next)", "X+2", "X+3", "X-1\n(CUCUQ of X)"]
    w = 0.8 / len(strategies)
    for i, s in enumerate(strategies):
        g = seats[seats.strategy == s].sort_values("seat")
        axes[0].bar(
            np.arange(5) + (i - (len(strategies) - 1) / 2) * w,
            g["net"],
            w,
            yerr=Z95 * g["net_se"],
            capsize=2,
            color=COLORS[s],
            label=s,
        )
        h = players[players.strategy == s]
        axes[1].bar(
            np.arange(5) + (i - (len(strategies) - 1) / 2) * w,
            h["net"],
            w,
            yerr=Z95 * h["net_se"],
            capsize=2,
            color=COLORS[s],
            label=s,
        )
    axes[0].set_title("simulate: net stones per round of each seat,\nrelative to the seat of X")
    axes[1].set_title(
        "duplicate tournament: net stones per round of each player\n"
        "(random#1 always sits right after X, random#4 right before)"
    )
    for ax in axes:
        ax.set_xticks(range(5))
        ax.set_xticklabels(labels)
        ax.set_ylabel("net stones per round (95% CI)")
        ax.legend(fontsize=8, title="X =", title_fontsize=8, ncols=2)
        ax.set_ylim(0, None)
    save_fig(fig, out / "neighbour_effect.png")


# ---------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-search", action="store_true", help="skip the search player (fast)")
    args = ap.parse_args()
    timer = Timer()
    out = out_dir(__file__)
    strategies = list(BUILTINS) + ([] if args.no_search else [SEARCH])
    cmp_rows, seat_rows, player_rows, margins = [], [], [], []
    for x in strategies:
        c, srows = simulate_one(x, timer)
        cmp_rows.append(c)
        seat_rows += srows
        c, prows, marg = tournament_one(x, timer)
        cmp_rows.append(c)
        player_rows += prows
        margins.append(marg)
    for r in cmp_rows:  # timings are not results: they go to timings.json (untracked)
        timer.marks[f"{r['strategy']} / {r['format']}"] = r.pop("seconds")
    cmp = pd.DataFrame(cmp_rows)
    for m in METRICS:
        for suffix in ("X", "random", "diff"):
            col = f"{m}_{suffix}"
            if col in cmp:
                add_ci(cmp, col)
    seats = pd.DataFrame(seat_rows)
    players = pd.DataFrame(player_rows)
    for df in (seats, players):
        for m in METRICS:
            if m in df:
                add_ci(df, m)
    margins = pd.concat(margins, ignore_index=True)

    # ranking: by the tournament's paired net difference (lower is better),
    # and by CAMATs (higher is better)
    t = cmp[cmp.format == "duplicate tournament"].set_index("strategy")
    s = cmp[cmp.format == "simulate (X at seat 0)"].set_index("strategy")
    rank = pd.DataFrame(
        {
            "strategy": strategies,
            "net_diff_tournament": [t.loc[x, "net_diff"] for x in strategies],
            "net_diff_tournament_se": [t.loc[x, "net_diff_se"] for x in strategies],
            "net_diff_simulate": [s.loc[x, "net_diff"] for x in strategies],
            "net_diff_simulate_se": [s.loc[x, "net_diff_se"] for x in strategies],
            "camat_per_1000_simulate": [s.loc[x, "camat_per_1000_X"] for x in strategies],
            "camat_per_1000_simulate_se": [s.loc[x, "camat_per_1000_X_se"] for x in strategies],
            "camat_per_1000_tournament": [t.loc[x, "camat_per_1000_X"] for x in strategies],
            "camat_per_1000_tournament_se": [t.loc[x, "camat_per_1000_X_se"] for x in strategies],
            "given_simulate": [s.loc[x, "given_X"] for x in strategies],
            "received_simulate": [s.loc[x, "received_X"] for x in strategies],
        }
    )
    rank["rank_by_net"] = rank["net_diff_tournament"].rank().astype(int)
    rank["rank_by_camat"] = rank["camat_per_1000_simulate"].rank(ascending=False).astype(int)
    rank = rank.sort_values("rank_by_net").reset_index(drop=True)
    for c in (
        "net_diff_tournament",
        "net_diff_simulate",
        "camat_per_1000_simulate",
        "camat_per_1000_tournament",
    ):
        add_ci(rank, c)

    # neighbouring strategies in the ranking: independent studies, so the SE
    # of a difference is sqrt(se1^2 + se2^2)
    pairs = []
    for fmt, g in cmp.groupby("format", sort=False):
        g = g.set_index("strategy")
        order = list(rank["strategy"])
        for a, b in itertools.pairwise(order):
            for m in ("net", "camat_per_1000", "win_rate"):
                d = g.loc[a, f"{m}_diff"] - g.loc[b, f"{m}_diff"]
                se = float(np.hypot(g.loc[a, f"{m}_diff_se"], g.loc[b, f"{m}_diff_se"]))
                pairs.append(
                    {
                        "format": fmt,
                        "a": a,
                        "b": b,
                        "metric": m,
                        "a_minus_b": d,
                        "se": se,
                        "z": d / se,
                    }
                )
    pairs = add_ci(pd.DataFrame(pairs), "a_minus_b", "se")

    write_csv(cmp, out / "strategy_vs_random.csv")
    write_csv(pairs, out / "ranking_neighbours.csv")
    write_csv(seats, out / "simulate_by_seat.csv")
    write_csv(players, out / "tournament_by_player.csv")
    write_csv(margins, out / "tournament_margins.csv")
    write_csv(rank, out / "ranking.csv")
    plot_main(cmp, out)
    plot_flows(cmp, out)
    plot_neighbours(seats, players, out)
    timer.mark("tables and plots")

    def block(row):
        return {
            m: {
                "X": est(row[f"{m}_X"], row[f"{m}_X_se"]),
                "random_mean": est(row[f"{m}_random"], row[f"{m}_random_se"]),
                "X_minus_random": est(row[f"{m}_diff"], row[f"{m}_diff_se"]),
            }
            for m in METRICS
            if f"{m}_X" in row
        }

    results = {
        "study": "strategies",
        "seed": SEED,
        "strategies": strategies,
        "sizes": {
            x: {
                "simulate": {
                    "tables": SIZES["search" if x.startswith("search") else "builtin"]["sim"][0],
                    "rounds": SIZES["search" if x.startswith("search") else "builtin"]["sim"][1],
                },
                "tournament": {
                    "deals": SIZES["search" if x.startswith("search") else "builtin"]["tour"][0],
                    "rounds": SIZES["search" if x.startswith("search") else "builtin"]["tour"][1],
                    "rotations": 5,
                },
            }
            for x in strategies
        },
        "ci_method": "normal 95% CI, value +- 1.96 SE; simulate: paired X - mean(random seats) "
        "ratio estimator, SE across the 1000 groups of tables; tournament: paired "
        "per deal, SE across deals",
        "simulate": {
            r["strategy"]: block(r)
            for r in cmp[cmp.format.str.startswith("simulate")].to_dict("records")
        },
        "tournament": {
            r["strategy"]: block(r)
            for r in cmp[cmp.format == "duplicate tournament"].to_dict("records")
        },
        "ranking_by_net_stones": list(rank["strategy"]),
        "ranking_by_camat": list(rank.sort_values("rank_by_camat")["strategy"]),
        "ranking_neighbours": [
            {k: (v if isinstance(v, str) else float(v)) for k, v in r.items()}
            for r in pairs.to_dict("records")
        ],
        "neighbour_net_simulate": {
            x: {
                pos: est(r.net, r.net_se)
                for pos, r in zip(
                    ["X", "X+1", "X+2", "X+3", "X-1"], seats[seats.strategy == x].itertuples()
                )
            }
            for x in strategies
        },
        "environment": environment(),
    }
    write_json(results, out / "results.json")
    write_timings(timer, out)

    print("ranking (tournament net stones per round, X - random, lower is better):")
    for r in rank.itertuples():
        print(
            f"  {r.strategy:<10} net diff {fmt_ci(r.net_diff_tournament, r.net_diff_tournament_se)}"
            f"  (simulate {fmt_ci(r.net_diff_simulate, r.net_diff_simulate_se)})"
            f"  CAMAT/1000 {fmt_ci(r.camat_per_1000_simulate, r.camat_per_1000_simulate_se, 1)}"
        )
    print(f"total {timer.total():.1f} s; outputs in {out}")


if __name__ == "__main__":
    main()
