"""Play again (issue 22 item 5): after a game's end, any person at the table
(or the host) starts the next game: the same seats, names and links, a new
seed, the game counter up by one.  D17: the seed shown at a game's end does
not tell the next game's deals (the next seed needs the table's salt, which
never leaves the server).  The next game is stored like the first: the
table comes back from the store at game 2."""

from __future__ import annotations

import contextlib
import json

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient

from domeng.web.server import create_app
from domeng.web.store import TableStore
from domeng.web.table import Table, TableSpec, WebError, next_seed
from web._util import check_d17, first_legal, hello, next_message

SEATS = ["human", "human", "random", "keeper", "hunter"]
NAMES = {0: "Ana", 1: "Budi"}


def _settled(m: dict) -> bool:
    """A state where a person must act (or the game is over): nothing moves meanwhile."""
    if m["type"] != "state":
        return False
    return m["game_over"] or (m["turn"] is not None and m["seats"][m["turn"]]["human"])


def _to_game_over(socks: dict, last: dict) -> dict:
    """The people at ``socks`` (seat -> websocket) play their first legal
    move whenever they are to move (one round: ``rounds=1``), from their
    ``last`` states (each seat's latest, all at one version), until the
    game is over; returns each seat's last state."""
    for _ in range(200):
        st = last[0]
        assert len({m["version"] for m in last.values()}) == 1, "the pages disagree"
        if st["game_over"]:
            return last
        socks[st["turn"]].send_text(json.dumps(first_legal(last[st["turn"]])))
        last = {
            s: next_message(ws, lambda m: _settled(m) and m["version"] > st["version"])
            for s, ws in socks.items()
        }
    raise AssertionError("the game did not end")


def _is_error(m: dict) -> bool:
    return m["type"] == "error"


def test_play_again_same_seats_names_links_new_seed_and_back_from_the_store(tmp_path):
    store = TableStore(tmp_path)
    app = create_app(delay=0, store=store, turn_timeout=0)
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        hub = app.state.hub
        links = client.post("/api/tables", json={"seats": SEATS, "seed": 11, "rounds": 1}).json()
        table = hub.tables[links["table"]]
        socks = {s: hello(client, stack, links["seats"][str(s)]) for s in (0, 1)}
        for s, ws in socks.items():
            ws.send_text(json.dumps({"type": "name", "name": NAMES[s]}))
        named = {
            s: next_message(
                ws,
                lambda m: (
                    _settled(m) and all(m["seats"][t]["given"] == n for t, n in NAMES.items())
                ),
            )
            for s, ws in socks.items()
        }
        # a game not over yet: Play again refused, the table unchanged
        before = table.version
        socks[1].send_text(json.dumps({"type": "play_again", "version": named[1]["version"]}))
        assert "not over" in next_message(socks[1], _is_error)["message"]
        assert table.version == before and table.games == 1
        over = _to_game_over(socks, named)
        seed1 = over[0]["seed"]
        assert seed1 == 11 and over[0]["game_no"] == 1  # the seed, shown once the game is over
        socks[0].send_text(json.dumps({"type": "host_links"}))
        links1 = next_message(socks[0], lambda m: m["type"] == "links")
        # a spectator may not start the next game; an out-of-date message is refused
        sp = hello(client, stack, links["spectator"])
        next_message(sp, lambda m: m["type"] == "state")
        sp.send_text(json.dumps({"type": "play_again", "version": table.version}))
        assert "spectator" in next_message(sp, _is_error)["message"]
        socks[1].send_text(json.dumps({"type": "play_again", "version": table.version - 1}))
        assert "out of date" in next_message(socks[1], _is_error)["message"]
        assert table.games == 1
        # seat 1 (not the host) starts game 2
        socks[1].send_text(json.dumps({"type": "play_again", "version": table.version}))
        again = {s: next_message(ws, lambda m: m.get("game_no") == 2) for s, ws in socks.items()}
        for s, m in again.items():
            assert not m["game_over"] and m["round"] == 1 and m["rounds_played"] == 0
            assert m["seed"] is None  # hidden again until game 2 is over (D17)
            assert [x["kind"] for x in m["seats"]] == SEATS
            assert {t: m["seats"][t]["given"] for t in NAMES} == NAMES
            assert all(r["camats"] == 0 and r["wins"] == 0 for r in m["standings"])
            check_d17(m, table, s)
        seed2 = table.seed
        assert seed2 != seed1 and table.games == 2
        socks[0].send_text(json.dumps({"type": "host_links"}))
        assert next_message(socks[0], lambda m: m["type"] == "links") == links1  # the same links
        for s in (0, 1):  # each seat's own link still opens that seat
            ws = hello(client, stack, links["seats"][str(s)])
            assert next_message(ws, lambda m: m["type"] == "state")["you"] == s
        hand = {s: [h["id"] for h in again[s]["hand"]] for s in (0, 1)}
        for ws in [*socks.values(), sp]:
            ws.close()
        stack.close()
        # the table leaves memory, and comes back from the store at game 2
        assert hub.reap(now=table.last_human + hub.idle + 1) == [table.id]
        with contextlib.ExitStack() as later:
            socks = {s: hello(client, later, links["seats"][str(s)]) for s in (0, 1)}
            back = {s: next_message(ws, _settled) for s, ws in socks.items()}
            top = max(m["version"] for m in back.values())  # the later hello's state
            back = {
                s: m
                if m["version"] == top
                else next_message(socks[s], lambda m: m["version"] == top)
                for s, m in back.items()
            }
            table2 = hub.tables[table.id]
            assert table2 is not table and table2.games == 2 and table2.seed == seed2
            for s, m in back.items():
                assert m["game_no"] == 2 and m["seed"] is None
                assert {t: m["seats"][t]["given"] for t in NAMES} == NAMES
                assert [h["id"] for h in m["hand"]] == hand[s]  # nobody moved: the same deal
                check_d17(m, table2, s)
            # and game 2 goes on to its end, its seed shown then
            over2 = _to_game_over(socks, back)
            assert over2[0]["seed"] == seed2 and over2[0]["game_no"] == 2
    store.close()


