"""Lowers `scatter_reduce.two`: one generic over the result whose body runs an `scf.for` over
the candidate writers of its element, as scatter does (`scatter_index.py`), carrying the
combined value and the number combined.

For result position p (t = p[dim]): writers j < index.size(dim) at q = p with q[dim] = j, if
p lies inside index's shape off `dim`; writer j hits when `index[q] == t` and is combined
with `src[q]` (sum: add, or for bools; prod: mul; mean: add; amax / amin: NaN-propagating
max / min). The loop starts from self's element and a count of 1 when `include_self`, else
from the reduction's identity and 0. After it, an element no writer hit keeps self's value,
and mean divides by the count (integers: floor division, as torch). The positions are checked
first (`index_checks.py`): RuntimeError out of range, as torch.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType, i64
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.dtypes import dtype_of_attr
from dialects.torch.families import MaxMixin, MinMixin
from dialects.torch.op_base import arg_value
from dialects.torch.ops.scatter_index import AtenScatterReduceTwoOp
from dialects.torch.scalar_builder import ScalarBuilder
from lowering.torch_to_linalg.copies import dim_size, empty_with_sizes
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.scatter_index import (
    _check_positions,
    _index_at,
    read,
    writer_count,
)
from lowering.torch_to_linalg.utils import PARALLEL, build_generic, static_shape, tensor_type_of

Combine = Callable[[ScalarBuilder, SSAValue, SSAValue], SSAValue]

COMBINERS: dict[str, Combine] = {
    "sum": lambda b, acc, x: b.add(acc, x),
    "mean": lambda b, acc, x: b.add(acc, x),
    "prod": lambda b, acc, x: b.mul(acc, x),
    "amax": lambda b, acc, x: b.maximum(acc, x),
    "amin": lambda b, acc, x: b.minimum(acc, x),
}


def identity(reduce: str, element: Attribute) -> float | int | bool:
    """The value a reduction starts from when self's element is left out."""
    dtype = dtype_of_attr(element)  # type: ignore[arg-type]
    if reduce == "amax":
        return MaxMixin.identity(dtype)
    if reduce == "amin":
        return MinMixin.identity(dtype)
    return 1 if reduce == "prod" else 0


def finish(b: ScalarBuilder, reduce: str, own: SSAValue, acc: SSAValue, n: SSAValue) -> SSAValue:
    """The element after its writers: self's where none hit (and none counted), the mean's
    quotient for mean."""
    none = b.cmp("eq", n, b.const(0, n))
    if reduce == "mean":
        count = b.cast(b.select(none, b.const(1, n), n), acc.type)
        acc = b.div(acc, count) if b.is_float(acc) else b.floordiv(acc, count)
    return b.select(none, own, acc)


class ConvertAtenScatterReduceTwoOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenScatterReduceTwoOp, rewriter: PatternRewriter) -> None:
        source, dim_arg, index, src = op.operands[:4]
        reduce, include_self = arg_value(op.reduce), arg_value(op.include_self)
        result_type = tensor_type_of(op)
        element = result_type.element_type
        rank = len(static_shape(result_type))
        dim = arg_value(dim_arg) % max(rank, 1)
        index_rank = len(static_shape(index.type))
        extents = [dim_size(rewriter, index, d) for d in range(index_rank)]
        _check_positions(rewriter, op, source, dim, index)  # type: ignore[arg-type]
        zero = build_scalars(rewriter, lambda b: b.const(0, IndexType()))
        combine = COMBINERS[reduce]

        def writers(b: ScalarBuilder, loop: list[SSAValue]) -> SSAValue:
            return writer_count(b, loop, extents, dim, zero)

        def step(
            b: ScalarBuilder, loop: list[SSAValue], j: SSAValue, carried: list[SSAValue]
        ) -> list[SSAValue]:
            acc, n = carried
            at = [j if d == dim else i for d, i in enumerate(loop)][: max(index_rank, 1)]
            hit = b.cmp("eq", _index_at(b, index, at), loop[dim])
            value = b.cast(read(b, src, at if static_shape(src.type) else []), element)
            acc = b.select(hit, combine(b, acc, value), acc)
            return [acc, b.select(hit, b.add(n, b.const(1, n)), n)]

        def body(b: ScalarBuilder, args: list[SSAValue]) -> list[SSAValue]:
            loop = [b.emit(IndexOp(d)) for d in range(rank)]
            own = b.cast(read(b, source, loop), element)
            if rank == 0:
                loop = [b.const(0, IndexType())]
            start = own if include_self else b.const(identity(reduce, element), element)
            init = [start, b.const(1 if include_self else 0, i64)]
            acc, n = carried_loop(b, writers(b, loop), init, lambda c, j, v: step(c, loop, j, v))
            return [finish(b, reduce, own, acc, n)]

        sizes = [dim_size(rewriter, source, d) for d in range(rank)]
        init = empty_with_sizes(rewriter, result_type, sizes)
        generic = build_generic([], [init], [AffineMap.identity(rank)], [PARALLEL] * rank, body)
        rewriter.insert(generic)
        rewriter.replace(op, [], [generic.results[0]])


def carried_loop(
    b: ScalarBuilder,
    count: SSAValue,
    init: list[SSAValue],
    step: Callable[[ScalarBuilder, SSAValue, list[SSAValue]], list[SSAValue]],
) -> list[SSAValue]:
    """`scf.for j in [0, count)` carrying `init`: `values = step(b, j, values)`."""
    block = Block(arg_types=[IndexType(), *(v.type for v in init)])
    j, *values = block.args
    block.add_op(scf.YieldOp(*step(ScalarBuilder(block), j, list(values))))
    zero, one = b.const(0, IndexType()), b.const(1, IndexType())
    loop = scf.ForOp(zero, count, one, init, block)
    b.emit(loop)
    return list(loop.results)


PATTERNS: tuple[RewritePattern, ...] = (ConvertAtenScatterReduceTwoOp(),)
