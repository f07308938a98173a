"""``domeng play``: sit at a Domeng table in the terminal.

Any of the five seats can be a person (hot-seat: several people share one
terminal) or a computer player (any name :func:`domeng.players.registry.make_player`
knows: ``random``, ``heavy``, ``keeper``, ``hunter``, ...).  The game runs on
the reference engine (:mod:`domeng.engine.reference`): this module deals each round
with :meth:`Table.new_round` and drives every decision itself, exactly the
way :meth:`Table.play_round` does (same generator, same order of draws), so
a game is a function of its seed and of the people's choices.

What a person sees follows D17: the chain and its open ends, every seat's
tile count and stones, the table's stones, the CAMAT, every play and pass as
it happens, and only *their own* hand, on their own turn.

Saving (``--save FILE``, or ``quit`` and a file name) writes plain JSON:
rules, seats, seed, target, the table's state at the start of the current
round, the finished rounds' results, the current round's deal and the plays
made so far, and the generator's state after the last completed play or
pass.  Loading (``--load FILE``)
rebuilds the table, deals the round from the saved hands, replays the saved
plays (each is checked to be legal) and restores the generator, so the game
continues exactly as it would have without the interruption.

Entry points (the options are in :mod:`domeng.cli.play`):
:class:`Game` (the loop, with
injectable input/output for tests) and :func:`parse_move` (what a person
types -> a legal move).
"""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable, Sequence

from domeng.engine.reference import (
    CAPPU, CEKI, LEFT, MANGUNO, MATTIKKENG, POLLO, RIGHT, Move, Round, Table,
)
from domeng.core.errors import DomengError, PlayerError, TileError
from domeng.core.observation import N_SEATS
from domeng.core.rules import Rules
from domeng.core.tiles import is_double, numbers, other_end, parse_tile, tile_str

HUMAN = "human"
DEFAULT_SEATS = (HUMAN, "hunter", "keeper", "heavy", "random")
DEFAULT_DELAY = 0.6
SAVE_FORMAT = "domeng-play-save"
SAVE_VERSION = 2
WIDTH = 79  # every line fits an 80-column terminal


class SaveFileError(DomengError):
    """A save file that cannot be used: unreadable, corrupt, foreign or of
    another format version."""


class InputError(ValueError):
    """What a person typed is not a legal move now (the message says why)."""


class Quit(Exception):
    """The person typed ``quit``."""


# ---------------------------------------------------------------------------
# Reading a move
# ---------------------------------------------------------------------------

_END_WORDS = {"l": LEFT, "left": LEFT, "r": RIGHT, "right": RIGHT}
_END_RE = re.compile(r"^(?P<tile>.*?)\s*(?:\bon\s+)?(?:\bthe\s+)?"
                     r"(?P<end>left|right|l|r)(?:\s+end)?\s*$")


def _split_end(text: str) -> tuple[str, int | None]:
    """``"5-3 left"`` -> ``("5-3", LEFT)``; ``"[5|3]"`` -> ``("[5|3]", None)``."""
    m = _END_RE.match(text)
    if m and m.group("tile"):
        return m.group("tile"), _END_WORDS[m.group("end")]
    return text, None


def ends_after(move: Move, left: int | None, right: int | None) -> tuple[int, int]:
    """The open ends after ``move`` (a lead when ``left`` is None)."""
    if left is None:
        return numbers(move.tile)
    if move.end == LEFT:
        return other_end(move.tile, left), right  # type: ignore[arg-type]
    return left, other_end(move.tile, right)  # type: ignore[arg-type]


def parse_move(
    text: str,
    moves: Sequence[Move],
    hand: Sequence[int],
    left: int | None,
    right: int | None,
    must_lead: int | None = None,
    chain: Sequence[int] = (),
) -> Move:
    """What a person typed -> one of ``moves`` (the legal moves, in the
    numbered order shown), or :class:`InputError` with a short reason.

    Accepted: a move number (``2``); a tile, either order, with an optional
    end (``5-3 left``, ``[5|3] r``, ``53``, ``3-5 on the right``).  The end
    may be left out when the tile fits only one way.  ``53`` is the tile
    [5|3] unless there is a move number 53 (there never is).
    """
    s = " ".join(text.strip().lower().split())
    n = len(moves)
    choose = f"a move number 1-{n}" if n > 1 else "1 (the only move)"
    if not s:
        raise InputError(f"type {choose}, or a tile like 5-3 left (help for more)")
    if s.isdigit():
        k = int(s)
        if 1 <= k <= n:
            return moves[k - 1]
        if not (len(s) == 2 and all(c in "0123456" for c in s)):
            raise InputError(f"there is no move {k}: type {choose}")
    tile_text, end = _split_end(s)
    try:
        t = parse_tile(tile_text)
    except TileError:
        raise InputError(f"cannot read {text.strip()!r}: type {choose}, or a tile "
                         "like 5-3 left (help for more)") from None
    ts = tile_str(t)
    if t not in hand:
        if t in chain:
            raise InputError(f"{ts} is already on the chain; your tiles are listed above")
        raise InputError(f"you do not hold {ts}")
    fitting = [m for m in moves if m.tile == t]
    if not fitting:
        if left is None and must_lead is not None:
            raise InputError(f"the first round must be opened with {tile_str(must_lead)} (D3)")
        raise InputError(f"{ts} does not fit: the open ends are {left} and {right}")
    if left is None or len(fitting) == 1 and (end is None or left == right):
        return fitting[0]  # a lead, or a tile with one way to go
    if end is None:
        a, b = numbers(t)
        raise InputError(f"{ts} fits both ends: type {a}-{b} left or {a}-{b} right")
    for m in fitting:
        if m.end == end:
            return m
    other = fitting[0].end
    names = ("left", "right")
    num = left if end == LEFT else right
    raise InputError(f"{ts} does not fit the {names[end]} end ({num}); "
                     f"it goes on the {names[other]}")


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------


