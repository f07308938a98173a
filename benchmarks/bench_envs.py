"""Environment throughput (issue 15): agent steps a second on one core.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_envs.py [--seconds 3]
    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_envs.py --sizes 256,4096 --seconds 1

Side by side: the vectorised env (``DomengVectorEnv``, N tables per compiled
call, ``copy=False``), the single Gymnasium env, the PettingZoo AEC env,
OpenSpiel random play of ``python_domeng`` and of OpenSpiel's own
``python_block_dominoes`` (when ``open_spiel`` is installed), and the engine
alone (``run_tables``, one thread: rounds a second, a gauge of how busy the
machine is).  An agent step is one decision of the learner (a pass it must
make counts too); the opponents (``random``) play inside the engine.  The
learner's random legal action is drawn by a small compiled helper for the
vectorised env and by numpy for the others.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

from domeng.envs.gym import DomengEnv, DomengVectorEnv

#: CPU time of this process: on a machine busy with other work, wall time
#: mostly measures the wait for a core; every figure is per CPU second
clock = time.process_time
from domeng.envs.pettingzoo import env as pz_env


@njit(cache=True)
def random_legal(mask, state, out):
    """A uniformly random legal action per row of ``mask`` (an LCG stream)."""
    for i in range(mask.shape[0]):
        n = 0
        for a in range(mask.shape[1]):
            n += mask[i, a]
        state[0] = (state[0] * 6364136223846793005 + 1442695040888963407) & 0x7FFFFFFFFFFFFFFF
        k = (state[0] >> 20) % n
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


def _vector(n: int):
    """A vector env of ``n`` tables, reset, with its action buffer and LCG state."""
    v = DomengVectorEnv(n, "random", copy=False)
    v.reset(seed=1)
    return v, np.zeros(n, dtype=np.int64), np.array([1], dtype=np.int64)


def _steps(env, seconds: float) -> float:
    """Agent steps per CPU second of ``env`` (from :func:`_vector`) for ``seconds``."""
    v, acts, st = env
    n = acts.shape[0]
    steps, t0 = 0, clock()
    while clock() - t0 < seconds:
        for _ in range(10):
            random_legal(v._t.mask, st, acts)
            v.step(acts)
        steps += 10 * n
    return steps / (clock() - t0)


def bench_vector(n: int, seconds: float) -> float:
    """Agent steps per CPU second of a vector env of ``n`` tables, after half a
    second of untimed steps (a process's first steps run slower)."""
    env = _vector(n)
    _steps(env, 0.5)
    return _steps(env, seconds)


def bench_sizes(sizes: list[int], repeat: int, seconds: float) -> dict[int, list[float]]:
    """Issue 21 item 3 ("at 4096 tables no slower per step than at 256"):
    one env per size, all built and warmed first, then timed slices of
    ``seconds`` alternated (forward, then backward) ``repeat`` times in this
    one process, so that the machine's drift falls on every size alike."""
    envs = {n: _vector(n) for n in sizes}
    for env in envs.values():
        _steps(env, 0.5)
    rates: dict[int, list[float]] = {n: [] for n in sizes}
    for r in range(repeat):
        for n in sizes if r % 2 == 0 else sizes[::-1]:
            rates[n].append(_steps(envs[n], seconds))
    return rates


def bench_single(seconds: float) -> float:
    env = DomengEnv("random")
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=1)
    steps, t0 = 0, clock()
    while clock() - t0 < seconds:
        for _ in range(100):
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, done, _, info = env.step(a)
            if done:
                _, info = env.reset()
        steps += 100
    return steps / (clock() - t0)


def _pettingzoo_game(e, rng, seed: int) -> int:
    """One random game of the AEC env; returns its agent steps."""
    e.reset(seed=seed)
    steps = 0
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps


def bench_pettingzoo(seconds: float) -> float:
    e = pz_env()
    rng = np.random.default_rng(0)
    _pettingzoo_game(e, rng, 10**6)  # a first game, untimed: the compile
    steps, games, t0 = 0, 0, clock()
    while clock() - t0 < seconds:
        steps += _pettingzoo_game(e, rng, games)
        games += 1
    return steps / (clock() - t0)


def bench_open_spiel(
    seconds: float, name: str = "python_block_dominoes"
) -> tuple[float, float] | None:
    """Random play of an OpenSpiel game: (agent steps/s, games/s)."""
    try:
        import pyspiel
        from open_spiel.python.games import block_dominoes  # noqa: F401 (registers it)

        import domeng.envs.open_spiel  # noqa: F401 (registers python_domeng)
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    rng = np.random.default_rng(0)

    def play() -> int:
        s = game.new_initial_state()
        n = 0
        while not s.is_terminal():
            if s.is_chance_node():
                acts, probs = zip(*s.chance_outcomes())
                s.apply_action(int(rng.choice(acts, p=probs)))
            else:
                s.apply_action(int(rng.choice(s.legal_actions())))
                n += 1
        return n

    play()  # a first game, untimed: the compile
    steps, games, t0 = 0, 0, clock()
    while clock() - t0 < seconds:
        steps += play()
        games += 1
    dt = clock() - t0
    return steps / dt, games / dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument(
        "--sizes",
        help="only the vector env at these table counts (e.g. 256,4096), alternated "
        "--repeat times in one process: medians and their ratios to the first",
    )
    ap.add_argument("--repeat", type=int, default=6, help="rounds of --sizes (default 6)")
    args = ap.parse_args()
    if args.sizes:
        sizes = [int(x) for x in args.sizes.split(",")]
        rates = bench_sizes(sizes, args.repeat, args.seconds)
        first = statistics.median(rates[sizes[0]])
        for n in sizes:
            med = statistics.median(rates[n])
            runs = ", ".join(f"{x / 1e6:.3f}" for x in rates[n])
            print(
                f"{n:6d} tables: median {med / 1e6:.3f} M ({med / first:.3f}x {sizes[0]}); {runs}"
            )
        return
    rows = []
    for n in (256, 1024, 4096):
        rows.append((f"DomengVectorEnv, {n} tables", bench_vector(n, args.seconds)))
    rows.append(("DomengEnv (one table)", bench_single(args.seconds)))
    rows.append(("PettingZoo AEC (all five seats)", bench_pettingzoo(args.seconds)))
    for name, rate in rows:
        print(f"{name:40s} {rate:14,.0f} agent steps/s")
    for game in ("python_domeng", "python_block_dominoes"):
        osp = bench_open_spiel(args.seconds, game)
        if osp is None:
            print(f"OpenSpiel {game}: open_spiel is not installed")
        else:
            print(
                f"{'OpenSpiel ' + game:40s} {osp[0]:14,.0f} agent steps/s ({osp[1]:,.0f} games/s)"
            )
    # the engine alone, same run: how busy the machine was (rounds a second, one thread)
    from domeng.batch.tables import run_tables

    run_tables("random", n_tables=1000, rounds=20, threads=1)
    t0 = clock()
    run_tables("random", n_tables=10_000, rounds=20, threads=1)
    print(f"{'engine run_tables(random), 1 thread':40s} {200_000 / (clock() - t0):14,.0f} rounds/s")


if __name__ == "__main__":
    main()
