"""``domeng serve``: its options, the default address (this machine only),
and bad values refused with one line."""

from __future__ import annotations

import pytest

from domeng.cli.main import build_parser, main


def test_serve_binds_loopback_by_default():
    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port == 8000
    assert args.delay == 0.8 and args.idle == 900 and args.max_tables == 200


@pytest.mark.parametrize("argv", [["serve", "--port", "70000"], ["serve", "--port", "x"],
                                  ["serve", "--delay", "-1"], ["serve", "--delay", "nan"],
                                  ["serve", "--idle", "0"], ["serve", "--max-tables", "0"]])
def test_bad_values_are_one_line_and_status_2(argv, capsys, monkeypatch):
    import domeng.web.server as server

    monkeypatch.setattr(server, "serve", lambda *a, **k: pytest.fail("must not start"))
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err and len(err.splitlines()) <= 2 and "Traceback" not in err


def test_serve_starts_the_server_with_the_options(capsys, monkeypatch):
    import domeng.web.server as server

    got = {}
    monkeypatch.setattr(server, "serve", lambda *a, **k: got.update(args=a, kw=k))
    assert main(["serve", "--port", "0", "--delay", "0.2", "--idle", "60"]) == 0
    assert got["args"] == ("127.0.0.1", 0) and got["kw"]["delay"] == 0.2
    assert got["kw"]["idle"] == 60 and "127.0.0.1" in capsys.readouterr().out
