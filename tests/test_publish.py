"""What a published package carries: a valid citation file, a documentation
site that builds with no warning, and docstring examples that run (issue 24)."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: the modules of the public API whose docstring examples run as doctests (the
#: pages of docs/api/ show them); each example plays small studies
#: (tables=2, rounds=2) so that all of them take seconds once compiled
DOCTEST_MODULES = [
    "domeng",
    "domeng.study.simulate",
    "domeng.study.compare",
    "domeng.study.sequential",
    "domeng.study.checkpoint",
    "domeng.study.tournament",
    "domeng.study.ladder",
    "domeng.study.spec",
    "domeng.study.dryrun",
    "domeng.study.entry",
    "domeng.results.results",
    "domeng.results.comparison",
    "domeng.results.sweep",
    "domeng.results.plots",
    "domeng.results.diff_plots",
    "domeng.results.figures",
    "domeng.study.tournament_plots",
    "domeng.results.records",
    "domeng.core.rules",
    "domeng.engine.reference",
    "domeng.engine.step",
    "domeng.engine.game",
    "domeng.players.registry",
    "domeng.play.session",
    "domeng.play.seats",
]
#: the environments' modules need the rl extra
RL_DOCTEST_MODULES = [
    "domeng.envs",
    "domeng.envs.options",
    "domeng.core.encoding",
    "domeng.envs.gym",
    "domeng.envs.pettingzoo",
    "domeng.envs.open_spiel",
    "domeng.players",
    "domeng.players.agents",
    "domeng.players.spiel_bot",
]


# ------------------------------------------------------------------ CITATION.cff
def _cff_validator():
    """A validator of the Citation File Format 1.2.0 schema (the schema's own
    copy in tests/data: the package cffconvert pins jsonschema < 4, which the
    rest of the test environment outgrew, so the schema is checked directly)."""
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (the test extra) is needed")
    schema = json.loads((ROOT / "tests/data/citation-cff-1.2.0.schema.json").read_text())
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())


def _cff() -> dict:
    yaml = pytest.importorskip("yaml", reason="PyYAML is needed to read CITATION.cff")
    return yaml.safe_load((ROOT / "CITATION.cff").read_text())


def test_citation_file_is_valid_cff():
    validator = _cff_validator()
    cff = _cff()
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(cff)]
    assert not errors, errors
    assert cff["cff-version"] == "1.2.0"
    assert cff["authors"] == [{"name": "the domeng developers"}]


def test_citation_file_agrees_with_the_package():
    import domeng

    cff = _cff()
    pyproject = (ROOT / "pyproject.toml").read_text()  # tomllib is Python 3.11+
    assert cff["version"] == domeng.__version__
    assert re.search(r'^license = "(.*)"$', pyproject, re.M).group(1) == cff["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert 'authors = [{name = "the domeng developers"}]' in pyproject


def test_citation_validator_rejects_a_broken_file():
    """The check can fail: a file without authors, or with a bad version
    string type, is refused."""
    validator = _cff_validator()
    cff = _cff()
    broken = {k: v for k, v in cff.items() if k != "authors"}
    assert any("authors" in e.message for e in validator.iter_errors(broken))
    assert list(validator.iter_errors({**cff, "cff-version": "9.9.9"}))


# ------------------------------------------------------------------ the site
def test_docs_site_builds_strictly(tmp_path):
    """``mkdocs build --strict``: no warning, no broken link or anchor, every
    API page resolves (what ``make docs`` builds into site/)."""
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs is not installed (the docs extra: pip install -e '.[docs]')")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    log = out.stdout + out.stderr
    assert out.returncode == 0, log
    assert "WARNING" not in log, log
    for page in ["index.html", "api/studies.html", "api/step.html", "tutorials/rule_study.html"]:
        assert (tmp_path / "site" / page).is_file(), page
    studies = (tmp_path / "site/api/studies.html").read_text()
    assert "simulate" in studies and "Parameters" in studies


# ------------------------------------------------------------------ doctests
def _run_doctests(name: str) -> doctest.TestResults:
    module = importlib.import_module(name)
    return doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=True
    )


@pytest.mark.parametrize("name", DOCTEST_MODULES)
def test_docstring_examples_run(name):
    result = _run_doctests(name)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


@pytest.mark.parametrize("name", RL_DOCTEST_MODULES)
def test_environment_docstring_examples_run(name):
    pytest.importorskip("gymnasium", reason="the rl extra is not installed")
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
    pytest.importorskip("pyspiel", reason="the rl extra is not installed")
    result = _run_doctests(name)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_every_public_name_has_an_example():
    """Each public function and class of the API reference has a docstring
    with an example (``>>>``) that the doctests above run."""
    missing = []
    for name in DOCTEST_MODULES + RL_DOCTEST_MODULES:
        if name in RL_DOCTEST_MODULES and importlib.util.find_spec("pyspiel") is None:
            continue
        module = importlib.import_module(name)
        tests = doctest.DocTestFinder().find(module)
        with_examples = {t.name.rsplit(".", 1)[-1] for t in tests if t.examples}
        assert with_examples, f"{name} has no example at all"
        for public in _documented_names(name):
            if public not in with_examples:
                missing.append(f"{name}.{public}")
    assert not missing, missing


def _documented_names(module: str) -> list[str]:
    """The functions and classes the API pages list for ``module``."""
    return API_EXAMPLES.get(module, [])


#: the names of docs/api/ that must each show an example
API_EXAMPLES: dict[str, list[str]] = {
    "domeng.study.simulate": ["simulate", "run_simulate"],
    "domeng.study.compare": ["compare", "sweep", "run_compare", "run_sweep"],
    "domeng.study.runtime": ["Runtime"],
    "domeng.study.sequential": ["run_simulate_until"],
    "domeng.study.tournament": ["run_tournament"],
    "domeng.study.ladder": ["run_ladder"],
    "domeng.study.spec": ["StudySpec", "to_dict", "from_dict", "to_toml", "from_toml"],
    "domeng.study.entry": ["run"],
    "domeng.results.results": ["Results"],
    "domeng.results.comparison": ["Comparison"],
    "domeng.results.sweep": ["Sweep"],
    "domeng.results.plots": [
        "plot_win_rates",
        "plot_end_kinds",
        "plot_passebunge",
        "plot_stone_flows",
        "plot_camat_gaps",
        "plot_round_length",
        "figures",
        "caption",
    ],
    "domeng.results.diff_plots": ["plot_forest", "plot_sweep"],
    "domeng.results.figures": ["plot_style", "add_caption", "figure_bytes"],
    "domeng.study.tournament_plots": ["plot_tournament", "plot_ladder"],
    "domeng.results.records": ["read_records", "metric_from_records", "difference_from_records"],
    "domeng.core.rules": ["Rules", "parse", "from_mapping", "replace", "changed"],
    "domeng.engine.reference": ["Table", "Round", "new_round", "play_round", "describe"],
    "domeng.engine.step": [
        "keep",
        "copy_state",
        "new_state",
        "new_rollout_state",
        "new_round",
        "new_round_from_hands",
        "legal_moves",
        "legal_action_mask",
        "is_legal",
        "step",
        "step_checked",
        "observe",
        "observe_history",
        "preview",
        "round_over",
        "game_over",
        "next_starter",
        "held_at_settlement",
        "clear_trace",
    ],
    "domeng.engine.game": ["Game", "Preview", "action_of", "action_str"],
    "domeng.players.registry": [
        "Player",
        "RandomPlayer",
        "CompiledPlayer",
        "PlayerSpec",
        "compile_strategy",
        "resolve_player",
        "resolve_players",
        "make_player",
        "parse_players",
    ],
    "domeng.play.session": ["Session", "Move", "View", "chain_of"],
    "domeng.play.seats": ["check_seat", "parse_seats"],
    "domeng.envs.gym": ["DomengEnv", "DomengVectorEnv", "LegalActions"],
    "domeng.envs.pettingzoo": ["env", "raw_env"],
    "domeng.envs.open_spiel": ["DomengGame", "game_info"],
    "domeng.envs.options": ["EpisodeOptions"],
    "domeng.core.encoding": ["describe", "fields_table"],
    "domeng.players": ["load"],
    "domeng.players.agents": ["Agent", "decode"],
    "domeng.players.spiel_bot": ["AgentBot"],
}
