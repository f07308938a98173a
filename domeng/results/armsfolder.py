"""The folders of comparisons and sweeps, read (:mod:`domeng.results.compare_report`
writes them; its docstring describes them): the manifest, the arms' folders
and their results, for :meth:`Comparison.load <domeng.results.comparison.Comparison.load>`,
:meth:`Sweep.load <domeng.results.sweep.Sweep.load>` and ``--resume``."""

from __future__ import annotations

from pathlib import Path

from domeng.core.errors import CheckpointError, ResultsError
from domeng.infra import jsontext
from domeng.infra.fs import fixed_subfolder
from domeng.results.results import Results

#: kind -> (the finished marker, the manifest (the unfinished marker))
FILES = {
    "compare": ("compare.json", "compare-manifest.json"),
    "sweep": ("sweep.json", "sweep-manifest.json"),
}
MANIFEST_FORMAT = "domeng.arms/1"
ARMS = "arms"


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
    order, and the ``command`` and ``stopping`` of its JSON."""
    folder = Path(folder)
    finished = folder / FILES[kind][0]
    try:
        done = jsontext.loads(finished.read_text(encoding="utf-8"))
        names = jsontext.loads((folder / ARMS / "arms.json").read_text(encoding="utf-8"))
        if not (
            isinstance(done, dict)
            and isinstance(names, list)
            and all(isinstance(n, str) for n in names)
        ):
            raise ValueError("not a list of arm names")
    except (OSError, ValueError, RecursionError) as e:
        raise ResultsError(
            f"{str(folder)!r} is not a finished {kind} folder: {' '.join(str(e).split())[:200]}"
        ) from None
    arms = {n: Results.load(arm_folder(folder, k)) for k, n in enumerate(names)}
    return arms, {k: done.get(k) for k in ("command", "stopping")}
