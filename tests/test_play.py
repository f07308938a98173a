"""``domeng play``: people at the table (issue 5, section 4).

Unit tests of the input parser, of the event text, of the game loop (it
plays exactly as :meth:`Table.play_round` does) and of save/load (a resumed
game continues identically); then the real program driven end to end
through a pseudo-terminal with pexpect: bad input refused and asked again,
a whole game to its end, quit + save, --load and on to the same end, help
and rules, hot-seat, end of input and Ctrl-C, a corrupt save file refused.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from domeng.cli.main import main
from domeng.engine.reference import LEFT, RIGHT, Move, Round, Table
from domeng.play.terminal import (
    SAVE_FORMAT, Console, Game, InputError, SaveFileError, chain_pairs, parse_move,
)
from domeng.players.registry import make_player
from domeng.core.tiles import N_TILES, parse_tile, tile_str

from _util import H, T, make_table

ROOT = Path(__file__).resolve().parent.parent
SEATS = ["human", "hunter", "heavy", "keeper", "random"]


# ---------------------------------------------------------------------------
# The input parser
# ---------------------------------------------------------------------------


def position(left=3, right=5, hand=("5-3", "3-3", "5-1", "0-0"), to_move=0) -> Round:
    """Seat 0 to move on open ends ``left``, ``right`` with [6|3] on the chain."""
    table = make_table()
    others = [H("1-1", "6-6"), H("2-2", "6-5"), H("4-4", "6-4"), H("6-0", "6-2")]
    return Round.from_position(table, [H(*hand)] + others, to_move=to_move, left=left,
                               right=right, last_mappano=4, has_played=[True] * 5,
                               chain=[(4, T("6-3"), LEFT)])


def pm(rnd: Round, text: str) -> Move:
    return parse_move(text, rnd.legal_moves(), sorted(rnd.hands[rnd.to_move]), rnd.left,
                      rnd.right, must_lead=rnd.must_lead, chain=[t for _, t, _ in rnd.chain])


@pytest.mark.parametrize("text,expected", [
    ("1", 0), ("2", 1), (" 4 ", 3),                                   # move numbers
    ("5-3 left", Move(T("5-3"), LEFT)), ("[5|3] r", Move(T("5-3"), RIGHT)),
    ("3-5 right", Move(T("5-3"), RIGHT)), ("53l", Move(T("5-3"), LEFT)),
    ("5 3 on the left", Move(T("5-3"), LEFT)), ("5|3 RIGHT", Move(T("5-3"), RIGHT)),
    ("51", Move(T("5-1"), RIGHT)), ("[1|5]", Move(T("5-1"), RIGHT)),  # fits one way only
    ("5-1 right", Move(T("5-1"), RIGHT)), ("33", Move(T("3-3"), LEFT)),
])
def test_parse_move_accepts(text, expected):
    rnd = position()
    moves = rnd.legal_moves()
    assert [str(m) for m in moves] == ["[3|3] left", "[5|1] right", "[5|3] left",
                                      "[5|3] right"]
    want = moves[expected] if isinstance(expected, int) else expected
    assert pm(rnd, text) == want


@pytest.mark.parametrize("text,reason", [
    ("", "type a move number 1-4"),
    ("xyz", "cannot read 'xyz'"),
    ("5-9", "cannot read"),
    ("left", "cannot read"),
    ("9", "there is no move 9: type a move number 1-4"),
    ("0", "there is no move 0"),
    ("99", "there is no move 99"),
    ("66", "you do not hold [6|6]"),
    ("6-3 left", "[6|3] is already on the chain"),
    ("0-0", "[0|0] does not fit: the open ends are 3 and 5"),
    ("5-3", "[5|3] fits both ends: type 5-3 left or 5-3 right"),
    ("5-1 left", "[5|1] does not fit the left end (3); it goes on the right"),
    ("3-3 r", "[3|3] does not fit the right end (5); it goes on the left"),
])
def test_parse_move_refuses_with_a_reason(text, reason):
    rnd = position()
    with pytest.raises(InputError) as info:
        pm(rnd, text)
    assert reason in str(info.value)


def test_parse_move_lead_equal_ends_and_first_double():
    # equal open ends: one move per tile (D5), whatever end is typed
    rnd = position(left=3, right=3, hand=("3-1", "0-0"))
    assert rnd.legal_moves() == [Move(T("3-1"), LEFT)]
    for text in ("3-1", "3-1 left", "3-1 right", "13 r", "1"):
        assert pm(rnd, text) == Move(T("3-1"), LEFT)
    # the first round's lead must be the double (D3); an end typed on a lead is ignored
    table = Table(seed=4)
    rnd = table.new_round()
    double = tile_str(rnd.must_lead)
    assert pm(rnd, double + " right") == Move(rnd.must_lead, LEFT)
    other = next(t for t in rnd.hands[rnd.starter] if t != rnd.must_lead)
    with pytest.raises(InputError, match=re.escape(f"must be opened with {double}")):
        pm(rnd, tile_str(other))
    # a free lead: any tile in hand
    rnd = position(left=None, right=None)
    rnd.must_lead = None
    assert pm(rnd, "0-0") == Move(T("0-0"), LEFT)


def test_chain_pairs_orient_the_tiles_end_to_end():
    table = Table(seed=3)
    rnd = table.new_round()
    players = [make_player(p) for p in SEATS[1:] + ["random"]]
    while not rnd.ended:
        moves = rnd.legal_moves()
        if not moves:
            rnd.pass_turn()
            continue
        rnd.play(players[rnd.to_move].choose(rnd.observation(rnd.to_move), moves,
                                             table.seat_rngs[rnd.to_move]))
        pairs = chain_pairs(rnd.chain)
        assert len(pairs) == len(rnd.chain)
        assert all(a[1] == b[0] for a, b in zip(pairs, pairs[1:]))  # neighbours match
        assert (pairs[0][0], pairs[-1][1]) == (rnd.left, rnd.right)
        assert sorted(parse_tile(f"{a}{b}") for a, b in pairs) == sorted(t for _, t, _ in rnd.chain)


# ---------------------------------------------------------------------------
# The loop, the event text, save and load (in-process, scripted console)
# ---------------------------------------------------------------------------


class Scripted(Console):
    """A console that answers prompts: ``answer(prompt, n)`` where ``n`` counts
    the prompts of that kind so far (1 = first); default: move 1, Enter."""

    def __init__(self, answer=None):
        self.out: list[str] = []
        self.counts: dict[str, int] = {}
        self.answer = answer or (lambda prompt, n: None)
        self.slept: list[float] = []
        super().__init__(read=lambda: "", write=self.out.append, sleep=self.slept.append,
                         tty=False)

    def ask(self, prompt: str) -> str:
        self.write(prompt)
        kind = prompt.split(" ")[0]
        self.counts[kind] = self.counts.get(kind, 0) + 1
        a = self.answer(prompt, self.counts[kind])
        if a is EOFError:
            raise EOFError
        if a is None:
            a = "1" if kind == "Your" else ""
        self.write(a + "\n")
        return a

    @property
    def text(self) -> str:
        return "".join(self.out)


def new_game(answer=None, rounds=3, seats=SEATS, seed=7, **kw) -> Game:
    return Game(seats, seed=seed, rounds=rounds, delay=0, console=Scripted(answer), **kw)


def test_loop_plays_exactly_like_table_play_round():
    """With no people, the loop is Table.play_round: same deals, draws, events."""
    names = ["hunter", "heavy", "keeper", "random", "random"]
    game = new_game(seats=names, rounds=6, seed=11)
    assert game.run() == 0
    table = Table(seed=11)
    players = [make_player(n) for n in names]
    expected = []
    for _ in range(6):
        table.play_round(players)
        expected.append(table.round.events)
    assert game.round_events == expected
    assert (game.table.stones, game.table.table_stones, game.table.rng_states()) == \
        (table.stones, table.table_stones, table.rng_states())
    text = game.io.text
    assert "Game over after 6 rounds" in text and "Your hand" not in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_people_see_only_their_own_hand():
    """D17: the text shows no hand but the human's, and only on his turn."""
    game = new_game(rounds=2)
    game.run()
    text = game.io.text
    assert text.count("Your hand:") == game.io.counts["Your"]  # one per turn, own hand
    for events in game.round_events:
        hands = events[0]["hands"]
        for seat in range(1, 5):  # computer hands never appear as a hand line
            assert f"Your hand: {' '.join(tile_str(t) for t in sorted(hands[seat]))}" not in text
    segments = re.split(r"=== Round \d+:", text)[1:]
    assert len(segments) == len(game.round_events) == 2
    for seg, events in zip(segments, game.round_events):
        for t in events[0]["out"]:  # the 3 tiles out of play are never shown
            assert tile_str(t) not in seg


