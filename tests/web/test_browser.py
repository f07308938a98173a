"""The browser table in a real browser: Playwright driving Debian's Chromium
(``/usr/bin/chromium``; the Makefile installs it; never ``playwright install``).
A person creates a table with four computer players and plays whole rounds by
clicking, at a laptop's and at a phone's size; screenshots go to
``$DOMENG_SCREENSHOTS`` (default: the test's temporary folder)."""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

import pytest

from tests.web._browser import click_move

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
END_TERMS = re.compile(r"CAPPU|CEKI|POLLO|MANGUNO|MATTIKKENG")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not os.access(CHROMIUM, os.X_OK),
        reason="no /usr/bin/chromium (make install-test installs it)",
    ),
]


@pytest.fixture(scope="module")
def server():
    """The app on 127.0.0.1, a free port (0), stopped at the end."""
    import uvicorn

    from domeng.web.server import create_app

    app = create_app(delay=0.01, idle=600)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    deadline = time.monotonic() + 60
    while not srv.started:
        assert time.monotonic() < deadline and th.is_alive(), "the server did not start"
        time.sleep(0.05)
    port = srv.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}", app
    srv.should_exit = True
    th.join(30)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


_SHOTS: list[Path] = []


@pytest.fixture(scope="module", autouse=True)
def shots_dir(tmp_path_factory):
    env = os.environ.get("DOMENG_SCREENSHOTS")
    d = Path(env) if env else tmp_path_factory.mktemp("screenshots")
    d.mkdir(parents=True, exist_ok=True)
    _SHOTS[:] = [d]
    return d


def _shots() -> Path:
    return _SHOTS[0]


def _shot(page, name: str) -> None:
    """``NAME.png``, the whole page (scrolled to the top first: the pinned
    header and hand tray sit in their places), and ``NAME-screen.png``, the
    screen as the person sees it."""
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(_shots() / f"{name}.png"), full_page=True)
    page.screenshot(path=str(_shots() / f"{name}-screen.png"))


#: where things are on the page, measured in one go (no re-render in between):
#: [left, top, right, bottom] in CSS pixels of the viewport
LAYOUT = """() => {
  const box = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const shown = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.getClientRects().length);
  return {scroll_width: document.documentElement.scrollWidth, vw: innerWidth, vh: innerHeight,
          status: box(document.querySelector('[data-testid="status"]')),
          tiles: shown('[data-testid="hand"] [data-tile]').map(box),
          ends: shown('#end-choice [data-end]').map(box),
          pass: shown('[data-testid="pass"]').map(box),
          next: shown('[data-testid="next-round"]').map(box)};
}"""


def _inside(b, lay) -> bool:
    return b[0] >= 0 and b[1] >= 0 and b[2] <= lay["vw"] + 0.5 and b[3] <= lay["vh"] + 0.5


def _check_layout(page, turn: bool) -> dict:
    """The page fits its width; the status is on screen; on the person's turn
    every tile of the hand (and the end choice, PASS) is a tap target of at
    least 40 px, wholly on screen without scrolling."""
    lay = page.evaluate(LAYOUT)
    assert lay["scroll_width"] <= lay["vw"], lay
    assert _inside(lay["status"], lay) and lay["status"][3] > lay["status"][1], lay
    if turn:
        assert lay["tiles"] or lay["pass"], lay
        for b in lay["tiles"] + lay["ends"] + lay["pass"]:
            assert b[2] - b[0] >= 40 and b[3] - b[1] >= 40, (b, lay)
            assert _inside(b, lay), (b, lay)
    return lay


