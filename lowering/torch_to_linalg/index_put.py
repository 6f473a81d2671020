"""Lowers `aten.index_put` (`y[idx] = v`) and `aten.put` to offsets computed in linalg and a
call of the index_put kernel, and `aten.masked_scatter` (also `y[mask] = v` with one value per
masked element) to a call of the masked_scatter kernel with the mask broadcast to self's
shape; `y[mask] = v` with the same values at every masked position is one `select` generic.

For `self` of shape S with index tensors at dims D (broadcast to shape B) and the other dims
K kept whole, the indexed shape is `S[K[:p]] + B + S[K[p:]]` (p: D's first dim when D is
adjacent, else 0; `dialects/torch/ops/index_put.py`). Three small parallel generics give the
kernel (`lowering/run/kernels/index_put.py`) 1-D tensors in row-major order (so it is compiled
per dtype and rank of self only):
- `offsets` (numel(B), i64): `sum_d wrap(index_d[b]) * stride(d)` over d in D, or -1 when an
  index is out of [-S[d], S[d]) (the kernel raises IndexError);
- `kept` (numel(S[K]), i64): `sum_k i_k * stride(k)` over the kept dims;
- `values` broadcast to the indexed shape (one element, read before the loops, if it has one).
```mlir
%offsets = linalg.generic ... outs(%e : tensor<3xi64>)
%kept = linalg.generic ... outs(%e2 : tensor<4xi64>)
%values = linalg.generic ... outs(%e3 : tensor<12xf32>)
%r = func.call @tsjit.index_put(%x, %values, %offsets, %kept, %outer, %count, %inner,
    %single, %accumulate, %out)
```
The kernel copies `self` into `%out` (a fresh `tensor.empty`) and writes the values serially,
so the cost is linear in `self` and the values; repeated indices add under `accumulate`.
`put` is the same call with the flat positions as offsets and no kept dims.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType, i1, i64
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.kernel_refs import INDEX_PUT, MASKED_SCATTER
from dialects.torch.meta import broadcast_shapes
from dialects.torch.op_base import arg_value
from dialects.torch.ops.index_put import (
    AtenIndexPutOp,
    AtenMaskedScatterOp,
    AtenPutOp,
    adjacent,
    per_masked_element,
)
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN, NoneType
from lowering.kernel_calls import declare_kernel
from lowering.torch_to_linalg.copies import (
    delinearize,
    dim_size,
    empty_with_sizes,
    index_const,
    list_elements,
)
from lowering.torch_to_linalg.indexing import index_reader
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import (
    PARALLEL,
    broadcast_map,
    build_generic,
    static_shape,
    tensor_type_of,
)


def _product(rewriter: PatternRewriter, sizes: Sequence[SSAValue]) -> SSAValue:
    """The product of `index` sizes as an `index` (1 for none)."""

    def build(b: ScalarBuilder) -> SSAValue:
        total = b.const(1, IndexType())
        for size in sizes:
            total = b.mul(total, size)
        return total

    return build_scalars(rewriter, build)


def _constant(size: SSAValue) -> int | None:
    """The value of an `index` size when it is an `arith.constant`."""
    owner = size.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _tensor_type(element: Attribute, shape: Sequence[int]) -> TensorType:
    return TensorType(element, [DYNAMIC_INDEX if n == DYN else n for n in shape])


def _as_i64(rewriter: PatternRewriter, value: SSAValue) -> SSAValue:
    return build_scalars(rewriter, lambda b: b.index_cast(value, i64))


def _generate(
    rewriter: PatternRewriter,
    sizes: Sequence[SSAValue],
    body: Callable[[ScalarBuilder, list[SSAValue]], SSAValue],
    element: Attribute = i64,
) -> SSAValue:
    """A 1-D tensor of `prod(sizes)` elements, in row-major order of a tensor of `sizes`: the
    element at indices `loop` is `body(b, loop)` (1-D, so that the kernel is compiled once
    per dtype, not per rank)."""
    count = _product(rewriter, sizes)
    static = [_constant(s) for s in sizes]
    known = all(n is not None for n in static)
    total = 1
    for n in static:
        total *= n or 1
    init = empty_with_sizes(rewriter, _tensor_type(element, [total if known else DYN]), [count])

    def at(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        loop = delinearize(b, b.emit(IndexOp(0)), sizes) if sizes else []
        return [body(b, loop)]

    generic = build_generic([], [init], [AffineMap.identity(1)], [PARALLEL], at)
    rewriter.insert(generic)
    return generic.results[0]


class ConvertIndexPutOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenIndexPutOp, rewriter: PatternRewriter) -> None:
        source, values = op.self_, op.values
        entries = list_elements(op.indices)
        dims = [d for d, e in enumerate(entries) if not isinstance(e.type, NoneType)]
        indices = [entries[d] for d in dims]
        if _is_mask(indices[0]):
            rewriter.replace(op, [], [_masked_write(rewriter, op, dims[0], indices[0])])
            return
        shape = static_shape(source.type)
        sizes = [dim_size(rewriter, source, d) for d in range(len(shape))]
        strides = [_product(rewriter, sizes[d + 1 :]) for d in range(len(shape))]
        broadcast = broadcast_shapes([static_shape(i.type) for i in indices])
        assert broadcast is not None
        broadcast_sizes = _broadcast_sizes(rewriter, indices, broadcast)
        offsets = _offsets(rewriter, indices, dims, broadcast, broadcast_sizes, sizes, strides)

        kept = [d for d in range(len(shape)) if d not in dims]
        at = dims[0] if adjacent(dims) else 0
        kept_offsets = _generate(
            rewriter,
            [sizes[d] for d in kept],
            lambda b, loop: b.index_cast(_dot(b, loop, [strides[d] for d in kept]), i64),
        )
        target_shape = [*(shape[d] for d in kept[:at]), *broadcast, *(shape[d] for d in kept[at:])]
        target_sizes = [
            *(sizes[d] for d in kept[:at]),
            *broadcast_sizes,
            *(sizes[d] for d in kept[at:]),
        ]
        single = all(n == 1 for n in static_shape(values.type))
        values = _flat_values(rewriter, values, single, target_shape, target_sizes)

        scalars = [
            _as_i64(rewriter, _product(rewriter, [sizes[d] for d in kept[:at]])),
            _as_i64(rewriter, _product(rewriter, broadcast_sizes)),
            _as_i64(rewriter, _product(rewriter, [sizes[d] for d in kept[at:]])),
            build_scalars(rewriter, lambda b: b.const(int(single), i64)),
            _accumulate_flag(rewriter, op.accumulate),
        ]
        result = _index_put_call(rewriter, op, [source, values, offsets, kept_offsets, *scalars])
        rewriter.replace(op, [], [result])


def _index_put_call(
    rewriter: PatternRewriter, op: AtenIndexPutOp | AtenPutOp, operands: list[SSAValue]
) -> SSAValue:
    """A call of `tsjit.index_put` with `operands` and a new destination of self's shape."""
    source = operands[0]
    result_type = tensor_type_of(op)
    sizes = [dim_size(rewriter, source, d) for d in range(len(static_shape(source.type)))]
    out = empty_with_sizes(rewriter, result_type, sizes)
    operands = [*operands, out]
    symbol = declare_kernel(op, INDEX_PUT.name, [v.type for v in operands], [result_type])
    call = func.CallOp(symbol, operands, [result_type])
    rewriter.insert(call)
    return call.res[0]