def test_event_text_names_terms_and_stones():
    """PASSEBUNGE paid by the table then the LAST MAPPANO (example 3), CEKI, CAMAT."""
    game = new_game(rounds=1)
    table = make_table(stones=[0, 0, 6, 0, 18], table_stones=1)
    game.table = table
    rnd = Round.from_position(table, [H("0-0"), H("1-1"), H("2-6"), H("3-3", "4-4"),
                                      H("2-5")], to_move=3, left=6, right=6, last_mappano=2,
                              has_played=[True, True, True, False, True])
    rnd.pass_turn()
    lines = game.render(rnd.events)
    assert lines == ["seat 3 (keeper) has no 6: PASSEBUNGE, gets 2 stones: 1 from the table, 1 "
                     "from\n    seat 2 (heavy)"]  # wrapped at 79 columns, not inside a name
    table = make_table(stones=[0, 0, 0, 4, 19], table_stones=2)  # example 1: CEKI
    game.table = table
    rnd = Round.from_position(table, [H("0-0"), H("1-1"), H("6-6"), H("2-5"), H("4-4")],
                              to_move=3, left=2, right=5, last_mappano=2)
    rnd.play(Move(T("2-5"), LEFT))
    text = " ".join("\n".join(game.render(rnd.events)).split())  # unwrapped
    assert "seat 3 (keeper) plays [5|2] on the left ends 5 | 5 MAPPAKULING" in text
    assert "FIRST CAPPU by CEKI" in text and "CUCUQ is seat 2 (heavy)" in text
    assert "CEKI: seat 2 (heavy) gets 3 stones: 2 from the table, 1 from seat 3 (keeper)" \
        " (up to 3)" in text
    table = make_table(stones=[0, 3, 0, 0, 22], table_stones=0)  # example 2: POLLO and CAMAT
    game.table = table
    rnd = Round.from_position(table, [H("0-0"), H("4-4"), H("6-6"), H("2-5"), H("1-1")],
                              to_move=1, left=4, right=4, last_mappano=0)
    rnd.play(Move(T("4-4"), LEFT))
    text = " ".join("\n".join(game.render(rnd.events)).split())  # unwrapped
    assert "seat 1 (hunter) is FIRST CAPPU by POLLO" in text
    assert "POLLO: seat 0 (you) gets 3 stones from seat 1 (hunter) (up to 5); 2 more could not " \
        "be paid" in text
    assert "seat 1 (hunter) becomes CAMAT" in text and "All 25 stones return" in text


