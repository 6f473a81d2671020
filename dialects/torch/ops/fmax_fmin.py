"""`torch.fmax` / `torch.fmin`: the elementwise max / min that ignores NaN (NaN only where both
inputs are NaN), unlike `maximum` / `minimum`, which propagate it."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.ir import SSAValue

from dialects.torch.dtypes import is_float_attr
from dialects.torch.families import BinaryOp
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.scalar_builder import ScalarBuilder

SAMPLES = (Sample(Tn((3, 4)), Tn((4,))), Sample(Tn((5,), "int64", -9, 9), Tn((5,), "int32", -9, 9)))


@torch_op
class AtenFmaxOp(BinaryOp):
    """NaN-ignoring elementwise max, broadcast and promoted (`torch.fmax`, `x.fmax(y)`)."""

    name = "torch.aten.fmax"
    SCHEMA = "aten::fmax(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("torch.fmax", "Tensor.fmax", "np.fmax")
    SAMPLES = SAMPLES[1:]

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        return np.fmax(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        if is_float_attr(x.type):
            return b.emit(arith.MaxnumfOp(x, y))
        return b.maximum(x, y)


@torch_op
class AtenFminOp(BinaryOp):
    """NaN-ignoring elementwise min, broadcast and promoted (`torch.fmin`, `x.fmin(y)`)."""

    name = "torch.aten.fmin"
    SCHEMA = "aten::fmin(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("torch.fmin", "Tensor.fmin", "np.fmin")
    SAMPLES = SAMPLES[:1]

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        return np.fmin(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        if is_float_attr(x.type):
            return b.emit(arith.MinnumfOp(x, y))
        return b.minimum(x, y)


OPS = (AtenFmaxOp, AtenFminOp)
