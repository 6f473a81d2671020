"""Lowers max_pool2d, avg_pool2d and adaptive_avg_pool2d to one parallel generic per op.

The generic runs over the output ((N,) C, OH, OW); its body loops (`scf.for`, carrying the
accumulator) over the window rows and columns that lie inside the input, computed from the
output position: padding and `ceil_mode` overhang are skipped rather than materialized, and
adaptive pooling's variable windows need no special case. Reads use `tensor.extract`.

- max: kh in [ceil(max(0, -start) / d), min(k, ceil((H - start) / d))), row = start + kh * d,
  where start = oh * stride - pad; the accumulator starts at -inf (the integer minimum).
- avg: rows in [max(start, 0), min(start + k, H)); the divisor is `divisor_override`, the
  window clipped to the padded input (`count_include_pad`) or the rows x columns summed.
- adaptive avg: rows in [floor(oh * H / OH), ceil((oh + 1) * H / OH)).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import IndexType, TensorType, i64
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.dtypes import dtype_of_attr
from dialects.torch.families import MaxMixin
from dialects.torch.ops.pooling import AtenAdaptiveAvgPool2dOp, AtenAvgPool2dOp, AtenMaxPool2dOp
from dialects.torch.ops.spatial import pair
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.torch_to_linalg.copies import dim_size, empty_with_sizes
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import PARALLEL, build_generic, static_shape, tensor_type_of

Range = tuple[SSAValue, SSAValue]
Step = Callable[[ScalarBuilder, SSAValue, list[SSAValue]], SSAValue]
Body = Callable[[ScalarBuilder, list[SSAValue], list[SSAValue]], SSAValue]


def window_loops(b: ScalarBuilder, ranges: Sequence[Range], init: SSAValue, step: Step) -> SSAValue:
    """Nested `scf.for` over `ranges`, carrying an accumulator: `acc = step(b, acc, ivs)`."""

    def build(builder: ScalarBuilder, level: int, acc: SSAValue, ivs: list[SSAValue]) -> SSAValue:
        if level == len(ranges):
            return step(builder, acc, ivs)
        block = Block(arg_types=[IndexType(), acc.type])
        iv, carried = block.args
        inner = ScalarBuilder(block)
        block.add_op(scf.YieldOp(build(inner, level + 1, carried, [*ivs, iv])))
        low, high = ranges[level]
        return builder.emit(scf.ForOp(low, high, builder.const(1, IndexType()), [acc], block))

    return build(b, 0, init, [])


def pool(
    rewriter: PatternRewriter, result_type: TensorType, sizes: Sequence[SSAValue | None], body: Body
) -> SSAValue:
    """A generic over the result; `body(b, lead indices, [oh, ow])` gives each element."""
    rank = result_type.get_num_dims()
    init = empty_with_sizes(rewriter, result_type, sizes)

    def generic_body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        loop = [b.emit(IndexOp(d)) for d in range(rank)]
        return [body(b, loop[:-2], loop[-2:])]

    generic = build_generic([], [init], [AffineMap.identity(rank)], [PARALLEL] * rank, generic_body)
    rewriter.insert(generic)
    return generic.results[0]


def reader(
    source: SSAValue,
) -> Callable[[ScalarBuilder, list[SSAValue], SSAValue, SSAValue], SSAValue]:
    assert isinstance(source.type, TensorType)
    element_type = source.type.element_type
    return lambda b, lead, row, col: b.emit(
        tensor.ExtractOp(source, [*lead, row, col], element_type)
    )


def index(b: ScalarBuilder, value: int) -> SSAValue:
    return b.const(value, IndexType())


def output_sizes(
    rewriter: PatternRewriter,
    source: SSAValue,
    result_type: TensorType,
    window: tuple[tuple[int, int], ...],
    ceil_mode: bool,
) -> list[SSAValue | None]:
    """Dynamic result sizes: the lead dims of the source, and torch's pooling output size."""
    rank = result_type.get_num_dims()
    shape = static_shape(result_type)
    sizes: list[SSAValue | None] = [
        dim_size(rewriter, source, d) if shape[d] == DYN else None for d in range(rank - 2)
    ]
    kernel, stride, padding, dilation = window
    for axis in range(2):
        if shape[rank - 2 + axis] != DYN:
            sizes.append(None)
            continue
        n = dim_size(rewriter, source, rank - 2 + axis)
        k, s, p, d = kernel[axis], stride[axis], padding[axis], dilation[axis]

        def out(
            b: ScalarBuilder, n: SSAValue = n, k: int = k, s: int = s, p: int = p, d: int = d
        ) -> SSAValue:
            extra = 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
            count = b.add(
                b.emit(arith.FloorDivSIOp(b.add(n, index(b, extra)), index(b, s))), index(b, 1)
            )
            if not ceil_mode:
                return count
            last_start = b.mul(b.sub(count, index(b, 1)), index(b, s))
            past = b.cmp("ge", last_start, b.add(n, index(b, p)))
            return b.select(past, b.sub(count, index(b, 1)), count)

        sizes.append(build_scalars(rewriter, out))
    return sizes


