"""The leaderboard (issue 25 item 5): analysis/leaderboard/run.py runs end
to end at the smallest sizes on three cheap players (each seated twice, so
that a ladder of six makes six lineups), and the page's table holds every
player with its net stones per round and rating, each with its interval, and
its decision time from the ladder's ``decision_ms``; the page names the
command and seed that made it, and renders again from its saved ladder."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = "random,heavy,hunter,random,heavy,hunter"
DEALS = 3
#: a row of the page's table: rank, player, rating [low, high], net [low, high],
#: deals won of deals played, ms p50, ms p99
ROW = re.compile(
    r"^\| (\d+) \| `([^`]+)` \| ([+-]\d+) \[([+-]\d+), ([+-]\d+)\] \| "
    r"(-?\d+\.\d{3}) \[(-?\d+\.\d{3}), (-?\d+\.\d{3})\] \| ([\d.]+) of ([\d.]+) \| "
    r"([^ |]+) \| ([^ |]+) \|$"
)


def _script(name: str = "leaderboard"):
    spec = importlib.util.spec_from_file_location(
        f"analysis_{name}_run", ROOT / f"analysis/{name}/run.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """The page and data of a tiny leaderboard (seed 7)."""
    out = tmp_path_factory.mktemp("leaderboard")
    lb = _script()
    argv = ["--seed", "7", "--deals", str(DEALS), "--players", PLAYERS, "--boot", "30"]
    argv += ["--out", str(out / "leaderboard.md"), "--data", str(out / "data")]
    assert lb.main(argv) == 0
    results = json.loads((out / "data/results.json").read_text())
    return lb, out, (out / "leaderboard.md").read_text(), results


def _rows(page: str) -> list[tuple]:
    return [m.groups() for m in map(ROW.match, page.splitlines()) if m]


def test_the_page_ranks_every_player_with_intervals(made):
    _, _, page, results = made
    rows = _rows(page)
    stats = {p["player"]: p for p in results["players_stats"]}
    assert [r[1] for r in rows] != [] and sorted(r[1] for r in rows) == sorted(results["players"])
    assert len(stats) == 6 and [int(r[0]) for r in rows] == list(range(1, 7))
    ratings = [int(r[2]) for r in rows]
    assert ratings == sorted(ratings, reverse=True)  # ranked by rating
    assert abs(sum(ratings)) <= len(ratings)  # centred on 0 (each rounded to a point)
    for _, name, rating, r_lo, r_hi, net, n_lo, n_hi, won, played, p50, p99 in rows:
        assert int(r_lo) <= int(rating) <= int(r_hi), name
        assert float(n_lo) < float(net) < float(n_hi), name  # a real interval: deals vary
        assert float(net) == pytest.approx(stats[name]["net"]["value"], abs=5e-4)
        assert float(n_lo) == pytest.approx(stats[name]["net"]["ci_low"], abs=5e-4)
        assert float(played) == 5 * DEALS  # one pairwise deal against each other player
        assert 0 <= float(won) <= float(played)
        ms = stats[name]["decision_ms"]  # the ladder's own timing
        assert ms["decisions"] > 0 and 0 < float(p50) <= float(p99)
        assert (p50, p99) == (f"{ms['p50']:.3g}", f"{ms['p99']:.3g}")
    assert sum(float(r[8]) for r in rows) == pytest.approx(DEALS * 15)  # every pair's deals


def test_the_page_names_its_command_seed_and_sizes(made):
    _, _, page, _ = made
    command = f".venv/bin/python analysis/leaderboard/run.py --seed 7 --deals {DEALS} --boot 30"
    assert f"```bash\n{command} --players {PLAYERS}\n```" in page
    assert "seed **7**" in page
    assert f"6 lineups x {DEALS} deals x 1 round x 5 seatings (`rotations`)" in page
    assert "CPU-minutes" in page
    assert "Not on the board" not in page  # every player issue 25 asks for exists


def test_the_page_ranks_every_builtin_of_the_catalogue():
    """The page's players (issue 25 item 5) are every built-in that may sit in
    a ladder, the learned player and ``best`` included, each once."""
    from domeng.players.catalogue import builtin_names

    players = _script().PLAYERS.split(",")
    assert sorted(players) == sorted(builtin_names("tournament"))
    assert {"learned", "best"} <= set(players) and len(players) == 12


def test_the_data_beside_the_page_agrees_with_it(made):
    _, out, page, results = made
    table = pd.read_csv(out / "data/leaderboard.csv")
    rows = _rows(page)
    assert list(table["player"]) == [r[1] for r in rows]
    assert [f"{v:+.0f}" for v in table["rating"]] == [r[2] for r in rows]
    assert [r["player"] for r in results["leaderboard"]] == [r[1] for r in rows]
    wins = pd.read_csv(out / "data/pairwise.csv", index_col="player")
    assert list(wins.index) == [r[1] for r in rows]
    w, off = wins.to_numpy(), ~np.eye(6, dtype=bool)
    assert ((w + w.T)[off] == DEALS).all() and (w.diagonal() == 0).all()  # every deal, each pair
    assert (out / "data/ladder/per_deal.npz").is_file()


def test_the_page_renders_again_from_its_saved_ladder(made, tmp_path):
    """--from-folder: the same page, command and seed included, with no game played."""
    lb, out, page, _ = made
    again = tmp_path / "again.md"
    argv = ["--from-folder", str(out / "data/ladder"), "--boot", "30", "--out", str(again)]
    assert lb.main([*argv, "--data", str(tmp_path / "data")]) == 0
    assert again.read_text() == page


def test_bad_input_is_refused_in_one_line(made, tmp_path, capsys):
    lb = made[0]
    capsys.readouterr()
    missing = ["--from-folder", str(tmp_path / "nothing"), "--out", str(tmp_path / "p.md")]
    assert lb.main(missing) == 2
    assert lb.main(["--players", "random,heavy,hunter", "--out", str(tmp_path / "p.md")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("error: ") for line in err), err
    assert "at least 5 players" in err[1]
    assert not (tmp_path / "p.md").exists()


def test_the_ladder_script_shares_the_run(tmp_path):
    """analysis/ladder runs the same ladder (analysis/_common.run_ladder) and
    writes its ranking, margins, figure and summary."""
    mod = _script("ladder")
    argv = ["--players", PLAYERS, "--deals", "2", "--rounds", "1", "--orders", "rotations"]
    assert mod.main([*argv, "--out", str(tmp_path)]) == 0
    ranking = pd.read_csv(tmp_path / "ranking.csv")
    assert len(ranking) == 6 and (tmp_path / "ladder.png").stat().st_size > 0
    summary = json.loads((tmp_path / "results.json").read_text())
    assert summary["seed"] == 13 and summary["cpu_minutes"] > 0 and summary["seconds"] > 0


def test_the_committed_page_is_what_its_saved_ladder_renders(tmp_path):
    """docs/leaderboard.md and analysis/leaderboard/output/ladder agree: the
    page renders again, to the letter, from the data committed beside it."""
    saved = ROOT / "analysis/leaderboard/output/ladder"
    page = tmp_path / "leaderboard.md"
    argv = ["--from-folder", str(saved), "--out", str(page), "--data", str(tmp_path / "d")]
    assert _script().main(argv) == 0
    assert page.read_text() == (ROOT / "docs/leaderboard.md").read_text()
