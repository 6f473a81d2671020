"""Arithmetic: add, sub, rsub, mul, div (true, and with a rounding mode), floor_divide,
neg, reciprocal, pow (three forms) and abs, each lowered from its `payload`."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.ir import SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import FLOAT32, DType
from dialects.torch.families import (
    BinaryAlphaOp,
    BinaryOp,
    BinaryScalarAlphaOp,
    BinaryScalarOp,
    ElementwiseOp,
    ScalarOperand,
    UnaryOp,
)
from dialects.torch.folding import fold_to_self
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import NoneType, StrType, ValueTensorType

BROADCAST_SAMPLES = (
    Sample(Tn((3, 4)), Tn((3, 4))),
    Sample(Tn((2, 3, 4)), Tn((4,))),
    Sample(Tn((3, 1)), Tn((1, 5))),
    Sample(Tn((0, 4)), Tn((4,))),
    Sample(Tn((5,), "int64"), Tn((5,), "int64")),
    Sample(Tn((2, 3), "int32"), Tn((3,))),
)


SCALAR_SAMPLES = (
    Sample(Tn((3, 4)), 2.5),
    Sample(Tn((6,)), 3),
    Sample(Tn((4,), "int64"), 2),
    Sample(Tn((4,), "int64"), 1.5),
)


UNARY_SAMPLES = (
    Sample(Tn((3, 4))),
    Sample(Tn((0,))),
    Sample(Tn((2, 1, 5), "float64")),
    Sample(Tn((7,), "int64")),
)


class _Add:
    PY_NAMES = ("torch.add", "Tensor.add", "operator.add", "np.add")

    @staticmethod
    def eager(x: Any, y: Any, alpha: Any = 1) -> Any:
        return np.add(x, np.multiply(y, alpha))

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue, alpha: SSAValue) -> SSAValue:
        return b.add(x, b.mul(y, alpha))

    def fold(self) -> Any:
        """`x + 0 -> x` (like inductor; only a -0.0 in x would have become +0.0)."""
        return fold_to_self(self, lambda other, alpha: other * alpha == 0)  # type: ignore[arg-type]


@torch_op
class AtenAddTensorOp(_Add, BinaryAlphaOp):
    """`self + alpha * other` with broadcasting (`torch.add`).

    ```mlir
    %r = torch.aten.add.Tensor %a, %b, %int1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[2,3],f32>
    ```
    """

    name = "torch.aten.add.Tensor"
    SCHEMA = "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    SAMPLES = (*BROADCAST_SAMPLES, Sample(Tn((3,)), Tn((3,)), alpha=2))


@torch_op
class AtenAddScalarOp(_Add, BinaryScalarAlphaOp):
    """`self + alpha * other` for a Python number `other`."""

    name = "torch.aten.add.Scalar"
    SCHEMA = "aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"
    SAMPLES = SCALAR_SAMPLES


class _Sub:
    PY_NAMES = ("torch.sub", "Tensor.sub", "operator.sub", "np.subtract", "torch.subtract",
                "Tensor.subtract")  # fmt: skip
    REJECTS = ("bool",)  # torch: "Subtraction ... with two bool tensors is not supported"

    @staticmethod
    def eager(x: Any, y: Any, alpha: Any = 1) -> Any:
        return np.subtract(x, np.multiply(y, alpha))

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue, alpha: SSAValue) -> SSAValue:
        return b.sub(x, b.mul(y, alpha))

    def fold(self) -> Any:
        return fold_to_self(self, lambda other, alpha: other * alpha == 0)  # type: ignore[arg-type]


@torch_op
class AtenSubTensorOp(_Sub, BinaryAlphaOp):
    """`self - alpha * other` with broadcasting (`torch.sub`)."""

    name = "torch.aten.sub.Tensor"
    SCHEMA = "aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    SAMPLES = (*BROADCAST_SAMPLES, Sample(Tn((3,)), Tn((3,)), alpha=0.5))


@torch_op
class AtenSubScalarOp(_Sub, BinaryScalarAlphaOp):
    """`self - alpha * other` for a Python number `other`."""

    name = "torch.aten.sub.Scalar"
    SCHEMA = "aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"
    SAMPLES = SCALAR_SAMPLES


@torch_op
class AtenRsubScalarOp(BinaryScalarAlphaOp):
    """`other - alpha * self` for a Python number `other` (`2 - x`)."""

    name = "torch.aten.rsub.Scalar"
    SCHEMA = "aten::rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"
    PY_NAMES = ("torch.rsub", "Tensor.__rsub__")
    REJECTS = ("bool",)
    SAMPLES = SCALAR_SAMPLES

    @staticmethod
    def eager(x: Any, y: Any, alpha: Any = 1) -> Any:
        return np.subtract(y, np.multiply(x, alpha))

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue, alpha: SSAValue) -> SSAValue:
        return b.sub(y, b.mul(x, alpha))


class _Mul:
    PY_NAMES = ("torch.mul", "Tensor.mul", "operator.mul", "np.multiply", "torch.multiply",
                "Tensor.multiply")  # fmt: skip

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        return np.multiply(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        return b.mul(x, y)

    def fold(self) -> Any:
        return fold_to_self(self, lambda other: other == 1)  # type: ignore[arg-type]


@torch_op
class AtenMulTensorOp(_Mul, BinaryOp):
    """`self * other` with broadcasting (`torch.mul`)."""

    name = "torch.aten.mul.Tensor"
    SCHEMA = "aten::mul.Tensor(Tensor self, Tensor other) -> Tensor"
    SAMPLES = BROADCAST_SAMPLES


@torch_op
class AtenMulScalarOp(_Mul, BinaryScalarOp):
    """`self * other` for a Python number `other`."""

    name = "torch.aten.mul.Scalar"
    SCHEMA = "aten::mul.Scalar(Tensor self, Scalar other) -> Tensor"
    SAMPLES = SCALAR_SAMPLES


class _Div:
    PY_NAMES = ("torch.div", "Tensor.div", "operator.truediv", "np.divide", "np.true_divide",
                "torch.divide", "Tensor.divide", "torch.true_divide", "Tensor.true_divide")  # fmt: skip
    FLOAT_RESULT = True

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.divide(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        return b.div(x, y)

    def fold(self) -> Any:
        return fold_to_self(self, lambda other: other == 1)  # type: ignore[arg-type]


@torch_op
class AtenDivTensorOp(_Div, BinaryOp):
    """True division `self / other` with broadcasting; integers give float32 (`torch.div`)."""

    name = "torch.aten.div.Tensor"
    SCHEMA = "aten::div.Tensor(Tensor self, Tensor other) -> Tensor"
    SAMPLES = BROADCAST_SAMPLES


@torch_op
class AtenDivScalarOp(_Div, BinaryScalarOp):
    """True division by a Python number."""

    name = "torch.aten.div.Scalar"
    SCHEMA = "aten::div.Scalar(Tensor self, Scalar other) -> Tensor"
    SAMPLES = (*SCALAR_SAMPLES, Sample(Tn((3,)), 0.0))


@torch_op
class AtenNegOp(UnaryOp):
    """`-self` (`torch.neg`)."""

    name = "torch.aten.neg"
    SCHEMA = "aten::neg(Tensor self) -> Tensor"
    PY_NAMES = ("torch.neg", "Tensor.neg", "operator.neg", "np.negative", "torch.negative",
                "Tensor.negative")  # fmt: skip
    REJECTS = ("bool",)  # torch: use `~` or logical_not to invert a mask
    SAMPLES = UNARY_SAMPLES

    @staticmethod
    def eager(x: Any) -> Any:
        return np.negative(x)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.neg(x)


@torch_op
class AtenReciprocalOp(UnaryOp):
    """`1 / self`; integers give float32 (`torch.reciprocal`)."""

    name = "torch.aten.reciprocal"
    SCHEMA = "aten::reciprocal(Tensor self) -> Tensor"
    PY_NAMES = ("torch.reciprocal", "Tensor.reciprocal", "np.reciprocal")
    FLOAT_RESULT = True
    SAMPLES = UNARY_SAMPLES

    @staticmethod
    def eager(x: Any) -> Any:
        with np.errstate(divide="ignore"):
            return np.divide(1, x)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.div(b.const(1, x), x)


ROUNDING_MODES = (None, "trunc", "floor")


def divide(x: Any, y: Any, mode: str | None) -> Any:
    """torch.div: true division, or rounded toward zero ("trunc") or down ("floor")."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if mode is None:
            return np.divide(x, y)
        if mode == "floor":
            return np.floor_divide(x, y)
        if np.asarray(x).dtype.kind == "f":
            return np.trunc(np.divide(x, y))
        quotient = np.floor_divide(x, y)  # integers: floor, then step toward zero
        return quotient + ((np.remainder(x, y) != 0) & ((np.asarray(x) < 0) != (y < 0)))


