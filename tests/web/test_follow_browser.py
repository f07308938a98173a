"""Following the others, the keyboard and the first use in a real browser
(issue 22 items 7, 9, 10; Playwright, Debian's Chromium): one page at a
phone's size plays a whole round (seed 3: an end choice at its first turn,
a single-option tile next, a PASS at its last) by keyboard and by tapping
the chain's ends.

At each of its turns: every seat card says that seat's last action as the
log does; the phone lists every line since the person's own last move; the
tab's title says it is their turn (and the phone vibrates once per turn);
exactly one action is sent per turn (a double click sends one); the focus
is back in the hand after the move.  A tile new on the chain is marked new
(a highlight, none under prefers-reduced-motion); the end marks sit where
the chain's ends really are on the snaked chain.  Creating the table says
at once that it prepares the computer players, counts the seconds and
disables the button."""

from __future__ import annotations

import json
import re

import pytest

from domeng.core.tiles import numbers
from tests.web import _browser
from tests.web._browser import SEATS, needs_chromium

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

pytestmark = [pytest.mark.slow, needs_chromium]
server, browser = _browser.server, _browser.browser  # the module's fixtures

LOST = "Connection lost: reconnecting…"
#: records what the page does that a test cannot see afterwards
INIT = """
window.__vib = [];
Object.defineProperty(navigator, "vibrate", {configurable: true,
  value: (p) => { window.__vib.push(p); return true; }});
window.__new = [];
new MutationObserver((ms) => {
  for (const m of ms) for (const n of m.addedNodes) {
    if (n.nodeType !== 1) continue;
    const found = n.matches(".chain-tile.new") ? [n] : [...n.querySelectorAll(".chain-tile.new")];
    for (const e of found) if (e.closest("#chain")) window.__new.push(e.dataset.tile);
  }
}).observe(document, {subtree: true, childList: true});
"""
#: the log's lines and the lines the phone shows since the person's last move
LINES = """() => ({log: [...document.querySelectorAll('#log li')].map((e) => e.textContent),
  latest: [...document.querySelectorAll('#latest li')].map((e) => e.textContent)})"""
#: the end marks and the tiles beside them
MARKS = """() => {
  const box = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const rows = [...document.querySelectorAll('#chain .chain-row')];
  const last = rows[rows.length - 1], tiles = [...last.querySelectorAll('.chain-tile')];
  return {rows: rows.length, back: last.classList.contains('back'),
          first: box(rows[0].querySelector('.chain-tile')), last: box(tiles[tiles.length - 1]),
          left: box(rows[0].querySelector('[data-end-mark="left"]')),
          right: box(last.querySelector('[data-end-mark="right"]')),
          taps: [...document.querySelectorAll('#chain button.end-tap')].map(box)};
}"""
ANIMATION = """() => {
  const s = document.createElement('span');
  s.className = 'tile chain-tile new';
  s.appendChild(document.createElementNS('http://www.w3.org/2000/svg', 'svg'));
  document.getElementById('chain').appendChild(s);
  const name = getComputedStyle(s.firstChild).animationName;
  s.remove();
  return name;
}"""
PLAYED = re.compile(r"^seat (\d) \([^)]*\) (?:leads|plays) \[(\d)\|(\d)\]")
PASSED = re.compile(r"^seat (\d) \([^)]*\) passes: (PASSEBUNGE|PASS)\b")


def _expected_cards(log: list[str]) -> dict[int, str | None]:
    """Each seat's last action as the log says it."""
    want: dict[int, str | None] = dict.fromkeys(range(5))
    for line in log:
        if m := PLAYED.match(line):
            want[int(m[1])] = f"played {m[2]}-{m[3]}"
        elif m := PASSED.match(line):
            want[int(m[1])] = "passed: PASSEBUNGE" if m[2] == "PASSEBUNGE" else "passed"
    return want


def _cards(page) -> dict[int, str | None]:
    return page.evaluate(
        """() => Object.fromEntries([0, 1, 2, 3, 4].map((s) => {
             const d = document.querySelector(`[data-testid="seat-${s}"] [data-last-action]`);
             return [s, d ? d.textContent : null]; }))"""
    )


