"""Scratch arrays on the stack frame of a compiled kernel.

The rules kernels are compiled without numba's reference counting (`_nrt=False`): the atomic
increments and decrements it puts around every array argument and view took a quarter of a
vector-env step. Such a kernel, and everything it calls, may not allocate arrays on the heap, so
its scratch space comes from `stack_empty`: an uninitialised 1-d array of a compile-time size
that lives until the calling kernel returns (never return it or keep it).
"""
from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


@intrinsic
def stack_empty(typingctx, n, dtype):
    """stack_empty(N, np.int64): N (a constant) uninitialised elements on the caller's stack frame."""
    if not isinstance(n, types.IntegerLiteral) or not isinstance(dtype, types.NumberClass):
        return None
    elem = dtype.instance_type
    arrty = types.Array(elem, 1, "C")
    size = n.literal_value

    def codegen(context, builder, sig, args):
        ll_elem = context.get_data_type(elem)
        ptr = cgutils.alloca_once(builder, ll_elem, size=size)
        ary = make_array(arrty)(context, builder)
        itemsize = context.get_abi_sizeof(ll_elem)

        def intp(v):
            return context.get_constant(types.intp, v)

        populate_array(ary, data=ptr, shape=[intp(size)], strides=[intp(itemsize)], itemsize=intp(itemsize),
                       meminfo=None)
        return ary._getvalue()

    return arrty(n, dtype), codegen
