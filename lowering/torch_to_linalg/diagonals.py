"""Lowers diagonal and diag_embed, each to one generic over the result.

- diagonal: a copy (`copy_by_index`) reading `self[..., k + r0, ..., k + c0, ...]` for result
  index k on the last dim, where (r0, c0) = (max(-offset, 0), max(offset, 0)). A dynamic
  length is clamp(min(size1 - r0, size2 - c0), 0).
- diag_embed: `result[..., i, ..., j, ...] = self[..., k]` where `j - i == offset`
  (k = i - r0), else 0; the read index is kept in range off the diagonal.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import tensor
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.op_base import arg_value
from dialects.torch.ops.diagonals import AtenDiagEmbedOp, AtenDiagonalOp
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.torch_to_linalg.copies import copy_by_index, dim_size, empty_with_sizes
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import PARALLEL, build_generic, static_shape, tensor_type_of


def _rank(value: SSAValue) -> int:
    return len(static_shape(value.type))


class ConvertDiagonalOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenDiagonalOp, rewriter: PatternRewriter) -> None:
        source, result_type = op.self_, tensor_type_of(op)
        rank = _rank(source)
        offset = arg_value(op.offset)
        d1, d2 = arg_value(op.dim1) % rank, arg_value(op.dim2) % rank
        row0, col0 = max(-offset, 0), max(offset, 0)
        rest = [d for d in range(rank) if d not in (d1, d2)]
        sizes: list[SSAValue | None] = [dim_size(rewriter, source, d) for d in rest]
        if static_shape(result_type)[-1] == DYN:
            size1, size2 = dim_size(rewriter, source, d1), dim_size(rewriter, source, d2)

            def length(b: ScalarBuilder) -> SSAValue:
                rows = b.sub(size1, b.const(row0, IndexType()))
                cols = b.sub(size2, b.const(col0, IndexType()))
                return b.maximum(b.minimum(rows, cols), b.const(0, IndexType()))

            sizes.append(build_scalars(rewriter, length))
        else:
            sizes.append(None)

        def source_indices(b: ScalarBuilder, loop: list[SSAValue]) -> list[SSAValue]:
            k = loop[-1]
            at = dict(zip(rest, loop[:-1]))
            at[d1] = b.add(k, b.const(row0, IndexType()))
            at[d2] = b.add(k, b.const(col0, IndexType()))
            return [at[d] for d in range(rank)]

        result = copy_by_index(rewriter, source, source_indices, result_type, sizes)
        rewriter.replace(op, [], [result])


class ConvertDiagEmbedOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenDiagEmbedOp, rewriter: PatternRewriter) -> None:
        source, result_type = op.self_, tensor_type_of(op)
        rank = _rank(source) + 1
        offset = arg_value(op.offset)
        d1, d2 = arg_value(op.dim1) % rank, arg_value(op.dim2) % rank
        rest = [d for d in range(rank) if d not in (d1, d2)]
        last = dim_size(rewriter, source, rank - 2)
        side = build_scalars(rewriter, lambda b: b.add(last, b.const(abs(offset), IndexType())))
        lead = iter(range(rank - 2))
        sizes: Sequence[SSAValue | None] = [
            side if d in (d1, d2) else dim_size(rewriter, source, next(lead)) for d in range(rank)
        ]
        init = empty_with_sizes(rewriter, result_type, sizes)
        element = result_type.element_type
        assert isinstance(source.type, TensorType)

        def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            loop = [b.emit(IndexOp(d)) for d in range(rank)]
            i, j = loop[d1], loop[d2]
            on = b.cmp("eq", b.sub(j, i), b.const(offset, IndexType()))
            k = b.sub(i, b.const(max(-offset, 0), IndexType()))
            safe = b.select(on, k, b.const(0, IndexType()))
            value = b.emit(tensor.ExtractOp(source, [*(loop[d] for d in rest), safe], element))
            return [b.select(on, value, b.const(0, element))]

        generic = build_generic([], [init], [AffineMap.identity(rank)], [PARALLEL] * rank, body)
        rewriter.insert(generic)
        rewriter.replace(op, [], [generic.results[0]])


PATTERNS: tuple[RewritePattern, ...] = (ConvertDiagonalOp(), ConvertDiagEmbedOp())