def _check_the_others(page, moved_before: bool) -> None:
    """The seat cards and, since the person's own last move, every line."""
    lines = page.evaluate(LINES)
    got = {int(k): v for k, v in _cards(page).items()}
    assert got == _expected_cards(lines["log"]), (got, lines["log"])
    mine = [
        i for i, x in enumerate(lines["log"]) if re.match(r"seat 0 \(you\) (plays|leads|passes)", x)
    ]
    if moved_before:
        since = lines["log"][mine[-1] + 1 :]
        assert len(since) >= 2 and lines["latest"] == since, lines
    else:  # the round's first turn: every move so far, not only the latest
        moves = [x for x in lines["log"] if PLAYED.match(x) or PASSED.match(x)]
        assert moves and [x for x in lines["latest"] if x in moves] == moves, lines


def _until(page, fn: str, bound: int = 1500) -> None:
    """Wait until ``fn`` (a function's text) is true in the page (the page's
    Content-Security-Policy refuses wait_for_function's eval)."""
    for _ in range(bound):
        if page.evaluate(fn):
            return
        page.wait_for_timeout(20)
    raise AssertionError(f"never true: {fn}")


def _create_and_watch_the_wait(page, base: str) -> None:
    """The form says at once that it prepares the computer players, counts
    the seconds and takes no second click; the table comes once the
    server answers (the request is held until then)."""
    held = []
    page.route("**/api/tables", lambda route: held.append(route))
    page.goto(base + "/")
    form = page.get_by_test_id("new-table")
    form.wait_for()
    for s, who in enumerate(SEATS):
        page.locator(f'select[name="seat{s}"]').select_option(who)
    page.locator("#new-table summary").click()
    page.locator('input[name="rounds"]').fill("1")
    page.locator('input[name="seed"]').fill("3")
    button = form.locator('button[type="submit"]')
    button.click()
    prep = page.get_by_test_id("preparing")
    expect(prep).to_be_visible()
    expect(button).to_be_disabled()
    expect(prep).to_contain_text("Preparing the computer players")
    expect(prep).to_contain_text(re.compile(r"… [1-9]\d* s"))  # the seconds go on
    page.evaluate("document.getElementById('new-table').requestSubmit()")
    assert len(held) == 1  # one table per click
    held[0].continue_()
    page.get_by_test_id("seat-0").wait_for(timeout=60_000)
    page.unroute("**/api/tables")


def test_following_the_others_by_keyboard_and_by_tapping_the_chain_on_a_phone(server, browser):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.add_init_script(INIT)
    sent: list[dict] = []
    page.on(
        "websocket",
        lambda ws: ws.on("framesent", lambda p: sent.append(json.loads(p))),
    )
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    _create_and_watch_the_wait(page, server)
    help_text = page.get_by_test_id("keys-help").text_content() or ""
    assert all(k in help_text for k in ("1 to 9", "L or R", "P: PASS")), help_text
    status = page.get_by_test_id("status")
    turns, tapped, double = 0, False, False
    for _ in range(2000):
        if page.locator("#round-end").is_visible():
            break
        if status.inner_text() != "Your turn":
            page.wait_for_timeout(20)
            continue
        turns += 1
        assert page.title() == "● Your turn · Domeng"
        _check_the_others(page, moved_before=turns > 1)
        acts = len([m for m in sent if m["type"] in ("play", "pass")])
        logged = page.locator("#log li").count()
        hand = page.get_by_test_id("hand").locator("[data-tile]")
        playable = [hand.nth(i).get_attribute("data-playable") for i in range(hand.count())]
        tapped_now = False
        if page.get_by_test_id("pass").is_visible():
            page.keyboard.press("p")
        elif turns >= 2 and not double:  # two clicks before any answer: one action
            double = True
            # in flight until the server answers: the page marks it (data-pending)
            pending = page.locator('[data-testid="hand"] [data-playable="true"]').first.evaluate(
                "(b) => { b.click(); b.click(); return document.getElementById('table-view')"
                ".dataset.pending; }"
            )
            assert pending == "true"
        else:
            page.keyboard.press(str(playable.index("true") + 1))
        if page.locator("#end-choice").is_visible():  # two ends: tap one on the chain
            marks = page.evaluate(MARKS)
            assert len(marks["taps"]) == 2, marks
            for b in marks["taps"]:
                assert b[2] - b[0] >= 40 and b[3] - b[1] >= 40, marks
            page.locator('#chain button[data-end="right"]').click()
            tapped = tapped_now = True
        _until(page, f"() => document.querySelectorAll('#log li').length > {logged}")
        acted = [m for m in sent if m["type"] in ("play", "pass")]
        assert len(acted) == acts + 1, sent[-3:]
        if tapped_now:  # read once the move is in (the sent frame's event comes apart)
            assert acted[-1]["end"] == "right", acted[-1]
        _until(page, "() => document.getElementById('table-view').dataset.pending === 'false'")
        if not page.locator("#round-end").is_visible():
            _until(
                page, "() => !!(document.activeElement && document.activeElement.closest('#hand'))"
            )
    else:
        raise AssertionError("the round did not end")
    assert turns >= 4 and tapped and double
    assert any(m["type"] == "pass" for m in sent)  # the P key
    assert page.title() == "Domeng"
    assert page.evaluate("window.__vib.length") == turns  # one vibration per turn
    # new tiles were marked as they came; the person's own among them
    chain = set(
        page.locator("#chain [data-tile]").evaluate_all("(es) => es.map((e) => e.dataset.tile)")
    )
    new = set(page.evaluate("window.__new"))
    own = {"{}-{}".format(*numbers(m["tile"])) for m in sent if m["type"] == "play"}
    assert own and own <= new <= chain, (own, new, chain)
    assert page.evaluate(ANIMATION) == "tile-new"
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate(ANIMATION) == "none"
    # the end marks where the ends are: L before the first tile, R after the
    # last one on the side its row runs to (the left of a row read right to left)
    marks = page.evaluate(MARKS)
    assert marks["rows"] >= 2, marks
    assert 0 <= marks["first"][0] - marks["left"][2] <= 8, marks
    if marks["back"]:
        assert 0 <= marks["last"][0] - marks["right"][2] <= 8, marks
    else:
        assert 0 <= marks["right"][0] - marks["last"][2] <= 8, marks
    assert errors == []
    page.close()


