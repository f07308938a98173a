"""Issue 10, item 7: Ctrl-C acts at once even inside a compiled call that
never returns (a user's compiled player that loops, a long search
decision): the call runs in a worker thread without the GIL
(:mod:`domeng.infra.interrupt`), finished chunks stay on disk, a game's
pending computer decision is not in its save.

Every wait is for an event (a line the process writes, a pipe, a prompt);
timeouts are only failure bounds."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from _crafted import Stop, stop_after

import domeng
from domeng.batch import loop
from domeng.core.errors import DomengError, EngineBusyError
from domeng.infra import interrupt as I

ROOT = Path(__file__).resolve().parents[2]
OTHERS = "random,heavy,keeper,hunter"

#: a compiled player that plays its first legal move (version A of the module)
PLAIN = textwrap.dedent("""
    from numba import njit
    from domeng.players.scoring import STRATEGY_SIG

    @njit(STRATEGY_SIG)
    def player(obs, hist, moves, n_moves, rng):
        return 0
""")

#: the same player name, now looping for ever once it has said so on stderr
LOOPING = textwrap.dedent("""
    import ctypes
    import numpy as np
    from numba import njit
    from domeng.players.scoring import STRATEGY_SIG

    _write = ctypes.CDLL(None).write
    _write.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
    _write.restype = ctypes.c_ssize_t

    @njit(STRATEGY_SIG)
    def player(obs, hist, moves, n_moves, rng):
        buf = np.empty(8, dtype=np.uint8)
        for i, c in enumerate(b"looping\\n"):
            buf[i] = c
        _write(2, buf.ctypes.data, 8)
        k = 1
        while k != 0:  # never 0: loops for ever
            k = (k * 3 + obs[0] + 1) % 1000003 + 1
        return k
""")

#: a compiled player that blocks (in the compiled code) until released
#: through a pipe: it says it started on another pipe first
BLOCKING = textwrap.dedent("""
    import ctypes
    import numpy as np
    from numba import njit
    from domeng.players.scoring import STRATEGY_SIG

    _libc = ctypes.CDLL(None)
    _write = _libc.write
    _write.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
    _write.restype = ctypes.c_ssize_t
    _read = _libc.read
    _read.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
    _read.restype = ctypes.c_ssize_t

    @njit(STRATEGY_SIG)
    def player(obs, hist, moves, n_moves, rng):
        buf = np.zeros(1, dtype=np.uint8)
        _write({started}, buf.ctypes.data, 1)
        _read({release}, buf.ctypes.data, 1)
        return 0
