"""Lowers reductions to `linalg.fill` + a reducing `linalg.generic` (+ one elementwise generic
for a mean), and provides the fold / pointwise / count builders that normalization reuses."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType, i64
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.families import ReductionOp, VarianceOp
from dialects.torch.meta import TensorMeta
from dialects.torch.ops.reduction import AtenLogsumexpOp
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.torch_to_linalg.utils import (
    PARALLEL,
    REDUCTION,
    build_generic,
    dim_of,
    empty_like_result,
    filled,
    static_shape,
    tensor_type_of,
)

Body = Callable[[ScalarBuilder, Sequence[SSAValue]], Sequence[SSAValue]]

# ---- builders shared with normalization ----


def reduction_output_map(rank: int, reduced: Sequence[int], keepdim: bool) -> AffineMap:
    """Input dims -> output index: reduced dims vanish, or read index 0 with keepdim."""
    exprs = [
        AffineExpr.constant(0) if d in reduced else AffineExpr.dimension(d)
        for d in range(rank)
        if keepdim or d not in reduced
    ]
    return AffineMap(rank, 0, tuple(exprs))


def reduced_type(
    source: SSAValue, reduced: Sequence[int], keepdim: bool, element: Attribute
) -> TensorType:
    """The type of `source` reduced over `reduced` (size 1 there with keepdim)."""
    shape = static_shape(source.type)
    dims = [1 if d in reduced else s for d, s in enumerate(shape) if keepdim or d not in reduced]
    return TensorType(element, [DYNAMIC_INDEX if s == DYN else s for s in dims])


def fold(
    rewriter: PatternRewriter,
    inputs: Sequence[SSAValue],
    input_maps: Sequence[AffineMap],
    reduced: Sequence[int],
    keepdim: bool,
    inits: Sequence[tuple[Attribute, float | int | bool]],
    body: Body,
) -> list[SSAValue]:
    """One generic over the dims of `inputs[0]` folding `reduced` into outputs that start at
    the given (element type, identity); `body(b, [inputs..., accumulators...])` returns the
    new accumulators. The generic is inserted before the matched op."""
    source = inputs[0]
    rank = len(static_shape(source.type))
    sources = [(source, d) for d in range(rank) if keepdim or d not in reduced]
    init_tensors = [
        filled(
            rewriter,
            empty_like_result(rewriter, reduced_type(source, reduced, keepdim, element), sources),
            identity,
        )
        for element, identity in inits
    ]
    out_map = reduction_output_map(rank, reduced, keepdim)
    maps = [*input_maps, *[out_map] * len(inits)]
    iterators = [REDUCTION if d in reduced else PARALLEL for d in range(rank)]
    generic = build_generic(inputs, init_tensors, maps, iterators, body)
    rewriter.insert(generic)
    return list(generic.results)


def pointwise(
    rewriter: PatternRewriter,
    inputs: Sequence[SSAValue],
    input_maps: Sequence[AffineMap],
    result_type: TensorType,
    size_source: SSAValue,
    body: Body,
) -> SSAValue:
    """One all-parallel generic producing `result_type`, whose dynamic dims have the sizes of
    the same dims of `size_source`; inserted before the matched op."""
    rank = len(static_shape(result_type))
    init = empty_like_result(rewriter, result_type, [(size_source, d) for d in range(rank)])
    maps = [*input_maps, AffineMap.identity(rank)]
    generic = build_generic(inputs, [init], maps, [PARALLEL] * rank, body)
    rewriter.insert(generic)
    return generic.results[0]


def insert_scalars(
    rewriter: PatternRewriter, build: Callable[[ScalarBuilder], SSAValue]
) -> SSAValue:
    """Run `build` on a ScalarBuilder whose ops land before the matched op."""
    block = Block()
    value = build(ScalarBuilder(block))
    ops = list(block.ops)
    for op in ops:
        op.detach()
    rewriter.insert(ops)
    return value


def reduced_count(
    rewriter: PatternRewriter, source: SSAValue, dims: Sequence[int], element: Attribute
) -> SSAValue:
    """The number of elements in `dims` of `source`, as a scalar of type `element`."""
    shape = static_shape(source.type)
    static = 1
    for d in dims:
        static *= 1 if shape[d] == DYN else shape[d]
    dynamic = [dim_of(rewriter, source, d) for d in dims if shape[d] == DYN]

    def build(b: ScalarBuilder) -> SSAValue:
        if not dynamic:
            return b.const(static, element)
        count = b.const(static, IndexType())
        for size in dynamic:
            count = b.mul(count, size)
        return b.cast(b.index_cast(count, i64), element)

    return insert_scalars(rewriter, build)


def linear_index(
    rewriter: PatternRewriter, source: SSAValue, dims: Sequence[int]
) -> Callable[[ScalarBuilder], SSAValue]:
    """A body builder for the row-major position (i64) among `dims` of the current element;
    the sizes it needs are read before the generic."""
    shape = static_shape(source.type)
    sizes = {d: dim_of(rewriter, source, d) for d in dims[1:] if shape[d] == DYN}

    def build(b: ScalarBuilder) -> SSAValue:
        if not dims:  # a 0-d input: its one element is at position 0
            return b.const(0, i64)
        index = b.emit(IndexOp(dims[0]))
        for d in dims[1:]:
            size = sizes[d] if d in sizes else b.const(shape[d], IndexType())
            index = b.add(b.mul(index, size), b.emit(IndexOp(d)))
        return b.index_cast(index, i64)

    return build


# ---- the pattern ----


class ConvertReductionOp(RewritePattern):
    """`init = fill(identity)`; `generic(x) outs(init)` folding `combiner` over reduced dims.
    Ops with an index (max.dim, argmax, ...) then fold, in a second generic, the row-major
    position of the first element equal to the extreme among the reduced dims (NaN counts as
    extreme); a mean divides the sum by the number of reduced elements in one elementwise
    generic."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReductionOp, rewriter: PatternRewriter) -> None:
        source = op.operands[0]
        rank = len(static_shape(source.type))
        reduced, keepdim = op.reduction_args()
        named = op.named_args(tuple(op.arg_values()))
        meta: TensorMeta = named["self"]
        values_dtype = op.result_element(named, meta.dtype)
        assert values_dtype is not None
        element = values_dtype.signless_attr
        inits: list[tuple[Attribute, float | int | bool]] = [(element, op.identity(values_dtype))]

        def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            return [op.combiner(b, b.cast(args[0], element), args[1])]

        identity = AffineMap.identity(rank)
        folded = fold(rewriter, [source], [identity], reduced, keepdim, inits, body)
        if "indices" in op.result_names():
            folded.append(_first_index_of(rewriter, source, folded[0], reduced, keepdim))
        if op.DIVIDE_BY_COUNT:
            folded[0] = _divide(
                rewriter, folded[0], reduced_count(rewriter, source, reduced, element)
            )
        by_name = dict(zip(("values", "indices"), folded))
        results = [by_name[name] for name in op.result_names()]
        for result, expected in zip(results, op.results):
            assert result.type == tensor_type_of(op, expected.index)
        rewriter.replace(op, [], results)


