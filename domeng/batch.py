"""Batch API: play many independent tables (D16) and aggregate them.

``run_tables`` is the one entry point the study layer uses.  Table ``i``
(global index ``table_start + i``) depends only on ``(seed, table index)``,
so any split of a study into chunks of table indices gives the same numbers.

(Temporary implementation on the reference engine; the numba kernel
replaces it with the same contract.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .players import make_player, parse_players
from .reference_study import run_reference
from .rules import Rules


@dataclass
class TablesOutput:
    """Per-table aggregates ``agg[n, AGG_LEN]``, final states ``state[n, ST_LEN]``
    and, on request, per-round records ``records[m, REC_LEN]`` (see :mod:`domeng.layout`)."""

    agg: np.ndarray
    state: np.ndarray
    records: np.ndarray | None = None


def run_tables(
    players: Sequence[str] | str,
    rules: Rules | None = None,
    seed: int = 0,
    table_start: int = 0,
    n_tables: int = 1,
    rounds: int = 1,
    records: bool = False,
    threads: int | None = None,
) -> TablesOutput:
    names = parse_players(players)
    agg, state, recs, _ = run_reference([make_player(n) for n in names], rules, seed,
                                        n_tables, rounds, table_start, records)
    return TablesOutput(agg, state, recs)
