"""Study: how much of Domeng is skill?  (issue 13, item 6b)

The share of the variance of a seat's net stones per round that is explained
by *who plays* (the player), by *what is dealt* (the hand: the deal and the
seat it lands on, split into the starting position and the rest), by their
interaction, and by everything else (the order of the opponents around the
table, and chance: the players' own random draws, measured by replaying the
same deals with other player streams), from duplicate matches.

Design.  The field ``random, heavy, keeper, hunter, expert`` (and a second
field without the random player: ``heavy, keeper, hunter, expert, expert``)
plays the same
``--deals`` games of ``--rounds`` rounds under every seating of the ``all``
design of :mod:`domeng.study.arrangements` (120: every player in every seat
next to every other): the deal stream of a game is shared by its 120
seatings (:func:`domeng.study.tournament.duplicate_states`, exactly as
``domeng.study.tournament`` plays them).  The script steps the games one
round at a time (``domeng.batch.tables.run_tables(rounds=1, state=...)``)
to keep every round's net stones per seat, which the tournament API sums
away; it checks that its per-player totals equal ``domeng.study.tournament``
on the first deals, bit for bit.

Each (deal, seat) is a *hand*; each hand is played by each player under 24
arrangements of the other four.  For an outcome ``Y`` (net stones per round
of round k alone, or over the first N rounds, or until the first CAMAT) the
variance is split by the balanced two-way mixed-model ANOVA (method of
moments; hands random, players fixed; Searle, Casella and McCulloch 1992,
ch. 4), 95% intervals by a bootstrap that resamples whole deals (Davison and
Hinkley 1997, sec. 3.8).  See the README for the formulas and the reasons.

    .venv/bin/python analysis/skill_share/run.py            # ~5 min on a busy machine
    .venv/bin/python analysis/skill_share/run.py --quick --out /tmp/ss   # a smoke run
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd
from _common import (
    Z95,
    Timer,
    environment,
    out_dir,
    save_fig,
    setup_matplotlib,
    write_csv,
    write_json,
    write_timings,
)

from domeng.batch.tables import run_tables
from domeng.core import layout as L
from domeng.core.rules import Rules
from domeng.study.arrangements import seatings
from domeng.study.tournament import STATS, duplicate_states, tournament

#: the fields: the main one spans the compiled players; the second has no random
#: player (two experts instead), to see how much of the luck the random player makes
FIELDS = {
    "main": ("random", "heavy", "keeper", "hunter", "expert"),
    "no random": ("heavy", "keeper", "hunter", "expert", "expert"),
}
SEED = 20261130
#: components of the variance, in the order of the figures
COMPONENTS = ("player", "position", "hand", "player_x_hand", "other")
LABELS = {
    "player": "player (skill)",
    "position": "starting position (seat from the opener)",
    "hand": "rest of the deal (the hand)",
    "player_x_hand": "player x hand",
    "opponents_order": "order of the opponents around the table",
    "chance": "chance: the players' random choices",
}
COLORS = {
    "player": "#2a7ab9",
    "position": "#e39b2d",
    "hand": "#f3cf8a",
    "player_x_hand": "#8e6bb8",
    "opponents_order": "#888888",
    "chance": "#d0d0d0",
}
#: the stacked bars: "other" split into the opponents' order and chance
BARS = ("player", "position", "hand", "player_x_hand", "opponents_order", "chance")


# ---------------------------------------------------------------- play
def play(
    field, deals: int, rounds: int, seed: int, timer: Timer, player_seed: int | None = None
) -> dict:
    """Every round of every seating of every deal: net stones per seat
    ``net[round, deal, seating, seat]``, the round's starter and its CAMAT
    (-1: none).  ``player_seed``: replay the same deals with the players'
    random streams of another seed (the chance in the players' own choices)."""
    rules = Rules()
    design = seatings("all")
    n_s = len(design)
    net = np.zeros((rounds, deals, n_s, 5), dtype=np.int16)
    starter = np.zeros((rounds, deals, n_s), dtype=np.int8)
    camat = np.full((rounds, deals, n_s), -1, dtype=np.int8)
    for j, seating in enumerate(design):
        lineup = [field[i] for i in seating]
        st = duplicate_states(seed, 0, deals, j, rules, n_s)
        if player_seed is not None:
            seats = slice(L.ST_SEAT_RNG, L.ST_SEAT_RNG + 5)
            st[:, seats] = duplicate_states(player_seed, 0, deals, j, rules, n_s)[:, seats]
        for k in range(rounds):
            out = run_tables(lineup, rules, seed, 0, deals, 1, threads=1, state=st)
            st = out.state
            flow = L.agg_field(out.agg, "A_FLOW")  # [D, 6 src, 5 dst, 7]
            net[k, :, j] = flow.sum(axis=(1, 3)) - flow[:, 1:].sum(axis=(2, 3))
            starter[k, :, j] = L.agg_field(out.agg, "A_STARTS").argmax(axis=1)
            c = L.agg_field(out.agg, "A_CAMAT")
            camat[k, :, j] = np.where(c.any(axis=1), c.argmax(axis=1), -1)
    timer.mark(
        f"play {deals} deals x {rounds} rounds x {n_s} seatings"
        + (" (other player streams)" if player_seed is not None else "")
    )
    return {"net": net, "starter": starter, "camat": camat, "design": design}


def check_against_tournament(data: dict, field, seed: int, deals: int, timer: Timer) -> dict:
    """The per-player net stones of the first ``deals`` deals equal
    ``domeng.study.tournament``'s (the same design and seeds), exactly."""
    rounds = data["net"].shape[0]
    t = tournament(
        list(field), deals=deals, rounds=rounds, seed=seed, orders="all", workers=1, progress=False
    )
    theirs = t.per_deal[:, :, STATS.index("net")]  # [deals, player]
    mine = np.zeros_like(theirs)
    tot = data["net"][:, :deals].astype(np.int64).sum(axis=0)  # [deals, seating, seat]
    for j, seating in enumerate(data["design"]):
        for s, p in enumerate(seating):
            mine[:, p] += tot[:, j, s]
    if not np.array_equal(mine, theirs):
        raise RuntimeError("round-by-round play disagrees with domeng.study.tournament")
    timer.mark(f"checked against domeng.study.tournament ({deals} deals)")
    return {"deals": deals, "equal": True}


def cells(y: np.ndarray, design) -> np.ndarray:
    """``y[deal, seating, seat]`` -> ``[deal, seat (hand), player, 24 replicates]``."""
    idx = np.zeros((5, 5, len(design) // 5), dtype=np.int64)
    fill = np.zeros((5, 5), dtype=np.int64)
    for j, seating in enumerate(design):
        for s, p in enumerate(seating):
            idx[s, p, fill[s, p]] = j
            fill[s, p] += 1
    return np.stack(
        [np.stack([y[:, idx[s, p], s] for p in range(5)], axis=1) for s in range(5)], axis=1
    )


# ---------------------------------------------------------------- the decomposition
def components(m: np.ndarray, w: np.ndarray, off: np.ndarray, r: int) -> dict[str, float]:
    """Variance components of one observation from the cell means ``m[deal,
    seat, player]``, the within-cell sums of squares ``w[deal]`` (``r``
    replicates per cell) and each hand's starting position ``off[deal, seat]``.

    Balanced two-way mixed model (hands random, players fixed, restricted
    parametrisation); method-of-moments estimators from the mean squares.
    ``player``: the variance of the players' means; ``hand``: of the hands'
    means (split into ``position``, the variance of the five position means,
    and the rest); ``player_x_hand``; ``other``: within a cell.  They add up
    to the variance of one observation (up to O(1/deals))."""
    d = m.shape[0]
    h, p = 5 * d, 5
    grand = m.mean()
    yp = m.mean(axis=(0, 1))
    yh = m.mean(axis=2)
    ms_p = h * r * ((yp - grand) ** 2).sum() / (p - 1)
    ms_h = p * r * ((yh - grand) ** 2).sum() / (h - 1)
    inter = m - yh[..., None] - yp + grand
    ms_hp = r * (inter**2).sum() / ((h - 1) * (p - 1))
    ms_e = w.sum() / (h * p * (r - 1))
    v_hand = (ms_h - ms_e) / (p * r)
    # position: the five position means (each over d hands), less their noise
    pos_means = np.array([yh[off == o].mean() for o in range(5)])
    pos_noise = np.mean([yh[off == o].var(ddof=1) / (off == o).sum() for o in range(5)])
    v_pos = ((pos_means - grand) ** 2).mean() - pos_noise
    out = {
        "player": (p - 1) / p * (ms_p - ms_hp) / (h * r),
        "position": v_pos,
        "hand": v_hand - v_pos,
        "player_x_hand": (p - 1) / p * (ms_hp - ms_e) / r,
        "other": ms_e,
    }
    out["total"] = sum(out[c] for c in COMPONENTS)
    return out


def shares(v: dict[str, float]) -> dict[str, float]:
    return {c: v[c] / v["total"] for c in COMPONENTS}


def decompose(y: np.ndarray, design, off: np.ndarray, boot: int, rng: np.random.Generator):
    """Components and shares of ``y[deal, seating, seat]`` with bootstrap
    95% intervals (whole deals resampled), and the players' means."""
    c = cells(y.astype(np.float64), design)  # [D, 5, 5, r]
    r = c.shape[-1]
    m = c.mean(axis=-1)
    w = ((c - m[..., None]) ** 2).sum(axis=(1, 2, 3))
    est = components(m, w, off, r)
    sh = shares(est)
    d = m.shape[0]
    bv, bs = [], []
    for _ in range(boot):
        i = rng.integers(0, d, d)
        v = components(m[i], w[i], off[i], r)
        bv.append(v)
        bs.append(shares(v))
    row = {"total_variance": est["total"], "sample_variance": float(c.var())}
    for k in COMPONENTS:
        row[f"{k}_var"] = est[k]
        row[f"{k}_share"] = sh[k]
        if boot:
            lo, hi = np.percentile([b[k] for b in bs], [2.5, 97.5])
            row[f"{k}_share_ci_low"], row[f"{k}_share_ci_high"] = lo, hi
    # players' means over all their cells, SE across deals (deals are independent)
    per_deal = m.mean(axis=1)  # [D, player]
    means = per_deal.mean(axis=0)
    ses = per_deal.std(axis=0, ddof=1) / np.sqrt(d)
    return row, means, ses


def first_camat(camat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Round (1-based) of the first CAMAT of each (deal, seating), capped at
    the rounds played; and the seat that became CAMAT (-1 if none)."""
    rounds = camat.shape[0]
    has = camat >= 0
    k = np.where(has.any(axis=0), has.argmax(axis=0), rounds - 1)
    seat = np.take_along_axis(camat, k[None], axis=0)[0]
    return k + 1, seat


def head_to_head(y: np.ndarray, design, a: int, b: int) -> tuple[float, float, float]:
    """Share of (deal, seating) games in which player ``a`` ends with fewer net
    stones than player ``b`` (ties count one half), SE across deals."""
    sa = np.array([s.index(a) for s in design])
    sb = np.array([s.index(b) for s in design])
    ya = np.take_along_axis(y, sa[None, :, None], axis=2)[..., 0]
    yb = np.take_along_axis(y, sb[None, :, None], axis=2)[..., 0]
    win = (ya < yb) + 0.5 * (ya == yb)
    per_deal = win.mean(axis=1)
    return (
        float(per_deal.mean()),
        float(per_deal.std(ddof=1) / np.sqrt(len(per_deal))),
        float((ya == yb).mean()),
    )


# ---------------------------------------------------------------- plots
def plot_shares(comp: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    comp = comp[comp.field == "main"]
    fig, ax = plt.subplots(figsize=(11, 0.42 * len(comp) + 2.2), layout="constrained")
    y = np.arange(len(comp))
    left = np.zeros(len(comp))
    for c in BARS:
        v = comp[f"{c}_share"].clip(lower=0).to_numpy()
        ax.barh(y, v, left=left, color=COLORS[c], label=LABELS[c], height=0.7)
        left += v
    for i, r in enumerate(comp.itertuples()):
        ax.text(
            1.01,
            i,
            f"{100 * r.player_share:.1f}% [{100 * r.player_share_ci_low:.1f}, "
            f"{100 * r.player_share_ci_high:.1f}]",
            va="center",
            fontsize=8,
            color=COLORS["player"],
        )
    ax.set_yticks(y)
    ax.set_yticklabels(comp["outcome"])
    ax.invert_yaxis()
    ax.set_xlim(0, 1.2)
    ax.set_xticks(np.linspace(0, 1, 6))
    ax.set_xlabel("share of the variance of the outcome (right: the player's share, 95% CI)")
    ax.set_title(
        "How much of Domeng is skill? Variance of a seat's net stones per round, by "
        "source\n(field random, heavy, keeper, hunter, expert; duplicate deals, 120 "
        "seatings each)"
    )
    fig.legend(fontsize=8, ncols=3, loc="outside lower center")
    save_fig(fig, out / "skill_share.png")


def plot_rounds(comp: pd.DataFrame, h2h: pd.DataFrame, out: Path) -> None:
    plt = setup_matplotlib()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), layout="constrained")
    ax = axes[0]
    for field, color in (("main", COLORS["player"]), ("no random", "#c0504d")):
        g = comp[(comp.kind == "first N rounds") & (comp.field == field)]
        ax.fill_between(
            g["n"],
            100 * g["player_share_ci_low"],
            100 * g["player_share_ci_high"],
            color=color,
            alpha=0.25,
            lw=0,
        )
        ax.plot(
            g["n"],
            100 * g["player_share"],
            "o-",
            color=color,
            ms=4,
            label=f"{field} field: player share over the first N rounds",
        )
        if field == "main":
            ax.plot(
                g["n"],
                100 * g["independent_rounds_share"],
                "--",
                color="#555555",
                label="main field, if each round's luck were independent",
            )
        gs = comp[(comp.kind == "round N alone") & (comp.field == field)]
        if len(gs):
            ax.plot(
                gs["n"],
                100 * gs["player_share"],
                "x",
                color=color,
                ms=7,
                label=f"{field} field: round 10 alone",
            )
    ax.axhline(50, color="#999999", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("rounds N (log scale)")
    ax.set_ylabel("player share of the variance (%, 95% CI)")
    ax.set_title("Skill share grows with the rounds aggregated")
    ax.legend(fontsize=7.5)
    ax = axes[1]
    h = h2h[h2h.field == "main"]
    for opp, gg in h.groupby("opponent", sort=False):
        ax.errorbar(
            gg["n"],
            gg["p"],
            yerr=Z95 * gg["se"],
            fmt="o-",
            ms=4,
            capsize=2,
            label=f"expert vs {opp}",
        )
    ax.axhline(0.5, color="#999999", ls="--", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("rounds N (log scale)")
    ax.set_ylabel("P(expert ends with fewer net stones)")
    ax.set_title(
        "Main field: how often the expert ends ahead of one opponent\n"
        "at the same table over N rounds (ties count 1/2)"
    )
    ax.legend(fontsize=8)
    save_fig(fig, out / "share_vs_rounds.png")


# ---------------------------------------------------------------- main
def horizons(rounds: int) -> list[int]:
    """The game lengths N of the study: 1, 2, 3, 5, 10, ... up to ``rounds``."""
    return [n for n in (1, 2, 3, 5, 10, 20, 30, 50, 100) if n < rounds] + [rounds]


def outcomes(data: dict) -> list[tuple[str, str, float, np.ndarray]]:
    """``(kind, label, N, y[deal, seating, seat])`` of every outcome studied:
    net stones per round over the first N rounds; round 10 alone; until the
    first CAMAT; and whether the seat becomes the first CAMAT (0/1)."""
    net = data["net"]
    rounds = net.shape[0]
    cum = np.cumsum(net.astype(np.int32), axis=0)  # [round, D, S, seat]
    out = []
    for n in horizons(rounds):
        label = "1 round (the first)" if n == 1 else f"first {n} rounds"
        out.append(("first N rounds", label, n, cum[n - 1] / n))
    if rounds >= 10:
        out.append(("round N alone", "round 10 alone", 10, net[9].astype(np.float64)))
    k, seat = first_camat(data["camat"])
    until = np.take_along_axis(cum, (k - 1)[None, :, :, None], axis=0)[0] / k[..., None]
    out.append(("until the first CAMAT", "until the first CAMAT", float(k.mean()), until))
    became = (seat[..., None] == np.arange(5)).astype(np.float64)
    out.append(
        ("becomes the first CAMAT", "becomes the first CAMAT (0/1)", float(k.mean()), became)
    )
    return out


def chance_part(y: np.ndarray, y_other: np.ndarray) -> tuple[float, float]:
    """The variance due to the players' random choices alone: the same deals
    and seatings played with other player streams, ``E[(y - y')^2] / 2``;
    SE across deals."""
    per_deal = ((y[: len(y_other)] - y_other) ** 2).mean(axis=(1, 2)) / 2
    return float(per_deal.mean()), float(per_deal.std(ddof=1) / np.sqrt(len(per_deal)))


def analyse(
    name: str,
    field,
    deals: int,
    rounds: int,
    chance_deals: int,
    boot: int,
    seed: int,
    check_deals: int,
    timer: Timer,
) -> dict:
    """Play one field and decompose every outcome (see the module docstring)."""
    labels = [f"{p}#{i}" if field.count(p) > 1 else p for i, p in enumerate(field)]
    data = play(field, deals, rounds, seed, timer)
    check = check_against_tournament(data, field, seed, min(check_deals, deals), timer)
    other = play(field, min(chance_deals, deals), rounds, seed, timer, player_seed=seed + 1)
    design = data["design"]
    starter0 = data["starter"][0]
    if not (starter0 == starter0[:, :1]).all():
        raise RuntimeError("the first round's opener differs between seatings (D3)")
    off = (np.arange(5)[None, :] - starter0[:, :1]) % 5  # [deal, seat]
    rng = np.random.default_rng(seed)
    rows, means = [], []
    for (kind, label, n, y), (_, _, _, y2) in zip(outcomes(data), outcomes(other)):
        row, mu, se = decompose(y, design, off, boot, rng)
        ch, ch_se = chance_part(y, y2)
        t = row["total_variance"]
        row.update(
            {
                "chance_var": ch,
                "chance_share": ch / t,
                "chance_share_ci_low": (ch - Z95 * ch_se) / t,
                "chance_share_ci_high": (ch + Z95 * ch_se) / t,
                "opponents_order_share": row["other_share"] - ch / t,
            }
        )
        rows.append({"field": name, "kind": kind, "outcome": label, "n": n, **row})
        means += [
            {
                "field": name,
                "kind": kind,
                "outcome": label,
                "n": n,
                "player": labels[p],
                "mean": v,
                "se": e,
            }
            for p, (v, e) in enumerate(zip(mu, se))
        ]
    timer.mark(f"{name} field: decompositions, {boot} bootstrap resamples")
    single = pd.DataFrame(
        [
            {"field": name, "n": j + 1, **decompose(data["net"][j], design, off, 0, rng)[0]}
            for j in range(rounds)
        ]
    )
    comp = pd.DataFrame(rows)
    # the reference curve: the player's part over N rounds, with the single rounds'
    # other parts averaged and divided by N (as if each round's luck were independent)
    luck = (single["total_variance"] - single["player_var"]).to_numpy()
    comp["independent_rounds_share"] = [
        r.player_var / (r.player_var + luck[: int(r.n)].mean() / r.n)
        if r.kind == "first N rounds"
        else np.nan
        for r in comp.itertuples()
    ]
    cum = np.cumsum(data["net"].astype(np.int32), axis=0)
    a = field.index("expert")
    h2h = pd.DataFrame(
        [
            {
                "field": name,
                "n": n,
                "opponent": labels[b],
                **dict(zip(("p", "se", "ties"), head_to_head(cum[n - 1], design, a, b))),
            }
            for n in horizons(rounds)
            for b in range(5)
            if b != a
        ]
    )
    k, seat = first_camat(data["camat"])
    meta = {
        "field": labels,
        "deals": deals,
        "rounds": rounds,
        "seatings": len(design),
        "rounds_played": int(deals * rounds * len(design)),
        "chance_deals": min(chance_deals, deals),
        "bootstrap": boot,
        "check_against_tournament": check,
        "first_camat_round": {
            "mean": float(k.mean()),
            "median": float(np.median(k)),
            "censored_share": float((seat < 0).mean()),
        },
    }
    return {"comp": comp, "single": single, "means": pd.DataFrame(means), "h2h": h2h, "meta": meta}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=500, help="deals of the main field")
    ap.add_argument("--rounds", type=int, default=120, help="rounds of the main field's games")
    ap.add_argument("--deals2", type=int, default=200, help="deals of the field without random")
    ap.add_argument("--rounds2", type=int, default=60, help="rounds of that field's games")
    ap.add_argument("--boot", type=int, default=1000, help="bootstrap resamples of the deals")
    ap.add_argument(
        "--chance-deals",
        type=int,
        default=100,
        help="deals replayed with other player streams (the chance part)",
    )
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument(
        "--check-deals", type=int, default=20, help="deals compared with domeng.study.tournament"
    )
    ap.add_argument("--quick", action="store_true", help="a tiny smoke run (seconds)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if args.quick:
        args.deals, args.rounds, args.deals2, args.rounds2 = 12, 4, 6, 3
        args.boot, args.check_deals, args.chance_deals = 20, 3, 6
    if (
        min(args.deals, args.deals2, args.chance_deals) < 3
        or min(args.rounds, args.rounds2) < 1
        or args.boot < 2
    ):
        ap.error(
            "need --deals, --deals2, --chance-deals >= 3, --rounds, --rounds2 >= 1, --boot >= 2"
        )
    out = Path(args.out) if args.out else out_dir(__file__)
    out.mkdir(parents=True, exist_ok=True)
    timer = Timer()
    runs = {
        name: analyse(
            name, field, d, r, args.chance_deals, args.boot, args.seed, args.check_deals, timer
        )
        for (name, field), d, r in zip(
            FIELDS.items(), (args.deals, args.deals2), (args.rounds, args.rounds2)
        )
    }
    comp, single, means, h2h = (
        pd.concat([x[k] for x in runs.values()], ignore_index=True)
        for k in ("comp", "single", "means", "h2h")
    )
    write_csv(comp, out / "components.csv")
    write_csv(single, out / "single_rounds.csv")
    write_csv(means, out / "player_means.csv")
    write_csv(h2h, out / "head_to_head.csv")
    plot_shares(comp, out)
    plot_rounds(comp, h2h, out)
    timer.mark("tables and plots")

    def ci(r, c):
        return {"value": r[f"{c}_share"], "ci95": [r[f"{c}_share_ci_low"], r[f"{c}_share_ci_high"]]}

    results = {
        "study": "skill_share",
        "seed": args.seed,
        "method": "balanced two-way mixed-model ANOVA (hands = deal x seat random, players "
        "fixed, 24 replicates = arrangements of the other four), method-of-moments "
        "variance components; 95% percentile intervals from a bootstrap over deals. "
        "Chance: the same deals replayed with other player streams.",
        "fields": {name: x["meta"] for name, x in runs.items()},
        "shares": {
            f"{r['field']} / {r['outcome']}": {
                **{c: ci(r, c) for c in COMPONENTS + ("chance",)},
                "opponents_order": r["opponents_order_share"],
            }
            for _, r in comp.iterrows()
        },
        "player_means": {},
        "head_to_head": h2h.to_dict("records"),
        "environment": environment(),
    }
    for r in means.itertuples():
        results["player_means"].setdefault(f"{r.field} / {r.outcome}", {})[r.player] = {
            "value": r.mean,
            "se": r.se,
        }
    write_json(results, out / "results.json")
    write_timings(timer, out)
    for r in comp.itertuples():
        print(
            f"{r.field:<9} {r.outcome:<30} player {100 * r.player_share:5.1f}% "
            f"[{100 * r.player_share_ci_low:.1f}, {100 * r.player_share_ci_high:.1f}]  "
            f"position {100 * r.position_share:4.1f}%  hand {100 * r.hand_share:4.1f}%  "
            f"PxH {100 * r.player_x_hand_share:4.1f}%  opponents' order "
            f"{100 * r.opponents_order_share:4.1f}%  chance {100 * r.chance_share:4.1f}%"
        )
    print(f"total {timer.total():.1f} s; outputs in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
