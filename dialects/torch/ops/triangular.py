"""`triu` / `tril`: the upper / lower triangle of the last two dims (`diagonal` shifts it),
zeros elsewhere; what causal masks are made of (`torch.tril(torch.ones(t, t))`)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import Dynamic, ShapeError
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.types import IntType, ValueTensorType


class TriangleOp(TorchOp):
    """Keeps `x[..., i, j]` where `j - i >= diagonal` (UPPER) or `j - i <= diagonal`."""

    UPPER: ClassVar[bool]

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, diagonal = args
        if isinstance(diagonal, Dynamic) or not isinstance(diagonal, int):
            raise TypeError(f"{cls.name}: `diagonal` must be an int known while scripting")
        if x.rank is not None and x.rank < 2:
            raise ShapeError(
                f"{cls.name.split('.')[-1]}: input tensor must have at least 2 dimensions"
            )
        return [ValueTensorType(x.shape, x.dtype)]

    @classmethod
    def eager(cls, x: Any, diagonal: int = 0) -> Any:
        return (np.triu if cls.UPPER else np.tril)(x, diagonal)


@torch_op
class AtenTriuOp(TriangleOp):
    """`torch.triu(x, diagonal=0)`: the elements on and above the `diagonal`-th diagonal."""

    name = "torch.aten.triu"
    SCHEMA = "aten::triu(Tensor self, int diagonal=0) -> Tensor"
    PY_NAMES = ("torch.triu", "Tensor.triu")
    SAMPLES = (Sample(Tn((4, 5))), Sample(Tn((2, 3, 3), "int64"), 1), Sample(Tn((3, 4)), -1))
    UPPER = True
    self_ = operand_def(ValueTensorType)
    diagonal = operand_def(IntType)
    result = result_def(ValueTensorType)


@torch_op
class AtenTrilOp(TriangleOp):
    """`torch.tril(x, diagonal=0)`: the elements on and below the `diagonal`-th diagonal."""

    name = "torch.aten.tril"
    SCHEMA = "aten::tril(Tensor self, int diagonal=0) -> Tensor"
    PY_NAMES = ("torch.tril", "Tensor.tril")
    SAMPLES = (Sample(Tn((4, 5))), Sample(Tn((2, 3, 3), "bool"), -1), Sample(Tn((3, 4)), 2))
    UPPER = False
    self_ = operand_def(ValueTensorType)
    diagonal = operand_def(IntType)
    result = result_def(ValueTensorType)


OPS = (AtenTriuOp, AtenTrilOp)
