"""Building blocks for ops that copy elements to new positions (views, joins, gathers).

Two kinds of copies:
- `copy_with_map`: `result[i...] = source[map(i...)]` through an affine indexing map
  (permutations, broadcasts, dropped or added size-1 dims): one parallel generic, no index maths.
- `copy_by_index`: a generic with no inputs whose body computes the source indices from the loop
  indices (`linalg.index`) with arith and reads the source with `tensor.extract`; used where
  an index depends on sizes known only at run time (reshape, repeat) or on data (gather).
  Bufferization turns the extract into a `memref.load`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from dialects.torch.op_base import arg_value
from dialects.torch.ops.prim import PrimListConstructOp
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import PARALLEL, build_generic, static_shape

IndexFn = Callable[[ScalarBuilder, list[SSAValue]], list[SSAValue]]
"""(builder, loop indices of the result) -> indices into the source, all `index` values."""


def list_elements(value: SSAValue) -> list[SSAValue]:
    """The element values of a `torch.prim.ListConstruct` operand (lowered or constant)."""
    owner = value.owner
    assert isinstance(owner, PrimListConstructOp), f"expected a list construct, got {owner}"
    return list(owner.elements)


def index_const(rewriter: PatternRewriter, value: int) -> SSAValue:
    return build_scalars(rewriter, lambda b: b.const(value, IndexType()))


def dim_size(rewriter: PatternRewriter, source: SSAValue, dim: int) -> SSAValue:
    """The size of `dim` of a lowered tensor as an `index`: a constant when static."""
    size = static_shape(source.type)[dim]
    if size != DYN:
        return index_const(rewriter, size)
    return build_scalars(
        rewriter, lambda b: b.emit(tensor.DimOp(source, b.const(dim, IndexType())))
    )


def int_as_index(rewriter: PatternRewriter, value: SSAValue) -> SSAValue:
    """A torch int operand (constant or lowered i64) as an `index`."""
    known = arg_value(value)
    if isinstance(known, int):
        return index_const(rewriter, known)
    return build_scalars(rewriter, lambda b: b.index_cast(value, IndexType()))


def empty_with_sizes(
    rewriter: PatternRewriter, result_type: TensorType, sizes: Sequence[SSAValue | None]
) -> SSAValue:
    """`tensor.empty` of `result_type`; `sizes[d]` gives each dynamic dim (static may be None)."""
    dynamic = []
    for dim, size in enumerate(static_shape(result_type)):
        if size == DYN:
            value = sizes[dim]
            assert value is not None, f"no size for dynamic result dim {dim}"
            dynamic.append(value)
    empty = tensor.EmptyOp(dynamic, result_type)
    rewriter.insert(empty)
    return empty.tensor


def copy_with_map(
    rewriter: PatternRewriter,
    source: SSAValue,
    source_map: AffineMap,
    result_type: TensorType,
    sizes: Sequence[SSAValue | None],
) -> SSAValue:
    """`result[i...] = source[source_map(i...)]`, one parallel generic."""
    if not static_shape(source.type):
        return broadcast_scalar(rewriter, source, result_type, sizes)
    rank = result_type.get_num_dims()
    init = empty_with_sizes(rewriter, result_type, sizes)
    generic = build_generic(
        [source], [init], [source_map, AffineMap.identity(rank)], [PARALLEL] * rank,
        lambda b, args: [args[0]],
    )  # fmt: skip
    rewriter.insert(generic)
    return generic.results[0]


def broadcast_scalar(
    rewriter: PatternRewriter,
    source: SSAValue,
    result_type: TensorType,
    sizes: Sequence[SSAValue | None],
) -> SSAValue:
    """Every element of the result is the one element of the 0-d `source`, read once before the
    loops (numba cannot index a 0-d array inside a `prange` loop)."""
    assert isinstance(source.type, TensorType)
    extract = tensor.ExtractOp(source, [], source.type.element_type)
    rewriter.insert(extract)
    rank = result_type.get_num_dims()
    init = empty_with_sizes(rewriter, result_type, sizes)
    generic = build_generic(
        [], [init], [AffineMap.identity(rank)], [PARALLEL] * rank,
        lambda b, args: [extract.result],
    )  # fmt: skip
    rewriter.insert(generic)
    return generic.results[0]


def copy_by_index(
    rewriter: PatternRewriter,
    source: SSAValue,
    source_indices: IndexFn,
    result_type: TensorType,
    sizes: Sequence[SSAValue | None],
) -> SSAValue:
    """`result[i...] = source[source_indices(i...)]`, read with `tensor.extract`."""
    if not static_shape(source.type):
        return broadcast_scalar(rewriter, source, result_type, sizes)
    rank = result_type.get_num_dims()
    init = empty_with_sizes(rewriter, result_type, sizes)
    assert isinstance(source.type, TensorType)
    element_type = source.type.element_type

    def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        loop = [b.emit(IndexOp(d)) for d in range(rank)]
        indices = source_indices(b, loop)
        return [b.emit(tensor.ExtractOp(source, indices, element_type))]

    generic = build_generic([], [init], [AffineMap.identity(rank)], [PARALLEL] * rank, body)
    rewriter.insert(generic)
    return generic.results[0]


# ---- index maths on non-negative `index` values ----


def linearize(b: ScalarBuilder, indices: Sequence[SSAValue], sizes: Sequence[SSAValue]) -> SSAValue:
    """The row-major position of `indices` in a tensor of `sizes`."""
    linear = indices[0] if indices else b.const(0, IndexType())
    for index, size in zip(indices[1:], sizes[1:], strict=True):
        linear = b.add(b.mul(linear, size), index)
    return linear


def delinearize(b: ScalarBuilder, linear: SSAValue, sizes: Sequence[SSAValue]) -> list[SSAValue]:
    """The indices of row-major position `linear` in a tensor of `sizes` (floor division only:
    the values are non-negative, so no sign fix-ups are needed)."""
    indices: list[SSAValue] = []
    for size in reversed(sizes[1:]):
        quotient = b.emit(arith.FloorDivSIOp(linear, size))
        indices.append(b.sub(linear, b.mul(quotient, size)))
        linear = quotient
    if sizes:
        indices.append(linear)
    return indices[::-1]


def floor_mod(b: ScalarBuilder, value: SSAValue, size: SSAValue) -> SSAValue:
    """`value mod size` for non-negative values."""
    return b.sub(value, b.mul(b.emit(arith.FloorDivSIOp(value, size)), size))
