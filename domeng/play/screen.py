"""The pictures of the terminal game, drawn with ``rich``: the table as one
screen (seats, the chain drawn as tiles, the latest events, your hand and
your moves), the round's end and the final ranking.

Everything drawn comes from a :class:`~domeng.play.session.View` (what one
seat may see, D17) or from the session's public standings; the events are
written by the one renderer, :func:`domeng.core.events.render_events`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence

from rich.text import Text

from domeng.core.events import Deal, RoundEnd, Transfer, from_dict, render_events
from domeng.core.glossary import explained
from domeng.core.layout import N_SEATS
from domeng.core.tiles import pips, tile_str
from domeng.play.session import Move, Session, View

Label = Callable[[int], str]

TILE_STYLE = "bold black on white"
DOUBLE_STYLE = "bold black on bright_cyan"
LAST_STYLE = "bold black on yellow"


# ---------------------------------------------------------------------------
# Tiles
# ---------------------------------------------------------------------------


def tile_art(a: int, b: int) -> list[str]:
    """Three lines drawing the tile a|b as it lies in the chain; a double
    stands crosswise."""
    if a == b:
        return [f"┌{a}┐", "│─│", f"└{b}┘"]
    return ["┌─┬─┐", f"│{a}│{b}│", "└─┴─┘"]


def chain_lines(chain: Sequence[tuple[int, int]], last: int | None, width: int) -> list[Text]:
    """The chain drawn as tiles, left end first, in rows of three lines that
    fit ``width``; the tile played last stands out."""
    if not chain:
        return []
    rows: list[list[int]] = [[]]
    used = 0
    for i, (a, b) in enumerate(chain):
        w = 3 if a == b else 5
        if rows[-1] and used + w > width:
            rows.append([])
            used = 0
        rows[-1].append(i)
        used += w
    out: list[Text] = []
    for row in rows:
        lines = [Text(" "), Text(" "), Text(" ")]
        for i in row:
            a, b = chain[i]
            style = LAST_STYLE if i == last else DOUBLE_STYLE if a == b else TILE_STYLE
            for k, part in enumerate(tile_art(a, b)):
                lines[k].append(part, style=style)
        out.extend(lines)
    return out


def hand_text(hand: Sequence[int], playable: set[int]) -> Text:
    """A hand as tiles, the playable ones highlighted."""
    t = Text()
    for x in hand:
        t.append(f" {tile_str(x)} ", style="bold black on green" if x in playable else TILE_STYLE)
        t.append(" ")
    t.append(f"(pip sum {sum(pips(x) for x in hand)})", style="dim")
    return t


# ---------------------------------------------------------------------------
# Text helpers
# ---------------------------------------------------------------------------


#: a space that :func:`wrap` never breaks at (written as a plain space):
#: it keeps a command to copy, such as ``domeng play --load FILE``, on one line
NB = "\u00a0"


def wrap(text: str, width: int, indent: str = "", sub: str = "    ") -> list[str]:
    """``text`` wrapped to ``width`` columns, never inside a seat's label nor
    at a :data:`NB` space (a word longer than the line is still cut).

    Example
    -------
    >>> wrap(f"Resume it with: domeng{NB}play{NB}--load{NB}x.json", 30)
    ['Resume it with:', '    domeng play --load x.json']
    """
    nb = NB
    protected = text.replace("seat ", f"seat{nb}").replace(" (", f"{nb}(")
    lines = textwrap.wrap(
        protected,
        max(20, width),
        initial_indent=indent,
        subsequent_indent=indent + sub,
        break_on_hyphens=False,
    )
    return [ln.replace(nb, " ") for ln in lines] or [""]


def stones(n: int) -> str:
    return f"{n} stone{'' if n == 1 else 's'}"


def move_note(m: Move) -> str:
    """What the engine says a move would do, in the game's words."""
    p = m.preview
    if p.ends_round:
        return {"CAPPU": "FIRST CAPPU!", "CEKI": "CEKI!", "POLLO": "POLLO!"}.get(
            p.kind or "", "ends the round"
        ) + (f" CUCUQ gets up to {p.award}" if p.award is not None else "")
    return "MAPPAKULING" if p.mappakuling else ""


