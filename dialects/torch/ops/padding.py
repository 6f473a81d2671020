"""Constant padding: `torch.constant_pad_nd` (and `F.pad(mode="constant")`, a
frontend.torch.nn.functional wrapper that calls it)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.families import ScalarOperand
from dialects.torch.meta import Dynamic, ShapeError
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.types import DYN, ListType, ValueTensorType


def pad_amounts(pad: Any, rank: int | None) -> list[tuple[int, int]]:
    """(before, after) for each dim from the last, as `pad` gives them (torch's order:
    last dim first); negative amounts crop. They must be ints known while scripting."""
    if not isinstance(pad, list | tuple) or any(
        isinstance(p, Dynamic) or not isinstance(p, int) for p in pad
    ):
        raise TypeError("constant_pad_nd: `pad` must be ints known while scripting")
    if len(pad) % 2:
        raise ShapeError("Padding length must be divisible by 2")
    if rank is not None and len(pad) // 2 > rank:
        raise ShapeError(
            "Padding length should be less than or equal to two times the input dimension"
        )
    return [(pad[i], pad[i + 1]) for i in range(0, len(pad), 2)]


@torch_op
class AtenConstantPadNdOp(TorchOp):
    """`torch.constant_pad_nd(x, pad, value)`: `pad` = (before, after) pairs from the last dim
    backwards; new elements are `value`, negative amounts crop.

    ```mlir
    %r = torch.aten.constant_pad_nd %x, %pad, %float0 : !torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.float -> !torch.vtensor<[2,6],f32>
    ```
    """

    name = "torch.aten.constant_pad_nd"
    SCHEMA = "aten::constant_pad_nd(Tensor self, int[] pad, Scalar value=0) -> Tensor"
    PY_NAMES = ("torch.constant_pad_nd",)
    SAMPLES = (
        Sample(Tn((2, 3)), [1, 2]),
        Sample(Tn((2, 3, 4)), [1, 0, 2, 1], 1.5),
        Sample(Tn((3, 5), "int64"), [-1, 2], 7),
    )
    self_ = operand_def(ValueTensorType)
    pad = operand_def(ListType)
    value = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, pad = args[0], args[1]
        amounts = pad_amounts(pad, x.rank)
        if x.shape is None:
            return [ValueTensorType(None, x.dtype)]
        shape = list(x.shape)
        for k, (before, after) in enumerate(amounts):
            d = len(shape) - 1 - k
            if shape[d] != DYN:
                shape[d] += before + after
                if shape[d] < 0:
                    raise ShapeError(f"constant_pad_nd: the padded size of dim {d} is negative")
        return [ValueTensorType(shape, x.dtype)]

    @staticmethod
    def eager(x: Any, pad: Any, value: Any = 0) -> Any:
        amounts = pad_amounts(pad, x.ndim)
        widths = [(0, 0)] * x.ndim
        crop = [slice(None)] * x.ndim
        for k, (before, after) in enumerate(amounts):
            d = x.ndim - 1 - k
            widths[d] = (max(before, 0), max(after, 0))
            crop[d] = slice(max(-before, 0), x.shape[d] - max(-after, 0))
        padded = np.pad(x[tuple(crop)], widths, constant_values=np.asarray(value).astype(x.dtype))
        return padded.astype(x.dtype)


OPS = (AtenConstantPadNdOp,)
