"""Clamping and the piecewise-linear activations built like it: clamp (Scalar and Tensor
bounds), clamp_min / clamp_max, hardtanh, hardswish, hardsigmoid, softshrink, hardshrink and
threshold.

Ops whose `torch.nn.functional` function takes an `inplace` argument that the ATen op does not
(`F.elu(input, alpha, inplace)` against `aten::elu(self, alpha, scale, input_scale)`) are
spelled `torch.<name>` only; `F.<name>` is then frontend.torch's Python function of the same
signature (frontend/torch/nn/activation_functions.py), which calls the op. The formulas
follow PyTorch's CPU kernels, NaN included.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import DType
from dialects.torch.families import ElementwiseOp, ScalarOperand, UnaryOp
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.activations import SAMPLE_F32, _FloatKernel
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import NoneType, ValueTensorType


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


@torch_op
class AtenHardtanhOp(ElementwiseOp):
    """x clamped to [min_val, max_val], in x's dtype (integers too; bool is refused)
    (`F.hardtanh`, and `F.relu6` with [0, 6])."""

    name = "torch.aten.hardtanh"
    SCHEMA = "aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor"
    PY_NAMES = ("torch.hardtanh",)
    DTYPE_ARGS = ("self",)
    SAMPLES = (SAMPLE_F32, Sample(Tn((6,), "int64", -9, 9), 0, 6))
    self_ = operand_def(ValueTensorType)
    min_val = operand_def(ScalarOperand)
    max_val = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        dtype = super().compute_dtype(args)
        if dtype is not None and dtype.is_bool:
            raise TypeError("Bool inputs not supported for hardtanh")
        return dtype

    @staticmethod
    def eager(x: Any, min_val: Any = -1, max_val: Any = 1) -> Any:
        return np.minimum(np.maximum(x, min_val), max_val)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, low: SSAValue, high: SSAValue) -> SSAValue:
        return b.minimum(b.maximum(x, low), high)


def relu6_of_shifted(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    """`min(max(x + 3, 0), 6)`, NaN kept."""
    shifted = b.add(x, b.const(3.0, x))
    return b.minimum(b.maximum(shifted, b.const(0.0, x)), b.const(6.0, x))


@torch_op
class AtenHardswishOp(_FloatKernel, UnaryOp):
    """`x * relu6(x + 3) / 6` (`F.hardswish`)."""

    name = "torch.aten.hardswish"
    SCHEMA = "aten::hardswish(Tensor self) -> Tensor"
    PY_NAMES = ("torch.hardswish",)
    KERNEL = "hardswish_cpu"
    SAMPLES = (SAMPLE_F32,)

    @staticmethod
    def eager(x: Any) -> Any:
        return x * np.minimum(np.maximum(x + 3, 0), 6) / 6

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.div(b.mul(x, relu6_of_shifted(b, x)), b.const(6.0, x))


@torch_op
class AtenHardsigmoidOp(_FloatKernel, UnaryOp):
    """`relu6(x + 3) / 6` (`F.hardsigmoid`)."""

    name = "torch.aten.hardsigmoid"
    SCHEMA = "aten::hardsigmoid(Tensor self) -> Tensor"
    PY_NAMES = ("torch.hardsigmoid",)
    KERNEL = "hardsigmoid_cpu"
    SAMPLES = (SAMPLE_F32,)

    @staticmethod
    def eager(x: Any) -> Any:
        return np.minimum(np.maximum(x + 3, 0), 6) / 6

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.div(relu6_of_shifted(b, x), b.const(6.0, x))


class _Shrink(_FloatKernel, ElementwiseOp):
    """`lambd` must be a number >= 0 (checked when known while scripting)."""

    DTYPE_ARGS = ("self",)
    self_ = operand_def(ValueTensorType)
    lambd = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        lambd = cls.named_args(args).get("lambd")
        if isinstance(lambd, int | float) and lambd < 0:
            raise TypeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
        return super().compute_dtype(args)


@torch_op
class AtenSoftshrinkOp(_Shrink):
    """`x - lambd` above lambd, `x + lambd` below -lambd, 0 between (`F.softshrink`)."""

    name = "torch.aten.softshrink"
    SCHEMA = "aten::softshrink(Tensor self, Scalar lambd=0.5) -> Tensor"
    PY_NAMES = ("F.softshrink",)
    KERNEL = "softshrink_check"
    SAMPLES = (SAMPLE_F32, Sample(Tn((5,), "float64"), 1.0))

    @staticmethod
    def eager(x: Any, lambd: Any = 0.5) -> Any:
        return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, x * 0))

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, lambd: SSAValue) -> SSAValue:
        inner = b.select(b.cmp("lt", x, b.neg(lambd)), b.add(x, lambd), b.mul(x, b.const(0, x)))
        return b.select(b.cmp("gt", x, lambd), b.sub(x, lambd), inner)


@torch_op
class AtenHardshrinkOp(_Shrink):
    """x, except 0 in [-lambd, lambd] (`torch.hardshrink`, `F.hardshrink`)."""

    name = "torch.aten.hardshrink"
    SCHEMA = "aten::hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor"
    PY_NAMES = ("torch.hardshrink", "Tensor.hardshrink", "F.hardshrink")
    KERNEL = "hardshrink_cpu"
    SAMPLES = (SAMPLE_F32,)

    @staticmethod
    def eager(x: Any, lambd: Any = 0.5) -> Any:
        return np.where((x >= -lambd) & (x <= lambd), 0, x)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, lambd: SSAValue) -> SSAValue:
        inside = b.and_(b.cmp("ge", x, b.neg(lambd)), b.cmp("le", x, lambd))
        return b.select(inside, b.const(0, x), x)


@torch_op
class AtenThresholdOp(ElementwiseOp):
    """`value` where `x <= threshold`, else x; integers too (`torch.threshold`, `F.threshold`)."""

    name = "torch.aten.threshold"
    SCHEMA = "aten::threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor"
    PY_NAMES = ("torch.threshold",)
    DTYPE_ARGS = ("self",)
    REJECTS = ("bool",)
    SAMPLES = (Sample(Tn((3, 4)), 0.5, -3.0), Sample(Tn((6,), "int32", -5, 5), 1, 9))
    self_ = operand_def(ValueTensorType)
    threshold = operand_def(ScalarOperand)
    value = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, threshold: Any, value: Any) -> Any:
        return np.where(x <= threshold, value, x)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, threshold: SSAValue, value: SSAValue) -> SSAValue:
        return b.select(b.cmp("le", x, threshold), value, x)


OPS = (
    AtenClampOp,
    AtenClampTensorOp,
    AtenClampMinOp,
    AtenClampMaxOp,
    AtenHardtanhOp,
    AtenHardswishOp,
    AtenHardsigmoidOp,
    AtenSoftshrinkOp,
    AtenHardshrinkOp,
    AtenThresholdOp,
)
