"""``domeng rules`` (and the game's ``rules`` command) shows option values as
they are typed after ``--rule`` (walk4: "(False: only the first one)" where
the value to type is ``false``)."""

from __future__ import annotations

import re
from dataclasses import fields

from domeng.cli.main import main
from domeng.core.rules import Rules


def test_rules_shows_boolean_values_as_typed(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    options = out[out.index("OPTIONS") :]
    assert not re.search(r"\b(True|False|None)\b", options), options
    assert "(false: only the first one)" in " ".join(options.split())
    # what it says to type is accepted, and means what it says
    assert Rules.parse(["passebunge_every_pass=false"]).passebunge_every_pass is False
    for f in fields(Rules):
        if isinstance(getattr(Rules(), f.name), bool):
            assert re.search(rf"{f.name}\s+default (true|false)\b", options), f.name
