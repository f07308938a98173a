"""The player catalogue: the one grammar of player names, the one table of
the players, and the one message for a name refused anywhere (issue 21,
item 6).

A player name is one of

* ``NAME``: a player of the catalogue (``hunter``, ``search``, ...);
* ``NAME-N``: with a budget, N samples (``ismcts``: iterations) per decision;
* ``NAME-N:option:option`` or ``NAME:option``: with options, e.g.
  ``esearch-1000:eps0.1`` (epsilon rollouts), ``esearch-1000:learned``
  (the learned network's rollouts), ``ismcts-2000:pb2`` (progressive bias);
* ``module:function``: your own compiled player (or an object with
  ``choose``), imported by name;
* the name of a player another package installs: an entry point of the
  group ``domeng.players`` (:data:`ENTRY_POINT_GROUP`), as pytest finds its
  plugins.

Built-in names are case-insensitive; :attr:`PlayerName.text` is the
canonical form (lower case, ``search-050`` is ``search-50``, options in the
catalogue's order), and ``parse(parse(x).text) == parse(x)``.

Each player of the catalogue (:class:`Entry`) says what it is (a one-line
description with its measured strength and thinking time), its budget range,
its options and where it may sit (:data:`PLACES`: a study, a tournament or
ladder, the terminal table, the browser table, an environment, a research
study).  One budget limit per player holds everywhere: the study, the table
with people and the environments.  :func:`check` refuses a name that may
not sit somewhere with :func:`refusal`, whose one wording names the place
and what is allowed there: ``player 'search-0' refused at a terminal table:
search takes N from 1 to 100,000 samples per decision (search-N)``.

This module imports nothing heavy (``domeng --help`` reads it, issue 11);
building a player from a name is the registry's
(:func:`domeng.players.registry.resolve_player`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from domeng.core.defaults import HUMAN, PLAYER_IDS
from domeng.core.errors import PlayerError

#: where a player may sit, and how a message names the place
PLACES = {
    "study": "in a study",
    "tournament": "in a tournament or ladder",
    "terminal": "at a terminal table",
    "browser": "at a browser table",
    "environment": "in an environment",
    "research": "in a research study (domeng.study.omniscient)",
}
#: the places where people sit: a seat there may also be ``human``
TABLES = ("terminal", "browser")
EVERYWHERE = frozenset(PLACES)
#: where code named by ``module:function`` (or installed as a plugin) may play:
#: never at a table with people (the tables seat only the catalogue's players)
CODE_PLACES = frozenset(("study", "tournament", "environment", "research"))
#: the entry-point group through which other packages add players
ENTRY_POINT_GROUP = "domeng.players"
#: a name longer than this is refused (a player name is short)
MAX_NAME = 200
#: the largest budget of the sampling search players, samples per decision:
#: at this budget a decision takes about a second of CPU (docs/players.md)
MAX_SAMPLES = 100_000
#: the largest ``ismcts-N`` budget (its tree holds one node per iteration);
#: ``domeng.players.ismcts.MAX_ITERATIONS`` is the same figure (a test checks)
MAX_ITERATIONS = 200_000


@dataclass(frozen=True)
class Option:
    """An option of a player's name: a flag (``model``) or a number
    (``eps0.1``: ``lo <= X <= hi``); ``kwarg`` (and ``value`` for a flag) is
    what it passes to the player's maker."""

    key: str
    kwarg: str
    value: Any = True
    lo: float | None = None
    hi: float | None = None
    help: str = ""

    @property
    def flag(self) -> bool:
        return self.lo is None

    def describe(self) -> str:
        if self.flag:
            return f"{self.key} ({self.help})"
        return f"{self.key}X, {self.lo:g} <= X <= {self.hi:g} ({self.help})"