FAR_INDEX = 2**62
"""Larger than any position: the index fold's start, and its value where x is not the extreme."""


def _first_index_of(
    rewriter: PatternRewriter,
    source: SSAValue,
    extremes: SSAValue,
    reduced: Sequence[int],
    keepdim: bool,
) -> SSAValue:
    """The row-major position among the reduced dims of the first element equal to its
    extreme (the first NaN when the extreme is NaN), as in torch: a min of positions, where
    folding the value and its index in one chain kept the loop serial (argmax of
    [2048, 1024] at one thread 4.3 ms vs torch's 2.4)."""
    rank = len(static_shape(source.type))
    element = extremes.type.element_type  # type: ignore[attr-defined]
    index_of = linear_index(rewriter, source, reduced)
    maps = [AffineMap.identity(rank), reduction_output_map(rank, reduced, keepdim)]

    def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        x, top = b.cast(args[0], element), args[1]
        if b.is_float(x):
            hit = b.or_(b.cmp("eq", x, top), b.and_(b.is_nan(x), b.is_nan(top)))
        else:
            hit = b.cmp("eq", x, top)
        position = b.select(hit, index_of(b), b.const(FAR_INDEX, i64))
        return [b.minimum(args[2], position)]

    (first,) = fold(rewriter, [source, extremes], maps, reduced, keepdim, [(i64, FAR_INDEX)], body)
    return first


def _divide(rewriter: PatternRewriter, total: SSAValue, count: SSAValue) -> SSAValue:
    result_type = total.type
    assert isinstance(result_type, TensorType)
    rank = len(static_shape(result_type))

    def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        return [b.div(args[0], count)]

    return pointwise(rewriter, [total], [AffineMap.identity(rank)], result_type, total, body)