""")


def _env(extra_path: Path) -> dict:
    path = os.pathsep.join([str(extra_path), str(ROOT), os.environ.get("PYTHONPATH", "")])
    return dict(os.environ, PYTHONPATH=path, PYTHONDONTWRITEBYTECODE="1")


def _wait_for(stream, text: bytes, timeout: float) -> bytes:
    """Read ``stream`` until a line holding ``text`` (a failure bound, not a pace)."""
    sel = selectors.DefaultSelector()
    sel.register(stream, selectors.EVENT_READ)
    seen = b""
    deadline = time.monotonic() + timeout
    while text not in seen:
        left = deadline - time.monotonic()
        if left <= 0 or not sel.select(left):
            raise AssertionError(f"no {text!r} within {timeout} s; got {seen!r}")
        chunk = os.read(stream.fileno(), 4096)
        if not chunk:
            raise AssertionError(f"the process ended before {text!r}; got {seen!r}")
        seen += chunk
    return seen


# ------------------------------------------------------------------ unit
def test_the_compiled_entry_points_release_the_gil():
    """Without ``nogil`` the waiting main thread would never run again."""
    for fn in (
        loop.run_fast_players,
        loop.run_fast_random,
        loop.run_steps,
        loop.trace_kernel,
        loop.player_action,
        loop.builtin_action,
    ):
        assert fn.targetoptions.get("nogil") is True, fn.__name__


def test_interruptible_returns_raises_and_runs_directly_off_the_main_thread():
    assert I.interruptible(lambda a, b: a + b, 2, 3) == 5
    with pytest.raises(ZeroDivisionError):
        I.interruptible(lambda: 1 / 0)
    names = []
    t = threading.Thread(
        target=lambda: names.append(I.interruptible(lambda: threading.current_thread().name)),
        name="mine",
    )
    t.start()
    t.join()
    assert names == ["mine"]  # no extra thread off the main one


def test_an_interrupted_call_is_abandoned_and_then_waited_for(monkeypatch):
    monkeypatch.setattr(I, "ABANDONED_WAIT", 0.2)
    started, release = threading.Event(), threading.Event()

    def stuck():
        started.set()
        release.wait(120)  # a failure bound: released below
        return "late"

    def ctrl_c():
        started.wait(120)
        os.kill(os.getpid(), signal.SIGINT)

    helper = threading.Thread(target=ctrl_c)
    helper.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            I.interruptible(stuck)
        assert I.abandoned_running()
        with pytest.raises(EngineBusyError, match="still running"):
            I.interruptible(lambda: 1)
    finally:
        release.set()
        helper.join()
    deadline = time.monotonic() + 60
    while I.abandoned_running() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not I.abandoned_running()
    assert I.interruptible(lambda: 1) == 1
    assert I.leave(7) == 7  # nothing abandoned: the status, no exit


# --------------------------------------------------- a game, in process
def test_a_game_leaves_a_computer_decision_that_does_not_return(tmp_path, monkeypatch):
    """Ctrl-C during a compiled player's decision: KeyboardInterrupt at once,
    the decision is not in the record, the session refuses to go on."""
    from domeng.batch.computer import Computers
    from domeng.play.session import Session

    started_r, started_w = os.pipe()
    release_r, release_w = os.pipe()
    (tmp_path / "blockmod.py").write_text(BLOCKING.format(started=started_w, release=release_r))
    monkeypatch.syspath_prepend(str(tmp_path))
    import blockmod

    s = Session(["random"] * 5, seed=2, rounds=1)
    s.deal()
    for _ in range(3):
        s.auto_step()
    before = s.to_save()
    s.computers = Computers([blockmod.player] * 5)
    answered = threading.Event()

    def ctrl_c():
        os.read(started_r, 1)  # the compiled player has started
        os.kill(os.getpid(), signal.SIGINT)
        if not answered.wait(60):  # a failure bound: never hang the suite
            os.write(release_w, b"x")

    helper = threading.Thread(target=ctrl_c)
    helper.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            s.auto_step()
        answered.set()
        assert I.abandoned_running()  # still blocked in the compiled code
        assert s.interrupted and s.to_save() == before
        with pytest.raises(DomengError, match="interrupted"):
            s.auto_step()
    finally:
        answered.set()
        os.write(release_w, b"x")
        helper.join()
        deadline = time.monotonic() + 60
        while I.abandoned_running() and time.monotonic() < deadline:
            time.sleep(0.01)
        for fd in (started_r, started_w, release_r, release_w):
            os.close(fd)
    assert not I.abandoned_running()


# --------------------------------------------------- simulate, subprocess
@pytest.mark.slow
def test_ctrl_c_stops_simulate_inside_a_player_that_never_returns(tmp_path, monkeypatch):
    """A study whose chunk 0 is on disk; its player (same name) now loops for
    ever: SIGINT once it says so -> exit 130 at once with one line, chunk 0
    and the manifest intact, and --resume continues to the uncut results."""
    mod = tmp_path / "mods"
    mod.mkdir()
    (mod / "loopmod.py").write_text(PLAIN)
    monkeypatch.syspath_prepend(str(mod))
    players = f"loopmod:player,{OTHERS}"
    out = tmp_path / "study"
    kw = dict(tables=3, rounds=4, players=players, seed=9, chunk_tables=1)

    with pytest.raises(Stop):  # a crash once chunk 0 is saved
        domeng.simulate(checkpoint=out, progress=stop_after(1), **kw)
    chunks = sorted(p.name for p in (out / "chunks").iterdir())
    assert len(chunks) == 1
    manifest = (out / "manifest.json").read_bytes()

    (mod / "loopmod.py").write_text(LOOPING)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "domeng",
            "simulate",
            "--resume",
            str(out),
            "--players",
            players,
            "--workers",
            "1",
            "--no-progress",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(mod),
        cwd=tmp_path,
    )
    try:
        _wait_for(proc.stderr, b"looping", timeout=600)  # compiles the engine if need be
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)  # a failure bound: the player never returns
    finally:
        if proc.poll() is None:  # pragma: no cover - the failure this test guards
            proc.kill()
            proc.wait()
        err = proc.stderr.read().decode()
        proc.stdout.read()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == [
        f"domeng: interrupted; what was played is kept in {out}: go on with "
        f"`domeng simulate --resume {out}`"
    ], err
    assert sorted(p.name for p in (out / "chunks").iterdir()) == chunks
    assert (out / "manifest.json").read_bytes() == manifest
    assert not (out / "results.npz").exists()

    (mod / "loopmod.py").write_text(PLAIN)  # the resume finishes with the plain player
    sys.modules.pop("loopmod", None)
    res = domeng.resume(out, progress=False, allow_import=["loopmod"])
    ref = domeng.simulate(progress=False, **kw)
    assert res.summary() == ref.summary()


# --------------------------------------------------- play, pseudo-terminal
@pytest.mark.slow
def test_ctrl_c_during_a_search_decision_saves_and_leaves(tmp_path):
    """``domeng play`` with four search-20000 seats: Ctrl-C while the first
    one thinks offers to save, and leaves; the same after ``--load`` (the
    save replays, goes on, and is written again without the pending decision)."""
    pexpect = pytest.importorskip("pexpect")
    env = dict(
        os.environ,
        COLUMNS="80",
        LINES="24",
        TERM="xterm-256color",
        XDG_DATA_HOME=str(tmp_path / "data"),
    )
    save = tmp_path / "game.json"
    seats = "search-20000,search-20000,search-20000,search-20000,human"

    def play(*args):
        return pexpect.spawn(
            sys.executable,
            ["-m", "domeng", "play", "--no-wait", *args],
            cwd=str(ROOT),
            env=env,
            encoding="utf-8",
            dimensions=(24, 80),
            timeout=600,
        )  # failure bound: a compile on a busy machine

    child = play("--seats", seats, "--seed", "3", "--rounds", "1")
    child.expect("is thinking")
    child.sendintr()
    child.expect(r"File name[^\n]*?: ", timeout=60)
    child.sendline(str(save))
    child.expect("Goodbye: the game is saved in", timeout=60)
    child.expect(pexpect.EOF, timeout=60)
    child.close()
    assert child.exitstatus == 0 and "Traceback" not in child.before
    first = json.loads(save.read_text())["actions"]

    child = play("--load", str(save))
    child.expect("is thinking")
    child.sendintr()
    # the file is known: no question (a failure here once, under a full suite's
    # load, ended the process with no word: say what it printed and how it ended)
    if child.expect(["Goodbye: the game is saved in", pexpect.EOF], timeout=60) == 1:
        child.close()
        pytest.fail(
            f"ended without saving (exit {child.exitstatus}, signal {child.signalstatus}):\n"
            + child.before[-2000:]
        )
    child.expect(pexpect.EOF, timeout=60)
    child.close()
    assert child.exitstatus == 0 and "Traceback" not in child.before
    second = json.loads(save.read_text())["actions"]
    assert [a[: len(b)] for a, b in zip(second, first)] == first  # the game only went on
