"""Study: the starter's advantage and the PASSEBUNGE study redone with five experts (issue 13, 6c).

The two studies of weak play, ``analysis/starter_advantage`` and
``analysis/rule_options`` (PASSEBUNGE and the stone flows under each rule
option), repeated with five ``expert`` players, side by side with the
all-random game (and all-hunter for the starter), with the *same* methods: this
script imports those studies' own tabulation functions and changes only the
lineups.

* ``--study starter``: ``domeng.compare`` plays all-random (the baseline),
  all-hunter and all-expert on the same tables (2000 x 500 rounds): win rate
  by seat offset from the starter, paired differences of lineups.  Then the
  round-by-round replay of ``starter_advantage`` (2000 tables x 300 rounds per
  lineup) gives stones, CAMATs and PASSEBUNGE by offset; lineups are compared
  table by table (the same seeds, so the same first deals).
* ``--study passebunge``: ``domeng.compare`` of the four rule options of
  ``rule_options`` against the default rules, for all-random and all-expert,
  in whole games (2000 x 500) and first rounds (200,000 x 1); the
  difference in differences (does the option act differently under strong
  play?) is paired over the same groups of tables; and the first-round
  starter's win rate by the tile he led (per-round records in a temporary file).

    .venv/bin/python analysis/experts/run.py                  # both studies, ~3-5 min
    .venv/bin/python analysis/experts/run.py --study starter  # one of them
    .venv/bin/python analysis/experts/run.py --quick --out /tmp/ex   # a smoke run
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd
import rule_options.run as ro
import starter_advantage.run as sa
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
from domeng.core.tiles import TILE_IS_DOUBLE
from domeng.results.metrics import metric_parts
from domeng.results.stats import paired_difference, ratio_influence, se_from_influence

SEED_STARTER = sa.SEED  # the original studies' seeds: the same first deals
SEED_PB = ro.SEED
STARTER_LINEUPS = {"all-random": "random", "all-hunter": "hunter", "all-expert": "expert"}
PB_LINEUPS = {"all-random": "random", "all-expert": "expert"}
SIZES = {
    "sim": (2000, 500),
    "replay": (2000, 300),
    "whole game": (2000, 500),
    "first round": (200_000, 1),
}
QUICK = {"sim": (40, 20), "replay": (20, 10), "whole game": (40, 20), "first round": (2000, 1)}
COLORS = {"all-random": "#333333", "all-hunter": "#4f9a4f", "all-expert": "#c0504d"}


def paired(xa, na, xb, nb) -> tuple[float, float]:
    """``sum xa / sum na - sum xb / sum nb``, SE paired over the units (axis 0)."""
    d, se, _ = paired_difference(
        np.asarray(xa, float), np.asarray(na, float), np.asarray(xb, float), np.asarray(nb, float)
    )
    return float(d), float(se)


# ================================================================ starter
def starter_study(out: Path, timer: Timer, sizes: dict) -> dict:
    tables, rounds = sizes["sim"]
    names = list(STARTER_LINEUPS)
    cmp = domeng.compare(
        [f"players={p}" for p in list(STARTER_LINEUPS.values())[1:]],
        players="random",
        tables=tables,
        rounds=rounds,
        seed=SEED_STARTER,
        progress=False,
    )
    res = dict(zip(names, cmp.arms.values()))
    timer.mark(f"starter: compare 3 lineups ({tables} x {rounds})")
    offsets, tests = sa.offset_tables(res)
    # lineup differences of the win rate by offset, paired over the same groups of tables
    parts = {n: metric_parts(r) for n, r in res.items()}
    diffs = []
    for a, b in (
        ("all-expert", "all-random"),
        ("all-expert", "all-hunter"),
        ("all-hunter", "all-random"),
    ):
        for o in range(5):
            m = f"win_rate_by_starter_offset.{o}"
            d, se = paired(parts[a][m].x, parts[a][m].n, parts[b][m].x, parts[b][m].n)
            diffs.append(
                {
                    "source": "simulate",
                    "metric": "win",
                    "offset": o,
                    "a": a,
                    "b": b,
                    "diff": d,
                    "diff_se": se,
                }
            )
        w = {n: r.field("A_WINS_OFFSET").sum(axis=2) for n, r in res.items()}
        n_ = {n: r.field("A_ROUNDS") for n, r in res.items()}
        d, se = paired(w[a][:, 0] - w[a][:, 1], n_[a], w[b][:, 0] - w[b][:, 1], n_[b])
        diffs.append(
            {
                "source": "simulate",
                "metric": "starter_minus_next",
                "offset": -1,
                "a": a,
                "b": b,
                "diff": d,
                "diff_se": se,
            }
        )
    # the replay: every metric by offset (and phase), per table
    sa.SEED, (sa.STEP_TABLES, sa.STEP_ROUNDS) = SEED_STARTER, sizes["replay"]
    reps = {n: sa.replay(p, timer, f"starter: {n}") for n, p in STARTER_LINEUPS.items()}
    vals = pd.concat([sa.offset_value_table(rep, n) for n, rep in reps.items()], ignore_index=True)
    for a, b in (("all-expert", "all-random"), ("all-expert", "all-hunter")):
        xa = reps[a]["by_phase"].sum(axis=1)  # [table, offset, metric]
        xb = reps[b]["by_phase"].sum(axis=1)
        na = reps[a]["rounds_phase"].sum(axis=1)
        nb = reps[b]["rounds_phase"].sum(axis=1)
        for j, m in enumerate(sa.METRICS):
            scale = 1000.0 if m == "camat" else 1.0
            for o in range(5):
                d, se = paired(scale * xa[:, o, j], na, scale * xb[:, o, j], nb)
                diffs.append(
                    {
                        "source": "replay",
                        "metric": m,
                        "offset": o,
                        "a": a,
                        "b": b,
                        "diff": d,
                        "diff_se": se,
                    }
                )
    diffs = add_ci(pd.DataFrame(diffs), "diff")
    write_csv(offsets, out / "starter_win_by_offset.csv")
    write_csv(tests, out / "starter_tests.csv")
    write_csv(vals, out / "starter_offset_value.csv")
    write_csv(diffs, out / "starter_differences.csv")
    plot_starter(offsets, vals, out)
    timer.mark("starter: tables and plots")

    def val(lineup, col, scope="all rounds"):
        g = vals[(vals.lineup == lineup) & (vals.scope == scope)].sort_values("offset")
        return {
            str(int(r.offset)): est(getattr(r, col), getattr(r, col + "_se"))
            for r in g.itertuples()
        }

    def dif(metric, a, b):
        g = diffs[(diffs.metric == metric) & (diffs.a == a) & (diffs.b == b)]
        return {str(int(r.offset)): est(r.diff, r.diff_se) for r in g.itertuples()}

    t = tests.set_index("lineup")
    results = {
        "lineups": STARTER_LINEUPS,
        "seed": SEED_STARTER,
        "sizes": {"simulate": sizes["sim"], "replay": sizes["replay"]},
        "starter_tests": {
            n: {
                "starter_rate": est(t.loc[n, "starter_rate"], t.loc[n, "starter_se"]),
                "starter_minus_next": est(
                    t.loc[n, "starter_minus_next"], t.loc[n, "starter_minus_next_se"]
                ),
                "ratio_starter_to_last": t.loc[n, "ratio_starter_to_last"],
            }
            for n in names
        },
        "win_rate_by_offset": {
            n: {
                str(int(r.offset)): est(r.rate, r.se)
                for r in offsets[(offsets.lineup == n) & (offsets.kind == "ALL")].itertuples()
            }
            for n in names
        },
        "by_offset": {
            n: {
                c: val(n, c)
                for c in ("net", "camat_per_1000", "passebunge", "passes", "received", "given")
            }
            for n in names
        },
        "first_round_win": {n: val(n, "win", "first round") for n in names},
        "differences": {
            f"{a} - {b}": {
                m: dif(m, a, b) for m in ("win", "starter_minus_next", "net", "camat", "passebunge")
            }
            for a, b in (("all-expert", "all-random"), ("all-expert", "all-hunter"))
        },
        "camat_per_1000_rounds": {
            n: r.summary()["camat_per_1000_rounds"]["total"] for n, r in res.items()
        },
    }
    for n in names:
        r = t.loc[n]
        print(
            f"starter {n:<11} win {fmt_ci(r.starter_rate, r.starter_se)}  "
            f"starter - next {fmt_ci(r.starter_minus_next, r.starter_minus_next_se)}  "
            f"starter/last {r.ratio_starter_to_last:.2f}"
        )
    return results


def plot_starter(offsets: pd.DataFrame, vals: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), layout="constrained")
    axes = axes.ravel()
    names = list(STARTER_LINEUPS)
    w = 0.26
    x = np.arange(5)
    allk = offsets[offsets.kind == "ALL"]
    v = vals[vals.scope == "all rounds"]
    panels = [
        (allk, "rate", "se", "round win rate", "Win rate by seat offset from the starter"),
        (
            v,
            "net",
            "net_se",
            "stones per round",
            "Net stones per round (received - given; lower is better)",
        ),
        (
            v,
            "camat_per_1000",
            "camat_per_1000_se",
            "per 1000 rounds",
            "CAMAT designations per 1000 rounds",
        ),
        (v, "passebunge", "passebunge_se", "per round", "PASSEBUNGE per round"),
    ]
    for ax, (df, col, se, ylabel, title) in zip(axes, panels):
        for i, n in enumerate(names):
            g = df[df.lineup == n].sort_values("offset")
            ax.bar(
                x + (i - 1) * w, g[col], w, yerr=Z95 * g[se], capsize=2, color=COLORS[n], label=n
            )
        if col == "rate":
            ax.axhline(0.2, color="#999999", ls="--", lw=1)
        ax.set_xticks(x)
        ax.set_xticklabels(["0\nstarter", "1", "2", "3", "4\n(before the\nstarter)"])
        ax.set_xlabel("seat offset from the round's starter (clockwise)")
        ax.set_ylabel(f"{ylabel} (95% CI)")
        ax.set_title(title)
        ax.legend(fontsize=8)
    fig.suptitle(
        "The starter's advantage under weak and strong play (all-random, all-hunter, all-expert)",
        fontsize=12,
    )
    save_fig(fig, out / "starter_by_offset.png")


# ================================================================ passebunge
def did(cmps: dict, design: str, metric: str, variant_arm: str) -> tuple[float, float]:
    """(expert effect) - (random effect) of one option on one metric, paired over
    the same groups of tables (all four arms share the seed and the tables)."""
    z = []
    vals = []
    for lineup, sign in (("all-expert", 1.0), ("all-random", -1.0)):
        c = cmps[(design, lineup)]
        for arm, s2 in ((variant_arm, 1.0), (c.baseline_name, -1.0)):
            p = metric_parts(c.arms[arm])[metric]
            r, zi = ratio_influence(p.x, p.n)
            vals.append(sign * s2 * float(r))
            z.append(sign * s2 * zi)
    return float(sum(vals)), float(se_from_influence(sum(z)))


def passebunge_study(out: Path, timer: Timer, sizes: dict) -> dict:
    cmps, rows, dirs = {}, [], []
    for design in ("whole game", "first round"):
        tables, rounds = sizes[design]
        for lineup, players in PB_LINEUPS.items():
            c = domeng.compare(
                ro.VARIANTS,
                tables=tables,
                rounds=rounds,
                players=players,
                seed=SEED_PB,
                progress=False,
            )
            cmps[(design, lineup)] = c
            rows.append(ro.compare(c, design, lineup))
            dirs.append(
                ro.direction_table(
                    dict(zip([ro.BASELINE] + ro.VARIANTS, c.arms.values())), design, lineup
                )
            )
            timer.mark(f"passebunge: {design}, {lineup}, default and {len(ro.VARIANTS)} options")
    cmp = pd.concat(rows, ignore_index=True)
    dd = []
    for (design, lineup), c in cmps.items():
        if lineup != "all-expert":
            continue
        for arm, v in zip(c.variants, ro.VARIANTS):
            for short, full in ro.METRICS.items():
                d, se = did(cmps, design, full, arm)
                dd.append({"design": design, "variant": v, "metric": short, "did": d, "did_se": se})
    dd = add_ci(pd.DataFrame(dd), "did")
    opener = opener_records(sizes["first round"][0], timer)
    write_csv(cmp, out / "passebunge_comparisons.csv")
    write_csv(pd.concat(dirs, ignore_index=True), out / "passebunge_flows_by_direction.csv")
    write_csv(dd, out / "passebunge_expert_minus_random_effect.csv")
    write_csv(opener, out / "passebunge_first_round_starter_by_lead.csv")
    plot_passebunge(cmp, out, sizes)
    timer.mark("passebunge: tables and plots")

    def pick(design, lineup, metric):
        g = cmp[(cmp.design == design) & (cmp.lineup == lineup) & (cmp.metric == metric)]
        return {
            r.variant: {
                "value": est(r.value, r.value_se),
                "diff": est(r.diff, r.diff_se),
                "rel_change": r.rel_change,
            }
            for r in g.itertuples()
        }

    keys = (
        "passebunge_per_round",
        "passebunge_round_share",
        "passes_per_round",
        "stones_per_round",
        "stones_PASSEBUNGE",
        "stones_PASS",
        "unpaid_per_round",
        "camat_per_1000_rounds",
        "starter_win_rate",
    )
    results = {
        "lineups": PB_LINEUPS,
        "seed": SEED_PB,
        "variants": ro.VARIANTS,
        "sizes": {d: sizes[d] for d in ("whole game", "first round")},
        "results": {
            f"{d} / {lu}": {m: pick(d, lu, m) for m in keys}
            for d in ("whole game", "first round")
            for lu in PB_LINEUPS
        },
        "expert_minus_random_effect": {
            f"{r.design} / {r.variant} / {r.metric}": est(r.did, r.did_se)
            for r in dd.itertuples()
            if r.metric in keys
        },
        "first_round_starter_by_lead": [
            {
                "lineup": r.lineup,
                "variant": r.variant,
                "starter_led": r.starter_led,
                "share_of_rounds": r.share_of_rounds,
                "share_not_the_forced_double": r.share_not_the_forced_double,
                "starter_win_rate": est(r.starter_win_rate, r.starter_win_rate_se),
            }
            for r in opener.itertuples()
        ],
    }
    for design in ("whole game", "first round"):
        for lineup in PB_LINEUPS:
            g = cmp[
                (cmp.design == design)
                & (cmp.lineup == lineup)
                & (cmp.metric == "passebunge_per_round")
            ]
            print(
                f"PASSEBUNGE/round, {design}, {lineup}: "
                + "; ".join(f"{r.variant} {r.value:.4f} ({r.diff:+.4f})" for r in g.itertuples())
            )
    return results


def opener_records(tables: int, timer: Timer) -> pd.DataFrame:
    """First rounds: the starter's win rate by the tile he led, D3 on and off,
    for both lineups (per-round records in a temporary file, deleted)."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "records.parquet"
        for lineup, players in PB_LINEUPS.items():
            for v in ("default", "opener_leads_double=false"):
                domeng.simulate(
                    tables=tables,
                    rounds=1,
                    players=players,
                    rules=[] if v == "default" else [v],
                    seed=SEED_PB,
                    records=path,
                    progress=False,
                )
                rec = pd.read_parquet(path, columns=["table", "starter", "winner", "lead"])
                rec = rec.sort_values("table")
                path.unlink()
                if v == "default":
                    forced = rec["lead"].to_numpy()  # the same first deals in both arms
                other = float((rec["lead"].to_numpy() != forced).mean())
                won = (rec["winner"] == rec["starter"]).to_numpy(float)
                dbl = TILE_IS_DOUBLE[rec["lead"].to_numpy()].astype(bool)
                for led, k in (
                    ("any tile", np.ones_like(dbl)),
                    ("a double", dbl),
                    ("a non-double", ~dbl),
                ):
                    if not k.any():
                        continue
                    p = won[k].mean()  # one round per table: a binomial SE
                    rows.append(
                        {
                            "lineup": lineup,
                            "variant": v,
                            "starter_led": led,
                            "rounds": int(k.sum()),
                            "share_of_rounds": float(k.mean()),
                            "share_not_the_forced_double": other,
                            "starter_win_rate": p,
                            "starter_win_rate_se": float(np.sqrt(p * (1 - p) / k.sum())),
                        }
                    )
    timer.mark("passebunge: first-round records by the tile led")
    return add_ci(pd.DataFrame(rows), "starter_win_rate")


