"""Unary math functions: exp and log (and log1p, expm1, log2, log10, exp2), sqrt, rsqrt,
trigonometric and hyperbolic functions and their inverses, rounding (floor, ceil, trunc,
round), frac, sign, square, the float class tests (isnan, isinf, ...) and nan_to_num.

dtype rules are torch's: the transcendental functions give float32 for integer and bool
inputs; rounding keeps integers as they are (and rejects bool); `sign` of a bool is the bool;
`square` of a bool is int64; the class tests give bool for every dtype.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.dialects import math
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import BOOL, INT64, DType
from dialects.torch.families import (
    ElementwiseOp,
    UnaryOp,
)
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import UNARY_SAMPLES, _unary
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import FloatType, IntType, NoneType, ValueTensorType


@torch_op
class AtenTanhOp(UnaryOp):
    """Hyperbolic tangent; integers give float32 (`torch.tanh`)."""

    name = "torch.aten.tanh"
    SCHEMA = "aten::tanh(Tensor self) -> Tensor"
    PY_NAMES = ("torch.tanh", "Tensor.tanh", "F.tanh", "np.tanh")
    FLOAT_RESULT = True
    SAMPLES = UNARY_SAMPLES

    @staticmethod
    def eager(x: Any) -> Any:
        return np.tanh(x)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.tanh(x)


@torch_op
class AtenExpOp(UnaryOp):
    """`e ** self`; integers give float32 (`torch.exp`)."""

    name = "torch.aten.exp"
    SCHEMA = "aten::exp(Tensor self) -> Tensor"
    PY_NAMES = ("torch.exp", "Tensor.exp", "np.exp")
    FLOAT_RESULT = True
    SAMPLES = UNARY_SAMPLES

    @staticmethod
    def eager(x: Any) -> Any:
        with np.errstate(over="ignore"):
            return np.exp(x)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.exp(x)


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


TORCH_TYPE_NAMES = {"int64": "Long", "int32": "Int", "float32": "Float", "float64": "Double",
                    "bool": "Bool"}  # fmt: skip
"""torch's names of the dtypes in its kernel errors."""


def float_only(kernel: str, dtype: DType | None) -> DType | None:
    """`dtype`, or torch's error for an integer or bool one (`"frac_cpu" not implemented for
    'Long'`)."""
    if dtype is not None and not dtype.is_float:
        raise TypeError(f'"{kernel}" not implemented for {TORCH_TYPE_NAMES[dtype.name]!r}')
    return dtype


TRIG_SAMPLES = (Sample(Tn((3, 4), low=-3.0, high=3.0)), Sample(Tn((5,), "int64", -3, 3)))


UNIT_SAMPLES = (Sample(Tn((3, 4), low=-0.99, high=0.99)), Sample(Tn((5,), "float64", -0.99, 0.99)))


POSITIVE_SAMPLES = (Sample(Tn((3, 4), low=0.05, high=9.0)), Sample(Tn((5,), "int64", 1, 9)))


def _float_function(
    stem: str,
    doc: str,
    numpy_fn: Any,
    math_op: type[Operation],
    samples: tuple[Sample, ...],
    spellings: tuple[str, ...] = (),
) -> Any:
    """`torch.<stem>` computed by the `math` op `math_op` (a libm call in generated code)."""

    def eager_fn(x: Any) -> Any:
        with np.errstate(all="ignore"):
            return numpy_fn(x)

    def payload_fn(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.math_fn(math_op, x)

    @torch_op
    class Op(UnaryOp):
        __doc__ = doc
        __qualname__ = f"Aten{stem.title()}Op"
        name = f"torch.aten.{stem}"
        SCHEMA = f"aten::{stem}(Tensor self) -> Tensor"
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}", *spellings)
        FLOAT_RESULT: ClassVar[bool] = True
        SAMPLES = samples
        eager = staticmethod(eager_fn)
        payload = staticmethod(payload_fn)

    return Op


def _aliases(*names: str) -> tuple[str, ...]:
    return tuple(f"{prefix}.{n}" for n in names for prefix in ("torch", "Tensor"))


