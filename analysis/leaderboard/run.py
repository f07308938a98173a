"""The leaderboard (issue 25 item 5): every built-in player ranked by one
duplicate ladder, written as the page docs/leaderboard.md.

Every lineup of five of the players plays the same deals under every seating
of the design (the one ladder: ``domeng.study.ladder``, run as
analysis/ladder does); the page gives each player's net stones per round
(95% intervals across deals), a Bradley-Terry rating on the Elo scale fitted
to the pairwise duplicate results (player i beats player j in a deal when it
took fewer net stones per round there; intervals by a bootstrap over deals:
``domeng.results.stats.rating_intervals``) and the CPU time per decision
(p50, p99: the ladder's ``decision_ms``, ``domeng.study.decisions``).  One
command remakes the page from its seed; bigger sizes make a sharper one:

    .venv/bin/python analysis/leaderboard/run.py --seed 2026            # the page: 48 CPU-min (session 15), 126 with the capped best on a slower VM (session 20)
    .venv/bin/python analysis/leaderboard/run.py --seed 2026 --deals 200 --rounds 10 \\
        --orders balanced                                               # CPU-days, sharper
    .venv/bin/python analysis/leaderboard/run.py --from-folder analysis/leaderboard/output/ladder

``--from-folder`` renders the page again from a saved ladder (no game played).
Written: the page (``--out``), and in ``--data`` (analysis/leaderboard/output)
the ladder's folder (``ladder/``, what ``domeng ladder --out`` writes),
``leaderboard.csv`` (the page's table), ``pairwise.csv`` (deals won, row
against column), ``ranking.csv``, ``margins.csv`` and ``results.json``.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
import time
from itertools import pairwise
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))

from _common import add_ladder_arguments, run_ladder, write_csv, write_ladder  # noqa: E402

from domeng.core.errors import DomengError  # noqa: E402
from domeng.players.catalogue import BEST  # noqa: E402
from domeng.results.stats import pairwise_wins, rating_intervals  # noqa: E402
from domeng.study.ladder import load_results  # noqa: E402
from domeng.study.tournament import STATS  # noqa: E402

#: every built-in player that may sit in a ladder, at its default budget
PLAYERS = "random,heavy,keeper,hunter,expert,learned,search,esearch,isearch,nsearch,ismcts,best"
#: the page's sizes (its run: the page says how long it took)
DEFAULTS = {"seed": 2026, "deals": 32, "rounds": 1, "orders": "rotations", "boot": 2000}


def deal_scores(res) -> np.ndarray:
    """``[deals, players]``: each player's net stones per round in each deal
    (summed over its lineups and seatings), what the pairwise results compare."""
    net = res.per_deal[:, :, STATS.index("net")].astype(float)
    rounds = res.per_deal[:, :, STATS.index("rounds")].astype(float)
    return net / rounds


def board(res, boot: int, seed: int) -> list[dict]:
    """One row per player, ranked by rating: net stones per round with its
    interval, the rating with its bootstrap interval, the pairwise deals it
    won against the field, and the CPU time per decision."""
    table = res.table().set_index("player")
    scores = deal_scores(res)
    rating, low, high = rating_intervals(scores, boot=boot, seed=seed)
    wins = pairwise_wins(scores)
    times = res.meta.get("decision_ms") or {}
    rows = []
    for i, name in enumerate(res.players):
        t = table.loc[name]
        ms = times.get(name) or {}
        rows.append(
            {
                "player": name,
                "net": float(t["net"]),
                "net_ci_low": float(t["net_ci_low"]),
                "net_ci_high": float(t["net_ci_high"]),
                "rating": float(rating[i]),
                "rating_ci_low": float(low[i]),
                "rating_ci_high": float(high[i]),
                "deal_wins": float(wins[i].sum()),
                "deal_games": float(wins[i].sum() + wins[:, i].sum()),
                "ms_p50": ms.get("p50"),
                "ms_p99": ms.get("p99"),
            }
        )
    # equal pairwise records give equal ratings, which the fit's last bits (numpy
    # and BLAS versions) would order at random: ratings within 1e-6 Elo are a tie,
    # broken by the net stones per round, lower first (as the page lists them)
    rows.sort(key=lambda r: (-round(r["rating"], 6), r["net"]))
    return rows


def _ms(v) -> str:
    return "-" if v is None else f"{v:.3g}"


def _minutes(x: float) -> str:
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"


def _sizes(m: dict, rounds_each: int) -> str:
    """The sizes line: the design, its rounds and what the run cost."""
    cost = ""
    if m.get("cpu_minutes"):
        cost = (
            f"; it took {_minutes(m['cpu_minutes'])} CPU-minutes "
            f"({_minutes(m.get('wall_minutes', 0))} minutes of wall time, one process "
            "on a shared 2-core machine)"
        )
    single = (
        " Each game is one round, the first of a game: the holder of the highest double "
        "opens with it (D3) and nothing carries over from an earlier round (D16): these are "
        "first-round figures."
        if m["rounds"] == 1
        else ""
    )
    return (
        f"**Sizes**: {m['lineups']} lineups x {m['deals']} deals x {m['rounds']} "
        f"round{'s' if m['rounds'] != 1 else ''} x {m['seatings']} seatings "
        f"(`{m['orders']}`), {rounds_each:,} rounds per player, {m['rules_text']}{cost}." + single
    )


def render(res, rows: list[dict], command: str) -> str:
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
        "penalties: **lower net is better**. The page is made by one command "
        "(`analysis/leaderboard/run.py`) from the seed "
        f"**{m['seed']}**:",
        "",
        "```bash",
        command,
        "```",
        "",
        _sizes(m, rounds_each) + _resolution(res, [r["player"] for r in rows]),
        "",
        "| # | player | rating (Elo) [95%] | net stones per round [95%] | deals won | "
        "ms per decision p50 | p99 |",
        "|---|---|---|---|---|---|---|",
    ]
    for k, r in enumerate(rows):
        lines.append(
            f"| {k + 1} | `{r['player']}` | {r['rating']:+.0f} "
            f"[{r['rating_ci_low']:+.0f}, {r['rating_ci_high']:+.0f}] | "
            f"{r['net']:.3f} [{r['net_ci_low']:.3f}, {r['net_ci_high']:.3f}] | "
            f"{r['deal_wins']:g} of {r['deal_games']:g} | {_ms(r['ms_p50'])} | "
            f"{_ms(r['ms_p99'])} |"
        )
    lines += [
        "",
        *_method(m),
        *_pairwise(res, [r["player"] for r in rows]),
    ]
    return "\n".join(lines) + "\n"


def _method(m: dict) -> list[str]:
    return [
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
        "percentile, measured by the ladder in the reference engine at a table of five "
        "copies of the player (`domeng/study/decisions.py`); measured, so they vary from "
        "run to run (the net stones and ratings do not: the seed fixes them).",
        "* Budgets are each player's default ([players](players.md)): `search` is "
        "`search-400`, `esearch`, `isearch` and `nsearch` take 100 samples, `ismcts` "
        f"1,000 iterations; `best` is `{m.get('best', BEST)}` (the strongest built-in "
        "within 100 ms a "
        "decision at p99), under its own name.",
        "",
    ]


def pairwise_table(res, order: list[str]) -> pd.DataFrame:
    """Deals won by the row's player against the column's, in ``order``."""
    wins = pairwise_wins(deal_scores(res))
    idx = [res.players.index(n) for n in order]
    return pd.DataFrame(wins[np.ix_(idx, idx)], index=order, columns=order)


def _pairwise(res, names: list[str]) -> list[str]:
    wins = pairwise_table(res, names)
    lines = [
        "## Pairwise results",
        "",
        f"Deals won by the row's player against the column's (of {res.meta['deals']}; "
        "ties count half):",
        "",
        "| | " + " | ".join(f"`{n}`" for n in names) + " |",
        "|---" * (len(names) + 1) + "|",
    ]
    for a in names:
        cells = ["-" if a == b else f"{wins.loc[a, b]:g}" for b in names]
        lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
    lines += ["", "Paired margins of neighbours in the ranking (a - b, net stones per round):", ""]
    lines += ["| a | b | a - b [95%] |", "|---|---|---|"]
    for a, b, d, lo, hi in neighbour_margins(res, names):
        lines.append(f"| `{a}` | `{b}` | {d:+.3f} [{lo:+.3f}, {hi:+.3f}] |")
    return lines


def neighbour_margins(res, names: list[str]) -> list[tuple[str, str, float, float, float]]:
    """``(a, b, a - b, low, high)``: the paired margin of net stones per round
    of each two neighbours of ``names`` (the ladder's margins, both ways)."""
    m = res.margins().set_index(["a", "b"])
    return [
        (a, b, *(float(m.loc[(a, b), c]) for c in ("net_diff", "ci_low", "ci_high")))
        for a, b in pairwise(names)
    ]


def _resolution(res, names: list[str]) -> str:
    """What the page's sizes resolve: the paired margins whose interval excludes 0."""
    m = res.margins()
    m = m[m.a.map(names.index) < m.b.map(names.index)]  # each pair once
    apart = int(m.significant.sum())
    close = sum(lo <= 0 <= hi for *_, lo, hi in neighbour_margins(res, names))
    text = (
        f" Of the {len(m)} paired margins between two players, {apart} "
        f"exclude{'s' if apart == 1 else ''} 0, and {close} of the {len(names) - 1} "
        "between neighbours in the ranking include it (the order of those two is not "
        "settled)."
    )
    if res.meta["rounds"] == 1:
        text += (
            " One round shows little skill (in one round the player explains 0.3% of the "
            "variance of a seat's net stones: `analysis/skill_share/README.md`)."
        )
    return (
        text + " More deals (`--deals`), longer games (`--rounds 10`) and more seatings "
        "(`--orders balanced`) make a sharper page, at CPU-hours to CPU-days."
    )


def command_line(args) -> str:
    """The command that makes this page again (the sizes given, the seed)."""
    parts = [".venv/bin/python", "analysis/leaderboard/run.py", "--seed", str(args.seed)]
    for key in ("deals", "rounds", "orders", "boot"):
        if getattr(args, key) != DEFAULTS[key]:
            parts += [f"--{key}", str(getattr(args, key))]
    if args.players != PLAYERS:
        parts += ["--players", args.players]
    return shlex.join(parts)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sizes = {k: DEFAULTS[k] for k in ("deals", "rounds", "seed", "orders")}
    add_ladder_arguments(ap, PLAYERS, **sizes)
    ap.add_argument("--boot", type=int, default=DEFAULTS["boot"], help="bootstrap resamples")
    ap.add_argument("--out", default=str(ROOT / "docs" / "leaderboard.md"), help="the page")
    ap.add_argument("--data", default=str(HERE / "output"), help="the ladder's folder and tables")
    ap.add_argument("--from-folder", default=None, help="render a saved ladder again")
    return ap


def main(argv=None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    if args.boot < 10:
        ap.error("--boot must be at least 10")
    t0 = time.time()
    try:
        if args.from_folder:
            res = load_results(args.from_folder)
            if res.meta.get("kind") != "ladder":
                raise DomengError(f"{args.from_folder} holds a tournament, not a ladder")
            args.seed, args.deals, args.rounds = res.meta["seed"], res.deals, res.meta["rounds"]
            # the players as given (a name given twice is labelled by position: random#5)
            args.orders = res.meta["orders"]
            args.players = ",".join(re.sub(r"#\d+$", "", p) for p in res.players)
        else:
            res = run_ladder(args)
    except DomengError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    if not args.from_folder:
        res.meta["best"] = BEST  # what `best` played in this run (a later page names it)
        res.save(data / "ladder", overwrite=True)
    res.meta["boot"] = args.boot
    rows = board(res, args.boot, args.seed)
    page = render(res, rows, command_line(args))
    Path(args.out).write_text(page)
    write_csv(pd.DataFrame(rows), data / "leaderboard.csv")
    wins = pairwise_table(res, [r["player"] for r in rows])
    write_csv(wins.rename_axis("player").reset_index(), data / "pairwise.csv")
    write_ladder(res, data, leaderboard=rows)
    print(page)
    print(f"written {args.out} and {data} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
