"""`torch.special` functions that are not aliases of `torch.*` ops: `ndtr` (the standard normal
distribution function, `0.5 * erfc(-x / sqrt(2))` as torch computes it) and `xlog1py`
(`x * log1p(y)`, 0 where x is 0)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from xdsl.ir import SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.families import BinaryOp, ElementwiseOp, ScalarOperand, UnaryOp
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.binary_math import x_times_log
from dialects.torch.ops.special_functions import AtenErfcOp
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import ValueTensorType

_ERFC = np.vectorize(math.erfc, otypes=[np.float64])


@torch_op
class AtenSpecialNdtrOp(UnaryOp):
    """`torch.special.ndtr(x)`: P(N(0, 1) <= x), accurate in both tails (erfc's continued
    fraction); integers give float32."""

    name = "torch.aten.special_ndtr"
    SCHEMA = "aten::special_ndtr(Tensor self) -> Tensor"
    PY_NAMES = ("torch.special.ndtr",)
    FLOAT_RESULT = True
    SAMPLES = (Sample(Tn((3, 4), low=-9.0, high=9.0)),)

    @staticmethod
    def eager(x: Any) -> Any:
        return (0.5 * _ERFC(-x.astype(np.float64) * math.sqrt(0.5))).astype(x.dtype)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        erfc = AtenErfcOp.payload(b, b.mul(x, b.const(-math.sqrt(0.5), x)))
        return b.mul(b.const(0.5, x), erfc)


def xlog1py(x: Any, y: Any) -> Any:
    """torch's xlog1py: NaN where y is NaN, else 0 where x is 0, else x * log1p(y)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.isnan(y), np.nan, np.where(x == 0, 0.0, x * np.log1p(y)))


class _Xlog1py:
    PY_NAMES = ("torch.special.xlog1py",)
    FLOAT_RESULT = True

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        return xlog1py(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        return x_times_log(b, x, b.log1p(y), y)


@torch_op
class AtenSpecialXlog1pyOp(_Xlog1py, BinaryOp):
    """`x * log1p(y)`, 0 where x is 0 (unless y is NaN); integers give float32
    (`torch.special.xlog1py`)."""

    name = "torch.aten.special_xlog1py"
    SCHEMA = "aten::special_xlog1py(Tensor self, Tensor other) -> Tensor"
    SAMPLES = (Sample(Tn((3, 4), "int64", -1, 3), Tn((4,), low=-0.9, high=3.0)),)


@torch_op
class AtenSpecialXlog1pyOtherScalarOp(_Xlog1py, ElementwiseOp):
    """`x * log1p(y)` for a Python number y."""

    name = "torch.aten.special_xlog1py.other_scalar"
    SCHEMA = "aten::special_xlog1py.other_scalar(Tensor self, Scalar other) -> Tensor"
    SAMPLES = (Sample(Tn((3, 4)), 0.5),)
    self_ = operand_def(ValueTensorType)
    other = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


OPS = (AtenSpecialNdtrOp, AtenSpecialXlog1pyOp, AtenSpecialXlog1pyOtherScalarOp)
