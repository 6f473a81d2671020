"""Lowers eye, linspace and logspace: one generic over `linalg.index` each.

- eye: `result[i, j] = i == j` converted to the dtype.
- linspace: in f64, `start + step * i` for i < steps // 2, else `end - step * (steps - 1 - i)`
  with `step = (end - start) / (steps - 1)` (torch's formula; one step gives `start`); the value
  converts to the dtype (truncating for integers). logspace raises `base` to that value.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import i64
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.dtypes import FLOAT64, INT64, dtype_of_attr
from dialects.torch.ops.ranges import AtenLogspaceOp, _EyeOp, _SpaceOp
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.torch_to_linalg.copies import empty_with_sizes, int_as_index
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import (
    PARALLEL,
    build_generic,
    scalar_operand,
    static_shape,
    tensor_type_of,
)


class ConvertEyeOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: _EyeOp, rewriter: PatternRewriter) -> None:
        result_type = tensor_type_of(op)
        n = op.operands[0]
        m = op.operands[1] if len(op.operands) == 3 else n
        sizes = [
            int_as_index(rewriter, v) if s == DYN else None
            for s, v in zip(static_shape(result_type), (n, m))
        ]
        init = empty_with_sizes(rewriter, result_type, sizes)
        element = result_type.element_type

        def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            same = b.cmp("eq", b.emit(IndexOp(0)), b.emit(IndexOp(1)))
            return [b.select(same, b.const(1, element), b.const(0, element))]

        generic = build_generic([], [init], [AffineMap.identity(2)], [PARALLEL] * 2, body)
        rewriter.insert(generic)
        rewriter.replace(op, [], [generic.results[0]])


class ConvertSpaceOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: _SpaceOp, rewriter: PatternRewriter) -> None:
        result_type = tensor_type_of(op)
        start_arg, end_arg, steps_arg = op.operands[:3]
        size = int_as_index(rewriter, steps_arg) if static_shape(result_type)[0] == DYN else None
        init = empty_with_sizes(rewriter, result_type, [size])
        f64 = FLOAT64.signless_attr

        def constants(b: ScalarBuilder) -> tuple[SSAValue, ...]:
            start = scalar_operand(b, start_arg, FLOAT64)
            end = scalar_operand(b, end_arg, FLOAT64)
            if not dtype_of_attr(result_type.element_type).is_float:  # torch: to the dtype first
                start, end = b.trunc(start), b.trunc(end)
            steps = b.cast(scalar_operand(b, steps_arg, INT64), f64)
            intervals = b.maximum(b.sub(steps, b.const(1.0, f64)), b.const(1.0, f64))
            return start, end, steps, b.div(b.sub(end, start), intervals)

        start, end, steps, step = build_scalars(rewriter, constants)  # type: ignore[arg-type,misc]
        base = (
            build_scalars(rewriter, lambda b: scalar_operand(b, op.operands[3], FLOAT64))
            if isinstance(op, AtenLogspaceOp)
            else None
        )
        half = build_scalars(
            rewriter,
            lambda b: b.floor(b.div(steps, b.const(2.0, f64))),
        )

        def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            i = b.cast(b.index_cast(b.emit(IndexOp(0)), i64), f64)
            rising = b.add(start, b.mul(step, i))
            last = b.sub(b.sub(steps, b.const(1.0, f64)), i)
            falling = b.sub(end, b.mul(step, last))
            value = b.select(b.cmp("lt", i, half), rising, falling)
            value = b.select(b.cmp("eq", steps, b.const(1.0, f64)), start, value)
            if base is not None:
                value = b.pow(base, value)
            return [b.cast(value, result_type.element_type)]

        generic = build_generic([], [init], [AffineMap.identity(1)], [PARALLEL], body)
        rewriter.insert(generic)
        rewriter.replace(op, [], [generic.results[0]])


PATTERNS: tuple[RewritePattern, ...] = (ConvertEyeOp(), ConvertSpaceOp())
