#!/usr/bin/env python
"""Engine benchmark of domeng: every figure of issue 3 ("Speed and memory"),
measured side by side in one run.

    make bench                                  # installs the bench extra first
    .venv/bin/python benchmarks/bench_engine.py [--big] [--json] [--repeat N]

What it measures (each timing is repeated ``--repeat`` times, default 3, and
the best is kept; the repeats of the cases compared in a ratio are
interleaved, so a burst of load from another process hits both sides):

1. the kernel (``domeng.batch.tables.run_tables``), default rules, ``random``
   players, full aggregation (aggregate mode, no per-round records):
   rounds/s with 1 and with 2 threads, and the 2-vs-1 ratio;
2. the kernel with each heuristic player at all five seats and with a mix of
   them, 1 thread;
3. the reference engine (``domeng.batch.reference.run_reference``, random
   players) and the kernel/reference ratio;
4. the ``dominoes`` package from PyPI: random games/s (``Game.new()`` then
   ``make_move(*random.choice(game.valid_moves))`` until ``game.result``;
   the library passes automatically) and the kernel-rounds/dominoes-games
   ratio -- skipped, with a note, if ``dominoes`` does not import; for
   information also with the library's own ``dominoes.players.random``;
5. peak RSS of a subprocess running ``domeng.simulate(..., progress=False)``
   in aggregate mode: 10 million rounds by default, 100 million with ``--big``
   (the target is stated for 100 million);
6. compile time: a fresh subprocess with an empty numba cache
   (``NUMBA_CACHE_DIR`` = a new temporary directory), from process start to
   the first ``run_tables`` call of a tiny ``simulate`` returning, with the
   main compile phases (numba's event API); then later subprocesses with
   that cache warm, same measure.

The machine may be shared: the script prints the load average and, for each
in-process section, how many cores other processes used meanwhile (from
``/proc/stat``) and the CPU/wall ratio of the best run, so a noisy figure
can be recognised as such.

``--json`` prints the figures as one JSON object on stdout (the human
report then goes to stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

# the kernel passes players as first-class functions; numba warns on each compile
warnings.filterwarnings("ignore", message="First-class function type feature is experimental")

ROOT = Path(__file__).resolve().parent.parent
# benchmark the checkout this script belongs to (installed editable or not)
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

# ---------------------------------------------------------------- targets
T_ONE_CORE = 2e6          # rounds/s, random players, 1 thread
T_TWO_CORES = 1.8         # 2-thread / 1-thread
T_HEURISTIC = 1e6         # rounds/s per core, heuristic players
T_VS_REFERENCE = 150.0    # kernel / reference engine
T_VS_DOMINOES = 400.0     # kernel rounds/s / dominoes games/s
T_RSS_MB = 500.0          # peak RSS, 100M-round study, aggregate mode
T_COMPILE_S = 20.0        # cold cache: process start -> first run_tables returns
T_WARM_S = 2.0            # warm cache: process start -> first run_tables returns

# ---------------------------------------------------------------- workload sizes
KERNEL_TABLES, KERNEL_ROUNDS = 2000, 1000       # 2M rounds per timing (random players)
HEUR_TABLES, HEUR_ROUNDS = 2000, 500            # 1M rounds per timing (heuristics)
REF_TABLES, REF_ROUNDS = 10, 300                # 3,000 rounds per timing (reference)
DOMINOES_GAMES = 5000
SEED = 1
HEURISTIC_CASES = [
    ("heavy", "heavy"),
    ("keeper", "keeper"),
    ("hunter", "hunter"),
    ("mix", "heavy,keeper,hunter,heavy,keeper"),
]

OUT = sys.stdout  # the human report (stderr with --json)


def say(*a) -> None:
    print(*a, file=OUT, flush=True)


# ---------------------------------------------------------------- machine and load
def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def _proc_stat() -> tuple[int, int, int] | None:
    """(busy, steal, total) jiffies of all CPUs, or None off Linux."""
    try:
        f = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    except (OSError, ValueError, IndexError):
        return None
    idle = f[3] + (f[4] if len(f) > 4 else 0)
    steal = f[7] if len(f) > 7 else 0
    total = sum(f[:8])
    return total - idle - steal, steal, total


def _self_jiffies() -> int | None:
    try:
        f = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        return int(f[11]) + int(f[12])  # utime + stime, all threads
    except (OSError, ValueError, IndexError):
        return None


class OtherLoad:
    """Cores used by other processes (and stolen by the hypervisor) while
    the ``with`` block ran, from /proc/stat minus this process's own time."""

    def __enter__(self):
        self.s0, self.j0, self.t0 = _proc_stat(), _self_jiffies(), time.perf_counter()
        return self

    def __exit__(self, *exc):
        s1, j1 = _proc_stat(), _self_jiffies()
        dt = time.perf_counter() - self.t0
        self.other = self.steal = None
        if self.s0 and s1 and self.j0 is not None and j1 is not None and dt > 0:
            hz = os.sysconf("SC_CLK_TCK")
            self.other = max(0.0, ((s1[0] - self.s0[0]) - (j1 - self.j0)) / hz / dt)
            self.steal = (s1[1] - self.s0[1]) / hz / dt
        return False

    def text(self) -> str:
        if self.other is None:
            return "load by others: n/a"
        return f"other processes used {self.other:.2f} cores meanwhile (steal {self.steal:.2f})"


