"""Adaptive max pooling without indices: `F.adaptive_max_pool2d` / `F.adaptive_max_pool1d`
(`return_indices=False`), as `_adaptive_max_pool2d_values`.

Output cell `i` of a dim of size n pooled to `out` covers `[floor(i * n / out),
ceil((i + 1) * n / out))`, as in PyTorch. The max over a rectangle is the max over its rows of
the max over its columns, so `torch-decompose` pools each dim on its own: one `slice` + `amax`
per output cell, concatenated. The windows need the input's sizes: while they are unknown
the result type stays open, and the frontend compiles the call for its exact shapes. (ATen's
`adaptive_max_pool2d` also returns the indices: not supported.)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.conv_1d import OneDimOp
from dialects.torch.ops.data_movement import AtenSliceTensorOp
from dialects.torch.ops.joining import AtenCatOp
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.types import DYN, IntType, ListType, ValueTensorType


def windows(size: int, out: int) -> list[tuple[int, int]]:
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _sizes(value: Any, rank: int) -> list[int]:
    values = list(value) if isinstance(value, list | tuple) else [value]
    values = values * rank if len(values) == 1 else values
    if len(values) != rank or not all(isinstance(v, int) and v > 0 for v in values):
        raise TypeError(f"adaptive_max_pool: `output_size` must be {rank} positive constant ints")
    return values


@torch_op
class AtenAdaptiveMaxPool2dValuesOp(TorchOp):
    """`F.adaptive_max_pool2d(x, output_size)` / `F.adaptive_max_pool1d(x, output_size)`: the
    largest element of each of `output_size` windows spread evenly over the last dims of an
    (N,) C, H, W (or N, C, L) input."""

    name = "torch.aten._adaptive_max_pool2d_values"
    SCHEMA = "aten::_adaptive_max_pool2d_values(Tensor self, int[] output_size) -> Tensor"
    PY_NAMES = ("F.adaptive_max_pool2d", "torch._adaptive_max_pool2d_values")
    SAMPLES = (Sample(Tn((2, 3, 7, 5)), [3, 2]), Sample(Tn((2, 6, 4), "float64"), 4))
    self_ = operand_def(ValueTensorType)
    output_size = operand_def(ListType | IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, output_size = args
        sizes = _sizes(output_size, 2)
        if x.dtype is not None and not x.dtype.is_float:
            raise TypeError(f"\"adaptive_max_pool2d\" not implemented for '{x.dtype.name}'")
        if x.shape is None:
            return [ValueTensorType(None, x.dtype)]
        if len(x.shape) not in (3, 4):
            raise ShapeError(
                f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(x.shape)}"
            )
        if DYN in x.shape[-2:]:  # the windows are constants: compiled per exact shape
            return [ValueTensorType(None, x.dtype)]
        return [ValueTensorType((*x.shape[:-2], *sizes), x.dtype)]

    @staticmethod
    def eager(x: Any, output_size: Any) -> Any:
        out = x
        for axis, size in zip((-2, -1), _sizes(output_size, 2)):
            parts = [
                np.take(out, range(start, end), axis=axis).max(axis=axis, keepdims=True)
                for start, end in windows(out.shape[axis], size)
            ]
            out = np.concatenate(parts, axis=axis)
        return out

    def decompose(self) -> Any:
        x = self.self_
        if not isinstance(x.type, ValueTensorType) or x.type.sizes is None:
            return None
        if DYN in x.type.sizes[-2:]:
            return None
        from dialects.torch.registry import BY_NAME

        amax = BY_NAME["torch.aten.amax"]
        s = OpSequence()
        out = x
        rank = len(x.type.sizes)
        for axis, size in zip((rank - 2, rank - 1), _sizes(self.arg_values()[1], 2)):
            parts = [
                s.call(amax, s.call(AtenSliceTensorOp, out, axis, start, end, 1), [axis], True)
                for start, end in windows(x.type.sizes[axis], size)
            ]
            out = s.call(AtenCatOp, s.list_of(parts), axis)
        return s.ops


@torch_op
class AtenAdaptiveMaxPool1dValuesOp(OneDimOp):
    """`F.adaptive_max_pool1d(x, output_size)`: the 2-D op over a height of one."""

    name = "torch.aten._adaptive_max_pool1d_values"
    SCHEMA = "aten::_adaptive_max_pool1d_values(Tensor self, int[1] output_size) -> Tensor"
    PY_NAMES = ("F.adaptive_max_pool1d", "torch._adaptive_max_pool1d_values")
    TWO_D = AtenAdaptiveMaxPool2dValuesOp
    WINDOW: ClassVar[dict[int, int]] = {1: 1}
    SAMPLES = (Sample(Tn((2, 3, 7)), 3),)
    self_ = operand_def(ValueTensorType)
    output_size = operand_def(ListType | IntType)
    result = result_def(ValueTensorType)


OPS = (AtenAdaptiveMaxPool2dValuesOp, AtenAdaptiveMaxPool1dValuesOp)
