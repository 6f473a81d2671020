"""Activations: relu, sigmoid, gelu (erf and tanh forms), silu, leaky_relu, softplus, the elu
family (elu, selu, celu), mish, log_sigmoid, prelu and glu. The clamp-like, piecewise-linear
ones (hardtanh, hardswish, the shrinks, threshold) are `clamping.py`.

Ops whose `torch.nn.functional` function takes an `inplace` argument that the ATen op does not
(`F.elu(input, alpha, inplace)` against `aten::elu(self, alpha, scale, input_scale)`) are
spelled `torch.<name>` only; `F.<name>` is then frontend.torch's Python function of the same
signature (frontend/torch/nn/activation_functions.py), which calls the op. The formulas
follow PyTorch's CPU kernels, NaN included.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import DType
from dialects.torch.families import (
    ElementwiseOp,
    ScalarOperand,
    UnaryOp,
)
from dialects.torch.meta import ShapeError, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import UNARY_SAMPLES
from dialects.torch.ops.math_functions import TORCH_TYPE_NAMES, float_only
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN, IntType, StrType, ValueTensorType


@torch_op
class AtenReluOp(UnaryOp):
    """`max(self, 0)`, NaN kept (`torch.relu`)."""

    name = "torch.aten.relu"
    SCHEMA = "aten::relu(Tensor self) -> Tensor"
    PY_NAMES = ("torch.relu", "Tensor.relu", "F.relu")
    REJECTS = ("bool",)
    SAMPLES = UNARY_SAMPLES

    @staticmethod
    def eager(x: Any) -> Any:
        return np.where(x > 0, x, np.zeros_like(x)) if x.dtype.kind != "f" else np.maximum(x, 0)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.maximum(x, b.const(0, x))


@torch_op
class AtenSigmoidOp(UnaryOp):
    """`1 / (1 + exp(-self))`; integers give float32 (`torch.sigmoid`)."""

    name = "torch.aten.sigmoid"
    SCHEMA = "aten::sigmoid(Tensor self) -> Tensor"
    PY_NAMES = ("torch.sigmoid", "Tensor.sigmoid", "F.sigmoid", "torch.special.expit")
    FLOAT_RESULT = True
    SAMPLES = (*UNARY_SAMPLES, Sample(Tn((4,), "bool")))

    @staticmethod
    def eager(x: Any) -> Any:
        with np.errstate(over="ignore"):
            return 1 / (1 + np.exp(-x))

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        one = b.const(1, x)
        return b.div(one, b.add(one, b.exp(b.neg(x))))


FLOAT_SAMPLES = (Sample(Tn((3, 4), low=-4.0, high=4.0)), Sample(Tn((2, 5), "float64", -4.0, 4.0)))


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


SAMPLE_F32 = Sample(Tn((3, 4), low=-4.0, high=4.0))


SAMPLE_F64 = Sample(Tn((5,), "float64", -4.0, 4.0))


SELU_ALPHA = 1.6732632423543772848170429916717


SELU_SCALE = 1.0507009873554804934193349852946


class _FloatKernel:
    """Floating point inputs only, refused with the message of torch's `KERNEL` ("elu_cpu")."""

    KERNEL: ClassVar[str]

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        return float_only(cls.KERNEL, super().compute_dtype(args))  # type: ignore[misc]


def softplus_of(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    """`log1p(exp(x))` (the caller bounds x where it matters)."""
    return b.log1p(b.exp(x))


@torch_op
class AtenSoftplusOp(_FloatKernel, ElementwiseOp):
    """`log(1 + exp(beta * x)) / beta`, and x itself where `beta * x > threshold`
    (`F.softplus`)."""

    name = "torch.aten.softplus"
    SCHEMA = "aten::softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor"
    PY_NAMES = ("F.softplus",)
    KERNEL = "softplus_cpu"
    DTYPE_ARGS = ("self",)
    SAMPLES = (Sample(Tn((3, 4), low=-30.0, high=30.0)), Sample(Tn((5,), "float64"), 2.0, 3.0))
    self_ = operand_def(ValueTensorType)
    beta = operand_def(ScalarOperand)
    threshold = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, beta: Any = 1, threshold: Any = 20) -> Any:
        scaled = x * beta
        with np.errstate(over="ignore"):
            return np.where(scaled > threshold, x, np.log1p(np.exp(scaled)) / beta)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, beta: SSAValue, threshold: SSAValue) -> SSAValue:
        scaled = b.mul(x, beta)
        smooth = b.div(softplus_of(b, scaled), beta)
        return b.select(b.cmp("gt", scaled, threshold), x, smooth)


def elu(x: Any, alpha: float, scale: float, input_scale: float) -> Any:
    """torch's elu: `scale * x` above 0, `alpha * scale * expm1(input_scale * x)` elsewhere."""
    with np.errstate(over="ignore", invalid="ignore"):
        negative = np.expm1(x * input_scale) * (alpha * scale)
    return np.where(x > 0, x * scale, negative)


