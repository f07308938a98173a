"""What a study's results say about themselves: the package version, the
digest of what produced them, the array layout, JSON for numpy scalars."""

from __future__ import annotations

import hashlib
import json
import os
import zipfile

import numpy as np

from domeng.core import layout as L
from domeng.core.errors import ResultsError
from domeng.core.layout import S_LEN
from domeng.infra import jsontext


def package_version() -> str:
    """The version of domeng (``domeng.__version__``, its one place)."""
    from domeng import __version__

    return __version__


def study_digest(
    tables: int, rounds: int, seed: int, players: list, rules: dict, engine: str
) -> str:
    """A hash of what a study's numbers depend on: its counts, seed, players,
    every rule option and the engine's source hash.  Stored in the results
    (``meta["digest"]``) and in every chunk of a checkpoint, so that an
    edited seed, rule or player list is detected on resume and report."""
    text = json.dumps(
        [
            int(tables),
            int(rounds),
            int(seed),
            [str(p) for p in players],
            sorted((str(k), v) for k, v in dict(rules).items()),
            str(engine),
        ],
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _layout_meta() -> dict:
    return {
        "agg_len": L.AGG_LEN,
        "agg_fields": [[k, v[0], v[1]] for k, v in L.AGG_FIELDS.items()],
        "state_len": S_LEN,
    }


def _json_default(v):
    """numpy scalars in metadata (e.g. a rule value given as ``np.int64``) as JSON numbers."""
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.bool_):
        return bool(v)
    raise TypeError(f"{type(v).__name__} is not JSON serialisable")


def read_results_file(path: str | os.PathLike) -> tuple:
    """The arrays and metadata of a ``results.npz`` file: ``(group_agg,
    group_state, group_tables, meta)``, or one :class:`ResultsError` line for
    a file that is not one (never loading a pickle, never suggesting to)."""
    shown = str(path)
    try:
        if not zipfile.is_zipfile(path):  # numpy would try it as a pickle (never loaded)
            raise ResultsError(
                f"corrupt results file {shown!r}: unreadable, not a domeng "
                "results file (not an .npz archive)"
            )
        with np.load(path, allow_pickle=False) as z:
            agg, state, ntab = z["group_agg"], z["group_state"], z["group_tables"]
            meta = jsontext.loads(str(z["meta"]))
        if not isinstance(meta, dict):
            raise ValueError(f"meta is a JSON {type(meta).__name__}, not an object")
    except ResultsError:
        raise
    except Exception as e:  # zipfile, ValueError, KeyError, JSON errors ...
        raise ResultsError(
            f"corrupt results file {shown!r}: {type(e).__name__}: {load_error_text(e)}"
        ) from None
    return agg, state, ntab, meta


def load_error_text(e: BaseException) -> str:
    """The first line of an error reading an ``.npz`` file, without numpy's
    advice to load a pickle unsafely (``allow_pickle=``): never given."""
    text = " ".join(str(e).split())[:200]
    if "pickle" in text.lower():
        return "it holds pickled Python objects, which domeng never loads"
    return text
