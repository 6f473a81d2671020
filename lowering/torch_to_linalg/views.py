"""Lowers the view-like ops (view, reshape, flatten, squeeze, unsqueeze, permute, transpose, t,
contiguous, expand, expand_as, repeat) to copies (see `copies.py`).

- squeeze / unsqueeze / permute / transpose / t / expand / expand_as: an affine map per op.
- view / reshape / flatten: a row-major re-indexing. Leading dims that provably keep their size
  (equal static sizes, or a size read from the same dim of the source, as in
  `x.view([x.size(0), -1])`) and trailing dims of equal static size map one to one; only the
  dims in between are linearized and split again, costing one multiply-add per result dim and
  one floor division per source dim of that middle group, per element.
- repeat: `source[i mod size]` on each dim (one floor division per dim and element).
- contiguous: the source itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, cf, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, TensorType
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.op_base import arg_value
from dialects.torch.ops.views import (
    AtenCloneOp,
    AtenContiguousOp,
    AtenExpandAsOp,
    AtenExpandOp,
    AtenFlattenUsingIntsOp,
    AtenPermuteOp,
    AtenRepeatOp,
    AtenReshapeOp,
    AtenSqueezeDimOp,
    AtenSqueezeOp,
    AtenTOp,
    AtenTransposeIntOp,
    AtenUnsqueezeOp,
    AtenViewOp,
)
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.ir_marks import RAISE_SEPARATOR
from lowering.torch_to_linalg.copies import (
    copy_by_index,
    copy_with_map,
    delinearize,
    dim_size,
    floor_mod,
    index_const,
    int_as_index,
    linearize,
    list_elements,
)
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import static_shape, tensor_type_of

# ---- re-indexing in row-major order ----


def reshape(
    rewriter: PatternRewriter,
    source: SSAValue,
    result_type: TensorType,
    sizes: Sequence[SSAValue],
    prefix: int,
) -> SSAValue:
    """Copy `source` into `result_type` (same elements, row-major order); the first `prefix`
    dims of both are known to be equal, and so are trailing dims of equal static size."""
    src_shape, out_shape = static_shape(source.type), static_shape(result_type)
    suffix = 0
    while (
        suffix < min(len(src_shape), len(out_shape)) - prefix
        and src_shape[-1 - suffix] == out_shape[-1 - suffix] != DYN
    ):
        suffix += 1
    src_sizes = [dim_size(rewriter, source, d) for d in range(len(src_shape))]
    out_end, src_end = len(out_shape) - suffix, len(src_shape) - suffix

    def source_indices(b: ScalarBuilder, loop: list[SSAValue]) -> list[SSAValue]:
        linear = linearize(b, loop[prefix:out_end], sizes[prefix:out_end])
        middle = delinearize(b, linear, src_sizes[prefix:src_end])
        return [*loop[:prefix], *middle, *loop[out_end:]]

    return copy_by_index(rewriter, source, source_indices, result_type, sizes)


def view_sizes(
    rewriter: PatternRewriter, source: SSAValue, result_type: TensorType, elements: list[SSAValue]
) -> list[SSAValue]:
    """The result sizes of a view as `index` values; a -1 is the element count divided by the
    other sizes."""
    sizes: list[SSAValue | None] = [
        index_const(rewriter, static) if static != DYN
        else None if arg_value(element) == -1
        else int_as_index(rewriter, element)
        for static, element in zip(static_shape(result_type), elements, strict=True)
    ]  # fmt: skip
    known = [s for s in sizes if s is not None]
    if len(known) == len(sizes):
        return known
    total = _product(rewriter, [dim_size(rewriter, source, d) for d in range(_rank(source))])
    others = _product(rewriter, known)
    inferred = build_scalars(rewriter, lambda b: b.emit(arith.FloorDivSIOp(total, others)))
    return [inferred if s is None else s for s in sizes]


def _product(rewriter: PatternRewriter, values: list[SSAValue]) -> SSAValue:
    def body(b: ScalarBuilder) -> SSAValue:
        out = b.const(1, IndexType())
        for v in values:
            out = b.mul(out, v)
        return out

    return build_scalars(rewriter, body)


def _rank(value: SSAValue) -> int:
    return len(static_shape(value.type))


def proven_prefix(source: SSAValue, result_type: TensorType, elements: list[SSAValue]) -> int:
    """How many leading result dims surely equal the source's: equal static sizes, or a size
    that is `tensor.dim` of the same source dim (`x.size(0)` lowered)."""
    src_shape, out_shape = static_shape(source.type), static_shape(result_type)
    count = 0
    for dim in range(min(len(src_shape), len(out_shape))):
        same_static = src_shape[dim] == out_shape[dim] != DYN
        if not (same_static or _is_dim_of(elements[dim], source, dim)):
            break
        count += 1
    return count


def _is_dim_of(value: SSAValue, source: SSAValue, dim: int) -> bool:
    cast = value.owner
    if not isinstance(cast, arith.IndexCastOp):
        return False
    size = cast.input.owner
    if not isinstance(size, tensor.DimOp) or size.source != source:
        return False
    index = size.index.owner
    return (
        isinstance(index, arith.ConstantOp)
        and isinstance(index.value, IntegerAttr)
        and index.value.value.data == dim
    )


class ConvertViewOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenViewOp | AtenReshapeOp, rewriter: PatternRewriter) -> None:
        source, result_type = op.operands[0], tensor_type_of(op)
        elements = list_elements(op.operands[1])
        sizes = view_sizes(rewriter, source, result_type, elements)
        prefix = proven_prefix(source, result_type, elements)
        rewriter.replace(op, [], [reshape(rewriter, source, result_type, sizes, prefix)])


class ConvertFlattenOp(RewritePattern):
    """Dims before `start_dim` (and after `end_dim`) map one to one."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenFlattenUsingIntsOp, rewriter: PatternRewriter) -> None:
        source, result_type = op.self_, tensor_type_of(op)
        rank = _rank(source)
        start = arg_value(op.start_dim) % max(rank, 1)
        end = arg_value(op.end_dim) % max(rank, 1)
        src_sizes = [dim_size(rewriter, source, d) for d in range(rank)]
        if rank == 0:
            sizes = [build_scalars(rewriter, lambda b: b.const(1, IndexType()))]
        else:
            merged = _product(rewriter, src_sizes[start : end + 1])
            sizes = [*src_sizes[:start], merged, *src_sizes[end + 1 :]]
        rewriter.replace(op, [], [reshape(rewriter, source, result_type, sizes, min(start, rank))])


