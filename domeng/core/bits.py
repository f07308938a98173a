"""Bit counting for tile masks: LLVM's ctpop and cttz as numba intrinsics.

numba has no public popcount or count-trailing-zeros; these wrap the LLVM
intrinsics directly (one instruction each on x86-64 with POPCNT/BMI).
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


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


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of an int64."""
    return _ctpop(x)


@njit(cache=True, inline="always")
def lowest_bit(x):
    """Index of the lowest set bit (64 for 0)."""
    return _cttz(x)
