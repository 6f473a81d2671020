"""Lowers index_select, gather, embedding and `x[index]` to copies that read the index first.

Each is one generic over the result (`copy_by_index`): the body reads the index element with
`tensor.extract`, casts it to `index`, and reads the source there. Indices are not checked.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import tensor
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.op_base import arg_value
from dialects.torch.ops.indexing import (
    AtenEmbeddingOp,
    AtenGatherOp,
    AtenIndexSelectOp,
    AtenIndexTensorOp,
)
from dialects.torch.ops.prim import PrimListConstructOp
from dialects.torch.scalar_builder import ScalarBuilder
from lowering.torch_to_linalg.copies import copy_by_index, dim_size
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import static_shape, tensor_type_of


def index_reader(
    rewriter: PatternRewriter, index: SSAValue
) -> Callable[[ScalarBuilder, list[SSAValue]], SSAValue]:
    """`read(b, indices)`: an element of an integer index tensor as an `index` value. A 0-d
    index is read once, before the loops (numba cannot index a 0-d array inside `prange`)."""
    assert isinstance(index.type, TensorType)
    element_type = index.type.element_type

    def read(b: ScalarBuilder, indices: list[SSAValue]) -> SSAValue:
        return b.index_cast(b.emit(tensor.ExtractOp(index, indices, element_type)), IndexType())

    if index.type.get_num_dims():
        return read
    value = build_scalars(rewriter, lambda b: read(b, []))
    return lambda b, indices: value


def _rank(value: SSAValue) -> int:
    return len(static_shape(value.type))


class ConvertIndexSelectOp(RewritePattern):
    """`result[..., i, ...] = self[..., index[i], ...]` (a 0-d index reads `index[]`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenIndexSelectOp, rewriter: PatternRewriter) -> None:
        source, index = op.self_, op.index
        rank = _rank(source)
        if rank == 0:  # a 0-d tensor selects itself (its one index can only be 0)
            rewriter.replace(op, [], [source])
            return
        dim = arg_value(op.dim) % rank
        count = dim_size(rewriter, index, 0) if _rank(index) else None
        sizes = [count if d == dim else dim_size(rewriter, source, d) for d in range(rank)]

        read = index_reader(rewriter, index)

        def source_indices(b: ScalarBuilder, loop: list[SSAValue]) -> list[SSAValue]:
            at = read(b, [loop[dim]] if _rank(index) else [])
            return [*loop[:dim], at, *loop[dim + 1 :]]

        result = copy_by_index(rewriter, source, source_indices, tensor_type_of(op), sizes)
        rewriter.replace(op, [], [result])


class ConvertGatherOp(RewritePattern):
    """`result[i...] = self[i...]` with the index at `dim` replaced by `index[i...]`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenGatherOp, rewriter: PatternRewriter) -> None:
        source, index = op.self_, op.index
        rank = _rank(source)
        dim = arg_value(op.dim) % max(rank, 1)
        sizes = [dim_size(rewriter, index, d) for d in range(rank)]

        read = index_reader(rewriter, index)

        def source_indices(b: ScalarBuilder, loop: list[SSAValue]) -> list[SSAValue]:
            at = read(b, loop)
            return [*loop[:dim], at, *loop[dim + 1 :]]

        result = copy_by_index(rewriter, source, source_indices, tensor_type_of(op), sizes)
        rewriter.replace(op, [], [result])


class ConvertEmbeddingOp(RewritePattern):
    """`result[i..., j] = weight[indices[i...], j]`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenEmbeddingOp, rewriter: PatternRewriter) -> None:
        weight, indices = op.weight, op.indices
        batch = _rank(indices)
        sizes = [
            *(dim_size(rewriter, indices, d) for d in range(batch)),
            dim_size(rewriter, weight, 1),
        ]

        read = index_reader(rewriter, indices)

        def source_indices(b: ScalarBuilder, loop: list[SSAValue]) -> list[SSAValue]:
            return [read(b, loop[:batch]), loop[batch]]

        result = copy_by_index(rewriter, weight, source_indices, tensor_type_of(op), sizes)
        rewriter.replace(op, [], [result])


class ConvertIndexTensorOp(RewritePattern):
    """`result[i..., k..., j...] = self[i..., wrap(index[k...]), j...]` (the index at dim d =
    the number of None entries before it), a negative index counting from the end."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenIndexTensorOp, rewriter: PatternRewriter) -> None:
        source = op.self_
        listed = op.indices.owner
        assert isinstance(listed, PrimListConstructOp)
        d = len(listed.elements) - 1
        index = listed.elements[-1]
        index_rank = _rank(index)
        sizes = [dim_size(rewriter, source, k) for k in range(d)]
        sizes += [dim_size(rewriter, index, k) for k in range(index_rank)]
        sizes += [dim_size(rewriter, source, k) for k in range(d + 1, _rank(source))]
        extent = dim_size(rewriter, source, d)
        read = index_reader(rewriter, index)

        def source_indices(b: ScalarBuilder, loop: list[SSAValue]) -> list[SSAValue]:
            at = read(b, loop[d : d + index_rank])
            wrapped = b.select(b.cmp("lt", at, b.const(0, IndexType())), b.add(at, extent), at)
            return [*loop[:d], wrapped, *loop[d + index_rank :]]

        result = copy_by_index(rewriter, source, source_indices, tensor_type_of(op), sizes)
        rewriter.replace(op, [], [result])


PATTERNS: tuple[RewritePattern, ...] = (
    ConvertIndexTensorOp(),
    ConvertIndexSelectOp(),
    ConvertGatherOp(),
    ConvertEmbeddingOp(),
)
