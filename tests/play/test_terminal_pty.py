"""``domeng play`` end to end through a pseudo-terminal (pexpect; every wait
is for a prompt, never a sleep): bad input of every kind refused and asked
again, Enter plays a forced single move, a whole game to its final ranking,
Ctrl-C and Ctrl-D and quit offer to save (``n`` means no), ``save`` in the
game and autosave after it and after ``--load``, a resumed game ends as the
game never interrupted, hot-seat, edited saves refused or marked."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pexpect
import pytest

from domeng.cli.main import main
from domeng.play.savefile import read_save

ROOT = Path(__file__).resolve().parents[2]
SEATS = "human,hunter,heavy,keeper,random"
GAME = ["--seed", "1", "--no-wait", "--rounds", "2", "--seats", SEATS]
MOVE = r"Your move \[.*?\]: "
PROMPTS = [MOVE, r"Press Enter[^\n]*?: ", r"File name[^\n]*?: ", pexpect.EOF]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r")


def plain(text: str) -> str:
    return ANSI.sub("", text)


def spawn(data_home, *args: str, cwd=None) -> pexpect.spawn:
    env = dict(
        os.environ, COLUMNS="80", LINES="24", TERM="xterm-256color", XDG_DATA_HOME=str(data_home)
    )
    env.pop("NO_COLOR", None)
    return pexpect.spawn(
        sys.executable,
        ["-m", "domeng", "play", *args],
        cwd=str(cwd or ROOT),
        env=env,
        encoding="utf-8",
        dimensions=(24, 80),
        timeout=120,
    )


def drive(child: pexpect.spawn, answer=None) -> str:
    """Answer every prompt until the program ends (default: move 1 or Enter)."""
    seen = []
    while True:
        i = child.expect(PROMPTS)
        seen.append(child.before + (child.after if isinstance(child.after, str) else ""))
        if i == 3:
            break
        a = answer(i, child) if answer else None
        if a is None:
            # at "File name" Enter would save into the repository: "no" leaves without saving
            a = "1" if i == 0 and "Enter:" not in child.after else ("no" if i == 2 else "")
        child.sendline(a)
    child.close()
    return plain("".join(seen))


def final_part(text: str) -> str:
    return text[text.index("Game over") : text.index("Thanks for playing")]


@pytest.fixture(scope="module")
def full_game(tmp_path_factory):
    """The whole 2-round game, with bad input of every kind on the way."""
    home = tmp_path_factory.mktemp("home")
    child = spawn(home, *GAME)
    refusals = []
    bad = [
        ("²", "cannot read '²'"),
        ("9" * 5000, "characters long"),
        ("\x01x\x02", "control characters"),
        ("xyz", "cannot read 'xyz'"),
        ("9", "there is no move 9"),
        ("0", "there is no move 0"),
    ]
    state = {"forced_enter": 0}

    def answer(i, ch):
        if i != 0:
            return None
        if "Enter:" in ch.after:
            state["forced_enter"] += 1
            return ""  # Enter plays the only move
        while bad:
            text, why = bad.pop(0)
            ch.sendline(text)
            ch.expect(r"Refused: ([^\n]*)")
            refusals.append((text[:10], plain(ch.match.group(1))))
            assert why in plain(ch.match.group(1)), (text[:10], ch.match.group(1))
            ch.expect(MOVE)
        return "1"

    text = drive(child, answer)
    return {"text": text, "status": child.exitstatus, "refusals": refusals, **state}


def test_pty_whole_game_with_bad_input(full_game):
    text = full_game["text"]
    assert full_game["status"] == 0 and len(full_game["refusals"]) == 6
    assert full_game["forced_enter"] >= 1  # the D3 lead of [6|6], by Enter
    assert "round 1: seat 0 (you) starts" in text and "Round 2 over:" in text
    assert "Game over after 2 rounds" in text and "Final ranking" in text
    for word in (
        "DOMENG",
        "open ends:",
        "Your hand:",
        "Your moves:",
        "CAMAT:",
        "┌─┬─┐",
        "Standings after 1 round",
        "This game's seed was 1",
    ):
        assert word in text, word
    assert "Traceback" not in text


def test_pty_quit_no_means_no(tmp_path):
    for word in ("n", "no", "NO"):  # Enter saves (tests/play/test_terminal_evening.py)
        child = spawn(tmp_path / "h", *GAME, cwd=tmp_path)
        child.expect(MOVE)
        child.sendline("quit")
        child.expect(PROMPTS[2])
        child.sendline(word)
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0 and plain(child.before).strip().endswith("Goodbye.")
    assert [p.name for p in tmp_path.iterdir() if p.name != "h"] == []  # no file named n


@pytest.mark.parametrize("how", ["ctrl-c", "ctrl-d", "quit"])
def test_pty_leave_offers_to_save_and_load_finishes_identically(full_game, tmp_path, how):
    save = tmp_path / "saved.json"
    child = spawn(tmp_path, *GAME)
    n = {"moves": 0}

    def answer(i, ch):
        if i == 0:
            n["moves"] += 1
            if n["moves"] == 4:
                if how == "ctrl-c":
                    ch.sendintr()
                elif how == "ctrl-d":
                    ch.sendeof()
                else:
                    ch.sendline("quit")
                ch.expect(PROMPTS[2])
                return str(save)
        return None

    text = drive(child, answer)
    assert child.exitstatus == 0 and f"the game is saved in {save}" in text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text
    assert json.loads(save.read_text())["actions"]
    child = spawn(tmp_path, "--load", str(save), "--no-wait")
    text = drive(child)
    assert child.exitstatus == 0
    assert final_part(text) == final_part(full_game["text"])


@pytest.mark.parametrize("how", ["ctrl-d", "ctrl-c twice"])
def test_pty_no_more_input_at_the_save_question_saves(tmp_path, how, monkeypatch):
    """Ctrl-D (end of input) or a second Ctrl-C at "Save the game?" is no
    answer: the safe one is taken, the game saved (Enter's file), never lost."""
    child = spawn(tmp_path / "h", *GAME, cwd=tmp_path)
    child.expect(MOVE)
    if how == "ctrl-d":
        child.sendeof()
        child.expect(PROMPTS[2])
        child.sendeof()
    else:
        child.sendintr()
        child.expect(PROMPTS[2])
        child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    text = plain(child.before)
    assert child.exitstatus == 0 and "Traceback" not in text, text
    assert "Goodbye: the game is saved in domeng-game.json." in text, text
    assert "domeng play --load domeng-game.json" in text
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "h"))  # the key the game signed with
    saved = read_save(str(tmp_path / "domeng-game.json"))  # a save of this very game
    assert saved.game.seed == 1 and saved.rounds_played == 0 and not saved.game_over


