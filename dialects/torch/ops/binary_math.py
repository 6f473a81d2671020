"""Binary math: atan2, hypot, fmod and remainder (Tensor and Scalar), copysign, float_power
(three forms), logaddexp and xlogy, each lowered from its `payload` with torch's broadcasting
and type promotion. (lerp, addcmul and addcdiv: blends.py.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import arith, math
from xdsl.ir import SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import FLOAT64, DType
from dialects.torch.families import BinaryOp, BinaryScalarOp, ElementwiseOp, ScalarOperand
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.math_functions import float_only
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import ValueTensorType

FLOAT_PAIR = Sample(Tn((3, 4), low=-3.0, high=3.0), Tn((4,), low=-3.0, high=3.0))


@torch_op
class AtenAtan2Op(BinaryOp):
    """The angle of the point (other, self) in (-pi, pi]; integers give float32
    (`torch.atan2`, `torch.arctan2`)."""

    name = "torch.aten.atan2"
    SCHEMA = "aten::atan2(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("torch.atan2", "Tensor.atan2", "torch.arctan2", "Tensor.arctan2", "np.arctan2")
    FLOAT_RESULT = True
    SAMPLES = (FLOAT_PAIR, Sample(Tn((5,), "int64", -3, 3), Tn((5,), "int32", -3, 3)))

    @staticmethod
    def eager(y: Any, x: Any) -> Any:
        return np.arctan2(y, x)

    @staticmethod
    def payload(b: ScalarBuilder, y: SSAValue, x: SSAValue) -> SSAValue:
        return b.math_fn(math.Atan2Op, y, x)


@torch_op
class AtenHypotOp(BinaryOp):
    """`sqrt(self**2 + other**2)` without overflow: `a * sqrt(1 + (b/a)**2)` for the larger
    magnitude a, and inf when either is infinite (also next to NaN, like C's hypot); floating
    point only (`torch.hypot`)."""

    name = "torch.aten.hypot"
    SCHEMA = "aten::hypot(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("torch.hypot", "Tensor.hypot", "np.hypot")
    SAMPLES = (FLOAT_PAIR, Sample(Tn((5,), "float64", -1e3, 1e3), Tn((5,), "float64")))

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        return float_only("hypot_cpu", super().compute_dtype(args))

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        return np.hypot(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        ax, ay = b.abs(x), b.abs(y)
        large, small = b.maximum(ax, ay), b.minimum(ax, ay)
        ratio = b.div(small, large)
        scaled = b.mul(large, b.sqrt(b.add(b.const(1.0, x), b.mul(ratio, ratio))))
        zero, inf = b.const(0.0, x), b.const(float("inf"), x)
        out = b.select(b.cmp("eq", large, zero), zero, scaled)  # 0/0 in the ratio
        either_inf = b.or_(b.cmp("eq", ax, inf), b.cmp("eq", ay, inf))
        return b.select(either_inf, inf, out)


@torch_op
class AtenLdexpTensorOp(BinaryOp):
    """`self * 2 ** other` (`torch.ldexp`); integers give float32."""

    name = "torch.aten.ldexp.Tensor"
    SCHEMA = "aten::ldexp.Tensor(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("torch.ldexp", "Tensor.ldexp", "np.ldexp")
    FLOAT_RESULT = True
    SAMPLES = (
        Sample(Tn((3, 4)), Tn((4,), "int64", -4, 4)),
        Sample(Tn((5,), "int64", -3, 3), Tn((5,), "float64", -2.0, 2.0)),
    )

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        dtype = np.result_type(x, y)
        dtype = dtype if dtype.kind == "f" else np.float32
        return (x * np.power(np.asarray(2.0, dtype), y.astype(dtype))).astype(dtype)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        return b.mul(x, b.pow(b.const(2.0, y), y))


class _Copysign:
    PY_NAMES = ("torch.copysign", "Tensor.copysign", "np.copysign")
    FLOAT_RESULT = True

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        return np.copysign(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        return b.math_fn(math.CopySignOp, x, y)


@torch_op
class AtenCopysignTensorOp(_Copysign, BinaryOp):
    """The magnitude of self with the sign of other (also of -0.0 and NaN); integers give
    float32 (`torch.copysign`)."""

    name = "torch.aten.copysign.Tensor"
    SCHEMA = "aten::copysign.Tensor(Tensor self, Tensor other) -> Tensor"
    SAMPLES = (FLOAT_PAIR, Sample(Tn((5,), "int64", -3, 3), Tn((5,), "float64")))


@torch_op
class AtenCopysignScalarOp(_Copysign, BinaryScalarOp):
    """The magnitude of self with the sign of a Python number (`torch.copysign(x, -1.0)`)."""

    name = "torch.aten.copysign.Scalar"
    SCHEMA = "aten::copysign.Scalar(Tensor self, Scalar other) -> Tensor"
    SAMPLES = (Sample(Tn((3, 4)), -1.0),)


def c_remainder(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """C's remainder, with x's sign: fmod for floats, `%` truncating for integers."""
    if b.is_float(x):
        return float_fmod(b, x, y)
    return b.emit(arith.RemSIOp(x, y))


def float_fmod(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """`x - trunc(x / y) * y` in float64 (xDSL has no `arith.remf`, libm's fmod is not
    reachable): exact for float32 inputs whose quotient is below 2**29, within an ulp of x for
    float64 ones. A quotient rounded up onto the next integer leaves a remainder of the other
    sign, which one more |y| corrects; x / +-inf is x; x / 0 and inf / y are NaN."""
    wide = FLOAT64.signless_attr
    xw, yw = b.cast(x, wide), b.cast(y, wide)
    rem = b.sub(xw, b.mul(b.trunc(b.div(xw, yw)), yw))
    zero, inf, step = b.const(0.0, wide), b.const(float("inf"), wide), b.abs(yw)
    too_low = b.and_(b.cmp("gt", xw, zero), b.cmp("lt", rem, zero))
    rem = b.select(too_low, b.add(rem, step), rem)
    too_high = b.and_(b.cmp("lt", xw, zero), b.cmp("gt", rem, zero))
    rem = b.select(too_high, b.sub(rem, step), rem)
    finite_by_inf = b.and_(b.cmp("eq", step, inf), b.cmp("lt", b.abs(xw), inf))
    return b.cast(b.select(finite_by_inf, xw, rem), x.type)


class _Fmod:
    PY_NAMES = ("torch.fmod", "Tensor.fmod", "np.fmod")
    REJECTS = ("bool",)

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.fmod(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        return c_remainder(b, x, y)


@torch_op
class AtenFmodTensorOp(_Fmod, BinaryOp):
    """The remainder of `self / other` with the sign of self (C's fmod) (`torch.fmod`)."""

    name = "torch.aten.fmod.Tensor"
    SCHEMA = "aten::fmod.Tensor(Tensor self, Tensor other) -> Tensor"
    SAMPLES = (
        Sample(Tn((3, 4), low=-9.0, high=9.0), Tn((4,), low=0.5, high=3.0)),
        Sample(Tn((6,), "int64", -9, 9), Tn((6,), "int32", 1, 4)),
    )


@torch_op
class AtenFmodScalarOp(_Fmod, BinaryScalarOp):
    """The remainder of `self / other` for a Python number, with the sign of self."""

    name = "torch.aten.fmod.Scalar"
    SCHEMA = "aten::fmod.Scalar(Tensor self, Scalar other) -> Tensor"
    SAMPLES = (Sample(Tn((3, 4), low=-9.0, high=9.0), -1.5),)


class _Remainder:
    PY_NAMES = ("torch.remainder", "Tensor.remainder", "operator.mod", "np.remainder", "np.mod")
    REJECTS = ("bool",)

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.remainder(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        """torch's formula: the C remainder, plus `other` when the two signs differ."""
        rem = c_remainder(b, x, y)
        zero = b.const(0, x)
        signs_differ = b.xor(b.cmp("lt", rem, zero), b.cmp("lt", y, zero))
        return b.select(b.and_(b.cmp("ne", rem, zero), signs_differ), b.add(rem, y), rem)


@torch_op
class AtenRemainderTensorOp(_Remainder, BinaryOp):
    """The remainder of `self / other` with the sign of other, like Python's `%`
    (`torch.remainder`, `x % y`)."""

    name = "torch.aten.remainder.Tensor"
    SCHEMA = "aten::remainder.Tensor(Tensor self, Tensor other) -> Tensor"
    SAMPLES = (
        Sample(Tn((3, 4), low=-9.0, high=9.0), Tn((4,), low=-3.0, high=3.0)),
        Sample(Tn((6,), "int64", -9, 9), Tn((6,), "int64", -4, -1)),
    )


@torch_op
class AtenRemainderScalarOp(_Remainder, BinaryScalarOp):
    """The remainder of `self / other` for a Python number, with the sign of other (`x % 3`)."""

    name = "torch.aten.remainder.Scalar"
    SCHEMA = "aten::remainder.Scalar(Tensor self, Scalar other) -> Tensor"
    SAMPLES = (Sample(Tn((3, 4), low=-9.0, high=9.0), 1.5),
               Sample(Tn((5,), "int32", -9, 9), -4))  # fmt: skip


@torch_op
class AtenRemainderScalarTensorOp(_Remainder, ElementwiseOp):
    """A Python number's remainder by each element, with the element's sign
    (`torch.remainder(2, x)`, `2 % x`)."""

    name = "torch.aten.remainder.Scalar_Tensor"
    SCHEMA = "aten::remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor"
    PY_NAMES = ("torch.remainder",)
    SAMPLES = (Sample(2.5, Tn((3, 4), low=0.5, high=3.0)),)
    self_ = operand_def(ScalarOperand)
    other = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


class _FloatPower:
    """`self ** exponent` computed in float64 whatever the inputs (`torch.float_power`)."""

    PY_NAMES = ("torch.float_power", "Tensor.float_power", "np.float_power")
    DTYPE_ARGS = ("self", "exponent")

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        super().compute_dtype(args)  # type: ignore[misc]
        return FLOAT64

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        with np.errstate(all="ignore"):
            return np.power(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        return b.pow(x, y)


@torch_op
class AtenFloatPowerTensorTensorOp(_FloatPower, ElementwiseOp):
    """`self ** exponent` of two tensors, in float64."""

    name = "torch.aten.float_power.Tensor_Tensor"
    SCHEMA = "aten::float_power.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor"
    SAMPLES = (Sample(Tn((3, 4), low=0.1, high=3.0), Tn((4,), "int64", -2, 3)),)
    self_ = operand_def(ValueTensorType)
    exponent = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenFloatPowerTensorScalarOp(_FloatPower, ElementwiseOp):
    """`self ** exponent` for a Python number exponent, in float64."""

    name = "torch.aten.float_power.Tensor_Scalar"
    SCHEMA = "aten::float_power.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor"
    SAMPLES = (Sample(Tn((3, 4), low=0.1, high=3.0), 2.5), Sample(Tn((5,), "int32", -3, 3), 2))
    self_ = operand_def(ValueTensorType)
    exponent = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenFloatPowerScalarOp(_FloatPower, ElementwiseOp):
    """A Python number to the power of each element, in float64."""

    name = "torch.aten.float_power.Scalar"
    SCHEMA = "aten::float_power.Scalar(Scalar self, Tensor exponent) -> Tensor"
    PY_NAMES = ("torch.float_power",)
    SAMPLES = (Sample(2, Tn((3, 4))),)
    self_ = operand_def(ScalarOperand)
    exponent = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenLogaddexpOp(BinaryOp):
    """`log(exp(self) + exp(other))` without overflow: `max + log1p(exp(-|self - other|))`,
    and self where both are the same infinity; floating point only (`torch.logaddexp`)."""

    name = "torch.aten.logaddexp"
    SCHEMA = "aten::logaddexp(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("torch.logaddexp", "Tensor.logaddexp", "np.logaddexp")
    SAMPLES = (Sample(Tn((3, 4), low=-30.0, high=30.0), Tn((4,), low=-30.0, high=30.0)),)

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        return float_only("logaddexp_cpu", super().compute_dtype(args))

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        return np.logaddexp(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        largest = b.maximum(x, y)
        gap = b.neg(b.abs(b.sub(x, y)))
        out = b.add(largest, b.math_fn(math.Log1pOp, b.exp(gap)))
        same_inf = b.and_(b.cmp("eq", x, y), b.cmp("eq", b.abs(x), b.const(float("inf"), x)))
        return b.select(same_inf, x, out)


def xlogy(x: Any, y: Any) -> Any:
    """torch's xlogy: NaN where y is NaN, else 0 where x is 0, else x * log(y)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.isnan(y), np.nan, np.where(x == 0, 0.0, x * np.log(y)))


def x_times_log(b: ScalarBuilder, x: SSAValue, log_y: SSAValue, y: SSAValue) -> SSAValue:
    """`x * log_y`, 0 where x is 0, NaN where y is NaN (xlogy's and xlog1py's rule)."""
    product = b.select(b.cmp("eq", x, b.const(0.0, x)), b.const(0.0, x), b.mul(x, log_y))
    return b.select(b.is_nan(y), b.const(float("nan"), x), product)


class _Xlogy:
    PY_NAMES = ("torch.xlogy", "Tensor.xlogy", "torch.special.xlogy")
    FLOAT_RESULT = True

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        return xlogy(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        return x_times_log(b, x, b.log(y), y)


@torch_op
class AtenXlogyTensorOp(_Xlogy, BinaryOp):
    """`self * log(other)`, 0 where self is 0 (unless other is NaN); integers give float32
    (`torch.xlogy`)."""

    name = "torch.aten.xlogy.Tensor"
    SCHEMA = "aten::xlogy.Tensor(Tensor self, Tensor other) -> Tensor"
    SAMPLES = (Sample(Tn((3, 4), "int64", -1, 3), Tn((4,), low=0.1, high=3.0)),)


@torch_op
class AtenXlogyScalarOtherOp(_Xlogy, ElementwiseOp):
    """`self * log(other)` for a Python number other."""

    name = "torch.aten.xlogy.Scalar_Other"
    SCHEMA = "aten::xlogy.Scalar_Other(Tensor self, Scalar other) -> Tensor"
    SAMPLES = (Sample(Tn((3, 4)), 2.5),)
    self_ = operand_def(ValueTensorType)
    other = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


OPS = (
    AtenAtan2Op,
    AtenHypotOp,
    AtenLdexpTensorOp,
    AtenCopysignTensorOp,
    AtenCopysignScalarOp,
    AtenFmodTensorOp,
    AtenFmodScalarOp,
    AtenRemainderTensorOp,
    AtenRemainderScalarOp,
    AtenRemainderScalarTensorOp,
    AtenFloatPowerTensorTensorOp,
    AtenFloatPowerTensorScalarOp,
    AtenFloatPowerScalarOp,
    AtenLogaddexpOp,
    AtenXlogyTensorOp,
    AtenXlogyScalarOtherOp,
)
