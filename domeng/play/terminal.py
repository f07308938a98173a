"""``domeng play``: sit at a Domeng table in the terminal.

The front end of a :class:`~domeng.play.session.Session` (which holds the
game, the seats and the save format): it draws one screen that stays in
place (:mod:`domeng.play.screen`, with ``rich``), reads what people type
(:mod:`domeng.play.typed`), paces the computer players, and saves
(:mod:`domeng.play.savefile`): after every step when a file was given or
loaded, with ``save`` at any prompt, and on leaving (``quit``, Ctrl-C,
Ctrl-D offer to save).  Typed input never crashes the game; an unexpected
error saves the game first and says where, in one line.

What a person sees follows D17: the chain, every seat's tile count and
stones, the table, the CAMAT, the round's public events, and only their own
hand (in hot-seat play, only on their own turn, after the others looked
away).  The seed is shown when the game is over.
"""

from __future__ import annotations

import os
import shlex
import sys
import textwrap
import time
from collections.abc import Callable
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from rich.console import Console
from rich.text import Text

from domeng.core.defaults import DEFAULT_DELAY
from domeng.core.errors import DomengError
from domeng.core.events import Lead, Play, for_seat
from domeng.core.glossary import glossary_text
from domeng.core.ruletext import rules_text
from domeng.core.tiles import tile_str
from domeng.play import screen
from domeng.play.savefile import check_writable, key_path, write_save
from domeng.play.session import SaveFileError, Session
from domeng.play.typed import InputError, clean, parse_move

#: the ``help`` text: (first-line indent, paragraph) pairs, each paragraph
#: wrapped to the terminal's width (:func:`help_lines`)
HELP = (
    (
        "",
        "On your turn type the number of a move, or the tile itself: 5-3, [5|3] or 53, with "
        "left or right (l / r) when it fits both ends, e.g. 5-3 left.  Enter plays the only "
        "move when there is just one; a seat with no tile that fits passes by itself.",
    ),
    ("", "Commands at any prompt:"),
    ("  help           ", "this text"),
    ("  rules          ", "the rules of Domeng and this game's options"),
    ("  glossary       ", "the game's words (FIRST CAPPU, CEKI, CUCUQ, ...) explained"),
    ("  name NAME      ", "your name at this table (on your turn; at most 24 characters)"),
    (
        "  save [FILE]    ",
        "save the game (to FILE, or to the file it is saved in); from then "
        "on it is saved after every move",
    ),
    ("  quit           ", "leave (you can save first); Ctrl-C and Ctrl-D also leave"),
    (
        "",
        "Stones are penalties: fewer is better.  A PASS earns {pass_award} (a PASSEBUNGE, "
        "before your first play, {passebunge_award}); when someone plays out (FIRST CAPPU) "
        "the seat before them (the CUCUQ) gets {cappu_award}, or {ceki_award} for a CEKI, "
        "{pollo_award} for a POLLO.  Stones come from the table while it has any, then from "
        "the player who caused them.  Once the table is empty, a FIRST CAPPU who holds no "
        "stones becomes CAMAT: every stone returns to the table.",
    ),
)


def help_lines(rules: dict[str, Any], width: int) -> list[str]:
    """The ``help`` text with this game's awards, wrapped to ``width`` columns."""
    out: list[str] = []
    for head, text in HELP:
        out += textwrap.wrap(
            text.format(**rules),
            max(30, width),
            initial_indent=head,
            subsequent_indent=" " * len(head),
            break_on_hyphens=False,
        )
    return out


#: hot-seat (D17): each person's private view is drawn on the terminal's
#: alternate screen, which keeps no scrollback, and leaving it clears the
#: screen and the scrollback first (for a terminal without an alternate
#: screen, where the view was drawn on the main one); the next person can
#: scroll back to nothing of it
PRIVATE_ON = "\x1b[?1049h\x1b[H\x1b[2J"
PRIVATE_OFF = "\x1b[H\x1b[2J\x1b[3J\x1b[?1049l"

_NO = ("n", "no", "none", "nothing", "don't", "dont")
_LEAK_WARNING = (
    "Warning: a save file holds the game's seed, so whoever reads it can work out "
    "every hand, yours included.  With two or more people at this table, keep it "
    "where only you can read it."
)


class Quit(Exception):
    """The person typed ``quit``."""


