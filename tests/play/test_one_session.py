"""One session for people (issue 21 item 5): the browser table wraps the
terminal game's :class:`~domeng.play.session.Session`, so the same game
(same seats, seed and actions) played at a terminal and at a browser table
has the same events (as each seat sees them, D17), the same standings after
each round and the same final ranking, and that ranking is the documented
one (most CAMATs, then fewest stones held, then fewest received, then most
rounds won) wherever a game of people is ranked."""

from __future__ import annotations

import re

import pytest
from playkit import Scripted

from domeng.core.events import for_seat, to_dict
from domeng.play.screen import final_lines
from domeng.play.session import Session, rank
from domeng.web.table import Table, TableSpec, WebError

SEATS = ["human", "hunter", "human", "keeper", "random"]
VIEWERS = (0, 1, 2, 3, 4, None)
#: a standings row of the terminal's round-end screen: seat, stones, received, won, CAMAT
STANDING = re.compile(r"^\s+seat (\d) \([^)]*\)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$")
#: a row of its final ranking: place, seat, CAMAT, stones, received, won
FINAL = re.compile(r"^\s+(\d+)\s+seat (\d) \([^)]*\)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$")
KEYS = ("seat", "stones", "received", "wins", "camats")


def _row(seat, stones, received, wins, camats):
    return {"seat": seat, "stones": stones, "received": received, "wins": wins, "camats": camats}


def _step(t: Table, pick: int) -> None:
    """One step of a browser table, as its pages would take it: a person
    sends the ``pick``-th legal action of its state (or its vote for the
    next round); a computer moves by itself."""
    if t.game.round_over:
        t.act(t.humans[0], {"type": "next_round", "version": t.version})
    elif t.computer_to_move:
        t.computer_step()
    else:
        state = t.view(t.view(None)["turn"])
        legal = state["legal"][pick]
        msg = {"type": "pass"}
        if not legal.get("pass"):
            msg = {"type": "play", "tile": legal["tile"], "end": legal["end"]}
        t.act(state["you"], {**msg, "version": state["version"]})


def _browser_game(seed: int):
    """A whole game (D16: to the first CAMAT) at a browser table, driven
    through its messages: each person plays the last legal move its state
    offers (or passes when that is all it may do) and votes for the next
    round; the computers move by themselves.  Returns the table, each
    round's events as each seat was shown them at the round's end, and the
    standings a spectator was shown after each round."""
    t = Table(TableSpec.parse({"seats": SEATS, "seed": seed, "camats": 1}))
    seen: list[dict] = []
    standings: list[list[dict]] = []
    while True:
        if t.game.round_over:
            seen.append({s: t.view(s)["events"] for s in VIEWERS})
            standings.append(t.view(None)["standings"])
            if t.game_over:
                return t, seen, standings
        _step(t, pick=-1)


def _terminal_game(seed: int, actions: list[list[int]]):
    """The same game at the terminal (the in-process front end, scripted):
    each person types the number of the move the browser table's person
    made; the terminal passes forced passes and moves its computers itself."""
    term = None

    def answer(prompt, _n):
        if not prompt.startswith("Your move"):
            return ""  # Enter: see your hand, next round
        s = term.s
        want = actions[len(s.actions) - 1][len(s.actions[-1])]
        return str([m.action for m in s.moves()].index(want) + 1)

    term = Scripted(Session(SEATS, seed=seed, camats=1), answer)
    assert term.run() == 0
    return term


def _terminal_standings(term) -> dict[int, list[dict]]:
    """Round -> the standings (seat order) the terminal's round-end screen printed."""
    out: dict[int, list[dict]] = {}
    for frame in term.frames:
        m = re.search(r"Standings after (\d+) rounds?", frame)
        if m:
            rows = [STANDING.match(ln) for ln in frame.splitlines()]
            rows = [[int(x) for x in r.groups()] for r in rows if r]
            out[int(m.group(1))] = [_row(*r) for r in rows]
    return out


def _terminal_ranking(text: str) -> list[dict]:
    rows = [FINAL.match(ln) for ln in text.splitlines()]
    rows = [[int(x) for x in r.groups()] for r in rows if r]
    return [_row(seat, stones, rec, won, cam) for _, seat, cam, stones, rec, won in rows]


