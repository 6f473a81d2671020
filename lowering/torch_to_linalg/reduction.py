"""Lowers reductions (sum, max, max.dim) to `linalg.fill` + a reducing `linalg.generic`."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.dtypes import dtype_of_attr
from dialects.torch.families import ReductionOp
from dialects.torch.scalar_builder import ScalarBuilder
from lowering.torch_to_linalg.utils import (
    PARALLEL,
    REDUCTION,
    build_generic,
    empty_like_result,
    filled,
    static_shape,
    tensor_type_of,
)


def reduction_output_map(rank: int, reduced: Sequence[int], keepdim: bool) -> AffineMap:
    """Input dims -> output index: reduced dims vanish, or read index 0 with keepdim."""
    exprs = [
        AffineExpr.constant(0) if d in reduced else AffineExpr.dimension(d)
        for d in range(rank)
        if keepdim or d not in reduced
    ]
    return AffineMap(rank, 0, tuple(exprs))


class ConvertReductionOp(RewritePattern):
    """`init = fill(identity)`; `generic(x) outs(init)` folding `combiner` over reduced dims.
    `max.dim` also yields the index of the first maximum (NaN counts as the maximum)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReductionOp, rewriter: PatternRewriter) -> None:
        source = op.operands[0]
        rank = len(static_shape(source.type))
        reduced, keepdim = op.reduction_args()
        kept = [d for d in range(rank) if d not in reduced]
        values_type = tensor_type_of(op, 0)
        dtype = dtype_of_attr(values_type.element_type)
        sources = [(source, d) for d in (range(rank) if keepdim else kept)]
        init_values = filled(
            rewriter, empty_like_result(rewriter, values_type, sources), op.identity(dtype)
        )
        inits = [init_values]
        if len(op.results) == 2:
            indices_type = tensor_type_of(op, 1)
            inits.append(filled(rewriter, empty_like_result(rewriter, indices_type, sources), 0))
        out_map = reduction_output_map(rank, reduced, keepdim)
        maps = [AffineMap.identity(rank), *[out_map] * len(inits)]
        iterators = [REDUCTION if d in reduced else PARALLEL for d in range(rank)]

        def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            x = b.cast(args[0], values_type.element_type)
            if len(inits) == 1:
                return [op.combiner(b, x, args[1])]
            return _arg_max_body(b, x, args[1], args[2], reduced[0])

        generic = build_generic([source], inits, maps, iterators, body)
        rewriter.replace(op, generic)


def _arg_max_body(
    b: ScalarBuilder,
    x: SSAValue,
    acc: SSAValue,
    acc_index: SSAValue,
    dim: int,
) -> list[SSAValue]:
    """Take x when it is larger, or NaN while the accumulator is not (first index wins)."""
    larger = b.cmp("gt", x, acc)
    take = larger
    if b.is_float(x):
        nan_first = b.and_(b.is_nan(x), b.not_(b.is_nan(acc)))
        take = b.or_(larger, nan_first)
    index = b.index_cast(b.emit(IndexOp(dim)), acc_index.type)
    return [b.select(take, x, acc), b.select(take, index, acc_index)]


PATTERNS: tuple[RewritePattern, ...] = (ConvertReductionOp(),)
