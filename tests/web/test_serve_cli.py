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
    assert args.data is None and args.keep_days == 7  # None: $XDG_DATA_HOME/domeng/tables
    assert args.certfile is None and args.keyfile is None  # plain HTTP


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
        ["serve", "--keep-days", "0"],
        ["serve", "--keep-days", "inf"],
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


# ---------------------------------------------------------------- TLS (issue 22 item 12)
def _self_signed(folder, name="cert", encrypt=False):
    """A self-signed certificate for 127.0.0.1 and its key (openssl)."""
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    cmd = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-days", "2"]
    cmd += ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"]
    cmd += ["-keyout", str(key), "-out", str(cert)]
    cmd += ["-passout", "pass:secret"] if encrypt else ["-nodes"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    return str(cert), str(key)


def test_serve_tls_end_to_end_https_and_wss(tmp_path):
    """``--certfile``/``--keyfile``: the address printed is https, the page
    answers over TLS, a table is created and its link works over wss:."""
    import json
    import os
    import re
    import ssl
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("uvicorn")
    httpx = pytest.importorskip("httpx2")
    websockets = pytest.importorskip("websockets.sync.client")
    cert, key = _self_signed(tmp_path)
    root = Path(__file__).resolve().parents[2]
    argv = [sys.executable, "-m", "domeng", "serve", "--port", "0", "--data", str(tmp_path / "d")]
    proc = subprocess.Popen(
        argv + ["--certfile", cert, "--keyfile", key],
        cwd=str(root),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, XDG_DATA_HOME=str(tmp_path)),
    )
    try:
        line = proc.stdout.readline()
        m = re.search(r"https://127\.0\.0\.1:(\d+)/", line)
        assert m, line
        base = m.group(0).rstrip("/")
        ctx = ssl.create_default_context(cafile=cert)
        with httpx.Client(verify=ctx, timeout=60) as http:
            assert b"<html" in http.get(base + "/").content.lower()
            links = http.post(base + "/api/tables", json={"seats": ["human"] * 5}).json()
        tok = links["you"].split("#t=", 1)[1]
        url = base.replace("https://", "wss://") + "/ws"
        with websockets.connect(url, ssl=ctx, open_timeout=60) as ws:
            ws.send(json.dumps({"type": "hello", "token": tok}))
            assert json.loads(ws.recv(timeout=60))["type"] == "state"
        with pytest.raises(httpx.HTTPError):  # plain HTTP is not served
            httpx.get(base.replace("https://", "http://") + "/", timeout=10)
    finally:
        proc.terminate()
        proc.communicate(timeout=60)


def test_serve_tls_refusals_are_one_line(tmp_path, capsys, monkeypatch):
    import domeng.web.server as server

    monkeypatch.setattr(server, "serve", lambda *a, **k: pytest.fail("must not start"))
    cert, key = _self_signed(tmp_path)
    _, other_key = _self_signed(tmp_path, "other")
    _, locked = _self_signed(tmp_path, "locked", encrypt=True)
    data = ["--data", str(tmp_path / "d")]
    cases = [
        (["--certfile", cert], "go together"),
        (["--keyfile", key], "go together"),
        (["--certfile", cert, "--keyfile", str(tmp_path / "missing.key")], "cannot read"),
        (["--certfile", str(tmp_path / "missing.pem"), "--keyfile", key], "cannot serve TLS"),
        (["--certfile", cert, "--keyfile", other_key], "cannot serve TLS"),
        (["--certfile", key, "--keyfile", key], "cannot serve TLS"),
        (["--certfile", cert, "--keyfile", locked], "encrypted"),
    ]
    for extra, words in cases:
        assert main(["serve", "--port", "0", *data, *extra]) == 2, extra
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err and words in err, err
    assert not (tmp_path / "d").exists()  # refused before anything was created
    got = {}
    monkeypatch.setattr(server, "serve", lambda *a, **k: got.update(k))
    assert main(["serve", "--port", "0", *data, "--certfile", cert, "--keyfile", key]) == 0
    assert got["tls"] == (cert, key) and "https://127.0.0.1:" in capsys.readouterr().out
