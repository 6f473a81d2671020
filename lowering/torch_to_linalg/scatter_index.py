"""Lowers scatter, scatter_add, index_add, index_copy and index_fill: one generic over the
result whose body starts from `self`'s element and runs an `scf.for` over the candidate
writers, carrying the element.

For result position p (t = p[dim]):
- scatter / scatter_add: writers j < index.size(dim) at position q = p with q[dim] = j, if
  p lies inside index's shape off `dim`; writer j hits when `index[q] == t` and gives
  `src[q]` (or the value; scatter_add adds).
- index_add / index_copy / index_fill: writers j < index.numel(); writer j hits when
  `index[j] == t` (index_fill also accepts `t - size`, a negative index) and gives
  `source[p with dim = j]` (times alpha, added for index_add), or the value (a number, or a
  0-d tensor read once before the loops).
Later writers override earlier ones (PyTorch's CPU order). The cost is the result's size
times the number of writers per element. The positions are checked first (`index_checks.py`),
by torch's rules (`dialects/torch/ops/index_rules.py`): RuntimeError out of range for
scatter*, index_add; IndexError for index_copy, index_fill; negative ones raise but for
index_fill, where they count from the end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import IndexType, TensorType, i1
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.dtypes import dtype_of_attr
from dialects.torch.op_base import arg_value
from dialects.torch.ops.scatter_index import (
    AtenIndexAddOp,
    AtenIndexFillIntScalarOp,
    AtenIndexFillIntTensorOp,
    IndexWriteOp,
    ScatterLikeOp,
)
from dialects.torch.scalar_builder import ScalarBuilder
from lowering.torch_to_linalg.copies import dim_size, empty_with_sizes, index_const
from lowering.torch_to_linalg.index_checks import assert_message, check_in_range
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import (
    PARALLEL,
    build_generic,
    scalar_operand,
    static_shape,
    tensor_type_of,
)

# (b, loop indices of the result, writer j, current element) -> new element
Write = Callable[[ScalarBuilder, list[SSAValue], SSAValue, SSAValue], SSAValue]


def counted_loop(
    b: ScalarBuilder, count: SSAValue, init: SSAValue, step: Write, loop: list[SSAValue]
) -> SSAValue:
    """`scf.for j in [0, count)` carrying the element: `acc = step(b, loop, j, acc)`."""
    block = Block(arg_types=[IndexType(), init.type])
    j, acc = block.args
    block.add_op(scf.YieldOp(step(ScalarBuilder(block), loop, j, acc)))
    zero, one = b.const(0, IndexType()), b.const(1, IndexType())
    return b.emit(scf.ForOp(zero, count, one, [init], block))


def read(b: ScalarBuilder, source: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
    assert isinstance(source.type, TensorType)
    return b.emit(tensor.ExtractOp(source, list(indices), source.type.element_type))


def rewrite_elements(
    rewriter: PatternRewriter,
    op: ScatterLikeOp | IndexWriteOp,
    count: Callable[[ScalarBuilder, list[SSAValue]], SSAValue],
    step: Write,
) -> None:
    """Replace `op` by a generic over `self`'s shape running `count(b, p)` writers per element."""
    source, result_type = op.operands[0], tensor_type_of(op)
    rank = len(static_shape(result_type))
    sizes = [dim_size(rewriter, source, d) for d in range(rank)]
    init = empty_with_sizes(rewriter, result_type, sizes)

    def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        loop = [b.emit(IndexOp(d)) for d in range(rank)]
        start = b.cast(read(b, source, loop), result_type.element_type)
        if rank == 0:
            loop = [b.const(0, IndexType())]
        return [counted_loop(b, count(b, loop), start, step, loop)]

    generic = build_generic([], [init], [AffineMap.identity(rank)], [PARALLEL] * rank, body)
    rewriter.insert(generic)
    rewriter.replace(op, [], [generic.results[0]])


