"""3-D max pooling with indices: `max_pool3d_with_indices` and ATen's `adaptive_max_pool3d`
give the values and, as PyTorch computes them, the flat index (`(d * H + h) * W + w`) within
each channel volume of the element each box picked.

PyTorch scans a box's taps in order (depth, rows, then columns) from the lowest value and the
index of its first tap inside the input, and takes a tap when `value > best or isnan(value)`:
ties keep the first maximum, NaN the last NaN (as `pooling_indices.py` does in 2-D).
`torch-decompose` runs the same scan over the taps with whole tensors: the input padded with
the lowest value and one strided `slice` per dim and tap (adaptive boxes vary in size: an
`index_select` per dim at constant positions, and a constant mask for the taps past a box's
end), then `where` updates of the best value and of its index (a constant per tap). The
indices need the volume's sizes: while they are unknown the result types stay open and the
frontend compiles the call for its exact shapes.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import INT64
from dialects.torch.families import MaxMixin
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.comparison import AtenGtTensorOp
from dialects.torch.ops.data_movement import AtenSliceTensorOp
from dialects.torch.ops.indexing import AtenIndexSelectOp
from dialects.torch.ops.logical import AtenLogicalAndOp, AtenLogicalOrOp, AtenWhereSelfOp
from dialects.torch.ops.math_functions import AtenIsnanOp
from dialects.torch.ops.op_sequence import Decomposition, OpSequence
from dialects.torch.ops.padding import AtenConstantPadNdOp
from dialects.torch.ops.pooling3d import (
    AtenAdaptiveMaxPool3dValuesOp,
    AtenMaxPool3dOp,
    IntTriple,
    Pool3dOp,
    open_result,
    triple,
)
from dialects.torch.ops.pooling_indices import adaptive_taps, first_inside, tap_positions
from dialects.torch.ops.prim import ValueTensorLiteralOp
from dialects.torch.types import BoolType, NoneType, ValueTensorType

Array = Any  # a numpy array


def outer(arrays: list[Array], combine: Any) -> Array:
    """`combine` of one entry per dim, broadcast over the (OD, OH, OW) grid."""
    n = len(arrays)  # (np.ix_ would read a bool array as the positions of its True entries)
    grids = [np.reshape(a, [-1 if i == d else 1 for i in range(n)]) for d, a in enumerate(arrays)]
    result = grids[0]
    for g in grids[1:]:
        result = combine(result, g)
    return result


def flat_index(positions: list[Array], sizes: tuple[int, ...]) -> Array:
    """`(d * H + h) * W + w` over the grid of per-dim positions."""
    strides = [int(np.prod(sizes[i + 1 :])) for i in range(len(sizes))]
    return outer([p * s for p, s in zip(positions, strides, strict=True)], np.add)


def tap_combinations(taps: list[Array]) -> Iterator[tuple[int, ...]]:
    """Every tap of a box, in PyTorch's scan order (depth, then rows, then columns)."""
    return itertools.product(*(range(t.shape[0]) for t in taps))


def scan_eager(x: Array, taps: list[Array], insides: list[Array], start: Array) -> Any:
    """The (values, indices) of the scan over the taps (positions clipped into the input)."""
    sizes = x.shape[-3:]
    best = np.full((*x.shape[:-3], *(t.shape[1] for t in taps)), -np.inf)
    index = np.broadcast_to(start, best.shape).copy()
    for tap in tap_combinations(taps):
        positions = [t[k] for t, k in zip(taps, tap, strict=True)]
        inside = outer([m[k] for m, k in zip(insides, tap, strict=True)], np.logical_and)
        value = x[(..., *np.ix_(*positions))].astype(np.float64)
        take = inside & ((value > best) | np.isnan(value))
        best = np.where(take, value, best)
        index = np.where(take, flat_index(positions, sizes), index)
    return best.astype(x.dtype), index


