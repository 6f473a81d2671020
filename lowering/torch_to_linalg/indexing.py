"""Lowers index_select, gather, embedding and `x[i]` / `x[rows, cols]` to copies that read
the index first.

Each is one generic over the result (`copy_by_index`): the body reads the index element with
`tensor.extract`, casts it to `index`, checks it (`index_checks.checked_reader`: torch's
exception and rule for negative indices; `x[...]` wraps them, the other three raise) and reads
the source there.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import cf, tensor
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.meta import broadcast_shapes
from dialects.torch.op_base import arg_value
from dialects.torch.ops.index_put import adjacent
from dialects.torch.ops.indexing import (
    AtenEmbeddingOp,
    AtenGatherOp,
    AtenIndexSelectOp,
    AtenIndexTensorOp,
)
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN, NoneType
from lowering.ir_marks import RAISE_SEPARATOR
from lowering.torch_to_linalg.copies import copy_by_index, dim_size, index_const, list_elements
from lowering.torch_to_linalg.index_checks import assert_message, check_in_range, checked_reader
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import (
    broadcast_map,
    size_sources,
    static_shape,
    tensor_type_of,
)


def index_reader(
    rewriter: PatternRewriter, index: SSAValue
) -> Callable[[ScalarBuilder, list[SSAValue]], SSAValue]:
    """`read(b, indices)`: an element of an integer index tensor as an `index` value, not
    checked (index_put's offsets mark one out of range for its kernel). A 0-d index is read
    once, before the loops (numba cannot index a 0-d array inside `prange`)."""
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
            one = index_const(rewriter, 1)
            message = assert_message("index_select", source, 0)
            check_in_range(rewriter, index, one, "index_select", message)
            rewriter.replace(op, [], [source])
            return
        dim = arg_value(op.dim) % rank
        count = dim_size(rewriter, index, 0) if _rank(index) else None
        sizes = [count if d == dim else dim_size(rewriter, source, d) for d in range(rank)]
        bound = dim_size(rewriter, source, dim)
        message = assert_message("index_select", source, dim)
        read = checked_reader(rewriter, index, bound, "index_select", message)

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
        bound = dim_size(rewriter, source, dim) if rank else index_const(rewriter, 1)
        message = assert_message("gather", source, dim)
        read = checked_reader(rewriter, index, bound, "gather", message)  # 0-d: checked here

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
        rows = dim_size(rewriter, weight, 0)
        message = assert_message("embedding", weight, 0)
        read = checked_reader(rewriter, indices, rows, "embedding", message)

        def source_indices(b: ScalarBuilder, loop: list[SSAValue]) -> list[SSAValue]:
            return [read(b, loop[:batch]), loop[batch]]

        result = copy_by_index(rewriter, weight, source_indices, tensor_type_of(op), sizes)
        rewriter.replace(op, [], [result])


class ConvertIndexTensorOp(RewritePattern):
    """`x[i0, :, i2]` (`aten.index.Tensor`, integer index tensors at dims D, None for `:`):
    one generic over the result `result[k..., b..., k'...] = self[...]` reading each indexed
    dim d at `wrap(index_d[b])` (broadcast over B, checked where it is read) and each kept dim
    at its loop index. B sits at D's first dim when D is adjacent, else first
    (`dialects/torch/ops/index_put.py`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenIndexTensorOp, rewriter: PatternRewriter) -> None:
        source = op.self_
        entries = list_elements(op.indices)
        dims = [d for d, e in enumerate(entries) if not isinstance(e.type, NoneType)]
        indices = [entries[d] for d in dims]
        rank = _rank(source)
        sizes = [dim_size(rewriter, source, d) for d in range(rank)]
        broadcast = broadcast_shapes([static_shape(i.type) for i in indices])
        assert broadcast is not None
        carriers = size_sources(indices, len(broadcast))
        broadcast_sizes = [
            index_const(rewriter, 1) if carrier is None else dim_size(rewriter, *carrier)
            for carrier in carriers
        ]
        checked_run_time_sizes(rewriter, indices, broadcast_sizes, carriers)
        kept = [d for d in range(rank) if d not in dims]
        at = dims[0] if adjacent(dims) else 0
        result_sizes = [
            *(sizes[d] for d in kept[:at]),
            *broadcast_sizes,
            *(sizes[d] for d in kept[at:]),
        ]
        readers = [
            checked_reader(rewriter, index, sizes[d], "index", assert_message("index", source, d))
            for index, d in zip(indices, dims, strict=True)
        ]
        maps = [broadcast_map(static_shape(i.type), broadcast) for i in indices]
        count = len(broadcast)

        def source_indices(b: ScalarBuilder, loop: list[SSAValue]) -> list[SSAValue]:
            zero = b.const(0, IndexType())
            kept_loop = iter([*loop[:at], *loop[at + count :]])
            positions = loop[at : at + count]
            read_at: list[SSAValue] = []
            for d in range(rank):
                if d not in dims:
                    read_at.append(next(kept_loop))
                    continue
                k = dims.index(d)
                where = [
                    positions[e.position] if isinstance(e, AffineDimExpr) else zero
                    for e in maps[k].results
                ]
                read_at.append(readers[k](b, where))
            return read_at

        result = copy_by_index(rewriter, source, source_indices, tensor_type_of(op), result_sizes)
        rewriter.replace(op, [], [result])


def checked_run_time_sizes(
    rewriter: PatternRewriter,
    indices: list[SSAValue],
    broadcast_sizes: list[SSAValue],
    carriers: list[tuple[SSAValue, int] | None],
) -> None:
    """Insert `cf.assert` that each `?` dim of an index tensor (but the one `carriers` took
    the size from) has the broadcast size it is read at (the generic reads it there, not at 0
    as a broadcast 1): IndexError otherwise. Argument shapes are checked when a call starts;
    this covers sizes computed inside the program."""
    rank = len(broadcast_sizes)
    for index in indices:
        shape = static_shape(index.type)
        for k, n in enumerate(shape):
            axis = rank - len(shape) + k
            if n != DYN or carriers[axis] == (index, k):
                continue
            want, have = broadcast_sizes[axis], dim_size(rewriter, index, k)
            same = build_scalars(rewriter, lambda b, have=have, want=want: b.cmp("eq", have, want))
            message = (
                f"IndexError{RAISE_SEPARATOR}shape mismatch: indexing tensors could not be "
                "broadcast together"
            )
            rewriter.insert(cf.AssertOp(same, message))


PATTERNS: tuple[RewritePattern, ...] = (
    ConvertIndexTensorOp(),
    ConvertIndexSelectOp(),
    ConvertGatherOp(),
    ConvertEmbeddingOp(),
)