class ConvertVarianceOp(RewritePattern):
    """var / std in four generics: sums (keepdim layout), means, summed squared deviations
    from the means, then division by max(N - correction, 0) (and sqrt for std)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: VarianceOp, rewriter: PatternRewriter) -> None:
        source = op.operands[0]
        rank = len(static_shape(source.type))
        reduced, keepdim = op.reduction_args()
        element = tensor_type_of(op).element_type
        correction = op.correction_of(op.named_args(tuple(op.arg_values())))
        identity = AffineMap.identity(rank)
        count = reduced_count(rewriter, source, reduced, element)
        means = mean_over(rewriter, source, reduced, count)
        mean_map = reduction_output_map(rank, reduced, True)

        def squares(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            deviation = b.sub(args[0], args[1])
            return [b.add(args[2], b.mul(deviation, deviation))]

        (total,) = fold(
            rewriter, [source, means], [identity, mean_map], reduced, keepdim, [(element, 0)],
            squares,
        )  # fmt: skip
        divisor = insert_scalars(
            rewriter,
            lambda b: b.maximum(b.sub(count, b.const(correction, element)), b.const(0, element)),
        )

        def finish(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            value = b.div(args[0], divisor)
            return [b.sqrt(value) if op.SQRT else value]

        out_rank = len(static_shape(total.type))
        result = pointwise(
            rewriter, [total], [AffineMap.identity(out_rank)], tensor_type_of(op), total, finish
        )
        rewriter.replace(op, [], [result])


def mean_over(
    rewriter: PatternRewriter, source: SSAValue, reduced: Sequence[int], count: SSAValue
) -> SSAValue:
    """The means of `source` over `reduced` in keepdim layout (size 1 there), in two generics."""
    rank = len(static_shape(source.type))
    element = count.type

    def add(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        return [b.add(args[1], args[0])]

    (sums,) = fold(
        rewriter, [source], [AffineMap.identity(rank)], reduced, True, [(element, 0)], add
    )
    return _divide(rewriter, sums, count)


class ConvertLogsumexpOp(RewritePattern):
    """logsumexp in three generics: the max `m` over the reduced dims (keepdim layout), the
    sum of exp(x - s) with s = m where finite, else 0, then log(sum) + s."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenLogsumexpOp, rewriter: PatternRewriter) -> None:
        source = op.operands[0]
        rank = len(static_shape(source.type))
        reduced, keepdim = op.reduction_args()
        result_type = tensor_type_of(op)
        element = result_type.element_type
        identity = AffineMap.identity(rank)

        def largest(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            return [b.maximum(args[1], b.cast(args[0], element))]

        inits: list[tuple[Attribute, float | int | bool]] = [(element, float("-inf"))]
        (tops,) = fold(rewriter, [source], [identity], reduced, True, inits, largest)

        def add_exp(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            shifted = b.sub(b.cast(args[0], element), _finite_or_zero(b, args[1]))
            return [b.add(args[2], b.exp(shifted))]

        top_map = reduction_output_map(rank, reduced, True)
        (sums,) = fold(
            rewriter, [source, tops], [identity, top_map], reduced, keepdim, [(element, 0)],
            add_exp,
        )  # fmt: skip

        def finish(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            return [b.add(b.log(args[0]), _finite_or_zero(b, args[1]))]

        out_rank = len(static_shape(result_type))
        maps = [AffineMap.identity(out_rank), _keepdim_layout_map(rank, reduced, keepdim)]
        result = pointwise(rewriter, [sums, tops], maps, result_type, sums, finish)
        rewriter.replace(op, [], [result])


def _finite_or_zero(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    infinite = b.cmp("eq", b.abs(x), b.const(float("inf"), x))
    return b.select(infinite, b.const(0.0, x), x)


def _keepdim_layout_map(rank: int, reduced: Sequence[int], keepdim: bool) -> AffineMap:
    """Result indices -> indices of a keepdim-layout tensor (index 0 in the reduced dims)."""
    if keepdim:
        return AffineMap.identity(rank)
    exprs, position = [], 0
    for d in range(rank):
        if d in reduced:
            exprs.append(AffineExpr.constant(0))
        else:
            exprs.append(AffineExpr.dimension(position))
            position += 1
    return AffineMap(position, 0, tuple(exprs))


PATTERNS: tuple[RewritePattern, ...] = (
    ConvertReductionOp(), ConvertVarianceOp(), ConvertLogsumexpOp(),
)  # fmt: skip
