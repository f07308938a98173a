"""The leaderboard (issue 25 item 5): every built-in player ranked by one
duplicate ladder, written as the page docs/leaderboard.md.

Every lineup of five of the players plays the same deals under every seating
of the design (``domeng.study.ladder``); the page gives each player's net
stones per round (95% intervals across deals), a Bradley-Terry rating on the
Elo scale fitted to the pairwise duplicate results (player i beats player j
in a deal when it took fewer net stones per round there; intervals by a
bootstrap over deals: ``domeng.results.stats.rating_intervals``) and the CPU
time per decision (p50, p99: ``domeng.study.decisions``).  One command
remakes the page from its seed; bigger sizes make a sharper one:

    .venv/bin/python analysis/leaderboard/run.py --seed 2026            # the page's sizes
    .venv/bin/python analysis/leaderboard/run.py --seed 2026 --deals 200 --rounds 10 \\
        --orders balanced --workers 2                                  # hours, sharper
    .venv/bin/python analysis/leaderboard/run.py --from-folder analysis/leaderboard/output/ladder

``--from-folder`` renders the page again from a saved ladder (no game played).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from itertools import pairwise
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))

from _common import environment, write_json  # noqa: E402

from domeng.results.stats import pairwise_wins, rating_intervals  # noqa: E402
from domeng.study.ladder import ladder, load_results  # noqa: E402
from domeng.study.tournament import STATS  # noqa: E402

#: every built-in player that may sit in a ladder, at its default budget
PLAYERS = "random,heavy,keeper,hunter,expert,search,esearch,isearch,nsearch,ismcts"
#: the players issue 25 asks for that do not exist yet
MISSING = {
    "the learned player": "issue 25 item 1: a policy and value network trained by self-play",
    "best": "issue 25 item 2: the name of the strongest built-in player",
}
#: the page's sizes: about 15 CPU-minutes on this machine
DEFAULTS = {"seed": 2026, "deals": 10, "rounds": 1, "orders": "rotations", "boot": 2000}


def deal_scores(res) -> np.ndarray:
    """``[deals, players]``: each player's net stones per round in each deal
    (summed over its lineups and seatings), what the pairwise results compare."""
    net = res.per_deal[:, :, STATS.index("net")].astype(float)
    rounds = res.per_deal[:, :, STATS.index("rounds")].astype(float)
    return net / rounds


def board(res, boot: int, seed: int) -> list[dict]:
    """One row per player, ranked by rating: net stones per round with its
    interval, the rating with its bootstrap interval, the deals it won
    against the field, and the time per decision."""
    table = res.table().set_index("player")
    scores = deal_scores(res)
    rating, low, high = rating_intervals(scores, boot=boot, seed=seed)
    wins = pairwise_wins(scores)
    times = res.meta.get("decision_ms", {})
    rows = []
    for i, name in enumerate(res.players):
        t = table.loc[name]
        ms = times.get(name, {})
        rows.append(
            {
                "player": name,
                "net": float(t["net"]),
                "net_ci": [float(t["net_ci_low"]), float(t["net_ci_high"])],
                "rating": float(rating[i]),
                "rating_ci": [float(low[i]), float(high[i])],
                "deal_wins": float(wins[i].sum()),
                "deal_games": float(wins[i].sum() + wins[:, i].sum()),
                "ms_p50": ms.get("p50"),
                "ms_p99": ms.get("p99"),
            }
        )
    rows.sort(key=lambda r: -r["rating"])
    return rows


def _ms(v) -> str:
    return "-" if v is None else f"{v:.3g}"


def render(res, rows: list[dict], command: str, cpu_minutes: float | None) -> str:
    """The Markdown page."""
    m = res.meta
    rounds_each = int(res.per_deal[:, 0, STATS.index("rounds")].sum())
    lines = [
        "# Leaderboard",
        "",
        "Every built-in player of domeng, ranked by one duplicate ladder "
        "([`domeng.ladder`](study.md)): every lineup of five of the "
        f"{len(res.players)} players plays the same deals under every seating of the design, "
        "so each player meets every other equally often on the same tiles. Stones are "
        "penalties: **lower net is better**. The page is made by one command from the seed "
        f"**{m['seed']}**:",
        "",
        "```bash",
        command,
        "```",
        "",
        f"**Sizes**: {m['lineups']} lineups x {m['deals']} deals x {m['rounds']} "
        f"round{'s' if m['rounds'] != 1 else ''} x {m['seatings']} seatings "
        f"(`{m['orders']}`), {rounds_each:,} rounds per player, {m['rules_text']}"
        + (
            f"; about {cpu_minutes:.0f} CPU-minutes on a shared 2-core machine"
            if cpu_minutes
            else ""
        )
        + ". These sizes are small, so the intervals are wide and neighbours in the ranking "
        "are not resolved; the same command with `--deals 200 --rounds 10 --orders balanced` "
        "makes a sharper page (hours of CPU).",
        "",
        "| # | player | rating (Elo) [95%] | net stones per round [95%] | deals won | "
        "ms per decision p50 | p99 |",
        "|---|---|---|---|---|---|---|",
    ]
    for k, r in enumerate(rows):
        lo, hi = r["rating_ci"]
        nlo, nhi = r["net_ci"]
        lines.append(
            f"| {k + 1} | `{r['player']}` | {r['rating']:+.0f} [{lo:+.0f}, {hi:+.0f}] | "
            f"{r['net']:.3f} [{nlo:.3f}, {nhi:.3f}] | "
            f"{r['deal_wins']:g} of {r['deal_games']:g} | {_ms(r['ms_p50'])} | "
            f"{_ms(r['ms_p99'])} |"
        )
    lines += [
        "",
        "Not on the board yet: "
        + "; ".join(f"**{k}** ({v})" for k, v in MISSING.items())
        + ". They join it when they exist.",
        "",
        "## How it is measured",
        "",
        "* **Net stones per round**: stones received minus stones given, per round, "
        "summed over every lineup and seating the player sat in; 95% intervals across "
        "deals (the independent units: `domeng.results.stats`).",
        "* **Rating**: a Bradley-Terry model on the Elo scale "
        "(`domeng.results.stats.bradley_terry`: a gap of 400 points is odds of 10 to 1), "
        "fitted to the pairwise duplicate results: in each deal, player i beats player j "
        "when it took fewer net stones per round (a tie counts half). One virtual drawn "
        "game per pair keeps the fit finite when one player won every deal against "
        "another. Ratings are centred on 0 (the field's mean); the intervals are "
        f"percentile intervals of {m.get('boot', DEFAULTS['boot']):,} bootstrap "
        "resamples of the deals (`rating_intervals`).",
        "* **Deals won**: pairwise deal wins against the other players, of all its pairwise deals.",
        "* **Time per decision**: CPU milliseconds of one decision, median and 99th "
        "percentile, measured in the reference engine at a table of five copies of the "
        "player (`domeng/study/decisions.py`); measured, so they vary from run to run.",
        "* Budgets are each player's default ([players](players.md)): `search` is "
        "`search-400`, `esearch`, `isearch` and `nsearch` take 100 samples, `ismcts` "
        "1,000 iterations.",
        "",
        "## Pairwise results",
        "",
        f"Deals won by the row's player against the column's (of {m['deals']}; ties count half):",
        "",
    ]
    order = [res.players.index(r["player"]) for r in rows]
    wins = pairwise_wins(deal_scores(res))
    names = [res.players[i] for i in order]
    lines.append("| | " + " | ".join(f"`{n}`" for n in names) + " |")
    lines.append("|---" * (len(names) + 1) + "|")
    for i in order:
        cells = ["-" if i == j else f"{wins[i, j]:g}" for j in order]
        lines.append(f"| `{res.players[i]}` | " + " | ".join(cells) + " |")
    lines += ["", "Paired margins of neighbours in the ranking (a - b, net stones per round):", ""]
    margins = res.margins()
    lines += ["| a | b | a - b [95%] |", "|---|---|---|"]
    for a, b in pairwise(names):
        r = margins[(margins.a == a) & (margins.b == b)].iloc[0]
        lines.append(f"| `{a}` | `{b}` | {r.net_diff:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}] |")
    return "\n".join(lines) + "\n"


def command_line(args) -> str:
    """The command that makes this page again (the sizes given, the seed)."""
    parts = [".venv/bin/python", "analysis/leaderboard/run.py", "--seed", str(args.seed)]
    for key in ("deals", "rounds", "orders", "boot"):
        if getattr(args, key) != DEFAULTS[key]:
            parts += [f"--{key}", str(getattr(args, key))]
    if args.players != PLAYERS:
        parts += ["--players", args.players]
    return shlex.join(parts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=DEFAULTS["seed"])
    ap.add_argument("--deals", type=int, default=DEFAULTS["deals"])
    ap.add_argument("--rounds", type=int, default=DEFAULTS["rounds"])
    ap.add_argument("--orders", default=DEFAULTS["orders"])
    ap.add_argument("--boot", type=int, default=DEFAULTS["boot"], help="bootstrap resamples")
    ap.add_argument("--players", default=PLAYERS)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "docs" / "leaderboard.md"), help="the page")
    ap.add_argument("--data", default=str(HERE / "output"), help="the ladder's folder and JSON")
    ap.add_argument("--from-folder", default=None, help="render a saved ladder again")
    args = ap.parse_args(argv)
    if args.boot < 10:
        ap.error("--boot must be at least 10")
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    t0, c0 = time.time(), time.process_time()
    if args.from_folder:
        res = load_results(args.from_folder)
        args.seed, args.deals, args.rounds = res.meta["seed"], res.deals, res.meta["rounds"]
        args.orders, args.players = res.meta["orders"], ",".join(res.players)
        cpu = res.meta.get("cpu_minutes")
    else:
        res = ladder(
            args.players,
            deals=args.deals,
            rounds=args.rounds,
            seed=args.seed,
            orders=args.orders,
            workers=args.workers,
            progress=False,
        )
        cpu = (time.process_time() - c0) / 60.0
        res.meta["cpu_minutes"] = cpu
        res.meta["boot"] = args.boot
        res.save(data / "ladder", overwrite=True)
    res.meta["boot"] = args.boot
    rows = board(res, args.boot, args.seed)
    page = render(res, rows, command_line(args), cpu)
    Path(args.out).write_text(page)
    write_json(
        {"rows": rows, **res.summary(), "environment": environment()}, data / "leaderboard.json"
    )
    print(page)
    print(f"written {args.out} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