def test_refused_input_is_asked_again_and_changes_nothing():
    bad = ["xyz", "9", "6-6 left", "help", "rules"]

    def answer(prompt, n):
        if prompt.startswith("Your") and n <= len(bad):
            return bad[n - 1]
        return None

    game = new_game(answer, rounds=2)
    plain = new_game(rounds=2)
    assert game.run() == 0 and plain.run() == 0
    assert game.round_events == plain.round_events  # the refusals changed nothing
    text = game.io.text
    assert "Refused: cannot read 'xyz'" in text and "Refused: there is no move 9" in text
    assert "On your turn, type the number of a move" in text  # help
    assert "MAPPAKULING" in text and "D17" in text  # rules text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_pace_of_computer_moves():
    game = Game(SEATS, seed=7, rounds=1, delay=0.25, console=Scripted())
    game.run()
    slept = game.io.slept
    assert slept and set(slept) == {0.25}
    n_computer_turns = sum(1 for ev in game.round_events[0] if ev["type"] in ("lead", "play", "pass")
                           and ev["seat"] != 0)
    assert len(slept) >= n_computer_turns
    fast = new_game(rounds=1)
    fast.run()
    assert fast.io.slept == []


def play_split(tmp_path, quit_kind: str, quit_at: int, rounds=3, seats=SEATS, seed=7):
    """Play with a quit + save at the ``quit_at``-th prompt of ``quit_kind``
    ("Your" or "Press"), then load and play on.  Returns both games."""
    path = tmp_path / "game.json"

    def answer(prompt, n):
        if prompt.startswith(quit_kind) and n == quit_at:
            return "quit"
        if prompt.startswith("Save the game?"):
            return str(path)
        return None

    first = new_game(answer, rounds=rounds, seats=seats, seed=seed)
    assert first.run() == 0
    assert f"the game is saved in {path}" in first.io.text
    data = json.loads(path.read_text())
    assert data["format"] == SAVE_FORMAT and data["seed"] == seed and data["seats"] == seats
    second = Game.load(str(path), delay=0, console=Scripted())
    assert second.run() == 0
    return first, second, data


