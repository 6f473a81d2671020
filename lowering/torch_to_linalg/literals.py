"""Lowers `torch.vtensor.literal` (a constant tensor) to `arith.constant dense<...>`.

The literal already stores its values as a builtin dense attribute with the signless element
type, so the constant is that attribute; bufferization later places it in a `memref.global`.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.ops.prim import ValueTensorLiteralOp


class ConvertValueTensorLiteralOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ValueTensorLiteralOp, rewriter: PatternRewriter) -> None:
        constant = arith.ConstantOp(op.value)
        constant.result.name_hint = op.result.name_hint
        rewriter.replace(op, constant)


PATTERNS = (ConvertValueTensorLiteralOp(),)