def _index_at(b: ScalarBuilder, index: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
    """An index element as an `index` value (a 0-d index is read without indices)."""
    rank = len(static_shape(index.type))
    return b.index_cast(read(b, index, list(indices)[:rank] if rank else []), IndexType())


def _fill_value(rewriter: PatternRewriter, value: SSAValue, element: object) -> SSAValue:
    dtype = dtype_of_attr(element)  # type: ignore[arg-type]
    return build_scalars(rewriter, lambda b: scalar_operand(b, value, dtype))


def _tensor_value(rewriter: PatternRewriter, value: SSAValue, element: Attribute) -> SSAValue:
    """The element of a 0-d tensor, converted to `element`."""
    assert isinstance(value.type, TensorType)
    value_type = value.type.element_type
    return build_scalars(
        rewriter, lambda b: b.cast(b.emit(tensor.ExtractOp(value, [], value_type)), element)
    )


class ConvertScatterOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ScatterLikeOp, rewriter: PatternRewriter) -> None:
        source, dim_arg, index, what = op.operands
        result_type = tensor_type_of(op)
        element = result_type.element_type
        rank = max(len(static_shape(source.type)), 1)
        dim = arg_value(dim_arg) % rank
        index_rank = len(static_shape(index.type))
        extents = [dim_size(rewriter, index, d) for d in range(index_rank)]
        writes_tensor = isinstance(what.type, TensorType)
        value = None if writes_tensor else _fill_value(rewriter, what, element)
        accumulate = op.ACCUMULATE
        _check_positions(rewriter, op, source, dim, index)
        zero = build_scalars(rewriter, lambda b: b.const(0, IndexType()))

        def count(b: ScalarBuilder, loop: list[SSAValue]) -> SSAValue:
            return writer_count(b, loop, extents, dim, zero)

        def step(b: ScalarBuilder, loop: list[SSAValue], j: SSAValue, acc: SSAValue) -> SSAValue:
            at = [j if d == dim else i for d, i in enumerate(loop)][: max(index_rank, 1)]
            hit = b.cmp("eq", _index_at(b, index, at), loop[dim])
            if writes_tensor:
                src_rank = len(static_shape(what.type))
                written = b.cast(read(b, what, at if src_rank else []), element)
            else:
                assert value is not None
                written = value
            if accumulate:
                written = b.add(acc, written)
            return b.select(hit, written, acc)

        rewrite_elements(rewriter, op, count, step)


class ConvertIndexWriteOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IndexWriteOp, rewriter: PatternRewriter) -> None:
        source, dim_arg, index, what = op.operands[:4]
        result_type = tensor_type_of(op)
        element = result_type.element_type
        rank = max(len(static_shape(source.type)), 1)
        dim = arg_value(dim_arg) % rank
        index_rank = len(static_shape(index.type))
        total = dim_size(rewriter, index, 0) if index_rank else None
        size = dim_size(rewriter, source, dim) if static_shape(source.type) else None
        writes_tensor = isinstance(what.type, TensorType)
        value = None if writes_tensor else _fill_value(rewriter, what, element)
        if isinstance(op, AtenIndexFillIntTensorOp):  # the 0-d value, read once
            writes_tensor, value = False, _tensor_value(rewriter, what, element)
        alpha = (
            _fill_value(rewriter, op.operands[4], element)
            if isinstance(op, AtenIndexAddOp) and arg_value(op.operands[4]) != 1
            else None
        )
        fills = AtenIndexFillIntScalarOp | AtenIndexFillIntTensorOp
        _check_positions(rewriter, op, source, dim, index)
        wraps = isinstance(op, fills) and size is not None

        def count(b: ScalarBuilder, loop: list[SSAValue]) -> SSAValue:
            return total if total is not None else b.const(1, IndexType())

        def step(b: ScalarBuilder, loop: list[SSAValue], j: SSAValue, acc: SSAValue) -> SSAValue:
            position = _index_at(b, index, [j])
            t = loop[dim]
            hit = b.cmp("eq", position, t)
            if wraps:
                assert size is not None
                hit = b.or_(hit, b.cmp("eq", position, b.sub(t, size)))
            if writes_tensor:
                src_rank = len(static_shape(what.type))
                at = [j if d == dim else i for d, i in enumerate(loop)] if src_rank else []
                written = b.cast(read(b, what, at), element)
                if alpha is not None:
                    written = b.mul(written, alpha)
            else:
                assert value is not None
                written = value
            if op.ACCUMULATE:
                written = b.add(acc, written)
            return b.select(hit, written, acc)

        rewrite_elements(rewriter, op, count, step)


def writer_count(
    b: ScalarBuilder, loop: list[SSAValue], extents: list[SSAValue], dim: int, zero: SSAValue
) -> SSAValue:
    """How many index elements write at the output position `loop`: the index's extent along
    `dim` where the position is inside the index's other extents, else none (a 0-d index:
    one)."""
    if not extents:
        return b.const(1, IndexType())
    inside = b.const(True, i1)
    for d in range(len(extents)):
        if d != dim:
            inside = b.and_(inside, b.cmp("lt", loop[d], extents[d]))
    return b.select(inside, extents[dim], zero)


def _check_positions(
    rewriter: PatternRewriter,
    op: ScatterLikeOp | IndexWriteOp,
    source: SSAValue,
    dim: int,
    index: SSAValue,
) -> None:
    """torch's check of the positions `index` writes at along `dim` of `source`, by the op's
    rule (`index_rules.py`): an index out of range would hit no element, the write would be
    lost silently."""
    has_dims = bool(static_shape(source.type))
    size = dim_size(rewriter, source, dim) if has_dims else index_const(rewriter, 1)
    message = assert_message(op.name, source, dim)
    check_in_range(rewriter, index, size, op.name, message)


PATTERNS: tuple[RewritePattern, ...] = (ConvertScatterOp(), ConvertIndexWriteOp())
