"""Lowers `constant_pad_nd`: one generic over the result that reads the source where the
shifted index falls inside it and gives the fill value elsewhere."""

from __future__ import annotations

from xdsl.dialects import tensor
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.dtypes import dtype_of_attr
from dialects.torch.op_base import arg_value
from dialects.torch.ops.padding import AtenConstantPadNdOp, pad_amounts
from dialects.torch.scalar_builder import ScalarBuilder
from lowering.torch_to_linalg.copies import dim_size, empty_with_sizes
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import (
    PARALLEL,
    build_generic,
    scalar_operand,
    static_shape,
    tensor_type_of,
)


class ConvertConstantPadNdOp(RewritePattern):
    """`result[i...] = inside ? self[i - before...] : value`, with `before` the amount padded
    in front of each dim (negative: cropped) and `inside` that every shifted index of a padded
    dim is in range; the source index is clamped so the read stays in bounds either way."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenConstantPadNdOp, rewriter: PatternRewriter) -> None:
        source, result_type = op.self_, tensor_type_of(op)
        assert isinstance(source.type, TensorType)
        rank = len(static_shape(source.type))
        amounts = pad_amounts(arg_value(op.pad), rank)
        before, padded = [0] * rank, [False] * rank
        for k, (front, back) in enumerate(amounts):
            before[rank - 1 - k], padded[rank - 1 - k] = front, (front, back) != (0, 0)
        in_sizes = [dim_size(rewriter, source, d) for d in range(rank)]
        out_sizes = [
            None if size >= 0 else _padded(rewriter, in_sizes[d], amounts, rank, d)
            for d, size in enumerate(static_shape(result_type))
        ]
        init = empty_with_sizes(rewriter, result_type, out_sizes)
        dtype = dtype_of_attr(result_type.element_type)
        element_type = source.type.element_type

        def body(b: ScalarBuilder, args: list[SSAValue]) -> list[SSAValue]:
            fill = scalar_operand(b, op.value, dtype)
            zero, one = b.const(0, IndexType()), b.const(1, IndexType())
            inside, indices = None, []
            for d in range(rank):
                shifted = b.emit(IndexOp(d))
                if not padded[d]:  # a dim without padding reads its own index
                    indices.append(shifted)
                    continue
                if before[d]:
                    shifted = b.sub(shifted, b.const(before[d], IndexType()))
                last = b.sub(in_sizes[d], one)
                ok = b.and_(b.cmp("ge", shifted, zero), b.cmp("le", shifted, last))
                inside = ok if inside is None else b.and_(inside, ok)
                indices.append(b.minimum(b.maximum(shifted, zero), last))
            read = b.emit(tensor.ExtractOp(source, indices, element_type))
            return [read if inside is None else b.select(inside, read, fill)]

        generic = build_generic([], [init], [AffineMap.identity(rank)], [PARALLEL] * rank, body)
        rewriter.insert(generic)
        rewriter.replace(op, [], [generic.results[0]])


def _padded(
    rewriter: PatternRewriter,
    size: SSAValue,
    amounts: list[tuple[int, int]],
    rank: int,
    dim: int,
) -> SSAValue:
    """A dynamic dim's padded size: size + before + after."""
    k = rank - 1 - dim
    extra = sum(amounts[k]) if k < len(amounts) else 0
    return build_scalars(rewriter, lambda b: b.add(size, b.const(extra, IndexType())))


PATTERNS: tuple[RewritePattern, ...] = (ConvertConstantPadNdOp(),)
