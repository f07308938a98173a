"""Study 1: the starter's advantage and the value of each seat.

Reproduce with ``.venv/bin/python analysis/starter_advantage/run.py`` (about
half a minute on 2 cores); everything goes to ``analysis/starter_advantage/output/``.

Two data sources:

A. ``domeng.simulate`` for five lineups (all-random, all-heavy, all-keeper,
   all-hunter, and the mixed default lineup random,heavy,keeper,hunter,random):
   win rate by seat offset from the starter (``win_by_starter_offset``), by
   end kind, and by absolute seat.  CIs: across the study's 1000 groups of
   tables (``Results``' own standard errors).

B. A round-by-round replay on the batch engine (``domeng.batch.tables.run_tables``
   with ``rounds=1``, continuing each table from its state), which gives every
   round's per-seat aggregates and its starter, so stones received / given,
   passes, PASSEBUNGE and CAMAT designations can be tabulated by seat offset
   from the starter (the study API only has win rates by offset).  The replay
   is checked to be bit-identical to playing the same tables in one call.
   CIs: across tables (each table is one independent game).
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
    ratio_se,
    save_fig,
    setup_matplotlib,
    write_csv,
    write_json,
    write_timings,
)

import domeng
from domeng.batch.tables import initial_states, run_tables
from domeng.core import layout as L
from domeng.core.rules import Rules

SEED = 20240601
SIM_TABLES, SIM_ROUNDS = 2000, 500  # 1,000,000 rounds per lineup
STEP_TABLES, STEP_ROUNDS = 2000, 300  # 600,000 rounds per replayed lineup
MIXED = "random,heavy,keeper,hunter,random"
LINEUPS = {
    "all-random": "random",
    "all-heavy": "heavy",
    "all-keeper": "keeper",
    "all-hunter": "hunter",
    "mixed": MIXED,
}
STEP_LINEUPS = {"all-random": "random", "mixed": MIXED}
KINDS = list(L.KIND_NAMES)
# per-seat metrics of one round, tabulated by offset
METRICS = (
    "win",
    "received",
    "given",
    "net",
    "passes",
    "passebunge",
    "camat",
    "cucuq",
    "unpaid_owed",
)
PHASES = ("first round", "no CAMAT yet", "CAMAT starts")


# ---------------------------------------------------------------- A: simulate
def run_simulations(timer: Timer) -> dict[str, domeng.Results]:
    out = {}
    for name, players in LINEUPS.items():
        out[name] = domeng.simulate(
            tables=SIM_TABLES, rounds=SIM_ROUNDS, players=players, seed=SEED, progress=False
        )
    timer.mark("simulate 5 lineups")
    return out


def offset_tables(res: dict[str, domeng.Results]):
    rows, tests = [], []
    for name, r in res.items():
        df = r.win_by_starter_offset()
        df.insert(0, "lineup", name)
        rows.append(df)
        w = r.field("A_WINS_OFFSET").sum(axis=2).astype(float)  # [G, offset]
        n = r.field("A_ROUNDS").astype(float)
        rate, se = ratio_se(w, n)
        d01, se01 = ratio_se(w[:, 0] - w[:, 1], n)
        tests.append(
            {
                "lineup": name,
                "rounds": int(n.sum()),
                "groups": r.groups,
                "starter_rate": rate[0],
                "starter_se": se[0],
                "starter_minus_fair": rate[0] - 0.2,
                "z_vs_fair": (rate[0] - 0.2) / se[0],
                "starter_minus_next": d01,
                "starter_minus_next_se": se01,
                "z_vs_next": d01 / se01,
                "last_rate": rate[4],
                "last_se": se[4],
                "ratio_starter_to_last": rate[0] / rate[4],
            }
        )
    offsets = pd.concat(rows, ignore_index=True)
    tests = pd.DataFrame(tests)
    add_ci(tests, "starter_rate", "starter_se")
    add_ci(tests, "starter_minus_next", "starter_minus_next_se")
    return offsets, tests


def seat_table(res: dict[str, domeng.Results]) -> pd.DataFrame:
    """Absolute seats 0..4: win rate, stones received / given / net per round,
    CAMAT per 1000 rounds, share of rounds started."""
    rows = []
    for name, r in res.items():
        n = r.field("A_ROUNDS").astype(float)
        flow = r.field("A_FLOW").astype(float)  # [G, 6 src, 5 dst, 7]
        wins = r.field("A_WINS").sum(axis=2).astype(float)
        received = flow.sum(axis=(1, 3))  # [G, 5]
        given = flow[:, 1:, :, :].sum(axis=(2, 3))  # [G, 5]
        camat = r.field("A_CAMAT").astype(float)
        starts = r.field("A_STARTS").astype(float)
        stats = {
            "win_rate": ratio_se(wins, n),
            "received": ratio_se(received, n),
            "given": ratio_se(given, n),
            "net": ratio_se(received - given, n),
            "camat_per_1000": ratio_se(1000 * camat, n),
            "start_share": ratio_se(starts, n),
        }
        for s in range(5):
            row = {"lineup": name, "seat": s, "player": r.players[s]}
            for k, (v, se) in stats.items():
                row[k] = v[s]
                row[k + "_se"] = se[s]
            rows.append(row)
    df = pd.DataFrame(rows)
    for k in ("win_rate", "received", "given", "net", "camat_per_1000", "start_share"):
        add_ci(df, k)
    return df


# ---------------------------------------------------------------- B: replay
def replay(players: str, timer: Timer, label: str):
    """Play STEP_TABLES tables round by round; returns per-table sums by
    offset and phase, and by seat and offset."""
    rules = Rules()
    n = STEP_TABLES
    state0 = initial_states(SEED, 0, n, rules)
    st = state0.copy()
    # [table, phase, offset, metric] and rounds [table, phase]
    by_phase = np.zeros((n, len(PHASES), 5, len(METRICS)), dtype=np.int64)
    rounds_phase = np.zeros((n, len(PHASES)), dtype=np.int64)
    # [table, seat, offset, metric] and rounds [table, seat, offset]
    by_seat = np.zeros((n, 5, 5, len(METRICS)), dtype=np.int64)
    rounds_seat = np.zeros((n, 5, 5), dtype=np.int64)
    total_agg = np.zeros(L.AGG_LEN, dtype=np.int64)
    rows = np.arange(n)[:, None]
    for rnd in range(STEP_ROUNDS):
        camat_before = st[:, L.ST_CAMAT].copy()
        out = run_tables(players, rules, SEED, 0, n, 1, state=st)
        st = out.state
        agg = out.agg
        total_agg += agg.sum(axis=0)
        starts = L.agg_field(agg, "A_STARTS")
        assert np.all(starts.sum(axis=1) == 1)
        starter = starts.argmax(axis=1)
        phase = np.where(rnd == 0, 0, np.where(camat_before >= 0, 2, 1))
        has_camat = camat_before >= 0
        if not np.array_equal(starter[has_camat], camat_before[has_camat]):
            raise RuntimeError("a round with a CAMAT was not started by the CAMAT (D4)")
        flow = L.agg_field(agg, "A_FLOW")
        received = flow.sum(axis=(1, 3))
        given = flow[:, 1:, :, :].sum(axis=(2, 3))
        m = np.stack(
            [
                L.agg_field(agg, "A_WINS").sum(axis=2),
                received,
                given,
                received - given,
                L.agg_field(agg, "A_PASSES"),
                L.agg_field(agg, "A_PASSEBUNGE"),
                L.agg_field(agg, "A_CAMAT"),
                L.agg_field(agg, "A_CUCUQ"),
                L.agg_field(agg, "A_UNPAID").sum(axis=2),
            ],
            axis=2,
        )  # [n, seat, metric]
        off = (np.arange(5)[None, :] - starter[:, None]) % 5  # [n, seat]
        by_phase[rows, phase[:, None], off, :] += m
        rounds_phase[np.arange(n), phase] += 1
        by_seat[rows, np.arange(5)[None, :], off, :] += m
        rounds_seat[rows, np.arange(5)[None, :], off] += 1
        if rnd == 0 and np.any(camat_before >= 0):
            raise RuntimeError("a CAMAT before the first round")
    # the replay must equal one uninterrupted run of the same tables
    whole = run_tables(players, rules, SEED, 0, n, STEP_ROUNDS, state=state0)
    if not (np.array_equal(whole.agg.sum(axis=0), total_agg) and np.array_equal(whole.state, st)):
        raise RuntimeError("round-by-round replay differs from an uninterrupted run")
    timer.mark(f"replay {label} ({n} tables x {STEP_ROUNDS} rounds, checked)")
    return {
        "by_phase": by_phase,
        "rounds_phase": rounds_phase,
        "by_seat": by_seat,
        "rounds_seat": rounds_seat,
    }


def offset_value_table(rep: dict, lineup: str) -> pd.DataFrame:
    """Per seat offset: each metric per round (all rounds, and by phase)."""
    rows = []
    by_phase, rounds_phase = rep["by_phase"], rep["rounds_phase"]
    scopes = [("all rounds", by_phase.sum(axis=1), rounds_phase.sum(axis=1))]
    scopes += [(p, by_phase[:, i], rounds_phase[:, i]) for i, p in enumerate(PHASES)]
    for scope, x, n in scopes:
        keep = n > 0
        x = x[keep].astype(float)
        n = n[keep].astype(float)
        for o in range(5):
            row = {
                "lineup": lineup,
                "scope": scope,
                "offset": o,
                "rounds": int(n.sum()),
                "tables": int(keep.sum()),
            }
            for j, mname in enumerate(METRICS):
                scale = 1000.0 if mname == "camat" else 1.0
                v, se = ratio_se(scale * x[:, o, j], n)
                key = "camat_per_1000" if mname == "camat" else mname
                row[key] = float(v)
                row[key + "_se"] = float(se)
            rows.append(row)
    df = pd.DataFrame(rows)
    for mname in METRICS:
        add_ci(df, "camat_per_1000" if mname == "camat" else mname)
    return df


def player_offset_table(rep: dict, players: list[str]) -> pd.DataFrame:
    """Mixed lineup: each player's win rate, net stones and CAMATs when sitting
    at each offset from the starter, and how often it sits there."""
    by_seat, rounds_seat = rep["by_seat"], rep["rounds_seat"]
    total_rounds = rounds_seat[:, 0, :].sum(axis=1).astype(float)  # rounds per table
    rows = []
    for p in dict.fromkeys(players):
        seats = [s for s, q in enumerate(players) if q == p]
        x = by_seat[:, seats].sum(axis=1).astype(float)  # [n, offset, metric]
        n = rounds_seat[:, seats].sum(axis=1).astype(float)  # [n, offset]
        for o in range(5):
            row = {"player": p, "seats": ",".join(map(str, seats)), "offset": o}
            v, se = ratio_se(n[:, o], total_rounds * len(seats))
            row["share_of_rounds_at_offset"], row["share_of_rounds_at_offset_se"] = (
                float(v),
                float(se),
            )
            for j, mname in enumerate(("win", "received", "given", "net")):
                v, se = ratio_se(x[:, o, j], n[:, o])
                row[mname] = float(v)
                row[mname + "_se"] = float(se)
            v, se = ratio_se(1000 * x[:, o, METRICS.index("camat")], n[:, o])
            row["camat_per_1000"], row["camat_per_1000_se"] = float(v), float(se)
            rows.append(row)
    df = pd.DataFrame(rows)
    for k in ("win", "net", "camat_per_1000", "share_of_rounds_at_offset"):
        add_ci(df, k)
    return df


# ---------------------------------------------------------------- plots
COLORS = {
    "all-random": "#333333",
    "all-heavy": "#c0504d",
    "all-keeper": "#2a7ab9",
    "all-hunter": "#4f9a4f",
    "mixed": "#8e6bb8",
}


def plot_win_by_offset(offsets: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.3), layout="constrained")
    ax = axes[0]
    allk = offsets[offsets.kind == "ALL"]
    width = 0.16
    for i, (name, g) in enumerate(allk.groupby("lineup", sort=False)):
        x = np.arange(5) + (i - 2) * width
        ax.bar(x, g["rate"], width, yerr=Z95 * g["se"], capsize=2, label=name, color=COLORS[name])
    ax.axhline(0.2, color="#999999", ls="--", lw=1)
    ax.text(4.45, 0.203, "fair share 0.2", ha="right", va="bottom", fontsize=8, color="#666666")
    ax.set_xticks(range(5))
    ax.set_xticklabels(["0\n(starter)", "1", "2", "3", "4\n(seat before\nthe starter)"])
    ax.set_xlabel("seat offset from the round's starter (clockwise)")
    ax.set_ylabel("round win rate (95% CI)")
    ax.set_title("Win rate by seat offset from the starter")
    ax.legend(fontsize=8, ncols=2)
    # end-kind composition, all-random
    ax = axes[1]
    g = offsets[(offsets.lineup == "all-random") & (offsets.kind != "ALL")]
    bottom = np.zeros(5)
    kcol = {
        "CAPPU": "#9ecae1",
        "CEKI": "#fdae6b",
        "POLLO": "#e6550d",
        "MANGUNO": "#a1d99b",
        "MATTIKKENG": "#31a354",
    }
    for k in KINDS:
        v = g[g.kind == k].sort_values("offset")["rate"].to_numpy()
        ax.bar(range(5), v, bottom=bottom, color=kcol[k], label=k, width=0.6)
        bottom += v
    ax.axhline(0.2, color="#999999", ls="--", lw=1)
    ax.set_xticks(range(5))
    ax.set_xlabel("seat offset from the starter")
    ax.set_ylabel("round win rate")
    ax.set_title("All-random: how each offset wins (end kind)")
    ax.legend(fontsize=8, title="won by", title_fontsize=8)
    save_fig(fig, out / "win_by_offset.png")


def plot_offset_value(vals: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), layout="constrained")
    axes = axes.ravel()
    v = vals[vals.scope == "all rounds"]
    x = np.arange(5)
    w = 0.38
    for i, (lineup, g) in enumerate(v.groupby("lineup", sort=False)):
        g = g.sort_values("offset")
        c = COLORS[lineup]
        # received and given: two thin bars per lineup
        wr = w / 2
        base = (i - 0.5) * w
        axes[0].bar(
            x + base - wr / 2,
            g["received"],
            wr,
            yerr=Z95 * g["received_se"],
            capsize=1.5,
            color=c,
            label=f"{lineup}: received",
        )
        axes[0].bar(
            x + base + wr / 2,
            g["given"],
            wr,
            yerr=Z95 * g["given_se"],
            capsize=1.5,
            color=c,
            alpha=0.4,
            hatch="///",
            edgecolor=c,
            label=f"{lineup}: given",
        )
        dx = (i - 0.5) * w
        axes[1].bar(x + dx, g["net"], w, yerr=Z95 * g["net_se"], capsize=2, color=c, label=lineup)
        axes[1].axhline(g["net"].mean(), color=c, ls=":", lw=1.2)
        axes[2].bar(
            x + dx,
            g["camat_per_1000"],
            w,
            yerr=Z95 * g["camat_per_1000_se"],
            capsize=2,
            color=c,
            label=lineup,
        )
        axes[2].axhline(g["camat_per_1000"].mean(), color=c, ls=":", lw=1.2)
        axes[3].bar(
            x + dx,
            g["passes"],
            w,
            yerr=Z95 * g["passes_se"],
            capsize=2,
            color=c,
            alpha=0.45,
            label=f"{lineup}: all passes",
        )
        axes[3].bar(
            x + dx,
            g["passebunge"],
            w,
            yerr=Z95 * g["passebunge_se"],
            capsize=2,
            color=c,
            label=f"{lineup}: of which PASSEBUNGE",
        )
    axes[0].set_title("Stones received and given per round")
    axes[0].set_ylabel("stones per round (95% CI)")
    axes[0].legend(fontsize=8, ncols=2, loc="upper center")
    axes[0].set_ylim(0, 1.95)
    axes[1].set_title(
        "Net stones per round, received - given (penalties: lower is better)\n"
        "dotted: mean over the five offsets"
    )
    axes[1].set_ylabel("stones per round (95% CI)")
    axes[1].legend(fontsize=8, loc="upper right")
    axes[2].set_title("CAMAT designations per 1000 rounds\n(seat offset from that round's starter)")
    axes[2].set_ylabel("per 1000 rounds (95% CI)")
    axes[2].legend(fontsize=8, loc="upper right")
    axes[3].set_title("Passes per round (a PASSEBUNGE is a pass before one's first tile)")
    axes[3].set_ylabel("events per round (95% CI)")
    axes[3].legend(fontsize=8, loc="upper right", framealpha=0.95)
    axes[3].set_ylim(0, 1.75)
    for ax in axes:
        ax.set_xticks(x)
        ax.set_xticklabels(["0\nstarter", "1", "2", "3", "4"])
        ax.set_xlabel("seat offset from the starter")
    save_fig(fig, out / "stones_camat_by_offset.png")


def plot_phase(vals: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
    v = vals[(vals.lineup == "all-random") & (vals.scope != "all rounds")]
    pcol = {"first round": "#bbbbbb", "no CAMAT yet": "#7fa7cf", "CAMAT starts": "#1f4e79"}
    w = 0.27
    for i, (scope, g) in enumerate(v.groupby("scope", sort=False)):
        g = g.sort_values("offset")
        n = int(g["rounds"].iloc[0])
        x = np.arange(5) + (i - 1) * w
        axes[0].bar(
            x,
            g["win"],
            w,
            yerr=Z95 * g["win_se"],
            capsize=2,
            color=pcol[scope],
            label=f"{scope} ({n:,} rounds)",
        )
        axes[1].bar(
            x, g["net"], w, yerr=Z95 * g["net_se"], capsize=2, color=pcol[scope], label=scope
        )
    axes[0].axhline(0.2, color="#999999", ls="--", lw=1)
    axes[0].set_title("All-random: win rate by offset, by phase of the game")
    axes[0].set_ylabel("round win rate (95% CI)")
    axes[1].axhline(0, color="#777777", lw=1)
    axes[1].set_title("All-random: net stones per round by offset, by phase")
    axes[1].set_ylabel("stones received - given per round")
    for ax in axes:
        ax.set_xticks(range(5))
        ax.set_xticklabels(["0\nstarter", "1", "2", "3", "4"])
        ax.set_xlabel("seat offset from the starter")
        ax.legend(fontsize=8)
    save_fig(fig, out / "by_phase.png")


def plot_mixed(po: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
    pcol = {"random": "#333333", "heavy": "#c0504d", "keeper": "#2a7ab9", "hunter": "#4f9a4f"}
    w = 0.2
    for i, (p, g) in enumerate(po.groupby("player", sort=False)):
        g = g.sort_values("offset")
        x = np.arange(5) + (i - 1.5) * w
        axes[0].bar(
            x,
            g["win"],
            w,
            yerr=Z95 * g["win_se"],
            capsize=2,
            color=pcol[p],
            label=f"{p} (seat{'s' if ',' in g['seats'].iloc[0] else ''} {g['seats'].iloc[0]})",
        )
        axes[1].bar(
            x,
            g["share_of_rounds_at_offset"],
            w,
            yerr=Z95 * g["share_of_rounds_at_offset_se"],
            capsize=2,
            color=pcol[p],
            label=p,
        )
    axes[0].axhline(0.2, color="#999999", ls="--", lw=1)
    axes[0].set_title("Mixed lineup: each player's win rate at each offset")
    axes[0].set_ylabel("round win rate (95% CI)")
    axes[1].axhline(0.2, color="#999999", ls="--", lw=1)
    axes[1].set_title(
        "Mixed lineup: share of a player's rounds at each offset\n"
        "(offset 0 = the player starts: it is CAMAT or won the last round)"
    )
    axes[1].set_ylabel("share of rounds (per seat)")
    for ax in axes:
        ax.set_xticks(range(5))
        ax.set_xticklabels(["0\nstarter", "1", "2", "3", "4"])
        ax.set_xlabel("the player's seat offset from the starter")
        ax.legend(fontsize=8)
    save_fig(fig, out / "mixed_player_by_offset.png")


# ---------------------------------------------------------------- main
def main() -> None:
    timer = Timer()
    out = out_dir(__file__)
    res = run_simulations(timer)
    offsets, tests = offset_tables(res)
    seats = seat_table(res)
    reps = {name: replay(players, timer, name) for name, players in STEP_LINEUPS.items()}
    vals = pd.concat(
        [offset_value_table(rep, name) for name, rep in reps.items()], ignore_index=True
    )
    po = player_offset_table(reps["mixed"], MIXED.split(","))

    write_csv(offsets, out / "win_by_offset.csv")
    write_csv(tests, out / "starter_tests.csv")
    write_csv(seats, out / "by_absolute_seat.csv")
    write_csv(vals, out / "offset_value.csv")
    write_csv(po, out / "mixed_player_by_offset.csv")
    plot_win_by_offset(offsets, out)
    plot_offset_value(vals, out)
    plot_phase(vals, out)
    plot_mixed(po, out)
    timer.mark("tables and plots")

    # ---- results.json: the headline numbers
    def offset_est(lineup, kind="ALL"):
        g = offsets[(offsets.lineup == lineup) & (offsets.kind == kind)].sort_values("offset")
        return {str(int(r.offset)): est(r.rate, r.se) for r in g.itertuples()}

    def val_est(lineup, scope, col):
        g = vals[(vals.lineup == lineup) & (vals.scope == scope)].sort_values("offset")
        return {
            str(int(r.offset)): est(getattr(r, col), getattr(r, col + "_se"))
            for r in g.itertuples()
        }

    ar = res["all-random"]
    summary_ar = ar.summary()
    results = {
        "study": "starter_advantage",
        "seed": SEED,
        "sizes": {
            "simulate": {
                "tables": SIM_TABLES,
                "rounds": SIM_ROUNDS,
                "lineups": LINEUPS,
                "groups": ar.groups,
            },
            "replay": {"tables": STEP_TABLES, "rounds": STEP_ROUNDS, "lineups": STEP_LINEUPS},
        },
        "ci_method": "normal 95% CI, value +- 1.96 SE; SE of a ratio estimator across the 1000 "
        "groups of tables (simulate) or across tables (replay)",
        "win_rate_by_offset": {name: offset_est(name) for name in LINEUPS},
        "starter_tests": {
            r.lineup: {
                "starter_rate": est(r.starter_rate, r.starter_se),
                "z_vs_fair_0.2": r.z_vs_fair,
                "starter_minus_next": est(r.starter_minus_next, r.starter_minus_next_se),
                "ratio_starter_to_last": r.ratio_starter_to_last,
            }
            for r in tests.itertuples()
        },
        "all_random_by_absolute_seat": {
            str(int(r.seat)): {
                "win_rate": est(r.win_rate, r.win_rate_se),
                "net": est(r.net, r.net_se),
                "camat_per_1000": est(r.camat_per_1000, r.camat_per_1000_se),
            }
            for r in seats[seats.lineup == "all-random"].itertuples()
        },
        "by_offset_all_random": {
            col: val_est("all-random", "all rounds", col)
            for col in (
                "win",
                "received",
                "given",
                "net",
                "passes",
                "passebunge",
                "camat_per_1000",
                "cucuq",
            )
        },
        "by_offset_mixed": {
            col: val_est("mixed", "all rounds", col)
            for col in ("win", "received", "given", "net", "camat_per_1000")
        },
        "by_phase_all_random": {
            p: {
                "rounds": int(
                    vals[(vals.lineup == "all-random") & (vals.scope == p)]["rounds"].iloc[0]
                ),
                "win": val_est("all-random", p, "win"),
                "net": val_est("all-random", p, "net"),
            }
            for p in PHASES
        },
        "all_random_context": {
            "end_kind": summary_ar["end_kind"],
            "camat_per_1000_rounds": summary_ar["camat_per_1000_rounds"]["total"],
            "rounds_between_camats": summary_ar["rounds_between_camats"],
        },
        "mixed_start_share_by_player": {
            p: est(
                *ratio_se(
                    res["mixed"].field("A_STARTS")[:, seats_].sum(axis=1) / len(seats_),
                    res["mixed"].field("A_ROUNDS"),
                )
            )
            for p, seats_ in res["mixed"].player_seats().items()
        },
        "environment": environment(),
    }
    write_json(results, out / "results.json")
    write_timings(timer, out)

    # a short console digest
    t = tests.set_index("lineup")
    print("starter win rate (95% CI) and starter - next seat:")
    for name in LINEUPS:
        r = t.loc[name]
        print(
            f"  {name:<11} {fmt_ci(r.starter_rate, r.starter_se)}  "
            f"diff {fmt_ci(r.starter_minus_next, r.starter_minus_next_se)}  z={r.z_vs_fair:.0f}"
        )
    v = vals[(vals.lineup == "all-random") & (vals.scope == "all rounds")]
    print("all-random by offset: net stones/round, CAMAT/1000:")
    for r in v.itertuples():
        print(
            f"  {r.offset}: net {fmt_ci(r.net, r.net_se)}  camat {fmt_ci(r.camat_per_1000, r.camat_per_1000_se, 1)}"
        )
    print(f"total {timer.total():.1f} s; outputs in {out}")


if __name__ == "__main__":
    main()