def wait_quiet(max_wait: float, threshold: float = 0.25, window: float = 3.0) -> str:
    """Wait (up to ``max_wait`` s) for a ``window`` in which other processes
    use under ``threshold`` cores; returns what happened, for the report."""
    if max_wait <= 0:
        return ""
    t0 = time.perf_counter()
    while True:
        with OtherLoad() as ol:
            time.sleep(window)
        waited = time.perf_counter() - t0
        if ol.other is None:
            return "cannot read /proc/stat: did not wait"
        if ol.other < threshold:
            return f"waited {waited:.0f} s for a quiet moment (others {ol.other:.2f} cores)"
        if waited >= max_wait:
            return f"no quiet moment in {waited:.0f} s (others {ol.other:.2f} cores): measuring anyway"


# ---------------------------------------------------------------- timing
def interleaved(cases: list[tuple[str, callable]], repeat: int) -> dict[str, dict]:
    """Run each case ``repeat`` times, the cases interleaved; keep the best
    (shortest) run of each.  A case returns the number of work units done."""
    best: dict[str, dict] = {}
    for _ in range(repeat):
        for name, fn in cases:
            c0, t0 = time.process_time(), time.perf_counter()
            units = fn()
            wall = time.perf_counter() - t0
            cpu = time.process_time() - c0
            b = best.get(name)
            if b is None or wall < b["wall_s"]:
                best[name] = {"units": units, "wall_s": wall, "cpu_per_wall": cpu / wall,
                              "rate": units / wall, "rate_cpu": units / cpu if cpu > 0 else None}
    return best


def fmt_rate(r: float | None) -> str:
    if r is None:
        return "n/a"
    if r >= 1e6:
        return f"{r / 1e6:.2f}M/s"
    if r >= 1e3:
        return f"{r / 1e3:.2f}k/s"
    return f"{r:.0f}/s"


# ---------------------------------------------------------------- sections
def bench_kernel(repeat: int, fig: dict, met: list, quiet: float = 0.0) -> None:
    import numba

    from domeng.core import layout as L
    from domeng.batch.tables import run_tables
    from domeng.players.registry import make_player
    from domeng.batch.reference import run_reference
    from domeng.core.rules import Rules

    rules = Rules()
    t0 = time.perf_counter()
    run_tables("random", rules, seed=SEED, table_start=0, n_tables=2, rounds=2)  # load (or compile) the kernel
    fig["kernel_warmup_s"] = time.perf_counter() - t0
    fig["numba_version"] = numba.__version__
    fig["numba_threads"] = int(numba.config.NUMBA_NUM_THREADS)
    try:
        fig["threading_layer"] = numba.threading_layer()
    except Exception:  # pragma: no cover
        fig["threading_layer"] = "n/a"
    say(f"kernel loaded in {fig['kernel_warmup_s']:.2f} s "
        f"(numba {numba.__version__}, threading layer {fig['threading_layer']}, "
        f"{fig['numba_threads']} threads)")

    turns = {}

    def kernel(players, tables, rounds, threads, key):
        def run():
            out = run_tables(players, rules, seed=SEED, table_start=0, n_tables=tables,
                             rounds=rounds, threads=threads)
            n = int(out.agg[:, L.A_ROUNDS].sum())
            if n != tables * rounds:
                raise RuntimeError(f"kernel played {n} rounds, expected {tables * rounds}")
            turns[key] = int(out.agg[:, L.A_TURNS].sum()) / n
            return n
        return run

    ref_players = [make_player("random") for _ in range(5)]

    def reference():
        agg, *_ = run_reference(ref_players, rules, seed=SEED, tables=REF_TABLES, rounds=REF_ROUNDS)
        return int(agg[:, L.A_ROUNDS].sum())

    dom = dominoes_case()
    two = fig["numba_threads"] >= 2

    # -- random players: 1 thread, 2 threads, reference, dominoes, interleaved
    cases = [("kernel_1t", kernel("random", KERNEL_TABLES, KERNEL_ROUNDS, 1, "random"))]
    if two:
        cases.append(("kernel_2t", kernel("random", KERNEL_TABLES, KERNEL_ROUNDS, 2, "random2")))
    cases.append(("reference", reference))
    if dom["fn"] is not None:
        cases.append(("dominoes", dom["fn"]))
        if dom.get("fn_lib") is not None:
            cases.append(("dominoes_lib", dom["fn_lib"]))
    note = wait_quiet(quiet)
    say(f"\n[1] kernel (random players, {KERNEL_TABLES} tables x {KERNEL_ROUNDS} rounds), "
        f"reference engine ({REF_TABLES} x {REF_ROUNDS}), dominoes ({DOMINOES_GAMES} games); "
        f"interleaved, best of {repeat} ..." + (f"\n    ({note})" if note else ""))
    with OtherLoad() as ol:
        best = interleaved(cases, repeat)
    say("    " + ol.text())
    fig["load_section_random"] = {"other_cores": ol.other, "steal_cores": ol.steal}

    k1 = best["kernel_1t"]
    fig["kernel_random_1t_rounds_per_s"] = k1["rate"]
    fig["kernel_random_1t_cpu_per_wall"] = k1["cpu_per_wall"]
    fig["kernel_random_1t_rounds_per_cpu_s"] = k1["rate_cpu"]
    fig["turns_per_round_random"] = turns["random"]
    fig["kernel_random_1t_ns_per_turn"] = 1e9 / (k1["rate"] * turns["random"])
    say(f"    kernel 1 thread : {fmt_rate(k1['rate'])} rounds  (CPU/wall {k1['cpu_per_wall']:.2f}, "
        f"{fmt_rate(k1['rate_cpu'])} per CPU-second, "
        f"{turns['random']:.1f} turns/round, {fig['kernel_random_1t_ns_per_turn']:.1f} ns/turn)")
    met.append(("kernel, random, 1 thread", fmt_rate(k1["rate"]) + " rounds",
                ">= 2.00M/s", k1["rate"] >= T_ONE_CORE))
    if two:
        k2 = best["kernel_2t"]
        fig["kernel_random_2t_rounds_per_s"] = k2["rate"]
        fig["kernel_random_2t_cpu_per_wall"] = k2["cpu_per_wall"]
        fig["kernel_2t_vs_1t"] = k2["rate"] / k1["rate"]
        say(f"    kernel 2 threads: {fmt_rate(k2['rate'])} rounds  (CPU/wall {k2['cpu_per_wall']:.2f}); "
            f"2-vs-1 = {fig['kernel_2t_vs_1t']:.2f}x")
        # rounds per CPU-second, 2 threads vs 1: the parallel overhead, whatever the load
        # (numba's idle OpenMP threads may spin, which counts as CPU time)
        eff = k2["rate_cpu"] / k1["rate_cpu"] if k2["rate_cpu"] and k1["rate_cpu"] else None
        fig["kernel_2t_cpu_efficiency"] = eff
        fig["kernel_2t_got_two_cores"] = k2["cpu_per_wall"] >= 1.8
        if eff is not None:
            say(f"    2 threads: {fmt_rate(k2['rate_cpu'])} rounds per CPU-second = {eff:.2f} of the "
                f"1-thread figure (with two free cores the 2-vs-1 ratio would be about {2 * eff:.2f}x)")
        if k2["cpu_per_wall"] < 1.8:
            say(f"    WARNING: the 2-thread run got only {k2['cpu_per_wall']:.2f} cores of CPU: other "
                "processes held the second core, so the 2-vs-1 ratio measures the load, not the kernel")
        met.append(("kernel, random, 2 threads", fmt_rate(k2["rate"]) + " rounds", "", None))
        met.append(("2 threads vs 1" + ("" if fig["kernel_2t_got_two_cores"] else " (no 2 free cores!)"),
                    f"{fig['kernel_2t_vs_1t']:.2f}x", ">= 1.80x", fig["kernel_2t_vs_1t"] >= T_TWO_CORES))
    else:
        fig["kernel_2t_vs_1t"] = None
        say("    only one numba thread available: 2-thread figure skipped")
        met.append(("2 threads vs 1", "n/a (1 core)", ">= 1.80x", None))

    ref = best["reference"]
    fig["reference_rounds_per_s"] = ref["rate"]
    fig["reference_cpu_per_wall"] = ref["cpu_per_wall"]
    fig["kernel_vs_reference"] = k1["rate"] / ref["rate"]
    say(f"    reference engine: {fmt_rate(ref['rate'])} rounds (CPU/wall {ref['cpu_per_wall']:.2f}); "
        f"kernel (1 thread) / reference = "
        f"{fig['kernel_vs_reference']:.0f}x")
    met.append(("reference engine, random", fmt_rate(ref["rate"]) + " rounds", "", None))
    met.append(("kernel (1 thread) / reference", f"{fig['kernel_vs_reference']:.0f}x", ">= 150x",
                fig["kernel_vs_reference"] >= T_VS_REFERENCE))

    fig["dominoes_version"] = dom["version"]
    if dom["fn"] is not None:
        d = best["dominoes"]
        fig["dominoes_games_per_s"] = d["rate"]
        fig["dominoes_cpu_per_wall"] = d["cpu_per_wall"]
        fig["kernel_vs_dominoes"] = k1["rate"] / d["rate"]
        say(f"    dominoes {dom['version']}: {fmt_rate(d['rate'])} random games (CPU/wall "
            f"{d['cpu_per_wall']:.2f}); kernel rounds (1 thread) "
            f"/ dominoes games = {fig['kernel_vs_dominoes']:.0f}x")
        met.append((f"dominoes {dom['version']}, random games", fmt_rate(d["rate"]) + " games", "", None))
        if "dominoes_lib" in best:
            dl = best["dominoes_lib"]
            fig["dominoes_players_random_games_per_s"] = dl["rate"]
            fig["kernel_vs_dominoes_players_random"] = k1["rate"] / dl["rate"]
            say(f"    dominoes with its own players.random: {fmt_rate(dl['rate'])} games; kernel / that = "
                f"{fig['kernel_vs_dominoes_players_random']:.0f}x (information only)")
        met.append(("kernel rounds / dominoes games", f"{fig['kernel_vs_dominoes']:.0f}x", ">= 400x",
                    fig["kernel_vs_dominoes"] >= T_VS_DOMINOES))
    else:
        fig["dominoes_games_per_s"] = None
        fig["kernel_vs_dominoes"] = None
        fig["dominoes_skipped"] = dom["why"]
        say(f"    dominoes: SKIPPED ({dom['why']})")
        met.append(("kernel rounds / dominoes games", "skipped", ">= 400x", None))

    # -- heuristic players, 1 thread, interleaved
    cases = [(name, kernel(p, HEUR_TABLES, HEUR_ROUNDS, 1, name)) for name, p in HEURISTIC_CASES]
    note = wait_quiet(quiet)
    say(f"\n[2] kernel, heuristic players, 1 thread ({HEUR_TABLES} tables x {HEUR_ROUNDS} rounds), "
        f"best of {repeat} ..." + (f"\n    ({note})" if note else ""))
    with OtherLoad() as ol:
        best = interleaved(cases, repeat)
    say("    " + ol.text())
    fig["load_section_heuristic"] = {"other_cores": ol.other, "steal_cores": ol.steal}
    fig["kernel_heuristic_1t_rounds_per_s"] = {}
    fig["kernel_heuristic_1t_rounds_per_cpu_s"] = {}
    for name, p in HEURISTIC_CASES:
        b = best[name]
        fig["kernel_heuristic_1t_rounds_per_s"][name] = b["rate"]
        fig["kernel_heuristic_1t_rounds_per_cpu_s"][name] = b["rate_cpu"]
        ns = 1e9 / (b["rate"] * turns[name])
        say(f"    {name:6s} ({p}): {fmt_rate(b['rate'])} rounds  (CPU/wall {b['cpu_per_wall']:.2f}, "
            f"{fmt_rate(b['rate_cpu'])} per CPU-second, "
            f"{turns[name]:.1f} turns/round, {ns:.1f} ns/turn)")
        met.append((f"kernel, {name}, 1 thread", fmt_rate(b["rate"]) + " rounds", ">= 1.00M/s",
                    b["rate"] >= T_HEURISTIC))
    fig["heuristic_mix"] = dict(HEURISTIC_CASES)["mix"]


