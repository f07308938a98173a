"""How the award sizes change PASSEBUNGE, the stone flows and the CAMAT rate.

Question: the rule card fixes the CEKI award at 3 stones, the POLLO award at
5 and a MATTIKKENG block's award at 5.  How much do PASSEBUNGE, the stones
moved per round (from the table and between players, paid or unpaid) and the
CAMAT rate depend on those sizes?

Method: one ``domeng.sweep`` per award, each played with the same seed on the
same tables at every grid point (paired differences from the card's value),
mixed lineup random,heavy,keeper,hunter,random, 1000 tables x 500 rounds per
point (500,000 rounds; 15 points, under a minute of CPU).  Everything else
(the estimates, SEs, Wilson intervals, paired differences) comes from
``domeng.sweep``; this script asks the question and draws the plots.

Reproduce: ``.venv/bin/python analysis/award_sizes/run.py``; outputs in
``analysis/award_sizes/output/`` (timings in ``timings.json``, not tracked).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd
from _common import (
    Timer,
    environment,
    out_dir,
    save_fig,
    setup_matplotlib,
    write_csv,
    write_json,
    write_timings,
)

import domeng

SEED = 20241112
TABLES, ROUNDS = 1000, 500
PLAYERS = "random,heavy,keeper,hunter,random"
#: each award, its values (the card's value first: the reference of the differences)
GRID = {
    "ceki_award": [3, 1, 2, 4, 5],
    "pollo_award": [5, 3, 4, 6, 7],
    "mattikkeng_award": [5, 3, 4, 6, 7],
}
METRICS = {
    "passebunge_per_round": "PASSEBUNGE per round",
    "stones_per_round.total": "stones moved per round",
    "stones_per_round.from_table": "stones from the table per round",
    "stones_per_round.from_players": "stones between players per round",
    "stones_per_round.unpaid.total": "stones owed but unpaid (D7) per round",
    "camat_per_1000_rounds.total": "CAMAT per 1000 rounds",
}


def plot(df: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    fig, axes = plt.subplots(2, 3, figsize=(13, 7), layout="constrained")
    colors = {"ceki_award": "#2a7ab9", "pollo_award": "#d9822b", "mattikkeng_award": "#4f9a4f"}
    for ax, (metric, label) in zip(axes.flat, METRICS.items()):
        for award in GRID:
            g = df[(df.award == award) & (df.metric == metric)].sort_values("size")
            ax.errorbar(
                g["size"],
                g["value"],
                yerr=[g["value"] - g.ci_low, g.ci_high - g["value"]],
                marker="o",
                capsize=3,
                color=colors[award],
                label=award,
            )
        ax.set_xlabel("award size (stones)")
        ax.set_ylabel(label)
        ax.set_xticks(range(1, 8))
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(
        handles,
        labels,
        loc="outside lower center",
        ncols=3,
        fontsize=9,
        title="award varied (the others at the card's value)",
        title_fontsize=9,
    )
    fig.suptitle(
        f"Award sizes, mixed lineup, {TABLES} tables x {ROUNDS} rounds per point "
        "(95% CI; the same tables at every point)",
        fontsize=11,
    )
    save_fig(fig, out / "award_sizes.png")


def plot_changes(df: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), layout="constrained", sharey=True)
    for ax, award in zip(axes, GRID):
        g = df[(df.award == award) & (df.metric == "stones_per_round.from_table")]
        h = df[(df.award == award) & (df.metric == "stones_per_round.from_players")]
        for gg, lab, c in ((g, "from the table", "#2a7ab9"), (h, "between players", "#c0504d")):
            gg = gg.sort_values("size")
            ax.errorbar(
                gg["size"],
                gg["diff"],
                yerr=[gg["diff"] - gg.diff_ci_low, gg.diff_ci_high - gg["diff"]],
                marker="o",
                capsize=3,
                color=c,
                label=lab,
            )
        ax.axhline(0, color="#777777", lw=1)
        ax.set_xlabel(f"{award} (stones)")
        ax.set_title(f"{award}: paired change vs the card's {GRID[award][0]}", fontsize=10)
    axes[0].set_ylabel("change in stones per round (95% CI, paired)")
    axes[0].legend(fontsize=8)
    save_fig(fig, out / "flow_changes.png")


def main() -> None:
    timer = Timer()
    out = out_dir(__file__)
    frames, ratios = [], {}
    for award, values in GRID.items():
        sw = domeng.sweep(
            {award: values},
            tables=TABLES,
            rounds=ROUNDS,
            players=PLAYERS,
            seed=SEED,
            progress=False,
        )
        timer.mark(f"{award}: {len(values)} points")
        f = sw.frame().rename(columns={award: "size"})
        f.insert(0, "award", award)
        frames.append(f)
        ratios[award] = sw.comparison.se_ratio()
    df = pd.concat(frames, ignore_index=True)
    write_csv(df, out / "sweep.csv")
    key = df[df.metric.isin(METRICS)]
    write_csv(key, out / "key_metrics.csv")
    plot(key, out)
    plot_changes(key, out)

    results = {
        "study": "award_sizes",
        "seed": SEED,
        "tables": TABLES,
        "rounds": ROUNDS,
        "players": PLAYERS,
        "grid": GRID,
        "median_paired_over_unpaired_se": ratios,
        "key": {
            award: {
                metric: [
                    {
                        "size": int(r.size),
                        "value": r.value,
                        "ci": [r.ci_low, r.ci_high],
                        "diff": r.diff,
                        "diff_ci": [r.diff_ci_low, r.diff_ci_high],
                    }
                    for r in key[(key.award == award) & (key.metric == metric)]
                    .sort_values("size")
                    .itertuples()
                ]
                for metric in METRICS
            }
            for award in GRID
        },
        "environment": environment(),
    }
    write_json(results, out / "results.json")
    write_timings(timer, out)
    for award in GRID:
        print(award)
        g = key[key.award == award]
        for metric in (
            "passebunge_per_round",
            "stones_per_round.total",
            "camat_per_1000_rounds.total",
        ):
            row = g[g.metric == metric].sort_values("size")
            print(
                f"  {metric:<32}"
                + "  ".join(f"{int(s)}: {v:.3f}" for s, v in zip(row["size"], row["value"]))
            )
    print(f"total {timer.total():.1f} s; outputs in {out}")


if __name__ == "__main__":
    main()
