"""Start-up of the ``domeng`` command (issue 11): ``domeng --help`` and every
``domeng COMMAND --help`` build their parsers without loading the heavy
libraries.  Nothing here is timed (the figures are in
``benchmarks/bench_engine.py``); the tests check what is imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from domeng.cli.main import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numba", "numpy", "pandas", "matplotlib", "dask", "rich", "scipy", "pyarrow")

#: the modules a study's start needs only to write reports or plots
NOT_FOR_A_STUDY = ("pandas", "matplotlib", "dask", "rich", "pyarrow")


def _loaded_after(code: str, names: tuple[str, ...] = HEAVY) -> list[str]:
    """Which of ``names`` are in ``sys.modules`` after running ``code`` in a
    fresh interpreter (its stdout is discarded; the list is on stderr)."""
    probe = (
        f"import sys\n{code}\n"
        f"sys.stderr.write('LOADED ' + json.dumps(sorted(m for m in {names!r} "
        "if m in sys.modules)))\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", "import json\n" + probe], capture_output=True, text=True, cwd=ROOT
    )
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stderr.rsplit("LOADED ", 1)[1])


def test_building_the_parser_loads_no_heavy_library():
    loaded = _loaded_after("from domeng.cli.main import build_parser\nbuild_parser()")
    assert loaded == [], f"building the parser imported {loaded}"


@pytest.mark.parametrize("argv", [[]] + [[c] for c in COMMANDS])
def test_help_of_every_command_loads_no_heavy_library(argv):
    code = (
        "from domeng.cli.main import main\n"
        f"code = main({argv + ['--help']!r})\n"
        "assert code == 0, code"
    )
    loaded = _loaded_after(code)
    assert not {"numba", "pandas", "matplotlib"} & set(loaded), (argv, loaded)
    assert loaded == [], (argv, loaded)


def test_the_top_level_help_loads_neither_decimal_nor_socket():
    """Two modules only some commands need, imported inside them (a few ms
    of ``domeng --help`` each; benchmarks/README.md, session 17)."""
    code = "from domeng.cli.main import main\ncode = main(['--help'])\nassert code == 0, code"
    assert _loaded_after(code, ("decimal", "socket")) == []


def test_the_light_defaults_are_the_ones_the_game_uses():
    """The values --help shows are the ones the modules use (re-exported)."""
    from domeng.core import defaults as D
    from domeng.play import seats, terminal
    from domeng.players import heuristics
    from domeng.study import simulate

    assert heuristics.N_BUILTIN == D.N_BUILTIN
    assert seats.DEFAULT_SEATS == D.DEFAULT_SEATS
    assert seats.parse_seats(",".join(D.DEFAULT_SEATS)) == list(D.DEFAULT_SEATS)
    assert terminal.DEFAULT_DELAY == D.DEFAULT_DELAY
    assert (simulate.DEFAULT_TABLES, simulate.DEFAULT_ROUNDS, simulate.DEFAULT_PLAYERS) == (
        D.DEFAULT_TABLES,
        D.DEFAULT_ROUNDS,
        D.DEFAULT_PLAYERS,
    )


@pytest.mark.slow
def test_a_warm_study_loads_neither_the_compiler_nor_the_report_libraries():
    """A study with a warm numba cache loads the cached machine code without
    numba's compiler registries (numba.np.arraymath and the rest, scipy's
    linear algebra) and without pandas, matplotlib, dask or rich."""
    study = (
        "from domeng.cli.main import main\n"
        "code = main(['simulate', '--tables', '2', '--rounds', '2', '--players', '{}', "
        "'--json', '--no-progress'])\n"
        "assert code == 0, code"
    )
    names = NOT_FOR_A_STUDY + ("numba.np.arraymath", "scipy.linalg")
    for players in ("random", "random,heavy,keeper,hunter,random"):
        _loaded_after(study.format(players), names)  # compiles, the first time
        assert _loaded_after(study.format(players), names) == [], players
