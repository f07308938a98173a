"""One vocabulary across the study commands (issue 23 item 5): the JSON
schema and estimate shape of every command, --list-metrics wherever a metric
is named, report of every kind of folder, reprs and loads, estimates()."""

from __future__ import annotations

import pytest

from domeng.cli.main import main


@pytest.mark.parametrize(
    "argv",
    [["simulate"], ["compare", "-V", "pollo=4"], ["sweep"], ["sweep", "-p", "expert"]],
    ids=["simulate", "compare", "sweep", "sweep-one-player"],
)
def test_list_metrics_on_every_command_that_names_one(argv, capsys):
    assert main([*argv, "--list-metrics"]) == 0
    out, err = capsys.readouterr()
    names = out.splitlines()
    assert err == "" and len(names) == len(set(names)) > 50
    assert {"passebunge_per_round", "end_kind.CEKI", "stones_per_round.total"} <= set(names)
    player = "expert" if "expert" in argv else "heavy"
    assert f"win_rate_by_player.{player}" in names


def test_target_ci_points_to_the_commands_own_list(capsys):
    assert main(["simulate", "--target-ci", "foo=1"]) == 2
    err = capsys.readouterr().err
    assert "domeng simulate --list-metrics" in err and err.count("\n") == 1


FIVE = "random,heavy,keeper,hunter,expert"
COMMANDS = {
    "simulate": (["simulate", "-t", "6", "-r", "3"], "domeng.summary/1"),
    "compare": (["compare", "-V", "pollo=4", "-t", "6", "-r", "3"], "domeng.compare/1"),
    "sweep": (["sweep", "--vary", "pollo=3,4", "-t", "6", "-r", "3"], "domeng.sweep/1"),
    "tournament": (
        ["tournament", "-p", FIVE, "-d", "3", "-r", "2", "--orders", "rotations"],
        "domeng.tournament/1",
    ),
    "ladder": (
        ["ladder", "-p", FIVE + ",random", "-d", "2", "-r", "2", "--orders", "rotations"],
        "domeng.ladder/1",
    ),
}
ESTIMATE = {"value", "se", "ci_low", "ci_high"}