@dataclass(frozen=True)
class Entry:
    """One player of the catalogue.

    ``kind``: ``builtin`` (a kernel player, id ``pid``), ``search`` (a
    compiled strategy made by ``make(*make_args, budget, **options)``),
    ``compiled`` (the same without a budget: ``budget`` is None),
    ``python`` (an object made by ``make()``), ``alias`` (another name of the
    catalogue: ``make`` is that name, e.g. ``best``) or ``plugin`` (an entry
    point: ``make`` is its value, ``source`` its package)."""

    name: str
    description: str
    kind: str = "builtin"
    places: frozenset = EVERYWHERE
    budget: tuple[int, int] | None = None
    default_budget: int | None = None
    unit: str = ""
    options: tuple[Option, ...] = ()
    make: str = ""
    make_args: tuple = ()
    pid: int | None = None
    source: str = "domeng"
    #: why it may not sit where it may not (added to the refusal)
    why: str = ""
    #: one line for a table with people: how strong it is and how long it thinks
    table_line: str = ""

    @property
    def pattern(self) -> str:
        """The name as the help shows it: ``search[-N]``, ``random``."""
        return f"{self.name}[-N]" if self.budget else self.name

    def budget_text(self) -> str:
        lo, hi = self.budget  # type: ignore[misc]
        return f"N from {lo:,} to {hi:,} {self.unit} ({self.name}-N)"

    def summary(self) -> str:
        """One line: the name, its budget range and options, its description."""
        parts = []
        if self.budget:
            lo, hi = self.budget
            parts.append(f"N from {lo:,} to {hi:,} {self.unit}, default {self.default_budget:,}")
        if self.options:
            parts.append("options " + ", ".join(o.describe() for o in self.options))
        more = f" ({'; '.join(parts)})" if parts else ""
        return f"{self.pattern}: {self.description}{more}"


_EPS = Option("eps", "explore", lo=0.0, hi=1.0, help="a rollout move is random with probability X")
_LEARNED = Option(
    "learned", "rollout", "learned", help="the learned network plays the rollouts instead of expert"
)
_LEAF = Option(
    "leaf",
    "leaf",
    lo=0,
    hi=128,
    help="truncated rollouts: X plies after the move, then the learned value",
)
_LMODEL = Option("lmodel", "model", "learned", help="the learned network's scores weight the deals")
_CAP = Option(
    "cap",
    "cap",
    lo=1,
    hi=500_000,
    help="at most X rollouts a decision, shared among the moves (at least one a move)",
)
_SAMPLES = "samples per decision"

#: the strongest built-in player that decides within 100 ms at p99 on one core
#: (issue 25): what ``best`` plays.  The evidence (benchmarks/README.md,
#: "Players"): in games of 10 rounds ``esearch-1000`` took 0.047 [0.033, 0.061]
#: fewer net stones a round than ``search`` (400 deals); every configuration
#: tried since (nsearch-1000, isearch, epsilon rollouts, esearch-3000 and
#: -10000, IS-MCTS, the learned network's rollouts, the learned value at the
#: leaves, the learned opponent model) was measured no better than it or than
#: its own control, paired.  Capped at 3,000 rollouts a decision (session 19):
#: uncapped, ``esearch-1000`` took 121-126 ms at p99 in games of several rounds
#: (a free lead has 5 moves: 5,000 rollouts, about 25 us each on this 2-core
#: machine), over the budget; capped, a decision of 4 or more moves shares the
#: 3,000 rollouts (750 or fewer deals a move) and every other is unchanged
#: (benchmarks/README.md, "best's time per decision").
BEST = "esearch-1000:cap3000"