def _play_round(page, name: str, shot_at: int = 2) -> str:
    """Click through one round as the person at seat 0, checking the layout
    at each of its turns; returns the status at the round's end."""
    status = page.get_by_test_id("status")
    view = page.locator("#table-view")
    moves = 0
    for _ in range(400):
        # the page's move in flight first, then the status: while a move is in
        # flight the page still shows the turn before it, whose tiles the
        # server's answer takes away (tests/web/_browser.click_move's rule)
        pending = view.get_attribute("data-pending") == "true"
        text = status.inner_text()
        if END_TERMS.search(text):
            return text
        playable = page.locator('[data-testid="hand"] [data-playable="true"]')
        pass_btn = page.get_by_test_id("pass")
        mine = text == "Your turn" and not pending
        if mine:
            _check_layout(page, turn=True)
        if mine and pass_btn.is_visible():
            pass_btn.click()
            moves += 1
        elif mine and playable.count():
            playable.first.click()
            choice = page.locator('#end-choice [data-end="right"]')
            if choice.is_visible():
                _check_layout(page, turn=True)  # the two ends: big buttons, on screen
                page.screenshot(path=str(_shots() / f"{name}-end-choice.png"))
                choice.click()
            moves += 1
            if moves == shot_at:
                _shot(page, f"{name}-play")
        page.wait_for_timeout(60)
    raise AssertionError(f"the round did not end: status {status.inner_text()!r}")


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["laptop", "phone"])
def test_create_a_table_and_play_a_round_by_clicking(server, browser, size):
    base, _app = server
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "/")
    form = page.get_by_test_id("new-table")
    form.wait_for()
    for s, who in enumerate(["human", "hunter", "keeper", "search", "random"]):
        page.locator(f'select[name="seat{s}"]').select_option(who)
    page.locator("#new-table summary").click()
    page.locator('input[name="seed"]').fill("2024")
    _shot(page, f"{size[0]}x{size[1]}-new-table")
    form.locator('button[type="submit"]').click()
    page.get_by_test_id("chain").wait_for(timeout=180_000)  # a first search seat compiles
    expect(page.get_by_test_id("status")).not_to_have_text("Connecting…")
    assert "#t=" in page.url
    hand = page.get_by_test_id("hand")
    tiles = hand.locator("[data-tile]")
    assert 1 <= tiles.count() <= 5
    for i in range(tiles.count()):
        t = tiles.nth(i)
        a, b = map(int, t.get_attribute("data-tile").split("-"))
        assert a >= b and t.get_attribute("data-playable") in ("true", "false")
    end = _play_round(page, f"{size[0]}x{size[1]}")
    assert END_TERMS.search(end)
    assert page.get_by_test_id("next-round").is_visible()
    lines = page.locator("#end-text li")
    assert lines.count() >= 1 and END_TERMS.search(page.locator("#round-end").inner_text())
    lay = _check_layout(page, turn=False)
    nxt = lay["next"][0]
    assert nxt[3] - nxt[1] >= 40 and nxt[0] >= 0 and nxt[2] <= size[0], lay
    if size[0] < 600:  # a phone: the end-choice buttons are big whenever they show
        assert (
            page.evaluate("""parseFloat(getComputedStyle(
            document.querySelector('#end-choice [data-end]')).minHeight)""")
            >= 44
        )
    _shot(page, f"{size[0]}x{size[1]}-end")
    # the next round, then the replay of the first one is there
    page.get_by_test_id("next-round").click()
    expect(page.get_by_test_id("status")).not_to_have_text(END_TERMS)
    assert page.locator("#replay").is_visible()
    page.locator("#replay-first").click()
    assert page.locator("#replay-chain [data-tile]").count() == 0
    page.locator("#replay-next").click()
    assert page.locator("#replay-chain [data-tile]").count() == 1
    _shot(page, f"{size[0]}x{size[1]}-round2")
    # the page fits its width (no sideways scrolling)
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0] + 1
    assert not errors, errors
    page.close()


#: the invitation links, the board and the hand tray, measured in one go
HOST = """() => {
  const box = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const q = (s) => document.querySelector(s);
  return {vw: innerWidth, vh: innerHeight, scroll_width: document.documentElement.scrollWidth,
          open: q('#host').open, invites_hidden: q('#invites').hidden,
          board: box(q('#board')), mine: box(q('#mine')),
          links: [...document.querySelectorAll('#host-list input[readonly]')].map((e) => e.value),
          copies: document.querySelectorAll('#host-list button.copy').length};
}"""


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["laptop", "phone"])
def test_the_hosts_links_leave_the_board_and_the_hand_on_a_phone(server, browser, size):
    """A table with three people: the creator's page is the host's (issue 22
    item 3); its panel of links starts folded, so the board and the whole hand
    tray are on screen; opened, it holds every other person's link and the
    spectators' link (and the host's own, for another device), each with a Copy button, and nothing is wider than the
    screen.  The old panel that lived only in the creating tab is gone."""
    base, _ = server
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.goto(base + "/")
    page.get_by_test_id("new-table").wait_for()
    for s, who in enumerate(["human", "human", "human", "hunter", "keeper"]):
        page.locator(f'select[name="seat{s}"]').select_option(who)
    page.get_by_test_id("new-table").locator('button[type="submit"]').click()
    page.get_by_test_id("chain").wait_for(timeout=180_000)
    expect(page.get_by_test_id("host-links")).to_be_visible()
    lay = page.evaluate(HOST)
    assert lay["invites_hidden"] is True and lay["open"] is False, lay
    assert lay["scroll_width"] <= lay["vw"], lay
    for b in [lay["board"], lay["mine"]]:
        assert _inside(b, lay), (b, lay)
    page.get_by_test_id("host-links").locator(":scope > summary").click()
    expect(page.locator("#host-list button.copy").first).to_be_visible()
    expect(page.locator("#host-list button.copy")).to_have_count(4)
    lay = page.evaluate(HOST)
    links = lay["links"]
    assert len(links) == lay["copies"] == 4, lay  # seats 0, 1, 2 and the spectators
    assert len(set(links)) == len(links) and all("#t=" in x for x in links), lay
    assert page.url in links, lay  # the host's own, to open on another device
    assert lay["scroll_width"] <= lay["vw"], lay
    # one row a seat (name, link, Copy; "Change" folds renaming and replacing)
    rows = page.evaluate(HOST_ROWS)
    assert all(r["h"] <= 1.6 * r["copy"] for r in rows if r["copy"]), rows
    _shot(page, f"{size[0]}x{size[1]}-host-links-open")
    # "Change" opens renaming: the host renames seat 1, every card says so
    page.locator('[data-host-edit="1"] > summary').click()
    page.locator('[data-host-name="1"]').fill("Budi")
    page.locator('[data-host-edit="1"]').get_by_role("button", name="Rename").click()
    expect(page.get_by_test_id("seat-1")).to_contain_text("Budi")
    assert page.evaluate("document.documentElement.scrollWidth") <= lay["vw"]
    _shot(page, f"{size[0]}x{size[1]}-host-change-open")
    page.close()


