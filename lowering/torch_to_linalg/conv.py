"""Lowers conv2d (both overloads) to a zero-padded copy of the input and one `linalg.generic`.

1. Padding (skipped when it is all 0): a generic over the padded shape whose body reads the
   input under an `scf.if` bounds check and yields 0 outside it.
2. The init: the bias broadcast over the output (or a `linalg.fill` with 0).
3. The convolution, loop dims `(n, oc, oh, ow, c, kh, kw)` (no `n` for a 3-D input), the last
   three reductions:
   `out[n, oc, oh, ow] += padded[n, ci, oh * sh + kh * dh, ow * sw + kw * dw] * w[oc, c, kh, kw]`.
   With groups = 1, `ci = c` and the input is read through that affine map; with more groups
   `ci = (oc / (C_out / groups)) * (C_in / groups) + c` is computed in the body and the input is
   read with `tensor.extract`.
Kernel and image sizes may be dynamic (loop bounds come from the weight and output); stride,
dilation and groups are constants; "same" padding is computed from the kernel size at run time
when that size is dynamic.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.ops.conv import Conv2dBase
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.torch_to_linalg.copies import dim_size, empty_with_sizes, index_const
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import (
    PARALLEL,
    REDUCTION,
    build_generic,
    filled,
    static_shape,
    tensor_type_of,
)

IndexPair = tuple[SSAValue, SSAValue]


def pad_spatial(
    rewriter: PatternRewriter,
    source: SSAValue,
    pads: Sequence[IndexPair],
    static_pads: Sequence[tuple[int, int]],
) -> SSAValue:
    """`source` with its last two dims padded by (before, after) zeros each."""
    assert isinstance(source.type, TensorType)
    shape = list(static_shape(source.type))
    rank = len(shape)
    sizes: list[SSAValue | None] = [dim_size(rewriter, source, d) for d in range(rank)]
    for axis, ((before, after), (sb, sa)) in enumerate(zip(pads, static_pads, strict=True)):
        d = rank - 2 + axis
        size = sizes[d]
        assert size is not None
        sizes[d] = build_scalars(
            rewriter, lambda b, s=size, x=before, y=after: b.add(b.add(s, x), y)
        )
        shape[d] = DYN if DYN in (shape[d], sb, sa) else shape[d] + sb + sa
    padded_type = TensorType(
        source.type.element_type, [DYNAMIC_INDEX if d == DYN else d for d in shape]
    )
    init = empty_with_sizes(rewriter, padded_type, sizes)
    originals = [dim_size(rewriter, source, d) for d in range(rank - 2, rank)]
    element_type = source.type.element_type

    def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        loop = [b.emit(IndexOp(d)) for d in range(rank)]
        inner = [b.sub(loop[rank - 2 + a], pads[a][0]) for a in range(2)]
        zero = b.const(0, IndexType())
        inside = [b.and_(b.cmp("ge", i, zero), b.cmp("lt", i, n)) for i, n in zip(inner, originals)]
        then_block, else_block = Block(), Block()
        read = tensor.ExtractOp(source, [*loop[: rank - 2], *inner], element_type)
        then_block.add_ops([read, scf.YieldOp(read.result)])
        else_block.add_op(scf.YieldOp(ScalarBuilder(else_block).const(0, element_type)))
        condition = b.and_(inside[0], inside[1])
        return [b.emit(scf.IfOp(condition, [element_type], Region(then_block), Region(else_block)))]

    generic = build_generic([], [init], [AffineMap.identity(rank)], [PARALLEL] * rank, body)
    rewriter.insert(generic)
    return generic.results[0]


def bias_init(
    rewriter: PatternRewriter,
    bias: SSAValue,
    result_type: TensorType,
    sizes: Sequence[SSAValue | None],
) -> SSAValue:
    """The output filled with `bias[oc]` along the channel dim (dim -3)."""
    rank = result_type.get_num_dims()
    init = empty_with_sizes(rewriter, result_type, sizes)
    bias_map = AffineMap(rank, 0, (AffineExpr.dimension(rank - 3),))
    generic = build_generic(
        [bias], [init], [bias_map, AffineMap.identity(rank)], [PARALLEL] * rank,
        lambda b, args: [args[0]],
    )  # fmt: skip
    rewriter.insert(generic)
    return generic.results[0]


class ConvertConv2dOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: Conv2dBase, rewriter: PatternRewriter) -> None:
        x, w, bias = op.operands[:3]
        result_type = tensor_type_of(op)
        w_shape = static_shape(w.type)
        stride, static_pads, dilation, groups = op.window(
            tuple(op.arg_values()), (w_shape[2], w_shape[3])
        )
        kernel = [dim_size(rewriter, w, d) for d in (2, 3)]
        pads = [
            self.pad_pair(rewriter, p, k, d)
            for p, k, d in zip(static_pads, kernel, dilation, strict=True)
        ]
        padded = x
        if any(p != (0, 0) for p in static_pads):
            padded = pad_spatial(rewriter, x, pads, static_pads)
        sizes = self.output_sizes(rewriter, padded, w, kernel, stride, dilation)
        if isinstance(bias.type, TensorType):
            init = bias_init(rewriter, bias, result_type, sizes)
        else:
            init = filled(rewriter, empty_with_sizes(rewriter, result_type, sizes), 0)
        out = self.convolve(rewriter, padded, w, init, stride, dilation, groups)
        rewriter.replace(op, [], [out])

    @staticmethod
    def pad_pair(
        rewriter: PatternRewriter, pads: tuple[int, int], kernel: SSAValue, dilation: int
    ) -> IndexPair:
        """Static pads as constants; "same" pads of a dynamic kernel: d * (k - 1) split in two."""
        if DYN not in pads:
            return index_const(rewriter, pads[0]), index_const(rewriter, pads[1])

        def total(b: ScalarBuilder) -> SSAValue:
            return b.mul(b.sub(kernel, b.const(1, IndexType())), b.const(dilation, IndexType()))

        whole = build_scalars(rewriter, total)
        before = build_scalars(
            rewriter, lambda b: b.emit(arith.FloorDivSIOp(whole, b.const(2, IndexType())))
        )
        return before, build_scalars(rewriter, lambda b: b.sub(whole, before))

    @staticmethod
    def output_sizes(
        rewriter: PatternRewriter, padded: SSAValue, w: SSAValue, kernel: Sequence[SSAValue],
        stride: tuple[int, int], dilation: tuple[int, int],
    ) -> list[SSAValue | None]:  # fmt: skip
        """(N,) C_out, OH, OW: OH = (padded H - dh * (kh - 1) - 1) / sh + 1."""
        rank = len(static_shape(padded.type))
        sizes: list[SSAValue | None] = [dim_size(rewriter, padded, 0)] if rank == 4 else []
        sizes.append(dim_size(rewriter, w, 0))
        for axis in range(2):
            size = dim_size(rewriter, padded, rank - 2 + axis)

            def out(b: ScalarBuilder, n: SSAValue = size, axis: int = axis) -> SSAValue:
                one = b.const(1, IndexType())
                reach = b.mul(b.sub(kernel[axis], one), b.const(dilation[axis], IndexType()))
                span = b.sub(b.sub(n, reach), one)
                return b.add(
                    b.emit(arith.FloorDivSIOp(span, b.const(stride[axis], IndexType()))), one
                )

            sizes.append(build_scalars(rewriter, out))
        return sizes

    @staticmethod
    def convolve(
        rewriter: PatternRewriter, padded: SSAValue, w: SSAValue, init: SSAValue,
        stride: tuple[int, int], dilation: tuple[int, int], groups: int,
    ) -> SSAValue:  # fmt: skip
        batched = len(static_shape(padded.type)) == 4
        first = 1 if batched else 0  # loop dims: [n,] oc, oh, ow, c, kh, kw
        oc, oh, ow, c, kh, kw = (AffineExpr.dimension(first + i) for i in range(6))
        n = [AffineExpr.dimension(0)] if batched else []
        loops = first + 6
        rows = oh * stride[0] + kh * dilation[0]
        cols = ow * stride[1] + kw * dilation[1]
        w_map = AffineMap(loops, 0, (oc, c, kh, kw))
        out_map = AffineMap(loops, 0, (*n, oc, oh, ow))
        iterators = [PARALLEL] * (first + 3) + [REDUCTION] * 3
        if groups == 1:
            x_map = AffineMap(loops, 0, (*n, c, rows, cols))
            generic = build_generic(
                [padded, w], [init], [x_map, w_map, out_map], iterators,
                lambda b, args: [b.add(args[2], b.mul(args[0], args[1]))],
            )  # fmt: skip
            rewriter.insert(generic)
            return generic.results[0]
        group_out = build_scalars(
            rewriter, lambda b: b.div(dim_size_b(b, w, 0), b.const(groups, IndexType()))
        )
        group_in = dim_size(rewriter, w, 1)
        assert isinstance(padded.type, TensorType)
        element_type = padded.type.element_type

        def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            idx = [b.emit(IndexOp(d)) for d in range(loops)]
            i_oc, i_oh, i_ow, i_c, i_kh, i_kw = idx[first:]
            group = b.emit(arith.FloorDivSIOp(i_oc, group_out))
            channel = b.add(b.mul(group, group_in), i_c)
            row = b.add(
                b.mul(i_oh, b.const(stride[0], IndexType())),
                b.mul(i_kh, b.const(dilation[0], IndexType())),
            )
            col = b.add(
                b.mul(i_ow, b.const(stride[1], IndexType())),
                b.mul(i_kw, b.const(dilation[1], IndexType())),
            )
            value = b.emit(
                tensor.ExtractOp(padded, [*idx[:first], channel, row, col], element_type)
            )
            return [b.add(args[1], b.mul(value, args[0]))]

        generic = build_generic([w], [init], [w_map, out_map], iterators, body)
        rewriter.insert(generic)
        return generic.results[0]


def dim_size_b(b: ScalarBuilder, source: SSAValue, dim: int) -> SSAValue:
    """`dim_size` inside a ScalarBuilder."""
    size = static_shape(source.type)[dim]
    if size != DYN:
        return b.const(size, IndexType())
    return b.emit(tensor.DimOp(source, b.const(dim, IndexType())))


PATTERNS: tuple[RewritePattern, ...] = (ConvertConv2dOp(),)