def scan_ops(s: OpSequence, reads: Any, taps: list[Array], insides: list[Array], start: Array,
             low: Any, sizes: tuple[int, ...], is_float: bool) -> Decomposition:  # fmt: skip
    """The scan as torch ops; `reads(tap)` gives a tap's values over the whole grid."""

    def literal(array: Array) -> SSAValue:
        return s.add(ValueTensorLiteralOp(np.ascontiguousarray(array))).results[0]

    best, index = literal(np.array(low)), literal(start.astype(np.int64))
    for tap in tap_combinations(taps):
        value = reads(tap)
        take = s.call(AtenGtTensorOp, value, best)
        if is_float:
            take = s.call(AtenLogicalOrOp, take, s.call(AtenIsnanOp, value))
        inside = outer([m[k] for m, k in zip(insides, tap, strict=True)], np.logical_and)
        if not inside.all():
            take = s.call(AtenLogicalAndOp, take, literal(inside))
        positions = [t[k] for t, k in zip(taps, tap, strict=True)]
        best = s.call(AtenWhereSelfOp, take, value, best)
        flat = flat_index(positions, sizes).astype(np.int64)
        index = s.call(AtenWhereSelfOp, take, literal(flat), index)
    return Decomposition(s.ops, [best, index])


def static_sizes(x: SSAValue) -> tuple[int, ...] | None:
    typ = x.type
    if not isinstance(typ, ValueTensorType) or typ.sizes is None or -1 in typ.sizes:
        return None
    return typ.sizes


