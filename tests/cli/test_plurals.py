"""A count of one is singular everywhere a study prints it: the text, the
report's title and page, and every plot's title and caption ("1 table x 1
round", not "1 tables x 1 rounds"; walk4 found "1 lineups", "1 deals")."""

from __future__ import annotations

import re

import pytest

from domeng.cli.main import main
from domeng.core.wording import counted, counted_x

#: a plural after the number 1 (words the studies count)
WRONG = re.compile(
    r"(?<![\d.,])1 (tables|rounds|deals|lineups|seatings|groups|variants|"
    r"grid points|looks|workers)\b"
)


def test_counted_x():
    assert counted_x((1, "table"), (500, "round")) == "1 table x 500 rounds"
    assert counted_x((2000, "table"), (1, "round")) == "2,000 tables x 1 round"
    assert counted(1, "lineup") == "1 lineup" and counted(0, "lineup") == "0 lineups"


@pytest.fixture
def titles(monkeypatch):
    """Every figure and axes title, and every figure text (the captions),
    drawn while the test runs."""
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    seen: list[str] = []
    suptitle, set_title, text = Figure.suptitle, Axes.set_title, Figure.text

    def fig_text(self, x, y, s, *a, **k):
        seen.append(" ".join(s.split()))
        return text(self, x, y, s, *a, **k)

    def sup(self, t, *a, **k):
        seen.append(t)
        return suptitle(self, t, *a, **k)

    def ax_title(self, label, *a, **k):
        seen.append(label)
        return set_title(self, label, *a, **k)

    monkeypatch.setattr(Figure, "suptitle", sup)
    monkeypatch.setattr(Axes, "set_title", ax_title)
    monkeypatch.setattr(Figure, "text", fig_text)
    return seen


@pytest.mark.parametrize(
    "argv, expect",
    [
        (["simulate", "-t", "1", "-r", "1"], "Domeng study: 1 table x 1 round"),
        (
            ["compare", "-t", "1", "-r", "1", "-V", "pollo=4"],
            "Domeng paired comparison: 1 table x 1 round per arm",
        ),
        (
            ["sweep", "-t", "1", "-r", "1", "--vary", "ceki=2,3"],
            "Domeng sweep: 2 grid points x 1 table x 1 round",
        ),
        (
            [
                "tournament",
                "-p",
                "hunter,keeper,heavy,random,random",
                "-d",
                "1",
                "-r",
                "1",
                "--orders",
                "rotations",
            ],
            "Domeng duplicate tournament: 1 deal x 1 round x 5 seatings",
        ),
        (
            [
                "ladder",
                "-p",
                "hunter,keeper,heavy,random,random",
                "-d",
                "1",
                "-r",
                "1",
                "--orders",
                "rotations",
            ],
            "Domeng ladder: 5 players, 1 lineup x 1 deal x 1 round x 5 seatings",
        ),
    ],
)
def test_one_of_anything_is_singular(argv, expect, tmp_path, capsys, titles):
    assert main(argv + ["--out", str(tmp_path / "out"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    page = (tmp_path / "out" / "report.html").read_text()
    assert f"<h1>{expect}</h1>" in page
    assert titles and any(" 1 round" in t for t in titles)
    for text in [out, page, *titles]:
        assert not WRONG.search(text), WRONG.search(text).group(0)
