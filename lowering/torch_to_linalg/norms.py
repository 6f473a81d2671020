"""Lowers map-then-reduce ops (norms, count_nonzero, nansum: `dialects/torch/ops/norms.py`):
`init = fill(identity)`; one `linalg.generic` folding `combine(acc, term(x))` over the
reduced dims; then, if the op has a `finish` (sqrt of a 2-norm, ^(1/p)), one elementwise
generic applying it."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.ops.norms import MapReduce, MapReduceOp
from dialects.torch.scalar_builder import ScalarBuilder
from lowering.torch_to_linalg.reduction import fold, pointwise
from lowering.torch_to_linalg.utils import static_shape, tensor_type_of


def _combine(b: ScalarBuilder, how: str, acc: SSAValue, value: SSAValue) -> SSAValue:
    if how == "add":
        return b.add(acc, value)
    if how == "max":
        return b.maximum(acc, value)
    assert how == "min", how
    return b.minimum(acc, value)


class ConvertMapReduceOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MapReduceOp, rewriter: PatternRewriter) -> None:
        source = op.operands[0]
        rank = len(static_shape(source.type))
        reduced, keepdim = op.reduction_args()
        result_type = tensor_type_of(op)
        element = result_type.element_type
        plan: MapReduce = op.map_reduce()

        def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            return [_combine(b, plan.combine, args[1], plan.term(b, args[0], element))]

        identity = AffineMap.identity(rank)
        inits = [(element, plan.identity)]
        (folded,) = fold(rewriter, [source], [identity], reduced, keepdim, inits, body)
        finish = plan.finish
        if finish is not None:
            out_rank = len(static_shape(result_type))

            def apply(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
                return [finish(b, args[0])]

            maps = [AffineMap.identity(out_rank)]
            folded = pointwise(rewriter, [folded], maps, result_type, folded, apply)
        rewriter.replace(op, [], [folded])


PATTERNS: tuple[RewritePattern, ...] = (ConvertMapReduceOp(),)
