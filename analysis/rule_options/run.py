"""Study 3: how each rule option changes PASSEBUNGE frequency and the stone flows.

Reproduce with ``.venv/bin/python analysis/rule_options/run.py`` (about half
a minute on 2 cores); everything goes to ``analysis/rule_options/output/``.

Each variant is played against the default rules (docs/rules.md) by
``domeng.compare`` (the same seed and tables in every arm; paired differences
with their SE across groups of tables); this script only asks the question and
draws the plots.  Variants:

* ``opener_leads_double=false``  (D3: the first round's opener may lead any tile)
* ``passebunge_every_pass=false`` (D6: only a seat's first pass before its first tile is a PASSEBUNGE)
* ``penalize_manguno_pass=true``  (D11: the MANGUNO's closing pass is a PASS paid from the table)
* ``pollo=4``                     (a POLLO earns the CUCUQ up to 4 stones instead of 5)

Two designs, each for two lineups (all-random; the mixed lineup
random,heavy,keeper,hunter,random), every variant with the *same seed* as the
default, so table ``t`` gets the same first deal:

A. Whole games: 2000 tables x 500 rounds.  A table's two arms play the same
   deals and moves until an option changes who starts a round (through the
   CAMAT, D4, D15; or the first lead, D3), then diverge; the comparisons are
   made group by group (1000 groups of 2 tables, the same tables in both
   arms), which still roughly halves the SE of a difference.
B. First rounds only: 200,000 tables x 1 round.  With random players the
   deal and every move are then identical in both arms unless the option
   changes the legal moves (only ``opener_leads_double`` does), so the paired
   difference isolates the option's bookkeeping effect exactly.

Every difference is variant - default, from ``domeng.compare``: a ratio
estimator per group with its SE across the 1000 groups (95% CI = +- 1.96 SE).
Timings go to ``output/timings.json`` (not tracked).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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
    save_fig,
    setup_matplotlib,
    write_csv,
    write_json,
    write_timings,
)

import domeng
from domeng.core import layout as L

SEED = 20240603
BASELINE = "default"
VARIANTS = [
    "opener_leads_double=false",
    "passebunge_every_pass=false",
    "penalize_manguno_pass=true",
    "pollo=4",
]
LINEUPS = {"all-random": "random", "mixed": "random,heavy,keeper,hunter,random"}
DESIGNS = {"whole game": (2000, 500), "first round": (200_000, 1)}
REASONS = list(L.REASON_NAMES)
KINDS = list(L.KIND_NAMES)
#: this study's short metric names -> the summary's (domeng compare) names
METRICS = {
    "passes_per_round": "passes_per_round",
    "passebunge_per_round": "passebunge_per_round",
    "passebunge_round_share": "passebunge_round_share",
    "pass_round_share": "pass_round_share",
    "tiles_per_round": "tiles_per_round",
    "stones_per_round": "stones_per_round.total",
    "stones_from_table": "stones_per_round.from_table",
    "stones_from_players": "stones_per_round.from_players",
    "unpaid_per_round": "stones_per_round.unpaid.total",
    "camat_per_1000_rounds": "camat_per_1000_rounds.total",
    "starter_win_rate": "win_rate_by_starter_offset.0",
    **{f"stones_{r}": f"stones_per_round.by_reason.{r}" for r in REASONS},
    **{f"end_{k}": f"end_kind.{k}" for k in KINDS},
}


def compare(cmp: domeng.Comparison, design: str, lineup: str) -> pd.DataFrame:
    """``domeng.compare``'s paired differences, one row per variant (the
    baseline included, with a zero difference) and metric of :data:`METRICS`."""
    d = cmp.differences()
    v = cmp.values().set_index(["arm", "metric"])
    short = {full: name for name, full in METRICS.items()}
    d = d[d.metric.isin(short)]
    base = d[d.variant == d.variant.iloc[0]].assign(
        variant="baseline",
        variant_value=lambda x: x.baseline,
        value=0.0,
        se=0.0,
        ci_low=0.0,
        ci_high=0.0,
    )
    d = pd.concat([base, d], ignore_index=True)
    arm = d.variant
    d["variant"] = d.variant.map({"baseline": BASELINE, **dict(zip(cmp.variants, VARIANTS))})
    out = pd.DataFrame(
        {
            "design": design,
            "lineup": lineup,
            "variant": d.variant,
            "metric": d.metric.map(short),
            "value": d.variant_value,
            "value_se": [v.loc[(a, m), "se"] for a, m in zip(arm, d.metric)],
            "default": d.baseline,
            "diff": d.value,
            "diff_se": d.se,
            "diff_se_unpaired": d.se_unpaired,
        }
    )
    out["rel_change"] = out["diff"] / out["default"].where(out["default"] != 0)
    add_ci(out, "value")
    add_ci(out, "diff")
    return out


def direction_table(runs: dict, design: str, lineup: str) -> pd.DataFrame:
    """Stones per round by source -> destination direction and reason."""
    rows = []
    for vname, r in runs.items():
        flow = r.totals("A_FLOW").astype(float) / r.total_rounds  # [6, 5, 7]
        for k, reason in enumerate(REASONS):
            rows.append(
                {
                    "design": design,
                    "lineup": lineup,
                    "variant": vname,
                    "reason": reason,
                    "from_table": flow[0, :, k].sum(),
                    **{
                        f"to_seat+{d}": sum(flow[1 + s, (s + d) % 5, k] for s in range(5))
                        for d in range(1, 5)
                    },
                }
            )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- plots
VCOL = {
    "default": "#555555",
    "opener_leads_double=false": "#8e6bb8",
    "passebunge_every_pass=false": "#2a7ab9",
    "penalize_manguno_pass=true": "#4f9a4f",
    "pollo=4": "#e39b2d",
}
VSHORT = {
    "default": "default",
    "opener_leads_double=false": "opener_leads\n_double=false",
    "passebunge_every_pass=false": "passebunge_every\n_pass=false",
    "penalize_manguno_pass=true": "penalize_manguno\n_pass=true",
    "pollo=4": "pollo=4",
}


def plot_passebunge(cmp: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    fig, axes = plt.subplots(2, 2, figsize=(13, 8), layout="constrained")
    variants = [BASELINE] + VARIANTS
    x = np.arange(len(variants))
    for i, design in enumerate(DESIGNS):
        for j, (metric, title) in enumerate(
            (
                ("passebunge_per_round", "PASSEBUNGE events per round"),
                ("passebunge_round_share", "share of rounds with at least one PASSEBUNGE"),
            )
        ):
            ax = axes[i, j]
            w = 0.38
            for k, lineup in enumerate(LINEUPS):
                g = cmp[(cmp.design == design) & (cmp.lineup == lineup) & (cmp.metric == metric)]
                g = g.set_index("variant").reindex(variants)
                ax.bar(
                    x + (k - 0.5) * w,
                    g["value"],
                    w,
                    yerr=Z95 * g["value_se"],
                    capsize=2,
                    color=[VCOL[v] for v in variants],
                    alpha=1.0 if k == 0 else 0.5,
                    hatch=None if k == 0 else "//",
                    edgecolor="black",
                    linewidth=0.4,
                    label=lineup,
                )
                for xi, (v, d, _sd) in enumerate(zip(g["value"], g["diff"], g["diff_se"])):
                    if variants[xi] != "default":
                        ax.annotate(
                            f"{d:+.3f}" if abs(d) >= 0.0005 else "0",
                            (xi + (k - 0.5) * w, v),
                            xytext=(0, 3),
                            textcoords="offset points",
                            ha="center",
                            fontsize=7,
                            rotation=90 if False else 0,
                        )
            ax.set_xticks(x)
            ax.set_xticklabels([VSHORT[v] for v in variants], fontsize=8)
            ax.set_title(
                f"{design} ({DESIGNS[design][0]:,} tables x {DESIGNS[design][1]} "
                f"round{'s' if DESIGNS[design][1] > 1 else ''}): {title}",
                fontsize=10,
            )
            ax.set_ylabel("95% CI; labels: paired change vs default")
            ax.legend(
                fontsize=8, loc="lower left", title="lineup (hatched: mixed)", title_fontsize=8
            )
            top = g["value"].max()
            ax.set_ylim(0, top * 1.2 if np.isfinite(top) else None)
    save_fig(fig, out / "passebunge.png")


def plot_flows(cmp: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    fig, axes = plt.subplots(1, 2, figsize=(14, 5), layout="constrained")
    metrics = [f"stones_{r}" for r in REASONS] + [
        "stones_from_table",
        "stones_from_players",
        "unpaid_per_round",
        "stones_per_round",
    ]
    labels = REASONS + ["from table", "from players", "unpaid", "TOTAL"]
    variants = VARIANTS
    w = 0.8 / len(variants)
    for ax, design in zip(axes, DESIGNS):
        g = cmp[(cmp.design == design) & (cmp.lineup == "all-random")]
        for k, v in enumerate(variants):
            h = g[g.variant == v].set_index("metric").reindex(metrics)
            ax.barh(
                np.arange(len(metrics)) + (k - (len(variants) - 1) / 2) * w,
                h["diff"],
                w,
                xerr=Z95 * h["diff_se"],
                capsize=1.5,
                color=VCOL[v],
                label=v,
            )
        ax.axvline(0, color="#555555", lw=1)
        ax.set_yticks(range(len(metrics)))
        ax.set_yticklabels(labels)
        ax.invert_yaxis()
        ax.set_xlabel("change in stones per round vs default (95% CI, paired)")
        ax.set_title(
            f"All-random, {design}: stone flows by reason\n"
            f"(default total {g[(g.variant == 'default') & (g.metric == 'stones_per_round')]['value'].iloc[0]:.2f} stones per round)"
        )
    handles, labels_ = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels_, loc="outside lower center", ncols=len(variants), fontsize=9)
    save_fig(fig, out / "stone_flows.png")


def plot_other(cmp: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    g = cmp[(cmp.design == "whole game") & (cmp.lineup == "all-random")]
    metrics = [
        ("camat_per_1000_rounds", "CAMAT per 1000 rounds"),
        ("unpaid_per_round", "stones owed but unpaid (D7) per round"),
        ("passes_per_round", "passes per round (incl. PASSEBUNGE)"),
        ("starter_win_rate", "starter's win rate"),
    ]
    fig, axes = plt.subplots(1, 4, figsize=(15, 4.1), layout="constrained")
    variants = VARIANTS
    for ax, (metric, title) in zip(axes, metrics):
        h = g[g.metric == metric].set_index("variant").reindex(variants)
        xs = np.arange(len(variants))
        ax.errorbar(
            xs, h["diff"], yerr=Z95 * h["diff_se"], fmt="none", ecolor="black", capsize=3, zorder=3
        )
        ax.scatter(xs, h["diff"], c=[VCOL[v] for v in variants], s=50, zorder=4)
        ax.axhline(0, color="#999999", ls="--", lw=1)
        ax.set_xticks(xs)
        ax.set_xticklabels([VSHORT[v] for v in variants], fontsize=7, rotation=45, ha="right")
        d0 = g[(g.variant == "default") & (g.metric == metric)]["value"].iloc[0]
        ax.set_title(f"{title}\n(default {d0:.4g})", fontsize=10)
    axes[0].set_ylabel("variant - default (paired, 95% CI)")
    fig.suptitle(
        "All-random, whole games (2000 tables x 500 rounds): other consequences of each option",
        fontsize=11,
    )
    save_fig(fig, out / "other_effects.png")


def opener_check(timer: Timer) -> pd.DataFrame:
    """First rounds, all-random: the starter's win rate by what he led, with the
    D3 option on and off (per-round records, written to a temporary file)."""
    import tempfile

    from domeng.core.tiles import TILE_IS_DOUBLE

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for v in ("default", "opener_leads_double=false"):
            path = Path(tmp) / "records.parquet"
            domeng.simulate(
                tables=DESIGNS["first round"][0],
                rounds=1,
                players="random",
                rules=[] if v == BASELINE else [v],
                seed=SEED,
                records=path,
                progress=False,
            )
            rec = pd.read_parquet(path, columns=["table", "starter", "winner", "lead"])
            rec["led_double"] = TILE_IS_DOUBLE[rec["lead"].to_numpy()]
            rec["starter_won"] = (rec["winner"] == rec["starter"]).astype(float)
            # independent tables: one round each, so a plain binomial SE is right
            for led, g in [("any tile", rec)] + [
                (("a double" if k else "a non-double"), gg) for k, gg in rec.groupby("led_double")
            ]:
                p = g["starter_won"].mean()
                rows.append(
                    {
                        "variant": v,
                        "starter_led": led,
                        "rounds": len(g),
                        "share_of_rounds": len(g) / len(rec),
                        "starter_win_rate": p,
                        "starter_win_rate_se": float(np.sqrt(p * (1 - p) / len(g))),
                    }
                )
            path.unlink()
    timer.mark("first-round records: starter win rate by the tile led")
    return add_ci(pd.DataFrame(rows), "starter_win_rate")


# ---------------------------------------------------------------- main
def main() -> None:
    timer = Timer()
    out = out_dir(__file__)
    cmps, dirs, summaries = [], [], {}
    for design, (tables, rounds) in DESIGNS.items():
        for lineup, players in LINEUPS.items():
            c = domeng.compare(
                VARIANTS, tables=tables, rounds=rounds, players=players, seed=SEED, progress=False
            )
            runs = dict(zip([BASELINE] + VARIANTS, c.arms.values()))
            timer.mark(f"{design}, {lineup}: baseline and {len(VARIANTS)} variants")
            cmps.append(compare(c, design, lineup))
            dirs.append(direction_table(runs, design, lineup))
            summaries[f"{design} / {lineup}"] = {
                v: {
                    "rules": r.summary()["rules"],
                    "rounds_between_camats": r.summary()["rounds_between_camats"],
                }
                for v, r in runs.items()
            }
    cmp = pd.concat(cmps, ignore_index=True)
    dirs = pd.concat(dirs, ignore_index=True)
    write_csv(cmp, out / "comparisons.csv")
    write_csv(dirs, out / "flows_by_direction.csv")
    # a compact table: the key metrics, one row per design x lineup x variant
    key = [
        "passebunge_per_round",
        "passebunge_round_share",
        "passes_per_round",
        "stones_per_round",
        "stones_from_table",
        "stones_from_players",
        "unpaid_per_round",
        "stones_PASSEBUNGE",
        "stones_POLLO",
        "camat_per_1000_rounds",
        "starter_win_rate",
    ]
    wide = cmp[cmp.metric.isin(key)].pivot_table(
        index=["design", "lineup", "variant"], columns="metric", values="value", sort=False
    )
    wide = wide[key].reset_index()
    write_csv(wide, out / "key_metrics.csv")
    opener = opener_check(timer)
    write_csv(opener, out / "first_round_starter_by_lead.csv")
    plot_passebunge(cmp, out)
    plot_flows(cmp, out)
    plot_other(cmp, out)
    timer.mark("tables and plots")

    def pick(design, lineup, metric):
        g = cmp[(cmp.design == design) & (cmp.lineup == lineup) & (cmp.metric == metric)]
        return {
            r.variant: {
                "value": est(r.value, r.value_se),
                "diff_vs_default": est(r.diff, r.diff_se),
                "rel_change": r.rel_change,
            }
            for r in g.itertuples()
        }

    results = {
        "study": "rule_options",
        "seed": SEED,
        "variants": {BASELINE: [], **{v: [v] for v in VARIANTS}},
        "lineups": LINEUPS,
        "designs": {d: {"tables": t, "rounds": r} for d, (t, r) in DESIGNS.items()},
        "ci_method": "normal 95% CI, value +- 1.96 SE; differences are paired (same seed, same "
        "tables): variant - default per group of tables, ratio estimator, SE across "
        "the 1000 groups",
        "results": {
            f"{d} / {lu}": {
                m: pick(d, lu, m)
                for m in (
                    "passebunge_per_round",
                    "passebunge_round_share",
                    "passes_per_round",
                    "stones_per_round",
                    "stones_from_table",
                    "stones_from_players",
                    "unpaid_per_round",
                    "stones_PASSEBUNGE",
                    "stones_PASS",
                    "stones_POLLO",
                    "camat_per_1000_rounds",
                    "starter_win_rate",
                    "end_POLLO",
                )
            }
            for d in DESIGNS
            for lu in LINEUPS
        },
        "first_round_starter_by_lead": [
            {
                "variant": r.variant,
                "starter_led": r.starter_led,
                "rounds": int(r.rounds),
                "share_of_rounds": float(r.share_of_rounds),
                "starter_win_rate": est(r.starter_win_rate, r.starter_win_rate_se),
            }
            for r in opener.itertuples()
        ],
        "paired_vs_unpaired_se_ratio_whole_game": float(
            (
                cmp[(cmp.design == "whole game") & (cmp.variant != "default")]["diff_se"]
                / cmp[(cmp.design == "whole game") & (cmp.variant != "default")]["diff_se_unpaired"]
            ).median()
        ),
        "camat_gaps": summaries,
        "environment": environment(),
    }
    write_json(results, out / "results.json")
    write_timings(timer, out)

    for design in DESIGNS:
        print(f"{design}, all-random: PASSEBUNGE per round and stones per round, change vs default")
        g = cmp[(cmp.design == design) & (cmp.lineup == "all-random")]
        for v in [BASELINE] + VARIANTS:
            a = g[(g.variant == v) & (g.metric == "passebunge_per_round")].iloc[0]
            b = g[(g.variant == v) & (g.metric == "stones_per_round")].iloc[0]
            print(
                f"  {v:<29} PB {a.value:.4f} ({fmt_ci(a['diff'], a.diff_se, 4)})  "
                f"stones {b.value:.3f} ({fmt_ci(b['diff'], b.diff_se, 4)})"
            )
    print(f"total {timer.total():.1f} s; outputs in {out}")


if __name__ == "__main__":
    main()