def dominoes_case() -> dict:
    """The dominoes-package random game, or why it is unavailable."""
    try:
        import dominoes
    except Exception as e:  # not installed, or broken
        return {"fn": None, "version": None,
                "why": f"cannot import dominoes ({type(e).__name__}: {e}); "
                       "install it with: .venv/bin/pip install dominoes"}
    try:
        from importlib.metadata import version
        ver = version("dominoes")
    except Exception:
        ver = "?"
    rng = random.Random(SEED)

    def run():
        rng.seed(SEED)
        for _ in range(DOMINOES_GAMES):
            g = dominoes.Game.new()
            while g.result is None:
                g.make_move(*rng.choice(g.valid_moves))
        return DOMINOES_GAMES

    def run_lib():  # the same with the library's own random player (it sorts valid_moves)
        rand_state = random.getstate()
        random.seed(SEED)
        try:
            for _ in range(DOMINOES_GAMES):
                g = dominoes.Game.new()
                while g.result is None:
                    dominoes.players.random(g)
                    g.make_move(*g.valid_moves[0])
        finally:
            random.setstate(rand_state)
        return DOMINOES_GAMES

    try:  # one game as a smoke test of the API
        g = dominoes.Game.new()
        while g.result is None:
            g.make_move(*rng.choice(g.valid_moves))
    except Exception as e:
        return {"fn": None, "version": ver, "why": f"dominoes {ver} API failed: {type(e).__name__}: {e}"}
    try:
        g = dominoes.Game.new()
        dominoes.players.random(g)
        lib = run_lib
    except Exception:
        lib = None
    return {"fn": run, "fn_lib": lib, "version": ver, "why": None}


