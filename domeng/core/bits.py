"""Bit counting for tile masks: LLVM's ctpop and cttz as numba intrinsics.

numba has no public popcount or count-trailing-zeros; these wrap the LLVM
intrinsics directly (one instruction each on x86-64 with POPCNT/BMI), with
``pdep`` (BMI2) for the ``k``-th set bit and the 56-bit hands of
:mod:`domeng.engine.rulebook`.
"""

from __future__ import annotations

import numpy as np
from llvmlite import binding as _llvm
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from domeng.core.numba_inline import install_at_first_compile

# numba's inline="always" without copying the fresh IR (compile time: domeng.core.numba_inline);
# here once: every compiled module of the package imports bits, but core/nbrng (two small kernels)
install_at_first_compile()


@intrinsic
def _ctpop(typingctx, x):
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.ctpop.i64")
        return builder.call(fn, [args[0]])

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(1)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.cttz.i64")
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])

    return sig, codegen


@njit(cache=True)  # a call LLVM inlines (numba's IR inlining costs compile time per call)
def uidx(i):
    """An index as ``uint64``: numba then emits no negative-index fix-up
    (for indices known to be >= 0)."""
    return np.uint64(i)


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of an int64."""
    return _ctpop(x)


@njit(cache=True, inline="always")
def lowest_bit(x):
    """Index of the lowest set bit (64 for 0)."""
    return _cttz(x)


_EVEN56 = np.int64(0x0055555555555555)  # bit 2t of every tile t

#: pdep is one instruction where the CPU has BMI2 (else a short loop)
HAS_PDEP = bool(_llvm.get_host_cpu_features().get("bmi2", False))


@intrinsic
def _pdep(typingctx, x, m):
    sig = types.int64(types.int64, types.int64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(64)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pdep.64")
        return builder.call(fn, [args[0], args[1]])

    return sig, codegen


if HAS_PDEP:

    @njit(cache=True)
    def kth_bit(m, k):
        """Index of the ``k``-th (from 0) set bit of ``m``."""
        return lowest_bit(_pdep(np.int64(1) << k, m))
else:  # pragma: no cover - CPUs without BMI2

    @njit(cache=True)
    def kth_bit(m, k):
        """Index of the ``k``-th (from 0) set bit of ``m``."""
        for _ in range(k):
            m &= m - 1
        return lowest_bit(m)


if HAS_PDEP:

    @njit(cache=True)
    def spread28(h):
        """The 56-bit hand of a 28-bit one (tile ``t``: bits ``2t`` and ``2t+1``)."""
        return _pdep(h, _EVEN56) * 3
else:  # pragma: no cover - CPUs without BMI2

    @njit(cache=True)
    def spread28(h):
        """The 56-bit hand of a 28-bit one (tile ``t``: bits ``2t`` and ``2t+1``)."""
        m = np.int64(0)
        while h:
            m |= np.int64(3) << (2 * lowest_bit(h))
            h &= h - 1
        return m
