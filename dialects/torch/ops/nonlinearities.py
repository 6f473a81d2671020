"""Non-linear activations beyond activations.py: softplus, the elu family (elu, selu, celu),
hardtanh, hardswish, hardsigmoid, mish, log_sigmoid, softshrink, hardshrink, threshold
(elementwise, from their payloads), and prelu and glu (decomposed into core ops).

Ops whose `torch.nn.functional` function takes an `inplace` argument that the ATen op does not
(`F.elu(input, alpha, inplace)` against `aten::elu(self, alpha, scale, input_scale)`) are
spelled `torch.<name>` only; `F.<name>` is then frontend.torch's Python function of the same
signature (frontend/torch/nn/activation_functions.py), which calls the op. The formulas
follow PyTorch's CPU kernels, NaN included.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import DType
from dialects.torch.families import ElementwiseOp, ScalarOperand, UnaryOp
from dialects.torch.meta import ShapeError, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.math_functions import TORCH_TYPE_NAMES, float_only
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN, IntType, ValueTensorType

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


# ---- softplus ----


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


# ---- elu, selu, celu ----


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


# ---- hardtanh, hardswish, hardsigmoid ----


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


# ---- mish, log_sigmoid ----


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


# ---- shrink, threshold ----


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


# ---- prelu, glu: decomposed ----


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
        from dialects.torch.ops.elementwise import AtenGtScalarOp, AtenMulTensorOp
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
        from dialects.torch.ops.data_movement import AtenSliceTensorOp
        from dialects.torch.ops.elementwise import AtenMulTensorOp, AtenSigmoidOp
        from dialects.torch.ops.scalar import AtenFloordivIntOp

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
    AtenSoftplusOp, AtenEluOp, AtenSeluOp, AtenCeluOp,
    AtenHardtanhOp, AtenHardswishOp, AtenHardsigmoidOp, AtenMishOp, AtenLogSigmoidOp,
    AtenSoftshrinkOp, AtenHardshrinkOp, AtenThresholdOp, AtenPreluOp, AtenGluOp,
)  # fmt: skip
