"""The tutorials run (issue 24 item 7): each Jupytext percent-format script
under ``docs/tutorials/`` is converted to a notebook (jupytext) and executed
cell by cell in a fresh kernel (nbclient, ipykernel) at tiny sizes
(``DOMENG_TUTORIAL_SMALL=1``), in a temporary folder; any cell error fails
the test and names the cell.  The tutorials check their own results with
``assert`` (a figure saved at 300 dpi, a player that only plays legal moves
and decides from its own view, a trained policy equal to its compiled
player), so a tutorial that runs is a tutorial whose claims hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TUTORIALS = Path(__file__).resolve().parents[1] / "docs" / "tutorials"

#: every tutorial; the ones over about 60 s in small mode are marked slow
#: (their numba compiles: the environments', the ladder's custom players)
CASES = [
    pytest.param("rule_study.py", id="rule_study"),
    pytest.param("your_own_player.py", id="your_own_player", marks=pytest.mark.slow),
    pytest.param("train_an_agent.py", id="train_an_agent", marks=pytest.mark.slow),
]


def test_the_tutorials_folder_holds_exactly_the_three_scripts():
    """No notebook is committed (the scripts are the source) and every
    script here is run by this module."""
    names = sorted(p.name for p in TUTORIALS.iterdir() if not p.name.startswith("."))
    assert names == sorted(p.values[0] for p in CASES)


@pytest.mark.parametrize("name", CASES)
def test_tutorial_runs_as_a_notebook(name, tmp_path, monkeypatch):
    jupytext = pytest.importorskip("jupytext")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    if name == "train_an_agent.py":
        pytest.importorskip("gymnasium")
    path = TUTORIALS / name
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# %% [markdown]\n# # Tutorial: "), "the first cell is the title"
    nb = jupytext.reads(text, fmt="py:percent")
    assert sum(c.cell_type == "code" for c in nb.cells) >= 3
    monkeypatch.setenv("DOMENG_TUTORIAL_SMALL", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=3600,  # a guard against a hung kernel, not a time limit on the tutorial
        resources={"metadata": {"path": str(tmp_path)}},
    )
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as e:
        pytest.fail(f"{name}: a cell failed:\n{str(e)[-4000:]}", pytrace=False)
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors
