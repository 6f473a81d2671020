"""What one stage tells a later one through the IR: the `tsjit.*` attributes and the message
convention of raised errors. Each mark is written by one pass and read by later passes or the
python target; defining them here keeps the stages from importing each other.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation

from dialects.torch.ops.prim import RAISABLE

NONPOSITIVE_ARGUMENT = "tsjit.nonpositive_argument"
"""On a `math.exp` whose argument is <= 0 or NaN (a softmax's `x - max`): `expand-math` needs
no overflow handling (written by `convert-torch-to-linalg`)."""

NONNEGATIVE_LOOP = "tsjit.nonnegative_loop"
"""On an `scf.for` whose bounds are >= 0 (written by the loops of outer-dim reductions): the
python target indexes memrefs with its induction variable as an unsigned integer, so numba adds
no negative-index wraparound (which kept the loop from vectorizing: `x.sum(0)` 1.68 -> 0.49 ms
at one thread)."""

LIBRARY_ATTR = "tsjit.library"
"""On a body-less `func.func` declaring a library kernel: the kernel's name (written by
`convert-linalg-to-library-calls`, read by the python target)."""

OUTLINED = "tsjit.outlined"
"""On a kernel function made by `scf-outline-kernels`."""

HOST = "tsjit.host"
"""On a function whose loop nests `scf-outline-kernels` all outlined: it only allocates and
calls; nothing calls it."""

RUN_TIME_CHECK = "tsjit.run_time_check"
"""On a `torch.prim.If` whose then-branch only raises and whose else-branch is empty (written
by `torch-check-indices`): `convert-torch-to-linalg` lowers it to one `cf.assert` of the
negated condition, which the python target writes in place (an `scf.if` would become a kernel
of its own)."""

RAISE_SEPARATOR = ": "
"""`cf.assert`'s message is `<exception class>: <message>` (see `raised_exception`)."""


def is_library_declaration(op: Operation) -> bool:
    return isinstance(op, func.FuncOp) and LIBRARY_ATTR in op.attributes


def library_kernel(op: func.FuncOp) -> str:
    attr = op.attributes[LIBRARY_ATTR]
    assert isinstance(attr, StringAttr)
    return attr.data


def raised_exception(message: str) -> tuple[str, str]:
    """(exception class, message) of a lowered `cf.assert` message."""
    kind, separator, text = message.partition(RAISE_SEPARATOR)
    if not separator or kind not in RAISABLE:
        return "AssertionError", message
    return kind, text
