"""Run-time range checks of index tensors, inserted before the op that reads or writes through
them: one fold over the index (a 0-d index: one compare before the loops) and a `cf.assert`
that the python target raises as torch's exception (`RAISE_SEPARATOR`) before any memory is
touched.

Each op keeps torch's rule for negative indices: `x[idx]` and `index_fill` wrap them
(`[-size, size)`); `index_select`, `gather`, `embedding`, `scatter*`, `index_add` and
`index_copy` raise for them (`[0, size)`).
"""

from __future__ import annotations

from xdsl.dialects import cf, tensor
from xdsl.dialects.builtin import IndexType, TensorType, i1
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.ir_marks import RAISE_SEPARATOR
from lowering.torch_to_linalg.reduction import fold
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import static_shape


def out_of_bounds(source: SSAValue, dim: int) -> str:
    """torch's message for an index past `source`'s `dim` (its size when static)."""
    shape = static_shape(source.type)
    size = shape[dim] if dim < len(shape) else 1
    shown = f" with size {size}" if size != DYN else ""
    return f"index is out of bounds for dimension {dim}{shown}"


def check_in_range(
    rewriter: PatternRewriter,
    index: SSAValue,
    size: SSAValue,
    kind: str,
    message: str,
    wraps: bool,
) -> None:
    """Insert `cf.assert` that every element of the integer tensor `index` is in `[0, size)`
    (`[-size, size)` when negative indices `wraps`): `kind(message)` is raised otherwise."""

    def inside(b: ScalarBuilder, value: SSAValue) -> SSAValue:
        at = b.index_cast(value, IndexType())
        low = b.sub(b.const(0, IndexType()), size) if wraps else b.const(0, IndexType())
        return b.and_(b.cmp("ge", at, low), b.cmp("lt", at, size))

    assert isinstance(index.type, TensorType)
    element = index.type.element_type
    rank = index.type.get_num_dims()
    if rank == 0:
        ok = build_scalars(
            rewriter, lambda b: inside(b, b.emit(tensor.ExtractOp(index, [], element)))
        )
    else:
        identity = AffineMap.identity(rank)
        folded = fold(
            rewriter, [index], [identity], list(range(rank)), False, [(i1, True)],
            lambda b, args: [b.and_(args[1], inside(b, args[0]))],
        )[0]  # fmt: skip
        ok = build_scalars(rewriter, lambda b: b.emit(tensor.ExtractOp(folded, [], i1)))
    rewriter.insert(cf.AssertOp(ok, f"{kind}{RAISE_SEPARATOR}{message}"))
