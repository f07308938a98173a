"""A buffer kept or not, chosen when the code is compiled (issue 21 item 2).

The step API keeps a trace, a round's record and per-step stone deltas only
for the callers that read them: each is an array, or ``None`` when it is not
kept.  A function decorated with :func:`when_kept` takes that buffer first;
numba picks its body by the buffer's *type* when the caller is compiled, so a
call with ``None`` compiles to nothing at all (no flag in the state, no
branch at run time), and a call with an array is the function's body.  (``tests/core/test_kept.py`` compiles a caller with
``None`` around a body that numba could not even type for ``None``.)

    >>> import numpy as np
    >>> @when_kept
    ... def bump(buf, k):
    ...     buf[0] += k
    ...     return int(buf[0])
    >>> a = np.zeros(1, dtype=np.int64)
    >>> bump(a, 2), bump(None, 2), int(a[0])  # from Python the same rule holds
    (2, None, 2)
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable
from typing import Any

from numba import njit, types
from numba.extending import intrinsic, overload

__all__ = ["kept_row", "row_index", "row_of", "when_kept"]


def when_kept(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(buf, *args)`` when ``buf`` is kept (not ``None``), else nothing
    (``None``); in compiled code the choice is made by ``buf``'s type when
    the caller is compiled."""
    names = list(inspect.signature(fn).parameters)
    if not names:
        raise TypeError(f"{fn.__name__}: the buffer must be the first parameter")
    args = ", ".join(names)
    scope: dict[str, Any] = {"fn": fn, "types": types}
    # the implementations and the typing function take fn's own parameter
    # names (numba checks that they agree)
    exec(
        f"def nothing({args}):\n    return None\n"
        f"def choose({args}):\n"
        f"    return nothing if isinstance({names[0]}, types.NoneType) else run\n",
        scope,
    )

    @functools.wraps(fn)
    def call(*a: Any, **kw: Any) -> Any:
        if (a[0] if a else kw[names[0]]) is None:
            return None
        return fn(*a, **kw)

    scope["run"] = fn  # numba compiles fn's own body for an array
    # not ``inline="always"``: numba 0.68.1's typed inlining of such an
    # overload inside an inlined caller dropped a write of the caller's
    # (``tests/engine/test_tables.py`` caught it); a call, which LLVM inlines
    overload(call)(scope["choose"])
    return call


@njit(cache=True, inline="always")
def row_index(rows, i):
    """The row of table ``i`` in a stacked field of ``rows`` rows: its own,
    or the one row when the field has one (shared by every table of the
    N-table driver's stack)."""
    return min(i, rows - 1)


@njit(cache=True, inline="always")
def row_of(a, i):
    """Row ``i`` of a stacked field ``a`` (:func:`row_index`)."""
    return a[row_index(a.shape[0], i)]


@intrinsic
def kept_row(typingctx, a, i):
    """Row ``i`` of the stacked field ``a`` (:func:`row_index`), or ``None``
    when ``a`` is ``None`` (not kept): the N-table driver's view of a field a
    stack may not keep.  An intrinsic, not an inlined overload: numba 0.68.1
    dropped a write of the caller's after inlining such an overload into the
    driver's ``table_at``.  The view is made in the caller's own code, as
    ``a[k]`` would be (so a caller compiled without reference counting,
    ``_nrt=False``, compiles it too: a subroutine returning the view would
    be refused there, or count references the caller never releases)."""
    if isinstance(a, types.NoneType):

        def nothing(context, builder, signature, args):
            return context.get_dummy_value()

        return types.none(a, i), nothing
    row = (
        a.dtype
        if a.ndim == 1
        else types.Array(a.dtype, a.ndim - 1, "C" if a.layout == "C" else "A")
    )
    sig = row(a, i)

    def view(context, builder, signature, args):
        aryty, ity = signature.args
        rows = builder.extract_value(context.make_array(aryty)(context, builder, args[0]).shape, 0)
        k = context.compile_internal(
            builder,
            row_index.py_func,
            types.intp(types.intp, types.intp),
            [rows, context.cast(builder, args[1], ity, types.intp)],
        )
        getitem = context.get_function(operator.getitem, row(aryty, types.intp))
        return getitem(builder, (args[0], k))

    return sig, view