# ---- affine copies ----


def _result_sizes(
    rewriter: PatternRewriter,
    result_type: TensorType,
    sources: Sequence[tuple[SSAValue, int] | None],
) -> list[SSAValue | None]:
    """Sizes of the dynamic result dims, each read from a (tensor, dim)."""
    return [
        dim_size(rewriter, *source) if size == DYN and source is not None else None
        for size, source in zip(static_shape(result_type), sources)
    ]


def _map(num_dims: int, exprs: Sequence[AffineExpr]) -> AffineMap:
    return AffineMap(num_dims, 0, tuple(exprs))


class ConvertSqueezeOp(RewritePattern):
    """Squeezed (static size-1) dims read index 0. A squeezed dim of run-time size (`?`, a
    size computed inside the program: `x[i:i+1]` with a run-time `i`) is kept; a `cf.assert`
    raises RuntimeError if it is 1 at run time, where PyTorch would drop it (the shape
    guard compiles exact shapes for sizes that come from the arguments)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: AtenSqueezeOp | AtenSqueezeDimOp, rewriter: PatternRewriter
    ) -> None:
        source, result_type = op.self_, tensor_type_of(op)
        src_shape = static_shape(source.type)
        dims = range(len(src_shape))
        if isinstance(op, AtenSqueezeDimOp) and src_shape:
            dims = [arg_value(op.dim) % len(src_shape)]
        for d in dims:
            if src_shape[d] == DYN:
                _assert_not_one(rewriter, source, d)
        exprs: list[AffineExpr] = []
        sources: list[tuple[SSAValue, int] | None] = []
        for d, size in enumerate(src_shape):
            if d in dims and size == 1:
                exprs.append(AffineExpr.constant(0))
            else:
                exprs.append(AffineExpr.dimension(len(sources)))
                sources.append((source, d))
        rank = result_type.get_num_dims()
        sizes = _result_sizes(rewriter, result_type, sources)
        rewriter.replace(
            op, [], [copy_with_map(rewriter, source, _map(rank, exprs), result_type, sizes)]
        )


def _assert_not_one(rewriter: PatternRewriter, source: SSAValue, dim: int) -> None:
    def differs(b: ScalarBuilder) -> SSAValue:
        size = b.emit(tensor.DimOp(source, b.const(dim, IndexType())))
        return b.cmp("ne", size, b.const(1, IndexType()))

    ok = build_scalars(rewriter, differs)
    message = (
        f"RuntimeError{RAISE_SEPARATOR}squeeze(): dim {dim} has size 1 at run time, but its "
        "size is computed inside the compiled program, which keeps the dim: squeeze a dim of "
        "static size (x[i] instead of x[i:i+1].squeeze(0))"
    )
    rewriter.insert(cf.AssertOp(ok, message))


class ConvertUnsqueezeOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenUnsqueezeOp, rewriter: PatternRewriter) -> None:
        source, result_type = op.self_, tensor_type_of(op)
        rank = result_type.get_num_dims()
        new = arg_value(op.dim) % rank
        kept = [d for d in range(rank) if d != new]
        exprs = [AffineExpr.dimension(d) for d in kept]
        sources: list[tuple[SSAValue, int] | None] = [None] * rank
        for src_dim, d in enumerate(kept):
            sources[d] = (source, src_dim)
        sizes = _result_sizes(rewriter, result_type, sources)
        rewriter.replace(
            op, [], [copy_with_map(rewriter, source, _map(rank, exprs), result_type, sizes)]
        )


def permute(
    rewriter: PatternRewriter, source: SSAValue, order: Sequence[int], result_type: TensorType
) -> SSAValue:
    """Result dim i is source dim order[i]."""
    rank = len(order)
    exprs = [AffineExpr.dimension(order.index(k)) for k in range(rank)]
    sizes = _result_sizes(rewriter, result_type, [(source, order[i]) for i in range(rank)])
    return copy_with_map(rewriter, source, _map(rank, exprs), result_type, sizes)


class ConvertPermuteOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenPermuteOp, rewriter: PatternRewriter) -> None:
        rank = _rank(op.self_)
        order = [d % rank for d in arg_value(op.dims)]
        rewriter.replace(op, [], [permute(rewriter, op.self_, order, tensor_type_of(op))])


class ConvertTransposeOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: AtenTransposeIntOp | AtenTOp, rewriter: PatternRewriter
    ) -> None:
        rank = _rank(op.self_)
        order = list(range(rank))
        if isinstance(op, AtenTransposeIntOp) and rank:
            a, b = arg_value(op.dim0) % rank, arg_value(op.dim1) % rank
            order[a], order[b] = order[b], order[a]
        elif isinstance(op, AtenTOp):
            order.reverse()
        rewriter.replace(op, [], [permute(rewriter, op.self_, order, tensor_type_of(op))])


class ConvertContiguousOp(RewritePattern):
    """`contiguous` and `clone` give their operand's value."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: AtenContiguousOp | AtenCloneOp, rewriter: PatternRewriter
    ) -> None:
        rewriter.replace(op, [], [op.self_])


