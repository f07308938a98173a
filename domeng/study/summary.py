"""A study's parameters and its per-group summaries.

The checks of a study's parameters (:func:`count`, :func:`coerce_rules`,
:func:`default_chunk_tables`, :func:`check_budget`), how tables fall into groups
(:func:`group_of`), and the summary of the tables' final states that a
study keeps per group (:func:`summarize_state`, in the ``S_*`` layout of
:mod:`domeng.core.layout`).  Used by the chunk runner, checkpoints and
:func:`domeng.simulate`; imports nothing else of the study layer.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np

from domeng.core import layout as L
from domeng.core.errors import StudyError
from domeng.core.layout import (
    CAMATS_BINS,
    S_CAMAT_HOLDER,
    S_CAMATS,
    S_CAMATS_HIST,
    S_LEN,
    S_ROUNDS,
    S_SINCE_CAMAT,
    S_STONES,
    S_TABLE,
)
from domeng.core.rules import Rules

#: the number of groups of tables that standard errors are computed across
MAX_GROUPS = 1000
#: the default chunk holds about this many table-rounds
CHUNK_ROUNDS = 200_000
#: with records on, a chunk holds at most this many rounds (22 int64 each)
CHUNK_ROUNDS_RECORDS = 100_000
#: and never more tables than this (each table's aggregates take AGG_LEN int64)
MAX_CHUNK_TABLES = 16_384
#: the most table-rounds one study may ask for (about four months at 10^7
#: rounds/s): a larger budget cannot finish and is refused at once
MAX_TABLE_ROUNDS = 10**14
#: the most tables one study may have (the chunk plan is lazy, but the
#: progress and every chunk index must stay exact integers)
MAX_TABLES = 10**12


# ---------------------------------------------------------------- validation
def count(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise StudyError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    value = int(value)
    if value < minimum:
        raise StudyError(f"{name} must be a whole number >= {minimum}, got {value}")
    return value


def coerce_rules(rules: Rules | str | Sequence[str] | dict | None) -> Rules:
    """Rules from a :class:`Rules`, ``"name=value,..."``, a list of such
    strings, a mapping of option values, or None (the defaults)."""
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, dict):
        return Rules.from_mapping(rules)
    if isinstance(rules, str):
        return Rules.parse(rules)
    if isinstance(rules, (list, tuple)):
        for item in rules:
            if not isinstance(item, str):
                raise StudyError(f"rule options must be strings name=value, got {item!r}")
        return Rules.parse(list(rules))
    raise StudyError(
        f"rules must be Rules, a string or a list of name=value strings, got {type(rules).__name__}"
    )


def default_chunk_tables(tables: int, rounds: int, records: bool = False) -> int:
    """A chunk of about :data:`CHUNK_ROUNDS` table-rounds (fewer with
    records), at most :data:`MAX_CHUNK_TABLES` tables."""
    target = CHUNK_ROUNDS_RECORDS if records else CHUNK_ROUNDS
    return max(1, min(tables, MAX_CHUNK_TABLES, target // rounds))


def group_of(table_index: np.ndarray | int, tables: int, groups: int):
    """The group of table ``t`` (``t * G // tables``)."""
    return (np.asarray(table_index, dtype=np.int64) * groups) // tables


def summarize_state(state: np.ndarray) -> np.ndarray:
    """Per-table state ``[n, ST_LEN]`` -> per-table summary ``[n, S_LEN]``."""
    n = state.shape[0]
    out = np.zeros((n, S_LEN), dtype=np.int64)
    out[:, S_STONES : S_STONES + 5] = state[:, L.ST_STONES : L.ST_STONES + 5]
    out[:, S_TABLE] = state[:, L.ST_TABLE]
    camat = state[:, L.ST_CAMAT]
    holder = np.where(camat < 0, 5, camat)
    out[np.arange(n), S_CAMAT_HOLDER + holder] = 1
    out[:, S_CAMATS] = state[:, L.ST_CAMATS]
    out[:, S_SINCE_CAMAT] = state[:, L.ST_SINCE_CAMAT]
    out[:, S_ROUNDS] = state[:, L.ST_ROUNDS]
    bins = np.minimum(state[:, L.ST_CAMATS], CAMATS_BINS - 1)
    out[np.arange(n), S_CAMATS_HIST + bins] = 1
    return out


def check_chunk(out, n: int, rounds: int, rules: Rules, table_start: int) -> None:
    """Cheap invariants of every chunk (a broken engine must not go unnoticed)."""
    if out.agg.shape != (n, L.AGG_LEN) or out.state.shape != (n, L.ST_LEN):
        raise RuntimeError(
            f"run_tables returned shapes {out.agg.shape}, {out.state.shape} for {n} tables"
        )
    if np.any(out.agg[:, L.A_ROUNDS] != rounds) or np.any(out.state[:, L.ST_ROUNDS] != rounds):
        raise RuntimeError(
            f"run_tables did not play {rounds} rounds at every table "
            f"of the chunk starting at {table_start}"
        )
    held = out.state[:, L.ST_STONES : L.ST_STONES + 5].sum(axis=1) + out.state[:, L.ST_TABLE]
    if np.any(held != rules.stones):
        raise RuntimeError(
            f"stones not conserved (D7) in the chunk starting at table {table_start}"
        )


_count = count  # the name used before


def check_budget(tables: int, rounds: int) -> None:
    """Refuse (one line) a study that could not finish: more than
    :data:`MAX_TABLES` tables or :data:`MAX_TABLE_ROUNDS` table-rounds."""
    if tables > MAX_TABLES:
        raise StudyError(
            f"{tables:,} tables is more than this machine could play (at most {MAX_TABLES:,})"
        )
    if tables * rounds > MAX_TABLE_ROUNDS:
        raise StudyError(
            f"{tables:,} tables x {rounds:,} rounds = {tables * rounds:.3g} rounds "
            f"cannot finish (at most {MAX_TABLE_ROUNDS:.0e} rounds per study); "
            "ask for fewer"
        )


def make_progress(progress, tables: int | None, rounds: int, done0: int = 0):
    """The progress callable for ``progress=`` (True, False, None or a callable).

    True: the bar of :mod:`domeng.infra.progress` on stderr (plain lines
    when stderr is not a terminal); None: that bar only on a terminal;
    False: none; a callable is used as it is (a part of an overall bar
    (:meth:`~domeng.infra.progress.Progress.part`) is told the ``done0``
    tables a resumed study has already).  The bar measures compiles
    (:mod:`domeng.core.compiling`); it guesses nothing."""
    if progress is True:
        return _bar(tables, rounds, done0)
    if progress is None:
        return _bar(tables, rounds, done0) if sys.stderr.isatty() else None
    if progress is False:
        return None
    if callable(progress):
        if done0 and callable(getattr(progress, "skip", None)):
            progress.skip(done0)
        return progress
    raise StudyError(f"progress must be a bool, None or a callable, got {progress!r}")


def _bar(tables: int | None, rounds: int, done0: int):
    from domeng.infra.progress import Progress

    return Progress(tables, unit="table", per_item=rounds, rate_unit="rounds", done0=done0)


_check_chunk = check_chunk
