"""Lowers mm, bmm, addmm, matmul (every rank combination, batch broadcasting) and linear to
`linalg.generic`: one generic with a reduction dim for the product, and for addmm / linear with
a bias one elementwise generic that adds it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.dtypes import dtype_of_attr
from dialects.torch.op_base import arg_value
from dialects.torch.ops.linear import AtenAddmmOp, AtenBmmOp, AtenLinearOp, AtenMatmulOp, AtenMmOp
from dialects.torch.scalar_builder import ScalarBuilder
from lowering.torch_to_linalg.utils import (
    PARALLEL,
    REDUCTION,
    broadcast_map,
    build_generic,
    empty_like_result,
    filled,
    scalar_operand,
    size_sources,
    static_shape,
    tensor_type_of,
)


@dataclass(frozen=True)
class MatmulLayout:
    """Loop dims of a product: [batch..., m?, n?, k]; `k` is the one reduction dim."""

    batch: int
    has_m: bool
    has_n: bool

    @property
    def result_rank(self) -> int:
        return self.batch + self.has_m + self.has_n

    @property
    def k(self) -> AffineExpr:
        return AffineExpr.dimension(self.result_rank)

    @property
    def m(self) -> AffineExpr:
        return AffineExpr.dimension(self.batch)

    @property
    def n(self) -> AffineExpr:
        return AffineExpr.dimension(self.batch + self.has_m)

    def batch_exprs(self, shape: Sequence[int], result_shape: Sequence[int]) -> list[AffineExpr]:
        """An operand's batch dims, right-aligned; its broadcast 1s read index 0."""
        outer = broadcast_map(shape, result_shape[: self.batch])
        return list(outer.results)

    def map(self, exprs: Sequence[AffineExpr]) -> AffineMap:
        return AffineMap(self.result_rank + 1, 0, tuple(exprs))


def lower_product(
    rewriter: PatternRewriter,
    lhs: SSAValue,
    rhs: SSAValue,
    result_type: TensorType,
    rhs_transposed: bool,
) -> SSAValue:
    """`sum_k lhs[..., m, k] * rhs[..., k, n]` (rhs given as [n, k] when transposed)."""
    ls, rs = static_shape(lhs.type), static_shape(rhs.type)
    out_shape = static_shape(result_type)
    layout = MatmulLayout(len(out_shape) - (len(ls) > 1) - (len(rs) > 1), len(ls) > 1, len(rs) > 1)
    lhs_exprs = [*layout.batch_exprs(ls[:-2], out_shape), layout.m, layout.k]
    rhs_core = [layout.n, layout.k] if rhs_transposed else [layout.k, layout.n]
    rhs_exprs = [*layout.batch_exprs(rs[:-2], out_shape), *rhs_core]
    lhs_map = layout.map(lhs_exprs[-1:] if len(ls) == 1 else lhs_exprs)
    rhs_map = layout.map(rhs_exprs[-2:-1] if len(rs) == 1 and not rhs_transposed else rhs_exprs)
    out_map = layout.map([AffineExpr.dimension(d) for d in range(layout.result_rank)])
    init = filled(
        rewriter,
        empty_like_result(rewriter, result_type, _product_sizes(lhs, rhs, layout, rhs_transposed)),
        0,
    )
    iterators = [PARALLEL] * layout.result_rank + [REDUCTION]

    def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        return [b.add(args[2], b.mul(args[0], args[1]))]

    generic = build_generic([lhs, rhs], [init], [lhs_map, rhs_map, out_map], iterators, body)
    rewriter.insert(generic)
    return generic.results[0]


def _product_sizes(
    lhs: SSAValue, rhs: SSAValue, layout: MatmulLayout, rhs_transposed: bool
) -> list[tuple[SSAValue, int] | None]:
    ls, rs = static_shape(lhs.type), static_shape(rhs.type)
    batches = [v for v, s in ((lhs, ls), (rhs, rs)) if len(s) > 2]
    sources = size_sources(batches, layout.batch, trailing=2) if batches else [None] * layout.batch
    if layout.has_m:
        sources.append((lhs, len(ls) - 2))
    if layout.has_n:
        sources.append((rhs, 0 if rhs_transposed else len(rs) - 1))
    return sources


class ConvertAtenMmOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenMmOp, rewriter: PatternRewriter) -> None:
        out = lower_product(rewriter, op.self_, op.mat2, tensor_type_of(op), False)
        rewriter.replace(op, [], [out])


class ConvertAtenBmmOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenBmmOp, rewriter: PatternRewriter) -> None:
        out = lower_product(rewriter, op.self_, op.mat2, tensor_type_of(op), False)
        rewriter.replace(op, [], [out])


class ConvertAtenAddmmOp(RewritePattern):
    """`alpha * product + beta * self` in one elementwise generic after the product; `self` is
    not read when beta is the constant 0 (so its NaNs do not leak, as in torch)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenAddmmOp, rewriter: PatternRewriter) -> None:
        result_type = tensor_type_of(op)
        product = lower_product(rewriter, op.mat1, op.mat2, result_type, False)
        dtype = dtype_of_attr(result_type.element_type)
        ignore_bias = arg_value(op.beta) == 0
        shape = static_shape(result_type)
        init = empty_like_result(rewriter, result_type, [(product, d) for d in range(len(shape))])
        inputs = [product] if ignore_bias else [product, op.self_]
        maps = [broadcast_map(static_shape(v.type), shape) for v in inputs]

        def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            out = b.mul(args[0], scalar_operand(b, op.alpha, dtype))
            if ignore_bias:
                return [out]
            return [b.add(out, b.mul(args[1], scalar_operand(b, op.beta, dtype)))]

        generic = build_generic(inputs, [init], [*maps, maps[0]], [PARALLEL] * len(shape), body)
        rewriter.insert(generic)
        rewriter.replace(op, [], [generic.results[0]])


class ConvertAtenMatmulOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenMatmulOp, rewriter: PatternRewriter) -> None:
        out = lower_product(rewriter, op.self_, op.other, tensor_type_of(op), False)
        rewriter.replace(op, [], [out])


class ConvertAtenLinearOp(RewritePattern):
    """`input @ weight.T` reads weight through a transposed map; bias adds in a second generic."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenLinearOp, rewriter: PatternRewriter) -> None:
        result_type = tensor_type_of(op)
        out = lower_product(rewriter, op.input, op.weight, result_type, True)
        if isinstance(op.bias.type, TensorType):
            out = _add_bias(rewriter, out, op.bias, result_type)
        rewriter.replace(op, [], [out])


def _add_bias(
    rewriter: PatternRewriter, value: SSAValue, bias: SSAValue, result_type: TensorType
) -> SSAValue:
    shape = static_shape(result_type)
    init = empty_like_result(rewriter, result_type, [(value, d) for d in range(len(shape))])
    maps = [broadcast_map(shape, shape), broadcast_map(static_shape(bias.type), shape)]
    generic = build_generic(
        [value, bias], [init], [*maps, maps[0]], [PARALLEL] * len(shape),
        lambda b, args: [b.add(args[0], args[1])],
    )  # fmt: skip
    rewriter.insert(generic)
    return generic.results[0]


PATTERNS: tuple[RewritePattern, ...] = (
    ConvertAtenMmOp(),
    ConvertAtenBmmOp(),
    ConvertAtenAddmmOp(),
    ConvertAtenMatmulOp(),
    ConvertAtenLinearOp(),
)
