"""Helpers of the browser-table tests: the D17 check of a message, and
``domeng serve`` in a process of its own (:func:`served`)."""

from __future__ import annotations

import contextlib
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from domeng.core.tiles import tile_id

#: keys whose value names tiles in a message (``must_lead`` is public by D3: the
#: opener must lead that double, and the engine's ``for_seat`` keeps it)
TILE_KEYS = ("tile", "tiles", "hands", "out", "hand", "chain")


def _as_tile(v: Any) -> list[int]:
    if isinstance(v, bool) or v is None:
        return []
    if isinstance(v, int):
        return [v]
    if isinstance(v, str) and len(v) == 3 and v[1] == "-":
        return [tile_id(int(v[0]), int(v[2]))]
    if isinstance(v, list):
        return [t for x in v for t in _as_tile(x)]
    if isinstance(v, dict):
        return tiles_in(v)
    return []


def tiles_in(obj: Any) -> list[int]:
    """Every tile a message names, wherever it is (every key of every
    object, any depth)."""
    out: list[int] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in TILE_KEYS or k == "id":
                out += _as_tile(v)
            elif k != "must_lead":
                out += tiles_in(v)
    elif isinstance(obj, list):
        for x in obj:
            out += tiles_in(x)
    return out


def hidden_from(table, seat: int | None) -> set[int]:
    """Tiles ``seat`` may not know now (D17): the other hands and the 3 out of play."""
    g = table.game
    deal = next(ev for ev in g.events if ev["type"] == "deal")
    hidden = set(deal["out"])
    for s in range(5):
        if s != seat:
            hidden |= set(g.hand(s))
    return hidden


def hidden_at_end(events: list, seat: int | None) -> set[int]:
    """Tiles of a finished round that ``seat`` never saw: the 3 out of play
    and what the other seats still held at its end."""
    deal = events[0]
    played = {ev["tile"] for ev in events if ev["type"] in ("lead", "play")}
    hidden = set(deal["out"])
    for s in range(5):
        if s != seat:
            hidden |= set(deal["hands"][s]) - played
    return hidden


def end_events(obj: Any) -> list[dict]:
    """Every round-end event a message holds, at any depth."""
    if isinstance(obj, dict):
        own = [obj] if obj.get("type") == "end" and "pip_sums" in obj else []
        return own + [e for v in obj.values() for e in end_events(v)]
    if isinstance(obj, list):
        return [e for v in obj for e in end_events(v)]
    return []


def check_pip_sums(msg: dict, seat: int | None) -> int:
    """No round end in ``msg`` shows ``seat`` another seat's pip sum unless
    the rules compare them (a blocked round, D11..D14; D17); returns how many
    ends that are not blocked it checked."""
    checked = 0
    for ev in end_events(msg):
        if ev["kind"] in ("MANGUNO", "MATTIKKENG"):
            assert all(isinstance(v, int) for v in ev["pip_sums"]), ev
            continue
        others = [v for s, v in enumerate(ev["pip_sums"]) if s != seat]
        assert others == [None] * len(others), f"seat {seat} was shown pip sums {ev}"
        checked += 1
    return checked


def check_d17(msg: dict, table, seat: int | None, other_tokens=()) -> None:
    """``msg`` (sent to ``seat``) names no tile hidden from it, no other
    seat's token, and no seed before the game is over.  The replay of the
    last round is checked against what was hidden at that round's end."""
    now = {k: v for k, v in msg.items() if k not in ("last_round", "game")}
    leaked = set(tiles_in(now)) & hidden_from(table, seat)
    assert not leaked, f"seat {seat} was shown hidden tiles {sorted(leaked)}"
    replay = msg.get("last_round")
    if replay:
        evs = next(r for r in table.finished if r[0]["round"] == replay["round"])
        leaked = set(tiles_in(replay)) & hidden_at_end(evs, seat)
        assert not leaked, f"seat {seat}'s replay showed hidden tiles {sorted(leaked)}"
    if msg.get("type") == "export":
        for evs in msg["game"]["rounds"]:
            done = next((r for r in table.finished if r[0]["round"] == evs[0]["round"]), None)
            hidden = hidden_at_end(done, seat) if done else hidden_from(table, seat)
            leaked = set(tiles_in(evs)) & hidden
            assert not leaked, f"seat {seat}'s export showed hidden tiles {sorted(leaked)}"
    check_pip_sums(msg, seat)
    text = json.dumps(msg)
    for tok in other_tokens:
        assert tok not in text, "a token reached another seat"
    if (msg.get("type") == "state" and not msg["game_over"]) or (
        msg.get("type") == "export" and msg["game"]["seed"] is None
    ):
        assert msg.get("seed", msg.get("game", {}).get("seed")) is None
        assert str(table.seed) not in text or len(str(table.seed)) < 6


ROOT = Path(__file__).resolve().parents[2]
#: a failure bound: a server that stopped answering fails the test after this
BOUND = 120.0


@contextlib.contextmanager
def served(data: Path, *extra: str):
    """``domeng serve --port 0 --delay 0 --data DATA EXTRA...`` in a process
    of its own (so that a test may ``kill -9`` it); yields (process, port),
    read from the line it prints (the port the system chose)."""
    err = open(data.parent / f"serve-{time.monotonic_ns()}.err", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "domeng", "serve", "--port", "0", "--delay", "0"]
        + ["--data", str(data), *extra],
        cwd=str(ROOT),
        stdout=subprocess.PIPE,
        stderr=err,
        text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, f"no address printed: {line!r} {Path(err.name).read_text()[-2000:]}"
        assert proc.stdout and "saved in" in proc.stdout.readline()
        yield proc, int(m.group(1))
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=BOUND)
        err.close()


# ---------------------------------------------------------------- the protocol, in process
def token_of(link: str) -> str:
    """The token of a link (``/#t=TOKEN``)."""
    return link.split("#t=", 1)[1]


def hello(client, stack, link: str):
    """A page's websocket (a Starlette test client's), hello said with ``link``'s token."""
    ws = stack.enter_context(client.websocket_connect("/ws"))
    ws.send_text(json.dumps({"type": "hello", "token": token_of(link)}))
    return ws


def next_message(ws, want, limit: int = 500) -> dict:
    """The first message ``want(message)`` accepts (those queued before it skipped)."""
    for _ in range(limit):
        m = json.loads(ws.receive_text())
        if want(m):
            return m
    raise AssertionError("no such message")


def first_legal(state: dict) -> dict:
    """What a page would send: the first legal action its state offers (or the next round)."""
    if state["round_over"]:
        return {"type": "next_round", "version": state["version"]}
    first = state["legal"][0]
    if first.get("pass"):
        return {"type": "pass", "version": state["version"]}
    return {"type": "play", "tile": first["tile"], "end": first["end"], "version": state["version"]}
