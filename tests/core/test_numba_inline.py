"""numba's ``inline="always"`` without copying the fresh IR (domeng.core.numba_inline)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

# nested inlines with several call sites each, loops and branches: the shape of
# the kernels (a driver inlining rules that inline helpers)
_MODULE = textwrap.dedent(
    """
    import numpy as np
    from numba import njit

    @njit(inline="always")
    def low(x, k):
        s = 0
        for j in range(k):
            s += (x >> j) & 1
        return s

    @njit(inline="always")
    def mid(a, i):
        if a[i] > 3:
            return low(a[i], 8) + low(a[i] + 1, 4)
        return low(a[i], 2)

    @njit(inline="always")
    def high(a):
        t = 0
        for i in range(a.shape[0]):
            t += mid(a, i) if i % 2 else -mid(a, i)
        return t

    @njit
    def top(a):
        return high(a) + high(a[::-1]) + mid(a, 0)
    """
)

_RUN = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from numba.core import ir
    from domeng.core import numba_inline
    numba_inline.install_at_first_compile()
    copies = [0]
    own = ir.Var.__deepcopy__
    def counted(self, memo):
        copies[0] += 1
        return own(self, memo)
    ir.Var.__deepcopy__ = counted
    import numpy as np
    import nbmod_inline as m
    a = np.arange(9, dtype=np.int64)
    value = int(m.top(a))
    sig = m.top.signatures[0]
    print(json.dumps({
        "value": value,
        "llvm": m.top.inspect_llvm(sig),
        "installed": numba_inline._STATE["installed"],
        "var_copies": copies[0],
    }))
    """
)


def _compile(tmp_path, how: str) -> dict:
    (tmp_path / "nbmod_inline.py").write_text(_MODULE)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["DOMENG_NUMBA_INLINE"] = how
    out = subprocess.run(
        [sys.executable, "-c", _RUN, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_the_inlined_code_is_numbas_own_without_the_copies(tmp_path):
    """The same LLVM IR, statement for statement, with and without the change
    (each compiled in a new process), and the change skips numba's copies of
    the fresh IR (counted on the IR's variables)."""
    own = _compile(tmp_path, "copy")
    ours = _compile(tmp_path, "")
    assert own["installed"] is False and ours["installed"] is True
    a = list(range(9))
    rev = a[::-1]

    def low(x, k):
        return sum((x >> j) & 1 for j in range(k))

    def mid(v, i):
        return low(v[i], 8) + low(v[i] + 1, 4) if v[i] > 3 else low(v[i], 2)

    def high(v):
        return sum(mid(v, i) if i % 2 else -mid(v, i) for i in range(len(v)))

    assert own["value"] == ours["value"] == high(a) + high(rev) + mid(a, 0)
    assert ours["llvm"] == own["llvm"]
    assert own["var_copies"] > 0
    assert ours["var_copies"] < own["var_copies"] / 2


def test_a_start_that_compiles_nothing_imports_nothing_more():
    """The change installs itself at the first compile: importing the compiled
    layers does not load numba's inliner, and nothing is installed yet."""
    code = (
        "import sys\n"
        "import domeng.core.bits, domeng.core.nbrng\n"
        "from domeng.core import numba_inline\n"
        "print(numba_inline._STATE['installed'], numba_inline._STATE['listening'],"
        " 'numba.core.inline_closurecall' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    assert out == ["False", "True", "False"]


def test_install_is_idempotent_and_uninstall_gives_numba_its_own(monkeypatch):
    from numba.core.inline_closurecall import InlineWorker

    from domeng.core import numba_inline

    monkeypatch.delenv("DOMENG_NUMBA_INLINE", raising=False)
    was = numba_inline._STATE["installed"]
    numba_inline.uninstall()
    own = InlineWorker.inline_function
    try:
        assert numba_inline.install() is True
        ours = InlineWorker.inline_function
        assert ours is not own
        assert numba_inline.install() is True and InlineWorker.inline_function is ours
        numba_inline.uninstall()
        assert InlineWorker.inline_function is own
        monkeypatch.setenv("DOMENG_NUMBA_INLINE", "copy")
        assert numba_inline.install() is False and InlineWorker.inline_function is own
    finally:
        monkeypatch.delenv("DOMENG_NUMBA_INLINE", raising=False)
        if was:
            numba_inline.install()


def test_a_numba_of_another_shape_keeps_its_own(monkeypatch):
    """Where numba's ``inline_ir`` takes other parameters than the ones this
    was checked on, nothing is changed."""
    from numba.core.inline_closurecall import InlineWorker

    from domeng.core import numba_inline

    monkeypatch.delenv("DOMENG_NUMBA_INLINE", raising=False)
    was = numba_inline._STATE["installed"]
    numba_inline.uninstall()
    own = InlineWorker.inline_function
    try:
        monkeypatch.setattr(numba_inline, "_INLINE_IR_PARAMS", ("self", "caller_ir", "other"))
        assert numba_inline.install() is False and InlineWorker.inline_function is own
    finally:
        monkeypatch.undo()
        if was:
            numba_inline.install()
