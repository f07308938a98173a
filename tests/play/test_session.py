"""The game session without I/O (``domeng.play.session``) and the terminal
game in-process: the same game as a study (the one step API, the compiled
players' streams), turn flow, what each seat is shown (D17, over seeds), the
final ranking after a CAMAT, and an unexpected error saving the game first."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from playkit import SEATS, play, tiles_in

from domeng.batch.tables import trace_table
from domeng.core.errors import IllegalMoveError, PlayerError
from domeng.core.events import Lead, Pass, Play, to_dict
from domeng.core.tiles import tile_str
from domeng.engine.game import PASS
from domeng.play.savefile import read_save
from domeng.play.session import HUMAN, Session, parse_seats

CPUS = ["hunter", "heavy", "keeper", "random", "random"]


def as_json(rounds) -> list[list[dict]]:
    """A session's finished rounds (typed events) in their JSON form, as a trace writes them."""
    return [[to_dict(ev) for ev in evs] for evs in rounds]


def run_all(s: Session) -> None:
    while not s.game_over:
        if s.round_over:
            s.deal()
        while not s.round_over:
            s.play(s.moves()[0].action) if s.human_to_move() else s.auto_step()


def test_five_computers_play_table_0_of_a_study():
    """The session steps the engine exactly as the batch loop does."""
    s = Session(CPUS, seed=11, rounds=6)
    run_all(s)
    events, _, _ = trace_table(CPUS, seed=11, table=0, rounds=6)
    assert as_json(s.finished) == events
    assert s.rounds_played == 6 and s.game_over and s.seed == 11


def test_terminal_loop_is_the_session_and_says_game_over():
    t, status = play(seats=CPUS, seed=11, rounds=6)
    assert status == 0
    assert as_json(t.s.finished) == trace_table(CPUS, seed=11, table=0, rounds=6)[0]
    assert "Game over after 6 rounds" in t.text and "Your hand" not in t.text
    assert "This game's seed was 11" in t.text
    assert max(len(ln) for ln in t.text.splitlines()) <= 80


def test_turn_flow_people_choose_forced_passes_are_automatic():
    s = Session(["human"] * 5, seed=3, rounds=1)
    with pytest.raises(IllegalMoveError):
        s.auto_step()  # no round yet
    s.deal()
    while not s.round_over:
        seat = s.to_move
        if s.human_to_move():
            with pytest.raises(IllegalMoveError, match="a person's"):
                s.auto_step()
            with pytest.raises(IllegalMoveError):
                s.play(PASS)  # D5: a seat that can play may not pass
            s.play(s.moves()[-1].action)
        else:
            assert s.game.legal_actions() == [PASS] and s.moves() == []
            s.auto_step()
            assert s.actions[-1][-1] == PASS
        assert s.to_move != seat or s.round_over
    assert s.game_over and s.seed == 3
    with pytest.raises(IllegalMoveError, match="over"):
        s.deal()


def test_the_seed_is_hidden_until_the_game_is_over():
    s = Session(SEATS, seed=12345, rounds=1)
    assert s.seed is None
    s.deal()
    assert s.seed is None and "12345" not in repr(s.view(0))
    run_all(s)
    assert s.seed == 12345


@pytest.mark.parametrize(
    "seat,msg",
    [
        ("omniscient", "sees every hand"),
        ("Omniscient-2", "omniscient takes no budget"),
        ("mymod:player", "would import code"),
        ("wizard", "player 'wizard' refused at a terminal table: unknown player"),
        ("search-99999999999999999999", "search takes N from 1 to 100,000"),
        ("search-0", "search takes N from 1 to 100,000"),
        ("ismcts-0", "ismcts takes N from 1 to 200,000"),
        ("isearch-100001", "isearch takes N from 1 to 100,000"),
        ("ismcts-x", "ismcts takes N from 1 to 200,000"),
        ("mcts-5", "unknown player"),
        ("hu\x1bman", "printable ASCII"),
        ("", "--seats needs 5"),
    ],
)
def test_seats_refused_with_one_line(seat, msg):
    with pytest.raises(PlayerError) as info:
        parse_seats(f"human,{seat},heavy,keeper,random")
    assert msg in str(info.value) and "\n" not in str(info.value)