def rounded_quotient(b: ScalarBuilder, x: SSAValue, y: SSAValue, mode: str | None) -> SSAValue:
    """The payload of every division: floats round `x / y` (so a "floor" quotient can differ
    from torch's fmod-based one when x / y rounds onto an integer), integers divide exactly."""
    if mode == "floor":
        return b.floordiv(x, y)
    if mode == "trunc":
        return b.truncdiv(x, y)
    return b.div(x, y)


class _DivMode:
    """Shared by div.Tensor_mode and div.Scalar_mode: the mode decides the result dtype."""

    PY_NAMES = ("torch.div", "Tensor.div", "torch.divide", "Tensor.divide")
    STATIC_ARGS = ("rounding_mode",)

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        mode = cls.static_arg(args, "rounding_mode")  # type: ignore[attr-defined]
        if mode not in ROUNDING_MODES:
            raise TypeError(
                f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found {mode!r}"
            )
        dtype = super().compute_dtype(args)  # type: ignore[misc]
        if dtype is None:
            return None
        if mode is not None and dtype.is_bool:
            raise TypeError(f"div with rounding_mode={mode!r} does not support bool inputs")
        return FLOAT32 if mode is None and not dtype.is_float else dtype

    @staticmethod
    def eager(x: Any, y: Any, rounding_mode: str | None) -> Any:
        return divide(x, y, rounding_mode)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue, mode: str | None) -> SSAValue:
        return rounded_quotient(b, x, y, mode)