class Terminal:
    """The terminal game over one session; ``read``, ``console`` and
    ``sleep`` are injectable for tests."""

    def __init__(
        self,
        session: Session,
        *,
        delay: float = DEFAULT_DELAY,
        save_path: str | None = None,
        console: Console | None = None,
        read: Callable[[str], str] | None = None,
        sleep: Callable[[float], Any] = time.sleep,
    ) -> None:
        self.s = session
        self.delay = max(0.0, float(delay))
        self.save_path = save_path
        self.con = console if console is not None else Console(highlight=False)
        self._read = read if read is not None else input
        self.sleep = sleep
        self.message = ""  # one line under the table (a refusal, a saved game)
        self.warned = False
        self.thought: set[str] = set()  # search players that have moved (compiled)

    # -- names -------------------------------------------------------------------
    def label(self, seat: int) -> str:
        """``seat 2 (Ana)``: the session's name of the seat, as the browser
        table labels it: ``seat 0 (you)`` for the one person at the table,
        named or not, as the browser shows a person's own seat; in hot-seat
        play the screen is everyone's, so each seat has its name there (an
        unnamed person is ``person``, as the browser shows a spectator)."""
        return self.s.label(seat, seat if self.s.humans == [seat] else None)

    def target_text(self) -> str:
        parts = []
        r, k = self.s.target_rounds, self.s.target_camats
        if r is not None:
            parts.append(f"after {r} round{'s' if r != 1 else ''}")
        if k is not None:
            parts.append("at the first CAMAT" if k == 1 else f"at CAMAT number {k}")
        return " or ".join(parts)

    # -- output ------------------------------------------------------------------
    @property
    def width(self) -> int:
        return max(40, min(self.con.width, 100))

    def show(self, lines: list[Text], clear: bool = True) -> None:
        if clear:
            self.con.clear()
        for ln in lines:
            self.con.print(ln, overflow="crop", no_wrap=True, soft_wrap=False)

    def say(self, text: str, style: str = "") -> None:
        for ln in screen.wrap(text, self.width):
            self.con.print(Text(ln, style=style), soft_wrap=False)

    def line(self, text: str) -> None:
        """One unbroken line (it may name a file: the terminal wraps it)."""
        self.con.print(Text(text), soft_wrap=True)

    def ask(self, prompt: str) -> str:
        """One line; EOFError / KeyboardInterrupt pass through."""
        self.con.print(Text(prompt, style="bold cyan"), end="")
        self.con.file.flush()
        return self._read("")

    def draw(self, seat: int | None, moves=(), show_hand: bool = True) -> None:
        view = self.s.view(seat)
        height = max(20, self.con.height)
        self.show(
            screen.table_screen(
                self.s,
                view,
                self.label,
                self.target_text(),
                (self.width, height - 1),
                moves,
                self.message,
                show_hand,
            )
        )
        self.message = ""

    def viewer(self) -> int | None:
        """Whose screen it is between people's turns: the only person, or nobody."""
        humans = self.s.humans
        return humans[0] if len(humans) == 1 else None

    # -- the game ------------------------------------------------------------------
    def run(self) -> int:
        """Play until the game is over or a person leaves; the exit status."""
        try:
            try:
                self._intro()
                self._loop()
            except Quit:
                self._leave()
            except (EOFError, KeyboardInterrupt):
                self.con.print()
                self._leave()
        except (EOFError, KeyboardInterrupt):
            self.say("Goodbye.")
        except Exception as e:
            return self._rescue(e)
        return 0

    def _intro(self) -> None:
        if self.save_path:
            self._warn_leak()
            self._autosave()

    def _loop(self) -> None:
        s = self.s
        first = True
        while True:
            if s.round_over:
                if s.game_over:
                    self._final()
                    return
                if not first:
                    self._round_end()
                if not first and s.humans:
                    self._prompt_between_rounds()
                s.deal()
                self._autosave()
            first = False
            self._play_round()

    def _play_round(self) -> None:
        s = self.s
        while not s.round_over:
            if s.human_to_move():
                self._human_turn()
            else:
                seat = s.to_move
                assert seat is not None  # a round is on
                slow = not s.is_builtin(seat) and s.seats[seat] not in self.thought
                if slow:  # a search player (any of the family) compiles on its first move
                    self.thought.add(s.seats[seat])
                    self.message = (
                        f"{self.label(seat)} is thinking (its first move also "
                        "prepares the search player: up to a minute)..."
                    )
                if self.delay > 0 or slow:
                    self.draw(self.viewer())
                if self.delay > 0:
                    self.sleep(self.delay)
                s.auto_step()
            self._autosave()

    def _human_turn(self) -> None:
        s = self.s
        seat = s.to_move
        assert seat is not None
        if len(s.humans) > 1:
            while True:
                self.draw(None)
                self.say(
                    f"=== {self.label(seat)}: your turn; the others look away please ===",
                    "bold yellow",
                )
                ans = self.ask("Press Enter to see your hand (or help, rules, save, quit): ")
                if not self._command(ans):
                    break
        with self._private():
            self._choose(seat)

    @contextmanager
    def _private(self):
        """A person's private view: in hot-seat play on a terminal, between
        :data:`PRIVATE_ON` and :data:`PRIVATE_OFF` (also when they leave or
        an error ends the game); with one person, the screen as it is."""
        hide = len(self.s.humans) > 1 and self.con.is_terminal and not self.con.is_dumb_terminal
        if hide:
            self._raw(PRIVATE_ON)
        try:
            yield
        finally:
            if hide:
                self._raw(PRIVATE_OFF)

    def _raw(self, seq: str) -> None:
        self.con.file.write(seq)
        self.con.file.flush()

    def _choose(self, seat: int) -> None:
        s = self.s
        moves = s.moves()
        view = s.view(seat)
        while True:
            self.draw(seat, moves)
            if len(moves) == 1:
                prompt = f"Your move [Enter: {tile_str(moves[0].tile)}, tile, help, quit]: "
            else:
                prompt = f"Your move [1-{len(moves)}, tile, help, quit]: "
            text = self.ask(prompt)
            if self._command(text):
                continue
            try:
                move = parse_move(
                    text,
                    moves,
                    view.hand or [],
                    view.ends,
                    view.must_lead,
                    [t for t in _chain_tiles(view)],
                )
            except InputError as e:
                self.message = f"Refused: {e}."
                continue
            s.play(move.action)
            return

    def _command(self, text: str) -> bool:
        """help, rules, save, quit; True if ``text`` was one of them (or was
        refused: control characters, an endless line), so the question is asked again."""
        try:
            cmd = clean(text)
        except InputError as e:
            self.message = f"Refused: {e}."
            return True
        word, _, arg = cmd.partition(" ")
        if word in ("help", "h", "?"):
            self.show([Text(ln) for ln in help_lines(self.s.rules.to_dict(), self.width - 1)])
            self._pause_for_enter()
            return True
        if word in ("rules", "rule"):
            self.show([Text(rules_text(self.width - 1)), Text(f"This game: {self.s.rules}.")])
            self._pause_for_enter()
            return True
        if word in ("glossary", "words"):
            self.show([Text(glossary_text(self.width - 1))])
            self._pause_for_enter()
            return True
        if word == "name":
            self._name_command(text.strip()[4:].strip())
            return True
        if word == "save":
            raw = text.strip()[4:].strip()
            self._save_command(raw if arg else None)
            return True
        if word in ("quit", "q", "exit"):
            raise Quit()
        return False

    def _name_command(self, text: str) -> None:
        """``name NAME``: the person to move (else the only person) is named."""
        s = self.s
        seat = s.to_move if s.to_move is not None and s.is_human(s.to_move) else self.viewer()
        if seat is None:
            self.message = "Refused: type name NAME on your turn."
            return
        try:
            name = s.set_name(seat, text)
        except DomengError as e:
            self.message = f"Refused: {e}."
            return
        self.message = f"Seat {seat} is now {name}."

    def _pause_for_enter(self) -> None:
        self.ask("Press Enter to go back to the table: ")

    def _prompt_between_rounds(self) -> None:
        nxt = self.s.rounds_played + 1
        while True:
            ans = self.ask(f"Press Enter for round {nxt} (or help, rules, save, quit): ")
            if not self._command(ans):
                return
            self._round_end()

    # -- between rounds and at the end -----------------------------------------------
    def _round_end(self, final: bool = False) -> None:
        """The round's end on one screen: the chain, as many of its last
        events as fit, who won, the stones; then the standings, or at the
        end of the game the final ranking."""
        view = self.s.view(self.viewer())
        events = [for_seat(ev, None) for ev in self.s.finished[-1]]
        top = screen.header(self.s, view, self.label, self.target_text())
        top += screen.chain_lines(view.chain, view.last_tile, self.width - 2)
        log, summary = screen.round_summary(events, self.label, self.width)
        if final:
            summary += screen.final_lines(self.s, self.label, self.target_text(), self.width)
        else:
            summary += screen.standings_lines(self.s, self.label)
        if self.message:
            summary += [Text(ln, style="bold red") for ln in screen.wrap(self.message, self.width)]
            self.message = ""
        room = max(0, max(20, self.con.height) - 3 - len(top) - len(summary))
        self.show(top + [Text(x) for x in (log[-room:] if room else [])] + summary)

    def _final(self) -> None:
        if self.s.finished:
            self._round_end(final=True)
        else:  # a finished game loaded from its save
            self.show(screen.final_lines(self.s, self.label, self.target_text(), self.width))
        self._autosave()
        self.con.print(Text("Thanks for playing."))

    # -- saving --------------------------------------------------------------------
    def _warn_leak(self, now: bool = False) -> None:
        """With two or more people at the table, say (once) what a save reveals:
        at once when leaving, else under the next screen."""
        if len(self.s.humans) > 1 and not self.warned:
            self.warned = True
            if now:
                self.say(_LEAK_WARNING, "bold red")
            else:
                self.message = f"{_LEAK_WARNING} {self.message}".strip()

    def _autosave(self) -> None:
        if self.save_path:
            try:
                write_save(self.save_path, self.s)
            except (SaveFileError, OSError) as e:
                self.message = f"Autosave failed: {e}"

    def _save_to(self, path: str) -> bool:
        """Save to ``path``; False (and the reason as the message) if it cannot."""
        if not path.isprintable():
            self.message = "Refused: a file name of printable characters, please."
            return False
        try:
            check_writable(path)
            write_save(path, self.s)
        except (SaveFileError, OSError) as e:
            self.message = f"Not saved: {e}"
            return False
        self.save_path = path
        return True

    def _save_command(self, path: str | None) -> None:
        if path is None:
            path = self.save_path or self._ask_file("Save to which file? (Enter or no: cancel): ")
        if path and self._save_to(path):
            self.message = (
                f"The game is saved in {path}; from now on after every move. "
                f"Resume it with: {resume_command(path).replace(' ', screen.NB)}"
            )  # the command is wrapped whole, never inside itself (issue 22 point 13)
            self._warn_leak()

    def _ask_file(
        self, prompt: str, default: str | None = None, on_break: str | None = None
    ) -> str | None:
        """A file name typed at ``prompt``: Enter gives ``default`` (None:
        cancel), ``n``/``no`` cancels; Ctrl-C or Ctrl-D here give ``on_break``
        (None: cancel)."""
        while True:
            try:
                name = self.ask(prompt)
            except (EOFError, KeyboardInterrupt):
                self.con.print()
                return on_break
            try:
                clean(name)
            except InputError as e:
                self.say(f"Refused: {e}.", "bold red")
                continue
            name = name.strip()
            if name.lower() in _NO:
                return None
            return name or default

    def _leave(self) -> None:
        """quit, Ctrl-C or Ctrl-D: save where the game is saved, or offer to."""
        if self.s.game_over:
            self.say("Goodbye.")
            return
        if self.save_path:
            self._autosave()
            self._goodbye_saved(self.save_path)
            return
        failed = False
        while True:
            # the safe answer is Enter: it saves (to a new file in this folder);
            # so is Ctrl-D (no more input) or another Ctrl-C here, unless that
            # very save failed already (then asking again would never end)
            default = _unused_name()
            name = self._ask_file(
                f"Save the game? File name (Enter: {default}; no: leave without saving): ",
                default,
                on_break=None if failed else default,
            )
            if not name:
                self.say("Goodbye: the game was not saved." if failed else "Goodbye.")
                return
            if self._save_to(name):
                self._warn_leak(now=True)
                self._goodbye_saved(name)
                return
            failed = failed or name == default
            self.say(self.message, "bold red")
            self.message = ""

    def _goodbye_saved(self, path: str) -> None:
        """Where the game is, and the command that resumes it on a line of its
        own (a terminal may wrap the line before it, never inside the command)."""
        self.line(f"Goodbye: the game is saved in {path}.")
        self.line("Resume it with:")
        self.line(f"  {resume_command(path)}")

    def _rescue(self, err: Exception) -> int:
        """An unexpected error: save the game first, then one line."""
        path = self.save_path
        if path is None:
            folder = key_path().parent
            path = str(folder / f"rescue-{datetime.now():%Y%m%d-%H%M%S}-{os.getpid()}.json")
            try:
                folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            except OSError:
                path = None
        saved = ""
        if path is not None:
            try:
                write_save(path, self.s)
                saved = f"; the game is saved in {path} (resume it with: {resume_command(path)})"
            except (DomengError, OSError):
                saved = "; the game could not be saved"
        why = " ".join(str(err).split())[:200] or type(err).__name__
        print(
            f"domeng play: unexpected error ({type(err).__name__}: {why}){saved}", file=sys.stderr
        )
        return 1


def _chain_tiles(view) -> list[int]:
    """The tiles on the chain (to explain a refusal), from the round's public events."""
    return [ev.tile for ev in view.events if isinstance(ev, Lead | Play)]


def resume_command(path: str) -> str:
    """The command that resumes the game saved in ``path`` (quoted for a shell)."""
    return f"domeng play --load {shlex.quote(path)}"


def _unused_name(stem: str = "domeng-game") -> str:
    """A save file name in the current folder that does not exist yet."""
    n = 1
    while True:
        name = f"{stem}.json" if n == 1 else f"{stem}-{n}.json"
        if not os.path.lexists(name):
            return name
        n += 1