#: the players of domeng, in the order the help lists them.  Strength and
#: time are the measured figures of docs/players.md and benchmarks/README.md
#: (net stones a round: lower is better; CPU time per decision, median).
BUILTINS: tuple[Entry, ...] = (
    Entry(
        "random",
        "uniform over the legal moves, the baseline; engine speed (3.7 M rounds a second)",
        pid=PLAYER_IDS["random"],
        table_line="the weakest: plays any tile that fits, at random; moves at once",
    ),
    Entry(
        "heavy",
        "sheds its heaviest tile; engine speed (2.8 M rounds a second)",
        pid=PLAYER_IDS["heavy"],
        table_line="weak: plays its heaviest tile first; moves at once",
    ),
    Entry(
        "keeper",
        "keeps the most tiles that still fit; engine speed (2.3 M rounds a second)",
        pid=PLAYER_IDS["keeper"],
        table_line="weak: keeps the tiles that still fit; moves at once",
    ),
    Entry(
        "hunter",
        "sets up a CEKI or POLLO, leaves ends the next seat lacks: the best heuristic; "
        "engine speed (2.2 M rounds a second)",
        pid=PLAYER_IDS["hunter"],
        table_line="good: sets up CEKI and POLLO, the best of the simple players; moves at once",
    ),
    Entry(
        "expert",
        "tuned weights on a few features: 0.06 fewer net stones a round than hunter; "
        "engine speed (1.6 M rounds a second)",
        pid=PLAYER_IDS["expert"],
        table_line="strong: tuned simple player, a little better than hunter; moves at once",
    ),
    Entry(
        "learned",
        "a small network (one hidden layer over the expert's features and more), trained "
        "by evolution strategies against experts: about 0.005 fewer net stones a round "
        "than expert; compiled (0.07 M rounds a second)",
        kind="compiled",
        make="domeng.players.learned:make_learned_strategy",
        table_line="strong: a trained network, about as strong as expert; moves at once",
    ),
    Entry(
        "search",
        "determinized Monte Carlo search: 0.095 fewer net stones a round than hunter; "
        "about 5 ms a decision at 400 samples",
        kind="search",
        budget=(1, MAX_SAMPLES),
        default_budget=400,
        unit=_SAMPLES,
        make="domeng.players.search:make_search_strategy",
        table_line="stronger: tries the hands the others may hold; about 5 ms a move",
    ),
    Entry(
        "esearch",
        "search on D17-exact deals with expert rollouts: esearch-1000 takes 0.047 fewer "
        "net stones a round than search in games of 10 rounds; about 10 ms a decision at 1,000",
        kind="search",
        budget=(1, MAX_SAMPLES),
        default_budget=100,
        unit=_SAMPLES,
        options=(_EPS, _LEARNED, _LEAF, _CAP),
        make="domeng.players.isearch:make_isearch_strategy",
        make_args=("esearch",),
        table_line="among the strongest: search on the hands the rules allow; about 10 ms a move",
    ),
    Entry(
        "isearch",
        "esearch whose deals are weighted by the others' plays (inference): no better "
        "than esearch measured; about 25 ms a decision at 2,000",
        kind="search",
        budget=(1, MAX_SAMPLES),
        default_budget=100,
        unit=_SAMPLES,
        options=(_EPS, _LEARNED, _LMODEL, _CAP),
        make="domeng.players.isearch:make_isearch_strategy",
        make_args=("isearch",),
        table_line="as strong as esearch, also reads the others' plays; about 25 ms a move",
    ),
    Entry(
        "nsearch",
        "esearch that also values who starts the next round: as strong as esearch, "
        "not stronger; about esearch's time a decision",
        kind="search",
        budget=(1, MAX_SAMPLES),
        default_budget=100,
        unit=_SAMPLES,
        options=(_EPS, _LEARNED, _CAP),
        make="domeng.players.isearch:make_isearch_strategy",
        make_args=("nsearch",),
        table_line="as strong as esearch, also weighs who starts next; about 10 ms a move",
    ),
    Entry(
        "ismcts",
        "information-set Monte Carlo tree search: as strong as search (ismcts-1500: "
        "+0.013); about 7 ms a decision per 1,000 iterations",
        kind="search",
        budget=(1, MAX_ITERATIONS),
        default_budget=1000,
        unit="iterations per decision",
        options=(
            Option("model", "model", True, help="the other seats play the rollout player"),
            Option("heavy", "rollout", "heavy", help="heavy rollouts instead of expert"),
            Option("c", "c_uct", lo=0.0, hi=10.0, help="the exploration constant, default 0.7"),
            Option("pb", "pb", lo=0.0, hi=100.0, help="progressive bias to the rollout move"),
        ),
        make="domeng.players.ismcts:make_ismcts_strategy",
        table_line="as strong as search: a tree search; about 7 ms a move",
    ),
    Entry(
        "best",
        f"always the strongest built-in player within 100 ms a decision at p99: today {BEST} "
        "(esearch-1000 at most 3,000 rollouts a decision; uncapped, 0.047 fewer net stones a "
        "round than search in games of 10 rounds); about 15 ms a decision, 70 ms at p99",
        kind="alias",
        make=BEST,
        table_line="the strongest there is: esearch with 1,000 samples, at most 3,000 "
        "rollouts a move; about 15 ms a move, rarely over 80 ms",
    ),
    Entry(
        "omniscient",
        "research only: sees every hand (breaks D17 on purpose): 0.36 fewer net stones a "
        "round than search, the bound on what the hidden hands are worth",
        kind="python",
        places=frozenset(("research",)),
        make="domeng.players.omniscient:OmniscientPlayer",
        why="it is a research player that sees every hand (it breaks D17 on purpose)",
        table_line="research only: sees every hand; never at a table with people",
    ),
)
_BUILTIN = {e.name: e for e in BUILTINS}

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_MODULE_FUNCTION = re.compile(rf"{_IDENT}(?:\.{_IDENT})*:{_IDENT}")
_PLUGIN_NAME = re.compile(r"[a-z][a-z0-9_]*")
_OPTION = re.compile(r"([a-z]+)([0-9]+(?:\.[0-9]+)?)?")


