"""The ``domeng`` command, run in-process through ``main()`` (and once as
``python -m domeng`` in a subprocess): outputs, files, exit codes, and one
clear line on stderr for every kind of bad usage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from domeng.cli.main import main
from domeng.core.rules import Rules
from domeng.results.results import FRAME_NAMES, Results

TINY = ["--tables", "3", "--rounds", "4", "--seed", "2"]
ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_json_prints_only_json(capsys):
    code, out, err = run(
        capsys,
        "simulate",
        *TINY,
        "--players",
        "random,heavy,keeper,hunter,random",
        "--rule",
        "passebunge_every_pass=false",
        "--rule",
        "pollo=4",
        "--json",
        "--no-progress",
    )
    assert code == 0
    s = json.loads(out)  # the whole of stdout is one JSON object
    assert (s["tables"], s["rounds"], s["seed"]) == (3, 4, 2)
    assert s["players"] == ["random", "heavy", "keeper", "hunter", "random"]
    assert s["rules"]["passebunge_every_pass"] is False and s["rules"]["pollo_award"] == 4
    assert err == ""


def test_simulate_text_summary_and_progress(capsys):
    code, out, err = run(
        capsys, "simulate", *TINY, "--players", "keeper", "--chunk-tables", "1", "--workers", "1"
    )
    assert code == 0
    for text in (
        "3 tables x 4 rounds = 12 rounds",
        "How rounds end",
        "Per seat",
        "Per player",
        "starter",
        "Stones per round",
        "CAMAT",
        "keeper",
    ):
        assert text in out, text
    assert "rounds/s" in err and "100.0%" in err  # the progress bar is on stderr only
    assert "rounds/s" not in out.split("rounds in")[0]


def test_simulate_out_writes_everything_and_report_rerenders(capsys, tmp_path):
    out_dir = tmp_path / "study"
    code, out, err = run(
        capsys, "simulate", *TINY, "--out", str(out_dir), "--records", "--no-progress"
    )
    assert code == 0, err
    assert str(out_dir) in out
    s = json.loads((out_dir / "summary.json").read_text())
    assert s["total_rounds"] == 12
    for name in FRAME_NAMES:
        assert (out_dir / "tables" / f"{name}.parquet").is_file()
        assert (out_dir / "tables" / f"{name}.csv").is_file()
    pngs = sorted(p.name for p in (out_dir / "plots").glob("*.png"))
    assert "win_rates.png" in pngs and "stone_flows.png" in pngs and len(pngs) >= 5
    assert "data:image/png;base64," in (out_dir / "report.html").read_text()
    assert pq.ParquetFile(out_dir / "records.parquet").metadata.num_rows == 12
    assert [p.name for p in tmp_path.iterdir()] == ["study"]  # no temporary folders left

    (out_dir / "report.html").unlink()
    for p in (out_dir / "plots").iterdir():
        p.unlink()
    code, out, err = run(capsys, "report", str(out_dir))
    assert code == 0, err
    assert (out_dir / "report.html").is_file()
    assert (out_dir / "plots" / "win_rates.png").is_file()
    assert "How rounds end" in out
    assert Results.load(out_dir).summary() == s
    code, out, _ = run(capsys, "report", str(out_dir), "--json")
    assert code == 0 and json.loads(out) == s


def test_rules_command(capsys):
    code, out, _ = run(capsys, "rules")
    assert code == 0
    for text in ("PASSEBUNGE", "MATTIKKENG", "CAMAT", "D1 ", "D17", "OPTIONS"):
        assert text in out, text
    default = Rules()
    for name, value in default.to_dict().items():
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        assert any(
            line.strip().startswith(name) and f"default {shown}" in line
            for line in out.splitlines()
        ), name
    code, out, _ = run(capsys, "rules", "--json")
    assert code == 0 and json.loads(out) == default.to_dict()


@pytest.mark.parametrize(
    "argv", [["--help"], ["simulate", "--help"], ["report", "--help"], ["rules", "--help"]]
)
def test_help(capsys, argv):
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert "usage: domeng" in out


def _bad_usage(capsys, argv, expect):
    code, out, err = run(capsys, *argv)
    assert code == 2, (argv, err)
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert expect in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(
    "argv, expect",
    [
        (["simulate", "--tables", "0"], "--tables"),
        (["simulate", "--tables", "ten"], "--tables"),
        (["simulate", "--rounds", "-5"], "--rounds"),
        (["simulate", "--seed", "-1"], "--seed"),
        (["simulate", "--workers", "0"], "--workers"),
        (["simulate", "--chunk-tables", "0"], "--chunk-tables"),
        (["simulate", *TINY, "--players", "random,bogus,random,random,random"], "bogus"),
        (["simulate", *TINY, "--players", "random,heavy"], "five"),
        (["simulate", *TINY, "--rule", "nope=1"], "nope"),
        (["simulate", *TINY, "--rule", "pollo"], "name=value"),
        (["simulate", *TINY, "--rule", "pollo=-2"], "pollo"),
        (["simulate", *TINY, "--rule", "passebunge_every_pass=maybe"], "true or false"),
        (["simulate", *TINY, "--records"], "--records needs --out"),
        (["simulate", "--frobnicate"], "unrecognized"),
        (["frobnicate"], "invalid choice"),
        ([], "choose a command"),
        (["report"], "DIR"),
    ],
)
def test_bad_usage_is_one_line_exit_2(capsys, argv, expect):
    _bad_usage(capsys, argv, expect)


def test_bad_output_and_results_folders(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _bad_usage(
        capsys, ["simulate", *TINY, "--no-progress", "--out", str(blocker / "out")], "cannot write"
    )
    _bad_usage(capsys, ["simulate", *TINY, "--no-progress", "--out", str(blocker)], "is a file")
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep")
    _bad_usage(capsys, ["simulate", *TINY, "--no-progress", "--out", str(foreign)], "refusing")
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]
    _bad_usage(capsys, ["report", str(tmp_path / "missing")], "no results folder")
    _bad_usage(capsys, ["report", str(foreign)], "not a domeng results folder")
    corrupt = tmp_path / "corrupt"
    corrupt.mkdir()
    (corrupt / "results.npz").write_bytes(b"\x00garbage")
    _bad_usage(capsys, ["report", str(corrupt)], "corrupt")
    assert not (corrupt / "report.html").exists()
    # nothing half-written was left next to the outputs
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corrupt", "file", "mine"]


def test_python_dash_m_domeng_subprocess(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    ok = subprocess.run(
        [
            sys.executable,
            "-m",
            "domeng",
            "simulate",
            "--tables",
            "2",
            "--rounds",
            "3",
            "--json",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["total_rounds"] == 6
    bad = subprocess.run(
        [sys.executable, "-m", "domeng", "simulate", "--tables", "0"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr


def test_the_process_ends_fast_but_runs_its_exit_handlers(tmp_path):
    """The ``domeng`` process skips the interpreter's teardown (os._exit) once
    its output is flushed, but still runs the atexit handlers; ``main(argv)``
    called with a list (in-process) returns as before."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('exit handler ran'))\n"
        "sys.argv = ['domeng', 'rules']\n"
        "from domeng.cli.main import main\n"
        "main()\n"
        "print('not reached')\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.rstrip().endswith("exit handler ran") and "not reached" not in p.stdout
    assert "passebunge" in p.stdout.lower()  # the command's own output came first
    bad = subprocess.run(
        [sys.executable, "-c", code.replace("'rules'", "'rules', '--bogus'")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert (
        bad.returncode == 2 and "exit handler ran" in bad.stdout and "Traceback" not in bad.stderr
    )


def test_large_seeds_are_accepted_and_bad_ones_refused(capsys):
    from domeng.cli.main import main as cli_main

    assert (
        cli_main(
            ["simulate", "-t", "2", "-r", "2", "--seed", str(2**64 - 1), "--json", "--no-progress"]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["seed"] == 2**64 - 1
    assert cli_main(["simulate", "-t", "2", "-r", "2", "--seed", str(2**64)]) == 2
    err = capsys.readouterr().err
    assert "2**64 - 1" in err and len(err.strip().splitlines()) == 1


def test_each_shared_option_is_defined_once():
    """--tables, --rounds, --seed, --workers, --rule, --out, --force and
    --json are read the same way by every command: one definition each
    (cli/args.COMMON_OPTIONS), added by add_option; no command spells one
    out with add_argument again."""
    import re
    from pathlib import Path

    from domeng.cli.args import COMMON_OPTIONS

    flags = "|".join(re.escape(f) for f in COMMON_OPTIONS)
    spelled = re.compile(r"add_argument\(\s*\"(" + flags + r")\"")
    cli = Path(__file__).resolve().parents[2] / "domeng" / "cli"
    found = [
        f"{p.name}: {m.group(1)}"
        for p in sorted(cli.glob("*.py"))
        for m in spelled.finditer(p.read_text())
    ]
    assert found == []
    assert set(COMMON_OPTIONS) >= {"--seed", "--rule", "--rounds", "--workers"}