PB_PANELS = {
    "whole game": [
        ("passebunge_per_round", "PASSEBUNGE per round"),
        ("passes_per_round", "passes per round"),
        ("stones_per_round", "stones moved per round"),
        ("unpaid_per_round", "unpaid stones per round"),
        ("camat_per_1000_rounds", "CAMAT per 1000 rounds"),
        ("starter_win_rate", "starter's win rate"),
    ],
    "first round": [
        ("passebunge_per_round", "PASSEBUNGE per round"),
        ("passebunge_round_share", "rounds with a PASSEBUNGE"),
        ("passes_per_round", "passes per round"),
        ("stones_PASSEBUNGE", "PASSEBUNGE stones per round"),
        ("stones_per_round", "stones moved per round"),
        ("starter_win_rate", "starter's win rate"),
    ],
}


def plot_passebunge(cmp: pd.DataFrame, out: Path, sizes: dict) -> None:
    plt = setup_matplotlib()
    from matplotlib.ticker import MaxNLocator

    variants = ro.VARIANTS
    fig, axes = plt.subplots(2, 6, figsize=(18, 7.5), layout="constrained")
    y = np.arange(len(variants))
    for i, (design, metrics) in enumerate(PB_PANELS.items()):
        for j, (m, title) in enumerate(metrics):
            ax = axes[i, j]
            for k, lineup in enumerate(PB_LINEUPS):
                g = cmp[(cmp.design == design) & (cmp.lineup == lineup) & (cmp.metric == m)]
                base = g[g.variant == ro.BASELINE]["value"].iloc[0]
                g = g.set_index("variant").reindex(variants)
                ax.barh(
                    y + (k - 0.5) * 0.38,
                    g["diff"],
                    0.38,
                    xerr=Z95 * g["diff_se"],
                    capsize=2,
                    color=COLORS[lineup],
                    label=f"{lineup} (default {base:.3g})",
                )
            ax.axvline(0, color="#777777", lw=1)
            ax.set_yticks(y)
            ax.set_yticklabels([ro.VSHORT[v] for v in variants] if j == 0 else [], fontsize=8)
            ax.invert_yaxis()
            ax.set_title(f"{design}: {title}", fontsize=9)
            ax.tick_params(axis="x", labelsize=8)
            ax.xaxis.set_major_locator(MaxNLocator(4))
            ax.legend(fontsize=7, loc="lower right")
    (wt, wr), (ft, _) = sizes["whole game"], sizes["first round"]
    fig.supxlabel("option - default (paired over the same tables, 95% CI)")
    fig.suptitle(
        f"Rule options under weak (all-random) and strong (all-expert) play: whole "
        f"games {wt:,} tables x {wr} rounds (top); first rounds, {ft:,} tables (bottom)",
        fontsize=12,
    )
    save_fig(fig, out / "passebunge_options.png")


# ================================================================ main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--study", choices=("starter", "passebunge", "all"), default="all")
    ap.add_argument("--quick", action="store_true", help="a tiny smoke run (seconds)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    out = Path(args.out) if args.out else out_dir(__file__)
    out.mkdir(parents=True, exist_ok=True)
    sizes = QUICK if args.quick else SIZES
    timer = Timer()
    studies = ("starter", "passebunge") if args.study == "all" else (args.study,)
    for s in studies:
        res = (starter_study if s == "starter" else passebunge_study)(out, timer, sizes)
        write_json(
            {"study": f"experts/{s}", **res, "environment": environment()},
            out / f"{s}_results.json",
        )
    tpath = out / "timings.json"
    old = json.loads(tpath.read_text()) if tpath.exists() else {}
    write_timings(timer, out)
    new = json.loads(tpath.read_text())
    write_json({**old, **{f"{args.study}: {k}": v for k, v in new.items()}}, tpath)
    print(f"total {timer.total():.1f} s; outputs in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
