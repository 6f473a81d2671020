"""Lowers indexing (`aten.select.int`, `aten.slice.Tensor`) and shape queries (`aten.size.int`,
`aten.dim`, `aten.len.Tensor`).

Indexing becomes a `linalg.generic` with no inputs: affine maps cannot express an offset known
only at run time (`x[t]` in a loop), so the body reads the source with `tensor.extract` at
indices computed from `linalg.index`. Bufferization turns that into a `memref.load`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, TensorType, i64
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.meta import Dynamic, normalize_dim
from dialects.torch.op_base import arg_value
from dialects.torch.ops.data_movement import (
    AtenDimOp,
    AtenLenTensorOp,
    AtenSelectIntOp,
    AtenSizeIntOp,
    AtenSliceTensorOp,
)
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import PARALLEL, build_generic, static_shape, tensor_type_of

# ---- index maths (on `index` values) ----


def size_of(b: ScalarBuilder, source: SSAValue, dim: int) -> SSAValue:
    """The size of `dim` as an `index`: a constant when static, else `tensor.dim`."""
    size = static_shape(source.type)[dim]
    if size != DYN:
        return b.const(size, IndexType())
    return b.emit(tensor.DimOp(source, b.const(dim, IndexType())))


def index_operand(b: ScalarBuilder, value: SSAValue, default: int) -> SSAValue:
    """A torch int operand (constant, None or lowered i64) as an `index`."""
    known = arg_value(value)
    if known is None:
        return b.const(default, IndexType())
    if not isinstance(known, Dynamic):
        return b.const(int(known), IndexType())
    return b.index_cast(value, IndexType())


def wrap_negative(b: ScalarBuilder, index: SSAValue, size: SSAValue) -> SSAValue:
    """Python's negative indices: `index + size` when `index < 0`."""
    is_negative = b.cmp("lt", index, b.const(0, index))
    return b.select(is_negative, b.add(index, size), index)


def clamp(b: ScalarBuilder, value: SSAValue, low: SSAValue, high: SSAValue) -> SSAValue:
    return b.maximum(b.minimum(value, high), low)


def normalized_dim(op: AtenSelectIntOp | AtenSliceTensorOp | AtenSizeIntOp) -> int:
    dim = arg_value(op.dim)
    assert isinstance(dim, int), f"{op.name}: dim must be a constant"
    return normalize_dim(dim, len(static_shape(op.self_.type)))


# ---- indexing ----


def gather(
    rewriter: PatternRewriter,
    source: SSAValue,
    result_type: TensorType,
    sizes: Sequence[SSAValue],
    source_indices: Sequence[SSAValue | None],
    step: SSAValue | None = None,
) -> SSAValue:
    """`result[i...] = source[j...]`: each source index is a loop index (None) or, at the
    indexed dim, a fixed offset (select) or `offset + i * step` (slice)."""
    empty = tensor.EmptyOp(
        [s for s, d in zip(sizes, static_shape(result_type)) if d == DYN], result_type
    )
    rank = result_type.get_num_dims()

    def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        loop = iter(b.emit(IndexOp(d)) for d in range(rank))
        indices = [_source_index(b, loop, offset, step) for offset in source_indices]
        assert isinstance(source.type, TensorType)
        return [b.emit(tensor.ExtractOp(source, indices, source.type.element_type))]

    generic = build_generic([], [empty.tensor], [AffineMap.identity(rank)], [PARALLEL] * rank, body)
    rewriter.insert([empty, generic])
    return generic.results[0]


def _source_index(
    b: ScalarBuilder, loop: object, offset: SSAValue | None, step: SSAValue | None
) -> SSAValue:
    if offset is None:
        return next(loop)  # type: ignore[call-overload]
    if step is None:
        return offset
    return b.add(offset, b.mul(next(loop), step))  # type: ignore[call-overload]


class ConvertAtenSelectIntOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenSelectIntOp, rewriter: PatternRewriter) -> None:
        source, dim = op.self_, normalized_dim(op)
        rank = len(static_shape(source.type))
        sizes = [build_scalars(rewriter, lambda b, d=d: size_of(b, source, d)) for d in range(rank)]
        index = build_scalars(
            rewriter, lambda b: wrap_negative(b, index_operand(b, op.index, 0), sizes[dim])
        )
        offsets: list[SSAValue | None] = [None] * rank
        offsets[dim] = index
        result = gather(
            rewriter, source, tensor_type_of(op), sizes[:dim] + sizes[dim + 1 :], offsets
        )
        rewriter.replace(op, [], [result])


class ConvertAtenSliceTensorOp(RewritePattern):
    """`start`/`end` wrap when negative and clamp to the size;
    the length is ceildiv(end - start, step)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenSliceTensorOp, rewriter: PatternRewriter) -> None:
        source, dim = op.self_, normalized_dim(op)
        rank = len(static_shape(source.type))
        sizes = [build_scalars(rewriter, lambda b, d=d: size_of(b, source, d)) for d in range(rank)]
        size = sizes[dim]

        def bound(b: ScalarBuilder, value: SSAValue, low: SSAValue, default: int) -> SSAValue:
            return clamp(b, wrap_negative(b, index_operand(b, value, default), size), low, size)

        zero = build_scalars(rewriter, lambda b: b.const(0, IndexType()))
        start = build_scalars(rewriter, lambda b: bound(b, op.start, zero, 0))
        end = (
            size
            if arg_value(op.end) is None
            else build_scalars(rewriter, lambda b: bound(b, op.end, start, 0))
        )
        step = build_scalars(rewriter, lambda b: index_operand(b, op.step, 1))
        length = build_scalars(
            rewriter, lambda b: b.emit(arith.CeilDivSIOp(b.sub(end, start), step))
        )
        offsets: list[SSAValue | None] = [None] * rank
        offsets[dim] = start
        sizes[dim] = length
        result = gather(rewriter, source, tensor_type_of(op), sizes, offsets, step)
        rewriter.replace(op, [], [result])


# ---- shape queries ----


class ConvertAtenSizeIntOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenSizeIntOp, rewriter: PatternRewriter) -> None:
        dim = normalized_dim(op)
        size = build_scalars(rewriter, lambda b: b.index_cast(size_of(b, op.self_, dim), i64))
        rewriter.replace(op, [], [size])


class ConvertAtenLenTensorOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenLenTensorOp, rewriter: PatternRewriter) -> None:
        size = build_scalars(rewriter, lambda b: b.index_cast(size_of(b, op.t, 0), i64))
        rewriter.replace(op, [], [size])


class ConvertAtenDimOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenDimOp, rewriter: PatternRewriter) -> None:
        rank = len(static_shape(op.self_.type))
        rewriter.replace(op, [], [build_scalars(rewriter, lambda b: b.const(rank, i64))])


PATTERNS: tuple[RewritePattern, ...] = (
    ConvertAtenSelectIntOp(),
    ConvertAtenSliceTensorOp(),
    ConvertAtenSizeIntOp(),
    ConvertAtenLenTensorOp(),
    ConvertAtenDimOp(),
)