# ---------------------------------------------------------------- subprocesses
def child_env(extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("NUMBA_DISABLE_JIT", None)
    if extra:
        env.update(extra)
    return env


def run_child(code: str, args: list[str], env: dict, timeout: float) -> tuple[dict, float, float]:
    """Run ``python -c code args``; returns (its JSON line, time.time() before
    spawning, wall seconds)."""
    t_spawn = time.time()
    p = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=str(ROOT),
                       capture_output=True, text=True, timeout=timeout)
    wall = time.time() - t_spawn
    if p.returncode != 0:
        raise RuntimeError(f"benchmark subprocess failed ({p.returncode}):\n{p.stderr[-3000:]}")
    line = [x for x in p.stdout.splitlines() if x.startswith("{")][-1]
    return json.loads(line), t_spawn, wall


RSS_CHILD = r"""
import json, resource, sys, time
from pathlib import Path

def status(key):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024.0  # MB
    return None

tables, rounds = int(sys.argv[1]), int(sys.argv[2])
import domeng
from domeng.core import layout as L
t0 = time.perf_counter()
domeng.simulate(tables=2, rounds=2, progress=False)  # imports and compiled code loaded
warmup = time.perf_counter() - t0
before = status("VmRSS")
hwm_warmup = status("VmHWM")
try:  # reset the peak (VmHWM), so that a compilation in the warm-up is not counted
    Path("/proc/self/clear_refs").write_text("5")
    reset = status("VmHWM") <= before + 1
except OSError:
    reset = False
t0 = time.perf_counter()
res = domeng.simulate(tables=tables, rounds=rounds, progress=False)
wall = time.perf_counter() - t0
played = int(res.group_agg[:, L.A_ROUNDS].sum())
print(json.dumps({"rss_before_mb": before, "hwm_warmup_mb": hwm_warmup, "warmup_s": warmup,
                  "hwm_reset": reset, "vmhwm_mb": status("VmHWM"), "rss_end_mb": status("VmRSS"),
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
                  "rounds": played, "wall_s": wall}))
"""

