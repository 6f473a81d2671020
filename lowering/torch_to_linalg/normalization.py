"""Lowers softmax, log_softmax, layer_norm, batch_norm (inference) and dropout (eval).

Each op becomes a few linalg.generics: reductions along the normalized dims into keepdim-
layout tensors (size 1 there), then one elementwise generic reading them back through the
same maps. Fusing them is left to later passes. Softmax stores its exponentials in the same
generic that sums them (so exp runs once per element) and divides them in place.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import math
from xdsl.dialects.builtin import TensorType, UnitAttr
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.dtypes import dtype_of_attr
from dialects.torch.op_base import arg_value
from dialects.torch.ops.normalization import (
    AtenBatchNormOp,
    AtenDropoutOp,
    AtenLayerNormOp,
    SoftmaxOp,
)
from dialects.torch.scalar_builder import ScalarBuilder
from lowering.ir_marks import NONPOSITIVE_ARGUMENT
from lowering.torch_to_linalg.ordered_keys import has_keys, max_unless_nan
from lowering.torch_to_linalg.reduction import (
    fold,
    mean_over,
    pointwise,
    reduced_count,
    reduced_type,
    reduction_output_map,
)
from lowering.torch_to_linalg.utils import (
    PARALLEL,
    REDUCTION,
    build_generic,
    empty_like_result,
    filled,
    scalar_operand,
    static_shape,
    tensor_type_of,
)


def _rank(value: SSAValue) -> int:
    return len(static_shape(value.type))


def _present(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType)


class ConvertSoftmaxOp(RewritePattern):
    """max along dim; then softmax: one generic that stores e = exp(x - max) and sums it, and
    e * (1 / sum) written over e's buffer (exp is computed once per element); log_softmax:
    x - max - log(sum of exp(x - max))."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SoftmaxOp, rewriter: PatternRewriter) -> None:
        x = op.operands[0]
        rank, dim = _rank(x), op.softmax_dim()
        result_type = tensor_type_of(op)
        element = result_type.element_type
        identity = AffineMap.identity(rank)

        def largest(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            return [b.maximum(args[1], b.cast(args[0], element))]

        if has_keys(element):  # an integer max, which vectorizes (see ordered_keys)
            top = max_unless_nan(rewriter, x, dim, element)
        else:
            inits = [(element, float("-inf"))]
            (top,) = fold(rewriter, [x], [identity], [dim], True, inits, largest)
        if op.LOG:
            out = _log_softmax(rewriter, x, top, dim, result_type)
        else:
            out = _softmax(rewriter, x, top, dim, result_type)
        rewriter.replace(op, [], [out])


def _softmax(
    rewriter: PatternRewriter, x: SSAValue, top: SSAValue, dim: int, result_type: TensorType
) -> SSAValue:
    """`exp(x - top) / sum`: a generic with two outputs, `exp(x - top)` (indexed by the reduced
    dim too, so the loop lowering stores it at every step) and its sum; then, as ATen does,
    `1 / sum` once per row and a product written in place over the exponentials (their init,
    read by nothing else): a division per element costs many times a product (W2 at 1 thread
    0.79 -> 0.71 ms)."""
    rank, element = _rank(x), result_type.element_type
    identity, kept = AffineMap.identity(rank), reduction_output_map(rank, [dim], True)
    sizes = [(x, d) for d in range(rank)]
    sums_type = reduced_type(x, [dim], True, element)
    zeros = filled(rewriter, empty_like_result(rewriter, sums_type, sizes), 0)
    exps_init = empty_like_result(rewriter, result_type, sizes)

    def exp_and_sum(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        value = _exp_below_max(b, b.cast(args[0], element), args[1])
        return [value, b.add(args[3], value)]

    iterators = [REDUCTION if d == dim else PARALLEL for d in range(rank)]
    maps = [identity, kept, identity, kept]
    both = build_generic([x, top], [exps_init, zeros], maps, iterators, exp_and_sum)
    rewriter.insert(both)
    exps, total = both.results

    def reciprocal(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        return [b.div(b.const(1.0, element), args[0])]

    sums_init = empty_like_result(rewriter, sums_type, sizes)
    inverse = build_generic([total], [sums_init], [identity] * 2, [PARALLEL] * rank, reciprocal)
    rewriter.insert(inverse)

    def normalize(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        return [b.mul(args[1], args[0])]

    divide = build_generic(
        [inverse.results[0]], [exps], [kept, identity], [PARALLEL] * rank, normalize
    )
    rewriter.insert(divide)
    return divide.results[0]


def _exp_below_max(b: ScalarBuilder, x: SSAValue, top: SSAValue) -> SSAValue:
    """exp(x - top) for `top` the max of a set holding x: the argument is <= 0 or NaN, which
    the exp's `NONPOSITIVE_ARGUMENT` mark tells `expand-math` (no overflow to handle)."""
    exp = math.ExpOp(b.sub(x, top))
    exp.attributes[NONPOSITIVE_ARGUMENT] = UnitAttr()
    return b.emit(exp)


def _log_softmax(
    rewriter: PatternRewriter, x: SSAValue, top: SSAValue, dim: int, result_type: TensorType
) -> SSAValue:
    rank, element = _rank(x), result_type.element_type
    identity, kept = AffineMap.identity(rank), reduction_output_map(rank, [dim], True)

    def exp_sum(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        return [b.add(args[2], _exp_below_max(b, b.cast(args[0], element), args[1]))]

    def normalize(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        return [b.sub(b.sub(b.cast(args[0], element), args[1]), b.log(args[2]))]

    (total,) = fold(rewriter, [x, top], [identity, kept], [dim], True, [(element, 0)], exp_sum)
    return pointwise(rewriter, [x, top, total], [identity, kept, kept], result_type, x, normalize)


class ConvertAtenLayerNormOp(RewritePattern):
    """means and summed squared deviations over the trailing dims; rstd = rsqrt(var + eps);
    then (x - mean) * rstd * weight + bias, weight and bias indexed by the trailing dims."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenLayerNormOp, rewriter: PatternRewriter) -> None:
        x, _, weight, bias, eps, _ = op.operands
        rank = _rank(x)
        reduced = list(range(rank - op.normalized_rank(), rank))
        result_type = tensor_type_of(op)
        element = result_type.element_type
        identity, kept = AffineMap.identity(rank), reduction_output_map(rank, reduced, True)
        count = reduced_count(rewriter, x, reduced, element)
        means = mean_over(rewriter, x, reduced, count)
        (squares,) = fold(
            rewriter, [x, means], [identity, kept], reduced, True, [(element, 0)], _add_square
        )
        dtype = dtype_of_attr(element)

        def inverse_std(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            return [b.rsqrt(b.add(b.div(args[0], count), scalar_operand(b, eps, dtype)))]

        squares_type = squares.type
        assert isinstance(squares_type, TensorType)
        rstd = pointwise(rewriter, [squares], [identity], squares_type, squares, inverse_std)
        trailing = AffineMap(rank, 0, tuple(AffineExpr.dimension(d) for d in reduced))
        params = [p for p in (weight, bias) if _present(p)]

        def normalize(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            out = b.mul(b.sub(args[0], args[1]), args[2])
            rest = iter(args[3:])
            out = b.mul(out, next(rest)) if _present(weight) else out
            return [b.add(out, next(rest)) if _present(bias) else out]

        out = pointwise(
            rewriter,
            [x, means, rstd, *params],
            [identity, kept, kept, *[trailing] * len(params)],
            result_type,
            x,
            normalize,
        )
        rewriter.replace(op, [], [out])


def _add_square(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
    deviation = b.sub(args[0], args[1])
    return [b.add(args[2], b.mul(deviation, deviation))]


class ConvertAtenBatchNormOp(RewritePattern):
    """Per channel: scale = weight / sqrt(var + eps), shift = bias - mean * scale (two small
    generics over the channels); then x * scale + shift over the input."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenBatchNormOp, rewriter: PatternRewriter) -> None:
        x, weight, bias, mean, var, _, _, eps, _ = op.operands
        rank = _rank(x)
        result_type = tensor_type_of(op)
        element = result_type.element_type
        dtype = dtype_of_attr(element)
        channel_type = TensorType(element, [result_type.get_shape()[1]])
        line = AffineMap.identity(1)

        def scale_of(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            std = b.sqrt(b.add(args[0], scalar_operand(b, eps, dtype)))
            inverse = b.div(b.const(1, element), std)
            return [b.mul(inverse, args[1]) if _present(weight) else inverse]

        inputs = [var, weight] if _present(weight) else [var]
        scale = pointwise(rewriter, inputs, [line] * len(inputs), channel_type, mean, scale_of)

        def shift_of(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            moved = b.mul(args[0], args[1])
            return [b.sub(args[2], moved) if _present(bias) else b.neg(moved)]

        inputs = [mean, scale, bias] if _present(bias) else [mean, scale]
        shift = pointwise(rewriter, inputs, [line] * len(inputs), channel_type, mean, shift_of)
        channel = AffineMap(rank, 0, (AffineExpr.dimension(1),))

        def transform(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            return [b.add(b.mul(args[0], args[1]), args[2])]

        out = pointwise(
            rewriter,
            [x, scale, shift],
            [AffineMap.identity(rank), channel, channel],
            result_type,
            x,
            transform,
        )
        rewriter.replace(op, [], [out])


class ConvertAtenDropoutOp(RewritePattern):
    """Evaluation-mode dropout (the only kind the shape rule admits) is its input."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenDropoutOp, rewriter: PatternRewriter) -> None:
        assert arg_value(op.operands[2]) is False, "aten.dropout with train=True"
        rewriter.replace(op, [], [op.operands[0]])


PATTERNS: tuple[RewritePattern, ...] = (
    ConvertSoftmaxOp(),
    ConvertAtenLayerNormOp(),
    ConvertAtenBatchNormOp(),
    ConvertAtenDropoutOp(),
)