def _estimates(x, path=""):
    """Every dict of the JSON that holds an estimate (a ``value`` or an ``se``)."""
    if isinstance(x, dict):
        if "value" in x or "se" in x:
            yield path, x
        for k, v in x.items():
            yield from _estimates(v, f"{path}.{k}")
    elif isinstance(x, list):
        for v in x:
            yield from _estimates(v, f"{path}[]")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_json_has_a_schema_and_one_estimate_shape(command, capsys):
    import json

    argv, schema = COMMANDS[command]
    assert main([*argv, "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["schema"] == schema
    if command in ("tournament", "ladder"):
        assert out["kind"] == command  # kept for one release beside "schema"
    found = list(_estimates(out))
    assert len(found) > 20
    for path, est in found:
        assert ESTIMATE <= set(est), (path, sorted(est))
        v, lo, hi = est["value"], est["ci_low"], est["ci_high"]
        if v is None:  # undefined (a mean over no events): nothing is made up
            assert est["se"] is None and lo is None and hi is None, (path, est)
            continue
        assert lo is not None and hi is not None and lo <= v <= hi, (path, est)
        if "ci95" in est:  # the tournament's old spelling, kept for one release
            assert est["ci95"] == [lo, hi]


def _long_named_field(name: str) -> list:
    from domeng.players.registry import PLAYER_IDS, PlayerSpec, resolve_players

    specs = resolve_players("random,heavy,keeper,expert,random", "tournament")
    return [*specs[:4], PlayerSpec(name=name, kind="builtin", pid=PLAYER_IDS["hunter"])]


def _columns_line_up(lines: list[str]) -> None:
    """Every line of a text table ends at the same column as its header and
    dashes (a right-aligned last column), and the dashes are as wide as the cells."""
    dashes = lines[1]
    starts = [i for i, c in enumerate(dashes) if c == "-" and (i == 0 or dashes[i - 1] == " ")]
    for line in lines:
        assert len(line.rstrip()) <= len(dashes.rstrip()), (line, dashes)
        for s in starts[1:]:
            assert line[s - 2 : s] == "  " or line[s - 1] == " ", (line, s)


def test_tournament_text_fits_a_long_name_and_shows_margins():
    import domeng

    name = "a-very-long-player-name-of-forty-chars.x"
    assert len(name) == 40
    t = domeng.tournament(
        _long_named_field(name), deals=3, rounds=2, orders="rotations", progress=False
    )
    text = t.to_text().splitlines()
    head = next(i for i, x in enumerate(text) if x.lstrip().startswith("player"))
    table = text[head : head + 7]
    _columns_line_up(table)
    row = next(x for x in table if name in x)
    # the name is whole and its figures follow it on its line
    assert row.split()[0] == name and len(row.split()) >= 6
    # the pairwise margins, every pair once, with intervals
    m = next(i for i, x in enumerate(text) if x.startswith("paired margins"))
    margins = text[m + 1 : m + 1 + 2 + 10]
    _columns_line_up(margins)
    assert sum(name in x for x in margins[2:]) == 4
    mg = t.margins()
    top, second = t.ranking().player[:2]
    r = mg[(mg.a == top) & (mg.b == second)].iloc[0]
    line = next(x for x in margins[2:] if x.split()[:2] == [top, second])
    assert f"{r.net_diff:.4f}" in line and ("±" in line or "[" in line)


def test_report_renders_a_tournament_and_a_ladder_folder(tmp_path, capsys):
    import json

    import domeng
    from domeng.study.ladder import LadderResults, load_results

    t = domeng.tournament(FIVE, deals=2, rounds=2, orders="rotations", progress=False)
    lad = domeng.ladder(FIVE + ",random", deals=1, rounds=1, orders="rotations", progress=False)
    for res, kind in ((t, "tournament"), (lad, "ladder")):
        d = tmp_path / kind
        res.save(d)
        (d / "report.html").unlink()
        (d / "summary.json").write_text("damaged")
        assert main(["report", str(d)]) == 0
        out = capsys.readouterr().out
        assert out.startswith(res.to_text().splitlines()[0]) and "report:" in out
        assert (d / "report.html").is_file()
        assert json.loads((d / "summary.json").read_text())["schema"] == f"domeng.{kind}/1"
        back = load_results(d)
        assert type(back) is type(res) and back.equals(res)
        assert (kind == "ladder") == isinstance(back, LadderResults)
        assert main(["report", str(d), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["schema"] == f"domeng.{kind}/1"


def test_report_refuses_a_corrupt_tournament_folder_in_one_line(tmp_path, capsys):
    import numpy as np

    import domeng

    t = domeng.tournament(FIVE, deals=2, rounds=2, orders="rotations", progress=False)
    t.save(tmp_path / "t")
    np.savez_compressed(
        tmp_path / "t" / "per_deal.npz", per_deal=t.per_deal[:, :3], meta=np.array("{}")
    )
    assert main(["report", str(tmp_path / "t")]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot read tournament results" in err


def test_loads_round_trip_and_reprs_are_one_useful_line(tmp_path):
    import domeng

    cmp = domeng.compare(["pollo=4"], tables=4, rounds=2, progress=False, out=tmp_path / "c")
    sw = domeng.sweep(
        ["pollo=3,4"], rules="ceki=2", tables=4, rounds=2, progress=False, out=tmp_path / "s"
    )
    c2, s2 = domeng.Comparison.load(tmp_path / "c"), domeng.Sweep.load(tmp_path / "s")
    assert c2.equals(cmp) and s2.equals(sw) and c2.to_json() == cmp.to_json()
    other = domeng.compare(["pollo=3"], tables=4, rounds=2, progress=False)
    assert not other.equals(cmp)  # equals can fail
    t = domeng.tournament(FIVE, deals=1, rounds=1, orders="rotations", progress=False)
    lad = domeng.ladder(FIVE + ",random", deals=1, rounds=1, orders="rotations", progress=False)
    reprs = {
        "simulate": repr(cmp.baseline),
        "compare": repr(cmp),
        "sweep": repr(sw),
        "tournament": repr(t),
        "ladder": repr(lad),
    }
    for kind, text in reprs.items():
        assert "object at 0x" not in text and "\n" not in text
        assert f"({kind}: " in text and "seed 0" in text and "players random" in text
    assert "4 tables x 2 rounds" in reprs["compare"] and "pollo_award=4" in reprs["compare"]
    assert "pollo_award=3,4" in reprs["sweep"] and "; ceki_award=2;" in reprs["sweep"]
    assert "2 deals" not in reprs["tournament"] and "1 deal x 1 round" in reprs["tournament"]
    assert "random#5" in reprs["ladder"]


def test_estimates_is_one_tidy_frame_of_every_estimate_and_is_written(tmp_path, capsys):
    import json

    import pandas as pd

    out = tmp_path / "study"
    assert main(["simulate", "-t", "6", "-r", "3", "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    import domeng

    res = domeng.Results.load(out)
    df = res.estimates()
    assert list(df.columns) == [
        *("metric", "seat", "player", "kind", "reason", "offset"),
        *("value", "se", "ci_low", "ci_high", "n", "unit", "name"),
    ]
    summary = json.loads(res.to_json())
    assert len(df) == len(set(df.name)) > 100  # every metric of the summary, once
    for r in df.itertuples():  # each row is its summary entry, found by its full name
        est = summary
        for part in r.name.split("."):
            est = est[part]
        if est["value"] is None:  # undefined in JSON, NaN in the frame
            assert pd.isna(r.value) and pd.isna(r.ci_low)
            continue
        assert est["value"] == pytest.approx(r.value)
        assert (est["se"], est["ci_low"], est["ci_high"]) == pytest.approx(
            (r.se, r.ci_low, r.ci_high)
        )
    seat = df[df.name == "passes_by_seat.3.passebunge_per_round"].iloc[0]
    assert (seat.metric, seat.seat, seat.n) == ("passes_by_seat.passebunge_per_round", 3, 18)
    assert pd.isna(seat.player) and pd.isna(seat.kind) and pd.isna(seat.reason)
    kind = df[df.name == "end_kind.CEKI"].iloc[0]
    assert (kind.metric, kind.kind) == ("end_kind", "CEKI")
    reason = df[df.name == "stones_per_round.by_reason_from_table.POLLO"].iloc[0]
    assert (reason.metric, reason.reason) == ("stones_per_round.by_reason_from_table", "POLLO")
    player = df[df.name == "win_rate_by_player.hunter"].iloc[0]
    assert (player.metric, player.player) == ("win_rate_by_player", "hunter")
    assert df[df.metric == "win_rate_by_starter_offset"].offset.tolist() == [0, 1, 2, 3, 4]
    # written by simulate --out (save) and again by domeng report
    csv = out / "tables" / "estimates.csv"
    assert pd.read_csv(csv).name.tolist() == df.name.tolist()
    csv.unlink()
    assert main(["report", str(out)]) == 0
    capsys.readouterr()
    back = pd.read_csv(csv)
    assert back.value.tolist() == pytest.approx(df.value.tolist(), nan_ok=True)


def _section(text: str, title: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(title) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


@pytest.mark.parametrize("seed", [0, 3])
def test_a_block_of_the_text_is_one_column_in_one_style(seed):
    """The "Per round" and "CAMAT" blocks each print their values as one
    column: "value ± h" only where every interval of it is symmetric, else
    "value [low, high]" throughout (it mixed "6.140 ± 0.763" with
    "0.990 [0.940, 0.998]"); never "± 0" for a wider interval."""
    import re

    import domeng

    res = domeng.simulate(tables=20, rounds=5, seed=seed, progress=False)
    text = res.to_text()
    for title in ("Per round", "CAMAT"):
        block = [x for x in _section(text, title) if not x.startswith("  CAMATs ")]
        assert len(block) >= 3
        styles = {"±" in x for x in block} | {("[" in x) * 2 for x in block}
        assert styles in ({True, 0}, {False, 2}), block  # all ± or all brackets
    assert not re.search(r"± 0\.0+(\s|$)", text)


def test_sweep_text_fits_a_long_point_name():
    import domeng

    sw = domeng.sweep(
        ["pollo=3,4", "passebunge_every_pass=true,false", "opener_leads_double=true,false"],
        tables=2,
        rounds=2,
        progress=False,
    )
    lines = sw.to_text(["stones_per_round.total"]).splitlines()
    rows = [x for x in lines if x.startswith("  pollo_award=")]
    assert len(rows) == 8 and max(len(x.split()[0]) for x in rows) > 44
    # each row: the name, at least two spaces, then the value, at one column for all
    assert all(x[2 + len(x.split()[0]) :][:2] == "  " for x in rows), rows
    value_at = {x.index("  change" if "  change" in x else "  (the reference)") for x in rows}
    assert len(value_at) == 1, rows  # the values end at one column (right-aligned)


def test_jupyter_table_is_one_column_in_one_style():
    """The HTML table Jupyter shows for a Results is one column of estimates:
    one style for all of them, as in the text."""
    import re

    import domeng

    html = domeng.simulate(tables=20, rounds=5, progress=False)._repr_html_()
    cells = re.findall(r"<td style='text-align:left'>([^<]*)</td>", html)
    ests = [c for c in cells if re.match(r"^-?\d+\.\d+ ", c)]
    assert len(ests) >= 13
    assert all("±" in c for c in ests) or all("[" in c for c in ests), ests


@pytest.mark.parametrize("command", ["tournament", "ladder"])
def test_tournament_and_ladder_report_cpu_time_per_decision(command, capsys, tmp_path):
    """issue 25 item 4: players_stats[*].decision_ms = {p50, p99} in the
    JSON, and in the text and the report."""
    import json

    argv, _ = COMMANDS[command]
    assert main([*argv, "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    names = set()
    for st in out["players_stats"]:
        ms = st["decision_ms"]
        assert 0 < ms["p50"] <= ms["p99"] < 1000 and ms["decisions"] >= 200
        names.add(st["player"])
    assert names == set(out["players"])
    d = tmp_path / "out"
    assert main([*argv, "--no-progress", "--out", str(d)]) == 0
    text = capsys.readouterr().out
    head = next(x for x in text.splitlines() if "player" in x and "net" in x)
    assert head.split()[-4:] == ["ms", "p50", "ms", "p99"]
    assert "CPU milliseconds per decision" in text
    assert "CPU ms / decision p99" in (d / "report.html").read_text()


def test_decision_times_are_measured_per_player():
    """A search player takes longer per decision than a heuristic (the
    measurement sees what the player does, not a constant)."""
    from domeng.core.rules import Rules
    from domeng.players.registry import resolve_players
    from domeng.study.decisions import decision_times

    specs = resolve_players("heavy,search-50,heavy,heavy,heavy", "tournament")
    t = decision_times(specs, ["heavy", "search-50", "h2", "h3", "h4"], Rules(), 0)
    assert t["search-50"]["p50"] > 3 * t["heavy"]["p50"]
    assert t["h2"] is t["heavy"]  # one player is timed once


def test_a_slow_player_is_timed_on_fewer_decisions(monkeypatch):
    import domeng.study.decisions as D
    from domeng.core.rules import Rules
    from domeng.players.registry import resolve_player

    monkeypatch.setattr(D, "BUDGET_NS", 1)  # any player is "slow" now
    t = D.decision_ms(resolve_player("heavy"), Rules(), 0)
    assert D.MIN_DECISIONS <= t["decisions"] < D.DECISIONS
