"""Lowers `triu` / `tril`: one generic keeping the element where `j - i` is on the kept side
of `diagonal` (i, j the last two indices) and giving zero elsewhere."""

from __future__ import annotations

from xdsl.dialects import tensor
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.op_base import arg_value
from dialects.torch.ops.triangular import TriangleOp
from dialects.torch.scalar_builder import ScalarBuilder
from lowering.torch_to_linalg.copies import dim_size, empty_with_sizes
from lowering.torch_to_linalg.utils import PARALLEL, build_generic, static_shape, tensor_type_of


class ConvertTriangleOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TriangleOp, rewriter: PatternRewriter) -> None:
        source, result_type = op.operands[0], tensor_type_of(op)
        assert isinstance(source.type, TensorType)
        rank = len(static_shape(source.type))
        sizes = [dim_size(rewriter, source, d) for d in range(rank)]
        init = empty_with_sizes(rewriter, result_type, sizes)
        diagonal = arg_value(op.operands[1])
        element = result_type.element_type

        def body(b: ScalarBuilder, args: list[SSAValue]) -> list[SSAValue]:
            loop = [b.emit(IndexOp(d)) for d in range(rank)]
            offset = b.sub(loop[-1], loop[-2])  # j - i
            bound = b.const(diagonal, IndexType())
            keep = b.cmp("ge" if op.UPPER else "le", offset, bound)
            value = b.emit(tensor.ExtractOp(source, loop, element))
            return [b.select(keep, value, b.const(0, element))]

        generic = build_generic([], [init], [AffineMap.identity(rank)], [PARALLEL] * rank, body)
        rewriter.insert(generic)
        rewriter.replace(op, [], [generic.results[0]])


PATTERNS: tuple[RewritePattern, ...] = (ConvertTriangleOp(),)