START_CHILD = r"""
import json, os, resource, sys, time
t_imp0 = time.time()
import domeng
import domeng.study.simulate, domeng.results.results, domeng.batch.tables  # everything simulate needs
t_imp1 = time.time()
recorders = []
if os.environ.get("DOMENG_BENCH_EVENTS"):  # where the compile time goes (numba's event API)
    try:
        from numba.core import event
        recorders = [(k, event.install_recorder(k)) for k in ("numba:run_pass", "numba:llvm_lock")]
        recorders = [(k, cm, cm.__enter__()) for k, cm in recorders]
    except Exception:
        recorders = []
first = []
def progress(done, total):  # called right after each run_tables call (chunk)
    if not first:
        first.append(time.time())
        ru = resource.getrusage(resource.RUSAGE_SELF)
        first.append(ru.ru_utime + ru.ru_stime)
domeng.simulate(tables=2, rounds=2, progress=progress)
t_end = time.time()

def union(intervals):
    tot, end = 0.0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            tot += b - a
            end = b
        elif b > end:
            tot += b - end
            end = b
    return tot

phases = {}
for kind, cm, rec in recorders:
    cm.__exit__(None, None, None)
    open_, spans = {}, {}
    for ts, ev in rec.buffer:
        name = ev.data.get("name", kind) if isinstance(ev.data, dict) else kind
        if kind == "numba:llvm_lock":
            name = "llvm"
        elif name.startswith("inline_inlinables"):
            name = "inline_inlinables"
        elif name.startswith("nopython_type_inference"):
            name = "type_inference (incl. inlining)"
        elif name.startswith("native_lowering"):
            name = "native_lowering (incl. llvm)"
        else:
            continue
        if ev.is_start:
            open_.setdefault(name, []).append(ts)
        elif open_.get(name):
            spans.setdefault(name, []).append((open_[name].pop(), ts))
    for name, iv in spans.items():
        phases[name] = union(iv)
cache = os.environ.get("NUMBA_CACHE_DIR")
n_files = sum(len(f) for _, _, f in os.walk(cache)) if cache else None
print(json.dumps({"t_imp0": t_imp0, "t_imp1": t_imp1, "t_first": first[0], "t_end": t_end,
                  "cpu_first": first[1], "cache_files": n_files, "phases": phases,
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}))
"""


def bench_rss(big: bool, fig: dict, met: list) -> None:
    total = 100_000_000 if big else 10_000_000
    rounds = 1000
    tables = total // rounds
    say(f"\n[3] peak RSS of a subprocess running domeng.simulate(tables={tables:,}, rounds={rounds}, "
        f"progress=False): {total / 1e6:.0f} million rounds, aggregate mode"
        + ("" if big else " (the target is for 100 million: run with --big)") + " ...")
    r, _, wall = run_child(RSS_CHILD, [str(tables), str(rounds)], child_env(), timeout=3600)
    if r["rounds"] != total:
        raise RuntimeError(f"simulate played {r['rounds']} rounds, expected {total}")
    # the study's peak: VmHWM reset after the warm-up (which may have compiled,
    # if the numba cache was stale); else the whole process's peak
    peak = r["vmhwm_mb"] if r["hwm_reset"] else r["maxrss_mb"]
    fig["rss_study_rounds"] = total
    fig["rss_peak_mb"] = peak
    fig["rss_peak_includes_warmup"] = not r["hwm_reset"]
    fig["rss_process_lifetime_peak_mb"] = r["maxrss_mb"]
    fig["rss_before_study_mb"] = r["rss_before_mb"]
    fig["rss_end_mb"] = r["rss_end_mb"]
    fig["rss_child_warmup_s"] = r["warmup_s"]
    fig["rss_study_wall_s"] = r["wall_s"]
    fig["simulate_rounds_per_s_all_threads"] = total / r["wall_s"]
    say(f"    peak RSS during the study {peak:.0f} MB"
        + (" (VmHWM reset after the warm-up)" if r["hwm_reset"] else " (whole process)")
        + f"; RSS before it {r['rss_before_mb']:.0f} MB, after it {r['rss_end_mb']:.0f} MB")
    say(f"    whole-process peak {r['maxrss_mb']:.0f} MB; the warm-up (imports + a tiny study) took "
        f"{r['warmup_s']:.1f} s" + (" -- it compiled (stale numba cache)" if r["warmup_s"] > 5 else ""))
    say(f"    the study took {r['wall_s']:.1f} s = {fmt_rate(total / r['wall_s'])} rounds end to end "
        f"on all threads")
    label = "peak RSS, 100M-round study" if big else "peak RSS, 10M-round study*"
    met.append((label, f"{peak:.0f} MB", "< 500 MB (100M)", peak < T_RSS_MB))


