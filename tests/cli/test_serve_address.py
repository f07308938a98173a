"""``domeng serve`` refuses an address it cannot listen on (a port in use,
a host that is not this machine's) in one line, exit 2, before it announces
an address and before the server starts (found by the walk4 docs walk: it
used to print "the table is at ..." and then uvicorn's own error, exit 3)."""

from __future__ import annotations

import socket

import pytest

from domeng.cli.main import main

pytest.importorskip("starlette")


@pytest.fixture
def no_server(monkeypatch):
    import domeng.web.server as server

    monkeypatch.setattr(server, "serve", lambda *a, **k: pytest.fail("must not start"))


def test_port_in_use_is_one_line_before_anything_is_announced(capsys, no_server):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # no "the table is at ..." for a table that never opens
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert lines[0].startswith("domeng serve: error: cannot listen on 127.0.0.1:")
    assert str(port) in lines[0]


def test_host_that_is_not_this_machines_is_one_line(capsys, no_server):
    assert main(["serve", "--host", "999.1.1.1", "--port", "0"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    assert "cannot listen on 999.1.1.1" in err


def test_a_free_address_starts_the_server_on_the_port_it_announces(capsys, monkeypatch):
    """``--port 0`` announces the port the system chose (walk4: it printed
    ``http://127.0.0.1:0/``), and the server gets the socket bound to it."""
    import domeng.web.server as server

    got = {}

    def fake_serve(*a, **k):
        sock = k["sock"]
        got.update(args=a, sock=sock, name=sock.getsockname())
        sock.listen(1)
        with socket.create_connection(("127.0.0.1", a[1]), timeout=5):
            pass  # the announced port is this socket's

    monkeypatch.setattr(server, "serve", fake_serve)
    assert main(["serve", "--port", "0"]) == 0
    host, port = got["name"][:2]
    assert host == "127.0.0.1" and port != 0 and got["args"] == ("127.0.0.1", port)
    out = capsys.readouterr().out
    assert f"the table is at http://127.0.0.1:{port}/" in out and ":0/" not in out
    assert got["sock"].fileno() == -1  # closed once the server stopped
