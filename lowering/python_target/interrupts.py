"""Ctrl-C in compiled loops: a `while` loop of numba code checks for a pending signal every
`tables.INTERRUPT_CHECK_EVERY` iterations and stops with a KeyboardInterrupt.

numba code does not run the interpreter, so the flag Python's SIGINT handler sets is never
looked at while a compiled loop runs: an infinite scripted `while` could only be killed.
`pending_interrupt()` calls `PyErr_CheckSignals` (the function C extensions call in long
loops): it runs the Python signal handlers, and returns -1 when one raised (Ctrl-C's
KeyboardInterrupt). The generated loop then raises `CompiledLoopInterrupted`, a
KeyboardInterrupt that numba can raise (numba raises only `Exception` subclasses).

Only functions that hold the GIL check (`PyErr_CheckSignals` needs it): not the `nogil`
chunked kernels nor the bodies of parallel loops, whose loops have bounds.
"""

from __future__ import annotations

import ctypes

import llvmlite.binding as llvm
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

SYMBOL = "tsjit_check_signals"
"""`PyErr_CheckSignals` under the name the compiled code calls (registered at import, so the
code numba caches on disk names a symbol, not an address of this process)."""

llvm.add_symbol(SYMBOL, ctypes.cast(ctypes.pythonapi.PyErr_CheckSignals, ctypes.c_void_p).value)


class CompiledLoopInterrupted(KeyboardInterrupt, Exception):
    """Ctrl-C stopped a compiled loop: a KeyboardInterrupt (also an Exception, so that numba
    can raise it; an `except Exception` catches it, unlike a KeyboardInterrupt)."""


@intrinsic
def pending_interrupt(typingctx):  # type: ignore[no-untyped-def]
    """Runs the pending signal handlers; True when one raised (the error is then set: the
    caller raises at once, replacing it)."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        check = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(32), []), SYMBOL
        )
        return builder.icmp_signed("!=", builder.call(check, []), ir.Constant(ir.IntType(32), 0))

    return types.boolean(), codegen