class ConvertPutOp(RewritePattern):
    """`x.put(index, source)`: the index's flat positions (wrapped, -1 out of range) and the
    source flattened, for the index_put kernel with no kept dims (outer = inner = 1)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenPutOp, rewriter: PatternRewriter) -> None:
        source, index, values = op.self_, op.index, op.source
        sizes = [dim_size(rewriter, source, d) for d in range(len(static_shape(source.type)))]
        numel = _product(rewriter, sizes)
        index_sizes = [dim_size(rewriter, index, d) for d in range(len(static_shape(index.type)))]
        read = index_reader(rewriter, index)

        def offset(b: ScalarBuilder, loop: list[SSAValue]) -> SSAValue:
            zero = b.const(0, IndexType())
            position = read(b, loop)
            wrapped = b.select(b.cmp("lt", position, zero), b.add(position, numel), position)
            inside = b.and_(b.cmp("ge", wrapped, zero), b.cmp("lt", wrapped, numel))
            return b.select(inside, b.index_cast(wrapped, i64), b.const(-1, i64))

        offsets = _generate(rewriter, index_sizes, offset)
        kept = _generate(rewriter, [], lambda b, loop: b.const(0, i64))
        value_shape = static_shape(values.type)
        single = all(n == 1 for n in value_shape)
        value_sizes = [dim_size(rewriter, values, d) for d in range(len(value_shape))]
        flat = _flat_values(rewriter, values, single, value_shape, value_sizes)
        scalars = [
            _i64_const(rewriter, 1),
            _as_i64(rewriter, _product(rewriter, index_sizes)),
            _i64_const(rewriter, 1),
            _i64_const(rewriter, int(single)),
            _accumulate_flag(rewriter, op.accumulate),
        ]
        result = _index_put_call(rewriter, op, [source, flat, offsets, kept, *scalars])
        rewriter.replace(op, [], [result])


def _is_mask(index: SSAValue) -> bool:
    assert isinstance(index.type, TensorType)
    return index.type.element_type == i1


def _masked_write(
    rewriter: PatternRewriter, op: AtenIndexPutOp, d: int, mask: SSAValue
) -> SSAValue:
    """`x[mask] = v` (mask at dim d): one generic over x, `mask ? v : x` (`x + v` with
    accumulate), `v` broadcast to x's dims around the mask's (its dim for the masked
    elements has size 1)."""
    source, values = op.self_, op.values
    shape = static_shape(source.type)
    rank, mask_rank = len(shape), len(static_shape(mask.type))
    if per_masked_element(shape, d, mask_rank, static_shape(values.type)):
        mask_map = AffineMap(rank, 0, tuple(AffineExpr.dimension(d + k) for k in range(mask_rank)))
        full_mask = _expanded(rewriter, mask, mask_map, source)
        flags = [_i64_const(rewriter, 1), _accumulate_flag(rewriter, op.accumulate)]
        return _masked_scatter_call(rewriter, op, source, full_mask, values, flags)
    accumulate = arg_value(op.accumulate)
    value_shape = static_shape(values.type)
    target = [*shape[:d], 1, *shape[d + mask_rank :]]
    loop_dims = [*range(d), -1, *range(d + mask_rank, rank)]  # -1: the masked elements' dim
    value_exprs = []
    for j, size in enumerate(value_shape):
        t = j + len(target) - len(value_shape)
        dim = loop_dims[t]
        broadcast = dim < 0 or (size == 1 and shape[dim] != 1)
        value_exprs.append(AffineExpr.constant(0) if broadcast else AffineExpr.dimension(dim))
    single = None
    if not value_shape:  # a 0-d value is read once, before the loops
        single = build_scalars(
            rewriter, lambda b: b.emit(tensor.ExtractOp(values, [], _element_of(values)))
        )
    inputs = [source, mask] if single is not None else [source, mask, values]
    maps = [
        AffineMap.identity(rank),
        AffineMap(rank, 0, tuple(AffineExpr.dimension(d + k) for k in range(mask_rank))),
        *([] if single is not None else [AffineMap(rank, 0, tuple(value_exprs))]),
        AffineMap.identity(rank),
    ]
    sizes = [dim_size(rewriter, source, k) for k in range(rank)]
    init = empty_with_sizes(rewriter, tensor_type_of(op), sizes)

    def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        value = single if single is not None else args[2]
        total = b.or_(args[0], value) if args[0].type == i1 else b.add(args[0], value)
        if accumulate is True:
            value = total
        elif accumulate is not False:  # known at run time only
            value = b.select(op.accumulate, total, value)
        return [b.select(args[1], value, args[0])]

    generic = build_generic(inputs, [init], maps, [PARALLEL] * rank, body)
    rewriter.insert(generic)
    return generic.results[0]


def _expanded(
    rewriter: PatternRewriter, mask: SSAValue, mask_map: AffineMap, like: SSAValue
) -> SSAValue:
    """`mask` read through `mask_map` into a new bool tensor of `like`'s shape (`mask` itself
    when it already has that static shape)."""
    shape = static_shape(like.type)
    if static_shape(mask.type) == shape and DYN not in shape:
        return mask
    rank = len(shape)
    sizes = [dim_size(rewriter, like, k) for k in range(rank)]
    init = empty_with_sizes(rewriter, _tensor_type(i1, shape), sizes)
    generic = build_generic(
        [mask], [init], [mask_map, AffineMap.identity(rank)], [PARALLEL] * rank,
        lambda b, args: [args[0]],
    )  # fmt: skip
    rewriter.insert(generic)
    return generic.results[0]


def _masked_scatter_call(
    rewriter: PatternRewriter,
    op: AtenIndexPutOp | AtenMaskedScatterOp,
    source: SSAValue,
    mask: SSAValue,
    values: SSAValue,
    flags: Sequence[SSAValue],
) -> SSAValue:
    """A call of `tsjit.masked_scatter` (flags: exact, accumulate as i64)."""
    result_type = tensor_type_of(op)
    sizes = [dim_size(rewriter, source, k) for k in range(len(static_shape(source.type)))]
    out = empty_with_sizes(rewriter, result_type, sizes)
    operands = [source, mask, values, *flags, out]
    symbol = declare_kernel(op, MASKED_SCATTER.name, [v.type for v in operands], [result_type])
    call = func.CallOp(symbol, operands, [result_type])
    rewriter.insert(call)
    return call.res[0]


def _i64_const(rewriter: PatternRewriter, value: int) -> SSAValue:
    return build_scalars(rewriter, lambda b: b.const(value, i64))


class ConvertMaskedScatterOp(RewritePattern):
    """`x.masked_scatter(mask, source)`: the mask broadcast to x's shape, then the kernel."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenMaskedScatterOp, rewriter: PatternRewriter) -> None:
        source, mask = op.self_, op.mask
        shape = static_shape(source.type)
        full_mask = _expanded(rewriter, mask, broadcast_map(static_shape(mask.type), shape), source)
        flags = [_i64_const(rewriter, 0), _i64_const(rewriter, 0)]
        result = _masked_scatter_call(rewriter, op, source, full_mask, op.source, flags)
        rewriter.replace(op, [], [result])