AtenSinOp = _float_function("sin", "Sine (`torch.sin`).", np.sin, math.SinOp, TRIG_SAMPLES,
                            ("np.sin",))  # fmt: skip


AtenCosOp = _float_function("cos", "Cosine (`torch.cos`).", np.cos, math.CosOp, TRIG_SAMPLES[:1],
                            ("np.cos",))  # fmt: skip


AtenTanOp = _float_function("tan", "Tangent (`torch.tan`).", np.tan, math.TanOp,
                            (Sample(Tn((3, 4), low=-1.5, high=1.5)),), ("np.tan",))  # fmt: skip


AtenAsinOp = _float_function(
    "asin", "Arcsine; NaN outside [-1, 1] (`torch.asin`, `torch.arcsin`).", np.arcsin,
    math.AsinOp, UNIT_SAMPLES, (*_aliases("arcsin"), "np.arcsin"),
)  # fmt: skip


AtenAcosOp = _float_function(
    "acos", "Arccosine; NaN outside [-1, 1] (`torch.acos`, `torch.arccos`).", np.arccos,
    math.AcosOp, UNIT_SAMPLES[:1], (*_aliases("arccos"), "np.arccos"),
)  # fmt: skip


AtenAtanOp = _float_function(
    "atan", "Arctangent (`torch.atan`, `torch.arctan`).", np.arctan, math.AtanOp,
    TRIG_SAMPLES[:1], (*_aliases("arctan"), "np.arctan"),
)  # fmt: skip


AtenSinhOp = _float_function("sinh", "Hyperbolic sine (`torch.sinh`).", np.sinh, math.SinhOp,
                             TRIG_SAMPLES[:1], ("np.sinh",))  # fmt: skip


AtenCoshOp = _float_function("cosh", "Hyperbolic cosine (`torch.cosh`).", np.cosh, math.CoshOp,
                             (Sample(Tn((5,), "float64", -3.0, 3.0)),), ("np.cosh",))  # fmt: skip


AtenAsinhOp = _float_function(
    "asinh", "Inverse hyperbolic sine (`torch.asinh`, `torch.arcsinh`).", np.arcsinh,
    math.AsinhOp, TRIG_SAMPLES[:1], (*_aliases("arcsinh"), "np.arcsinh"),
)  # fmt: skip


AtenAcoshOp = _float_function(
    "acosh", "Inverse hyperbolic cosine; NaN below 1 (`torch.acosh`, `torch.arccosh`).",
    np.arccosh, math.AcoshOp, (Sample(Tn((3, 4), low=1.0, high=5.0)),),
    (*_aliases("arccosh"), "np.arccosh"),
)  # fmt: skip


AtenAtanhOp = _float_function(
    "atanh", "Inverse hyperbolic tangent; +-inf at +-1 (`torch.atanh`, `torch.arctanh`).",
    np.arctanh, math.AtanhOp, UNIT_SAMPLES[:1], (*_aliases("arctanh"), "np.arctanh"),
)  # fmt: skip


AtenLog1pOp = _float_function(
    "log1p", "`log(1 + x)`, accurate near 0 (`torch.log1p`).", np.log1p, math.Log1pOp,
    (Sample(Tn((3, 4), low=-0.9, high=4.0)),), ("np.log1p", "torch.special.log1p"),
)  # fmt: skip


AtenExpm1Op = _float_function(
    "expm1", "`exp(x) - 1`, accurate near 0 (`torch.expm1`).", np.expm1, math.ExpM1Op,
    TRIG_SAMPLES[:1], ("np.expm1", "torch.special.expm1"),
)  # fmt: skip


AtenLog2Op = _float_function("log2", "Base-2 logarithm (`torch.log2`).", np.log2, math.Log2Op,
                             POSITIVE_SAMPLES, ("np.log2",))  # fmt: skip


AtenLog10Op = _float_function("log10", "Base-10 logarithm (`torch.log10`).", np.log10,
                              math.Log10Op, POSITIVE_SAMPLES[:1], ("np.log10",))  # fmt: skip


AtenExp2Op = _float_function("exp2", "`2 ** x` (`torch.exp2`).", np.exp2, math.Exp2Op,
                             TRIG_SAMPLES[:1],
                             ("np.exp2", "torch.special.exp2"))  # fmt: skip


