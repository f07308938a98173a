"""The folders of comparisons and sweeps, read (:mod:`domeng.results.compare_report`
writes them; its docstring describes them): the manifest, the arms' folders
and their results, for :meth:`Comparison.load <domeng.results.comparison.Comparison.load>`,
:meth:`Sweep.load <domeng.results.sweep.Sweep.load>` and ``--resume``."""

from __future__ import annotations

import json
from pathlib import Path

from domeng.core.errors import CheckpointError, ResultsError
from domeng.infra import jsontext
from domeng.infra.fs import atomic_write, fixed_subfolder
from domeng.results.meta import file_digest
from domeng.results.results import Results

#: kind -> (the finished marker, the manifest (the unfinished marker))
FILES = {
    "compare": ("compare.json", "compare-manifest.json"),
    "sweep": ("sweep.json", "sweep-manifest.json"),
}
MANIFEST_FORMAT = "domeng.arms/1"
ARMS = "arms"
#: in ``arms/``: each arm's name and the digest of its results.npz (:func:`write_arms_index`)
ARMS_INDEX = "arms.json"


def read_manifest(folder, kind: str) -> dict:
    """A comparison's (or sweep's) manifest; refuses one that is not."""
    path = Path(folder) / FILES[kind][1]
    if not Path(folder).is_dir():
        where = (
            f"{str(folder)!r} is not a folder"
            if Path(folder).exists()
            else f"no such folder {str(folder)!r}"
        )
        raise CheckpointError(f"{where} (no {kind} study to resume)")
    try:
        if path.is_symlink() or path.stat().st_size > jsontext.MAX_MANIFEST_BYTES:
            raise ValueError("not a manifest")
        m = jsontext.loads(path.read_text(encoding="utf-8"))
        if not isinstance(m, dict) or m.get("format") != MANIFEST_FORMAT or m.get("kind") != kind:
            raise ValueError(f"not a {MANIFEST_FORMAT} manifest of a {kind}")
        if not (
            isinstance(m.get("arms"), list)
            and len(m["arms"]) >= 2
            and all(
                isinstance(a, dict)
                and isinstance(a.get("name"), str)
                and isinstance(a.get("rules"), dict)
                and isinstance(a.get("players"), list)
                for a in m["arms"]
            )
        ):
            raise ValueError("bad arms")
        if len({a["name"] for a in m["arms"]}) != len(m["arms"]):
            raise ValueError("an arm is named twice")
        for key in ("tables", "rounds", "seed", "max_rounds"):
            v = m.get(key)
            if (key != "max_rounds" or v is not None) and (
                isinstance(v, bool) or not isinstance(v, int) or v < 0
            ):
                raise ValueError(f"bad {key}")
        if m.get("target_ci") is not None and not isinstance(m["target_ci"], dict):
            raise ValueError("bad target_ci")
        if kind == "sweep" and not (
            isinstance(m.get("grid"), dict)
            and isinstance(m.get("points"), list)
            and len(m["points"]) == len(m["arms"])
            and all(isinstance(v, list) for v in m["grid"].values())
            and all(isinstance(p, dict) and set(p) == set(m["grid"]) for p in m["points"])
        ):
            raise ValueError("bad grid or points")
    except FileNotFoundError:
        raise CheckpointError(f"{str(folder)!r} holds no {kind} study (no {path.name})") from None
    except (OSError, ValueError, RecursionError) as e:
        raise CheckpointError(
            f"corrupt manifest {str(path)!r}: {' '.join(str(e).split())[:200]}"
        ) from None
    return m


def arm_folder(folder, k: int) -> Path:
    """``folder/arms/K`` (``arms`` created; either being a link is refused)."""
    return fixed_subfolder(fixed_subfolder(folder, ARMS), str(k), create=False)


def load_arms(folder, kind: str) -> tuple[dict[str, Results], dict]:
    """The arms' results of a finished comparison or sweep folder, by name in
    order, and the ``command`` and ``stopping`` of its JSON; every part is
    checked against the manifest first (:func:`check_arms`, :func:`_check_arm`)."""
    folder = Path(folder)
    finished = folder / FILES[kind][0]
    try:
        done = jsontext.loads(finished.read_text(encoding="utf-8"))
        if not isinstance(done, dict):
            raise ValueError(f"{finished.name} is not an object")
    except (OSError, ValueError, RecursionError) as e:
        raise ResultsError(
            f"{str(folder)!r} is not a finished {kind} folder: {' '.join(str(e).split())[:200]}"
        ) from None
    m, names = check_arms(folder, kind)
    arms = {}
    for k, (n, arm) in enumerate(zip(names, m["arms"])):
        arms[n] = Results.load(arm_folder(folder, k))
        _check_arm(arm_folder(folder, k) / "results.npz", arms[n], arm, m)
    return arms, {k: done.get(k) for k in ("command", "stopping")}


