"""Lowers flip and roll (with dims) to one copy each (`copy_by_index`).

- flip: along each flipped dim the source index is `size - 1 - i`.
- roll: along each rolled dim the source index is `(i + size - s) mod size`, where
  `s = shift mod size` is computed once before the loops (size 0 is taken as 1 there, so an
  empty dim does not divide by zero; the loops then do not run). Shifts of the same dim add up.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.op_base import arg_value
from dialects.torch.ops.reorder import AtenFlipOp, AtenRollOp
from dialects.torch.scalar_builder import ScalarBuilder
from lowering.torch_to_linalg.copies import copy_by_index, dim_size, floor_mod
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import static_shape, tensor_type_of


def _rank(value: SSAValue) -> int:
    return len(static_shape(value.type))


def _dims(values: list[int] | int, rank: int) -> list[int]:
    values = [values] if isinstance(values, int) else values
    return [d % max(rank, 1) for d in values]


class ConvertFlipOp(RewritePattern):
    """`result[..., i, ...] = self[..., size - 1 - i, ...]` on each flipped dim."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenFlipOp, rewriter: PatternRewriter) -> None:
        source = op.self_
        rank = _rank(source)
        if rank == 0:
            rewriter.replace(op, [], [source])
            return
        flipped = set(_dims(arg_value(op.dims), rank))
        sizes = [dim_size(rewriter, source, d) for d in range(rank)]
        last = {
            d: build_scalars(rewriter, lambda b, d=d: b.sub(sizes[d], b.const(1, IndexType())))
            for d in flipped
        }

        def source_indices(b: ScalarBuilder, loop: list[SSAValue]) -> list[SSAValue]:
            return [b.sub(last[d], i) if d in flipped else i for d, i in enumerate(loop)]

        result = copy_by_index(rewriter, source, source_indices, tensor_type_of(op), sizes)
        rewriter.replace(op, [], [result])


class ConvertRollOp(RewritePattern):
    """`result[..., i, ...] = self[..., (i + size - s) mod size, ...]` on each rolled dim."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenRollOp, rewriter: PatternRewriter) -> None:
        source = op.self_
        rank = _rank(source)
        shifts = arg_value(op.shifts)
        shifts = [shifts] if isinstance(shifts, int) else list(shifts)
        dims = _dims(arg_value(op.dims), rank)
        assert dims, "roll without dims decomposes (torch-decompose) before this lowering"
        total: dict[int, int] = {}
        for d, s in zip(dims, shifts, strict=True):
            total[d] = total.get(d, 0) + s
        sizes = [dim_size(rewriter, source, d) for d in range(rank)]

        def back(b: ScalarBuilder, d: int) -> SSAValue:
            """size - (shift mod size), in [1, size]."""
            one = b.const(1, IndexType())
            size = b.maximum(sizes[d], one)
            shift = b.emit(arith.RemSIOp(b.const(total[d], IndexType()), size))
            shift = b.emit(arith.RemSIOp(b.add(shift, size), size))
            return b.sub(size, shift)

        offsets = {d: build_scalars(rewriter, lambda b, d=d: back(b, d)) for d in total}

        def source_indices(b: ScalarBuilder, loop: list[SSAValue]) -> list[SSAValue]:
            return [
                floor_mod(b, b.add(i, offsets[d]), sizes[d]) if d in offsets else i
                for d, i in enumerate(loop)
            ]

        result = copy_by_index(rewriter, source, source_indices, tensor_type_of(op), sizes)
        rewriter.replace(op, [], [result])


PATTERNS: tuple[RewritePattern, ...] = (ConvertFlipOp(), ConvertRollOp())