def test_seat_names_canonical():
    assert parse_seats("You, HUNTER ,search,search-50,person") == [
        HUMAN,
        "hunter",
        "search",
        "search-50",
        HUMAN,
    ]
    # every search player of the registry may sit at a table (issue 13/14), budget capped
    assert parse_seats("human,ISMCTS,ismcts-050,isearch-20,esearch") == [
        HUMAN,
        "ismcts",
        "ismcts-50",
        "isearch-20",
        "esearch",
    ]


def test_ranking_after_a_camat_puts_the_camat_first():
    """D15: a CAMAT returns every stone to the table, so stones alone rank
    nothing; the ranking counts CAMATs, then stones, then stones received."""
    s = Session(CPUS, seed=3, camats=1)
    run_all(s)
    camat = s.game.camat
    assert camat is not None and s.game.stones == [0] * 5
    rank = s.ranking()
    assert rank[0]["seat"] == camat and rank[0]["camats"] == 1
    rest = rank[1:]
    assert [r["received"] for r in rest] == sorted(r["received"] for r in rest)
    assert sum(r["received"] for r in rank) > 0


# ---------------------------------------------------------------------------
# D17: what a person is shown
# ---------------------------------------------------------------------------


def allowed_check(term, text):
    """A table screen shows no tile but the played ones and the viewer's own
    hand: never another hand, never the 3 tiles out of play."""
    if " DOMENG " not in text:
        return  # help / rules pages (they quote example tiles)
    s = term.s
    rounds = as_json(s.finished) + ([s.game.events] if not s.round_over else [])
    played = {ev["tile"] for evs in rounds[-1:] for ev in evs if ev["type"] in ("lead", "play")}
    allowed = set(played) | {s.game.must_lead}  # D3: the opener's double is public
    viewer = s.to_move if s.to_move is not None and s.is_human(s.to_move) else None
    if len(s.humans) == 1:
        viewer = s.humans[0]
    if viewer is not None and not s.round_over:
        allowed |= set(s.game.hand(viewer))
    shown = tiles_in(text)
    assert shown <= allowed, (sorted(map(tile_str, shown - allowed)), text)
    deal = rounds[-1][0]
    for t in deal["out"]:
        assert tile_str(t) not in text


@settings(max_examples=8, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**64 - 1), pick=st.integers(0, 9))
def test_d17_screens_show_only_your_own_hand(seed, pick):
    def answer(prompt, n):
        return (
            str(1 + (n + pick) % 2) if prompt.startswith("Your") and "Enter" not in prompt else None
        )

    def choose(prompt, n):
        a = answer(prompt, n)
        return a

    def robust(prompt, n):  # a refused number is asked again: then take 1
        return "1" if prompt.startswith("Your") and n % 7 == 0 else choose(prompt, n)

    t, status = play(seed=seed, rounds=2, answer=robust, check=allowed_check)
    assert status == 0 and t.frames


def test_d17_hot_seat_hands_only_after_the_others_look_away():
    seats = ["human", "keeper", "human", "hunter", "human"]
    gate = {"open": False}

    def answer(prompt, n):
        gate["open"] = prompt.startswith("Press Enter to see")
        return None

    def check(term, text):
        if " DOMENG " in text and term.s.to_move is not None and "Your moves" not in text:
            assert "Your hand" not in text  # nobody's hand between turns
        s = term.s
        if " DOMENG " in text and not s.round_over:
            others = set()
            for h in s.humans:
                if h != s.to_move or "Your moves" not in text:
                    others |= set(s.game.hand(h))
            others.discard(s.game.must_lead)  # D3: the opener's double is public
            assert not (tiles_in(text) & others), text

    t, status = play(seats=seats, seed=5, rounds=2, answer=answer, check=check)
    assert status == 0
    assert "seat 2 (person): your turn; the others look away please" in t.text