def elu_payload(
    b: ScalarBuilder, x: SSAValue, alpha: SSAValue, scale: SSAValue, input_scale: SSAValue
) -> SSAValue:
    negative = b.mul(b.expm1(b.mul(x, input_scale)), b.mul(alpha, scale))
    return b.select(b.cmp("gt", x, b.const(0.0, x)), b.mul(x, scale), negative)


@torch_op
class AtenEluOp(_FloatKernel, ElementwiseOp):
    """Exponential linear unit (`F.elu(x, alpha)` is `torch.elu(x, alpha)`)."""

    name = "torch.aten.elu"
    SCHEMA = ("aten::elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) "
              "-> Tensor")  # fmt: skip
    PY_NAMES = ("torch.elu",)
    KERNEL = "elu_cpu"
    DTYPE_ARGS = ("self",)
    SAMPLES = (SAMPLE_F32, Sample(Tn((5,), "float64", -4.0, 4.0), 0.5, 2.0, 1.5))
    self_ = operand_def(ValueTensorType)
    alpha = operand_def(ScalarOperand)
    scale = operand_def(ScalarOperand)
    input_scale = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, alpha: Any = 1, scale: Any = 1, input_scale: Any = 1) -> Any:
        return elu(x, alpha, scale, input_scale)

    payload = staticmethod(elu_payload)


@torch_op
class AtenSeluOp(_FloatKernel, UnaryOp):
    """Scaled elu with the self-normalizing constants (`torch.selu`, `F.selu`)."""

    name = "torch.aten.selu"
    SCHEMA = "aten::selu(Tensor self) -> Tensor"
    PY_NAMES = ("torch.selu",)
    KERNEL = "elu_cpu"
    SAMPLES = (SAMPLE_F32,)

    @staticmethod
    def eager(x: Any) -> Any:
        return elu(x, SELU_ALPHA, SELU_SCALE, 1.0)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return elu_payload(b, x, b.const(SELU_ALPHA, x), b.const(SELU_SCALE, x), b.const(1.0, x))


@torch_op
class AtenCeluOp(_FloatKernel, ElementwiseOp):
    """`max(0, x) + min(0, alpha * expm1(x / alpha))` (`torch.celu`, `F.celu`)."""

    name = "torch.aten.celu"
    SCHEMA = "aten::celu(Tensor self, Scalar alpha=1.0) -> Tensor"
    PY_NAMES = ("torch.celu",)
    KERNEL = "elu_cpu"
    DTYPE_ARGS = ("self",)
    SAMPLES = (Sample(Tn((3, 4), low=-4.0, high=4.0), 0.5),)
    self_ = operand_def(ValueTensorType)
    alpha = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, alpha: Any = 1.0) -> Any:
        return elu(x, alpha, 1.0, 1.0 / alpha)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, alpha: SSAValue) -> SSAValue:
        one = b.const(1.0, x)
        return elu_payload(b, x, alpha, one, b.div(one, alpha))


@torch_op
class AtenMishOp(_FloatKernel, UnaryOp):
    """`x * tanh(log1p(exp(x)))` (`F.mish`)."""

    name = "torch.aten.mish"
    SCHEMA = "aten::mish(Tensor self) -> Tensor"
    PY_NAMES = ("torch.mish",)
    KERNEL = "mish_cpu"
    SAMPLES = (Sample(Tn((3, 4), low=-30.0, high=30.0)),)

    @staticmethod
    def eager(x: Any) -> Any:
        with np.errstate(over="ignore"):
            return x * np.tanh(np.log1p(np.exp(x)))

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.mul(x, b.tanh(softplus_of(b, x)))


@torch_op
class AtenLogSigmoidOp(_FloatKernel, UnaryOp):
    """`log(sigmoid(x))` as `min(x, 0) - log1p(exp(-|x|))`, exact for large |x|
    (`F.logsigmoid`)."""

    name = "torch.aten.log_sigmoid"
    SCHEMA = "aten::log_sigmoid(Tensor self) -> Tensor"
    PY_NAMES = ("F.logsigmoid",)
    KERNEL = "log_sigmoid_cpu"
    SAMPLES = (Sample(Tn((3, 4), low=-30.0, high=30.0)), SAMPLE_F64)

    @staticmethod
    def eager(x: Any) -> Any:
        return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        tail = b.log1p(b.exp(b.neg(b.abs(x))))
        return b.sub(b.minimum(x, b.const(0.0, x)), tail)


