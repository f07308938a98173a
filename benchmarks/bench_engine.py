#!/usr/bin/env python
"""Engine benchmark of domeng: every figure of issue 11 ("within 10% of
hand-written C on the full rules"), with its ratio to the C yardstick
``../shared/limit`` (build ``full``), measured in one run.

    .venv/bin/python benchmarks/bench_engine.py            # about 3-6 minutes on a quiet machine
    .venv/bin/python benchmarks/bench_engine.py --big      # the RSS study at 10^8 rounds, as the target
    .venv/bin/python benchmarks/bench_engine.py --json     # figures as JSON on stdout (report on stderr)
    # --limit DIR (default ../shared/limit beside the repository), --repeat N (default 3),
    # --scale F (workload sizes x F, for a quick look)

The script builds ``full.c`` (``full`` and ``full_replica``) into a
temporary folder with its own ``build.sh`` and runs the C programs and the
engine *interleaved*: for each repeat, the C program, then the engine, so a
burst of load from another process hits both sides.  It keeps the median of
the repeats.  Each rate is given two ways:

* wall: rounds / elapsed seconds (what the issue's targets are stated in);
* CPU: rounds / CPU seconds of the process (in-process: the kernel runs in
  a worker thread) or of the child process (C, CLI).  On a machine shared with other jobs, wall-clock rates
  fall with the load while CPU rates mostly do not; the ratios are printed
  for both.

Figures (default rules, full aggregation, one core unless said):

1. C ``full`` and ``full_replica`` (the engine's generator and draws), 10^7 rounds;
2. the engine in-process (``run_tables``, random players, ``threads=1``), 10^7 rounds;
3. the whole process ``python -m domeng simulate --tables 4000 --rounds 5000
   --players random --seed 3 --workers 1 --json`` (2x10^7 rounds) against C
   ``full`` on the same 4000 x 5000;
4. heuristic players ``heavy``, ``keeper``, ``hunter`` at all seats and a mix, 1 thread;
   ``expert`` at all seats (issue 13: at least 1 M rounds/s);
5. two threads against one (random players), and two one-thread processes
   side by side against one (what the machine's two cores allow);
6. start-up: ``python -m domeng --help``; a tiny study with a warm numba cache;
   the same with an empty cache (cold compile), random players and the
   default players (``domeng simulate`` with no ``--players``), each with the
   number of compiled specialisations (numba's dispatchers after the cold run);
7. peak RSS of a ``--workers 1`` aggregate-mode study of 10^7 rounds (10^8 with ``--big``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

T_INPROC = 0.9  # engine in-process / C full
T_PROCESS = 0.8  # whole process / C full
T_HEUR = 2e6  # rounds/s, heuristic players
T_EXPERT = 1e6  # rounds/s, five experts (issue 13)
T_THREADS = 1.9  # 2 threads / 1 thread
T_HELP = 0.3  # s, domeng --help
T_WARM = 0.5  # s, warm study start
T_COLD = 15.0  # s, cold compile
T_RSS = 300.0  # MB, 10^8-round study

ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def log(*a):
    print(*a, file=sys.stderr if ARGS.json else sys.stdout, flush=True)


def taskset(cmd):
    """Pin to core 0 where taskset exists (one core, as the issue measures)."""
    return (["taskset", "-c", "0"] + cmd) if shutil.which("taskset") else cmd


def child(cmd, env=None):
    """Run ``cmd`` in a wrapper process that reports the child's wall time,
    CPU time and peak RSS; returns (stdout, wall, cpu, maxrss MB)."""
    wrapper = (
        "import resource, subprocess, sys, time, json\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "dt = time.perf_counter() - t\n"
        "ru = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "sys.stderr.write(p.stderr)\n"
        "print(json.dumps([p.returncode, p.stdout, dt, ru.ru_utime + ru.ru_stime, "
        "ru.ru_maxrss / 1024]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", wrapper] + cmd, capture_output=True, text=True, env=env or ENV
    )
    rc, stdout, wall, cpu, rss = json.loads(out.stdout.strip().splitlines()[-1])
    if rc != 0:
        raise RuntimeError(f"{cmd} failed ({rc}): {out.stderr[-2000:]}")
    return stdout, wall, cpu, rss


def run_c(exe, tables, rounds, seed=3):
    out, _wall, _cpu, _ = child(taskset([exe, str(tables), str(rounds), str(seed)]))
    d = dict(kv.split("=", 1) for kv in out.split())
    n = tables * rounds
    return n / float(d["seconds"]), n / float(d["cpu_s"])


def run_engine(players, tables, rounds, threads=1, seed=3):
    from domeng.batch.tables import run_tables

    t, c = time.perf_counter(), time.process_time()
    out = run_tables(players, seed=seed, n_tables=tables, rounds=rounds, threads=threads)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    n = int(out.agg[:, 0].sum())
    assert n == tables * rounds
    return n / dt, (n / dc if threads == 1 else float("nan"))


def side_by_side(tables, rounds, n):
    """Rounds per wall second of ``n`` one-thread engine processes started
    together, process ``i`` pinned to core ``i`` (the sum of their rates)."""
    code = (
        "import sys, time\nfrom domeng.batch.tables import run_tables\n"
        "run_tables('random', seed=1, n_tables=4, rounds=4, threads=1)\n"
        "t = time.perf_counter()\n"
        f"run_tables('random', seed=3, n_tables={tables}, rounds={rounds}, threads=1)\n"
        "print(time.perf_counter() - t)\n"
    )
    cores = os.cpu_count() or 1
    procs = [
        subprocess.Popen(
            (["taskset", "-c", str(i % cores)] if shutil.which("taskset") else [])
            + [sys.executable, "-c", code],
            stdout=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        for i in range(n)
    ]
    return sum(tables * rounds / float(p.communicate()[0].split()[-1]) for p in procs)


def _find_limit():
    for up in ROOT.parents:
        if (up / "shared" / "limit" / "build.sh").exists():
            return str(up / "shared" / "limit")
    return str(ROOT.parent / "shared" / "limit")


def med(xs):
    return statistics.median(xs)


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--limit",
        default=_find_limit(),
        help="the folder of full.c and build.sh (default: shared/limit beside the "
        "repository or a folder above it)",
    )
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--json", action="store_true")
    ARGS = ap.parse_args()
    sc = ARGS.scale
    F = {}
    log(
        f"machine: {platform.node()} {platform.machine()} nproc={os.cpu_count()} "
        f"load average {os.getloadavg()} python {platform.python_version()}"
    )
    F["load_before"] = os.getloadavg()[0]

    # ------------------------------------------------------------ build the C yardstick
    tmp = tempfile.mkdtemp(prefix="limit-")
    subprocess.run([str(Path(ARGS.limit) / "build.sh")], env=dict(os.environ, OUT=tmp), check=True)
    full, replica = os.path.join(tmp, "full"), os.path.join(tmp, "full_replica")

    # ------------------------------------------------------------ warm the engine's cache
    import numba

    from domeng.batch.tables import run_tables

    for p in ("random", "heavy", "keeper", "hunter", "heavy,keeper,hunter,heavy,keeper", "expert"):
        run_tables(p, seed=1, n_tables=4, rounds=4, threads=1)

    # ------------------------------------------------------------ 1, 2: C vs in-process, interleaved
    T, R = int(4000 * sc), 2500
    c_full, c_rep, eng = [], [], []
    for _ in range(ARGS.repeat):
        c_full.append(run_c(full, T, R))
        c_rep.append(run_c(replica, T, R))
        eng.append(run_engine("random", T, R))
    cw, cc = med([x[0] for x in c_full]), med([x[1] for x in c_full])
    F["c_full"] = {"wall": cw, "cpu": cc}
    F["c_full_replica"] = {"wall": med([x[0] for x in c_rep]), "cpu": med([x[1] for x in c_rep])}
    F["inproc_random_1t"] = {"wall": med([x[0] for x in eng]), "cpu": med([x[1] for x in eng])}

    # ------------------------------------------------------------ 3: whole process
    PT, PR = int(4000 * sc), 5000
    cli = [
        sys.executable,
        "-m",
        "domeng",
        "simulate",
        "--tables",
        str(PT),
        "--rounds",
        str(PR),
        "--players",
        "random",
        "--seed",
        "3",
        "--workers",
        "1",
        "--json",
    ]
    proc, c_big = [], []
    for _ in range(ARGS.repeat):
        c_big.append(run_c(full, PT, PR))
        _, wall, cpu, _ = child(taskset(cli))
        proc.append((PT * PR / wall, PT * PR / cpu))
    F["c_full_2e7"] = {"wall": med([x[0] for x in c_big]), "cpu": med([x[1] for x in c_big])}
    F["process_random_1w"] = {"wall": med([x[0] for x in proc]), "cpu": med([x[1] for x in proc])}

    # ------------------------------------------------------------ 4: heuristic players
    HT, HR = int(2000 * sc), 1000
    for p in ("heavy", "keeper", "hunter", "heavy,keeper,hunter,heavy,keeper", "expert"):
        runs = [run_engine(p, HT, HR) for _ in range(ARGS.repeat)]
        F[f"heuristic {p}"] = {"wall": med([x[0] for x in runs]), "cpu": med([x[1] for x in runs])}

    # ------------------------------------------------------------ 5: two threads
    one, two = [], []
    for _ in range(ARGS.repeat):
        one.append(run_engine("random", T, R, threads=1)[0])
        two.append(run_engine("random", T, R, threads=min(2, numba.config.NUMBA_NUM_THREADS))[0])
    F["threads"] = {"one": med(one), "two": med(two), "ratio": med(two) / med(one)}
    # the machine's own limit: two one-thread processes side by side (one per
    # core) against one alone; two threads cannot beat this ratio
    alone, pair = [], []
    for _ in range(ARGS.repeat):
        alone.append(side_by_side(T, R, 1))
        pair.append(side_by_side(T, R, 2))
    F["processes"] = {"one": med(alone), "two": med(pair), "ratio": med(pair) / med(alone)}

    # ------------------------------------------------------------ 6: start-up
    helps = [child([sys.executable, "-m", "domeng", "--help"]) for _ in range(ARGS.repeat)]
    F["help_s"] = min(h[1] for h in helps)
    F["help_cpu_s"] = min(h[2] for h in helps)
    tiny = [
        sys.executable,
        "-m",
        "domeng",
        "simulate",
        "--tables",
        "2",
        "--rounds",
        "2",
        "--players",
        "random",
        "--json",
        "--no-progress",
    ]
    warm = [child(tiny) for _ in range(ARGS.repeat)]
    F["warm_study_s"] = min(w[1] for w in warm)
    F["warm_study_cpu_s"] = min(w[2] for w in warm)
    # main(argv) returns (the `domeng` command itself ends with os._exit, skipping this count)
    count = (
        "import sys\nfrom domeng.cli.main import main\n"
        "try:\n    main(sys.argv[1:])\n"
        "except SystemExit:\n    pass\n"
        "from numba.core.dispatcher import Dispatcher\nimport gc\n"
        "n = sum(len(d.overloads) for d in gc.get_objects() if isinstance(d, Dispatcher))\n"
        "print('SPECIALISATIONS', n)\n"
    )
    # the random-only study, and the default one (`domeng simulate` with no
    # --players: random,heavy,keeper,hunter,random, `make run`'s first run)
    default = [a for a in tiny if a not in ("--players", "random")]
    for key, cmd in (("cold_study", tiny), ("cold_default", default)):
        cache = tempfile.mkdtemp(prefix="numba-cold-")
        out, cold, cold_cpu, cold_rss = child(
            [sys.executable, "-c", count] + cmd[3:], env=dict(ENV, NUMBA_CACHE_DIR=cache)
        )
        F[f"{key}_s"] = cold
        F[f"{key}_cpu_s"] = cold_cpu
        F[f"{key}_peak_rss_mb"] = cold_rss
        F[f"{key}_specialisations"] = int(out.split("SPECIALISATIONS")[-1].split()[0])
        shutil.rmtree(cache, ignore_errors=True)
    F["cold_peak_rss_mb"] = F["cold_study_peak_rss_mb"]
    F["specialisations"] = F["cold_study_specialisations"]

    # ------------------------------------------------------------ 7: memory
    MT = 20000 if ARGS.big else 2000
    _, wall, cpu, rss = child(
        [
            sys.executable,
            "-m",
            "domeng",
            "simulate",
            "--tables",
            str(MT),
            "--rounds",
            "5000",
            "--players",
            "random",
            "--workers",
            "1",
            "--json",
            "--no-progress",
        ]
    )
    F["rss"] = {"rounds": MT * 5000, "peak_mb": rss, "seconds": wall}
    F["load_after"] = os.getloadavg()[0]
    shutil.rmtree(tmp, ignore_errors=True)

    # ------------------------------------------------------------ report
    def rate(d):
        return f"{d['wall'] / 1e6:.2f} M/s wall, {d['cpu'] / 1e6:.2f} M/s CPU"

    def ratio(d, c):
        return f"{d['wall'] / c['wall']:.2f} wall, {d['cpu'] / c['cpu']:.2f} CPU"

    rows = [
        ("C full", rate(F["c_full"]), "1.00", "", ""),
        (
            "C full_replica",
            rate(F["c_full_replica"]),
            ratio(F["c_full_replica"], F["c_full"]),
            "",
            "",
        ),
        (
            "engine in-process, 1 thread",
            rate(F["inproc_random_1t"]),
            ratio(F["inproc_random_1t"], F["c_full"]),
            ">= 0.9x full",
            F["inproc_random_1t"]["wall"] / F["c_full"]["wall"] >= T_INPROC,
        ),
        (
            "whole process, --workers 1 (2x10^7)",
            rate(F["process_random_1w"]),
            ratio(F["process_random_1w"], F["c_full_2e7"]),
            ">= 0.8x full",
            F["process_random_1w"]["wall"] / F["c_full_2e7"]["wall"] >= T_PROCESS,
        ),
    ]
    for p in ("heavy", "keeper", "hunter", "heavy,keeper,hunter,heavy,keeper"):
        d = F[f"heuristic {p}"]
        rows.append(
            (f"heuristic {p}", rate(d), ratio(d, F["c_full"]), ">= 2 M/s", d["wall"] >= T_HEUR)
        )
    d = F["heuristic expert"]
    rows.append(
        ("expert x5 (issue 13)", rate(d), ratio(d, F["c_full"]), ">= 1 M/s", d["wall"] >= T_EXPERT)
    )
    th = F["threads"]
    rows += [
        (
            "two threads / one",
            f"{th['two'] / 1e6:.2f} / {th['one'] / 1e6:.2f} M/s wall",
            f"{th['ratio']:.2f}x",
            ">= 1.9x",
            th["ratio"] >= T_THREADS,
        ),
        (
            "two processes side by side / one (the machine's limit for two threads)",
            f"{F['processes']['two'] / 1e6:.2f} / {F['processes']['one'] / 1e6:.2f} M/s wall",
            f"{F['processes']['ratio']:.2f}x",
            "",
            "",
        ),
        (
            "python -m domeng --help",
            f"{F['help_s']:.2f} s wall, {F['help_cpu_s']:.2f} s CPU",
            "",
            "< 0.3 s",
            F["help_s"] < T_HELP,
        ),
        (
            "warm study start (2x2 rounds, whole process)",
            f"{F['warm_study_s']:.2f} s wall, {F['warm_study_cpu_s']:.2f} s CPU",
            "",
            "< 0.5 s",
            F["warm_study_s"] < T_WARM,
        ),
        (
            "cold compile, random 2x2 study (empty cache, whole process)",
            f"{F['cold_study_s']:.1f} s wall, {F['cold_study_cpu_s']:.1f} s CPU, "
            f"{F['specialisations']} specialisations, "
            f"{F['cold_peak_rss_mb']:.0f} MB",
            "",
            "< 15 s",
            F["cold_study_s"] < T_COLD,
        ),
        (
            "cold compile, default study (random,heavy,keeper,hunter,random; 2x2)",
            f"{F['cold_default_s']:.1f} s wall, {F['cold_default_cpu_s']:.1f} s CPU, "
            f"{F['cold_default_specialisations']} specialisations, "
            f"{F['cold_default_peak_rss_mb']:.0f} MB",
            "",
            "< 15 s",
            F["cold_default_s"] < T_COLD,
        ),
        (
            f"peak RSS, {F['rss']['rounds']:.0e} rounds, aggregate mode",
            f"{F['rss']['peak_mb']:.0f} MB",
            "",
            "< 300 MB (10^8)",
            F["rss"]["peak_mb"] < T_RSS,
        ),
    ]
    log("")
    log("| figure | measured | ratio to C full | target | met |")
    log("|---|---|---|---|---|")
    for name, m, r, t, ok in rows:
        log(f"| {name} | {m} | {r} | {t} | {'' if t == '' else ('yes' if ok else '**no**')} |")
    log(
        f"\nload average before {F['load_before']:.1f}, after {F['load_after']:.1f} "
        f"(nproc {os.cpu_count()}); wall-clock figures fall with other processes' load"
    )
    if ARGS.json:
        print(json.dumps(F, indent=1))


if __name__ == "__main__":
    main()
