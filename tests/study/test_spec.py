"""One study spec (issue 21 item 7) and a study as a file (issue 23 item 8):
:class:`StudySpec` round-trips through dicts and TOML, every entry point
takes it, ``--config FILE`` of the five study commands (flags win, unknown
keys refused in one line), ``config.toml`` in every study folder reruns the
study with the same numbers, and ``--dry-run`` writes nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import domeng
from domeng.cli.main import build_parser, main
from domeng.core.errors import StudyError
from domeng.study.spec import CONFIG_NAME, KINDS, StudySpec, fields_of, file_key, toml_value

ROOT = Path(__file__).resolve().parents[2]

SPECS = [
    StudySpec(tables=5, rounds=3, seed=7, players="random,heavy,keeper,hunter,random"),
    StudySpec(rounds=4, target_ci=["passes_per_round=0.5"], max_rounds=2000, out="a/b"),
    StudySpec(tables=20, rounds=2, rules=["pollo=4", "passebunge_every_pass=false"], records=True,
              out="x", chunk_tables=7, workers=2),
    StudySpec("compare", tables=4, rounds=2, variants=["pollo=4", "players=heavy;ceki=2"],
              baseline="ceki=1", fmt="svg", dpi=200, out='we"ird\\path\x7f/ü'),
    StudySpec("sweep", tables=3, rounds=2, grid=["pollo=3,4", "passebunge_every_pass=true,false"],
              rules=["ceki=2"], metrics=["passes_per_round"]),
    StudySpec("tournament", players="random,heavy,keeper,hunter,expert", deals=3, rounds=2,
              orders="rotations"),
    StudySpec("ladder", players=["random", "heavy", "keeper", "hunter", "expert", "random"],
              deals=2, orders="balanced", seed=2**64 - 1),
]  # fmt: skip


def run_cli(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(argv, capsys, *needles) -> str:
    code, _, err = run_cli(argv, capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for n in needles:
        assert n in err, err
    return err


_VARIES = ("seconds", "elapsed", "command", "time", "created", "version", "decision_ms")


def numbers(path: Path):
    """A results file's JSON without what varies between identical runs
    (timings, the command line, versions)."""

    def clean(x):
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items() if not any(w in k for w in _VARIES)}
        if isinstance(x, list):
            return [clean(v) for v in x]
        return x

    return clean(json.loads(path.read_text()))


def same(a, b) -> bool:
    """The same study results (the arrays and what was played; not the timings)."""
    import numpy as np

    return (
        np.array_equal(a.group_agg, b.group_agg)
        and np.array_equal(a.group_state, b.group_state)
        and np.array_equal(a.group_tables, b.group_tables)
        and (a.tables, a.rounds, a.seed, a.players, a.rules)
        == (b.tables, b.rounds, b.seed, b.players, b.rules)
    )


# ---------------------------------------------------------------- the spec itself
@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.kind)
def test_spec_round_trips_through_dict_and_toml(spec, tmp_path):
    assert StudySpec.from_dict(spec.to_dict()) == spec
    assert StudySpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec
    p = tmp_path / "study.toml"
    p.write_text(spec.to_toml(), encoding="utf-8")
    assert StudySpec.from_toml(p) == spec
    assert StudySpec.from_toml(p, kind=spec.kind) == spec
    import tomllib

    data = tomllib.loads(spec.to_toml())  # the file's keys are the command's flags
    assert data["kind"] == spec.kind
    assert set(data) - {"kind"} <= {file_key(spec.kind, f) for f in fields_of(spec.kind)}


@settings(max_examples=60, deadline=None)
@given(
    out=st.text(min_size=1, max_size=40).filter(lambda s: s.strip() and "\x00" not in s),
    seed=st.integers(0, 2**64 - 1),
    rules=st.lists(
        st.sampled_from(["pollo=4", "ceki=2", "passebunge_every_pass=false"]), max_size=3
    ),
)
def test_any_out_path_and_seed_round_trip_through_toml(out, seed, rules):
    import tomllib

    spec = StudySpec(tables=2, rounds=2, seed=seed, rules=rules, out=out)
    data = tomllib.loads(spec.to_toml())
    assert data["out"] == out and data["seed"] == seed
    rule = data.pop("rule", [])
    assert StudySpec.from_dict({**data, "rules": rule}) == spec


def test_spec_normalises_rules_and_players():
    s = StudySpec(players="random, heavy,keeper,hunter,random", rules=["pollo=4,ceki=3"])
    assert s.players == ("random", "heavy", "keeper", "hunter", "random")
    assert s.rules == ("pollo_award=4",)  # ceki=3 is the default
    assert StudySpec("sweep", grid=["pollo=3,4"]).grid == ("pollo_award=3,4",)


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        (dict(kind="nonsense"), "'kind'"),
        (dict(tables=0), "'tables'"),
        (dict(tables="5"), "'tables'"),
        (dict(tables=True), "'tables'"),
        (dict(seed=-1), "'seed'"),
        (dict(rules=["pollo=x"]), "'rules'"),
        (dict(rules=["nonsense=1"]), "'rules'"),
        (dict(kind="compare"), "'variants'"),
        (dict(kind="sweep", grid=["pollo=3"]), "'grid'"),
        (dict(kind="tournament", orders="some"), "'orders'"),
        (dict(kind="tournament", players="random", orders="all", deals=0), "'deals'"),
        (dict(kind="tournament"), "'players'"),
        (dict(variants=["pollo=4"]), "'variants'"),  # not a simulate key
        (dict(records=True), "'records'"),  # needs out
        (dict(max_rounds=10), "'max_rounds'"),
        (dict(target_ci=["passes_per_round"]), "'target_ci'"),
        (dict(target_ci=["passes_per_round=1"], tables=5), "'tables'"),
        (dict(kind="compare", variants=["pollo=4"], fmt="gif"), "'fmt'"),
    ],
)
def test_bad_spec_is_one_line_naming_the_field(kwargs, needle):
    with pytest.raises(StudyError) as e:
        StudySpec(**kwargs)
    text = str(e.value)
    assert needle in text and "\n" not in text, text


@pytest.mark.parametrize(
    "text, needle",
    [
        ("bogus = 1\n", "key 'bogus' is not a key of a simulate study"),
        ("tables = 'many'\n", "key 'tables' must be a whole number"),
        ("tables = 0\n", "key 'tables' must be a whole number from 1"),
        ("rule = 'pollo'\n", "key 'rule'"),
        ("rule = [1]\n", "key 'rule' must be a string or a list of strings"),
        ("kind = 'compare'\nvariant = []\n", "key 'variant' is missing"),
        ("kind = 'game'\n", "key 'kind' must be one of"),
        ("tables = [\n", "not valid TOML"),
        ("kind = 'sweep'\nrule = ['pollo=4']\nvary = ['pollo=3,4']\n", "key 'rule' holds"),
    ],
)
def test_bad_file_is_one_line_naming_the_key_and_the_file(tmp_path, text, needle):
    p = tmp_path / "study.toml"
    p.write_text(text)
    with pytest.raises(StudyError) as e:
        StudySpec.from_toml(p)
    msg = str(e.value)
    assert needle in msg and str(p) in msg and "\n" not in msg, msg


def test_a_file_of_another_kind_is_refused(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(StudySpec("sweep", grid=["pollo=3,4"]).to_toml())
    with pytest.raises(StudyError, match="run it with `domeng sweep --config"):
        StudySpec.from_toml(p, kind="compare")


def test_toml_values_are_escaped():
    import tomllib

    for s in ['a"b', "back\\slash", "tab\tnew\nline", "del\x7f", "ünï", "'single'"]:
        assert tomllib.loads(f"k = {toml_value(s)}")["k"] == s
    assert tomllib.loads(f"k = {toml_value([1, True, 'x'])}")["k"] == [1, True, "x"]


# ---------------------------------------------------------------- the entry points
def test_every_entry_point_takes_the_spec_and_matches_its_keywords():
    kw = dict(tables=3, rounds=2, seed=5, progress=False)
    res = domeng.simulate(**kw)
    spec = StudySpec(tables=3, rounds=2, seed=5)
    assert same(domeng.simulate(spec, progress=False), res)
    assert same(domeng.simulate(spec=spec, progress=False), res)
    assert same(domeng.run(spec, progress=False), res)

    cmp_kw = domeng.compare(["pollo=4"], **kw)
    cmp_spec = domeng.compare(spec=StudySpec("compare", tables=3, rounds=2, seed=5,
                                             variants=["pollo=4"]), progress=False)  # fmt: skip
    assert cmp_spec.differences().equals(cmp_kw.differences())

    sw = domeng.run(StudySpec("sweep", tables=3, rounds=2, seed=5, grid=["pollo=3,4"]),
                    progress=False)  # fmt: skip
    assert sw.frame().equals(domeng.sweep(["pollo=3,4"], **kw).frame())

    lineup = "random,heavy,keeper,hunter,expert"
    t_kw = domeng.tournament(lineup, deals=2, rounds=2, orders="rotations", progress=False)
    t_spec = domeng.tournament(StudySpec("tournament", players=lineup, deals=2, rounds=2,
                                         orders="rotations"), progress=False)  # fmt: skip
    assert (t_kw.per_deal == t_spec.per_deal).all()

    from domeng.study.ladder import ladder

    six = lineup + ",random"
    l_kw = ladder(six, deals=2, rounds=1, orders="rotations", progress=False)
    l_spec = domeng.run(StudySpec("ladder", players=six, deals=2, rounds=1, orders="rotations"),
                        progress=False)  # fmt: skip
    assert (l_kw.per_deal == l_spec.per_deal).all()


def test_the_core_entries_take_a_spec_and_a_runtime(tmp_path):
    """Issue 21 item 7: the keyword API builds a spec and a Runtime and calls
    the kind's core entry; the same study either way, and what is not a
    keyword of the entry point is refused as Python refuses it."""
    from domeng.study.runtime import Runtime
    from domeng.study.simulate import run_simulate

    spec = StudySpec(tables=3, rounds=2, seed=5, rules=["pollo=4"])
    res = run_simulate(spec, Runtime(progress=False))
    assert same(res, domeng.simulate(tables=3, rounds=2, seed=5, rules="pollo=4", progress=False))
    folder = tmp_path / "s"
    run_simulate(spec.replace(out=str(folder)), Runtime(progress=False))
    assert StudySpec.from_toml(folder / CONFIG_NAME).replace(out=None, players=None) == spec
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        domeng.simulate(tables=2, colour=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'client'"):
        domeng.compare(["pollo=4"], client=object())
    with pytest.raises(StudyError, match="a Runtime or its keywords, not both"):
        domeng.run(spec, Runtime(), progress=False)


def test_a_spec_with_targets_runs_simulate_until():
    spec = StudySpec(rounds=2, seed=1, target_ci=["passes_per_round=1.0"], max_rounds=2000)
    res = domeng.run(spec, progress=False)
    assert same(domeng.simulate_until(spec=spec, progress=False), res)
    again = domeng.simulate_until({"passes_per_round": 1.0}, rounds=2, seed=1, max_rounds=2000,
                                  progress=False)  # fmt: skip
    assert res.meta["stopping"]["reason"] == again.meta["stopping"]["reason"]
    assert same(res, again)
    with pytest.raises(StudyError, match="stops on the data: run it with"):
        domeng.simulate(spec)
    with pytest.raises(StudyError, match="needs a spec with target_ci"):
        domeng.simulate_until(StudySpec(tables=2, rounds=2))


def test_spec_and_keywords_together_or_the_wrong_kind_are_refused():
    spec = StudySpec(tables=2, rounds=2)
    with pytest.raises(StudyError, match=r"not both \(rounds=\)"):
        domeng.simulate(spec, rounds=5)
    with pytest.raises(StudyError, match="was given a simulate study"):
        domeng.compare(spec)
    with pytest.raises(StudyError, match="must be a StudySpec"):
        domeng.simulate(spec={"tables": 2})


def test_python_study_folders_record_their_spec(tmp_path):
    res = domeng.simulate(tables=3, rounds=2, seed=4, rules="pollo=4", progress=False,
                          checkpoint=tmp_path / "s")  # fmt: skip
    spec = StudySpec.from_toml(tmp_path / "s" / CONFIG_NAME)
    assert spec == StudySpec(tables=3, rounds=2, seed=4, rules=["pollo=4"],
                             players=res.players, out=str(tmp_path / "s"))  # fmt: skip
    again = domeng.run(spec.replace(out=str(tmp_path / "t")), progress=False)
    assert same(again, res)


# ---------------------------------------------------------------- --config
def _parse(argv):
    return build_parser(argv[0]).parse_args(argv)


def test_flags_on_the_command_line_win_over_the_file(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(
        'tables = 6\nrounds = 4\nrule = ["pollo=4", "ceki=2"]\nplayers = ["random", "heavy", '
        '"keeper", "hunter", "random"]\nno_progress = true\nchunk-tables = 3\n'
    )
    args = _parse(["simulate", "--config", str(p)])
    assert (args.tables, args.rounds, args.rule, args.no_progress) == (
        6,
        4,
        ["pollo=4", "ceki=2"],
        True,
    )
    assert args.players == "random,heavy,keeper,hunter,random" and args.chunk_tables == 3
    args = _parse(["simulate", "--config", str(p), "-t", "2", "--rule", "cappu=2"])
    assert (args.tables, args.rounds, args.rule) == (2, 4, ["cappu=2"])  # the list is replaced
    args = _parse(["simulate", f"--config={p}", "--players", "heavy"])
    assert args.players == "heavy"


def test_the_tournament_players_may_come_from_the_file(tmp_path):
    p = tmp_path / "t.toml"
    p.write_text('players = "random,heavy,keeper,hunter,expert"\ndeals = 3\n')
    args = _parse(["tournament", "--config", str(p)])
    assert (args.players, args.deals, args.rounds) == ("random,heavy,keeper,hunter,expert", 3, 10)
    args = _parse(["tournament", "--config", str(p), "-p", "heavy,heavy,heavy,heavy,heavy"])
    assert args.players == "heavy,heavy,heavy,heavy,heavy"


@pytest.mark.parametrize(
    "command, text, needles",
    [
        ("simulate", "bogus = 1\n", ["key 'bogus' is not an option of domeng simulate"]),
        ("simulate", "variant = ['pollo=4']\n", ["key 'variant' is not an option"]),
        ("compare", "tables = 0\n", ["key 'tables' must be a whole number from 1"]),
        ("simulate", "tables = 'x'\n", ["key 'tables'"]),
        ("simulate", "records = 'yes'\n", ["key 'records' must be true or false"]),
        ("tournament", "orders = 'every'\n", ["key 'orders' must be one of all, balanced"]),
        ("simulate", "kind = 'sweep'\n", ["run it with `domeng sweep --config"]),
        ("sweep", "rule = [['pollo', 3]]\n", ["key 'rule' must be a string or a number"]),
        ("simulate", "tables = \n", ["not valid TOML"]),
        ("ladder", "help = true\n", ["key 'help' is not an option"]),
        ("simulate", "config = 'other.toml'\n", ["key 'config' is not an option"]),
        ("simulate", "players = 'random,mymod:fn,heavy,keeper,hunter'\n", ["'mymod'", "--players"]),
    ],
)
def test_bad_config_is_one_line_and_exit_2(tmp_path, capsys, command, text, needles):
    p = tmp_path / "study.toml"
    p.write_text(text)
    one_line_error([command, "--config", p, "--no-progress"], capsys, str(p), *needles)
    assert sorted(q.name for q in tmp_path.iterdir()) == ["study.toml"]


def test_a_missing_config_file_is_one_line(tmp_path, capsys):
    one_line_error(["simulate", "--config", tmp_path / "none.toml"], capsys, "none.toml")


SMALL_FILES = {
    "simulate": 'tables = 4\nrounds = 3\nseed = 2\nrule = ["pollo=4"]\nrecords = true\n',
    "compare": 'tables = 3\nrounds = 2\nvariant = ["pollo=4"]\nrule = ["ceki=2"]\n',
    "sweep": 'tables = 3\nrounds = 2\nvary = ["pollo=3,4"]\nrule = ["ceki=2"]\n',
    "tournament": 'players = "random,heavy,keeper,hunter,expert"\ndeals = 2\nrounds = 1\n'
    'orders = "rotations"\n',
    "ladder": 'players = "random,heavy,keeper,hunter,expert,random"\ndeals = 2\nrounds = 1\n'
    'orders = "rotations"\n',
}
RESULT_FILE = {
    "simulate": "summary.json",
    "compare": "compare.json",
    "sweep": "sweep.json",
    "tournament": "summary.json",
    "ladder": "summary.json",
}


@pytest.mark.slow
@pytest.mark.parametrize("command", KINDS)
def test_each_command_takes_config_and_its_folder_reruns_it(command, tmp_path, capsys):
    """--config FILE for the five commands; the folder's config.toml reruns
    the study with the same numbers; naming the same folder again is refused
    by the folder policy (nothing changed), --force replaces it."""
    p = tmp_path / "study.toml"
    p.write_text(f'kind = "{command}"\n' + SMALL_FILES[command] + "no_progress = true\n")
    first = tmp_path / "first"
    code, _, err = run_cli([command, "--config", p, "--out", first, "--json"], capsys)
    assert code == 0, err
    config = first / CONFIG_NAME
    spec = StudySpec.from_toml(config, kind=command)
    assert spec.kind == command and spec.out == str(first)
    before = {q: q.read_bytes() for q in first.rglob("*") if q.is_file()}
    err = one_line_error([command, "--config", config, "--no-progress"], capsys, "--force")
    assert {q: q.read_bytes() for q in first.rglob("*") if q.is_file()} == before
    second = tmp_path / "second"
    code, _, err = run_cli([command, "--config", config, "--out", second, "--no-progress",
                            "--json"], capsys)  # fmt: skip
    assert code == 0, err
    assert numbers(first / RESULT_FILE[command]) == numbers(second / RESULT_FILE[command])
    assert StudySpec.from_toml(second / CONFIG_NAME) == spec.replace(out=str(second))
    if command == "simulate":
        assert (second / "records.parquet").is_file()


@pytest.mark.slow
def test_rerun_of_a_study_that_stops_on_the_data(tmp_path, capsys):
    out = tmp_path / "seq"
    argv = ["simulate", "-r", "2", "--target-ci", "passes_per_round=1.0", "--max-rounds", "2000"]
    code, _, err = run_cli([*argv, "--out", out, "--no-progress", "--json"], capsys)
    assert code == 0, err
    spec = StudySpec.from_toml(out / CONFIG_NAME)
    assert spec.target_ci == ("passes_per_round=1.0",) and spec.max_rounds == 2000
    again = tmp_path / "again"
    code, _, err = run_cli(["simulate", "--config", out / CONFIG_NAME, "--out", again,
                            "--no-progress", "--json"], capsys)  # fmt: skip
    assert code == 0, err
    assert numbers(out / "summary.json") == numbers(again / "summary.json")


# ---------------------------------------------------------------- --dry-run
@pytest.mark.parametrize("command", KINDS)
def test_dry_run_prints_the_plan_and_writes_nothing(command, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = tmp_path / "study.toml"
    p.write_text(f'kind = "{command}"\n' + SMALL_FILES[command])
    before = sorted(q.name for q in tmp_path.iterdir())
    code, out, err = run_cli(
        [command, "--config", p, "--out", tmp_path / "new", "--dry-run"], capsys
    )
    assert code == 0, err
    assert sorted(q.name for q in tmp_path.iterdir()) == before  # nothing written, no folder
    assert out.startswith("dry run: nothing is played or written")
    for label in ("kind", "players", "rules", "output", "rounds", "estimate"):
        assert re.search(rf"^  {label} ", out, re.M), out
    assert "rounds/s" in out and "compiling" in out and "not counted" in out
    if command == "compare":
        assert "pollo_award=4" in out and "arm" in out
    if command == "sweep":
        assert "2 points" in out
    if command == "ladder":
        assert "6 lineups" in out


def test_dry_run_names_a_folder_the_policy_would_refuse(tmp_path, capsys):
    out = tmp_path / "s"
    domeng.simulate(tables=2, rounds=2, progress=False, checkpoint=out)
    before = {q: q.read_bytes() for q in out.rglob("*") if q.is_file()}
    code, text, err = run_cli(["simulate", "-t", "2", "-r", "2", "--out", out, "--dry-run"], capsys)
    assert code == 0, err
    assert "would be refused" in text and "--force" in text
    code, text, err = run_cli(["simulate", "-t", "2", "-r", "2", "--out", out, "--dry-run",
                               "--force"], capsys)  # fmt: skip
    assert "would be replaced" in text
    assert {q: q.read_bytes() for q in out.rglob("*") if q.is_file()} == before


def test_dry_run_does_not_go_with_resume(tmp_path, capsys):
    one_line_error(["simulate", "--resume", tmp_path, "--dry-run"], capsys, "--resume")


# ---------------------------------------------------------------- the docs
def _doc_toml() -> str:
    text = (ROOT / "docs/study.md").read_text()
    section = text.split("## A study as a file", 1)[1]
    return re.search(r"```toml\n(.*?)```", section, re.S).group(1)


def test_the_docs_study_file_runs(tmp_path, capsys):
    p = tmp_path / "study.toml"
    p.write_text(_doc_toml())
    spec = StudySpec.from_toml(p)
    assert spec.kind == "compare"
    out = tmp_path / "results"
    code, _, err = run_cli(["compare", "--config", p, "--out", out, "--no-progress",
                            "--json"], capsys)  # fmt: skip
    assert code == 0, err
    written = StudySpec.from_toml(out / CONFIG_NAME)
    assert written == spec.replace(
        out=str(out), fmt="png", dpi=300
    )  # the default dpi (core/defaults.PLOT_DPI)


def test_resume_takes_a_spec_and_writes_the_config(tmp_path):
    from domeng.core.errors import CheckpointError

    folder = tmp_path / "s"
    first = domeng.simulate(tables=3, rounds=2, seed=6, progress=False, checkpoint=folder)
    (folder / CONFIG_NAME).unlink()
    again = domeng.resume(folder, spec=StudySpec(tables=3, rounds=2, seed=6), progress=False)
    assert same(again, first)
    assert StudySpec.from_toml(folder / CONFIG_NAME).seed == 6  # written from the manifest
    with pytest.raises(CheckpointError, match="seed=7"):
        domeng.resume(folder, spec=StudySpec(tables=3, rounds=2, seed=7), progress=False)
    with pytest.raises(StudyError, match="not both"):
        domeng.resume(folder, spec=StudySpec(tables=3), rounds=2, progress=False)


@pytest.mark.parametrize(
    "command, argv",
    [
        ("compare", ["-V", "pollo=4", "-V", "players=heavy;ceki=2", "--rule", "cappu=2"]),
        ("sweep", ["--vary", "pollo=3,4", "--rule", "ceki=2"]),
    ],
)
def test_a_resumed_comparison_or_sweep_writes_the_same_config(command, argv, tmp_path, capsys):
    out = tmp_path / "c"
    code, _, err = run_cli([command, *argv, "-t", "2", "-r", "2", "--out", out, "--no-progress",
                            "--json"], capsys)  # fmt: skip
    assert code == 0, err
    written = StudySpec.from_toml(out / CONFIG_NAME)
    (out / CONFIG_NAME).unlink()
    code, _, err = run_cli([command, "--resume", out, "--no-progress", "--json"], capsys)
    assert code == 0, err
    again = StudySpec.from_toml(out / CONFIG_NAME)
    if command == "compare":  # the manifest keeps each variant's rules in full
        assert again.variants == (
            "pollo_award=4",
            "ceki_award=2;players=" + ",".join(["heavy"] * 5),
        )
        again = again.replace(variants=written.variants)
    assert again == written
