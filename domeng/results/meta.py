"""What a study's results say about themselves: the package version, the
digest of what produced them, the array layout, JSON for numpy scalars."""

from __future__ import annotations

import hashlib
import json

import numpy as np

from domeng.core import layout as L
from domeng.core.layout import S_LEN


def package_version() -> str:
    """The version of domeng (``domeng.__version__``, its one place)."""
    from domeng import __version__

    return __version__


def study_digest(tables: int, rounds: int, seed: int, players: list, rules: dict,
                 engine: str) -> str:
    """A hash of what a study's numbers depend on: its counts, seed, players,
    every rule option and the engine's source hash.  Stored in the results
    (``meta["digest"]``) and in every chunk of a checkpoint, so that an
    edited seed, rule or player list is detected on resume and report."""
    text = json.dumps([int(tables), int(rounds), int(seed), [str(p) for p in players],
                       sorted((str(k), v) for k, v in dict(rules).items()), str(engine)],
                      default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _layout_meta() -> dict:
    return {"agg_len": L.AGG_LEN,
            "agg_fields": [[k, v[0], v[1]] for k, v in L.AGG_FIELDS.items()],
            "state_len": S_LEN}


def _json_default(v):
    """numpy scalars in metadata (e.g. a rule value given as ``np.int64``) as JSON numbers."""
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.bool_):
        return bool(v)
    raise TypeError(f"{type(v).__name__} is not JSON serialisable")
