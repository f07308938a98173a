"""One-line errors name the command they belong to (found by the walk4 docs
walk): an unknown option of ``domeng simulate`` is reported by ``domeng
simulate`` and points at its own ``--help``."""

from __future__ import annotations

import pytest

from domeng.cli.main import main


@pytest.mark.parametrize("argv", [["simulate"], ["rules"], ["report", "some-folder"], ["trace"],
                                  ["play"], ["serve"], ["sweep", "--rule", "pollo=3,4"]])
def test_unknown_option_names_the_command(argv, capsys):
    command = argv[0]
    assert main(argv + ["--frobnicate", "--tabels=3"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip() == (f"domeng {command}: error: unrecognized arguments: --frobnicate "
                           f"--tabels=3 (see domeng {command} --help)")


def test_unknown_option_before_the_command_is_domengs(capsys):
    assert main(["--frobnicate"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("domeng: error: unrecognized arguments: --frobnicate")
    assert err.endswith("(see domeng --help)")