@dataclass(frozen=True)
class PlayerName:
    """A parsed player name: a catalogue ``entry`` with its ``budget`` and
    ``options`` (``(key, value)`` in the entry's order), or ``target``
    (``module:function``; ``entry`` is None)."""

    entry: Entry | None
    budget: int | None = None
    options: tuple[tuple[str, Any], ...] = ()
    target: str = ""

    @property
    def text(self) -> str:
        """The canonical name."""
        if self.entry is None:
            return self.target
        out = self.entry.name if self.budget is None else f"{self.entry.name}-{self.budget}"
        for key, value in self.options:
            out += f":{key}" if value is True else f":{key}{_number_text(value)}"
        return out

    @property
    def places(self) -> frozenset:
        return CODE_PLACES if self.entry is None else self.entry.places

    def kwargs(self) -> dict[str, Any]:
        """The options as the player's maker takes them."""
        by_key = {o.key: o for o in self.entry.options} if self.entry else {}
        return {
            by_key[k].kwarg: (by_key[k].value if by_key[k].flag else v) for k, v in self.options
        }


def _number_text(x: float) -> str:
    """``x`` in plain decimals that read back as ``x`` (``2`` not ``2.0``)."""
    if float(x).is_integer():
        return str(int(x))
    s = repr(float(x))
    if "e" not in s:
        return s
    from decimal import Decimal  # rare (1e-05): not imported by every command's --help

    return format(Decimal(s), "f")


def refusal(name: Any, place: str | None, reason: str, where: str = "") -> PlayerError:
    """The one message of a refused player name, everywhere: ``player NAME
    refused PLACE: REASON`` (``where``: the file it was read from)."""
    shown = repr(name)[:60] if isinstance(name, str) else f"{type(name).__name__} {name!r}"[:60]
    at = f" {PLACES[place]}" if place else ""
    src = f" (read from {where})" if where else ""
    return PlayerError(f"player {shown} refused{at}{src}: {reason}")


def allowed(place: str | None) -> str:
    """What may sit at ``place``, for a refusal."""
    names = [e.pattern for e in entries().values() if place is None or place in e.places]
    if place in TABLES:
        names.insert(0, HUMAN)
    if place is None or place in CODE_PLACES:
        names.append("module:function")
    return f"{'seats' if place in TABLES else 'players'} here: {', '.join(names)}"


