"""Lowers `select_scatter` / `slice_scatter`: one generic over `self`'s shape that reads `src`
where the index at `dim` falls in the written part and `self` elsewhere (the `src` element
converted to the result's dtype)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.op_base import arg_value
from dialects.torch.ops.scatter import AtenSelectScatterOp, AtenSliceScatterOp
from dialects.torch.scalar_builder import ScalarBuilder
from lowering.torch_to_linalg.copies import empty_with_sizes
from lowering.torch_to_linalg.data_movement import (
    clamp,
    index_operand,
    normalized_dim,
    size_of,
    wrap_negative,
)
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import PARALLEL, build_generic, static_shape, tensor_type_of

# (b, index at dim) -> (whether it is in the written part, src's index there)
Part = Callable[[ScalarBuilder, SSAValue], tuple[SSAValue, SSAValue | None]]


def scatter(
    rewriter: PatternRewriter, op: AtenSelectScatterOp | AtenSliceScatterOp, dim: int, part: Part
) -> SSAValue:
    source, src, result_type = op.self_, op.src, tensor_type_of(op)
    rank = len(static_shape(source.type))
    sizes = [build_scalars(rewriter, lambda b, d=d: size_of(b, source, d)) for d in range(rank)]
    init = empty_with_sizes(rewriter, result_type, sizes)
    assert isinstance(source.type, TensorType) and isinstance(src.type, TensorType)
    element = result_type.element_type

    def body(b: ScalarBuilder, args: list[SSAValue]) -> list[SSAValue]:
        loop = [b.emit(IndexOp(d)) for d in range(rank)]
        inside, at = part(b, loop[dim])
        src_indices = loop[:dim] + ([at] if at is not None else []) + loop[dim + 1 :]
        inside_src = [b.select(inside, i, b.const(0, IndexType())) for i in src_indices]
        written = b.cast(b.emit(tensor.ExtractOp(src, inside_src, src.type.element_type)), element)  # type: ignore[attr-defined]
        kept = b.emit(tensor.ExtractOp(source, loop, element))
        return [b.select(inside, written, kept)]

    generic = build_generic([], [init], [AffineMap.identity(rank)], [PARALLEL] * rank, body)
    rewriter.insert(generic)
    return generic.results[0]


class ConvertSelectScatterOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenSelectScatterOp, rewriter: PatternRewriter) -> None:
        dim = normalized_dim(op)
        size = build_scalars(rewriter, lambda b: size_of(b, op.self_, dim))
        index = build_scalars(
            rewriter, lambda b: wrap_negative(b, index_operand(b, op.index, 0), size)
        )

        def part(b: ScalarBuilder, i: SSAValue) -> tuple[SSAValue, SSAValue | None]:
            return b.cmp("eq", i, index), None

        rewriter.replace(op, [], [scatter(rewriter, op, dim, part)])


class ConvertSliceScatterOp(RewritePattern):
    """`start`/`end` wrap when negative and clamp to the size, as `slice` does."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenSliceScatterOp, rewriter: PatternRewriter) -> None:
        dim = normalized_dim(op)
        size = build_scalars(rewriter, lambda b: size_of(b, op.self_, dim))
        zero = build_scalars(rewriter, lambda b: b.const(0, IndexType()))

        def bound(b: ScalarBuilder, value: SSAValue, low: SSAValue) -> SSAValue:
            return clamp(b, wrap_negative(b, index_operand(b, value, 0), size), low, size)

        start = build_scalars(rewriter, lambda b: bound(b, op.start, zero))
        end = (
            size
            if arg_value(op.end) is None
            else build_scalars(rewriter, lambda b: bound(b, op.end, start))
        )
        step = build_scalars(rewriter, lambda b: index_operand(b, op.step, 1))
        unit = arg_value(op.step) == 1

        def part(b: ScalarBuilder, i: SSAValue) -> tuple[SSAValue, SSAValue | None]:
            offset = b.sub(i, start)
            inside = b.and_(b.cmp("ge", i, start), b.cmp("lt", i, end))
            if unit:
                return inside, offset
            on_step = b.cmp("eq", b.emit(arith.RemSIOp(offset, step)), b.const(0, IndexType()))
            return b.and_(inside, on_step), b.emit(arith.DivSIOp(offset, step))

        rewriter.replace(op, [], [scatter(rewriter, op, dim, part)])


PATTERNS: tuple[RewritePattern, ...] = (ConvertSelectScatterOp(), ConvertSliceScatterOp())