def test_views_filter_the_deal():
    s = Session(SEATS, seed=9, rounds=1)
    s.deal()
    deal = s.game.events[0]
    v0, spectator = s.view(0), s.view(None)
    assert v0.hand == sorted(deal["hands"][0])
    assert v0.events[0].hands[1:] == [None] * 4 and v0.events[0].out is None
    assert spectator.hand is None and spectator.events[0].hands == [None] * 5
    assert "out" not in json.dumps(to_dict(spectator.events[0])).replace('"out": null', "")


# ---------------------------------------------------------------------------
# An unexpected error: the game is saved first, one line
# ---------------------------------------------------------------------------


def test_unexpected_error_saves_first(tmp_path, capsys, monkeypatch):
    path = tmp_path / "g.json"
    s = Session(SEATS, seed=4, rounds=2)
    calls = {"n": 0}
    real = s.auto_step

    def flaky():
        calls["n"] += 1
        if calls["n"] == 6:
            raise RuntimeError("boom\nsecond line")
        return real()

    monkeypatch.setattr(s, "auto_step", flaky)
    from playkit import Scripted

    t = Scripted(s, save_path=str(path))
    assert t.run() == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "RuntimeError: boom second line" in err
    assert f"the game is saved in {path}" in err
    again = read_save(str(path))
    assert again.actions == s.actions


def test_unexpected_error_without_a_save_file_rescues_into_the_data_folder(
    capsys, monkeypatch, _data_home
):
    s = Session(SEATS, seed=4, rounds=2)
    monkeypatch.setattr(s, "auto_step", lambda: 1 / 0)
    from playkit import Scripted

    assert Scripted(s).run() == 1
    err = capsys.readouterr().err
    rescued = list((_data_home / "domeng").glob("rescue-*.json"))
    assert len(rescued) == 1 and str(rescued[0]) in err and "ZeroDivisionError" in err
    assert read_save(str(rescued[0])).actions == s.actions


# ---------------------------------------------------------------------------
# The chain as it lies, refusals, pace, Ctrl-C in a computer's pause
# ---------------------------------------------------------------------------


def test_chain_of_lays_the_tiles_end_to_end():
    from domeng.core.tiles import tile_id
    from domeng.play.session import chain_of

    s = Session(CPUS, seed=3, rounds=3)
    while not s.game_over:
        if s.round_over:
            s.deal()
        s.auto_step()
        chain, last = chain_of(s.game.events)
        played = [ev["tile"] for ev in s.game.events if ev["type"] in ("lead", "play")]
        assert len(chain) == len(played)
        assert all(a[1] == b[0] for a, b in itertools.pairwise(chain))  # neighbours match
        if chain:
            assert (chain[0][0], chain[-1][1]) == s.game.ends or s.round_over
            assert sorted(tile_id(*p) for p in chain) == sorted(played)
            last_ev = [ev for ev in s.game.events if ev["type"] in ("lead", "play")][-1]
            assert tile_id(*chain[last]) == last_ev["tile"]


def test_refused_input_is_asked_again_and_changes_nothing():
    bad = ["xyz", "9", "6-6 left", "help", "rules", "²", "\x07", "9" * 5000]

    def answer(prompt, n):
        if prompt.startswith("Your") and n <= len(bad):
            return bad[n - 1]
        return None

    t, status = play(answer=answer, rounds=2)
    plain, status2 = play(rounds=2)
    assert status == status2 == 0
    assert t.s.finished == plain.s.finished and t.s.actions == plain.s.actions
    assert "Refused: cannot read 'xyz'" in t.text and "Refused: there is no move 9" in t.text
    assert "Commands at any prompt" in t.text and "D17" in t.text  # help, rules


def test_pace_of_computer_moves():
    t, _ = play(rounds=1, delay=0.25)
    computer_turns = sum(
        1 for ev in t.s.finished[0] if isinstance(ev, Lead | Play | Pass) and ev.seat != 0
    )
    assert t.slept and set(t.slept) == {0.25} and len(t.slept) >= computer_turns
    fast, _ = play(rounds=1)
    assert fast.slept == []