def _element_of(value: SSAValue) -> Attribute:
    assert isinstance(value.type, TensorType)
    return value.type.element_type


def _accumulate_flag(rewriter: PatternRewriter, accumulate: SSAValue) -> SSAValue:
    known = arg_value(accumulate)
    if isinstance(known, bool):
        return build_scalars(rewriter, lambda b: b.const(int(known), i64))
    return build_scalars(rewriter, lambda b: b.cast(accumulate, i64))


def _dot(b: ScalarBuilder, loop: Sequence[SSAValue], strides: Sequence[SSAValue]) -> SSAValue:
    total = b.const(0, IndexType())
    for index, stride in zip(loop, strides, strict=True):
        total = b.add(total, b.mul(index, stride))
    return total


def _broadcast_sizes(
    rewriter: PatternRewriter, indices: Sequence[SSAValue], broadcast: Sequence[int]
) -> list[SSAValue]:
    """Each dim of the indices' broadcast shape as an `index`: static, else the size of an
    index dim aligned with it that is not a broadcast 1."""
    sizes: list[SSAValue] = []
    for axis, size in enumerate(broadcast):
        if size != DYN:
            sizes.append(index_const(rewriter, size))
            continue
        for index in indices:
            own = static_shape(index.type)
            at = axis - (len(broadcast) - len(own))
            if at >= 0 and own[at] != 1:
                sizes.append(dim_size(rewriter, index, at))
                break
    return sizes


