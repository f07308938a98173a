"""The study layer: simulate() sums tables into groups, independently of the
chunk size; its estimates and standard errors; input validation; records."""

from __future__ import annotations

import io

import numpy as np
import pyarrow.parquet as pq
import pytest

import domeng
from domeng.batch.reference import run_reference
from domeng.core import layout as L
from domeng.core.errors import DomengError, PlayerError, RulesError
from domeng.core.rules import Rules
from domeng.infra.progress import Progress
from domeng.players.registry import make_player
from domeng.results.stats import critical, ratio
from domeng.study import chunks as chunks_mod
from domeng.study import records as records_mod
from domeng.study import summary
from domeng.study.simulate import DEFAULT_PLAYERS, StudyError, simulate
from domeng.study.summary import summarize_state

MIXED = "random,heavy,keeper,hunter,random"


def test_chunk_size_does_not_change_results():
    kw = dict(tables=7, rounds=9, players=MIXED, seed=5, progress=False)
    one = simulate(chunk_tables=1, **kw)
    three = simulate(chunk_tables=3, **kw)
    whole = simulate(chunk_tables=7, **kw)
    for other in (three, whole):
        assert np.array_equal(one.group_agg, other.group_agg)
        assert np.array_equal(one.group_state, other.group_state)
        assert one.summary() == other.summary()
    assert one.total_rounds == 63


def test_local_chunks_played_together_give_the_numbers_of_one_chunk_a_call(monkeypatch):
    """Without records or a checkpoint, consecutive chunks share one engine
    call (fewer calls than chunks); the results are those of one call a chunk."""
    kw = dict(tables=23, rounds=5, players=MIXED, seed=7, chunk_tables=2)
    done: list = []
    together = simulate(progress=lambda d, t: done.append(d), **kw)
    assert done == [min(2 * k, 23) for k in range(1, 13)]  # every chunk counted, in order
    real, calls = chunks_mod.run_tables, []

    def spy(*args, **kwargs):
        calls.append(args[4])  # the tables of the call
        return real(*args, **kwargs)

    monkeypatch.setattr(chunks_mod, "run_tables", spy)
    monkeypatch.setattr(chunks_mod, "BATCH_SECONDS", 1e9)  # as if every call were instant
    simulate(progress=False, **kw)
    assert calls == [2, 16, 5]  # 1 chunk, then 8 (x8 at most), then the 3 left
    calls.clear()
    monkeypatch.setattr(chunks_mod, "BATCH_SECONDS", 0.0)  # one chunk a call
    alone = simulate(progress=False, **kw)
    assert calls == [2] * 11 + [1]
    assert np.array_equal(together.group_agg, alone.group_agg)
    assert np.array_equal(together.group_state, alone.group_state)
    assert np.array_equal(together.group_tables, alone.group_tables)
    assert together.summary() == alone.summary()


