"""The keywords of the duplicate studies (:func:`~domeng.study.tournament.tournament`
and :func:`~domeng.study.ladder.ladder`) as a spec and a runtime, and the
check of their output folder."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from domeng.core.errors import DomengError
from domeng.core.rules import Rules
from domeng.players.registry import resolve_player, resolve_players
from domeng.study.runtime import Runtime, RuntimeOptions, pop_study
from domeng.study.spec import StudySpec, rule_texts


def check_out(folder: str | Path, overwrite: bool = False) -> None:
    """Refuse an output folder :meth:`TournamentResults.save` could not use
    (a file, a link, a folder holding other things or, unless ``overwrite``,
    tournament results already; an unwritable place), before anything is
    played (the folder policy of :mod:`domeng.infra.fs`)."""
    from domeng.infra.fs import check_output

    check_output(folder, "per_deal.npz", what="tournament results", force=overwrite)


class DuplicateOptions(RuntimeOptions, total=False):
    """:func:`tournament`'s and :func:`~domeng.study.ladder.ladder`'s
    keywords after ``rules``: the engine threads, the seating design, the
    folder and its plots, the spec, and the :class:`Runtime` ones."""

    workers: int | None
    orders: str
    out: str | Path | None
    fmt: str
    dpi: int
    spec: StudySpec | None


#: the study keywords of a tournament or ladder after ``rules``
DUPLICATE_STUDY = ("workers", "orders", "out", "fmt", "dpi", "spec")


def duplicate_spec(entry, study: tuple, options: Any) -> tuple[StudySpec, Runtime]:
    """The spec and runtime of a :func:`tournament` or
    :func:`~domeng.study.ladder.ladder` call (``study``: its players,
    deals, rounds, seed and rules; ``options``: its other keywords), each
    checked in one line; player objects go into the runtime (a spec names
    only their names)."""
    from domeng.study.spec import refuse_both

    kind = entry.__name__
    players, deals, rounds, seed, rules = study
    given = pop_study(options, DUPLICATE_STUDY)
    allowed = ("progress", "overwrite", "command")
    runtime = Runtime.of(
        kind, options, allowed + (("time_decisions", "chunk_deals") if kind == "tournament" else ())
    )
    spec = given.pop("spec", None)
    if spec is not None or isinstance(players, StudySpec):
        keywords = dict(players=players, deals=deals, rounds=rounds, seed=seed, rules=rules)
        spec = refuse_both(entry, players if spec is None else spec, {**keywords, **given})
        return spec, runtime
    if players is None:
        raise DomengError(
            f"a {kind} needs its {'five ' if kind == 'tournament' else ''}players (or spec=)"
        )
    if given.get("out") is not None:
        check_out(given["out"], runtime.overwrite)  # before anything is played
    rules = rules if isinstance(rules, Rules) or rules is None else Rules.parse(rules)
    for name, v in (("deals", deals), ("rounds", rounds)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise DomengError(f"{name} must be a whole number >= 1, got {v!r}")
    named = isinstance(players, str) or (
        isinstance(players, (list, tuple)) and all(isinstance(p, str) for p in players)
    )
    if named:
        names = players
    elif kind == "tournament":
        names = [p.name for p in resolve_players(players, "tournament")]
    else:
        names = [resolve_player(p, "tournament").name for p in players]
    spec = StudySpec(kind, players=names, deals=int(deals), rounds=int(rounds), seed=seed,
                     rules=rule_texts(rules), **given)  # fmt: skip
    return spec, replace(runtime, players=None if named else players)


__all__ = ["DUPLICATE_STUDY", "DuplicateOptions", "check_out", "duplicate_spec"]