def test_pty_save_command_then_autosave_and_load_autosaves(tmp_path):
    save = tmp_path / "mine.json"
    child = spawn(tmp_path, *GAME)
    child.expect(MOVE)
    child.sendline(f"save {save}")
    child.expect(MOVE)
    assert "The game is saved in" in plain(child.before)
    n0 = sum(map(len, json.loads(save.read_text())["actions"]))
    child.sendline("")  # the forced [6|6] lead
    child.expect(MOVE)
    n1 = sum(map(len, json.loads(save.read_text())["actions"]))
    assert n1 > n0  # saved after every move, without being asked
    child.sendline("quit")  # a file is given: no question
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and f"Goodbye: the game is saved in {save}" in plain(child.before)
    child = spawn(tmp_path, "--load", str(save), "--no-wait")
    child.expect(MOVE)
    child.sendline("1")
    child.expect(MOVE)
    assert sum(map(len, json.loads(save.read_text())["actions"])) > n1  # loaded: autosaved
    child.sendintr()  # the file is known: saved, no question
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "the game is saved in" in plain(child.before)


def test_pty_edited_save_refused_or_marked(tmp_path):
    save = tmp_path / "g.json"
    child = spawn(tmp_path, *GAME, "--save", str(save))
    child.expect(MOVE)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    data = json.loads(save.read_text())
    data["target"]["rounds"] = 9
    save.write_text(json.dumps(data))
    child = spawn(tmp_path, "--load", str(save))
    child.expect(pexpect.EOF)
    child.close()
    out = plain(child.before).strip()
    assert child.exitstatus == 2 and len(out.splitlines()) == 1 and "was modified" in out
    child = spawn(tmp_path, "--load", str(save), "--allow-modified", "--no-wait")
    child.expect(MOVE)
    assert "MODIFIED SAVE" in plain(child.before) and "game ends after 9 rounds" in plain(
        child.before
    )
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert json.loads(save.read_text())["modified"] is True


def test_pty_hot_seat_gate_help_rules_and_leak_warning(tmp_path):
    save = tmp_path / "hot.json"
    child = spawn(
        tmp_path,
        "--seed",
        "2",
        "--no-wait",
        "--seats",
        "human,hunter,human,keeper,random",
        "--save",
        str(save),
    )
    child.expect(r"seat (\d) \(person\): your turn; the others look away")
    seat = int(child.match.group(1))
    assert "whoever reads it can work out every hand" in " ".join(plain(child.before).split())
    child.expect("Press Enter to see your hand")
    assert "Your hand" not in plain(child.before)
    child.sendline("help")
    child.expect("Commands at any prompt")
    child.expect("Press Enter to go back")
    child.sendline("")
    child.expect("Press Enter to see your hand")
    child.sendline("")
    child.expect(MOVE)
    assert f"seat {seat} (person) to play" in plain(child.before)
    assert "Your hand:" in plain(child.before)
    child.sendline("rules")
    child.expect("DECISIONS")
    child.expect(r"This game: default rules\.")
    child.expect("Press Enter to go back")
    child.sendline("")
    child.expect(MOVE)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert f"Goodbye: the game is saved in {save}" in plain(child.before)
    assert json.loads(save.read_text())["seats"][seat] == "human"


def test_help_lists_every_table_player(capsys):
    assert main(["play", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for name in ("random", "heavy", "keeper", "hunter", "search", "search[-N]", "--allow-modified"):
        assert name in out