#: each seat's row of the host's panel: its height, and its Copy button's (0: none)
HOST_ROWS = """() => [...document.querySelectorAll('#host-list li')].map((li) => {
  const copy = li.querySelector('button.copy');
  return {h: li.getBoundingClientRect().height, copy: copy ? copy.getBoundingClientRect().height : 0};
})"""


def test_a_refusal_is_shown_and_a_reload_restores_the_seat(server, browser):
    """The server's refusal of a link reaches the page; a reload of a seat's
    link gives back the same seat and hand (the server keeps the state)."""
    base, _app = server
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(base + "/#t=" + "A" * 32)
    expect(page.get_by_test_id("status")).to_have_text("unknown or expired link")
    expect(page.locator("#message")).to_have_text("unknown or expired link")
    page.goto(base + "/")
    page.get_by_test_id("new-table").wait_for()
    for s in range(1, 5):
        page.locator(f'select[name="seat{s}"]').select_option("heavy")
    page.get_by_test_id("new-table").locator('button[type="submit"]').click()
    expect(page.get_by_test_id("status")).to_have_text(
        re.compile(r"Your turn|" + END_TERMS.pattern), timeout=60_000
    )
    hand = page.get_by_test_id("hand")
    before = [
        hand.locator("[data-tile]").nth(i).get_attribute("data-tile")
        for i in range(hand.locator("[data-tile]").count())
    ]
    status = page.get_by_test_id("status").inner_text()
    page.reload()
    expect(page.get_by_test_id("status")).to_have_text(status)
    after = [
        hand.locator("[data-tile]").nth(i).get_attribute("data-tile")
        for i in range(hand.locator("[data-tile]").count())
    ]
    assert after == before and len(before) >= 1
    page.close()


def test_two_people_on_two_browsers_and_three_computers_finish_a_game(server, browser):
    """Issue 14's "done when": two pages (two people) and three computer
    players play a whole game (D16: one round) by clicking."""
    base, _app = server
    a = browser.new_page(viewport={"width": 1280, "height": 800})
    a.goto(base + "/")
    a.get_by_test_id("new-table").wait_for()
    for s, who in enumerate(["human", "keeper", "human", "hunter", "search"]):
        a.locator(f'select[name="seat{s}"]').select_option(who)
    a.locator("#new-table summary").click()
    a.locator('input[name="rounds"]').fill("1")
    a.get_by_test_id("new-table").locator('button[type="submit"]').click()
    a.get_by_test_id("chain").wait_for(timeout=180_000)  # a first search seat compiles
    link = a.locator("#invite-list li").filter(has_text="Seat 2").locator("input")
    url = link.input_value()
    assert "#t=" in url and url != a.url
    b = browser.new_context().new_page()
    b.set_viewport_size({"width": 390, "height": 844})
    b.goto(url)
    expect(b.get_by_test_id("status")).not_to_have_text("Connecting…", timeout=60_000)
    assert b.locator("#invites").is_hidden()  # the friend's page lists no one else's link
    for _ in range(600):
        done = 0
        for page in (a, b):
            text = page.get_by_test_id("status").inner_text()
            if text.startswith("Game over"):
                done += 1
            else:
                click_move(page)
        if done == 2:
            break
        a.wait_for_timeout(50)
    for page in (a, b):
        expect(page.get_by_test_id("status")).to_have_text(re.compile("^Game over"))
        assert END_TERMS.search(page.locator("#round-end").inner_text())
        assert page.get_by_test_id("next-round").is_hidden()
    _shot(b, "390x844-two-people-game-over")
    a.close()
    b.close()