def _offsets(
    rewriter: PatternRewriter,
    indices: Sequence[SSAValue],
    dims: Sequence[int],
    broadcast: Sequence[int],
    broadcast_sizes: Sequence[SSAValue],
    sizes: Sequence[SSAValue],
    strides: Sequence[SSAValue],
) -> SSAValue:
    """The offsets tensor (shape B): each position's flat offset, -1 if out of range."""
    readers = [index_reader(rewriter, index) for index in indices]
    maps = [broadcast_map(static_shape(i.type), broadcast) for i in indices]

    def offset(b: ScalarBuilder, loop: list[SSAValue]) -> SSAValue:
        zero = b.const(0, IndexType())
        total, valid = zero, b.const(True, i1)
        for read, index_map, d in zip(readers, maps, dims, strict=True):
            at = [
                loop[e.position] if isinstance(e, AffineDimExpr) else zero
                for e in index_map.results
            ]
            position = read(b, at)
            wrapped = b.select(b.cmp("lt", position, zero), b.add(position, sizes[d]), position)
            inside = b.and_(b.cmp("ge", wrapped, zero), b.cmp("lt", wrapped, sizes[d]))
            valid = b.and_(valid, inside)
            total = b.add(total, b.mul(wrapped, strides[d]))
        return b.select(valid, b.index_cast(total, i64), b.const(-1, i64))

    return _generate(rewriter, broadcast_sizes, offset)


def _flat_values(
    rewriter: PatternRewriter,
    values: SSAValue,
    single: bool,
    shape: Sequence[int],
    sizes: Sequence[SSAValue],
) -> SSAValue:
    """`values` broadcast to the indexed `shape` as a 1-D tensor in row-major order (its one
    element, read before the loops, when it has one)."""
    element = _element_of(values)
    if single:
        rank = len(static_shape(values.type))
        value = build_scalars(
            rewriter,
            lambda b: b.emit(tensor.ExtractOp(values, [b.const(0, IndexType())] * rank, element)),
        )
        return _generate(rewriter, [], lambda b, loop: value, element)
    value_map = broadcast_map(static_shape(values.type), shape)

    def read(b: ScalarBuilder, loop: list[SSAValue]) -> SSAValue:
        zero = b.const(0, IndexType())
        at = [loop[e.position] if isinstance(e, AffineDimExpr) else zero for e in value_map.results]
        return b.emit(tensor.ExtractOp(values, at, element))

    return _generate(rewriter, sizes, read, element)


PATTERNS: tuple[RewritePattern, ...] = (
    ConvertIndexPutOp(),
    ConvertMaskedScatterOp(),
    ConvertPutOp(),
)