@pytest.mark.parametrize("at", [1, 4, 9, 17, 30])
def test_ctrl_c_during_a_computer_pause_saves_a_game_that_resumes_identically(tmp_path, at):
    seats = ["human", "random", "random", "hunter", "random"]
    whole, _ = play(seats=seats, rounds=2)
    path = tmp_path / "auto.json"
    s = Session(seats, seed=7, rounds=2)
    from playkit import Scripted

    t = Scripted(s, save_path=str(path), delay=0.5)

    def sleep(seconds):
        t.slept.append(seconds)
        if len(t.slept) == at:
            raise KeyboardInterrupt

    t.sleep = sleep
    assert t.run() == 0
    assert f"Goodbye: the game is saved in {path}" in t.text
    again = read_save(str(path))
    finish_t = Scripted(again)
    assert finish_t.run() == 0
    assert again.finished == whole.s.finished


def test_save_and_load_hot_seat_and_camat_target(tmp_path):
    seats = ["human", "keeper", "human", "hunter", "random"]
    whole, _ = play(seats=seats, seed=3, rounds=None)  # default: until the first CAMAT
    assert whole.s.game.camats == 1 and "at the first CAMAT" in whole.text
    path = tmp_path / "g.json"

    def answer(prompt, n):
        if prompt.startswith("Your") and n == 5:
            return "quit"
        if prompt.startswith("Save the game?"):
            return str(path)
        return None

    first, _ = play(seats=seats, seed=3, rounds=None, answer=answer)
    assert f"the game is saved in {path}" in first.text
    from playkit import Scripted

    second = Scripted(read_save(str(path)))
    assert second.run() == 0
    assert second.s.finished == whole.s.finished
    assert final(second.text) == final(whole.text)


def final(text: str) -> str:
    return text[text.index("Game over") :]


def test_save_command_asks_for_a_file_and_no_means_no(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "g.json"
    script = {1: "save", 2: "save", 3: f"save {tmp_path / 'missing' / 'x.json'}"}

    def answer(prompt, n):
        if prompt.startswith("Your"):
            return script.get(n)
        if prompt.startswith("Save to which file?"):
            return (
                "no"
                if not (tmp_path / "asked").exists() and (tmp_path / "asked").write_text("") == 0
                else str(path)
            )
        return None

    t, status = play(rounds=1, answer=answer)
    assert status == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["asked", "g.json"]  # no file "no"
    assert "Not saved: cannot save to" in t.text
    assert read_save(str(path)).actions == t.s.actions  # autosaved to the end


def test_long_player_names_keep_the_columns_in_line():
    """``seat 1 (search-777)`` is longer than the usual label column: the
    seat list, the standings and the final ranking widen it for everyone."""
    from domeng.play.screen import final_lines, seats_lines, standings_lines

    seats = ["human", "search-777", "hunter", "expert", "esearch-55"]
    s = Session(seats, seed=3, rounds=1)

    def label(k):
        return f"seat {k} ({'you' if k == 0 else seats[k]})"

    rows = [t.plain for t in seats_lines(s, s.view(0), label)]
    assert len({r.index(" tile") for r in rows}) == 1, rows
    rows = [t.plain for t in standings_lines(s, label)]
    header, body = rows[1], rows[2:8]  # the column names, the five seats and the table
    assert len({len(r.rstrip()) for r in body[:5]}) == 1, rows  # right-aligned: one end
    assert body[5].rstrip().endswith(str(s.game.table_stones))
    assert len(body[5].rstrip()) == header.index("stones") + len("stones"), rows
    rows = [t.plain for t in final_lines(s, label, "after 1 round", 100)]
    table = [r for r in rows if r.strip()[:1].isdigit()]
    assert len(table) == 5 and len({len(r.rstrip()) for r in table}) == 1, table