def chain_pairs(chain: Sequence[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """The chain from its left end to its right end, each tile oriented as it lies."""
    line: deque[tuple[int, int]] = deque()
    for _seat, t, end in chain:
        if not line:
            line.append(numbers(t))
        elif end == LEFT:
            n = line[0][0]
            line.appendleft((other_end(t, n), n))
        else:
            n = line[-1][1]
            line.append((n, other_end(t, n)))
    return list(line)


def _stones(n: int) -> str:
    return f"{n} stone{'' if n == 1 else 's'}"


def _sources(total: int, parts: list[str]) -> str:
    """``"2 stones from the table"`` or ``"3 stones: 2 from the table, 1 from seat 4"``."""
    if len(parts) == 1:
        return f"{_stones(total)} {parts[0].split(' ', 1)[1]}"
    return f"{_stones(total)}: {', '.join(parts)}"


_LABEL_RE = re.compile(r"seat \d \([^)]*\)")
_NBSP = "\u00a0"


def wrap(text: str, indent: str = "", sub: str | None = None) -> str:
    """``text`` wrapped to 79 columns, never inside a seat's name."""
    sub = indent + "    " if sub is None else sub
    text = _LABEL_RE.sub(lambda m: m.group(0).replace(" ", _NBSP), text)
    out = "\n".join(textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=sub,
                                  break_on_hyphens=False)) or indent.rstrip()
    return out.replace(_NBSP, " ")


HELP = """\
On your turn, type the number of a move from the list, or the tile itself:
5-3, [5|3] or 53, with left or right (or l / r) when it fits both ends,
e.g. 5-3 left.  A player with no tile that fits passes automatically.
Commands: help (this text), rules (the rules of Domeng), quit (leave; you
can save the game first).  Ctrl-D or Ctrl-C also leave.
Stones are penalties: a PASS earns {pass_award} (a PASSEBUNGE, before your
first play, {passebunge_award}); when someone plays out (FIRST CAPPU), the seat
before him (the CUCUQ) gets {cappu_award}, or {ceki_award} for a CEKI, or
{pollo_award} for a POLLO.  Stones come from the table while it has any, then
from the player who caused them.  Once the table is empty, a FIRST CAPPU who
holds no stones becomes CAMAT."""


# ---------------------------------------------------------------------------
# Input and output
# ---------------------------------------------------------------------------


class Console:
    """Plain terminal input and output (injectable for tests)."""

    def __init__(self, read: Callable[[], str] | None = None,
                 write: Callable[[str], Any] | None = None,
                 sleep: Callable[[float], Any] = time.sleep,
                 tty: bool | None = None) -> None:
        self._read = read if read is not None else input
        self._write = write
        self.sleep = sleep
        self.tty = sys.stdout.isatty() if tty is None else tty

    def write(self, text: str) -> None:
        if self._write is not None:
            self._write(text)
        else:
            sys.stdout.write(text)
            sys.stdout.flush()

    def say(self, text: str = "") -> None:
        self.write(text + "\n")

    def ask(self, prompt: str) -> str:
        """One line of input; EOFError at end of input."""
        self.write(prompt)
        return self._read()

    def clear(self) -> None:
        """Hide what is on the screen (between two people's turns)."""
        if self.tty:
            self.write("\033[2J\033[3J\033[H")
        else:
            self.say("\n" * 3)


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


class Game:
    """One game at the terminal: a :class:`Table` and five seats."""

    def __init__(self, seats: Sequence[str], *, rules: Rules | None = None, seed: int = 0,
                 rounds: int | None = None, camats: int | None = None,
                 delay: float = DEFAULT_DELAY, save_path: str | None = None,
                 console: Console | None = None) -> None:
        self.seats = [s.strip().lower() if s.strip().lower() == HUMAN else s.strip()
                      for s in seats]
        if len(self.seats) != N_SEATS:
            raise PlayerError(f"a table has 5 seats, got {len(self.seats)}")
        self.players = {i: make_computer(s) for i, s in enumerate(self.seats) if s != HUMAN}
        self.humans = [i for i, s in enumerate(self.seats) if s == HUMAN]
        self.rules = rules if rules is not None else Rules()
        self.seed = int(seed)
        if rounds is None and camats is None:
            camats = 1
        self.target_rounds = rounds
        self.target_camats = camats
        self.delay = max(0.0, float(delay))
        self.save_path = save_path
        self.io = console if console is not None else Console()
        self.table = Table(self.rules, seed=self.seed)
        self.results: list[dict[str, Any]] = []  # one per finished round
        self.round_events: list[list[dict]] = []  # each finished round's events (tests)
        self.round_start: dict[str, Any] = self._table_state()
        self.round_hands: list[list[int]] | None = None
        # the generator's state after the last completed action: what a save
        # records, so that leaving during a computer's pause (after it drew,
        # before it played) still resumes exactly
        self.rng_mark = self.table.rng_states()
        self.shown = 0  # events of the current round already printed

    # -- names ------------------------------------------------------------
    def label(self, seat: int) -> str:
        if self.seats[seat] == HUMAN:
            return f"seat {seat} (you)" if len(self.humans) == 1 else f"seat {seat} (human)"
        return f"seat {seat} ({self.seats[seat]})"

    def who(self, seat: int) -> str:
        if self.seats[seat] == HUMAN:
            return "you" if len(self.humans) == 1 else "human"
        return self.seats[seat]

    @property
    def rnd(self) -> Round | None:
        return self.table.round

    # -- state ------------------------------------------------------------
    def _table_state(self) -> dict[str, Any]:
        t = self.table
        return {"stones": list(t.stones), "table_stones": t.table_stones, "camat": t.camat,
                "next_starter": t.next_starter, "rounds_played": t.rounds_played}

    def camat_count(self) -> int:
        return sum(1 for r in self.results if r["camat"] is not None)

    def game_over(self) -> bool:
        if self.target_rounds is not None and self.table.rounds_played >= self.target_rounds:
            return True
        return self.target_camats is not None and self.camat_count() >= self.target_camats

    def target_text(self) -> str:
        parts = []
        if self.target_rounds is not None:
            parts.append(f"after {self.target_rounds} round{'s' if self.target_rounds != 1 else ''}")
        if self.target_camats is not None:
            k = self.target_camats
            parts.append("at the first CAMAT" if k == 1 else f"at the {k}th CAMAT"
                         if k > 3 else f"at the {('', '', '2nd', '3rd')[k]} CAMAT")
        return " or ".join(parts)

    # -- saving -----------------------------------------------------------
    def to_save(self) -> dict[str, Any]:
        """The game as plain JSON data (see the module docstring)."""
        in_round = self.rnd is not None and not self.rnd.ended and self.round_hands is not None
        data: dict[str, Any] = {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "rules": self.rules.to_dict(),
            "seats": list(self.seats),
            "seed": self.seed,
            "target": {"rounds": self.target_rounds, "camats": self.target_camats},
            "table": self.round_start if in_round else self._table_state(),
            "results": list(self.results),
            "round": None,
            "rng_state": self.rng_mark,
        }
        if in_round:
            data["round"] = {
                "hands": [[tile_str(t) for t in h] for h in self.round_hands],  # type: ignore
                "moves": [[s, tile_str(t), ("left", "right")[e]]
                          for s, t, e in self.rnd.chain],  # type: ignore[union-attr]
            }
        return data

    def save(self, path: str) -> None:
        p = Path(path)
        tmp = p.with_name(f".{p.name}.tmp{os.getpid()}")
        try:
            data = self.to_save()
            tmp.write_text("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}"
                                              for k, v in data.items()) + "\n}\n")
            os.replace(tmp, p)
        finally:
            if tmp.exists():
                tmp.unlink()

    @classmethod
    def from_save(cls, data: Any, *, source: str = "the save file", rounds: int | None = None,
                  camats: int | None = None, **kwargs) -> "Game":
        """Rebuild a saved game; :class:`SaveFileError` if the data is not a
        usable save of this version."""
        if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
            raise SaveFileError(f"{source} is not a domeng play save file")
        if data.get("version") != SAVE_VERSION:
            raise SaveFileError(f"{source} is a save of format version {data.get('version')!r}; "
                                f"this domeng reads version {SAVE_VERSION}")
        try:
            return cls._restore(data, rounds=rounds, camats=camats, **kwargs)
        except SaveFileError:
            raise
        except (DomengError, KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            why = " ".join(str(e).split()) or type(e).__name__
            if isinstance(e, KeyError):
                why = f"missing {why}"
            raise SaveFileError(f"{source} is corrupt: {why}") from None

    @classmethod
    def _restore(cls, data: dict, *, rounds, camats, **kwargs) -> "Game":
        rules = Rules.from_mapping(_dict(data["rules"], "rules"))
        seats = data["seats"]
        if not (isinstance(seats, list) and all(isinstance(s, str) for s in seats)):
            raise ValueError("seats must be a list of 5 names")
        seed = _int(data["seed"], "seed", 0, 2**64 - 1)
        target = _dict(data["target"], "target")
        t_rounds = _opt_int(target.get("rounds"), "target rounds", 1)
        t_camats = _opt_int(target.get("camats"), "target camats", 1)
        if rounds is not None or camats is not None:
            t_rounds, t_camats = rounds, camats
        game = cls(seats, rules=rules, seed=seed, rounds=t_rounds, camats=t_camats, **kwargs)
        t = game.table
        st = _dict(data["table"], "table")
        stones = st["stones"]
        if not (isinstance(stones, list) and len(stones) == N_SEATS):
            raise ValueError("table stones must list 5 seats")
        t.stones = [_int(x, "stones", 0) for x in stones]
        t.table_stones = _int(st["table_stones"], "table_stones", 0)
        if t.total_stones() != rules.stones:
            raise ValueError(f"the stones add up to {t.total_stones()}, not {rules.stones}")
        t.camat = _opt_int(st["camat"], "camat", 0, N_SEATS - 1)
        t.next_starter = _opt_int(st["next_starter"], "next_starter", 0, N_SEATS - 1)
        t.rounds_played = _int(st["rounds_played"], "rounds_played", 0)
        if (t.next_starter is None) != (t.rounds_played == 0):
            raise ValueError("next_starter and rounds_played disagree")
        results = data["results"]
        if not isinstance(results, list) or len(results) != t.rounds_played:
            raise ValueError("results must list every round played")
        for r in results:
            r = _dict(r, "result")
            _int(r["winner"], "winner", 0, N_SEATS - 1)
            _opt_int(r["camat"], "camat", 0, N_SEATS - 1)
            if r["kind"] not in (CAPPU, CEKI, POLLO, MANGUNO, MATTIKKENG):
                raise ValueError(f"unknown round end {r['kind']!r}")
        game.results = [dict(r) for r in results]
        game.round_start = game._table_state()
        rnd_data = data["round"]
        if rnd_data is not None:
            rnd_data = _dict(rnd_data, "round")
            hands = [[parse_tile(x) for x in h] for h in rnd_data["hands"]]
            game._begin_round(hands)
            rnd = game.rnd
            assert rnd is not None
            for item in rnd_data["moves"]:
                seat, tile, end = item
                rnd.advance()
                if rnd.ended:
                    raise ValueError("the saved round ends before its last move")
                if seat != rnd.to_move:
                    raise ValueError(f"move {item} is out of turn (seat {rnd.to_move} was to move)")
                mv = Move(parse_tile(tile), {"left": LEFT, "right": RIGHT}[end])
                rnd.play(mv)  # IllegalMoveError if the saved move is not legal
            if rnd.ended:
                raise ValueError("the saved round has already ended")
        states = data["rng_state"]
        if not (isinstance(states, list) and len(states) == 6):
            raise ValueError("rng_state must list 6 generator states (the deal and each seat)")
        t.set_rng_states([_int(v, "rng_state", 0, 2**64 - 1) for v in states])
        game.rng_mark = t.rng_states()
        return game

    @classmethod
    def load(cls, path: str, **kwargs) -> "Game":
        try:
            text = Path(path).read_text()
        except (OSError, UnicodeDecodeError) as e:
            why = getattr(e, "strerror", None) or " ".join(str(e).split())
            raise SaveFileError(f"cannot read save file {path!r}: {why}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise SaveFileError(f"save file {path!r} is corrupt: not valid JSON ({e.msg}, "
                                f"line {e.lineno})") from None
        return cls.from_save(data, source=f"save file {path!r}", **kwargs)

    # -- the loop -----------------------------------------------------------
    def _begin_round(self, hands: list[list[int]] | None = None) -> Round:
        self.round_start = self._table_state()
        rnd = self.table.new_round(hands)
        self.round_hands = [sorted(h) for h in rnd.hands]
        self.rng_mark = self.table.rng_states()
        self.shown = 0
        return rnd

    def run(self) -> int:
        """Play until the game is over or a person leaves; returns the exit status."""
        try:
            try:
                self._intro()
                self._loop()
            except Quit:
                self._quit()
                return 0
        except (EOFError, KeyboardInterrupt):
            self._leave()
            return 0
        return 0

    def _loop(self) -> None:
        resumed_mid_round = self.rnd is not None and not self.rnd.ended
        first = True
        while True:
            if not resumed_mid_round or not first:
                if self.game_over():
                    self._final()
                    if self.save_path:
                        self._autosave()
                    return
                if not first and self.humans:
                    self._between_rounds()
                self._begin_round()
            first = False
            self._play_round()
            self._round_summary()
            if self.save_path:
                self._autosave()

    def _intro(self) -> None:
        io = self.io
        io.say("Domeng: five players, double-six set, 5 tiles each, 3 out of play.")
        seats = ", ".join(f"{i} {self.who(i)}" for i in range(N_SEATS))
        # the seed is shown only when the game is over: with it (and the
        # engine) a person could recompute the deals (D17)
        io.say(wrap(f"Seats: {seats}.  "
                    f"Rules: {str(self.rules).replace(' rules', '')}."))
        if self.table.rounds_played:
            io.say(f"Resumed after {self.table.rounds_played} round"
                   f"{'s' if self.table.rounds_played != 1 else ''}.")
            self._standings()
        elif self.rnd is not None:
            io.say("Resumed in round 1.")
        io.say(f"The game ends {self.target_text()}.  Type help at any prompt.")
        if self.rnd is not None and not self.rnd.ended and self.rnd.chain:
            io.say(f"Round {self.rnd.number} so far:")
            self._show_new_events()

    def _play_round(self) -> None:
        rnd = self.rnd
        assert rnd is not None
        self._show_new_events()
        while not rnd.ended:
            moves = rnd.legal_moves()
            seat = rnd.to_move
            if not moves:
                self._pause()
                rnd.pass_turn()
                self._show_new_events()
                continue
            if seat in self.players:
                move = self.players[seat].choose(rnd.observation(seat), moves,
                                                 self.table.seat_rngs[seat])
                if move not in moves:
                    raise PlayerError(f"player {self.seats[seat]} at seat {seat} chose an "
                                      f"illegal move {move!r}")
                self._pause()
            else:
                move = self._ask_move(seat, moves)
            rnd.play(move)
            self.rng_mark = self.table.rng_states()
            if seat not in self.players and len(self.humans) > 1:
                self.io.clear()  # hide this person's hand from the next one
            self._show_new_events()

    def _pause(self) -> None:
        if self.delay > 0:
            self.io.sleep(self.delay)

    # -- people -----------------------------------------------------------------
    def _ask_move(self, seat: int, moves: list[Move]) -> Move:
        rnd = self.rnd
        assert rnd is not None
        io = self.io
        if len(self.humans) > 1:
            io.say("")
            io.say(f"=== {self.label(seat)}: your turn; the others look away please ===")
            while True:
                ans = io.ask("Press Enter to see your hand (or help, rules, quit): ")
                if not self._command(ans.strip().lower()):
                    break
        self._board(seat, moves)
        hand = sorted(rnd.hands[seat])
        prompt = f"Your move [1-{len(moves)}, tile, help, quit]: " if len(moves) > 1 \
            else "Your move [1, tile, help, quit]: "
        while True:
            text = io.ask(prompt)
            cmd = text.strip().lower()
            if self._command(cmd):
                self._board(seat, moves)  # the board again, below the text just shown
                continue
            try:
                return parse_move(text, moves, hand, rnd.left, rnd.right,
                                  must_lead=rnd.must_lead, chain=[t for _, t, _ in rnd.chain])
            except InputError as e:
                io.say(wrap(f"Refused: {e}.", "  ", "    "))

    def _command(self, cmd: str) -> bool:
        """Handle help, rules and quit; True if ``cmd`` was one of them."""
        io = self.io
        if cmd in ("help", "h", "?"):
            io.say(HELP.format(**self.rules.to_dict()))
            return True
        if cmd in ("rules", "rule"):
            from domeng.core.ruletext import rules_text

            io.write(rules_text(WIDTH - 1))
            io.say(f"This game: {self.rules}.")
            return True
        if cmd in ("quit", "q", "exit"):
            raise Quit()
        return False

    def _between_rounds(self) -> None:
        nxt = self.table.rounds_played + 1
        while True:
            ans = self.io.ask(f"Press Enter for round {nxt} (or help, rules, quit): ")
            if not self._command(ans.strip().lower()):
                return

    def _quit(self) -> None:
        io = self.io
        if self.save_path:
            self._save_or_say(self.save_path)
            io.say(f"Goodbye: the game is saved in {self.save_path}.")
            return
        while True:
            try:
                name = io.ask("Save the game? File name (Enter: don't save): ").strip()
            except (EOFError, KeyboardInterrupt):
                io.say("")
                name = ""
            if not name:
                io.say("Goodbye.")
                return
            if self._save_or_say(name):
                io.say(f"Goodbye: the game is saved in {name} (resume with --load {name}).")
                return

    def _leave(self) -> None:
        """End of input or Ctrl-C: one line, saving first when --save was given."""
        if self.save_path and self._save_or_say(self.save_path, quiet=True):
            self.io.say(f"\nGoodbye: the game is saved in {self.save_path}.")
        else:
            self.io.say("\nGoodbye.")

    def _save_or_say(self, path: str, quiet: bool = False) -> bool:
        try:
            self.save(path)
            return True
        except OSError as e:
            if not quiet:
                self.io.say(f"  Cannot save to {path}: {e.strerror or e}.")
            return False

    def _autosave(self) -> None:
        self._save_or_say(self.save_path)  # type: ignore[arg-type]

    # -- showing the game ---------------------------------------------------------
    def _board(self, seat: int, moves: list[Move]) -> None:
        rnd = self.rnd
        assert rnd is not None
        t = self.table
        io = self.io
        io.say("-" * WIDTH)
        camat = self.label(t.camat) if t.camat is not None else "none yet"
        io.say(f"Round {rnd.number}, {self.label(seat)} to play.  Table: {_stones(t.table_stones)}."
               f"  CAMAT: {camat}.")
        for s in range(N_SEATS):
            notes = []
            if s == t.camat:
                notes.append("CAMAT")
            if s == rnd.starter:
                notes.append("started")
            if s == rnd.last_mappano:
                notes.append("LAST MAPPANO")
            io.say((f"  {'>' if s == seat else ' '} seat {s}  {self.who(s):<8} "
                   f"{len(rnd.hands[s])} tile{' ' if len(rnd.hands[s]) == 1 else 's'}  "
                   f"{t.stones[s]:>2} stone{' ' if t.stones[s] == 1 else 's'}  "
                   + ", ".join(notes)).rstrip())
        if rnd.left is None:
            io.say("Chain: empty: you lead." if rnd.must_lead is None else
                   f"Chain: empty: you open the game with {tile_str(rnd.must_lead)} (D3).")
        else:
            pairs = [f"[{a}|{b}]" for a, b in chain_pairs(rnd.chain)]
            lines = ["".join(pairs[i:i + 14]) for i in range(0, len(pairs), 14)]
            io.say("Chain: " + lines[0])
            for ln in lines[1:]:
                io.say("       " + ln)
            io.say(f"Open ends: {rnd.left} on the left, {rnd.right} on the right.")
        hand = sorted(rnd.hands[seat])
        io.say(f"Your hand: {' '.join(tile_str(x) for x in hand)}   "
               f"(pip sum {sum(sum(numbers(x)) for x in hand)})")
        self._moves_list(moves)

    def _moves_list(self, moves: list[Move]) -> None:
        rnd = self.rnd
        assert rnd is not None
        io = self.io
        io.say("Your moves:")
        last = len(rnd.hands[rnd.to_move]) == 1
        for i, m in enumerate(moves, 1):
            a, b = ends_after(m, rnd.left, rnd.right)
            if rnd.left is None:
                where = "lead"
            elif rnd.left == rnd.right:
                where = "on either end"
            else:
                where = f"on the {('left', 'right')[m.end]}"
            note = ""
            if rnd.left is not None and a == b:
                note = "MAPPAKULING"
                if last:
                    note = "POLLO!" if is_double(m.tile) else "CEKI!"
            elif last:
                note = "FIRST CAPPU!"
            io.say(f"  {i:>2}  {tile_str(m.tile)} {where:<13} -> ends {a} | {b}  {note}".rstrip())

    def _show_new_events(self) -> None:
        rnd = self.rnd
        assert rnd is not None
        for line in self.render(rnd.events[self.shown:]):
            self.io.say(line)
        self.shown = len(rnd.events)

    def render(self, events: Sequence[dict[str, Any]]) -> list[str]:
        """Events in the game's terms, with the stones each one moved (at
        most 79 columns a line).  Never shows a hand (D17)."""
        L = self.label
        out: list[str] = []
        i = 0

        def awards(reason_set) -> tuple[list[str], list[tuple[int, int]], int]:
            nonlocal i
            parts: list[str] = []
            got: list[tuple[int, int]] = []
            unpaid = 0
            while i < len(events) and events[i]["type"] in ("transfer", "unpaid") \
                    and events[i]["reason"] in reason_set:
                ev = events[i]
                if ev["type"] == "transfer":
                    src = "the table" if ev["source"] == "table" else L(ev["source"])
                    parts.append(f"{ev['amount']} from {src}")
                    got.append((ev["to"], ev["amount"]))
                else:
                    unpaid += ev["amount"]
                i += 1
            return parts, got, unpaid

        while i < len(events):
            ev = events[i]
            typ = ev["type"]
            i += 1
            if typ == "deal":
                out.append("")
                out.append(f"=== Round {ev['round']}: {L(ev['starter'])} starts"
                           + (f" and must lead {tile_str(ev['must_lead'])} ===" if
                              ev.get("must_lead") is not None else " ==="))
            elif typ == "lead":
                out.append(wrap(f"{L(ev['seat'])} leads {tile_str(ev['tile'])}"
                                f"   ends {ev['left']} | {ev['right']}"))
            elif typ == "play":
                extra = "   MAPPAKULING" if ev.get("mappakuling") else ""
                out.append(wrap(f"{L(ev['seat'])} plays {tile_str(ev['tile'])} on the {ev['end']}"
                                f"   ends {ev['left']} | {ev['right']}{extra}"))
            elif typ == "pass":
                term = "PASSEBUNGE" if ev["passebunge"] else "PASS"
                parts, got, unpaid = awards({"PASS", "PASSEBUNGE"})
                total = sum(a for _, a in got)
                nums = (f"no {ev['left']}" if ev["left"] == ev["right"]
                        else f"no {ev['left']} or {ev['right']}")
                if total:
                    moved = f"gets {_sources(total, parts)}"
                else:
                    moved = "no stones left to give"
                if unpaid:
                    moved += f"; {unpaid} could not be paid"
                out.append(wrap(f"{L(ev['seat'])} has {nums}: {term}, {moved}"))
            elif typ == "block":
                out.append(wrap(f"{L(ev['seat'])} cannot play either: the round is blocked "
                                f"at {ev['left']} | {ev['right']}"))
            elif typ == "end":
                k = ev["kind"]
                sums = ev["pip_sums"]
                if k in (CAPPU, CEKI, POLLO):
                    how = {CAPPU: "", CEKI: " by CEKI", POLLO: " by POLLO"}[k]
                    out.append(wrap(f"*** {L(ev['winner'])} is FIRST CAPPU{how} and wins the "
                                    f"round; CUCUQ is {L(ev['cucuq'])}"))
                elif k == MANGUNO:
                    m = ev["manguno"]
                    out.append(wrap(f"*** {L(m)} is MANGUNO (pip sum {sums[m]}) and wins: nobody "
                                    f"else has {sums[m]} or less, no MATTIKKENG; CUCUQ is "
                                    f"{L(ev['cucuq'])}"))
                else:
                    m = ev["manguno"]
                    matt = ", ".join(L(s) for s in ev["mattikkeng"])
                    out.append(wrap(f"*** {L(m)} is MANGUNO (pip sum {sums[m]}); MATTIKKENG: "
                                    f"{matt}; {L(ev['winner'])} wins the round"))
                if k in (MANGUNO, MATTIKKENG):
                    out.append(wrap("Pip sums: " + ", ".join(f"seat {s} {v}"
                                                            for s, v in enumerate(sums)), "    "))
                parts, got, unpaid = awards({k})
                total = sum(a for _, a in got)
                due = {CAPPU: self.rules.cappu_award, CEKI: self.rules.ceki_award,
                       POLLO: self.rules.pollo_award, MANGUNO: self.rules.manguno_award}.get(k)
                if k == MATTIKKENG:
                    reduced = len(ev["mattikkeng"]) >= 2 or sums[ev["mattikkeng"][0]] == sums[m]
                    due = (self.rules.mattikkeng_reduced_award if reduced
                           else self.rules.mattikkeng_award)
                dest = ev["manguno"] if k == MATTIKKENG else ev["cucuq"]
                line = f"    {k}: {L(dest)} gets "
                if total:
                    line += f"{_sources(total, parts)} (up to {due})"
                    if unpaid:
                        line += f"; {unpaid} more could not be paid"
                else:
                    line += f"nothing (up to {due}): nobody has a stone to give"
                out.append(wrap(line, "", "      "))
            elif typ == "camat":
                out.append(wrap(f"*** {L(ev['seat'])} becomes CAMAT: the table was empty and "
                                f"they hold no stones.  All {ev['table_stones']} stones return to "
                                "the table; the CAMAT starts every round from now on."))
            elif typ in ("transfer", "unpaid"):  # not after its event: show it plainly
                if typ == "transfer":
                    src = "the table" if ev["source"] == "table" else L(ev["source"])
                    out.append(wrap(f"    {ev['reason']}: {L(ev['to'])} gets "
                                    f"{_stones(ev['amount'])} from {src}"))
                else:
                    out.append(wrap(f"    {ev['reason']}: {ev['amount']} owed to {L(ev['to'])} "
                                    "could not be paid"))
            else:  # pragma: no cover
                out.append(str(ev))
        return out

    def _round_summary(self) -> None:
        rnd = self.rnd
        assert rnd is not None and rnd.result is not None
        res = rnd.result
        self.round_events.append(list(rnd.events))
        self.results.append({"round": rnd.number, "kind": res.kind, "winner": res.winner,
                             "camat": res.camat})
        io = self.io
        net = [0] * N_SEATS
        table = 0
        for tr in res.transfers:
            net[tr.dest] += tr.amount
            if tr.source >= 0:
                net[tr.source] -= tr.amount
            else:
                table -= tr.amount
        moved = ", ".join(f"seat {s} {'+' if v > 0 else ''}{v}" for s, v in enumerate(net) if v)
        io.say("")
        io.say(f"Round {rnd.number} over: {self.label(res.winner)} wins ({res.kind}).  "
               f"{res.tiles_played} tiles played, {res.passes} pass{'' if res.passes == 1 else 'es'}.")
        camat = (f"  Then {self.label(res.camat)} became CAMAT and every stone went back "
                 "to the table." if res.camat is not None else "")
        io.say(wrap(f"Stones this round: {moved or 'none moved'}"
                    + (f"; table {table:+d}" if table else "") + "." + camat))
        self._standings()
        if not self.game_over():
            nxt = self.table.next_starter
            why = "the CAMAT" if self.table.camat is not None else "the winner"
            io.say(f"Round {self.table.rounds_played + 1} will be started by "
                   f"{self.label(nxt)} ({why}).")  # type: ignore[arg-type]

    def _standings(self) -> None:
        t = self.table
        io = self.io
        wins = [0] * N_SEATS
        camats = [0] * N_SEATS
        for r in self.results:
            wins[r["winner"]] += 1
            if r["camat"] is not None:
                camats[r["camat"]] += 1
        io.say(f"Standings after {t.rounds_played} round{'s' if t.rounds_played != 1 else ''}"
               f" (stones are penalties: fewer is better):")
        io.say("  seat  player    stones  rounds won  CAMAT")
        for s in range(N_SEATS):
            mark = "  <- CAMAT now" if s == t.camat else ""
            io.say(f"  {s:>4}  {self.who(s):<8}  {t.stones[s]:>6}  {wins[s]:>10}  {camats[s]:>5}"
                   f"{mark}")
        io.say(f"  table             {t.table_stones:>2}")

    def _final(self) -> None:
        t = self.table
        io = self.io
        wins = [sum(1 for r in self.results if r["winner"] == s) for s in range(N_SEATS)]
        camats = [sum(1 for r in self.results if r["camat"] == s) for s in range(N_SEATS)]
        order = sorted(range(N_SEATS), key=lambda s: (-camats[s], t.stones[s], -wins[s], s))
        io.say("")
        io.say("=" * WIDTH)
        io.say(f"Game over after {t.rounds_played} round{'s' if t.rounds_played != 1 else ''}"
               f" (the game ends {self.target_text()}).")
        io.say("Final ranking (most CAMATs, then fewest stones, then most rounds won):")
        for place, s in enumerate(order, 1):
            io.say(f"  {place}. {self.label(s):<18} CAMAT {camats[s]}  stones {t.stones[s]:>2}"
                   f"  rounds won {wins[s]}")
        io.say(wrap(f"This game's seed was {self.seed}: `domeng play --seed {self.seed}` with "
                    "the same seats deals the same tiles again."))
        io.say("Thanks for playing.")


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def make_computer(name: str):
    from domeng.players.registry import make_player

    player = make_player(name)
    if getattr(player, "omniscient", False):
        raise PlayerError(f"{name} is a research player that sees every hand (D17): it cannot "
                          "sit at a game")
    return player


def _dict(x: Any, what: str) -> dict:
    if not isinstance(x, dict):
        raise ValueError(f"{what} must be an object")
    return x


def _int(x: Any, what: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise ValueError(f"{what} must be a whole number, got {x!r}")
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        raise ValueError(f"{what} out of range: {x}")
    return x


def _opt_int(x: Any, what: str, lo: int | None = None, hi: int | None = None) -> int | None:
    return None if x is None else _int(x, what, lo, hi)


def parse_seats(text: str) -> list[str]:
    """Five seats from ``"human,hunter,heavy,keeper,random"``: ``human`` for a
    person, else a computer player's name."""
    items = [s.strip() for s in text.split(",")]
    if len(items) != N_SEATS or not all(items):
        raise PlayerError(f"--seats needs 5 comma-separated seats, seat 0 first, e.g. "
                          f"{','.join(DEFAULT_SEATS)}; got {len(items)}")
    out = []
    for s in items:
        if s.lower() in (HUMAN, "you", "person"):
            out.append(HUMAN)
        else:
            make_computer(s)  # PlayerError for an unknown name
            out.append(s.lower() if ":" not in s else s)
    return out