def parse(name: Any, place: str | None = None, where: str = "") -> PlayerName:
    """The parsed ``name`` (see the module's grammar); a name that is not
    one, an unknown player, a budget or an option out of range is refused
    (:func:`refusal`, ``place`` only names the place in the message)."""
    if not isinstance(name, str) or not name.strip():
        raise refusal(name, place, f"not a player name; {allowed(place)}", where)
    text = name.strip()
    if len(text) > MAX_NAME or not text.isascii() or not text.isprintable():
        raise refusal(
            name, place, f"a player name is up to {MAX_NAME} printable ASCII characters", where
        )
    head, colon, tail = text.partition(":")
    base, dash, digits = head.partition("-")
    entry = lookup(base.lower())
    if entry is None:
        if colon and not dash and _MODULE_FUNCTION.fullmatch(text):
            return PlayerName(None, target=text)
        reason = _refused_plugins().get(head.lower()) or f"unknown player; {allowed(place)}"
        raise refusal(name, place, reason, where)
    budget = None
    if dash:
        if entry.budget is None:
            raise refusal(name, place, f"{entry.name} takes no budget (write {entry.name})", where)
        lo, hi = entry.budget
        if not (digits.isdigit() and len(digits) <= 12 and lo <= int(digits) <= hi):
            raise refusal(name, place, f"{entry.name} takes {entry.budget_text()}", where)
        budget = int(digits)
    options = _parse_options(entry, tail.split(":") if colon else [], name, place, where)
    return PlayerName(entry, budget, options)


def _parse_options(entry: Entry, items: list[str], name, place, where) -> tuple:
    by_key = {o.key: o for o in entry.options}
    if not entry.options:
        offered = f"{entry.name} takes no options"
    else:
        offered = f"the options of {entry.name}: " + ", ".join(o.describe() for o in entry.options)
    got: dict[str, Any] = {}
    for item in items:
        m = _OPTION.fullmatch(item.lower())
        opt = by_key.get(m[1]) if m else None
        if m is None or opt is None or m[1] in got or opt.flag != (m[2] is None):
            raise refusal(name, place, f"bad option {item[:20]!r}; {offered}", where)
        if opt.flag:
            got[opt.key] = True
            continue
        value = float(m[2])
        assert opt.lo is not None and opt.hi is not None  # a valued option has a range
        if not opt.lo <= value <= opt.hi:
            raise refusal(name, place, f"option {item[:20]!r} out of range; {offered}", where)
        got[opt.key] = value
    return tuple((o.key, got[o.key]) for o in entry.options if o.key in got)


def check(name: Any, place: str, where: str = "") -> PlayerName:
    """The parsed ``name`` if it may sit at ``place`` (one of :data:`PLACES`);
    refused in the one wording otherwise."""
    if place not in PLACES:
        raise ValueError(f"unknown place {place!r}; places: {', '.join(PLACES)}")
    pn = parse(name, place, where)
    if place not in pn.places:
        if pn.entry is None:
            why = "module:function would import code"
        else:
            why = pn.entry.why or f"{pn.entry.name} is installed by {pn.entry.source}"
        only = _either([PLACES[p] for p in PLACES if p in pn.places])
        raise refusal(name, place, f"{why}: it sits only {only}; {allowed(place)}", where)
    return pn


