"""Accessibility of the browser table (issue 22 item 9): no serious or
critical axe-core violation (``axe-playwright-python``) on the create page,
mid-round, at a round's end and at the game's end, at a laptop's and at a
phone's size, in the light and in the dark colour scheme; and what a screen
reader reads: the chain and the hand as lists of tiles named "6-4", every
new line of the log in a polite live region (none dropped)."""

from __future__ import annotations

import re

import pytest

from tests.web import _browser
from tests.web._browser import SEATS, click_move, needs_chromium

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")
axe_sync = pytest.importorskip("axe_playwright_python.sync_playwright")
expect = sync_api.expect

pytestmark = [pytest.mark.slow, needs_chromium]
server, browser = _browser.server, _browser.browser  # the module's fixtures

AXE = axe_sync.Axe()
TILE = re.compile(r"^[0-6]-[0-6]\b")


def _serious(page, where: str) -> None:
    """No serious or critical violation, in both colour schemes."""
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        found = AXE.run(page).response["violations"]
        bad = [
            (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
            for v in found
            if v["impact"] in ("serious", "critical")
        ]
        assert bad == [], (where, scheme, bad)
    page.emulate_media(color_scheme="light")


def _screen_reader_view(page) -> None:
    """The chain and the hand are lists of named tiles; every line of the
    log since the page opened is in the live region, in order."""
    chain = page.get_by_test_id("chain")
    assert chain.get_attribute("role") == "list" and chain.get_attribute("aria-label")
    names = chain.locator('[role="listitem"].chain-tile').evaluate_all(
        "(es) => es.map((e) => e.getAttribute('aria-label'))"
    )
    assert names and all(TILE.match(n) for n in names), names
    hand = page.get_by_test_id("hand")
    assert hand.get_attribute("role") == "list" and hand.get_attribute("aria-label")
    tiles = hand.locator('[role="listitem"] button').evaluate_all(
        "(es) => es.map((e) => e.getAttribute('aria-label'))"
    )
    assert tiles and all(TILE.match(n) for n in tiles), tiles
    live = page.locator("#announce")
    assert live.get_attribute("aria-live") == "polite" and live.get_attribute("role") == "log"
    # both in one evaluation: a computer's move may come between two reads
    heard, log = page.evaluate(
        """() => [[...document.querySelectorAll('#announce p')].map((e) => e.textContent),
                  [...document.querySelectorAll('#log li')].map((e) => e.textContent)]"""
    )
    assert heard and log[len(log) - len(heard) :] == heard, (heard, log)


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["laptop", "phone"])
def test_no_serious_axe_violation_from_the_create_page_to_the_games_end(server, browser, size):
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.goto(server + "/")
    page.get_by_test_id("new-table").wait_for()
    _serious(page, "create")
    _browser.create(page, server, SEATS, seed=7, rounds=2)
    status = page.get_by_test_id("status")
    expect(status).to_have_text("Your turn")  # seed 7: the person's turn comes first
    assert click_move(page)  # one move: the live region has lines of the page's own time
    expect(page.locator("#announce p").first).to_be_attached()
    assert page.locator("#round-end").is_hidden()  # seed 7: the round goes on
    _screen_reader_view(page)
    _serious(page, "mid-round")
    host = page.get_by_test_id("host-links")  # the host's panel, open, a seat's Change open
    host.locator(":scope > summary").click()
    page.locator('[data-host-edit="1"] > summary').click()
    expect(page.locator('[data-host-name="1"]')).to_be_visible()
    _serious(page, "host panel")
    host.locator(":scope > summary").click()
    _browser.play_to_round_end(page)
    _serious(page, "round end")
    page.get_by_test_id("next-round").click()
    expect(page.locator("#round-end")).to_be_hidden()
    _browser.play_to_round_end(page)
    expect(status).to_have_text(re.compile("^Game over"))
    _serious(page, "game over")
    page.close()
