"""Lowers scalar ops (`!torch.int/float/bool` -> `i64`/`f64`/`i1`) to arith, and one-element
tensors to scalars (`aten.Bool.Tensor` -> `tensor.extract`).

Scalar ops carry their arith body (`payload`), so one pattern lowers all of them; operands that
are still torch constants become `arith.constant`s of the lowered type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import tensor
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.ir import Block, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.op_base import ConstantLikeOp
from dialects.torch.ops.scalars import ScalarOp, TensorToScalarOp
from dialects.torch.scalar_builder import ScalarBuilder
from lowering.torch_to_linalg.utils import to_builtin_type


def build_scalars(rewriter: PatternRewriter, body: Callable[[ScalarBuilder], SSAValue]) -> SSAValue:
    """Run `body` on a ScalarBuilder and insert what it built before the matched op."""
    block = Block()
    result = body(ScalarBuilder(block))
    ops = list(block.ops)
    for op in ops:
        op.detach()
    rewriter.insert(ops)
    return result


def arith_operand(b: ScalarBuilder, value: SSAValue) -> SSAValue:
    """A lowered scalar operand: torch constants become `arith.constant`s."""
    if not isinstance(value.owner, ConstantLikeOp):
        return value
    known = value.owner.python_value()
    assert isinstance(known, bool | int | float), f"{value.owner.name} is not a scalar"
    return b.const(known, to_builtin_type(value.type))


class ConvertScalarOp(RewritePattern):
    """Any scalar op: its `payload` on the lowered operands."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ScalarOp, rewriter: PatternRewriter) -> None:
        result_type = to_builtin_type(op.results[0].type)

        def body(b: ScalarBuilder) -> SSAValue:
            operands = [arith_operand(b, v) for v in op.operands]
            return b.cast(op.payload(b, *operands), result_type)

        rewriter.replace(op, [], [build_scalars(rewriter, body)])


class ConvertTensorToScalarOp(RewritePattern):
    """`aten.Bool/Float/Int.Tensor`: `tensor.extract` of the one element, then a cast."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TensorToScalarOp, rewriter: PatternRewriter) -> None:
        source = op.operands[0]
        assert isinstance(source.type, TensorType)
        result_type = to_builtin_type(op.results[0].type)

        def body(b: ScalarBuilder) -> SSAValue:
            zeros: Sequence[SSAValue] = [b.const(0, IndexType())] * source.type.get_num_dims()
            element = b.emit(tensor.ExtractOp(source, zeros, source.type.element_type))
            return b.cast(element, result_type)

        rewriter.replace(op, [], [build_scalars(rewriter, body)])


PATTERNS: tuple[RewritePattern, ...] = (ConvertScalarOp(), ConvertTensorToScalarOp())