def _either(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def seat_name(name: Any, place: str) -> str:
    """The canonical name of a player that may sit at ``place``."""
    return check(name, place).text


def names(place: str | None = None) -> tuple[str, ...]:
    """The bare names of the catalogue's players (those that may sit at
    ``place``), built-ins first."""
    return tuple(e.name for e in entries().values() if place is None or place in e.places)


def builtin_names(place: str | None = None) -> tuple[str, ...]:
    """The bare names of domeng's own players (no plugin is looked up)."""
    return tuple(e.name for e in BUILTINS if place is None or place in e.places)


def describe(place: str | None = None, plugins: bool = True) -> dict[str, str]:
    """Name -> one-line description of every player that may sit at ``place``
    (the browser's form and ``--help`` show these)."""
    pool = entries().values() if plugins else BUILTINS
    return {e.name: e.summary() for e in pool if place is None or place in e.places}


def table_lines(place: str = "browser") -> dict[str, str]:
    """Name -> one line (strength and thinking time) of every built-in
    player that may sit at ``place``: what a table's create form shows.

    >>> table_lines()["random"]
    'the weakest: plays any tile that fits, at random; moves at once'
    """
    return {e.name: e.table_line for e in BUILTINS if place in e.places}


def players_help(place: str = "study") -> str:
    """The built-in players as ``--help`` lists them (no plugin is looked up:
    reading the installed packages' metadata would slow ``--help`` down)."""
    listed = [e.pattern for e in BUILTINS if place in e.places]
    code = ", or module:function (your own compiled player)" if place in CODE_PLACES else ""
    plugin = (
        f", or a player another package installs (entry point group {ENTRY_POINT_GROUP})"
        if place in CODE_PLACES
        else ""
    )
    return (
        f"{', '.join(listed)} (NAME-N: N samples or iterations per decision, "
        f"up to {MAX_SAMPLES:,}, {MAX_ITERATIONS:,} for ismcts; NAME-N:option, e.g. "
        f"esearch-1000:eps0.1){code}{plugin}"
    )


# ---------------------------------------------------------------- plugins

_PLUGINS: dict[str, Entry] | None = None
_REFUSED: dict[str, str] = {}


def lookup(name: str) -> Entry | None:
    """The catalogue's entry of a lower-case bare name (a plugin's too)."""
    return _BUILTIN.get(name) or (plugins().get(name) if _PLUGIN_NAME.fullmatch(name) else None)


def entries() -> dict[str, Entry]:
    """Every player of the catalogue: the built-ins, then the plugins."""
    return {**_BUILTIN, **plugins()}


def _entry_points() -> list:
    from importlib.metadata import entry_points

    return list(entry_points(group=ENTRY_POINT_GROUP))


def plugins(reload: bool = False) -> dict[str, Entry]:
    """The players installed by other packages (entry point group
    :data:`ENTRY_POINT_GROUP`), read once.  An entry point whose name is
    not a plain lower-case name, or is a built-in's, is refused: asking for
    it gives the reason in one line."""
    global _PLUGINS
    if _PLUGINS is None or reload:
        found: dict[str, Entry] = {}
        _REFUSED.clear()
        for ep in _entry_points():
            dist = getattr(ep, "dist", None)
            source = f"package {dist.name} {dist.version}" if dist is not None else "a plugin"
            label = f"the plugin {ep.name} ({ep.value}, {source})"
            name = ep.name.strip().lower()
            if not _PLUGIN_NAME.fullmatch(name):
                _REFUSED[name] = (
                    f"{label} is refused: a plugin's name is lower-case letters, digits and _"
                )
            elif name in _BUILTIN or name in found:
                _REFUSED[name + "#plugin"] = f"{label} is refused: {name} is already a player"
            else:
                found[name] = Entry(
                    name,
                    f"installed by {source} ({ep.value})",
                    kind="plugin",
                    places=CODE_PLACES,
                    make=ep.value,
                    source=source,
                )
        _PLUGINS = found
    return _PLUGINS


def _refused_plugins() -> dict[str, str]:
    plugins()
    return _REFUSED


__all__ = [
    "BEST",
    "BUILTINS",
    "ENTRY_POINT_GROUP",
    "MAX_ITERATIONS",
    "MAX_SAMPLES",
    "PLACES",
    "Entry",
    "Option",
    "PlayerName",
    "allowed",
    "builtin_names",
    "check",
    "describe",
    "entries",
    "lookup",
    "names",
    "parse",
    "players_help",
    "plugins",
    "refusal",
    "seat_name",
]