def moves_lines(moves: Sequence[Move], width: int) -> list[str]:
    """The numbered moves, as many to a line as fit."""
    cells = []
    for i, m in enumerate(moves, 1):
        where = "lead" if m.end == "lead" else m.end
        note = move_note(m)
        cells.append(
            f"{i:>2} {tile_str(m.tile)} {where:<5} -> {m.preview.left}|"
            f"{m.preview.right}{'  ' + note if note else ''}"
        )
    if not cells:
        return []
    cw = max(len(c) for c in cells) + 3
    per = max(1, width // cw)
    return [
        "".join(c.ljust(cw) for c in cells[i : i + per]).rstrip() for i in range(0, len(cells), per)
    ]


# ---------------------------------------------------------------------------
# Screens
# ---------------------------------------------------------------------------


def header(session: Session, view: View, label: Label, target: str) -> list[Text]:
    """The first lines: round, whose turn, the table, the CAMAT, the target."""
    t = Text()
    t.append(" DOMENG ", style="bold white on blue")
    t.append(f" round {view.round}", style="bold")
    if view.to_move is not None:
        t.append(f" · {label(view.to_move)} to play", style="bold yellow")
    t.append(f" · table {stones(view.table_stones)}")
    t.append(f" · CAMAT: {label(view.camat) if view.camat is not None else 'none yet'}")
    out = [t, Text(f" the game ends {target}", style="dim")]
    if session.modified:
        out[1].append(
            "   MODIFIED SAVE: this game was edited outside domeng", style="bold white on red"
        )
    return out


def label_width(label: Label) -> int:
    """The column width of the seat labels: at least 18, and the longest
    label (``seat 1 (search-777)``) so that the columns after it line up."""
    return max(18, *(len(label(s)) for s in range(N_SEATS)))


def seats_lines(session: Session, view: View, label: Label) -> list[Text]:
    out = []
    w = label_width(label)
    for s in range(N_SEATS):
        notes = []
        if s == view.camat:
            notes.append("CAMAT")
        if s == view.starter:
            notes.append("started")
        if s == view.last_mappano:
            notes.append("LAST MAPPANO")
        mark = "▶" if s == view.to_move else " "
        n = view.hand_sizes[s]
        line = Text(f" {mark} ")
        line.append(f"{label(s):<{w}}", style="bold" if session.is_human(s) else "")
        line.append(
            f" {n} tile{' ' if n == 1 else 's'}  {view.stones[s]:>2} "
            f"stone{' ' if view.stones[s] == 1 else 's'}  "
        )
        line.append(", ".join(notes), style="magenta")
        out.append(line)
    return out


def table_screen(
    session: Session,
    view: View,
    label: Label,
    target: str,
    size: tuple[int, int],
    moves: Sequence[Move] = (),
    message: str = "",
    show_hand: bool = True,
) -> list[Text]:
    """The whole table as one screen of ``size`` = (width, height): at most
    ``height`` lines of ``width`` columns, what ``view``'s seat may see (its
    hand only when ``show_hand``)."""
    width, height = size
    top = header(session, view, label, target) + seats_lines(session, view, label)
    mid: list[Text] = []
    if view.ends is None:
        if view.must_lead is not None and view.round:
            mid.append(
                Text(f" Chain: empty: the round opens with {tile_str(view.must_lead)} (D3).")
            )
        else:
            mid.append(Text(" Chain: empty."))
    else:
        mid.extend(chain_lines(view.chain, view.last_tile, width - 2))
        mid.append(
            Text(
                f" open ends: {view.ends[0]} on the left, {view.ends[1]} on the right", style="bold"
            )
        )
    bottom: list[Text] = []
    if show_hand and view.hand is not None:
        playable = {m.tile for m in moves}
        bottom.append(Text(" Your hand: ").append_text(hand_text(view.hand, playable)))
        if moves:
            bottom.append(Text(" Your moves:", style="bold"))
            bottom.extend(Text("  " + ln) for ln in moves_lines(moves, width - 2))
    if message:
        bottom.extend(Text(ln, style="bold red") for ln in wrap(message, width, " "))
    log = log_lines(view.events, label, width)
    room = max(1, height - len(top) - len(mid) - len(bottom) - 2)
    shown = log[-room:]
    rule = Text("─" * min(width, 79), style="dim")
    return top + mid + [rule] + [Text(x) for x in shown] + [rule] + bottom


def log_lines(events, label: Label, width: int) -> list[str]:
    """The round's events as the one renderer writes them, wrapped."""
    text = render_events(events, name=label)
    out: list[str] = []
    for ln in text.splitlines():
        indent = ln[: len(ln) - len(ln.lstrip())]
        out.extend(wrap(ln.strip(), width - 1, " " + indent))
    return out


def round_summary(events, label: Label, width: int) -> tuple[list[str], list[Text]]:
    """The end of a round: its events as text (to show as many of the last
    as fit) and the lines that say who won and the stones it moved."""
    events = [from_dict(ev) for ev in events]
    log = log_lines(events, label, width)
    end = next(ev for ev in reversed(events) if isinstance(ev, RoundEnd))
    net = [0] * N_SEATS
    for ev in events:
        if isinstance(ev, Transfer):
            net[ev.to] += ev.amount
            if isinstance(ev.source, int) and ev.source >= 0:
                net[ev.source] -= ev.amount
    moved = ", ".join(f"{label(s)} {v:+d}" for s, v in enumerate(net) if v) or "none moved"
    rnd = next(ev.round for ev in events if isinstance(ev, Deal))
    out = [Text(f" Round {rnd} over: {label(end.winner)} wins ({end.kind}).", style="bold green")]
    for line in explained(events, label):  # the end in plain words, beside its term
        camat = line.startswith("CAMAT")
        style = "bold magenta" if camat else "green"
        out.extend(Text(x, style=style) for x in wrap(line, width, " ", "   "))
    out.extend(Text(x) for x in wrap(f"Stones this round: {moved}.", width, " "))
    return log, out


def standings_lines(session: Session, label: Label) -> list[Text]:
    n = session.rounds_played
    w = label_width(label)
    out = [
        Text(
            f" Standings after {n} round{'s' if n != 1 else ''} (stones are penalties: "
            "fewer is better):",
            style="bold",
        ),
        Text(f"   {'seat':<{w}} stones  received  won  CAMAT", style="dim"),
    ]
    for r in session.standings():
        out.append(
            Text(
                f"   {label(r['seat']):<{w}} {r['stones']:>6}  {r['received']:>8}  "
                f"{r['wins']:>3}  {r['camats']:>5}"
            )
        )
    out.append(Text(f"   {'table':<{w}} {session.game.table_stones:>6}"))
    return out


def final_lines(session: Session, label: Label, target: str, width: int) -> list[Text]:
    """Game over: the ranking, why it is in that order, and the seed."""
    n = session.rounds_played
    out = [
        Text("═" * min(width, 79)),
        Text(
            f" Game over after {n} round{'s' if n != 1 else ''} (the game ends {target}).",
            style="bold",
        ),
    ]
    out.extend(
        Text(x, style="dim")
        for x in wrap(
            "Final ranking: most CAMATs first (a CAMAT returns every stone to the table), then "
            "fewest stones held, then fewest stones received over the whole game, then most "
            "rounds won.",
            width,
            " ",
            "  ",
        )
    )
    w = label_width(label)
    out.append(Text(f"   place  {'seat':<{w}} CAMAT  stones  received  won", style="dim"))
    for place, r in enumerate(session.ranking(), 1):
        out.append(
            Text(
                f"   {place:>5}  {label(r['seat']):<{w}} {r['camats']:>5}  "
                f"{r['stones']:>6}  {r['received']:>8}  {r['wins']:>3}",
                style="bold green" if place == 1 else "",
            )
        )
    seed = session.seed
    out.extend(
        Text(x)
        for x in wrap(
            f"This game's seed was {seed}: `domeng play --seed {seed}` with the same seats deals "
            "the same tiles again.",
            width,
            " ",
        )
    )
    return out
