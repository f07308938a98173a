"""The terminal table's rough edges found by friends trying it for an evening
(issue 22, point 13): the safe answer on leaving saves, the resume command is
never wrapped inside itself, a file that is not a save says so, and a missing
save is refused before anything is prepared."""

from __future__ import annotations

import json

import pytest
from playkit import play

from domeng.cli.main import main
from domeng.core.errors import SaveFileError
from domeng.play import warmup
from domeng.play.savefile import read_save, read_save_data


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
    monkeypatch.setattr(warmup, "compile_pending", lambda: True)  # as on a first run
    assert main(["play", "--load", str(tmp_path / "missing.json")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "cannot read save file" in err and err.count("\n") == 1
