"""What a study would play, and about how long it would take: the plan of a
:class:`~domeng.study.spec.StudySpec` (``--dry-run``) and a time estimate
from a short pilot (a few hundred rounds and up, timed once the engine is
compiled, on one engine thread).  Nothing is written."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domeng.core.defaults import DEFAULT_PLAYERS, DEFAULT_ROUNDS, DEFAULT_TABLES
from domeng.core.wording import counted, counted_x
from domeng.study.spec import StudySpec

#: the pilot grows (x4) from this many rounds until it runs this long
PILOT_ROUNDS = 200
PILOT_SECONDS = 0.25
PILOT_MAX_ROUNDS = 2_000_000
#: at most this many lineups are piloted (a comparison of lineups)
PILOT_LINEUPS = 4


@dataclass(frozen=True)
class Pilot:
    """A pilot's timing: ``rounds`` played in ``seconds`` (one engine
    thread), after ``compile_seconds`` of compiling (not counted)."""

    rounds: int
    seconds: float
    compile_seconds: float

    @property
    def rate(self) -> float:
        return self.rounds / max(self.seconds, 1e-9)


@dataclass(frozen=True)
class Planned:
    """What a spec would play: ``lines`` (label, text), the rounds in all,
    and the lineups (with rules) to pilot."""

    lines: list[tuple[str, str]]
    total_rounds: int
    lineups: list[tuple[Any, tuple[str, ...]]]
    sequential: bool = False


def _rules_text(rules) -> str:
    changed = rules.changed()
    return ", ".join(f"{k}={v}" for k, v in changed.items()) or "the defaults (docs/rules.md)"


def plan(spec: StudySpec) -> Planned:
    """The plan of ``spec``: its defaults filled in, the arms, grid points or
    seatings it would play, its chunking and its size in rounds.

    Examples
    --------
    >>> from domeng.study.spec import StudySpec
    >>> p = plan(StudySpec("sweep", tables=10, rounds=5, grid=["pollo=3,4"]))
    >>> p.total_rounds, dict(p.lines)["grid"]
    (100, 'pollo_award=3,4: 2 points')
    """
    from domeng.study.names import resolve_names_safely
    from domeng.study.summary import coerce_rules

    kind = spec.kind
    if kind in ("tournament", "ladder"):
        return _plan_duplicate(spec)
    tables = DEFAULT_TABLES if spec.tables is None else spec.tables
    rounds = DEFAULT_ROUNDS if spec.rounds is None else spec.rounds
    players = tuple(resolve_names_safely(list(spec.players or DEFAULT_PLAYERS)))
    rules = coerce_rules(list(spec.rules))
    lines = [("kind", kind)]
    arms: list[tuple[str, tuple]] = [("study", (rules, players))]
    if kind == "compare":
        from domeng.study.compare import _arms

        arms = list(_arms(list(spec.variants), spec.baseline, list(players), rules).items())
    elif kind == "sweep":
        from domeng.study.spec import parse_grid

        grid = parse_grid(list(spec.grid))
        points = math.prod(len(v) for v in grid.values())
        axes = "; ".join(f"{k}={','.join(str(x) for x in vs)}" for k, vs in grid.items())
        lines.append(("grid", f"{axes}: {counted(points, 'point')}"))
        arms = [("point", (rules, players))] * points
    sequential = bool(spec.target_ci)
    if sequential:
        from domeng.study.sequential import DEFAULT_MAX_ROUNDS

        cap = DEFAULT_MAX_ROUNDS if spec.max_rounds is None else spec.max_rounds
        lines.append(
            ("size", f"stops on the data: {', '.join(spec.target_ci)}; at most {cap:,} rounds")
        )
        lines.append(("rounds", f"{rounds:,} per table"))
        total = cap * len(arms)
    else:
        from domeng.study.chunks import default_chunk_tables

        lines.append(("size", counted_x((tables, "table"), (rounds, "round"))))
        ct = spec.chunk_tables or default_chunk_tables(tables, rounds, spec.records)
        ct = min(ct, tables)
        lines.append(("chunking", f"{counted(ct, 'table', ',')} per chunk, "
                      f"{counted(-(-tables // ct), 'chunk', ',')}"
                      + (" per arm" if len(arms) > 1 else "")))  # fmt: skip
        total = tables * rounds * len(arms)
    lines += [("seed", str(spec.seed or 0)), ("players", ",".join(players))]
    lines.append(("rules", _rules_text(rules)))
    if kind == "compare":
        for name, (r, p) in arms:
            lines.append(("arm", f"{name}: {_rules_text(r)}; players {','.join(p)}"))
    if spec.records:
        lines.append(("records", "one row per table-round (records.parquet)"))
    lineups = list(dict.fromkeys((r, p) for _, (r, p) in arms))
    return Planned(lines, total, lineups, sequential)


def _plan_duplicate(spec: StudySpec) -> Planned:
    from itertools import combinations

    from domeng.core.rules import Rules
    from domeng.study.arrangements import seatings

    deals = spec.deals or (200 if spec.kind == "tournament" else 100)
    rounds = spec.rounds or 10
    orders = spec.orders or "all"
    players = tuple(spec.players or ())
    rules = Rules.parse(list(spec.rules))
    design = len(seatings(orders))
    lineups = list(combinations(players, 5)) if spec.kind == "ladder" else [players]
    lines = [
        ("kind", spec.kind),
        ("players", ",".join(players)),
        ("size", counted_x((deals, "deal"), (rounds, "round"))),
        ("seatings", f"{design} ({orders}) per deal"),
    ]
    if spec.kind == "ladder":
        lines.append(("lineups", f"{len(lineups)} lineups of five"))
    lines += [("seed", str(spec.seed or 0)), ("rules", _rules_text(rules))]
    total = len(lineups) * deals * design * rounds
    return Planned(lines, total, [(rules, tuple(lineups[0]))])


def pilot(rules, players: Sequence[str], rounds: int, most: int = PILOT_MAX_ROUNDS) -> Pilot:
    """Time a short study of ``players`` under ``rules`` (``rounds`` per
    table at most): compile first (timed apart), then a pilot of
    :data:`PILOT_ROUNDS` rounds, four times larger until it runs
    :data:`PILOT_SECONDS` or plays ``most`` rounds (the study's own size),
    on one engine thread, writing nothing."""
    from domeng.study.simulate import simulate

    kw = dict(players=list(players), rules=rules, seed=0, workers=1, progress=False)
    t0 = time.perf_counter()
    simulate(tables=1, rounds=1, **kw)  # compiles what it needs (not counted)
    compile_seconds = time.perf_counter() - t0
    most = max(1, min(most, PILOT_MAX_ROUNDS))
    n = min(PILOT_ROUNDS, most)
    while True:
        per = min(rounds, n)
        tables = -(-n // per)
        t0 = time.perf_counter()
        simulate(tables=tables, rounds=per, **kw)
        seconds = time.perf_counter() - t0
        if seconds >= PILOT_SECONDS or n >= most:
            return Pilot(tables * per, seconds, compile_seconds)
        n = min(4 * n, most)


def _duration(seconds: float) -> str:
    """``about 1.5 min`` (or ``under 0.1 s``)."""
    if seconds < 0.1:
        return "under 0.1 s"
    if seconds < 60:
        return f"about {seconds:.1f} s"
    minutes = seconds / 60
    if minutes < 120:
        return f"about {minutes:.1f} min"
    hours = minutes / 60
    return f"about {hours:.1f} h" if hours < 48 else f"about {hours / 24:.1f} days"


def estimate_text(planned: Planned, threads: int, rounds: int) -> str:
    """The estimate line: the pilot's rate (the slowest lineup's) times the plan's rounds."""
    most = planned.total_rounds
    pilots = [pilot(r, p, rounds, most) for r, p in planned.lineups[:PILOT_LINEUPS]]
    slowest = min(pilots, key=lambda q: q.rate)
    one = planned.total_rounds / slowest.rate
    size = "at most " if planned.sequential else ""
    text = (
        f"{size}{_duration(one)} on one engine thread"
        + (f", {_duration(one / threads)} on {threads} at best" if threads > 1 else "")
        + f" (pilot: {slowest.rounds:,} rounds in {slowest.seconds:.2f} s, "
        f"{slowest.rate:,.0f} rounds/s; compiling {sum(q.compile_seconds for q in pilots):.1f} s "
        "not counted)"
    )
    return text


