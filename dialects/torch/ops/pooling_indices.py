"""`max_pool2d_with_indices`: max pooling's values and, as PyTorch computes them, the flat
index (`row * W + col`) within each channel plane of the element each window picked.

PyTorch scans a window's taps in order (rows, then columns) from the value -inf and the index
of its first tap inside the input, and takes a tap when `value > best or isnan(value)`: ties
keep the first maximum, NaN the last NaN. `torch-decompose` does the same scan over the taps
with whole tensors: the input padded with the lowest value, one strided `slice` per tap, and
`where` updates of the best value and of its index (a constant per tap). The indices need the
image sizes: while they are unknown the result types stay open and the frontend compiles the
call for its exact shapes.

`adaptive_max_pool2d` (ATen's, with indices) scans its windows the same way; they vary in
size, so each tap reads through `index_select` at constant positions and a constant mask
drops the taps past a window's end.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
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
from dialects.torch.ops.pooling import (
    AtenAdaptiveMaxPool2dValuesOp,
    AtenMaxPool2dOp,
    IntPair,
    PoolOp,
    _sizes,
    adaptive_bounds,
)
from dialects.torch.ops.prim import ValueTensorLiteralOp
from dialects.torch.types import DYN, BoolType, IntType, ListType, NoneType, ValueTensorType


def tap_positions(out: int, stride: int, pad: int, kernel: int, dilation: int) -> np.ndarray:  # type: ignore[type-arg]
    """(kernel, out): the input position each tap of each window reads (may be outside)."""
    return np.arange(kernel)[:, None] * dilation + (np.arange(out) * stride - pad)[None, :]


def first_inside(taps: np.ndarray, size: int) -> np.ndarray:  # type: ignore[type-arg]
    """Per window, the first tap position inside [0, size)."""
    inside = (taps >= 0) & (taps < size)
    return taps[inside.argmax(axis=0), np.arange(taps.shape[1])]


@torch_op
class AtenMaxPool2dWithIndicesOp(PoolOp):
    """`F.max_pool2d(x, ..., return_indices=True)`: (values, int64 flat indices per plane)."""

    name = "torch.aten.max_pool2d_with_indices"
    SCHEMA = (
        "aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], "
        "int[2] padding=[0, 0], int[2] dilation=[1, 1], bool ceil_mode=False) -> (Tensor, Tensor)"
    )
    PY_NAMES = ("F.max_pool2d_with_indices", "torch.max_pool2d_with_indices")
    SAMPLES = (
        Sample(Tn((1, 2, 5, 6)), 2),
        Sample(Tn((2, 7, 6), "int64", -3, 3), [3, 2], [2, 1], [1, 0], [2, 1], True),
    )
    self_ = operand_def(ValueTensorType)
    kernel_size = operand_def(IntPair)
    stride = operand_def(IntPair | NoneType)
    padding = operand_def(IntPair)
    dilation = operand_def(IntPair)
    ceil_mode = operand_def(BoolType)
    values = result_def(ValueTensorType)
    indices = result_def(ValueTensorType)

    @classmethod
    def window(cls, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return AtenMaxPool2dOp.window(args)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        (values,) = super().infer(*args)
        x = args[0]
        if x.shape is None or DYN in x.shape[-2:]:
            return [ValueTensorType(None, x.dtype), ValueTensorType(None, INT64)]
        return [values, ValueTensorType(values.sizes, INT64)]  # type: ignore[attr-defined]

    @classmethod
    def taps(cls, shape: tuple[int, ...], args: tuple[Any, ...]) -> list[np.ndarray]:  # type: ignore[type-arg]
        kernel, stride, padding, dilation, _ = cls.window(args)
        out = cls.output_hw(shape, args)
        return [
            tap_positions(o, s, p, k, d)
            for o, s, p, k, d in zip(out, stride, padding, kernel, dilation, strict=True)
        ]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        x = args[0]
        h, w = x.shape[-2:]
        rows, cols = cls.taps(x.shape, args)
        best = np.full((*x.shape[:-2], rows.shape[1], cols.shape[1]), -np.inf)
        index = np.broadcast_to(
            first_inside(rows, h)[:, None] * w + first_inside(cols, w)[None, :], best.shape
        ).copy()
        for tap_rows in rows:
            for tap_cols in cols:
                inside = ((tap_rows >= 0) & (tap_rows < h))[:, None] & (
                    (tap_cols >= 0) & (tap_cols < w)
                )[None, :]
                r, c = np.clip(tap_rows, 0, h - 1), np.clip(tap_cols, 0, w - 1)
                value = x[..., r[:, None], c[None, :]].astype(np.float64)
                take = inside & ((value > best) | np.isnan(value))
                best = np.where(take, value, best)
                index = np.where(take, r[:, None] * w + c[None, :], index)
        return best.astype(x.dtype), index

    def decompose(self) -> Any:
        x = self.self_
        if not isinstance(x.type, ValueTensorType) or x.type.sizes is None:
            return None
        shape = x.type.sizes
        if DYN in shape[-2:]:
            return None
        args = tuple(self.arg_values())
        dtype = x.type.element
        h, w = shape[-2:]
        rows, cols = self.taps(shape, args)
        _, stride, _, _, _ = self.window(args)
        s = OpSequence()
        low = MaxMixin.identity(dtype)
        pads = (
            [int(max(0, -taps.min())) if taps.size else 0 for taps in (cols, rows)],
            [
                int(max(0, taps.max() - (n - 1))) if taps.size else 0
                for taps, n in ((cols, w), (rows, h))
            ],
        )
        pad_list = [pads[0][0], pads[1][0], pads[0][1], pads[1][1]]
        padded = s.call(AtenConstantPadNdOp, x, pad_list, low)
        rank = len(shape)

        def literal(array: Any) -> Any:
            return s.add(ValueTensorLiteralOp(np.ascontiguousarray(array))).results[0]

        best = literal(np.array(low, dtype=dtype.numpy))
        index = literal(first_inside(rows, h)[:, None] * w + first_inside(cols, w)[None, :])
        for tap_rows in rows:
            for tap_cols in cols:
                value = padded
                for axis, taps, before, step in (
                    (rank - 2, tap_rows, pads[0][1], stride[0]),
                    (rank - 1, tap_cols, pads[0][0], stride[1]),
                ):
                    start = int(taps[0]) + before
                    end = start + (len(taps) - 1) * step + 1
                    value = s.call(AtenSliceTensorOp, value, axis, start, end, step)
                take = s.call(AtenGtTensorOp, value, best)
                if dtype.is_float:
                    take = s.call(AtenLogicalOrOp, take, s.call(AtenIsnanOp, value))
                flat = np.clip(tap_rows, 0, h - 1)[:, None] * w + np.clip(tap_cols, 0, w - 1)
                best = s.call(AtenWhereSelfOp, take, value, best)
                index = s.call(AtenWhereSelfOp, take, literal(flat.astype(np.int64)), index)
        return Decomposition(s.ops, [best, index])


def adaptive_taps(out: int, size: int) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[type-arg]
    """(taps, out) positions of each adaptive window (clipped to its last element) and
    whether each tap lies inside its window."""
    starts, ends = (np.array(b) for b in adaptive_bounds(out, size))
    longest = int((ends - starts).max())
    positions = starts[None, :] + np.arange(longest)[:, None]
    inside = positions < ends[None, :]
    return np.minimum(positions, ends[None, :] - 1), inside


@torch_op
class AtenAdaptiveMaxPool2dOp(TorchOp):
    """`F.adaptive_max_pool2d(x, output_size, return_indices=True)`: (values, int64 flat
    indices per plane) of each adaptive window."""

    name = "torch.aten.adaptive_max_pool2d"
    SCHEMA = "aten::adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)"
    PY_NAMES = ("F.adaptive_max_pool2d_with_indices", "torch.adaptive_max_pool2d")
    SAMPLES = (Sample(Tn((2, 3, 7, 5)), [3, 2]), Sample(Tn((2, 5, 6), "float64"), 4))
    self_ = operand_def(ValueTensorType)
    output_size = operand_def(ListType | IntType)
    values = result_def(ValueTensorType)
    indices = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        (values,) = AtenAdaptiveMaxPool2dValuesOp.infer(*args)
        return [values, ValueTensorType(values.sizes, INT64)]  # type: ignore[attr-defined]

    @classmethod
    def windows(cls, shape: tuple[int, ...], output_size: Any) -> list[Any]:
        return [
            adaptive_taps(o, n) for o, n in zip(_sizes(output_size, 2), shape[-2:], strict=True)
        ]

    @classmethod
    def eager(cls, x: Any, output_size: Any) -> Any:
        w = x.shape[-1]
        (rows, row_in), (cols, col_in) = cls.windows(x.shape, output_size)
        best = np.full((*x.shape[:-2], rows.shape[1], cols.shape[1]), -np.inf)
        index = np.broadcast_to(rows[0][:, None] * w + cols[0][None, :], best.shape).copy()
        for tap_rows, rows_inside in zip(rows, row_in, strict=True):
            for tap_cols, cols_inside in zip(cols, col_in, strict=True):
                value = x[..., tap_rows[:, None], tap_cols[None, :]].astype(np.float64)
                inside = rows_inside[:, None] & cols_inside[None, :]
                take = inside & ((value > best) | np.isnan(value))
                best = np.where(take, value, best)
                index = np.where(take, tap_rows[:, None] * w + tap_cols[None, :], index)
        return best.astype(x.dtype), index

    def decompose(self) -> Any:
        x = self.self_
        if not isinstance(x.type, ValueTensorType) or x.type.sizes is None:
            return None
        shape = x.type.sizes
        if DYN in shape[-2:]:
            return None
        rank, w = len(shape), shape[-1]
        (rows, row_in), (cols, col_in) = self.windows(shape, self.arg_values()[1])
        s = OpSequence()

        def literal(array: Any) -> Any:
            return s.add(ValueTensorLiteralOp(np.ascontiguousarray(array))).results[0]

        dtype = x.type.element
        best = literal(np.array(-np.inf, dtype=dtype.numpy))
        index = literal(rows[0][:, None] * w + cols[0][None, :])
        for tap_rows, rows_inside in zip(rows, row_in, strict=True):
            picked = s.call(AtenIndexSelectOp, x, rank - 2, literal(tap_rows))
            for tap_cols, cols_inside in zip(cols, col_in, strict=True):
                value = s.call(AtenIndexSelectOp, picked, rank - 1, literal(tap_cols))
                take = s.call(AtenLogicalOrOp, s.call(AtenGtTensorOp, value, best),
                              s.call(AtenIsnanOp, value))  # fmt: skip
                inside = rows_inside[:, None] & cols_inside[None, :]
                if not inside.all():
                    take = s.call(AtenLogicalAndOp, take, literal(inside))
                flat = tap_rows[:, None] * w + tap_cols[None, :]
                best = s.call(AtenWhereSelfOp, take, value, best)
                index = s.call(AtenWhereSelfOp, take, literal(flat.astype(np.int64)), index)
        return Decomposition(s.ops, [best, index])


OPS = (AtenMaxPool2dWithIndicesOp, AtenAdaptiveMaxPool2dOp)
