"""``domeng serve``: its options, the default address (this machine only),
and bad values refused with one line."""

from __future__ import annotations

import pytest

from domeng.cli.main import build_parser, main


def test_serve_binds_loopback_by_default():
    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port == 8000
    assert args.delay == 0.8 and args.idle == 900 and args.max_tables == 200
    assert args.max_per_address == 32 and args.allow_host == []


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--port", "70000"],
        ["serve", "--port", "x"],
        ["serve", "--delay", "-1"],
        ["serve", "--delay", "nan"],
        ["serve", "--idle", "0"],
        ["serve", "--max-tables", "0"],
        ["serve", "--max-per-address", "1"],
        ["serve", "--allow-host", "evil.example/x"],
    ],
)
def test_bad_values_are_one_line_and_status_2(argv, capsys, monkeypatch):
    import domeng.web.server as server

    monkeypatch.setattr(server, "serve", lambda *a, **k: pytest.fail("must not start"))
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err and len(err.splitlines()) <= 2 and "Traceback" not in err


def test_serve_starts_the_server_with_the_options(capsys, monkeypatch):
    import domeng.web.server as server

    got = {}
    monkeypatch.setattr(
        server, "serve", lambda *a, **k: got.update(args=a, kw=k, port=k["sock"].getsockname()[1])
    )
    assert main(["serve", "--port", "0", "--delay", "0.2", "--idle", "60"]) == 0
    port = got["port"]
    assert port != 0 and got["args"] == ("127.0.0.1", port)  # the real port, not 0
    assert got["kw"]["delay"] == 0.2
    assert got["kw"]["idle"] == 60
    assert got["kw"]["per_address"] == 32 and got["kw"]["allow_hosts"] == []
    assert f"http://127.0.0.1:{port}/" in capsys.readouterr().out


def test_serve_port_0_end_to_end_serves_the_page_at_the_port_it_prints(tmp_path):
    """The real command: the address printed for ``--port 0`` answers."""
    import os
    import re
    import subprocess
    import sys
    import urllib.request
    from pathlib import Path

    pytest.importorskip("uvicorn")
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-m", "domeng", "serve", "--port", "0"],
        cwd=str(root),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, XDG_DATA_HOME=str(tmp_path)),
    )
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m and int(m.group(1)) != 0, line
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(m.group(0), timeout=30) as r:
            assert r.status == 200 and b"<html" in r.read().lower()
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