def dry_run_text(spec: StudySpec, folder: str, threads: int, estimate: bool = True) -> str:
    """The whole ``--dry-run`` report of ``spec``; ``folder``: what the output
    folder would be (or ``none``); ``threads``: the engine threads a run would use.

    Examples
    --------
    >>> from domeng.study.spec import StudySpec
    >>> print(dry_run_text(StudySpec(tables=4, rounds=2), "none", 1, estimate=False))
    dry run: nothing is played or written
      kind      simulate
      size      4 tables x 2 rounds
      chunking  4 tables per chunk, 1 chunk
      seed      0
      players   random,heavy,keeper,hunter,random
      rules     the defaults (docs/rules.md)
      output    none
      rounds    8 in all
    """
    planned = plan(spec)
    lines = planned.lines + [("output", folder)]
    lines.append(("rounds", f"{'at most ' if planned.sequential else ''}"
                  f"{planned.total_rounds:,} in all"))  # fmt: skip
    if estimate:
        per = spec.rounds or (10 if spec.kind in ("tournament", "ladder") else DEFAULT_ROUNDS)
        lines.append(("estimate", estimate_text(planned, threads, per)))
    width = max(len(k) for k, _ in lines) + 2
    return "\n".join(
        ["dry run: nothing is played or written"] + [f"  {k:<{width}}{v}" for k, v in lines]
    )
