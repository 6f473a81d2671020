"""Lowers im2col (`F.unfold`) and col2im (`F.fold`): one generic over the result each.

- im2col: result (n, c * kh * kw + i * kw + j, oh * OW + ow) reads
  `x[n, c, oh * sh - ph + i * dh, ow * sw - pw + j * dw]`, or 0 in the padding (the read
  index is clamped into range and the value dropped). OW comes from W at run time.
- col2im: result (n, c, h, w) sums, for each of the kh * kw kernel taps (unrolled), the column
  element whose window puts that tap on (h, w): `h + ph - i * dh` must be a non-negative
  multiple of sh below sh * OH (OH, OW are static: output_size is constant).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.op_base import arg_value
from dialects.torch.ops.patches import AtenCol2imOp, AtenIm2colOp, blocks, window
from dialects.torch.ops.spatial import pair
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.torch_to_linalg.copies import dim_size, empty_with_sizes
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import PARALLEL, build_generic, static_shape, tensor_type_of


def _index(b: ScalarBuilder, value: int) -> SSAValue:
    return b.const(value, IndexType())


def _window_count(b: ScalarBuilder, size: SSAValue, k: int, d: int, p: int, s: int) -> SSAValue:
    """floor((size + 2p - d(k - 1) - 1) / s) + 1 for a size known at run time."""
    span = b.sub(b.add(size, _index(b, 2 * p)), _index(b, d * (k - 1) + 1))
    return b.add(b.emit(arith.FloorDivSIOp(span, _index(b, s))), _index(b, 1))


def _generic(
    rewriter: PatternRewriter,
    result_type: TensorType,
    sizes: Sequence[SSAValue | None],
    element: object,
    body_fn: object,
) -> SSAValue:
    rank = result_type.get_num_dims()
    init = empty_with_sizes(rewriter, result_type, sizes)

    def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        loop = [b.emit(IndexOp(d)) for d in range(rank)]
        return [body_fn(b, loop)]  # type: ignore[operator]

    generic = build_generic([], [init], [AffineMap.identity(rank)], [PARALLEL] * rank, body)
    rewriter.insert(generic)
    return generic.results[0]


def _in_range(b: ScalarBuilder, value: SSAValue, size: SSAValue) -> SSAValue:
    return b.and_(b.cmp("ge", value, _index(b, 0)), b.cmp("lt", value, size))


class ConvertIm2colOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenIm2colOp, rewriter: PatternRewriter) -> None:
        source, result_type = op.self_, tensor_type_of(op)
        params = [arg_value(v) for v in (op.kernel_size, op.dilation, op.padding, op.stride)]
        (k, d, p, s) = window("im2col", *params)
        rank = len(static_shape(source.type))
        batch = rank - 3
        c, h, w = (dim_size(rewriter, source, batch + a) for a in range(3))
        out_w = build_scalars(rewriter, lambda b: _window_count(b, w, k[1], d[1], p[1], s[1]))
        out_h = build_scalars(rewriter, lambda b: _window_count(b, h, k[0], d[0], p[0], s[0]))
        kk = k[0] * k[1]
        shape = static_shape(result_type)
        sizes: list[SSAValue | None] = [dim_size(rewriter, source, 0)] if batch else []
        sizes.append(build_scalars(rewriter, lambda b: b.mul(c, _index(b, kk)))
                     if shape[-2] == DYN else None)  # fmt: skip
        sizes.append(build_scalars(rewriter, lambda b: b.mul(out_h, out_w))
                     if shape[-1] == DYN else None)  # fmt: skip
        assert isinstance(source.type, TensorType)
        element = source.type.element_type

        def value(b: ScalarBuilder, loop: list[SSAValue]) -> SSAValue:
            ck, block = loop[-2], loop[-1]
            channel = b.emit(arith.FloorDivSIOp(ck, _index(b, kk)))
            tap = b.sub(ck, b.mul(channel, _index(b, kk)))
            i = b.emit(arith.FloorDivSIOp(tap, _index(b, k[1])))
            j = b.sub(tap, b.mul(i, _index(b, k[1])))
            oh = b.emit(arith.FloorDivSIOp(block, out_w))
            ow = b.sub(block, b.mul(oh, out_w))
            row = b.add(
                b.sub(b.mul(oh, _index(b, s[0])), _index(b, p[0])), b.mul(i, _index(b, d[0]))
            )
            col = b.add(
                b.sub(b.mul(ow, _index(b, s[1])), _index(b, p[1])), b.mul(j, _index(b, d[1]))
            )
            inside = b.and_(_in_range(b, row, h), _in_range(b, col, w))
            zero = _index(b, 0)
            at = [*loop[:batch], channel, b.select(inside, row, zero), b.select(inside, col, zero)]
            read = b.emit(tensor.ExtractOp(source, at, element))
            return b.select(inside, read, b.const(0, element))

        rewriter.replace(op, [], [_generic(rewriter, result_type, sizes, element, value)])


class ConvertCol2imOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenCol2imOp, rewriter: PatternRewriter) -> None:
        source, result_type = op.self_, tensor_type_of(op)
        size = pair("col2im", "output_size", arg_value(op.output_size))
        params = [arg_value(v) for v in (op.kernel_size, op.dilation, op.padding, op.stride)]
        (k, d, p, s) = window("col2im", *params)
        out_h, out_w = blocks(size, (k, d, p, s))
        rank = len(static_shape(source.type))
        batch = rank - 2
        kk = k[0] * k[1]
        shape = static_shape(result_type)
        rows = dim_size(rewriter, source, batch)
        sizes: list[SSAValue | None] = [dim_size(rewriter, source, 0)] if batch else []
        channels = build_scalars(
            rewriter, lambda b: b.emit(arith.FloorDivSIOp(rows, _index(b, kk)))
        )
        sizes.append(channels if shape[batch] == DYN else None)
        sizes += [None, None]
        assert isinstance(source.type, TensorType)
        element = source.type.element_type

        def tap_position(
            b: ScalarBuilder, at: SSAValue, axis: int, tap: int
        ) -> tuple[SSAValue, SSAValue]:
            """(whether a window puts kernel tap `tap` on `at`, that window's index)."""
            shifted = b.sub(b.add(at, _index(b, p[axis])), _index(b, tap * d[axis]))
            count = (out_h, out_w)[axis]
            safe = b.select(b.cmp("ge", shifted, _index(b, 0)), shifted, _index(b, 0))
            block = b.emit(arith.FloorDivSIOp(safe, _index(b, s[axis])))
            on_grid = b.cmp("eq", b.mul(block, _index(b, s[axis])), shifted)
            ok = b.and_(on_grid, b.cmp("lt", block, _index(b, count)))
            return b.and_(ok, b.cmp("ge", shifted, _index(b, 0))), block

        def value(b: ScalarBuilder, loop: list[SSAValue]) -> SSAValue:
            channel, h, w = loop[batch:]
            total = b.const(0, element)
            for i in range(k[0]):
                row_ok, oh = tap_position(b, h, 0, i)
                for j in range(k[1]):
                    col_ok, ow = tap_position(b, w, 1, j)
                    ok = b.and_(row_ok, col_ok)
                    ck = b.add(b.mul(channel, _index(b, kk)), _index(b, i * k[1] + j))
                    block = b.add(b.mul(oh, _index(b, out_w)), ow)
                    at = [*loop[:batch], ck, b.select(ok, block, _index(b, 0))]
                    read = b.emit(tensor.ExtractOp(source, at, element))
                    total = b.add(total, b.select(ok, read, b.const(0, element)))
            return total

        rewriter.replace(op, [], [_generic(rewriter, result_type, sizes, element, value)])


PATTERNS: tuple[RewritePattern, ...] = (ConvertIm2colOp(), ConvertCol2imOp())