@torch_op
class AtenPreluOp(TorchOp):
    """`x` where positive, else `weight * x`, with one weight, or one per channel (dim 1)
    (`F.prelu`, `torch.prelu`). Decomposed: the weight reshaped to broadcast along dim 1,
    then `where(x > 0, x, x * weight)`."""

    name = "torch.aten.prelu"
    SCHEMA = "aten::prelu(Tensor self, Tensor weight) -> Tensor"
    PY_NAMES = ("torch.prelu", "Tensor.prelu", "F.prelu")
    SAMPLES = (Sample(Tn((2, 3, 4)), Tn((3,))), Sample(Tn((5,), "float64"), Tn((1,), "float64")))
    self_ = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, weight = args
        float_only("prelu_cpu", x.dtype)
        if None not in (x.dtype, weight.dtype) and x.dtype != weight.dtype:
            raise TypeError(
                "prelu: Type promoting not supported. Got "
                f"{TORCH_TYPE_NAMES[x.dtype.name]} and {TORCH_TYPE_NAMES[weight.dtype.name]}"
            )
        if weight.rank is not None and weight.rank > 1:
            raise ShapeError(
                f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = "
                f"{weight.rank}"
            )
        count = 1 if weight.rank == 0 else (weight.shape[0] if weight.shape else DYN)
        channels = DYN if x.shape is None else (x.shape[1] if len(x.shape) >= 2 else 1)
        if DYN not in (count, channels) and count not in (1, channels):
            raise ShapeError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {count} and channel size = {channels}."
            )
        return [ValueTensorType(x.shape, x.dtype)]

    @staticmethod
    def eager(x: Any, weight: Any) -> Any:
        shape = [-1] + [1] * (x.ndim - 2) if x.ndim >= 2 else []
        w = weight.reshape(shape).astype(x.dtype)
        return np.where(x > 0, x, x * w)

    def decompose(self) -> Any:
        from dialects.torch.ops.arithmetic import AtenMulTensorOp
        from dialects.torch.ops.comparison import AtenGtScalarOp
        from dialects.torch.ops.logical import AtenWhereSelfOp
        from dialects.torch.ops.views import AtenReshapeOp

        x, weight = self.operands
        rank = x.type.rank  # type: ignore[attr-defined]
        seq = OpSequence()
        shape = [-1] + [1] * (rank - 2) if rank >= 2 else []
        channel_weight = seq.call(AtenReshapeOp, weight, shape)
        scaled = seq.call(AtenMulTensorOp, x, channel_weight)
        seq.call(AtenWhereSelfOp, seq.call(AtenGtScalarOp, x, 0), x, scaled)
        return seq.ops


@torch_op
class AtenGluOp(TorchOp):
    """Gated linear unit: the first half of x along `dim` times the sigmoid of the second
    half (`F.glu`). Decomposed into two slices, sigmoid and mul."""

    name = "torch.aten.glu"
    SCHEMA = "aten::glu(Tensor self, int dim=-1) -> Tensor"
    PY_NAMES = ("F.glu",)
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((4, 2, 3), "float64"), 0))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim = args
        float_only("glu_cpu", x.dtype)
        if not isinstance(dim, int):
            raise TypeError("glu: `dim` must be an int known while scripting")
        if x.shape is None:
            return [ValueTensorType(None, x.dtype)]
        if not x.shape:
            raise ShapeError("glu does not support scalars because halving size must be even")
        axis = normalize_dim(dim, len(x.shape))
        size = x.shape[axis]
        if size != DYN and size % 2:
            raise ShapeError(f"Halving dimension must be even, but dimension {axis} is size {size}")
        shape = list(x.shape)
        shape[axis] = DYN if size == DYN else size // 2
        return [ValueTensorType(tuple(shape), x.dtype)]

    @staticmethod
    def eager(x: Any, dim: int = -1) -> Any:
        first, second = np.split(x, 2, axis=dim)
        with np.errstate(over="ignore"):
            return first / (1 + np.exp(-second))

    def decompose(self) -> Any:
        from dialects.torch.ops.arithmetic import AtenMulTensorOp
        from dialects.torch.ops.data_movement import AtenSliceTensorOp
        from dialects.torch.ops.scalars import AtenFloordivIntOp

        x = self.operands[0]
        rank = x.type.rank  # type: ignore[attr-defined]
        axis = normalize_dim(self.arg_values()[1], rank)
        seq = OpSequence()
        size = seq.size(x, axis)
        half = size // 2 if isinstance(size, int) else seq.call(AtenFloordivIntOp, size, 2)
        first = seq.call(AtenSliceTensorOp, x, axis, 0, half, 1)
        second = seq.call(AtenSliceTensorOp, x, axis, half, None, 1)
        seq.call(AtenMulTensorOp, first, seq.call(AtenSigmoidOp, second))
        return seq.ops


OPS = (
    AtenReluOp,
    AtenSigmoidOp,
    AtenGeluOp,
    AtenSiluOp,
    AtenLeakyReluOp,
    AtenSoftplusOp,
    AtenEluOp,
    AtenSeluOp,
    AtenCeluOp,
    AtenMishOp,
    AtenLogSigmoidOp,
    AtenPreluOp,
    AtenGluOp,
)
