"""Nothing overwritten (issue 23 item 3): ``--out`` onto a folder that holds
results is refused with one line naming --force (replace) and, where the
command can continue it, --resume; ``--force`` replaces it; the Python API
refuses the same unless ``overwrite=True``."""

from __future__ import annotations

import json

import pytest

import domeng
from domeng.cli.main import main
from domeng.core.errors import OutputFolderError

SMALL = ["-t", "3", "-r", "2", "--no-progress"]
COMMANDS = {
    "simulate": (["simulate", *SMALL], "summary.json", True),
    "compare": (["compare", "-V", "pollo=4", *SMALL], "compare.json", True),
    "sweep": (["sweep", "--vary", "pollo=3,4", *SMALL], "sweep.json", True),
    "tournament": (
        [
            "tournament",
            "-p",
            "random,heavy,keeper,hunter,random",
            "--deals",
            "2",
            "--rounds",
            "1",
            "--orders",
            "rotations",
            "--no-progress",
        ],
        "summary.json",
        False,
    ),
    "ladder": (
        [
            "ladder",
            "--players",
            "random,heavy,keeper,hunter,random,heavy",
            "--deals",
            "1",
            "--rounds",
            "1",
            "--orders",
            "rotations",
            "--no-progress",
        ],
        "summary.json",
        False,
    ),
}


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", list(COMMANDS))
def test_out_onto_results_is_refused_and_force_replaces(command, tmp_path, capsys):
    argv, marker, resumable = COMMANDS[command]
    out = tmp_path / "study"
    code, _, err = _run([*argv, "--out", str(out)], capsys)
    assert code == 0, err
    first = (out / marker).read_bytes()
    keep = out / "mine.txt"  # anything in the folder survives a refusal
    keep.write_text("x")
    (out / marker).write_text("{}")  # so that a replacement is seen
    code, _, err = _run([*argv, "--out", str(out)], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "--force" in lines[0] and "already holds results" in lines[0]
    assert ("--resume" in lines[0]) == resumable
    assert (out / marker).read_text() == "{}" and keep.read_text() == "x"
    code, _, err = _run([*argv, "--out", str(out), "--force"], capsys)
    assert code == 0, err
    new, old = json.loads((out / marker).read_bytes()), json.loads(first)
    for d in (new, old):  # the command line says --force; the rest is the same study
        d.pop("command", None)
        d.pop("elapsed_seconds", None)
        for st in d.get("players_stats", []):  # a tournament's measured times
            st.pop("decision_ms", None)
    assert new == old


def test_python_api_refuses_unless_overwrite(tmp_path):
    res = domeng.simulate(tables=2, rounds=2, progress=False)
    res.save(tmp_path / "r")
    with pytest.raises(OutputFolderError, match="overwrite=True"):
        res.save(tmp_path / "r")
    assert res.save(tmp_path / "r", overwrite=True) == tmp_path / "r"
    assert domeng.Results.load(tmp_path / "r").equals(res)

    ck = tmp_path / "ck"
    domeng.simulate(tables=2, rounds=2, progress=False, checkpoint=ck)
    with pytest.raises(OutputFolderError, match="--force"):
        domeng.simulate(tables=2, rounds=3, progress=False, checkpoint=ck)
    again = domeng.simulate(tables=2, rounds=3, progress=False, checkpoint=ck, overwrite=True)
    assert domeng.Results.load(ck).rounds == again.rounds == 3

    cmp_dir = tmp_path / "cmp"
    domeng.compare(["pollo=4"], tables=2, rounds=2, progress=False, out=cmp_dir)
    with pytest.raises(OutputFolderError):
        domeng.compare(["pollo=4"], tables=2, rounds=2, progress=False, out=cmp_dir)
    domeng.compare(["pollo=4"], tables=2, rounds=2, progress=False, out=cmp_dir, overwrite=True)

    sw_dir = tmp_path / "sw"
    domeng.sweep(["pollo=3,4"], tables=2, rounds=2, progress=False, out=sw_dir)
    with pytest.raises(OutputFolderError):
        domeng.sweep(["pollo=3,4"], tables=2, rounds=2, progress=False, out=sw_dir)
    domeng.sweep(["pollo=3,4"], tables=2, rounds=2, progress=False, out=sw_dir, overwrite=True)
