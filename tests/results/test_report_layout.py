"""The HTML reports fit a 1280-px and a 390-px window (issue 12), checked in a
headless browser: Playwright when installed, else the chromium binary; skipped
when neither is there."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from domeng.cli.main import main

WIDTHS = (1280, 390)
# headless chromium will not make a window narrower than 500 px, so the report
# is measured inside an iframe of the width under test
FRAME = (
    "<!DOCTYPE html><html><body style='margin:0'><iframe id='f' src='{src}' "
    "style='width:{w}px;height:900px;border:0'></iframe><script>"
    "document.getElementById('f').addEventListener('load', () => {{"
    "const d = document.getElementById('f').contentDocument;"
    "document.title = 'W=' + Math.max(d.documentElement.scrollWidth, d.body.scrollWidth);"
    "}});</script></body></html>"
)


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _page_width(path: Path, width: int) -> int:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if sync_playwright is not None and Path(CHROMIUM).exists():
        with sync_playwright() as pw:
            # Debian's Chromium (the Makefile installs it); never a downloaded browser
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
            )
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(path.as_uri())
            w = page.evaluate(
                "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            )
            browser.close()
            return int(w)
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.skip("no headless browser (Playwright or chromium)")
    probe = path.with_name(path.stem + f".probe{width}.html")
    probe.write_text(FRAME.format(src=path.name, w=width))
    out = subprocess.run(
        [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--allow-file-access-from-files",
            f"--window-size={width + 100},1000",
            "--virtual-time-budget=5000",
            "--dump-dom",
            probe.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    m = re.search(r"<title>W=(\d+)</title>", out.stdout)
    if m is None:
        pytest.skip(f"chromium did not run the probe: {out.stderr.strip()[:200]}")
    return int(m.group(1))


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    d = tmp_path_factory.mktemp("reports")
    assert (
        main(
            ["simulate", "-t", "12", "-r", "10", "--out", str(d / "sim"), "--no-progress", "--json"]
        )
        == 0
    )
    assert (
        main(
            [
                "compare",
                "-t",
                "12",
                "-r",
                "10",
                "--variant",
                "pollo=4",
                "--variant",
                "passebunge_every_pass=false;players=random",
                "--out",
                str(d / "cmp"),
                "--no-progress",
                "--json",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "sweep",
                "-t",
                "12",
                "-r",
                "10",
                "--rule",
                "ceki=2,3",
                "--out",
                str(d / "sweep"),
                "--no-progress",
                "--json",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "tournament",
                "--players",
                "hunter,keeper,heavy,random,random",
                "--deals",
                "4",
                "--rounds",
                "3",
                "--out",
                str(d / "tour"),
                "--no-progress",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "ladder",
                "--players",
                "hunter,keeper,heavy,random,random",
                "--deals",
                "3",
                "--rounds",
                "2",
                "--orders",
                "rotations",
                "--out",
                str(d / "ladder"),
                "--no-progress",
            ]
        )
        == 0
    )
    return {k: d / k / "report.html" for k in ("sim", "cmp", "sweep", "tour", "ladder")}


@pytest.mark.slow
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("kind", ["sim", "cmp", "sweep", "tour", "ladder"])
def test_report_fits_the_window(reports, kind, width, capsys):
    capsys.readouterr()
    assert _page_width(reports[kind], width) <= width


def test_reports_have_contents_glossary_rules_command_versions(reports, capsys):
    from domeng.core.ruletext import TERMS

    for kind in ("sim", "cmp", "sweep", "tour", "ladder"):
        html = reports[kind].read_text()
        assert "<nav class='toc'>" in html and "<pre>" in html
        for term, _ in TERMS:
            assert f"<dt>{term}</dt>" in html, (kind, term)
        for needle in (
            "mattikkeng_reduced_award",
            "passebunge_every_pass",
            "domeng ",
            "Python",
            "numba",
            "numpy",
            "pandas",
            "<table class='df",
        ):
            assert needle in html, (kind, needle)
    assert "domeng simulate -t 12 -r 10" in reports["sim"].read_text()


class _Headers(HTMLParser):
    """Every table row's header cells' text, and whether the row is in a thead."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[bool, list[str], int]] = []
        self.head = False
        self.row: list[str] | None = None
        self.cells = 0
        self.th = False

    def handle_starttag(self, tag, attrs):
        if tag == "thead":
            self.head = True
        elif tag == "tr":
            self.row, self.cells = [], 0
        elif tag in ("th", "td") and self.row is not None:
            self.cells += 1
            self.th = tag == "th"
            if self.th:
                self.row.append("")

    def handle_endtag(self, tag):
        if tag == "thead":
            self.head = False
        elif tag == "tr" and self.row is not None:
            self.rows.append((self.head, self.row, self.cells))
            self.row = None
        elif tag == "th":
            self.th = False

    def handle_data(self, data):
        if self.th and self.row:
            self.row[-1] += data


@pytest.mark.parametrize("kind", ["sim", "cmp", "sweep", "tour", "ladder"])
def test_no_report_table_has_an_empty_header(reports, kind, capsys):
    """The study's first table (its name-value metadata) had a header row of
    two empty cells, shown as a blank bar on top; every header cell names
    its column (or its row)."""
    p = _Headers()
    p.feed(reports[kind].read_text())
    assert p.rows, kind
    for head, names, cells in p.rows:
        assert all(n.strip() for n in names), (kind, head, names)
        if head:
            assert len(names) == cells  # a header row is all header cells
    sim = _Headers()
    sim.feed(reports["sim"].read_text())
    assert (False, ["seed"], 2) in sim.rows  # the metadata: each name heads its row
