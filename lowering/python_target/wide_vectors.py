"""The machine model's vector width for generated numba functions (`lowering/machine.py`).

LLVM tunes recent Intel server cores (`emeraldrapids` here) with `prefer-256-bit`: loops that
could use 512-bit vectors get 256-bit ones, unless the function asks for wider ones with
`"prefer-vector-width"="512"` and `"min-legal-vector-width"="512"`. Every numba function the
python target writes calls `wide_vectors()` first (and each `prange` body, which numba
compiles as a function of its own): the intrinsic adds those attributes, with the model's
vector width, to the function it is inlined into. Per function, unlike
`NUMBA_CPU_FEATURES`, so the user's own numba code and the order of imports do not matter.
Measured (`python -m benchmarks W1 W2 --threads 1`, the same attributes set process-wide):
W1 7.45 / 5.77 ms -> 4.39 / 4.22 ms, W2 0.94 / 0.74 ms -> 0.77 / 0.61 ms.
"""

from __future__ import annotations

from typing import Any

from numba.core import types
from numba.extending import intrinsic

from lowering.machine import MACHINE

WIDE_VECTOR_ATTRIBUTES = (
    f'"min-legal-vector-width"="{MACHINE.vector_bits}"',
    f'"prefer-vector-width"="{MACHINE.vector_bits}"',
)


def mark_wide(function: Any) -> None:
    """Adds the vector-width attributes to an LLVM function (llvmlite `ir.Function`)."""
    for attribute in WIDE_VECTOR_ATTRIBUTES:
        set.add(function.attributes, attribute)  # its `add` accepts only known keywords


@intrinsic
def wide_vectors(typingctx: Any) -> Any:
    """Asks for the machine model's vector width in the calling function."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        mark_wide(builder.function)
        return context.get_dummy_value()

    return types.none(), codegen
