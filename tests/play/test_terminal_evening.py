"""The terminal table's rough edges found by friends trying it for an evening
(issue 22, point 13): ``save`` between rounds saves and asks again, the safe
answer on leaving (also after Ctrl-C) saves, the resume command is never
wrapped inside itself, a file that is not a save says so, a missing save is
refused before anything is prepared, and the seats have the browser's names."""

from __future__ import annotations

import json

import pytest
from playkit import SEATS, Scripted, play

from domeng.cli.main import main
from domeng.core.errors import SaveFileError
from domeng.play import warmup
from domeng.play.savefile import read_save, read_save_data
from domeng.play.session import Session
from domeng.play.terminal import Terminal
from domeng.web.table import Table, TableSpec


def test_save_between_rounds_saves_and_asks_again(tmp_path):
    """``save`` at "Press Enter for round 2" saves the game as it stands
    (round 1 over, round 2 not dealt) and asks again; only Enter deals."""
    path = tmp_path / "between.json"
    asked: list[tuple[str, int, bool]] = []

    def answer(prompt, n):
        if prompt.startswith("Press Enter for round"):
            s = t_.s
            asked.append((prompt.split(" (")[0], s.rounds_played, s.round_over))
            if n == 1:
                return "save"
            saved = read_save(str(path))  # asked again: what the save holds
            assert saved.rounds_played == 1 and saved.round_over and len(saved.actions) == 1
        if prompt.startswith("Save to which file?"):
            return str(path)
        return None

    t_ = Scripted(Session(SEATS, seed=7, rounds=2), answer)
    t, status = t_, t_.run()
    assert status == 0 and t.s.game_over
    # asked twice for round 2, round 2 not dealt meanwhile: the save did not start it
    assert asked == [("Press Enter for round 2", 1, True)] * 2
    # from then on saved after every move: the file now holds the whole game
    assert read_save(str(path)).actions == t.s.actions and len(t.s.actions) == 2


def test_ctrl_c_then_enter_saves(tmp_path, monkeypatch):
    """After Ctrl-C the question's default, Enter, is the safe answer: save."""
    monkeypatch.chdir(tmp_path)

    def answer(prompt, n):
        if prompt.startswith("Your") and n == 2:
            return KeyboardInterrupt
        if prompt.startswith("Save the game?"):
            assert "Enter: domeng-game.json" in prompt
            return ""
        return None

    t, status = play(answer=answer)
    assert status == 0 and not t.s.game_over
    assert read_save(str(tmp_path / "domeng-game.json")).actions == t.s.actions
    assert "  domeng play --load domeng-game.json" in t.text.splitlines()


def test_the_resume_hint_is_never_wrapped_inside_the_command_at_80_columns(tmp_path, monkeypatch):
    """``save FILE`` says how to resume under the table (80 columns here):
    whatever the file name's length, ``domeng play --load FILE`` stands whole
    on one line; the message wraps between its other words."""
    monkeypatch.chdir(tmp_path)
    names = ["g" * k + ".json" for k in range(20, 40)]  # 29..39: split before the fix

    def answer(prompt, n):
        if prompt.startswith("Your") and n <= len(names):
            return f"save {names[n - 1]}"
        if prompt.startswith("Your"):
            return "quit"
        return None

    t, _ = play(answer=answer)
    lines = [ln for ln in t.text.splitlines() if not ln.startswith("Your move")]
    assert max(len(ln) for ln in lines) <= 80
    for name in names:
        assert any(f"domeng play --load {name}" in ln for ln in lines), name


def test_the_terminal_names_the_seats_as_the_browser_does():
    """One person: their own seat is "you" (named or not), as the browser
    shows a person's own seat; hot-seat: the screen is everyone's, named as the browser names
    seats for a spectator; a given name the same everywhere."""
    for seats in (["human", "hunter", "keeper", "heavy", "random"], SEATS_HOT):
        table = Table(TableSpec.parse({"seats": seats, "seed": 1}))
        term = Terminal(table.session, delay=0, read=lambda _: "", sleep=lambda _: None)
        browser = table.label(0) if seats.count("human") == 1 else table.name
        assert [term.label(s) for s in range(5)] == [browser(s) for s in range(5)]
    table.session.set_name(2, "Ana")
    assert term.label(2) == table.name(2) == "seat 2 (Ana)"
    assert term.label(0) == "seat 0 (person)"
    # one person, named: their own seat is "you" at the terminal as on their page
    table = Table(TableSpec.parse({"seats": ["human", "hunter", "keeper", "heavy", "random"]}))
    table.session.set_name(0, "Ana")
    term = Terminal(table.session, delay=0, read=lambda _: "", sleep=lambda _: None)
    assert term.label(0) == table.label(0)(0) == "seat 0 (you)"
    assert json.loads(table.view_text(0))["seats"][0]["name"] == "seat 0 (you)"


SEATS_HOT = ["human", "hunter", "human", "keeper", "random"]


def test_enter_on_leaving_saves_to_a_new_file_here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "domeng-game.json").write_text("{}")  # taken: never overwritten

    def answer(prompt, n):
        if prompt.startswith("Your") and n == 3:
            return "quit"
        if prompt.startswith("Save the game?"):
            assert "Enter: domeng-game-2.json" in prompt
            return ""  # Enter: the safe answer
        return None

    t, status = play(answer=answer)
    assert status == 0
    saved = tmp_path / "domeng-game-2.json"
    assert read_save(str(saved)).actions == t.s.actions
    assert (tmp_path / "domeng-game.json").read_text() == "{}"
    lines = t.text.splitlines()
    assert "Goodbye: the game is saved in domeng-game-2.json." in lines
    # the command stands whole on a line of its own, whatever the width
    assert "  domeng play --load domeng-game-2.json" in lines


def test_no_on_leaving_saves_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def answer(prompt, n):
        if prompt.startswith("Your") and n == 2:
            return "quit"
        if prompt.startswith("Save the game?"):
            return "no"
        return None

    t, status = play(answer=answer)
    assert status == 0 and list(tmp_path.iterdir()) == []
    assert "Goodbye." in t.text


def test_a_name_with_spaces_is_quoted_in_the_resume_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def answer(prompt, n):
        if prompt.startswith("Your") and n == 2:
            return "quit"
        if prompt.startswith("Save the game?"):
            return "my game.json"
        return None

    t, _ = play(answer=answer)
    assert "  domeng play --load 'my game.json'" in t.text.splitlines()


@pytest.mark.parametrize("data", [{"format": 1}, {"format": "domeng-play", "hmac": "x"}, []])
def test_a_json_file_that_is_not_a_save_says_so(tmp_path, data):
    path = tmp_path / "x.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SaveFileError, match="is not a domeng play save file"):
        read_save_data(str(path))


def test_a_missing_save_is_refused_before_preparing_anything(tmp_path, capsys, monkeypatch):
    said = []  # as on a first run: any compile would say so
    monkeypatch.setattr(warmup, "warm_up", lambda s: said.append("warm_up"))
    assert main(["play", "--load", str(tmp_path / "missing.json")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "cannot read save file" in err and err.count("\n") == 1
    assert said == []  # refused before the warm-up