@torch_op
class AtenDivTensorModeOp(_DivMode, ElementwiseOp):
    """`self / other` rounded by `rounding_mode` (None, "trunc", "floor"); integers stay
    integers unless the mode is None (`torch.div(a, b, rounding_mode="floor")`)."""

    name = "torch.aten.div.Tensor_mode"
    SCHEMA = "aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor"
    SAMPLES = (
        Sample(Tn((3, 4)), Tn((4,)), rounding_mode="floor"),
        Sample(Tn((6,), "int64", -9, 9), Tn((6,), "int64", 1, 4), rounding_mode="trunc"),
        Sample(Tn((6,), "int32", -9, 9), Tn((6,), "int64", -4, -1), rounding_mode="floor"),
        Sample(Tn((2, 3), "float64"), Tn((3,), "float64"), rounding_mode=None),
    )
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    rounding_mode = operand_def(StrType | NoneType)
    result = result_def(ValueTensorType)


@torch_op
class AtenDivScalarModeOp(_DivMode, ElementwiseOp):
    """`self / other` for a Python number, rounded by `rounding_mode`."""

    name = "torch.aten.div.Scalar_mode"
    SCHEMA = "aten::div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor"
    SAMPLES = (
        Sample(Tn((3, 4)), 0.7, rounding_mode="trunc"),
        Sample(Tn((5,), "int64", -9, 9), 2, rounding_mode="floor"),
    )
    self_ = operand_def(ValueTensorType)
    other = operand_def(ScalarOperand)
    rounding_mode = operand_def(StrType | NoneType)
    result = result_def(ValueTensorType)


class _FloorDivide:
    PY_NAMES = ("torch.floor_divide", "Tensor.floor_divide", "operator.floordiv", "np.floor_divide")
    REJECTS = ("bool",)

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        return divide(x, y, "floor")

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        return b.floordiv(x, y)


@torch_op
class AtenFloorDivideOp(_FloorDivide, BinaryOp):
    """`self // other`, rounded down (`torch.floor_divide`)."""

    name = "torch.aten.floor_divide"
    SCHEMA = "aten::floor_divide(Tensor self, Tensor other) -> Tensor"
    SAMPLES = (Sample(Tn((4, 3), "int64", -9, 9), Tn((3,), "int64", 1, 3)),)


@torch_op
class AtenFloorDivideScalarOp(_FloorDivide, BinaryScalarOp):
    """`self // other` for a Python number."""

    name = "torch.aten.floor_divide.Scalar"
    SCHEMA = "aten::floor_divide.Scalar(Tensor self, Scalar other) -> Tensor"
    SAMPLES = (Sample(Tn((3, 4)), 0.5), Sample(Tn((5,), "int32", -9, 9), -2))


