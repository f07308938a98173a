"""What the browser tests of following the others and of accessibility
share: the app served on 127.0.0.1 (a port the system chose) and Debian's
Chromium under Playwright (``/usr/bin/chromium``; never ``playwright install``)."""

from __future__ import annotations

import os
import threading
import time

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]
ARGS += ["--disable-background-networking", "--disable-component-update"]
#: the seats these tests play with: players the suite compiles anyway
SEATS = ["human", "heavy", "keeper", "heavy", "random"]

needs_chromium = pytest.mark.skipif(
    not os.access(CHROMIUM, os.X_OK), reason="no /usr/bin/chromium (make install-test installs it)"
)


@pytest.fixture(scope="module")
def server():
    """The app's base URL, served from a thread, stopped at the end."""
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
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    th.join(30)


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def create(page, base: str, seats=SEATS, seed: int | None = None, rounds: int = 1) -> None:
    """Create a table from the page's form and wait for its seats."""
    page.goto(base + "/")
    page.get_by_test_id("new-table").wait_for()
    for s, who in enumerate(seats):
        page.locator(f'select[name="seat{s}"]').select_option(who)
    page.locator("#new-table summary").click()
    page.locator('input[name="rounds"]').fill(str(rounds))
    if seed is not None:
        page.locator('input[name="seed"]').fill(str(seed))
    page.get_by_test_id("new-table").locator('button[type="submit"]').click()
    page.get_by_test_id("seat-0").wait_for(timeout=60_000)


def click_move(page, next_round: bool = True) -> bool:
    """Click the person's move on ``page`` if it has one (PASS, or the first
    playable tile at its left end; the next round, unless ``next_round`` is
    False); True if it clicked.

    Not while the page's last action is in flight (``data-pending``): the
    page still shows the state before it, whose tile or button the server's
    next state takes away, and a click on it would wait for it in vain."""
    if page.locator("#table-view").get_attribute("data-pending") == "true":
        return False
    if page.locator("#status.go").count():  # "Your turn", in any language
        if page.get_by_test_id("pass").is_visible():
            page.get_by_test_id("pass").click()
            return True
        playable = page.locator('[data-testid="hand"] [data-playable="true"]')
        if playable.count():
            playable.first.click()
            left = page.locator('#end-choice [data-end="left"]')
            if left.is_visible():
                left.click()
            return True
    nxt = page.get_by_test_id("next-round")
    if next_round and nxt.is_visible() and nxt.is_enabled():
        nxt.click()
        return True
    return False


def play_to_round_end(page, looks: int = 600) -> None:
    """Click the person's moves (:func:`click_move`, never the next round)
    until the round's end shows; fails after ``looks`` looks."""
    end = page.locator("#round-end")
    for _ in range(looks):
        if end.is_visible():
            return
        click_move(page, next_round=False)
        page.wait_for_timeout(30)
    raise AssertionError("the round did not end")
