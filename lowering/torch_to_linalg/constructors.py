"""Lowers the tensor constructors: `tensor.empty` + `linalg.fill` (zeros, ones, full, empty and
the `*_like` forms) and a generic over `linalg.index` for arange.

Sizes known only at run time come from the size list's lowered ints (or, for `*_like`, from
`tensor.dim` of the model tensor). `empty` is filled with zeros, so results are reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import IndexType, TensorType, i64
from xdsl.dialects.linalg.ops import FillOp, IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.dtypes import FLOAT64, INT64, dtype_of_attr
from dialects.torch.meta import kind_of_value
from dialects.torch.op_base import arg_value
from dialects.torch.ops.constructors import ArangeOp, FilledOp, LikeOp
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.torch_to_linalg.copies import dim_size, empty_with_sizes, int_as_index, list_elements
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import (
    PARALLEL,
    build_generic,
    scalar_operand,
    static_shape,
    tensor_type_of,
)


def fill(
    rewriter: PatternRewriter,
    result_type: TensorType,
    sizes: Sequence[SSAValue | None],
    value: float | SSAValue,
) -> SSAValue:
    """`linalg.fill` of a new tensor with a constant or with a torch scalar operand."""
    dtype = dtype_of_attr(result_type.element_type)
    init = empty_with_sizes(rewriter, result_type, sizes)

    def scalar(b: ScalarBuilder) -> SSAValue:
        if isinstance(value, SSAValue):
            return scalar_operand(b, value, dtype)
        return b.const(value, result_type.element_type)

    op = FillOp([build_scalars(rewriter, scalar)], [init], [result_type])
    rewriter.insert(op)
    return op.results[0]


class ConvertFilledOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: FilledOp, rewriter: PatternRewriter) -> None:
        result_type = tensor_type_of(op)
        size_list = op.operands[op.SIZE]
        sizes = [
            int_as_index(rewriter, element) if size == DYN else None
            for size, element in zip(static_shape(result_type), list_elements(size_list))
        ]
        value = op.FILL if op.FILL is not None else op.operands[op.SIZE + 1]
        rewriter.replace(op, [], [fill(rewriter, result_type, sizes, value)])


class ConvertLikeOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LikeOp, rewriter: PatternRewriter) -> None:
        result_type, model = tensor_type_of(op), op.operands[0]
        sizes = [
            dim_size(rewriter, model, d) if size == DYN else None
            for d, size in enumerate(static_shape(result_type))
        ]
        value = op.FILL if op.FILL is not None else op.operands[1]
        rewriter.replace(op, [], [fill(rewriter, result_type, sizes, value)])


class ConvertArangeOp(RewritePattern):
    """`result[i] = start + i * step`, in f64 for float results and in i64 for integer ones;
    a dynamic length is ceil((end - start) / step) (at least 0)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ArangeOp, rewriter: PatternRewriter) -> None:
        result_type = tensor_type_of(op)
        start, end, step = op.bounds(tuple(op.operands))
        compute = FLOAT64 if dtype_of_attr(result_type.element_type).is_float else INT64
        sizes = [
            self.length(rewriter, start, end, step) if static_shape(result_type)[0] == DYN else None
        ]
        init = empty_with_sizes(rewriter, result_type, sizes)
        first = build_scalars(rewriter, lambda b: self.scalar(b, start, compute))
        stride = build_scalars(rewriter, lambda b: self.scalar(b, step, compute))

        def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            i = b.cast(b.index_cast(b.emit(IndexOp(0)), i64), compute.signless_attr)
            return [b.cast(b.add(first, b.mul(i, stride)), result_type.element_type)]

        generic = build_generic([], [init], [AffineMap.identity(1)], [PARALLEL], body)
        rewriter.insert(generic)
        rewriter.replace(op, [], [generic.results[0]])

    @staticmethod
    def scalar(b: ScalarBuilder, value: SSAValue | int, dtype: object) -> SSAValue:
        if isinstance(value, int):
            return b.const(value, dtype.signless_attr)  # type: ignore[attr-defined]
        return scalar_operand(b, value, dtype)  # type: ignore[arg-type]

    def length(
        self,
        rewriter: PatternRewriter,
        start: SSAValue | int,
        end: SSAValue | int,
        step: SSAValue | int,
    ) -> SSAValue:
        bounds = (start, end, step)
        is_float = any(
            not isinstance(v, int) and kind_of_value(arg_value(v)) == "float" for v in bounds
        )

        def body(b: ScalarBuilder) -> SSAValue:
            lo, hi, by = (self.scalar(b, v, FLOAT64 if is_float else INT64) for v in bounds)
            if is_float:
                count = b.emit(math.CeilOp(b.div(b.sub(hi, lo), by)))
                count = b.emit(arith.FPToSIOp(count, i64))
            else:
                count = b.emit(arith.CeilDivSIOp(b.sub(hi, lo), by))
            return b.index_cast(b.maximum(count, b.const(0, i64)), IndexType())

        return build_scalars(rewriter, body)


PATTERNS: tuple[RewritePattern, ...] = (ConvertFilledOp(), ConvertLikeOp(), ConvertArangeOp())