class _Pow:
    PY_NAMES = ("torch.pow", "Tensor.pow", "operator.pow", "np.power")
    DTYPE_ARGS = ("self", "exponent")
    REJECTS = ("bool",)

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        dtype = super().compute_dtype(args)  # type: ignore[misc]
        exponent = cls.named_args(args).get("exponent")  # type: ignore[attr-defined]
        negative = isinstance(exponent, int | float) and exponent < 0
        if dtype is not None and not dtype.is_float and negative:
            raise TypeError("Integers to negative integer powers are not allowed.")
        return dtype

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            if np.asarray(x).dtype.kind in "iu" and np.asarray(y).dtype.kind in "iu":
                return _integer_power(np.asarray(x), np.asarray(y))
            return np.power(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        return b.pow(x, y)


def _integer_power(x: Any, y: Any) -> Any:
    """torch's integer pow: a negative exponent gives 0, except for a base of 1 or -1 (numpy
    refuses negative integer exponents)."""
    negative = y < 0
    power = np.power(x, np.where(negative, 0, y))
    unit = np.where(x == 1, 1, np.where(x == -1, np.where(y % 2 == 0, 1, -1), 0))
    return np.where(negative, unit.astype(power.dtype), power)


@torch_op
class AtenPowTensorTensorOp(_Pow, ElementwiseOp):
    """`self ** exponent` elementwise with broadcasting (`torch.pow(x, y)`)."""

    name = "torch.aten.pow.Tensor_Tensor"
    SCHEMA = "aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor"
    SAMPLES = (
        Sample(Tn((3, 4), low=0.1), Tn((4,))),
        Sample(Tn((5,), "int64", -3, 4), Tn((5,), "int32", 0, 4)),
    )
    self_ = operand_def(ValueTensorType)
    exponent = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenPowTensorScalarOp(_Pow, ElementwiseOp):
    """`self ** exponent` for a Python number exponent (`x ** 2`, `x.pow(0.5)`)."""

    name = "torch.aten.pow.Tensor_Scalar"
    SCHEMA = "aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor"
    SAMPLES = (
        Sample(Tn((3, 4)), 2),
        Sample(Tn((4,), low=0.0), 0.5),
        Sample(Tn((2, 3), "float64"), 3.0),
        Sample(Tn((5,), "int64", -3, 4), 3),
    )
    self_ = operand_def(ValueTensorType)
    exponent = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenPowScalarOp(_Pow, ElementwiseOp):
    """`self ** exponent` for a Python number base (`torch.pow(2, x)`)."""

    name = "torch.aten.pow.Scalar"
    SCHEMA = "aten::pow.Scalar(Scalar self, Tensor exponent) -> Tensor"
    PY_NAMES = ("torch.pow",)
    SAMPLES = (Sample(2.5, Tn((3, 4))), Sample(2, Tn((5,), "int64", 0, 5)))
    self_ = operand_def(ScalarOperand)
    exponent = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


POSITIVE_SAMPLES = (
    Sample(Tn((3, 4), low=0.0, high=4.0)),
    Sample(Tn((2, 3), "float64", 0.0, 4.0)),
    Sample(Tn((5,), "int64", 0, 9)),
)


def _unary(
    stem: str, doc: str, numpy_fn: Any, builder_fn: str, float_result: bool, **extra: Any
) -> Any:
    """A unary op computing `numpy_fn` eagerly and `ScalarBuilder.<builder_fn>` compiled."""

    def eager_fn(x: Any) -> Any:
        with np.errstate(divide="ignore", invalid="ignore"):
            return numpy_fn(x)

    def payload_fn(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return getattr(b, builder_fn)(x)

    @torch_op
    class Op(UnaryOp):
        __doc__ = doc
        __qualname__ = f"Aten{stem.title()}Op"
        name = f"torch.aten.{stem}"
        SCHEMA = f"aten::{stem}(Tensor self) -> Tensor"
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}", *extra.get("spellings", ()))
        FLOAT_RESULT: ClassVar[bool] = float_result
        REJECTS = extra.get("rejects", ())
        SAMPLES = extra.get("samples", POSITIVE_SAMPLES)
        eager = staticmethod(eager_fn)
        payload = staticmethod(payload_fn)

    return Op


AtenAbsOp = _unary(
    "abs", "`|self|`; bool is rejected like torch (`torch.abs`).", np.abs, "abs", False,
    spellings=("operator.abs", "np.abs", "np.absolute", "torch.absolute", "Tensor.absolute"),
    rejects=("bool",),
    samples=(Sample(Tn((3, 4))), Sample(Tn((6,), "int32", -5, 5)), Sample(Tn((2,), "float64"))),
)  # fmt: skip


OPS = (
    AtenAddTensorOp,
    AtenAddScalarOp,
    AtenSubTensorOp,
    AtenSubScalarOp,
    AtenRsubScalarOp,
    AtenMulTensorOp,
    AtenMulScalarOp,
    AtenDivTensorOp,
    AtenDivScalarOp,
    AtenNegOp,
    AtenReciprocalOp,
    AtenDivTensorModeOp,
    AtenDivScalarModeOp,
    AtenFloorDivideOp,
    AtenFloorDivideScalarOp,
    AtenPowTensorTensorOp,
    AtenPowTensorScalarOp,
    AtenPowScalarOp,
    AtenAbsOp,
)