@pytest.mark.parametrize("quit_kind,quit_at", [("Your", 1), ("Your", 6), ("Your", 9),
                                               ("Press", 1), ("Press", 2)])
def test_save_and_load_continue_identically(tmp_path, quit_kind, quit_at):
    """The resumed game has the same events, stones and generator as a game
    never interrupted, with the same seed and the same choices."""
    whole = new_game(rounds=3)
    whole.run()
    first, second, data = play_split(tmp_path, quit_kind, quit_at)
    assert first.round_events + second.round_events == whole.round_events
    t1, t2 = second.table, whole.table
    assert (t1.stones, t1.table_stones, t1.camat, t1.rounds_played, t1.rng_states()) == \
        (t2.stones, t2.table_stones, t2.camat, t2.rounds_played, t2.rng_states())
    assert second.results == whole.results
    assert (data["round"] is None) == (quit_kind == "Press")
    final = whole.io.text[whole.io.text.index("Game over"):]
    assert final in second.io.text  # same final ranking


@pytest.mark.parametrize("at", range(1, 40, 2))
def test_ctrl_c_during_a_computer_pause_saves_a_state_that_resumes_identically(tmp_path, at):
    """Ctrl-C while a computer's move is shown slowly (it has drawn from the
    generator but not played yet): --save still records a consistent game."""
    seats = ["human", "random", "random", "random", "random"]
    whole = new_game(rounds=2, seats=seats)
    whole.run()
    path = tmp_path / "auto.json"
    console = Scripted()

    def sleep(_seconds):
        console.slept.append(_seconds)
        if len(console.slept) == at:
            raise KeyboardInterrupt

    console.sleep = sleep
    first = Game(seats, seed=7, rounds=2, delay=0.5, console=console, save_path=str(path))
    assert first.run() == 0
    assert console.text.rstrip().endswith(f"Goodbye: the game is saved in {path}.")
    second = Game.load(str(path), delay=0, console=Scripted())
    second.run()
    assert first.round_events + second.round_events == whole.round_events
    assert second.table.rng_states() == whole.table.rng_states()


def test_save_and_load_hot_seat_and_camat_target(tmp_path):
    seats = ["human", "keeper", "human", "hunter", "random"]
    whole = new_game(rounds=None, seats=seats, seed=3)  # default: until the first CAMAT
    whole.run()
    assert whole.camat_count() == 1 and "at the first CAMAT" in whole.io.text
    assert "seat 2 (human): your turn" in whole.io.text
    first, second, _ = play_split(tmp_path, "Your", 5, rounds=None, seats=seats, seed=3)
    assert first.round_events + second.round_events == whole.round_events


