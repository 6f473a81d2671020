"""Lowers cat and stack (lists of tensors in) and split / chunk (lists out, unpacked).

- cat / stack: one generic over the result; along the joined dim a chain of `scf.if` picks the
  input that holds the element and reads it with `tensor.extract` (one read per element; the
  branches keep the loop from vectorizing, which matters little for these copies).
- split.Tensor / split.sizes / chunk: their list result may only be unpacked
  (`torch.prim.ListUnpack`, whose result count the program fixes); each unpacked piece is a copy
  of a slice. Piece k of split / chunk starts at k * n (n = split_size, or ceil(size / chunks))
  and has length clamp(size - start, 0, n), computed at run time when the dim is dynamic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.utils.exceptions import PassFailedException

from dialects.torch.op_base import arg_value
from dialects.torch.ops.joining import (
    AtenCatOp,
    AtenChunkOp,
    AtenSplitSizesOp,
    AtenStackOp,
    SplitLikeOp,
    cat_inputs,
)
from dialects.torch.ops.prim import PrimListUnpackOp
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.torch_to_linalg.copies import (
    copy_by_index,
    dim_size,
    empty_with_sizes,
    index_const,
    int_as_index,
    list_elements,
)
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import PARALLEL, build_generic, static_shape, tensor_type_of
from lowering.torch_to_linalg.utils import to_builtin_type as lowered_type

Branch = Callable[[ScalarBuilder], SSAValue]
Reader = Callable[[ScalarBuilder, list[SSAValue]], SSAValue]


def choose(
    b: ScalarBuilder, conditions: Sequence[SSAValue], branches: Sequence[Branch], typ: Attribute
) -> SSAValue:
    """`branches[0]` if `conditions[0]` else `branches[1]` if ... else `branches[-1]`; each
    branch is built in its own `scf.if` region, so only the chosen one runs."""
    if not conditions:
        return branches[0](b)
    then_block, else_block = Block(), Block()
    then_block.add_op(scf.YieldOp(branches[0](ScalarBuilder(then_block))))
    rest = choose(ScalarBuilder(else_block), conditions[1:], branches[1:], typ)
    else_block.add_op(scf.YieldOp(rest))
    return b.emit(scf.IfOp(conditions[0], [typ], Region(then_block), Region(else_block)))


def reader(rewriter: PatternRewriter, source: SSAValue, typ: Attribute) -> Reader:
    """`read(b, indices)`: an element of `source` converted to `typ`. A 0-d source is read once
    here, before the loops (numba cannot index a 0-d array inside a `prange` loop)."""
    assert isinstance(source.type, TensorType)
    element_type = source.type.element_type
    if source.type.get_num_dims() == 0:
        value = build_scalars(
            rewriter, lambda b: b.emit(tensor.ExtractOp(source, [], element_type))
        )
        return lambda b, indices: b.cast(value, typ)
    return lambda b, indices: b.cast(b.emit(tensor.ExtractOp(source, indices, element_type)), typ)


def join(
    rewriter: PatternRewriter,
    result_type: TensorType,
    sizes: Sequence[SSAValue | None],
    pick: Callable[[ScalarBuilder, list[SSAValue]], tuple[list[SSAValue], list[Branch]]],
) -> SSAValue:
    """A generic over the result; `pick(b, loop)` gives (conditions, branches) for `choose`."""
    rank = result_type.get_num_dims()
    init = empty_with_sizes(rewriter, result_type, sizes)

    def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        loop = [b.emit(IndexOp(d)) for d in range(rank)]
        conditions, branches = pick(b, loop)
        return [choose(b, conditions, branches, result_type.element_type)]

    generic = build_generic([], [init], [AffineMap.identity(rank)], [PARALLEL] * rank, body)
    rewriter.insert(generic)
    return generic.results[0]


def _size_from(
    rewriter: PatternRewriter,
    result_type: TensorType,
    dim: int,
    sources: Sequence[SSAValue],
    src_dim: int,
) -> SSAValue | None:
    """A dynamic result dim's size from the first source whose `src_dim` is static (else the
    first source); None when the result dim is static."""
    if static_shape(result_type)[dim] != DYN:
        return None
    static = [s for s in sources if static_shape(s.type)[src_dim] != DYN]
    return dim_size(rewriter, (static or list(sources))[0], src_dim)


class ConvertCatOp(RewritePattern):
    """Input k covers [end(k-1), end(k)) of the joined dim; legacy 1-D empty inputs are skipped."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenCatOp, rewriter: PatternRewriter) -> None:
        elements = list_elements(op.tensors)
        kept = [elements[i] for i in cat_inputs([arg_value(e) for e in elements])]
        result_type = tensor_type_of(op)
        rank = result_type.get_num_dims()
        dim = arg_value(op.dim) % rank
        starts = [index_const(rewriter, 0)]
        for source in kept:
            length = dim_size(rewriter, source, dim)
            starts.append(build_scalars(rewriter, lambda b, s=starts[-1], n=length: b.add(s, n)))
        sizes = [
            starts[-1] if d == dim else _size_from(rewriter, result_type, d, kept, d)
            for d in range(rank)
        ]
        reads = [reader(rewriter, s, result_type.element_type) for s in kept]

        def pick(b: ScalarBuilder, loop: list[SSAValue]) -> tuple[list[SSAValue], list[Branch]]:
            i = loop[dim]
            conditions = [b.cmp("lt", i, end) for end in starts[1:-1]]
            branches: list[Branch] = [
                lambda inner, k=k: reads[k](
                    inner, [*loop[:dim], inner.sub(i, starts[k]), *loop[dim + 1 :]]
                )
                for k in range(len(kept))
            ]
            return conditions, branches

        rewriter.replace(op, [], [join(rewriter, result_type, sizes, pick)])


