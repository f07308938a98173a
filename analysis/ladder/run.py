"""Study: the ladder of the built-in players (issue 13).

Every lineup of five of ``random, heavy, keeper, hunter, expert, random`` (six
players: two identical random players as a control, six lineups) plays the
same deals under every cyclic order of its players in each rotation (120
seatings per deal), with ``domeng.study.ladder``.  Ranking by net stones per
round (lower is better) with 95% intervals across deals; pairwise paired
margins.  The two random players must come out equal: their margin is the
check that the format cancels seats and neighbours.

    .venv/bin/python analysis/ladder/run.py            # about a minute on one core
    .venv/bin/python analysis/ladder/run.py --deals 20 --out /tmp/ladder   # a smoke run

The search players are left out here (their decisions cost milliseconds):
their margins against ``hunter`` and each other are in ``benchmarks/README.md``;
every built-in player is ranked on the leaderboard (``analysis/leaderboard``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import add_ladder_arguments, run_ladder, write_ladder

PLAYERS = "random,heavy,keeper,hunter,expert,random"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_ladder_arguments(ap, PLAYERS, deals=300, rounds=10, seed=13, orders="all")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    out = Path(args.out) if args.out else Path(__file__).resolve().parent / "output"
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    res = run_ladder(args)
    (out / "ladder.png").write_bytes(res.plots()["ladder"])
    write_ladder(res, out, seconds=time.time() - t0)
    print(res.to_text())
    print(f"written to {out} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
