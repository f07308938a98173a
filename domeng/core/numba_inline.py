"""numba's ``inline="always"`` without its two copies of the callee's IR (compile time).

domeng's kernels are small rule functions inlined into their drivers
(``inline="always"``: the rules once, issue 21).  numba inlines such a call
by building the callee's IR afresh at the call site
(``InlineWorker.inline_function`` runs the untyped pipeline on its source)
and then deep-copying that fresh IR twice (``InlineWorker.inline_ir``: a
copy to splice in, and an "unmutated" copy to return, which its one caller,
the ``InlineInlinables`` pass, throws away).  Each block is copied
separately and carries the function's whole scope, so one copy costs
blocks x variables; with inlines nested four or five deep it was most of the
compile: 60 of the 93 s that the Gymnasium environment took to compile its
reset, 56 of the 66 s of its step kernel (profiled 2026-12-04, numba 0.68.1).
The cost is known upstream (numba/numba#8989, open; NVIDIA/numba-cuda#688).

:func:`install` changes one thing: while ``inline_function`` splices in the
IR it has just built, that IR's blocks copy as themselves.  Nothing else holds
that IR (it was made for this call site and is dropped after it), so the
copies were never needed; the IR spliced in is the same, statement for
statement, and so is the machine code (``tests/core/test_numba_inline.py``
compares the LLVM IR of a nested inline with and without it, and the
engine's agreement tests run with it).  It installs itself at the first
compile of the process (a listener on numba's ``numba:compile`` event, so
a start from a warm cache imports nothing more), and only on a numba whose
``InlineWorker`` has the shape it was checked on (numba 0.68.1); ``DOMENG_NUMBA_INLINE=copy``
in the environment keeps numba's own.
"""

from __future__ import annotations

import inspect
import os
import threading
from typing import Any

from numba.core import event, ir

#: ``InlineWorker.inline_ir``'s parameters as this was checked on (numba 0.68.1); a numba whose
#: ``inline_ir`` takes others keeps its own inlining
_INLINE_IR_PARAMS = ("self", "caller_ir", "block", "i", "callee_ir", "callee_freevars", "arg_typs")

_LOCK = threading.Lock()
_STATE: dict[str, Any] = {"installed": False, "original": None, "listening": False}


class _FreshBlock(ir.Block):
    """A block of IR built for one call site: a copy of it is itself."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _FreshBlock:
        return self


def _shape_is_known() -> bool:
    from numba.core.inline_closurecall import InlineWorker

    try:
        params = tuple(inspect.signature(InlineWorker.inline_ir).parameters)
    except (TypeError, ValueError):
        return False
    return params == _INLINE_IR_PARAMS and callable(
        getattr(InlineWorker, "run_untyped_passes", None)
    )


def install() -> bool:
    """Make numba's ``inline="always"`` splice its fresh IR without copying it
    (see the module doc); returns whether it is installed.  Idempotent."""
    with _LOCK:
        if _STATE["installed"]:
            return True
        if (
            os.environ.get("DOMENG_NUMBA_INLINE", "").strip().lower() == "copy"
            or not _shape_is_known()
        ):
            return False
        from numba.core.inline_closurecall import InlineWorker

        def inline_function(self, caller_ir, block, i, function, arg_typs=None):
            callee_ir = self.run_untyped_passes(function)
            fresh = list(callee_ir.blocks.values())
            for b in fresh:
                b.__class__ = _FreshBlock
            try:
                return self.inline_ir(
                    caller_ir, block, i, callee_ir, function.__code__.co_freevars, arg_typs=arg_typs
                )
            finally:
                for b in fresh:
                    b.__class__ = ir.Block

        inline_function.__doc__ = InlineWorker.inline_function.__doc__
        _STATE["original"] = InlineWorker.inline_function
        InlineWorker.inline_function = inline_function  # type: ignore[method-assign]
        _STATE["installed"] = True
        return True


def uninstall() -> None:
    """Give numba back its own ``inline_function`` (for the tests)."""
    with _LOCK:
        if _STATE["installed"]:
            from numba.core.inline_closurecall import InlineWorker

            InlineWorker.inline_function = _STATE["original"]  # type: ignore[method-assign]
            _STATE["installed"] = False


class _FirstCompile(event.Listener):
    """Installs at the start of the process's first compile."""

    def on_start(self, ev: event.Event) -> None:
        if not _STATE["installed"]:
            install()

    def on_end(self, ev: event.Event) -> None:
        pass


def install_at_first_compile() -> None:
    """Listen for numba's first compile in this process and :func:`install`
    then (a warm start, which compiles nothing, imports nothing more)."""
    with _LOCK:
        if _STATE["listening"]:
            return
        _STATE["listening"] = True
    event.register("numba:compile", _FirstCompile())
