"""`F.local_response_norm` (`nn.LocalResponseNorm`): each element divided by
`(k + alpha / size * sum of the squares of the `size` channels around it) ** beta`, the
channel window zero-padded (`size // 2` before, `(size - 1) // 2` after) as in PyTorch.

`torch-decompose` writes it as the square, zero padding of the channel dim, the sum of `size`
shifted slices of it, then elementwise ops (no sizes needed).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import Dynamic, ShapeError
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.types import FloatType, IntType, ValueTensorType


def _op(name: str) -> type[TorchOp]:
    from dialects.torch.registry import BY_NAME

    return BY_NAME[f"torch.aten.{name}"]


@torch_op
class AtenLocalResponseNormOp(TorchOp):
    """`F.local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0)` over dim 1 of an
    input with 3 or more dims."""

    name = "torch.aten._local_response_norm"
    SCHEMA = (
        "aten::_local_response_norm(Tensor input, int size, float alpha=0.0001, "
        "float beta=0.75, float k=1.0) -> Tensor"
    )
    PY_NAMES = ("F.local_response_norm",)
    SAMPLES = (Sample(Tn((2, 5, 3, 4)), 3), Sample(Tn((2, 6, 5), "float64"), 4, 0.01, 0.5, 2.0))
    input = operand_def(ValueTensorType)
    size = operand_def(IntType)
    alpha = operand_def(FloatType | IntType)
    beta = operand_def(FloatType | IntType)
    k = operand_def(FloatType | IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, size = args[:2]
        if isinstance(size, Dynamic) or not isinstance(size, int) or size <= 0:
            raise TypeError("local_response_norm: `size` must be a positive int known while scripting")  # fmt: skip
        if x.dtype is not None and not x.dtype.is_float:
            raise TypeError(f"local_response_norm: expected a floating input, got {x.dtype.name}")
        if x.rank is not None and x.rank < 3:
            raise ShapeError(
                f"Expected 3D or higher dimensionality input (got {x.rank} dimensions)"
            )
        return [ValueTensorType(x.shape, x.dtype)]

    @staticmethod
    def eager(x: Any, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Any:
        widths = [(0, 0)] * x.ndim
        widths[1] = (size // 2, (size - 1) // 2)
        squares = np.pad(x.astype(np.float64) ** 2, widths)
        channels = x.shape[1]
        total = sum(squares[:, j : j + channels] for j in range(size))
        return (x / (k + alpha * total / size) ** beta).astype(x.dtype)

    def decompose(self) -> Any:
        x = self.input
        if not isinstance(x.type, ValueTensorType) or x.type.rank is None:
            return None
        size = self.arg_values()[1]
        s = OpSequence()
        squares = s.call(_op("mul.Tensor"), x, x)
        pads = [0, 0] * (x.type.rank - 2) + [size // 2, (size - 1) // 2]
        padded = s.call(_op("constant_pad_nd"), squares, pads, 0.0)
        total = None
        for j in range(size):
            end = j - (size - 1) if j < size - 1 else None  # the padded dim is C + size - 1
            window = s.call(_op("slice.Tensor"), padded, 1, j, end, 1)
            total = window if total is None else s.call(_op("add.Tensor"), total, window, 1)
        scaled = s.call(_op("div.Scalar"), s.call(_op("mul.Scalar"), total, self.alpha), size)
        base = s.call(_op("add.Scalar"), scaled, self.k, 1)
        s.call(_op("div.Tensor"), x, s.call(_op("pow.Tensor_Scalar"), base, self.beta))
        return s.ops


OPS = (AtenLocalResponseNormOp,)
