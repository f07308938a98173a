"""The host (issue 22 item 3): the link the table was created with shows
every seat's link again (derived from it: the server keeps only hashes),
renames any seat, gives a seat to a computer player or to a new person (a
new link; the old one stops working) and ends the table.  Every host action
is checked on the server (a seat's or the spectators' link is refused, the
table unchanged), stored, and D17 holds: the host's pages name links, never
another seat's hand."""

from __future__ import annotations

import contextlib
import json
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient

from domeng.web.server import create_app
from domeng.web.store import TableStore
from web._util import check_d17, hello, next_message, token_of

SEATS = ["human", "human", "random", "keeper", "hunter"]


def _is(typ):
    return lambda m: m["type"] == typ


def test_the_host_sees_every_link_and_a_seat_link_cannot_act_as_host(tmp_path):
    store = TableStore(tmp_path)
    app = create_app(delay=0, store=store)
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        links = client.post("/api/tables", json={"seats": SEATS, "seed": 4}).json()
        assert links["you"] == links["host"] == links["seats"]["0"]
        table = app.state.hub.tables[links["table"]]
        host = hello(client, stack, links["host"])
        first = next_message(host, _is("state"))
        assert first["host"] is True and first["you"] == 0
        check_d17(first, table, 0)  # the host's own view: its hand only
        host.send_text(json.dumps({"type": "host_links"}))
        got = next_message(host, _is("links"))
        assert got["seats"] == {"0": links["seats"]["0"], "1": links["seats"]["1"]}
        assert got["spectator"] == links["spectator"] and got["you"] == 0
        assert not any(k in got for k in ("hand", "hands", "events"))
        # seat 1's and the spectators' links: every host message refused, nothing changed
        for link in (links["seats"]["1"], links["spectator"]):
            ws = hello(client, stack, link)
            st = next_message(ws, _is("state"))
            assert st["host"] is False
            before = (table.version, list(table.session.seats), list(table.session.names))
            for msg in (
                {"type": "host_links"},
                {"type": "host_rename", "seat": 2, "name": "Bot"},
                {"type": "host_seat", "seat": 1, "kind": "expert"},
                {"type": "host_end"},
            ):
                ws.send_text(json.dumps(msg))
                err = next_message(ws, _is("error"))
                assert "only the host" in err["message"], err
                assert not err.get("fatal")
            assert (table.version, table.session.seats, table.session.names) == before
            assert not table.closed
        # the host renames a computer's seat (and a person's)
        host.send_text(json.dumps({"type": "host_rename", "seat": 2, "name": "Grandpa"}))
        m = next_message(
            host, lambda m: m["type"] == "state" and m["seats"][2]["given"] == "Grandpa"
        )
        assert m["seats"][2]["player"] == "Grandpa"
        host.send_text(json.dumps({"type": "host_seat", "seat": 0, "kind": "expert"}))
        assert "own seat" in next_message(host, _is("error"))["message"]
        host.send_text(json.dumps({"type": "host_seat", "seat": 1, "kind": "nobody"}))
        assert next_message(host, _is("error"))["message"]
        assert table.session.seats == SEATS
    store.close()


def test_the_host_replaces_seats_by_a_computer_and_a_new_person_and_ends_the_table(tmp_path):
    """Seat 1 goes to a computer (its page is told, its link refused), seat
    2 to a new person (a new link that works; replaced again, that link is
    refused in turn); after the table leaves memory and is replayed from the
    store, the same: the changes are in its record.  Then the host ends it."""
    store = TableStore(tmp_path)
    app = create_app(delay=0, idle=60, store=store)
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        hub = app.state.hub
        links = client.post("/api/tables", json={"seats": SEATS, "seed": 4}).json()
        tid = links["table"]
        host = hello(client, stack, links["host"])
        next_message(host, _is("state"))
        one = hello(client, stack, links["seats"]["1"])
        next_message(one, _is("state"))
        host.send_text(json.dumps({"type": "host_seat", "seat": 1, "kind": "expert"}))
        gone = next_message(one, _is("error"))
        assert gone["fatal"] and "gave this seat" in gone["message"]
        got = next_message(host, _is("links"))
        assert "1" not in got["seats"]
        m = next_message(host, lambda m: m["type"] == "state" and m["seats"][1]["kind"] == "expert")
        assert not m["seats"][1]["human"]
        ws = hello(client, stack, links["seats"]["1"])
        assert "unknown or expired" in next_message(ws, _is("error"))["message"]
        # a computer's seat to a new person: a new link
        host.send_text(json.dumps({"type": "host_seat", "seat": 2, "kind": "human"}))
        new2 = next_message(host, lambda m: m["type"] == "links" and "2" in m["seats"])["seats"][
            "2"
        ]
        two = hello(client, stack, new2)
        st = next_message(two, _is("state"))
        assert st["you"] == 2 and st["seats"][2]["human"] and st["host"] is False
        check_d17(st, hub.tables[tid], 2, [token_of(links["host"]), token_of(links["spectator"])])
        # and to another new person: the link just given stops working
        host.send_text(json.dumps({"type": "host_seat", "seat": 2, "kind": "human"}))
        newer = next_message(host, lambda m: m["type"] == "links" and m["seats"].get("2") != new2)
        newer2 = newer["seats"]["2"]
        assert next_message(two, _is("error"))["fatal"]
        ws = hello(client, stack, new2)
        assert "unknown or expired" in next_message(ws, _is("error"))["message"]
        seats = list(hub.tables[tid].session.seats)
        assert seats[1] == "expert" and seats[2] == "human"
        host.close()
    # the table leaves memory; its links bring it back from the store
    assert hub.reap(now=time.monotonic() + 61) == [tid]
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        for old in (links["seats"]["1"], new2):
            ws = hello(client, stack, old)
            assert "unknown or expired" in next_message(ws, _is("error"))["message"]
        two = hello(client, stack, newer2)
        st = next_message(two, _is("state"))
        assert st["you"] == 2 and hub.tables[tid].session.seats == seats
        host = hello(client, stack, links["host"])
        next_message(host, _is("state"))
        host.send_text(json.dumps({"type": "host_links"}))
        assert next_message(host, _is("links"))["seats"]["2"] == newer2
        host.send_text(json.dumps({"type": "host_end"}))
        for ws in (host, two):
            end = next_message(ws, _is("error"))
            assert end["fatal"] and "host ended" in end["message"]
        ws = hello(client, stack, links["host"])
        assert "unknown or expired" in next_message(ws, _is("error"))["message"]
    assert store.count() == 0
    store.close()


def test_a_table_of_computers_has_a_pure_host():
    """Nobody sits: the creator's link watches (a spectator's view) with the host's rights."""
    app = create_app(delay=0)
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        links = client.post(
            "/api/tables", json={"seats": ["random", "keeper", "hunter", "heavy", "random"]}
        ).json()
        assert links["you"] == links["host"] != links["spectator"]
        host = hello(client, stack, links["host"])
        st = next_message(host, _is("state"))
        assert st["you"] is None and st["host"] is True and st["hand"] == []
        host.send_text(json.dumps({"type": "host_links"}))
        got = next_message(host, _is("links"))
        assert got["seats"] == {} and got["spectator"] == links["spectator"] and got["you"] is None