@torch_op
class AtenMaxPool3dWithIndicesOp(Pool3dOp):
    """`F.max_pool3d(x, ..., return_indices=True)`: (values, int64 flat indices per volume)."""

    name = "torch.aten.max_pool3d_with_indices"
    SCHEMA = (
        "aten::max_pool3d_with_indices(Tensor self, int[3] kernel_size, int[3] stride=[], "
        "int[3] padding=[0, 0, 0], int[3] dilation=[1, 1, 1], bool ceil_mode=False) "
        "-> (Tensor, Tensor)"
    )
    PY_NAMES = ("F.max_pool3d_with_indices", "torch.max_pool3d_with_indices")
    SAMPLES = (
        Sample(Tn((1, 2, 4, 5, 6)), 2),
        Sample(Tn((2, 5, 6, 5), "int64", -3, 3), [3, 2, 2], [2, 1, 2], [1, 0, 1], [1, 2, 1],
               True),
    )  # fmt: skip
    self_ = operand_def(ValueTensorType)
    kernel_size = operand_def(IntTriple)
    stride = operand_def(IntTriple | NoneType)
    padding = operand_def(IntTriple)
    dilation = operand_def(IntTriple)
    ceil_mode = operand_def(BoolType)
    values = result_def(ValueTensorType)
    indices = result_def(ValueTensorType)

    @classmethod
    def window(cls, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return AtenMaxPool3dOp.window(args)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        (values,) = super().infer(*args)
        if open_result(args[0]):
            return [values, ValueTensorType(None, INT64)]
        return [values, ValueTensorType(values.sizes, INT64)]  # type: ignore[attr-defined]

    @classmethod
    def taps(cls, shape: tuple[int, ...], args: tuple[Any, ...]) -> tuple[list[Array], ...]:
        """Per dim: (kernel, out) tap positions clipped into the input, whether each is
        inside it, and the first inside position of each box."""
        kernel, stride, padding, dilation, _ = cls.window(args)
        out = cls.output_dhw(shape, args)
        raw = [
            tap_positions(o, st, p, k, d)
            for o, st, p, k, d in zip(out, stride, padding, kernel, dilation, strict=True)
        ]
        sizes = shape[-3:]
        clipped = [np.clip(t, 0, n - 1) for t, n in zip(raw, sizes, strict=True)]
        insides = [(t >= 0) & (t < n) for t, n in zip(raw, sizes, strict=True)]
        firsts = [first_inside(t, n) for t, n in zip(raw, sizes, strict=True)]
        return raw, clipped, insides, firsts

    @classmethod
    def eager(cls, *args: Any) -> Any:
        x = args[0]
        _, clipped, insides, firsts = cls.taps(x.shape, args)
        return scan_eager(x, clipped, insides, flat_index(firsts, x.shape[-3:]))

    def decompose(self) -> Any:
        x = self.self_
        shape = static_sizes(x)
        if shape is None:
            return None
        args = tuple(self.arg_values())
        raw, clipped, insides, firsts = self.taps(shape, args)
        stride = self.window(args)[1]
        dtype = x.type.element  # type: ignore[attr-defined]
        low = np.array(MaxMixin.identity(dtype), dtype=dtype.numpy)
        s = OpSequence()
        before = [int(max(0, -t.min())) for t in raw]
        after = [int(max(0, t.max() - (n - 1))) for t, n in zip(raw, shape[-3:], strict=True)]
        pads = [v for d in (2, 1, 0) for v in (before[d], after[d])]  # last dim first
        padded = s.call(AtenConstantPadNdOp, x, pads, low.item())
        rank = len(shape)

        def reads(tap: tuple[int, ...]) -> SSAValue:
            value = padded
            for d, k in enumerate(tap):
                start = int(raw[d][k][0]) + before[d]
                end = start + (raw[d].shape[1] - 1) * stride[d] + 1
                value = s.call(AtenSliceTensorOp, value, rank - 3 + d, start, end, stride[d])
            return value

        start = flat_index(firsts, shape[-3:])
        return scan_ops(s, reads, clipped, insides, start, low, shape[-3:], dtype.is_float)


@torch_op
class AtenAdaptiveMaxPool3dOp(TorchOp):
    """`F.adaptive_max_pool3d(x, output_size, return_indices=True)`: (values, int64 flat
    indices per volume) of each adaptive box."""

    name = "torch.aten.adaptive_max_pool3d"
    SCHEMA = "aten::adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor, Tensor)"
    PY_NAMES = ("F.adaptive_max_pool3d_with_indices", "torch.adaptive_max_pool3d")
    SAMPLES = (Sample(Tn((1, 2, 5, 6, 7)), [2, 3, 4]), Sample(Tn((2, 3, 4, 5), "float64"), 2))
    self_ = operand_def(ValueTensorType)
    output_size = operand_def(IntTriple)
    values = result_def(ValueTensorType)
    indices = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        (values,) = AtenAdaptiveMaxPool3dValuesOp.infer(*args)
        return [values, ValueTensorType(values.sizes, INT64)]  # type: ignore[attr-defined]

    @classmethod
    def windows(cls, shape: tuple[int, ...], output_size: Any) -> tuple[list[Array], ...]:
        out = triple("adaptive_max_pool3d", "output_size", output_size)
        pairs = [adaptive_taps(o, n) for o, n in zip(out, shape[-3:], strict=True)]
        return [p[0] for p in pairs], [p[1] for p in pairs]

    @classmethod
    def eager(cls, x: Any, output_size: Any) -> Any:
        taps, insides = cls.windows(x.shape, output_size)
        return scan_eager(x, taps, insides, flat_index([t[0] for t in taps], x.shape[-3:]))

    def decompose(self) -> Any:
        x = self.self_
        shape = static_sizes(x)
        if shape is None:
            return None
        taps, insides = self.windows(shape, self.arg_values()[1])
        rank, s = len(shape), OpSequence()

        def literal(array: Array) -> SSAValue:
            return s.add(ValueTensorLiteralOp(np.ascontiguousarray(array))).results[0]

        def reads(tap: tuple[int, ...]) -> SSAValue:
            value = x
            for d, k in enumerate(tap):
                value = s.call(AtenIndexSelectOp, value, rank - 3 + d, literal(taps[d][k]))
            return value

        dtype = x.type.element  # type: ignore[attr-defined]
        low = np.array(-np.inf, dtype=dtype.numpy)
        start = flat_index([t[0] for t in taps], shape[-3:])
        return scan_ops(s, reads, taps, insides, start, low, shape[-3:], True)


OPS = (AtenMaxPool3dWithIndicesOp, AtenAdaptiveMaxPool3dOp)
