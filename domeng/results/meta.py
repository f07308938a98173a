"""What a study's results say about themselves: the package version, the
digest of what produced them, the array layout, JSON for numpy scalars."""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from pathlib import Path

import numpy as np

from domeng.core import layout as L
from domeng.core.errors import DomengError, ResultsError
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


#: a study folder's manifest (written by :mod:`domeng.study.checkpoint` before the study runs)
MANIFEST = "manifest.json"


def file_digest(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's bytes (hex), e.g. of an arm's ``results.npz``."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def manifest_mismatch(folder: str | os.PathLike, meta: dict) -> str | None:
    """How results with metadata ``meta`` differ from the study that
    ``folder``'s ``manifest.json`` describes (tables, rounds, seed, players,
    rules; the tables only where it was not a study that stops on the data),
    as a few words, or None when they agree or there is no manifest.  A
    manifest that cannot be read is one :class:`ResultsError` line."""
    path = Path(folder) / MANIFEST
    if not (path.is_file() or path.is_symlink()):
        return None
    try:
        if path.is_symlink() or path.stat().st_size > jsontext.MAX_MANIFEST_BYTES:
            raise ValueError("not a study manifest")
        m = jsontext.loads(path.read_text(encoding="utf-8"))
        if not isinstance(m, dict):
            raise ValueError("not an object")
    except (OSError, ValueError, RecursionError) as e:
        raise ResultsError(
            f"corrupt manifest {str(path)!r}: {' '.join(str(e).split())[:200]}"
        ) from None
    keys = ("rounds", "seed", "players", "rules") + (() if m.get("sequential") else ("tables",))
    for key in keys:
        if m.get(key) != meta.get(key):
            if key == "rules" and isinstance(m.get(key), dict) and isinstance(meta.get(key), dict):
                diff = sorted(
                    k for k in {**m[key], **meta[key]} if m[key].get(k) != meta[key].get(k)
                )
                return f"rules ({', '.join(diff)[:120]}) differ from those of {str(path)!r}"
            return (
                f"{key}={str(meta.get(key))[:80]}, and {str(path)!r} says "
                f"{key}={str(m.get(key))[:80]}"
            )
    return None


def check_manifest(folder: str | os.PathLike, meta: dict, saving: bool = False) -> None:
    """Refuse (one :class:`ResultsError` line naming both files) the results
    ``folder/results.npz`` when they are not of the study its manifest
    describes (:func:`manifest_mismatch`): a part copied in from another
    study; ``saving``: results about to be saved there."""
    why = manifest_mismatch(folder, meta)
    if why is None:
        return
    if saving:
        raise ResultsError(
            f"refusing to save into {str(folder)!r}: these results are not of the study "
            f"its manifest describes (they have {why}); save them elsewhere"
        )
    raise ResultsError(
        f"{str(Path(folder) / 'results.npz')!r} holds another study than the folder's "
        f"manifest: it has {why}; refusing to mix them (run the study again)"
    )


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


#: what reading a damaged results file may raise: each becomes one ResultsError line
LOAD_ERRORS = (
    DomengError,
    AttributeError,
    TypeError,
    ValueError,
    KeyError,
    IndexError,
    ZeroDivisionError,
    OverflowError,
    RecursionError,
)


def check_loaded(folder: Path, path: Path, arrays: tuple, meta: dict) -> None:
    """Refuse a ``results.npz`` (``arrays``: group_agg, group_state,
    group_tables; ``meta``, its layout popped) that another version wrote or
    whose arrays and metadata do not make one study: :class:`ResultsError`,
    one line naming the file.  :meth:`domeng.Results.load` reads with it."""
    from domeng.core.rules import Rules

    agg, state, ntab = arrays
    layout = meta.pop("layout", None)
    if layout != _layout_meta():
        raise ResultsError(
            f"results in {str(folder)!r} were written with a different array layout "
            "(another domeng version); simulate again"
        )
    G = agg.shape[0] if agg.ndim == 2 else -1
    if (
        agg.shape != (G, L.AGG_LEN)
        or state.shape != (G, S_LEN)
        or ntab.shape != (G,)
        or G < 1
        or agg.dtype.kind not in "iu"
        or state.dtype.kind not in "iu"
        or ntab.dtype.kind not in "iu"
        or not all(k in meta for k in ("tables", "rounds", "seed", "rules", "players"))
    ):
        raise ResultsError(f"corrupt results file {str(path)!r}: inconsistent arrays")
    try:
        for key in ("tables", "rounds", "seed"):
            if isinstance(meta[key], bool) or not isinstance(meta[key], int) or meta[key] < 0:
                raise ValueError(f"{key} must be a whole number")
        if int(ntab.sum()) != meta["tables"]:
            raise ValueError("inconsistent arrays")
        if not isinstance(meta["rules"], dict):
            raise ValueError("rules must be an object")
        Rules.from_mapping(meta["rules"])
        players = meta["players"]
        if not (
            isinstance(players, list)
            and len(players) == 5
            and all(isinstance(p, str) and p.isprintable() and 0 < len(p) <= 200 for p in players)
        ):
            raise ValueError("players must be a list of 5 printable names")
        if int(agg[:, L.A_ROUNDS].sum()) != int(meta["tables"]) * int(meta["rounds"]):
            raise ValueError("the rounds played do not match tables x rounds")
        if "digest" in meta and meta["digest"] != study_digest(
            meta["tables"],
            meta["rounds"],
            meta["seed"],
            players,
            meta["rules"],
            meta.get("engine", ""),
        ):
            raise ValueError(
                "its seed, rules or players were edited after the study ran "
                "(they do not match the digest written with the results)"
            )
    except LOAD_ERRORS as e:
        raise ResultsError(
            f"corrupt results file {str(path)!r}: {' '.join(str(e).split()) or type(e).__name__}"
        ) from None