def bad_save(tmp_path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def good_save(tmp_path) -> dict:
    game = new_game(lambda p, n: "quit" if p.startswith("Your") and n == 4 else
                    (str(tmp_path / "ok.json") if p.startswith("Save") else None))
    game.run()
    return json.loads((tmp_path / "ok.json").read_text())


@pytest.mark.parametrize("change,message", [
    (lambda d: d.update(format="something-else"), "is not a domeng play save file"),
    (lambda d: d.update(version=99), "format version 99; this domeng reads version 2"),
    (lambda d: d["round"]["moves"].__setitem__(1, [d["round"]["moves"][1][0], "[0|0]", "left"]),
     "is corrupt"),
    (lambda d: d["round"]["moves"][0].__setitem__(0, (d["round"]["moves"][0][0] + 1) % 5),
     "is out of turn"),
    (lambda d: d["table"].update(table_stones=d["table"]["table_stones"] + 1),
     "is corrupt: the stones add up to 26"),
    (lambda d: d.pop("rng_state"), "is corrupt: missing 'rng_state'"),
    (lambda d: d.update(seats=["human", "wizard", "heavy", "keeper", "random"]),
     "is corrupt: unknown player 'wizard'"),
    (lambda d: d["round"].update(hands=[["[6|6]"] * 5] * 5), "is corrupt: tile [6|6] dealt twice"),
])
def test_load_refuses_foreign_corrupt_and_other_versions(tmp_path, change, message):
    data = good_save(tmp_path)
    change(data)
    path = bad_save(tmp_path, "bad.json", json.dumps(data))
    with pytest.raises(SaveFileError) as info:
        Game.load(path, delay=0, console=Scripted())
    assert message in str(info.value) and "\n" not in str(info.value)


def test_cli_usage_errors(tmp_path, capsys):
    for argv, msg in [
        (["play", "--seats", "human,wizard,heavy,keeper,random"], "unknown player 'wizard'"),
        (["play", "--seats", "human,heavy"], "--seats needs 5 comma-separated seats"),
        (["play", "--delay", "-1"], "must be a number of seconds"),
        (["play", "--rule", "pollo=x"], "rule option pollo_award must be a whole number"),
        (["play", "--load", "x.json", "--seats", "human,heavy,heavy,heavy,heavy"],
         "cannot be combined with --load"),
        (["play", "--load", str(tmp_path / "missing.json")], "cannot read save file"),
        (["play", "--load", bad_save(tmp_path, "c.json", '{"format": "domeng-pl')],
         "is corrupt: not valid JSON"),
        (["play", "--load", bad_save(tmp_path, "f.json", '{"hello": 1}')],
         "is not a domeng play save file"),
    ]:
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert msg in err and err.count("\n") == 1 and "Traceback" not in err, (argv, err)


# ---------------------------------------------------------------------------
# End to end through a pseudo-terminal
# ---------------------------------------------------------------------------

PROMPTS = [r"Your move \[[^\]]*\]: ", r"Press Enter[^\n]*: ", r"File name[^\n]*: ", pexpect.EOF]
GAME = ["--seed", "1", "--no-wait", "--rounds", "2", "--seats", ",".join(SEATS)]


def spawn(*args: str) -> pexpect.spawn:
    env = dict(os.environ, COLUMNS="80", LINES="24")
    return pexpect.spawn(sys.executable, ["-m", "domeng", "play", *args], cwd=str(ROOT),
                         env=env, encoding="utf-8", dimensions=(24, 80), timeout=30)


def screen_state(before: str) -> tuple[list[int], list[int]]:
    """(tiles in hand, tiles of the numbered moves) from the last board shown."""
    board = before[before.rindex("Your hand:"):]
    hand = [parse_tile(x) for x in re.findall(r"\[\d\|\d\]", board.splitlines()[0])]
    moves = [parse_tile(x) for x in re.findall(r"^\s+\d+\s+(\[\d\|\d\])", board, re.M)]
    return hand, moves


def drive(child: pexpect.spawn, answer=None) -> str:
    """Answer every prompt until the program ends (default: move 1, Enter)."""
    seen = []
    while True:
        i = child.expect(PROMPTS)
        seen.append(child.before + (child.after if isinstance(child.after, str) else ""))
        if i == 3:
            break
        a = answer(i, child) if answer else None
        child.sendline("1" if a is None and i == 0 else (a or ""))
    child.close()
    return "".join(seen).replace("\r\n", "\n")


@pytest.fixture(scope="module")
def full_game():
    """The whole 2-round game, with bad input of every kind on the way."""
    child = spawn(*GAME)
    refusals = []
    state = {"done": set()}

    def answer(i, ch):
        if i != 0:
            return None
        hand, moves = screen_state(ch.before)
        done = state["done"]
        if "junk" not in done:
            done.add("junk")
            tries = [("xyz", "Refused: cannot read 'xyz'"), ("9", "Refused: there is no move 9"),
                     ("0", "Refused: there is no move 0")]
            not_held = next(t for t in range(N_TILES) if t not in hand
                            and tile_str(t) not in ch.before.split("Chain:")[-1].split("\n")[0])
            tries.append((tile_str(not_held), f"Refused: you do not hold {tile_str(not_held)}"))
        else:
            tries = []
        illegal = [t for t in hand if t not in moves]
        kind = "lead" if "open the game with" in ch.before else "fit"
        if kind not in done and illegal:  # a tile in hand that is not a legal move
            done.add(kind)
            why = "must be opened with [6|6] (D3)" if kind == "lead" else "does not fit"
            tries.append((tile_str(illegal[0]) + " left", why))
        for text, expected in tries:
            ch.sendline(text)
            ch.expect(r"Refused: [^\n]*\n")
            refusals.append((text, ch.after.strip()))
            assert expected in ch.after, (text, ch.after)
            ch.expect(PROMPTS[0])
        return "1"

    transcript = drive(child, answer)
    return {"text": transcript, "status": child.exitstatus, "refusals": refusals,
            "done": state["done"]}


def test_pty_whole_game_with_bad_input(full_game):
    text = full_game["text"]
    assert full_game["status"] == 0
    assert full_game["done"] == {"junk", "lead", "fit"} and len(full_game["refusals"]) == 6
    print(*full_game["refusals"], sep="\n")
    assert "=== Round 1: seat 0 (you) starts and must lead [6|6] ===" in text
    assert "Round 1 over:" in text and "Round 2 over:" in text and "Game over after 2 rounds" in text
    assert "Standings after 2 rounds" in text and "Final ranking" in text
    for word in ("Chain:", "Open ends:", "Your moves:", "Table:", "CAMAT:", "stones"):
        assert word in text
    assert "Traceback" not in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_pty_quit_save_load_and_finish_identically(full_game, tmp_path):
    save = tmp_path / "saved.json"
    child = spawn(*GAME)
    n = {"moves": 0}

    def answer(i, ch):
        if i == 0:
            n["moves"] += 1
            return "quit" if n["moves"] == 4 else "1"
        if i == 2:
            return str(save)
        return None

    text = drive(child, answer)
    assert child.exitstatus == 0 and f"the game is saved in {save}" in text
    assert json.loads(save.read_text())["round"]["moves"]
    child = spawn("--load", str(save), "--no-wait")
    text = drive(child)
    assert child.exitstatus == 0
    assert "so far:" in text and "Game over after 2 rounds" in text
    final = full_game["text"][full_game["text"].index("Game over"):]
    assert final in text  # the same end as the game never interrupted


def test_pty_help_rules_hot_seat_and_eof(tmp_path):
    save = tmp_path / "auto.json"
    child = spawn("--seed", "2", "--no-wait", "--seats", "human,hunter,human,keeper,random",
                  "--save", str(save))
    child.expect(r"seat (\d) \(human\): your turn; the others look away")
    seat = int(child.match.group(1))
    child.expect("Press Enter to see your hand")
    assert "Your hand" not in child.before  # announced before any hand is shown
    child.sendline("help")
    child.expect("On your turn, type the number of a move")
    child.expect("Press Enter to see your hand")
    child.sendline("")
    child.expect(PROMPTS[0])
    assert f"seat {seat} (human) to play" in child.before
    child.sendline("rules")
    child.expect("DECISIONS")
    child.expect(r"This game: default rules\.")
    child.expect(PROMPTS[0])
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    tail = child.before.strip().splitlines()
    assert tail[-1].strip() == f"Goodbye: the game is saved in {save}."
    assert "Traceback" not in child.before
    assert json.loads(save.read_text())["seats"][seat] == "human"


def test_pty_ctrl_c_leaves_cleanly():
    child = spawn(*GAME)
    child.expect(PROMPTS[0])
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and child.signalstatus is None
    assert child.before.strip().splitlines()[-1].strip() == "Goodbye."
    assert "Traceback" not in child.before and "KeyboardInterrupt" not in child.before


def test_corrupt_save_file_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    r = subprocess.run([sys.executable, "-m", "domeng", "play", "--load", str(bad)],
                       cwd=ROOT, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "is corrupt: not valid JSON" in r.stderr
    assert r.stdout == ""
