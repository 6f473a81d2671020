"""Lowers `select_scatter` / `slice_scatter` to `tensor.insert_slice` of `src` (converted to
the result's dtype by one generic when it differs) into `self` at the written part.

`linalg-bufferize` writes an insert_slice into its destination's buffer in place when nobody
else reads that buffer (a loop-carried `out` written at `out[t] = h` each iteration costs the
size of `h`, not of `out`), else into a copy.
"""

from __future__ import annotations

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.op_base import arg_value
from dialects.torch.ops.scatter import AtenSelectScatterOp, AtenSliceScatterOp
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.torch_to_linalg.copies import dim_size, empty_with_sizes
from lowering.torch_to_linalg.data_movement import (
    clamp,
    index_operand,
    normalized_dim,
    size_of,
    wrap_negative,
)
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import PARALLEL, build_generic, static_shape, tensor_type_of


def converted_source(rewriter: PatternRewriter, src: SSAValue, element: object) -> SSAValue:
    """`src` with `element` as its element type (one elementwise generic when it differs)."""
    assert isinstance(src.type, TensorType)
    if src.type.element_type == element:
        return src
    shape = static_shape(src.type)
    result_type = TensorType(element, src.type.get_shape())  # type: ignore[arg-type]
    sizes = [dim_size(rewriter, src, d) for d in range(len(shape))]
    init = empty_with_sizes(rewriter, result_type, sizes)
    identity = AffineMap.identity(len(shape))
    generic = build_generic(
        [src], [init], [identity, identity], [PARALLEL] * len(shape),
        lambda b, args: [b.cast(args[0], element)],  # type: ignore[arg-type]
    )  # fmt: skip
    rewriter.insert(generic)
    return generic.results[0]


def part_size(
    rewriter: PatternRewriter,
    src: SSAValue,
    src_dim: int,
    dest: SSAValue,
    dim: int,
    length: SSAValue | None,
) -> SSAValue | int:
    """The part's size at `dim`: `src`'s, which the shape rule checked against `dest`'s
    (or the slice's `length`) where sizes are static; where one is dynamic, the smaller of
    the two, so that a wrong size at run time never writes or reads outside a buffer."""
    bound = length
    if bound is None:
        known = static_shape(dest.type)[dim]
        bound = known if known != DYN else dim_size(rewriter, dest, dim)  # type: ignore[assignment]
    size = static_shape(src.type)[src_dim]
    if size != DYN and isinstance(bound, int):
        return size
    src_size = dim_size(rewriter, src, src_dim)
    bound_value = bound if isinstance(bound, SSAValue) else dim_size(rewriter, dest, dim)
    return build_scalars(rewriter, lambda b: b.minimum(src_size, bound_value))


def insert_part(
    rewriter: PatternRewriter,
    op: AtenSelectScatterOp | AtenSliceScatterOp,
    dim: int,
    offset: SSAValue,
    stride: SSAValue | None,
    length: SSAValue | None = None,
) -> SSAValue:
    """`self` with `src` written at `dim` from `offset` (every `stride`-th index, at most
    `length` of them; a select drops `dim` from `src`, `stride` None)."""
    result_type = tensor_type_of(op)
    src = converted_source(rewriter, op.src, result_type.element_type)
    rank = len(static_shape(result_type))
    src_dims = list(range(rank)) if stride is not None else [d for d in range(rank) if d != dim]
    sizes: list[SSAValue | int] = [1] * rank
    for src_dim, d in enumerate(src_dims):
        sizes[d] = part_size(rewriter, src, src_dim, op.self_, d, length if d == dim else None)
    offsets: list[SSAValue | int] = [offset if d == dim else 0 for d in range(rank)]
    strides: list[SSAValue | int] = [
        stride if d == dim and stride is not None else 1 for d in range(rank)
    ]
    insert = tensor.InsertSliceOp.get(
        src, op.self_,
        static_sizes=[s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes],
        static_offsets=[o if isinstance(o, int) else DYNAMIC_INDEX for o in offsets],
        static_strides=[s if isinstance(s, int) else DYNAMIC_INDEX for s in strides],
        offsets=[o for o in offsets if not isinstance(o, int)],
        sizes=[s for s in sizes if not isinstance(s, int)],
        strides=[s for s in strides if not isinstance(s, int)],
        result_type=op.self_.type,
    )  # fmt: skip
    rewriter.insert(insert)
    return insert.result


class ConvertSelectScatterOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenSelectScatterOp, rewriter: PatternRewriter) -> None:
        dim = normalized_dim(op)
        size = build_scalars(rewriter, lambda b: size_of(b, op.self_, dim))
        index = build_scalars(
            rewriter, lambda b: wrap_negative(b, index_operand(b, op.index, 0), size)
        )
        rewriter.replace(op, [], [insert_part(rewriter, op, dim, index, None)])


class ConvertSliceScatterOp(RewritePattern):
    """`start` wraps when negative and clamps to the size, as `slice` does; the part's
    length is `src`'s size at `dim` (the shape rule checked it against the slice)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenSliceScatterOp, rewriter: PatternRewriter) -> None:
        dim = normalized_dim(op)
        size = build_scalars(rewriter, lambda b: size_of(b, op.self_, dim))
        zero = build_scalars(rewriter, lambda b: b.const(0, IndexType()))

        def start(b: ScalarBuilder) -> SSAValue:
            return clamp(b, wrap_negative(b, index_operand(b, op.start, 0), size), zero, size)

        offset = build_scalars(rewriter, start)
        stride = build_scalars(rewriter, lambda b: index_operand(b, op.step, 1))
        end = build_scalars(
            rewriter,
            lambda b: (
                clamp(b, wrap_negative(b, index_operand(b, op.end, 0), size), offset, size)
                if arg_value(op.end) is not None
                else size
            ),
        )
        length = build_scalars(rewriter, lambda b: slice_length(b, offset, end, stride))
        rewriter.replace(op, [], [insert_part(rewriter, op, dim, offset, stride, length)])


def slice_length(b: ScalarBuilder, start: SSAValue, end: SSAValue, step: SSAValue) -> SSAValue:
    """`len(range(start, end, step))` for `start <= end` and `step > 0`."""
    one = b.const(1, IndexType())
    return b.emit(arith.DivSIOp(b.add(b.sub(end, start), b.sub(step, one)), step))


PATTERNS: tuple[RewritePattern, ...] = (ConvertSelectScatterOp(), ConvertSliceScatterOp())
