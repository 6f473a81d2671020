"""Native spin-waits on a flag in shared memory, for hand-offs between threads without sleeping.

On this project's machines (Firecracker VMs, `haltpoll.guest_halt_poll_ns=0`) a vCPU with no
runnable thread halts at once, and waking a thread that sleeps on a lock or a futex then costs
about 45 us (an exit to the host): a hand-off of one chunk to a worker and back cost ~90 us,
against ~17 us with halt polling on (measured, `thread_chunks.py`). OpenMP pools (numba's
`prange`, PyTorch) avoid it by spinning for a while before they sleep; these functions let the
Python workers do the same, outside the GIL.

A flag is an `int64` element of a numpy array that one thread raises to a sequence number and
another waits for. The waits read it with an acquire load and a `pause` between reads, so that
the compiler keeps the read in the loop and the waiting core yields to its hyperthread sibling.
"""

from __future__ import annotations

import time
from functools import cache
from typing import Any

import llvmlite.binding as llvm
import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic


@intrinsic
def _load_acquire(typingctx: Any, flags: Any, index: Any) -> Any:
    """flags[index] (int64 array), read with an atomic acquire load."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        array = context.make_array(flags)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, flags, array, [args[1]])
        return builder.load_atomic(pointer, "acquire", 8)

    return types.int64(flags, index), codegen


@intrinsic
def _store_release(typingctx: Any, flags: Any, index: Any, value: Any) -> Any:
    """flags[index] = value (int64 array), written with an atomic release store."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        array = context.make_array(flags)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, flags, array, [args[1]])
        builder.store_atomic(args[2], pointer, "release", 8)
        return context.get_dummy_value()

    return types.none(flags, index, value), codegen


@cache
def is_x86() -> bool:
    return llvm.get_process_triple().startswith(("x86_64", "i386", "i686"))


@intrinsic
def _pause(typingctx: Any) -> Any:
    """The x86 `pause` instruction (a spin-wait hint); nothing on other CPUs."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        if is_x86():
            pause = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse2.pause"
            )
            builder.call(pause, [])
        return context.get_dummy_value()

    return types.none(), codegen


@numba.njit(nogil=True, cache=True)
def wait_for(flags: np.ndarray, index: int, value: int, spins: int) -> bool:
    """Waits until flags[index] >= value, for at most `spins` reads; True if it got there."""
    for _ in range(spins):
        if _load_acquire(flags, index) >= value:
            return True
        _pause()
    return _load_acquire(flags, index) >= value


@numba.njit(nogil=True, cache=True)
def raise_then_wait(
    flags: np.ndarray, raised: int, value: int, awaited: int, spins: int, linger: int
) -> bool:
    """flags[raised] = value (outside the GIL), then `wait_for(flags, awaited, value + 1,
    spins)`, then `linger` more pauses once that flag is up (its raiser may hold the GIL for a
    moment more: waking to a held GIL means sleeping on it)."""
    _store_release(flags, raised, value)
    if not wait_for(flags, awaited, value + 1, spins):
        return False
    for _ in range(linger):
        _pause()
    return True


@cache
def spins_per_second() -> float:
    """How many reads `wait_for` makes in a second on this machine (measured once, ~1 ms)."""
    flags = np.zeros(1, dtype=np.int64)
    wait_for(flags, 0, 1, 10)  # compiled (or loaded from numba's cache) first
    spins = 20_000
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        wait_for(flags, 0, 1, spins)
        best = min(best, time.perf_counter() - start)
    return spins / max(best, 1e-9)