class ConvertStackOp(RewritePattern):
    """Input k is the slice k of the new dim."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenStackOp, rewriter: PatternRewriter) -> None:
        sources = list_elements(op.tensors)
        result_type = tensor_type_of(op)
        rank = result_type.get_num_dims()
        dim = arg_value(op.dim) % rank
        sizes = [
            None if d == dim else _size_from(rewriter, result_type, d, sources, d - (d > dim))
            for d in range(rank)
        ]
        reads = [reader(rewriter, s, result_type.element_type) for s in sources]
        indices = [index_const(rewriter, k) for k in range(len(sources) - 1)]

        def pick(b: ScalarBuilder, loop: list[SSAValue]) -> tuple[list[SSAValue], list[Branch]]:
            rest = [*loop[:dim], *loop[dim + 1 :]]
            conditions = [b.cmp("eq", loop[dim], k) for k in indices]
            branches: list[Branch] = [
                lambda inner, k=k: reads[k](inner, rest) for k in range(len(sources))
            ]
            return conditions, branches

        rewriter.replace(op, [], [join(rewriter, result_type, sizes, pick)])


# ---- split / chunk ----


def piece_bounds(
    rewriter: PatternRewriter, op: SplitLikeOp, size: SSAValue, count: int
) -> list[tuple[SSAValue, SSAValue]]:
    """(start, length) of each of the `count` pieces, as `index` values."""
    if isinstance(op, AtenSplitSizesOp):
        lengths = [int(n) for n in arg_value(op.split_size)]
        starts = [sum(lengths[:k]) for k in range(len(lengths))]
        return [
            (index_const(rewriter, s), index_const(rewriter, n)) for s, n in zip(starts, lengths)
        ][:count]
    if isinstance(op, AtenChunkOp):
        chunks = int_as_index(rewriter, op.chunks)
        step = build_scalars(rewriter, lambda b: b.emit(arith.CeilDivSIOp(size, chunks)))
    else:
        step = int_as_index(rewriter, op.operands[1])

    def bounds(b: ScalarBuilder, k: int) -> tuple[SSAValue, SSAValue]:
        start = b.mul(b.const(k, IndexType()), step)
        left = b.maximum(b.sub(size, start), b.const(0, IndexType()))
        return start, b.minimum(left, step)

    return [
        (build_scalars(rewriter, lambda b, k=k: bounds(b, k)[0]),
         build_scalars(rewriter, lambda b, k=k: bounds(b, k)[1]))
        for k in range(count)
    ]  # fmt: skip


class ConvertSplitOp(RewritePattern):
    """Replaces each `torch.prim.ListUnpack` of the list by copies of the slices."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SplitLikeOp, rewriter: PatternRewriter) -> None:
        unpacks = [use.operation for use in op.results[0].uses]
        if not all(isinstance(u, PrimListUnpackOp) for u in unpacks):
            raise PassFailedException(
                f"convert-torch-to-linalg: the list that {op.name} returns can only be unpacked "
                "into values (`a, b = x.chunk(2)`), not used as a list"
            )
        source = op.operands[0]
        rank = len(static_shape(source.type))
        dim = arg_value(op.operands[2]) % rank
        size = dim_size(rewriter, source, dim)
        for unpack in unpacks:
            assert isinstance(unpack, PrimListUnpackOp)
            pieces = piece_bounds(rewriter, op, size, len(unpack.results))
            for result, (start, length) in zip(unpack.results, pieces, strict=True):
                piece_type = lowered_type(result.type)
                assert isinstance(piece_type, TensorType)
                sizes = [length if d == dim else dim_size(rewriter, source, d) for d in range(rank)]
                piece = copy_by_index(
                    rewriter, source,
                    lambda b, loop, s=start: [*loop[:dim], b.add(loop[dim], s), *loop[dim + 1 :]],
                    piece_type, sizes,
                )  # fmt: skip
                rewriter.replace_all_uses_with(result, piece)
            rewriter.erase(unpack)
        rewriter.erase(op)


PATTERNS: tuple[RewritePattern, ...] = (ConvertCatOp(), ConvertStackOp(), ConvertSplitOp())