def bench_start(repeat: int, cold_repeat: int, fig: dict, met: list, quiet: float = 0.0) -> None:
    note = wait_quiet(quiet)
    say(f"\n[4] start-up: process start -> first run_tables call of a tiny domeng.simulate returns; "
        f"cold numba cache ({cold_repeat} run(s)), then warm cache (best of {repeat}) ..."
        + (f"\n    ({note})" if note else ""))
    cold, warm = [], []
    for _ in range(cold_repeat):
        with tempfile.TemporaryDirectory(prefix="domeng-bench-numba-") as cache:
            env = child_env({"NUMBA_CACHE_DIR": cache})
            r, t_spawn, _ = run_child(START_CHILD, [], dict(env, DOMENG_BENCH_EVENTS="1"),
                                      timeout=600)
            cold.append({"total_s": r["t_first"] - t_spawn, "imports_s": r["t_imp1"] - t_spawn,
                         "first_call_s": r["t_first"] - r["t_imp1"], "cache_files": r["cache_files"],
                         "cpu_s": r["cpu_first"], "maxrss_mb": r["maxrss_mb"],
                         "phases": r["phases"]})
            if not warm:  # the warm runs reuse the first cache this loop filled
                for _ in range(repeat):
                    r, t_spawn, _ = run_child(START_CHILD, [], env, timeout=600)
                    warm.append({"total_s": r["t_first"] - t_spawn, "imports_s": r["t_imp1"] - t_spawn,
                                 "first_call_s": r["t_first"] - r["t_imp1"], "cpu_s": r["cpu_first"]})
    c = min(cold, key=lambda x: x["total_s"])
    w = min(warm, key=lambda x: x["total_s"])
    fig["cold_start_s"] = c["total_s"]
    fig["cold_imports_s"] = c["imports_s"]
    fig["cold_first_call_s"] = c["first_call_s"]
    fig["cold_cache_files_written"] = c["cache_files"]
    fig["cold_cpu_s"] = c["cpu_s"]
    fig["cold_compile_peak_rss_mb"] = c["maxrss_mb"]
    fig["warm_cpu_s"] = w["cpu_s"]
    fig["cold_compile_phases_s"] = c["phases"]
    fig["warm_start_s"] = w["total_s"]
    fig["warm_imports_s"] = w["imports_s"]
    fig["warm_first_call_s"] = w["first_call_s"]
    say(f"    cold cache: {c['total_s']:.2f} s (imports {c['imports_s']:.2f} s, first call with "
        f"compilation {c['first_call_s']:.2f} s; CPU time {c['cpu_s']:.1f} s; "
        f"{c['cache_files']} cache files written; peak RSS while compiling {c['maxrss_mb']:.0f} MB)")
    if c["phases"]:
        say("    compile phases (wall, nested phases overlap): "
            + ", ".join(f"{k} {v:.1f} s" for k, v in sorted(c["phases"].items(), key=lambda x: -x[1])))
    say(f"    warm cache: {w['total_s']:.2f} s (imports {w['imports_s']:.2f} s, first call "
        f"{w['first_call_s']:.2f} s; CPU time {w['cpu_s']:.1f} s)")
    met.append(("compile (cold cache), start->first call", f"{c['total_s']:.1f} s", "< 20 s",
                c["total_s"] < T_COMPILE_S))
    met.append(("warm cache, start->first call", f"{w['total_s']:.2f} s", "< 2 s",
                w["total_s"] < T_WARM_S))