ROUNDING_SAMPLES = (Sample(Tn((3, 4), low=-4.0, high=4.0)), Sample(Tn((5,), "int32", -9, 9)))


def _rounding(
    stem: str,
    doc: str,
    numpy_fn: Any,
    builder_fn: str,
    spellings: tuple[str, ...],
    samples: tuple[Sample, ...] = ROUNDING_SAMPLES[:1],
) -> Any:
    def eager_fn(x: Any) -> Any:
        return numpy_fn(x) if x.dtype.kind == "f" else x.copy()

    def payload_fn(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return getattr(b, builder_fn)(x) if b.is_float(x) else x

    @torch_op
    class Op(UnaryOp):
        __doc__ = doc
        __qualname__ = f"Aten{stem.title()}Op"
        name = f"torch.aten.{stem}"
        SCHEMA = f"aten::{stem}(Tensor self) -> Tensor"
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}", *spellings)
        REJECTS = ("bool",)
        SAMPLES = samples
        eager = staticmethod(eager_fn)
        payload = staticmethod(payload_fn)

    return Op


AtenFloorOp = _rounding("floor", "Rounded down; integers unchanged (`torch.floor`).", np.floor,
                        "floor", ("np.floor",), ROUNDING_SAMPLES)  # fmt: skip


AtenCeilOp = _rounding("ceil", "Rounded up; integers unchanged (`torch.ceil`).", np.ceil,
                       "ceil", ("np.ceil",))  # fmt: skip


AtenTruncOp = _rounding(
    "trunc", "Rounded toward zero; integers unchanged (`torch.trunc`, `torch.fix`).", np.trunc,
    "trunc", (*_aliases("fix"), "np.trunc", "np.fix"),
)  # fmt: skip


AtenRoundOp = _rounding(
    "round", "Rounded to the nearest integer, halves to even; integers unchanged "
    "(`torch.round`).", np.rint, "round_even", ("np.rint", "np.round"),
)  # fmt: skip


@torch_op
class AtenRoundDecimalsOp(ElementwiseOp):
    """`torch.round(x, decimals=d)`: torch's formula, `rint(x * 10**d) / 10**d` (for d < 0,
    `rint(x / 10**-d) * 10**-d`) in x's dtype; floating point inputs only."""

    name = "torch.aten.round.decimals"
    SCHEMA = "aten::round.decimals(Tensor self, *, int decimals) -> Tensor"
    PY_NAMES = ("torch.round", "Tensor.round")
    DTYPE_ARGS = ("self",)
    STATIC_ARGS = ("decimals",)
    SAMPLES = (Sample(Tn((3, 4), low=-9.0, high=9.0), decimals=2),
               Sample(Tn((5,), "float64", -900.0, 900.0), decimals=-1))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    decimals = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        cls.static_arg(args, "decimals")
        return float_only("round_cpu", super().compute_dtype(args))

    @staticmethod
    def eager(x: Any, decimals: int) -> Any:
        scale = x.dtype.type(10.0 ** abs(decimals))
        return np.rint(x / scale) * scale if decimals < 0 else np.rint(x * scale) / scale

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, decimals: int) -> SSAValue:
        scale = b.const(10.0 ** abs(decimals), x)
        if decimals < 0:
            return b.mul(b.round_even(b.div(x, scale)), scale)
        return b.div(b.round_even(b.mul(x, scale)), scale)


@torch_op
class AtenFracOp(UnaryOp):
    """`x - trunc(x)`, the fractional part with x's sign; floating point only (`torch.frac`)."""

    name = "torch.aten.frac"
    SCHEMA = "aten::frac(Tensor self) -> Tensor"
    PY_NAMES = ("torch.frac", "Tensor.frac")
    SAMPLES = (Sample(Tn((3, 4), low=-4.0, high=4.0)),)

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        return float_only("frac_cpu", super().compute_dtype(args))

    @staticmethod
    def eager(x: Any) -> Any:
        with np.errstate(invalid="ignore"):
            return x - np.trunc(x)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.sub(x, b.trunc(x))