def test_groups_hold_tables_t_times_G_over_T():
    res = simulate(tables=2500, rounds=1, seed=1, progress=False)
    assert res.groups == 1000
    expected = np.bincount(np.arange(2500) * 1000 // 2500, minlength=1000)
    assert np.array_equal(res.group_tables, expected)
    assert set(np.unique(res.group_tables)) == {2, 3}
    # each group's rounds = its tables x rounds
    assert np.array_equal(res.field("A_ROUNDS"), res.group_tables)
    few = simulate(tables=4, rounds=2, seed=1, progress=False)
    assert few.groups == 4 and list(few.group_tables) == [1, 1, 1, 1]


def test_study_totals_equal_the_reference_engine():
    """The study's sums are the reference engine's, table for table (same seed)."""
    rules = Rules(passebunge_every_pass=False, pollo_award=4)
    res = simulate(
        tables=3, rounds=12, players=MIXED, rules=rules, seed=11, chunk_tables=2, progress=False
    )
    players = [make_player(n) for n in MIXED.split(",")]
    agg, state, _, _ = run_reference(players, rules, 11, 3, 12)
    assert np.array_equal(res.group_agg.sum(axis=0), agg.sum(axis=0))
    assert np.array_equal(res.group_state.sum(axis=0), summarize_state(state).sum(axis=0))


def test_estimates_are_consistent():
    res = simulate(tables=40, rounds=25, players=MIXED, seed=2, progress=False)
    s = res.summary()
    val = lambda d: d["value"]  # noqa: E731
    assert sum(val(v) for v in s["end_kind"].values()) == pytest.approx(1.0)
    assert sum(val(v) for v in s["win_rate_by_seat"].values()) == pytest.approx(1.0)
    assert sum(val(v) for v in s["win_rate_by_starter_offset"].values()) == pytest.approx(1.0)
    # per-player rates are per seat: random holds seats 0 and 4
    ws = s["win_rate_by_seat"]
    assert val(s["win_rate_by_player"]["random"]) == pytest.approx(
        (val(ws["0"]) + val(ws["4"])) / 2
    )
    assert val(s["win_rate_by_player"]["hunter"]) == pytest.approx(val(ws["3"]))
    ps = s["passes_by_seat"]
    assert val(s["passes_per_round"]) == pytest.approx(
        sum(val(ps[k]["passes_per_round"]) for k in ps)
    )
    assert val(s["passebunge_per_round"]) <= val(s["passes_per_round"])
    assert 0 < val(s["passebunge_round_share"]) <= val(s["pass_round_share"]) <= 1
    st = s["stones_per_round"]
    assert val(st["total"]) == pytest.approx(val(st["from_table"]) + val(st["from_players"]))
    assert val(st["total"]) == pytest.approx(sum(val(v) for v in st["by_reason"].values()))
    assert val(st["total"]) == pytest.approx(sum(val(v) for v in st["to_seat"].values()))
    # exact: tiles per round = total tiles / total rounds
    assert val(s["tiles_per_round"]) == res.totals("A_TILES") / 1000
    assert 5 <= val(s["tiles_per_round"]) <= 21  # a round ends by 21 tiles (5 + 4 x 4)
    assert val(s["turns_per_round"]) >= val(s["tiles_per_round"])
    c = s["camat_per_1000_rounds"]
    assert val(c["total"]) == pytest.approx(1000 * res.totals("A_CAMAT").sum() / 1000)
    assert val(c["total"]) == pytest.approx(sum(val(v) for v in c["by_seat"].values()))
    # stones are conserved at every table at the end (D7)
    fs = s["final_state"]
    total = val(fs["table_stones"]) + sum(val(v) for v in fs["stones_held_by_seat"].values())
    assert total == pytest.approx(25)


def test_rules_reach_the_engine():
    """An option changes the numbers: with pollo=0 no stone moves for POLLO."""
    base = simulate(tables=30, rounds=30, seed=4, progress=False).summary()
    zero = simulate(tables=30, rounds=30, seed=4, rules="pollo=0", progress=False).summary()
    assert zero["rules"]["pollo_award"] == 0
    assert zero["end_kind"]["POLLO"]["value"] > 0
    assert base["stones_per_round"]["by_reason"]["POLLO"]["value"] > 0
    assert zero["stones_per_round"]["by_reason"]["POLLO"]["value"] == 0


@pytest.mark.parametrize(
    "rules",
    [
        Rules(pollo_award=4, passebunge_every_pass=False),
        "pollo=4,passebunge_every_pass=false",
        ["pollo=4", "passebunge_every_pass=false"],
        {"pollo_award": 4, "passebunge_every_pass": False},
    ],
)
def test_rules_forms(rules):
    res = simulate(tables=2, rounds=2, rules=rules, progress=False)
    assert res.rules == Rules(pollo_award=4, passebunge_every_pass=False)


# ---------------------------------------------------------------- standard errors
def test_ratio_se_formula():
    x = np.array([3.0, 5.0, 4.0, 8.0])
    n = np.array([10.0, 10.0, 10.0, 10.0])
    r, se = ratio(x, n)
    assert r == pytest.approx(0.5)
    # equal group sizes: SE = sd of the group rates / sqrt(G)
    assert se == pytest.approx(np.std(x / n, ddof=1) / 2)
    n2 = np.array([10.0, 20.0, 5.0, 15.0])
    r2, se2 = ratio(x, n2)
    G = 4
    assert r2 == pytest.approx(20 / 50)
    assert se2 == pytest.approx(np.sqrt(((x - r2 * n2) ** 2).sum() / (G * (G - 1))) / n2.mean())
    r1, se1 = ratio(x[:1], n[:1])
    assert r1 == pytest.approx(0.3) and np.isnan(se1)


def test_se_matches_group_arrays_and_shrinks_with_tables():
    small = simulate(tables=50, rounds=20, seed=9, progress=False)
    big = simulate(tables=800, rounds=20, seed=9, progress=False)
    # the reported SE is the formula over the stored group arrays
    x = small.field("A_WINS_OFFSET")[:, 0, :].sum(axis=1)
    n = small.field("A_ROUNDS")
    r, se = ratio(x, n)
    got = small.summary()["win_rate_by_starter_offset"]["0"]
    assert got["value"] == pytest.approx(r) and got["se"] == pytest.approx(se)
    # 16x the tables: SE about 4x smaller
    s1 = small.summary()["passes_per_round"]["se"]
    s2 = big.summary()["passes_per_round"]["se"]
    assert 2.5 < s1 / s2 < 6.5


def test_symmetric_seats_are_within_their_confidence_intervals():
    """Five random players: every seat wins 1/5 of the rounds by symmetry."""
    res = simulate(tables=600, rounds=20, players="random", seed=21, progress=False)
    df = res.win_by_seat().query("kind == 'ALL'")
    assert len(df) == 5
    assert (df.se > 0).all()
    z = (df.rate - 0.2) / df.se
    assert (z.abs() < 4.5).all(), z
    # shares get Wilson intervals: within [0, 1], close to +-t SE with this many rounds
    # (t with G - 1 degrees of freedom, issue 23; the design effect is above 1 here)
    t = critical(res.groups)
    assert np.allclose(df.ci_high - df.ci_low, 2 * t * df.se, rtol=2e-3)
    assert ((df.ci_low <= df.rate) & (df.rate <= df.ci_high)).all()


def test_single_table_has_no_se():
    s = simulate(tables=1, rounds=5, progress=False).summary()
    assert s["groups"] == 1
    assert s["passes_per_round"]["value"] is not None
    assert s["passes_per_round"]["se"] is None


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "kwargs, exc",
    [
        (dict(tables=0), StudyError),
        (dict(tables=-3), StudyError),
        (dict(tables=1.5), StudyError),
        (dict(tables="10"), StudyError),
        (dict(rounds=0), StudyError),
        (dict(rounds=True), StudyError),
        (dict(seed=-1), StudyError),
        (dict(seed=2**64), StudyError),
        (dict(workers=0), StudyError),
        (dict(chunk_tables=0), StudyError),
        (dict(progress="yes"), StudyError),
        (dict(players="random,bogus,random,random,random"), PlayerError),
        (dict(players="random,heavy"), PlayerError),
        (dict(rules="nope=1"), RulesError),
        (dict(rules=["pollo"]), RulesError),
        (dict(rules="pollo=-1"), RulesError),
        (dict(rules=3), StudyError),
    ],
)
def test_bad_input_raises_one_line_domeng_errors(kwargs, exc):
    args = dict(tables=2, rounds=2, progress=False)
    args.update(kwargs)
    with pytest.raises(exc) as info:
        simulate(**args)
    assert isinstance(info.value, DomengError)
    msg = str(info.value)
    assert msg and "\n" not in msg