class ConvertMaxPool2dOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenMaxPool2dOp, rewriter: PatternRewriter) -> None:
        source, result_type = op.self_, tensor_type_of(op)
        kernel, stride, padding, dilation, ceil_mode = op.window(tuple(op.arg_values()))
        sizes = output_sizes(
            rewriter, source, result_type, (kernel, stride, padding, dilation), ceil_mode
        )
        rank = result_type.get_num_dims()
        extents = [dim_size(rewriter, source, rank - 2 + a) for a in range(2)]
        read = reader(source)
        element_type = result_type.element_type
        lowest = MaxMixin.identity(dtype_of_attr(element_type))

        def body(b: ScalarBuilder, lead: list[SSAValue], out: list[SSAValue]) -> SSAValue:
            starts = [
                b.sub(b.mul(o, index(b, s)), index(b, p)) for o, s, p in zip(out, stride, padding)
            ]
            ranges = [
                self.taps(b, start, n, k, d)
                for start, n, k, d in zip(starts, extents, kernel, dilation, strict=True)
            ]

            def step(inner: ScalarBuilder, acc: SSAValue, taps: list[SSAValue]) -> SSAValue:
                row, col = (
                    inner.add(start, inner.mul(tap, index(inner, d)))
                    for start, tap, d in zip(starts, taps, dilation, strict=True)
                )
                return inner.maximum(acc, read(inner, lead, row, col))

            return window_loops(b, ranges, b.const(lowest, element_type), step)

        rewriter.replace(op, [], [pool(rewriter, result_type, sizes, body)])

    @staticmethod
    def taps(
        b: ScalarBuilder, start: SSAValue, size: SSAValue, kernel: int, dilation: int
    ) -> Range:
        """The kernel taps k with 0 <= start + k * dilation < size."""
        before = b.maximum(b.neg(start), index(b, 0))
        after = b.sub(size, start)
        if dilation != 1:
            before = b.emit(arith.CeilDivSIOp(before, index(b, dilation)))
            after = b.emit(arith.CeilDivSIOp(after, index(b, dilation)))
        return before, b.minimum(after, index(b, kernel))


def summed(read: Callable[..., SSAValue], lead: list[SSAValue]) -> Step:
    """The step adding the element at (row, col)."""

    def step(b: ScalarBuilder, acc: SSAValue, rc: list[SSAValue]) -> SSAValue:
        return b.add(acc, read(b, lead, rc[0], rc[1]))

    return step


def divide(b: ScalarBuilder, total: SSAValue, count: SSAValue) -> SSAValue:
    """`total / count` in the element type (integers truncate, like C++)."""
    divisor = b.cast(b.index_cast(count, i64), total.type)
    return b.div(total, divisor)


class ConvertAvgPool2dOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenAvgPool2dOp, rewriter: PatternRewriter) -> None:
        source, result_type = op.self_, tensor_type_of(op)
        args = tuple(op.arg_values())
        kernel, stride, padding, dilation, ceil_mode = op.window(args)
        count_include_pad, override = args[5], args[6]
        sizes = output_sizes(
            rewriter, source, result_type, (kernel, stride, padding, dilation), ceil_mode
        )
        rank = result_type.get_num_dims()
        extents = [dim_size(rewriter, source, rank - 2 + a) for a in range(2)]
        read = reader(source)
        element_type = result_type.element_type

        def body(b: ScalarBuilder, lead: list[SSAValue], out: list[SSAValue]) -> SSAValue:
            starts = [
                b.sub(b.mul(o, index(b, s)), index(b, p)) for o, s, p in zip(out, stride, padding)
            ]
            ends = [b.add(start, index(b, k)) for start, k in zip(starts, kernel)]
            ranges = [
                (b.maximum(start, index(b, 0)), b.minimum(end, n))
                for start, end, n in zip(starts, ends, extents, strict=True)
            ]
            total = window_loops(b, ranges, b.const(0, element_type), summed(read, lead))
            if override is not None:
                return divide(b, total, index(b, override))
            if count_include_pad:
                spans = [
                    b.sub(b.minimum(end, b.add(n, index(b, p))), start)
                    for start, end, n, p in zip(starts, ends, extents, padding, strict=True)
                ]
            else:
                spans = [b.sub(high, low) for low, high in ranges]
            return divide(b, total, b.mul(spans[0], spans[1]))

        rewriter.replace(op, [], [pool(rewriter, result_type, sizes, body)])


class ConvertAdaptiveAvgPool2dOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenAdaptiveAvgPool2dOp, rewriter: PatternRewriter) -> None:
        source, result_type = op.self_, tensor_type_of(op)
        out_hw = pair("adaptive_avg_pool2d", "output_size", op.arg_values()[1])
        rank = result_type.get_num_dims()
        shape = static_shape(result_type)
        sizes: list[SSAValue | None] = [
            dim_size(rewriter, source, d) if shape[d] == DYN else None for d in range(rank)
        ]
        extents = [dim_size(rewriter, source, rank - 2 + a) for a in range(2)]
        read = reader(source)
        element_type = result_type.element_type

        def body(b: ScalarBuilder, lead: list[SSAValue], out: list[SSAValue]) -> SSAValue:
            ranges = []
            for o, n, count in zip(out, extents, out_hw, strict=True):
                low = b.emit(arith.FloorDivSIOp(b.mul(o, n), index(b, count)))
                after = b.mul(b.add(o, index(b, 1)), n)
                ranges.append((low, b.emit(arith.CeilDivSIOp(after, index(b, count)))))
            total = window_loops(b, ranges, b.const(0, element_type), summed(read, lead))
            spans = [b.sub(high, low) for low, high in ranges]
            return divide(b, total, b.mul(spans[0], spans[1]))

        rewriter.replace(op, [], [pool(rewriter, result_type, sizes, body)])


PATTERNS: tuple[RewritePattern, ...] = (
    ConvertMaxPool2dOp(),
    ConvertAvgPool2dOp(),
    ConvertAdaptiveAvgPool2dOp(),
)