def expand(
    rewriter: PatternRewriter,
    source: SSAValue,
    result_type: TensorType,
    sizes: Sequence[SSAValue | None],
) -> SSAValue:
    """Source dims align to the right; its static size-1 dims read index 0 when they grow."""
    src_shape, out_shape = static_shape(source.type), static_shape(result_type)
    offset = len(out_shape) - len(src_shape)
    exprs = [
        AffineExpr.constant(0) if size == 1 and out_shape[offset + d] != 1
        else AffineExpr.dimension(offset + d)
        for d, size in enumerate(src_shape)
    ]  # fmt: skip
    return copy_with_map(rewriter, source, _map(len(out_shape), exprs), result_type, sizes)


class ConvertExpandOp(RewritePattern):
    """A dynamic result dim is the source's (for -1 or a `?` source dim) or the given size."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenExpandOp, rewriter: PatternRewriter) -> None:
        source, result_type = op.self_, tensor_type_of(op)
        src_shape, out_shape = static_shape(source.type), static_shape(result_type)
        offset = len(out_shape) - len(src_shape)
        sizes: list[SSAValue | None] = []
        for d, element in enumerate(list_elements(op.size)):
            if out_shape[d] != DYN:
                sizes.append(None)
            elif d >= offset and (arg_value(element) == -1 or src_shape[d - offset] != 1):
                sizes.append(dim_size(rewriter, source, d - offset))
            else:
                sizes.append(int_as_index(rewriter, element))
        rewriter.replace(op, [], [expand(rewriter, source, result_type, sizes)])


class ConvertExpandAsOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenExpandAsOp, rewriter: PatternRewriter) -> None:
        result_type = tensor_type_of(op)
        sizes = _result_sizes(
            rewriter, result_type, [(op.other, d) for d in range(_rank(op.other))]
        )
        rewriter.replace(op, [], [expand(rewriter, op.self_, result_type, sizes)])


class ConvertRepeatOp(RewritePattern):
    """`result[..., i, ...] = source[..., i mod size, ...]`; new leading dims are not read."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenRepeatOp, rewriter: PatternRewriter) -> None:
        source, result_type = op.self_, tensor_type_of(op)
        src_rank = _rank(source)
        repeats = list_elements(op.repeats)
        offset = len(repeats) - src_rank
        src_sizes = [dim_size(rewriter, source, d) for d in range(src_rank)]
        sizes: list[SSAValue | None] = []
        for d, count in enumerate(repeats):
            if static_shape(result_type)[d] != DYN:
                sizes.append(None)
                continue
            times = int_as_index(rewriter, count)
            if d < offset:
                sizes.append(times)
            else:
                sizes.append(
                    build_scalars(rewriter, lambda b, t=times, d=d: b.mul(src_sizes[d - offset], t))
                )

        def source_indices(b: ScalarBuilder, loop: list[SSAValue]) -> list[SSAValue]:
            return [floor_mod(b, loop[offset + d], src_sizes[d]) for d in range(src_rank)]

        rewriter.replace(
            op, [], [copy_by_index(rewriter, source, source_indices, result_type, sizes)]
        )


PATTERNS: tuple[RewritePattern, ...] = (
    ConvertViewOp(),
    ConvertFlattenOp(),
    ConvertSqueezeOp(),
    ConvertUnsqueezeOp(),
    ConvertPermuteOp(),
    ConvertTransposeOp(),
    ConvertContiguousOp(),
    ConvertExpandOp(),
    ConvertExpandAsOp(),
    ConvertRepeatOp(),
)