# ---------------------------------------------------------------- main
def git_state() -> dict:
    def git(*a):
        try:
            return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True,
                                  timeout=10).stdout.rstrip()
        except Exception:
            return ""
    dirty = [ln[3:] for ln in git("status", "--porcelain", "--", "domeng").splitlines()]
    return {"commit": git("rev-parse", "--short", "HEAD").strip() or None, "domeng_modified": dirty}


def main(argv=None) -> int:
    global OUT
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--big", action="store_true",
                    help="peak RSS of a 100-million-round study (default: 10 million)")
    ap.add_argument("--json", action="store_true",
                    help="print the figures as JSON on stdout (the report goes to stderr)")
    ap.add_argument("--repeat", type=int, default=3, help="timings per figure, best kept (default 3)")
    ap.add_argument("--cold-repeat", type=int, default=1,
                    help="cold-cache compile runs (each takes seconds; default 1)")
    ap.add_argument("--wait-quiet", type=float, default=0.0, metavar="SECONDS",
                    help="before each timed section, wait up to SECONDS for other processes "
                         "to use under 0.25 cores (default 0: do not wait)")
    ap.add_argument("--skip-subprocess", action="store_true",
                    help="skip the RSS and start-up subprocesses (quick look at the speeds)")
    a = ap.parse_args(argv)
    if a.json:
        OUT = sys.stderr
    t_start = time.perf_counter()

    fig: dict = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "cpu_model": cpu_model(), "nproc": os.cpu_count(),
        "python": platform.python_version(), "numpy": np.__version__,
        "loadavg_start": loadavg(), **git_state(), "repeat": a.repeat,
    }
    met: list[tuple[str, str, str, bool | None]] = []
    say(f"domeng engine benchmark  {fig['date']}")
    say(f"machine: {fig['nproc']} cores, {fig['cpu_model']}; Python {fig['python']}, numpy {fig['numpy']}")
    say(f"checkout: {ROOT} at {fig['commit']}"
        + (f" + uncommitted changes in {', '.join(fig['domeng_modified'])}" if fig["domeng_modified"] else ""))
    say(f"load average at start: {fig['loadavg_start']} (1, 5, 15 min) on {fig['nproc']} cores")

    bench_kernel(a.repeat, fig, met, a.wait_quiet)
    if not a.skip_subprocess:
        bench_rss(a.big, fig, met)
        bench_start(a.repeat, max(1, a.cold_repeat), fig, met, a.wait_quiet)
    fig["loadavg_end"] = loadavg()
    fig["bench_wall_s"] = time.perf_counter() - t_start

    say("\n" + "=" * 78)
    w1 = max(len(m[0]) for m in met)
    w2 = max(len(m[1]) for m in met)
    w3 = max(len(m[2]) for m in met)
    say(f"{'figure':{w1}}  {'measured':>{w2}}  {'target':{w3}}  met")
    say("-" * (w1 + w2 + w3 + 9))
    for name, value, target, ok in met:
        say(f"{name:{w1}}  {value:>{w2}}  {target:{w3}}  {'' if ok is None else ('yes' if ok else 'NO')}")
    say("-" * (w1 + w2 + w3 + 9))
    judged = [m for m in met if m[3] is not None]
    say(f"targets met: {sum(m[3] for m in judged)} of {len(judged)}")
    if not a.skip_subprocess and not a.big:
        say("* 10 million rounds (the default run); the target is stated for 100 million: run with --big")
    say(f"load average at end: {fig['loadavg_end']}; benchmark took {fig['bench_wall_s']:.0f} s")
    fig["targets"] = [{"figure": n, "measured": v, "target": t, "met": ok} for n, v, t, ok in met]
    if a.json:
        print(json.dumps(fig, indent=2, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
