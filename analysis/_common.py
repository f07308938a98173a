"""Small helpers shared by the analysis scripts (statistics, output, plotting).

Every script does ``sys.path.insert(0, <analysis folder>)`` and imports this
module; nothing here changes the engine.  Confidence intervals are normal
approximations ``value +- 1.96 * SE`` with the SE computed across
independent units (tables, groups of tables, or deals), never across rounds:
rounds at one table are correlated through the stones, the CAMAT and the
starter (D4, D15).
"""

from __future__ import annotations

import json
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from domeng.results import stats
from domeng.results.stats import Z95, mean_se  # noqa: F401  (the one copy)
from domeng.results.stats import ratio as ratio_se  # noqa: F401  (the studies' name for it)


def est(value, se) -> dict:
    """A JSON estimate: value, SE and 95% CI."""
    value = float(value)
    se = float(se)
    if not math.isfinite(se):
        return {"value": value, "se": None, "ci95": None}
    return {"value": value, "se": se, "ci95": [value - Z95 * se, value + Z95 * se]}


def add_ci(df: pd.DataFrame, col: str, se: str | None = None, share: bool = False) -> pd.DataFrame:
    """``{col}_ci_low``, ``{col}_ci_high`` (95%; Wilson for a share)."""
    return stats.add_ci(df, col, se or f"{col}_se", share=share, prefix=f"{col}_")


def fmt_ci(value: float, se: float, digits: int = 3) -> str:
    """``v [lo, hi]`` for the write-ups."""
    return f"{value:.{digits}f} [{value - Z95 * se:.{digits}f}, {value + Z95 * se:.{digits}f}]"


def out_dir(script_file: str) -> Path:
    out = Path(script_file).resolve().parent / "output"
    out.mkdir(parents=True, exist_ok=True)
    return out


def write_csv(df: pd.DataFrame, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    df.to_csv(tmp, index=False, float_format="%.6g")
    os.replace(tmp, path)


def _jsonable(o):
    if isinstance(o, dict):
        return {str(k): _jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating, float)):
        f = float(o)
        return f if math.isfinite(f) else None
    if isinstance(o, np.ndarray):
        return _jsonable(o.tolist())
    if isinstance(o, np.bool_):
        return bool(o)
    return o


def write_json(obj: dict, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(_jsonable(obj), indent=2) + "\n")
    os.replace(tmp, path)


def environment() -> dict:
    import domeng

    return {
        "domeng_version": domeng.__version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "cpu_count": os.cpu_count(),
    }


def setup_matplotlib():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "figure.dpi": 110,
            "savefig.dpi": 110,
            "font.size": 10,
            "axes.titlesize": 11,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    )
    return plt


def save_fig(fig, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp, bbox_inches="tight")
    os.replace(tmp, path)
    import matplotlib.pyplot as plt

    plt.close(fig)


def write_timings(timer: Timer, out: Path) -> None:
    """Timings change from run to run: they go to ``output/timings.json``,
    which git ignores, so a re-run leaves the repository clean."""
    write_json({**timer.marks, "total": timer.total()}, out / "timings.json")


class Timer:
    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.marks: dict[str, float] = {}
        self._last = self.t0

    def mark(self, name: str) -> None:
        now = time.perf_counter()
        self.marks[name] = round(now - self._last, 2)
        self._last = now
        print(f"  {name}: {self.marks[name]:.1f} s", file=sys.stderr, flush=True)

    def total(self) -> float:
        return round(time.perf_counter() - self.t0, 2)


# ---------------------------------------------------------------- the ladder
def add_ladder_arguments(ap, players: str, deals: int, rounds: int, seed: int, orders: str) -> None:
    """The flags of a ``domeng.ladder`` run (analysis/ladder, analysis/leaderboard)."""
    ap.add_argument("--players", default=players, help="five to twelve players, comma-joined")
    ap.add_argument("--deals", type=int, default=deals)
    ap.add_argument("--rounds", type=int, default=rounds)
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--orders", default=orders, help="the seatings' design (all, balanced, ...)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--progress", action="store_true", help="a line per percent on stderr")


def run_ladder(args):
    """``domeng.ladder`` at the sizes of :func:`add_ladder_arguments`'s flags;
    its CPU and wall minutes (this process: the games, the compiles and the
    decision timing) go into ``meta`` (they vary from run to run)."""
    from domeng.study.ladder import ladder

    t0, c0 = time.time(), time.process_time()
    logged = [-1]

    def log(done: float, total: int) -> None:
        percent = int(100 * done // max(total, 1))
        if percent > logged[0]:
            logged[0] = percent
            stamp = time.strftime("%H:%M:%S")
            print(f"{stamp} {percent}% of {total} games", file=sys.stderr, flush=True)

    res = ladder(
        args.players,
        deals=args.deals,
        rounds=args.rounds,
        seed=args.seed,
        orders=args.orders,
        workers=args.workers,
        progress=log if args.progress else False,
    )
    res.meta["cpu_minutes"] = (time.process_time() - c0) / 60.0
    res.meta["wall_minutes"] = (time.time() - t0) / 60.0
    return res


def write_ladder(res, out: Path, **extra) -> None:
    """A ladder's ``ranking.csv``, ``margins.csv`` and ``results.json`` (its
    summary, ``extra`` and the environment) in ``out``."""
    write_csv(res.ranking(), out / "ranking.csv")
    write_csv(res.margins(), out / "margins.csv")
    write_json({**res.summary(), **extra, "environment": environment()}, out / "results.json")


def git_commit(root: Path | None = None) -> str:
    """The repository's commit (``+dirty`` if domeng/ has changes), for the
    provenance of what a script writes (trained weights)."""
    import subprocess

    root = root or Path(__file__).resolve().parents[1]
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "domeng"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        return out.stdout.strip() + ("+dirty" if dirty else "")
    except OSError:
        return "unknown"
