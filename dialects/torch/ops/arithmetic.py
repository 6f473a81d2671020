"""More arithmetic: division with rounding modes, floor_divide, pow (three forms),
maximum/minimum, and the unary abs, log, sqrt, rsqrt, erf."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import FLOAT32, DType
from dialects.torch.families import (
    BinaryOp,
    BinaryScalarOp,
    ElementwiseOp,
    ScalarOperand,
    UnaryOp,
)
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import NoneType, StrType, ValueTensorType

# ---- division with a rounding mode ----

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


# ---- pow ----


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


# ---- maximum, minimum ----


def _extreme(stem: str, numpy_fn: Any, builder_fn: str) -> tuple[Any, Any]:
    """`torch.maximum` and its `torch.max(a, b)` spelling (`max.other`), likewise minimum."""

    def eager_fn(x: Any, y: Any) -> Any:
        return numpy_fn(x, y)

    def payload_fn(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        return getattr(b, builder_fn)(x, y)

    @torch_op
    class Named(BinaryOp):
        __doc__ = f"Elementwise {stem} of two tensors, NaN-propagating (`torch.{builder_fn}`)."
        __qualname__ = f"Aten{builder_fn.title()}Op"
        name = f"torch.aten.{builder_fn}"
        SCHEMA = f"aten::{builder_fn}(Tensor self, Tensor other) -> Tensor"
        PY_NAMES = (f"torch.{builder_fn}", f"Tensor.{builder_fn}", f"np.{builder_fn}")
        SAMPLES = (
            Sample(Tn((3, 4)), Tn((4,))),
            Sample(Tn((5,), "int32"), Tn((5,), "int64")),
            Sample(Tn((4,), "bool"), Tn((4,), "bool")),
        )
        eager = staticmethod(eager_fn)
        payload = staticmethod(payload_fn)

    @torch_op
    class Other(BinaryOp):
        __doc__ = f"`torch.{stem}(a, b)`: the same as `torch.{builder_fn}`."
        __qualname__ = f"Aten{stem.title()}OtherOp"
        name = f"torch.aten.{stem}.other"
        SCHEMA = f"aten::{stem}.other(Tensor self, Tensor other) -> Tensor"
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}")
        SAMPLES = (Sample(Tn((2, 3), "float64"), Tn((2, 1), "int64")),)
        eager = staticmethod(eager_fn)
        payload = staticmethod(payload_fn)

    return Named, Other


AtenMaximumOp, AtenMaxOtherOp = _extreme("max", np.maximum, "maximum")
AtenMinimumOp, AtenMinOtherOp = _extreme("min", np.minimum, "minimum")

# ---- unary math ----

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
AtenLogOp = _unary(
    "log", "Natural logarithm; integers give float32 (`torch.log`).", np.log, "log", True,
    spellings=("np.log",),
)  # fmt: skip
AtenSqrtOp = _unary(
    "sqrt", "Square root; integers give float32 (`torch.sqrt`).", np.sqrt, "sqrt", True,
    spellings=("np.sqrt",),
)  # fmt: skip
AtenRsqrtOp = _unary(
    "rsqrt", "`1 / sqrt(self)`; integers give float32 (`torch.rsqrt`).",
    lambda x: 1 / np.sqrt(x), "rsqrt", True,
)  # fmt: skip
_ERF = np.vectorize(math.erf, otypes=[np.float64])
AtenErfOp = _unary(
    "erf", "The error function; integers give float32 (`torch.erf`).",
    lambda x: _ERF(x).astype(x.dtype) if x.size else x, "erf", True,
    spellings=("torch.special.erf",),
    samples=(Sample(Tn((3, 4), low=-3.0, high=3.0)), Sample(Tn((5,), "float64", -3.0, 3.0))),
)  # fmt: skip

OPS = (
    AtenDivTensorModeOp, AtenDivScalarModeOp, AtenFloorDivideOp, AtenFloorDivideScalarOp,
    AtenPowTensorTensorOp, AtenPowTensorScalarOp, AtenPowScalarOp,
    AtenMaximumOp, AtenMaxOtherOp, AtenMinimumOp, AtenMinOtherOp,
    AtenAbsOp, AtenLogOp, AtenSqrtOp, AtenRsqrtOp, AtenErfOp,
)  # fmt: skip