@pytest.mark.parametrize("seed", [4, 21])
def test_the_same_game_at_the_terminal_and_at_a_browser_table(seed):
    table, seen, browser_standings = _browser_game(seed)
    actions = table.to_save()["actions"]
    assert len(actions) >= 2  # several rounds: standings between rounds to compare
    term = _terminal_game(seed, actions)
    s = term.s
    # the same game: the same actions, and the same events as each seat was shown them
    assert s.actions == actions and s.game_over and s.rounds_played == len(actions)
    assert [[to_dict(ev) for ev in evs] for evs in s.finished] == table.finished
    for r, evs in enumerate(s.finished):
        for viewer in VIEWERS:
            assert seen[r][viewer] == [to_dict(for_seat(ev, viewer)) for ev in evs], (r, viewer)
    # the same standings after each round: the terminal printed them (seat order),
    # the browser sent them in the ranking's order
    printed = _terminal_standings(term)
    assert sorted(printed) == list(range(1, len(actions)))  # the last round: the final ranking
    for n, rows in printed.items():
        got = browser_standings[n - 1]
        assert sorted([r[k] for k in KEYS] for r in got) == [[r[k] for k in KEYS] for r in rows]
        assert got == rank(rows)
    # the same final ranking: the terminal's screen, the browser's standings, the sessions'
    final = _terminal_ranking(term.text)
    assert len(final) == 5
    last = [{k: r[k] for k in KEYS} for r in browser_standings[-1]]
    assert final == last == [{k: r[k] for k in KEYS} for r in s.ranking()]
    assert table.standings() == s.ranking() == table.export(None)["standings"]
    # the CAMAT ranks first, though it holds no more stones than anyone (D15)
    assert final[0]["seat"] == s.game.camat and final[0]["camats"] == 1
    assert [r["stones"] for r in final] == [0] * 5


# the documented order, each tie-break deciding once (seat order would give 0, 1, 2, 3, 4)
DOCUMENTED = [
    _row(4, stones=9, received=20, wins=0, camats=1),  # most CAMATs: first, whatever its stones
    _row(3, stones=0, received=3, wins=0, camats=0),  # fewest stones held ...
    _row(0, stones=0, received=8, wins=5, camats=0),  # ... then fewest received beats more wins
    _row(2, stones=2, received=0, wins=4, camats=0),  # fewer received, but more stones held
    _row(1, stones=2, received=0, wins=1, camats=0),  # the same but for fewer rounds won
]


def test_the_ranking_is_most_camats_fewest_stones_fewest_received_most_wins():
    rows = sorted(DOCUMENTED, key=lambda r: r["seat"])
    assert [r["seat"] for r in rank(rows)] == [4, 3, 0, 2, 1]
    assert rank(rows) == DOCUMENTED
    # a tie on every count keeps seat order
    tied = [_row(s, 1, 1, 1, 0) for s in (3, 1, 4, 0, 2)]
    assert [r["seat"] for r in rank(tied)] == [0, 1, 2, 3, 4]


def test_the_terminal_screen_and_the_browser_rank_with_the_session(monkeypatch):
    """Given the constructed standings, the terminal's final screen, the
    browser's standings (its state and its export) and the session's
    ranking all put the seats in the documented order."""
    rows = sorted(DOCUMENTED, key=lambda r: r["seat"])
    monkeypatch.setattr(Session, "standings", lambda self: [dict(r) for r in rows])
    t = Table(TableSpec.parse({"seats": SEATS, "seed": 1}))
    order = [4, 3, 0, 2, 1]
    assert [r["seat"] for r in t.session.ranking()] == order
    assert [r["seat"] for r in t.view(0)["standings"]] == order
    assert [r["seat"] for r in t.export(None)["standings"]] == order
    lines = final_lines(t.session, lambda s: f"seat {s} (x)", "at the first CAMAT", 100)
    assert [r["seat"] for r in _terminal_ranking("\n".join(x.plain for x in lines))] == order


def test_a_table_saves_as_a_session_and_comes_back_where_it_was():
    """The browser table's save data is the session's (the terminal's save
    format); a table made from it replays every action through the engine and
    shows each seat what it showed before."""
    t = Table(TableSpec.parse({"seats": SEATS, "seed": 5, "rounds": 3}))
    for _ in range(40):
        _step(t, pick=0)
    data = t.to_save()
    # the terminal reads it as its own (the browser's own part, "table": the host's
    # link hash, the seats' link generations, stand-in flags, stays with the browser)
    assert {k: v for k, v in data.items() if k != "table"} == Session.from_save(data).to_save()
    back = Table.from_save(data)
    skip = {"table", "version"}
    for s in VIEWERS:
        a, b = t.view(s), back.view(s)
        assert {k: v for k, v in a.items() if k not in skip} == {
            k: v for k, v in b.items() if k not in skip
        }
    assert set(back.links) == set(t.links) and not set(back.tokens) & set(t.tokens)  # new links
    with pytest.raises(WebError, match="saved table"):
        Table.from_save({**data, "actions": [[999]]})