def _finish(table: Table) -> None:
    """Play ``table`` to its game's end: computers by themselves, the person
    (seat 0) its first legal move."""
    for _ in range(500):
        if table.game_over:
            return
        if table.computer_to_move:
            table.computer_step()
        elif table.session.round_over:
            table.start_round()
        else:
            seat = table.session.to_move
            table.act(seat, first_legal(json.loads(table.view_text(seat))))
    raise AssertionError("the game did not end")


def test_the_next_seed_is_not_derivable_from_what_a_seat_saw():
    """Two tables from the same seed and the same moves: every message a
    seat, the spectators or the host saw is the same at both, yet their
    next games are dealt from different seeds (the salt, never sent, makes
    the difference): what a seat saw does not tell the next game's deals
    (D17).  Nor does the shown seed with the game number alone."""
    seats = ["human", "random", "random", "keeper", "hunter"]
    tables = [Table(TableSpec(seats, seed=5, rounds=1), table_id="t") for _ in range(2)]
    for t in tables:
        _finish(t)
    seen = []
    for t in tables:
        texts = [t.view_text(s, host) for s in (0, 1, None) for host in (False, True)]
        texts += [json.dumps(t.export(s)) for s in (0, 1, None)]
        texts.append(json.dumps(t.host_links(t.links["host"])))
        assert not any(t.salt in x for x in texts), "the salt reached a page"
        seen.append([x.replace(t.links["host"], "") for x in texts[:-1]])
    assert seen[0] == seen[1]  # the same game, to the letter, at both tables
    for t in tables:
        with pytest.raises(WebError, match="not over"):
            Table(TableSpec(seats, seed=5, rounds=1)).play_again()
        t.play_again()
    assert tables[0].seed != tables[1].seed
    for t in tables:
        assert t.seed not in (5, next_seed(5, 2, ""), 5 + 1, 5 + 2)
        assert t.seed == next_seed(5, 2, t.salt) and t.games == 2
        assert json.loads(t.view_text(0))["seed"] is None