@torch_op
class AtenSignOp(UnaryOp):
    """-1, 0 or 1 by the sign of x, 0 for NaN; a bool stays the bool (`torch.sign`, and
    `torch.sgn`, the same for real inputs)."""

    name = "torch.aten.sign"
    SCHEMA = "aten::sign(Tensor self) -> Tensor"
    PY_NAMES = ("torch.sign", "Tensor.sign", *_aliases("sgn"))
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((6,), "int64", -2, 2)))

    @staticmethod
    def eager(x: Any) -> Any:
        if x.dtype == np.bool_:
            return x.copy()
        return np.where(x > 0, 1, np.where(x < 0, -1, 0)).astype(x.dtype)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        if not b.is_float(x) and x.type.width.data == 1:  # type: ignore[attr-defined]
            return x
        zero = b.const(0, x)
        negative = b.select(b.cmp("lt", x, zero), b.const(-1, x), zero)
        return b.select(b.cmp("gt", x, zero), b.const(1, x), negative)


@torch_op
class AtenSquareOp(UnaryOp):
    """`x * x`; a bool input gives int64, like `x ** 2` (`torch.square`)."""

    name = "torch.aten.square"
    SCHEMA = "aten::square(Tensor self) -> Tensor"
    PY_NAMES = ("torch.square", "Tensor.square", "np.square")
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((4,), "bool")))

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        dtype = super().compute_dtype(args)
        return INT64 if dtype is not None and dtype.is_bool else dtype

    @staticmethod
    def eager(x: Any) -> Any:
        return x * x

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.mul(x, x)