def test_a_move_lost_with_the_connection_is_made_again_after_the_reconnection(server, browser):
    """The connection drops while the person's move is in flight (the move
    never reaches the server): once the page has reconnected, the same turn
    takes the move again (the page once kept ignoring it as still in flight).
    While the connection is down, the hand is not playable and says so."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    lose = {"next": False, "lost": 0, "hold": False}
    moves: list[dict] = []
    held: list = []  # the page's reconnections kept from the server while "hold" is on

    def route(ws) -> None:  # between the page and the server: forwards all but the move to lose
        if lose["hold"]:
            held.append(ws)
            return
        srv = ws.connect_to_server()

        def from_page(text) -> None:
            msg = json.loads(text)
            if msg.get("type") in ("play", "pass"):
                if lose["next"]:
                    lose["next"], lose["lost"] = False, lose["lost"] + 1
                    lose["hold"] = True
                    srv.close()
                    ws.close()
                    return
                moves.append(msg)
            srv.send(text)

        ws.on_message(from_page)

    page.route_web_socket(re.compile(r"/ws$"), route)
    _browser.create(page, server, SEATS, seed=7, rounds=1)
    expect(page.locator("#status.go")).to_have_count(1, timeout=60_000)  # seed 7: the person first
    logged = page.locator("#log li").count()
    lose["next"] = True
    assert _browser.click_move(page)
    # lost: no turn shown while the connection is down; then back, the same turn
    expect(page.get_by_test_id("status")).to_have_text(LOST, timeout=30_000)
    assert page.locator("#status.go").count() == 0
    # still down (the reconnection is held): no tile offered, the prompt says why
    assert page.locator("#hand button.tile").count() > 0
    assert page.locator('#hand button.tile[data-playable="true"]').count() == 0
    expect(page.locator("#prompt")).to_have_text(LOST)
    page.locator("#hand button.tile").first.click()
    assert lose["lost"] == 1 and moves == []
    lose["hold"] = False
    for ws in held:  # the page reconnects, this time to the server
        ws.close()
    expect(page.locator("#status.go")).to_have_count(1, timeout=30_000)
    assert page.locator('#hand button.tile[data-playable="true"]').count() > 0
    assert lose["lost"] == 1 and moves == [] and page.locator("#log li").count() == logged
    expect(page.locator("#table-view")).to_have_attribute("data-pending", "false")
    assert _browser.click_move(page)
    expect(page.locator("#log li")).not_to_have_count(logged, timeout=30_000)
    assert len(moves) == 1, moves
    page.close()