def test_package_exports_simulate():
    res = domeng.simulate(tables=2, rounds=3, progress=False)
    assert isinstance(res, domeng.Results)
    assert res.players == list(DEFAULT_PLAYERS)  # the CLI's default lineup too


# ---------------------------------------------------------------- progress
def test_progress_callable_and_bar():
    calls = []
    simulate(tables=5, rounds=2, chunk_tables=2, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(2, 5), (4, 5), (5, 5)]
    buf = io.StringIO()
    bar = Progress(5, per_item=2, stream=buf)
    bar(5, 5)
    line = buf.getvalue()
    assert "100.0%" in line and "rounds/s" in line and "5/5 tables" in line


# ---------------------------------------------------------------- records
def test_records_parquet(tmp_path, monkeypatch):
    monkeypatch.setattr(records_mod, "RECORD_ROW_GROUP", 8)  # several row groups
    path = tmp_path / "rec.parquet"
    res = simulate(
        tables=5, rounds=7, players=MIXED, seed=3, chunk_tables=2, records=path, progress=False
    )
    f = pq.ParquetFile(path)
    assert f.metadata.num_rows == 35 == res.meta["records_rows"]
    assert f.metadata.num_row_groups > 1
    df = pq.read_table(path).to_pandas()
    assert list(df.columns) == list(L.REC_COLUMNS)
    assert list(zip(df.table, df["round"])) == [(t, r) for t in range(5) for r in range(1, 8)]
    assert set(df.kind.astype(str)) <= set(L.KIND_NAMES)
    # the records agree with the aggregates
    kinds = df.kind.astype(str).value_counts()
    for row in res.end_kinds().itertuples():
        assert kinds.get(row.kind, 0) == row.rounds
    assert df.passes.sum() == res.totals("A_PASSES").sum()
    assert df.passebunge.sum() == res.totals("A_PASSEBUNGE").sum()
    assert df.tiles.sum() == res.totals("A_TILES")
    assert df.unpaid.sum() == res.totals("A_UNPAID").sum()
    assert (df.camat >= 0).sum() == res.totals("A_CAMAT").sum()
    assert not list(tmp_path.glob(".*partial"))
    # chunk size does not change the file's rows either
    path1 = tmp_path / "rec1.parquet"
    simulate(
        tables=5, rounds=7, players=MIXED, seed=3, chunk_tables=5, records=path1, progress=False
    )
    assert pq.read_table(path1).to_pandas().equals(df)


def test_records_bad_folder(tmp_path):
    with pytest.raises(StudyError, match="does not exist"):
        simulate(tables=1, rounds=1, records=tmp_path / "no" / "r.parquet", progress=False)
    assert list(tmp_path.iterdir()) == []


def test_failed_study_leaves_no_records(tmp_path, monkeypatch):
    real = chunks_mod.run_tables
    calls = []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("engine failure")
        return real(*args, **kwargs)

    monkeypatch.setattr(chunks_mod, "run_tables", flaky)
    with pytest.raises(RuntimeError):
        simulate(tables=4, rounds=2, chunk_tables=1, records=tmp_path / "r.parquet", progress=False)
    assert list(tmp_path.iterdir()) == []


def test_default_chunk_bounds_memory():
    assert summary.default_chunk_tables(2000, 500) == 400  # 200,000 rounds a chunk
    assert summary.default_chunk_tables(10**7, 1) == summary.MAX_CHUNK_TABLES
    assert summary.default_chunk_tables(10, 10**6) == 1
    assert summary.default_chunk_tables(2000, 500, records=True) == 200