class _ClassTest(UnaryOp):
    """A test of each element's float class; integer and bool elements are finite numbers."""

    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((4,), "int64")))

    @classmethod
    def result_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        return BOOL

    @classmethod
    def eager(cls, x: Any) -> Any:  # type: ignore[override]
        return cls.numpy_test(x) if x.dtype.kind == "f" else np.full(x.shape, cls.FOR_INTEGERS)

    FOR_INTEGERS: ClassVar[bool] = False

    @staticmethod
    def numpy_test(x: Any) -> Any:
        raise NotImplementedError

    @classmethod
    def payload(cls, b: ScalarBuilder, x: SSAValue) -> SSAValue:  # type: ignore[override]
        if not b.is_float(x):
            return b.const(cls.FOR_INTEGERS, BOOL.signless_attr)
        return cls.float_test(b, x)

    @staticmethod
    def float_test(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        raise NotImplementedError


@torch_op
class AtenIsnanOp(_ClassTest):
    """True where x is NaN (`torch.isnan`)."""

    name = "torch.aten.isnan"
    SCHEMA = "aten::isnan(Tensor self) -> Tensor"
    PY_NAMES = ("torch.isnan", "Tensor.isnan", "np.isnan")
    numpy_test = staticmethod(np.isnan)

    @staticmethod
    def float_test(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.is_nan(x)


@torch_op
class AtenIsinfOp(_ClassTest):
    """True where x is +inf or -inf (`torch.isinf`)."""

    name = "torch.aten.isinf"
    SCHEMA = "aten::isinf(Tensor self) -> Tensor"
    PY_NAMES = ("torch.isinf", "Tensor.isinf", "np.isinf")
    SAMPLES = _ClassTest.SAMPLES[:1]
    numpy_test = staticmethod(np.isinf)

    @staticmethod
    def float_test(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.cmp("eq", b.abs(x), b.const(float("inf"), x))


@torch_op
class AtenIsfiniteOp(_ClassTest):
    """True where x is neither NaN nor infinite; always for integers (`torch.isfinite`)."""

    name = "torch.aten.isfinite"
    SCHEMA = "aten::isfinite(Tensor self) -> Tensor"
    PY_NAMES = ("torch.isfinite", "Tensor.isfinite", "np.isfinite")
    FOR_INTEGERS = True
    numpy_test = staticmethod(np.isfinite)

    @staticmethod
    def float_test(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.cmp("lt", b.abs(x), b.const(float("inf"), x))  # ordered: False for NaN


@torch_op
class AtenIsposinfOp(_ClassTest):
    """True where x is +inf (`torch.isposinf`)."""

    name = "torch.aten.isposinf"
    SCHEMA = "aten::isposinf(Tensor self) -> Tensor"
    PY_NAMES = ("torch.isposinf", "Tensor.isposinf", "np.isposinf")
    SAMPLES = _ClassTest.SAMPLES[:1]
    numpy_test = staticmethod(np.isposinf)

    @staticmethod
    def float_test(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.cmp("eq", x, b.const(float("inf"), x))


@torch_op
class AtenIsneginfOp(_ClassTest):
    """True where x is -inf (`torch.isneginf`)."""

    name = "torch.aten.isneginf"
    SCHEMA = "aten::isneginf(Tensor self) -> Tensor"
    PY_NAMES = ("torch.isneginf", "Tensor.isneginf", "np.isneginf")
    SAMPLES = _ClassTest.SAMPLES[:1]
    numpy_test = staticmethod(np.isneginf)

    @staticmethod
    def float_test(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.cmp("eq", x, b.const(float("-inf"), x))


@torch_op
class AtenNanToNumOp(ElementwiseOp):
    """NaN, +inf and -inf replaced by `nan` (default 0), `posinf` and `neginf` (default the
    dtype's largest and lowest finite values); integer and bool tensors are returned as they
    are (`torch.nan_to_num`)."""

    name = "torch.aten.nan_to_num"
    SCHEMA = ("aten::nan_to_num(Tensor self, float? nan=None, float? posinf=None, "
              "float? neginf=None) -> Tensor")  # fmt: skip
    PY_NAMES = ("torch.nan_to_num", "Tensor.nan_to_num", "np.nan_to_num")
    DTYPE_ARGS = ("self",)
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((5,), "float64"), 1.0, 2.0, -2.0))
    self_ = operand_def(ValueTensorType)
    nan = operand_def(FloatType | IntType | NoneType)
    posinf = operand_def(FloatType | IntType | NoneType)
    neginf = operand_def(FloatType | IntType | NoneType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, nan: Any = None, posinf: Any = None, neginf: Any = None) -> Any:
        if x.dtype.kind != "f":
            return x.copy()
        return np.nan_to_num(x, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)

    @staticmethod
    def payload(
        b: ScalarBuilder,
        x: SSAValue,
        nan: SSAValue | None,
        posinf: SSAValue | None,
        neginf: SSAValue | None,
    ) -> SSAValue:
        if not b.is_float(x):
            return x
        finfo = np.finfo(np.float32 if x.type.bitwidth == 32 else np.float64)  # type: ignore[attr-defined]
        nan = b.const(0.0, x) if nan is None else nan
        posinf = b.const(float(finfo.max), x) if posinf is None else posinf
        neginf = b.const(float(finfo.min), x) if neginf is None else neginf
        inf = b.const(float("inf"), x)
        out = b.select(b.cmp("eq", x, inf), posinf, x)
        out = b.select(b.cmp("eq", x, b.neg(inf)), neginf, out)
        return b.select(b.is_nan(x), nan, out)


OPS = (
    AtenTanhOp,
    AtenExpOp,
    AtenLogOp,
    AtenSqrtOp,
    AtenRsqrtOp,
    AtenSinOp,
    AtenCosOp,
    AtenTanOp,
    AtenAsinOp,
    AtenAcosOp,
    AtenAtanOp,
    AtenSinhOp,
    AtenCoshOp,
    AtenAsinhOp,
    AtenAcoshOp,
    AtenAtanhOp,
    AtenLog1pOp,
    AtenExpm1Op,
    AtenLog2Op,
    AtenLog10Op,
    AtenExp2Op,
    AtenFloorOp,
    AtenCeilOp,
    AtenTruncOp,
    AtenRoundOp,
    AtenRoundDecimalsOp,
    AtenFracOp,
    AtenSignOp,
    AtenSquareOp,
    AtenIsnanOp,
    AtenIsinfOp,
    AtenIsfiniteOp,
    AtenIsposinfOp,
    AtenIsneginfOp,
    AtenNanToNumOp,
)