def write_arms_index(folder, names: list[str]) -> None:
    """``arms/arms.json``: each arm's name, in the order of ``arms/K``, and the
    SHA-256 of its ``results.npz`` (already written), so that a reader can
    tell an arm's results from another's (:func:`check_arms`)."""
    index = [
        {"name": n, "sha256": file_digest(arm_folder(folder, k) / "results.npz")}
        for k, n in enumerate(names)
    ]
    atomic_write(fixed_subfolder(folder, ARMS) / ARMS_INDEX, json.dumps(index, indent=2) + "\n")


def _read_arms_index(folder: Path) -> list[tuple[str, str | None]]:
    """``(name, sha256 or None)`` of each arm in ``arms/arms.json`` (a list of
    names: a folder written before the digests were)."""
    path = folder / ARMS / ARMS_INDEX
    try:
        if path.is_symlink() or path.stat().st_size > jsontext.MAX_MANIFEST_BYTES:
            raise ValueError("not an index of arms")
        index = jsontext.loads(path.read_text(encoding="utf-8"))
        out: list[tuple[str, str | None]] = []
        for a in index if isinstance(index, list) else [None]:
            if isinstance(a, str):
                out.append((a, None))
            elif isinstance(a, dict) and isinstance(a.get("name"), str):
                digest = a.get("sha256")
                if not isinstance(digest, str):
                    raise ValueError(f"arm {a['name']!r} has no digest")
                out.append((a["name"], digest))
            else:
                raise ValueError("not a list of arms")
    except (OSError, ValueError, RecursionError) as e:
        raise ResultsError(
            f"corrupt index of arms {str(path)!r}: {' '.join(str(e).split())[:200]}"
        ) from None
    return out


def check_arms(folder, kind: str) -> tuple[dict, list[str]]:
    """Check every part of a finished comparison (or sweep) folder against
    its manifest before anything reads it: ``arms/arms.json`` names the
    manifest's arms in its order, each ``arms/K/results.npz`` has the digest
    written beside the names and is the study of arm K (rules, players,
    rounds, seed, tables).  A mismatch is one :class:`ResultsError` line
    naming the file.  Returns ``(manifest, names)``."""
    folder = Path(folder)
    m = read_manifest(folder, kind)
    index = _read_arms_index(folder)
    names, want = [n for n, _ in index], [a["name"] for a in m["arms"]]
    shown = str(folder / ARMS / ARMS_INDEX)
    if names != want:
        raise ResultsError(
            f"{shown!r} does not match {str(folder / FILES[kind][1])!r}: it lists the arms "
            f"{', '.join(names)[:200]}, the manifest {', '.join(want)[:200]}; refusing to mix "
            f"them (`domeng {kind} --resume {folder}` writes the folder again)"
        )
    for k, (name, digest) in enumerate(index):
        path = arm_folder(folder, k) / "results.npz"
        if digest is not None and path.is_file() and file_digest(path) != digest:
            raise ResultsError(
                f"{str(path)!r} is not the results file written for arm {name!r} (its digest "
                f"differs from the one in {shown!r}); refusing to mix them"
            )
    return m, names


def _check_arm(path: Path, res: Results, arm: dict, m: dict) -> None:
    """Refuse an arm's results that are not the study the manifest ``m`` says (``arm``)."""
    from domeng.core.rules import Rules

    try:
        rules = Rules.from_mapping(arm["rules"])
    except Exception as e:
        raise ResultsError(f"corrupt rules of arm {arm['name']!r} in the manifest: {e}") from None
    want = {
        "rules": rules,
        "players": list(arm["players"]),
        "rounds": m["rounds"],
        "seed": m["seed"],
    }
    if m.get("target_ci") is None:
        want["tables"] = m["tables"]
    have = {"rules": res.rules, "players": res.players, "rounds": res.rounds, "seed": res.seed}
    have["tables"] = res.tables
    for key, value in want.items():
        if have[key] != value:
            raise ResultsError(
                f"{str(path)!r} holds another study than arm {arm['name']!r} of the "
                f"manifest ({key} differs); refusing to mix them"
            )
