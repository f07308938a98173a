"""Issue 10, item 6: every reader of a file or a flag answers bad input with
one line and the right exit status (2: a mistake; 1: the machine), never a
traceback -- crafted cases, then hypothesis over manifests, results files
and command-line flags."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest
from _crafted import cli, edit_manifest, finished, one_line, unfinished
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import domeng
from domeng.core.errors import CheckpointError, DomengError, ResultsError, is_environment_failure
from domeng.results.results import Results
from domeng.study.checkpoint import Checkpoint

FAST = settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])


# ---------------------------------------------------------------- crafted
def test_a_manifest_nested_100000_deep(tmp_path, capsys):
    d = unfinished(tmp_path / "s")
    (d / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    one_line(capsys, ["simulate", "--resume", d, "--no-progress"], "corrupt manifest")
    (d / "manifest.json").write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    one_line(capsys, ["simulate", "--resume", d, "--no-progress"], "manifest")


@pytest.mark.parametrize(
    "players",
    [
        None,
        5,
        "random",
        ["random"] * 4,
        [1, 2, 3, 4, 5],
        [["x"]] * 5,
        ["nobody"] * 5,
        ["search-99999999999999999999"] * 5,
        ["search-0"] * 5,
        ["ra\x1bndom"] * 5,
        [""] * 5,
    ],
)
def test_a_bad_players_list_in_a_manifest(tmp_path, capsys, players):
    d = unfinished(tmp_path / "s")
    edit_manifest(d, players=players)
    one_line(capsys, ["simulate", "--resume", d, "--no-progress"], "")


@pytest.mark.parametrize("meta", ["[1, 2]", '"text"', "null", "{}", '{"tables": "x"}'])
def test_a_results_file_whose_meta_is_not_an_object(tmp_path, capsys, meta):
    d = tmp_path / "res"
    finished(d)
    with np.load(d / "results.npz") as z:
        arrays = {k: z[k] for k in z.files}
    arrays["meta"] = np.array(meta)
    np.savez_compressed(d / "results.npz", **arrays)
    one_line(capsys, ["report", d], "results")


def test_numpy_integers_in_rule_values(tmp_path):
    rules = {"pollo_award": np.int64(4), "opener_leads_double": np.bool_(False)}
    res = domeng.simulate(
        tables=3, rounds=4, rules=rules, checkpoint=tmp_path / "s", progress=False
    )
    assert json.loads(res.to_json())["rules"]["pollo_award"] == 4
    assert type(res.rules.pollo_award) is int and type(res.rules.opener_leads_double) is bool
    assert (tmp_path / "s" / "results.npz").is_file() and not (tmp_path / "s.previous").exists()
    assert Results.load(tmp_path / "s").summary() == res.summary()


@pytest.mark.parametrize(
    "players", ["search-99999999999999999999", "search-100001", "search-x", "search-٣"]
)
def test_search_budgets_that_cannot_finish(capsys, players):
    one_line(
        capsys,
        ["simulate", "--tables", "1", "--rounds", "1", "--players", players, "--no-progress"],
        "search",
    )
    one_line(
        capsys,
        ["tournament", "--players", f"{players},random,random,random,random", "--no-progress"],
        "search",
    )


def test_a_player_that_raises(tmp_path, monkeypatch, capsys):
    (tmp_path / "raising.py").write_text(
        textwrap.dedent("""
        class Boom:
            def choose(self, obs, moves, rng):
                raise ZeroDivisionError("the player's own bug")

        def broken_import():
            return 0
    """)
    )
    (tmp_path / "badimport.py").write_text("raise RuntimeError('cannot even import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    err = one_line(
        capsys,
        [
            "simulate",
            "--tables",
            "2",
            "--rounds",
            "2",
            "--players",
            "raising:Boom,random,random,random,random",
            "--no-progress",
        ],
        "ZeroDivisionError",
    )
    assert "raising:Boom" in err
    one_line(
        capsys,
        ["simulate", "--tables", "2", "--rounds", "2", "--players", "badimport:x", "--no-progress"],
        "badimport",
    )


def test_environment_failures_exit_1(tmp_path, capsys, monkeypatch):
    import errno

    from domeng.infra import fs

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(fs.os, "fsync", full)
    one_line(
        capsys,
        ["simulate", "--tables", "2", "--rounds", "2", "--no-progress", "--out", tmp_path / "s"],
        "No space left",
        code=1,
    )
    assert is_environment_failure(OSError(errno.EACCES, "x"))
    assert not is_environment_failure(FileNotFoundError(errno.ENOENT, "x"))


# ---------------------------------------------------------------- property tests
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True)
    | st.text(max_size=20),
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=10), kids, max_size=4)
    ),
    max_leaves=20,
)


@pytest.fixture(scope="module")
def study_folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("prop") / "s"
    unfinished(d)
    return d


@FAST
@given(
    key=st.sampled_from(
        [
            "tables",
            "rounds",
            "seed",
            "players",
            "rules",
            "chunk_tables",
            "n_chunks",
            "groups",
            "records",
            "format",
            "version",
            "engine",
            "layout",
            "digest",
        ]
    ),
    value=json_values,
)
def test_any_manifest_field_is_read_safely(study_folder, key, value):
    manifest = study_folder / "manifest.json"
    original = manifest.read_text()
    try:
        m = json.loads(original)
        m[key] = value
        manifest.write_text(json.dumps(m))
        try:
            ck = Checkpoint.open(study_folder)
        except DomengError as e:
            assert "\n" not in str(e) and not is_environment_failure(e)
        else:  # accepted: only if it still describes the same study
            assert ck.plan.study_digest() == m["digest"]
    finally:
        manifest.write_text(original)


@FAST
@given(text=st.text(max_size=200) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_any_manifest_text_is_read_safely(study_folder, text):
    manifest = study_folder / "manifest.json"
    original = manifest.read_text()
    try:
        manifest.write_text(text, encoding="utf-8")
        with pytest.raises(CheckpointError):
            Checkpoint.open(study_folder)
    finally:
        manifest.write_text(original)


@pytest.fixture(scope="module")
def results_folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("res") / "r"
    finished(d)
    return d


@FAST
@given(
    key=st.sampled_from(
        ["tables", "rounds", "seed", "players", "rules", "version", "digest", "layout", "engine"]
    ),
    value=json_values,
)
def test_any_results_meta_is_read_safely(results_folder, tmp_path_factory, key, value):
    d = tmp_path_factory.mktemp("r")
    with np.load(results_folder / "results.npz") as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta[key] = value
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(d / "results.npz", **arrays)
    try:
        res = Results.load(d)
    except ResultsError as e:
        assert "\n" not in str(e)
    else:
        res.to_json()
        res.to_text()


@FAST
@given(data=st.binary(max_size=300))
def test_any_results_file_bytes_are_read_safely(tmp_path_factory, data):
    d = tmp_path_factory.mktemp("r")
    (d / "results.npz").write_bytes(data)
    with pytest.raises(ResultsError):
        Results.load(d)


FLAGS = [
    "--tables",
    "--rounds",
    "--seed",
    "--players",
    "--rule",
    "--workers",
    "--chunk-tables",
    "--cluster",
    "--stall-timeout",
]


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flag=st.sampled_from(FLAGS), value=st.text(max_size=30).filter(lambda t: t.strip()))
def test_any_flag_value_gets_one_line(capsys, flag, value):
    code, _out, err = cli(
        capsys, "simulate", "--tables", "1", "--rounds", "1", flag, value, "--no-progress", "--json"
    )
    assert "Traceback" not in err
    if code != 0:
        assert code in (1, 2) and len(err.strip().splitlines()) == 1, err
