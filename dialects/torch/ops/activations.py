"""Activations and clamping: gelu (erf and tanh forms), silu, leaky_relu, clamp (Scalar and
Tensor bounds), clamp_min, clamp_max."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from xdsl.ir import SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import DType
from dialects.torch.families import ElementwiseOp, ScalarOperand, UnaryOp
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import NoneType, StrType, ValueTensorType

FLOAT_SAMPLES = (Sample(Tn((3, 4), low=-4.0, high=4.0)), Sample(Tn((2, 5), "float64", -4.0, 4.0)))

# ---- gelu ----

GELU_TANH_SCALE = math.sqrt(2.0 / math.pi)  # torch's kBeta = M_SQRT2 * M_2_SQRTPI * 0.5
GELU_TANH_CUBIC = 0.044715
_ERF = np.vectorize(math.erf, otypes=[np.float64])


def gelu(x: Any, approximate: str) -> Any:
    """torch's formulas, evaluated in float64 and rounded to x's dtype."""
    wide = x.astype(np.float64)
    if approximate == "tanh":
        inner = GELU_TANH_SCALE * (wide + GELU_TANH_CUBIC * wide**3)
        out = 0.5 * wide * (1.0 + np.tanh(inner))
    else:
        out = 0.5 * wide * (1.0 + (_ERF(wide * math.sqrt(0.5)) if wide.size else wide))
    return out.astype(x.dtype)


@torch_op
class AtenGeluOp(ElementwiseOp):
    """`x * Φ(x)` with the exact erf form (`approximate="none"`) or the tanh approximation
    (`approximate="tanh"`); floating point inputs only (`F.gelu`)."""

    name = "torch.aten.gelu"
    SCHEMA = 'aten::gelu(Tensor self, *, str approximate="none") -> Tensor'
    PY_NAMES = ("F.gelu",)
    DTYPE_ARGS = ("self",)
    STATIC_ARGS = ("approximate",)
    REJECTS = ("bool", "int")
    SAMPLES = (*FLOAT_SAMPLES, Sample(Tn((3, 4), low=-4.0, high=4.0), approximate="tanh"),
               Sample(Tn((6,), "float64", -4.0, 4.0), approximate="tanh"))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    approximate = operand_def(StrType)
    result = result_def(ValueTensorType)

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        approximate = cls.static_arg(args, "approximate")
        if approximate not in ("none", "tanh"):
            raise TypeError(
                f"approximate argument must be either none or tanh, not {approximate!r}"
            )
        return super().compute_dtype(args)

    @staticmethod
    def eager(x: Any, approximate: str = "none") -> Any:
        return gelu(x, approximate)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, approximate: str) -> SSAValue:
        half_x = b.mul(b.const(0.5, x), x)
        if approximate == "tanh":
            cube = b.mul(b.mul(x, x), x)
            inner = b.add(x, b.mul(b.const(GELU_TANH_CUBIC, x), cube))
            phi = b.tanh(b.mul(b.const(GELU_TANH_SCALE, x), inner))
        else:
            phi = b.erf(b.mul(x, b.const(math.sqrt(0.5), x)))
        return b.mul(half_x, b.add(b.const(1.0, x), phi))


# ---- silu, leaky_relu ----


@torch_op
class AtenSiluOp(UnaryOp):
    """`x * sigmoid(x)`, computed as `x / (1 + exp(-x))` like torch (`F.silu`, which is
    frontend/torch/nn/activation_functions.py: it takes `inplace`)."""

    name = "torch.aten.silu"
    SCHEMA = "aten::silu(Tensor self) -> Tensor"
    PY_NAMES = ("torch.silu",)
    REJECTS = ("bool", "int")
    SAMPLES = FLOAT_SAMPLES

    @staticmethod
    def eager(x: Any) -> Any:
        with np.errstate(over="ignore"):
            return x / (1 + np.exp(-x))

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.div(x, b.add(b.const(1, x), b.exp(b.neg(x))))


@torch_op
class AtenLeakyReluOp(ElementwiseOp):
    """`x` where positive, else `negative_slope * x` (`F.leaky_relu`, which is
    frontend/torch/nn/activation_functions.py: it takes `inplace`)."""

    name = "torch.aten.leaky_relu"
    SCHEMA = "aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor"
    PY_NAMES = ("torch.leaky_relu",)
    DTYPE_ARGS = ("self",)
    REJECTS = ("bool", "int")
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((5,), "float64"), 0.2))
    self_ = operand_def(ValueTensorType)
    negative_slope = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, negative_slope: Any = 0.01) -> Any:
        return np.where(x > 0, x, x * negative_slope)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, slope: SSAValue) -> SSAValue:
        return b.select(b.cmp("gt", x, b.const(0, x)), x, b.mul(x, slope))


# ---- clamp ----


def clamp(x: Any, low: Any, high: Any) -> Any:
    """`min(max(x, low), high)`: NaN in x stays NaN, and low > high gives high (torch)."""
    out = x if low is None else np.maximum(x, low)
    return out if high is None else np.minimum(out, high)


def clamp_payload(
    b: ScalarBuilder, x: SSAValue, low: SSAValue | None, high: SSAValue | None
) -> SSAValue:
    out = x if low is None else b.maximum(x, low)
    return out if high is None else b.minimum(out, high)


class _Clamp:
    PY_NAMES = ("torch.clamp", "Tensor.clamp", "torch.clip", "Tensor.clip", "np.clip")
    DTYPE_ARGS = ("self", "min", "max")

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        named = cls.named_args(args)  # type: ignore[attr-defined]
        if named.get("min") is None and named.get("max") is None:
            raise TypeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return super().compute_dtype(args)  # type: ignore[misc]

    @staticmethod
    def eager(x: Any, low: Any = None, high: Any = None) -> Any:
        return clamp(x, low, high)

    @staticmethod
    def payload(
        b: ScalarBuilder, x: SSAValue, low: SSAValue | None, high: SSAValue | None
    ) -> SSAValue:
        return clamp_payload(b, x, low, high)


@torch_op
class AtenClampOp(_Clamp, ElementwiseOp):
    """`self` limited to [min, max] for Python-number bounds, either may be None; the bounds
    take part in type promotion (`torch.clamp(int_tensor, 0.5)` is float32)."""

    name = "torch.aten.clamp"
    SCHEMA = "aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor"
    SAMPLES = (
        Sample(Tn((3, 4)), -0.5, 0.5),
        Sample(Tn((6,), "int64", -5, 5), None, 2),
        Sample(Tn((6,), "int32", -5, 5), min=0.5),
        Sample(Tn((4,), "float64"), 1.0, -1.0),
    )
    self_ = operand_def(ValueTensorType)
    min = operand_def(ScalarOperand | NoneType)
    max = operand_def(ScalarOperand | NoneType)
    result = result_def(ValueTensorType)


@torch_op
class AtenClampTensorOp(_Clamp, ElementwiseOp):
    """`self` limited by broadcast tensor bounds, either may be None (`torch.clamp(x, lo, hi)`)."""

    name = "torch.aten.clamp.Tensor"
    SCHEMA = "aten::clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor"
    SAMPLES = (
        Sample(Tn((3, 4)), Tn((4,), low=-2, high=0), Tn((3, 1), low=0, high=2)),
        Sample(Tn((5,), "int64", -5, 5), None, Tn((5,), "float32")),
    )
    self_ = operand_def(ValueTensorType)
    min = operand_def(ValueTensorType | NoneType)
    max = operand_def(ValueTensorType | NoneType)
    result = result_def(ValueTensorType)


@torch_op
class AtenClampMinOp(ElementwiseOp):
    """`max(self, min)` for a Python number (`torch.clamp_min`)."""

    name = "torch.aten.clamp_min"
    SCHEMA = "aten::clamp_min(Tensor self, Scalar min) -> Tensor"
    PY_NAMES = ("torch.clamp_min", "Tensor.clamp_min")
    DTYPE_ARGS = ("self", "min")
    SAMPLES = (Sample(Tn((3, 4)), 0.25), Sample(Tn((5,), "int64"), 0))
    self_ = operand_def(ValueTensorType)
    min = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, low: Any) -> Any:
        return clamp(x, low, None)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, low: SSAValue) -> SSAValue:
        return clamp_payload(b, x, low, None)


@torch_op
class AtenClampMaxOp(ElementwiseOp):
    """`min(self, max)` for a Python number (`torch.clamp_max`)."""

    name = "torch.aten.clamp_max"
    SCHEMA = "aten::clamp_max(Tensor self, Scalar max) -> Tensor"
    PY_NAMES = ("torch.clamp_max", "Tensor.clamp_max")
    DTYPE_ARGS = ("self", "max")
    SAMPLES = (Sample(Tn((3, 4)), 0.25), Sample(Tn((5,), "int32"), 1.5))
    self_ = operand_def(ValueTensorType)
    max = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, high: Any) -> Any:
        return clamp(x, None, high)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, high: SSAValue) -> SSAValue:
        return clamp_payload(b, x, None, high)


OPS = (
    AtenGeluOp, AtenSiluOp, AtenLeakyReluOp,
    AtenClampOp, AtenClampTensorOp, AtenClampMinOp, AtenClampMaxOp,
)  # fmt: skip
