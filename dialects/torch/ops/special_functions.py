"""Special functions: erf, erfc and erfinv (which xDSL's `math` dialect lacks: computed from
series and Newton steps), logit, sinc, deg2rad / rad2deg, signbit, heaviside, and the
`torch.special` functions that are not aliases of `torch.*` ops: ndtr, xlog1py, entr."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from xdsl.dialects.math import CopySignOp, SinOp
from xdsl.ir import SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import BOOL, FLOAT64, DType
from dialects.torch.families import BinaryOp, ElementwiseOp, ScalarOperand, UnaryOp
from dialects.torch.meta import TensorMeta
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import _unary
from dialects.torch.ops.binary_math import x_times_log
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import FloatType, IntType, NoneType, ValueTensorType

_ERF = np.vectorize(math.erf, otypes=[np.float64])


AtenErfOp = _unary(
    "erf", "The error function; integers give float32 (`torch.erf`).",
    lambda x: _ERF(x).astype(x.dtype) if x.size else x, "erf", True,
    spellings=("torch.special.erf",),
    samples=(Sample(Tn((3, 4), low=-3.0, high=3.0)), Sample(Tn((5,), "float64", -3.0, 3.0))),
)  # fmt: skip


_ERFC = np.vectorize(math.erfc, otypes=[np.float64])


ERFC_SERIES_START = 2.0
"""Below it, erfc is 1 - erf (in float64: relative error under 5e-15, even for x < 0); from it
on, the continued fraction of erfc (erf's 1 - erf would cancel)."""


ERFC_TERMS = {32: 20, 64: 80}
"""Continued-fraction depth by the input's float width: relative error 1.2e-9 (float32
inputs, computed in float64) and 2e-16 (float64) for x >= 2, measured against math.erfc."""


def erfc_continued_fraction(b: ScalarBuilder, x: SSAValue, terms: int) -> SSAValue:
    """`exp(-x**2) / (sqrt(pi) * (x + 1/2 / (x + 1 / (x + 3/2 / ...))))`, `terms` deep."""
    fraction = x
    for k in range(terms, 0, -1):
        fraction = b.add(x, b.div(b.const(k / 2, x), fraction))
    scale = b.mul(b.const(math.sqrt(math.pi), x), fraction)
    return b.div(b.exp(b.neg(b.mul(x, x))), scale)


@torch_op
class AtenErfcOp(UnaryOp):
    """The complementary error function `1 - erf(x)`, accurate where it is tiny (the
    continued fraction from x = 2 on); computed in float64, integers give float32
    (`torch.erfc`, `torch.special.erfc`)."""

    name = "torch.aten.erfc"
    SCHEMA = "aten::erfc(Tensor self) -> Tensor"
    PY_NAMES = ("torch.erfc", "Tensor.erfc", "torch.special.erfc")
    FLOAT_RESULT = True
    SAMPLES = (
        Sample(Tn((3, 4), low=-3.0, high=9.0)),
        Sample(Tn((6,), "float64", -3.0, 26.0)),
    )

    @staticmethod
    def eager(x: Any) -> Any:
        return _ERFC(x).astype(x.dtype) if x.size else x

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        terms = ERFC_TERMS[x.type.bitwidth]  # type: ignore[attr-defined]
        wide = b.cast(x, FLOAT64.signless_attr)
        near = b.sub(b.const(1.0, wide), b.erf(wide))
        far = erfc_continued_fraction(b, wide, terms)
        use_far = b.cmp("ge", wide, b.const(ERFC_SERIES_START, wide))
        return b.cast(b.select(use_far, far, near), x.type)


ERFINV_CENTRAL_RANGE = 0.7


ERFINV_A = (0.886226899, -1.645349621, 0.914624893, -0.140543331)


ERFINV_B = (-2.118377725, 1.442710462, -0.329097515, 0.012229801)


ERFINV_C = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)


ERFINV_D = (3.543889200, 1.637067800)


TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _horner(b: ScalarBuilder, z: SSAValue, coefficients: tuple[float, ...]) -> SSAValue:
    """`c0 + c1 z + c2 z**2 + ...` for coefficients (c0, c1, ...)."""
    out = b.const(coefficients[-1], z)
    for c in reversed(coefficients[:-1]):
        out = b.add(b.mul(out, z), b.const(c, z))
    return out


def erfinv_guess(b: ScalarBuilder, y: SSAValue) -> SSAValue:
    """The rational first guess: central for |y| <= 0.7, tail beyond (both built, one chosen)."""
    one = b.const(1.0, y)
    z = b.mul(y, y)
    central = b.div(
        b.mul(y, _horner(b, z, ERFINV_A)), b.add(b.mul(_horner(b, z, ERFINV_B), z), one)
    )
    y_abs = b.abs(y)
    w = b.sqrt(b.neg(b.log(b.div(b.sub(one, y_abs), b.const(2.0, y)))))
    tail_num = b.math_fn(CopySignOp, _horner(b, w, ERFINV_C), y)
    tail = b.div(tail_num, b.add(b.mul(_horner(b, w, ERFINV_D), w), one))
    return b.select(b.cmp("le", y_abs, b.const(ERFINV_CENTRAL_RANGE, y)), central, tail)


def newton_step(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """`x - (erf(x) - y) / (2/sqrt(pi) * exp(-x**2))`."""
    slope = b.mul(b.const(TWO_OVER_SQRT_PI, x), b.exp(b.neg(b.mul(x, x))))
    return b.sub(x, b.div(b.sub(b.erf(x), y), slope))


def erfinv(y: Any) -> Any:
    """calc_erfinv in numpy, in y's dtype."""
    t = y.dtype.type
    with np.errstate(all="ignore"):
        z = y * y
        central = y * np.polyval(ERFINV_A[::-1], z).astype(y.dtype)
        central = central / (np.polyval(ERFINV_B[::-1], z) * z + 1).astype(y.dtype)
        w = np.sqrt(-np.log((t(1) - np.abs(y)) / t(2)))
        tail = np.copysign(np.polyval(ERFINV_C[::-1], w), y) / (
            np.polyval(ERFINV_D[::-1], w) * w + 1
        )
        x = np.where(np.abs(y) <= ERFINV_CENTRAL_RANGE, central, tail).astype(y.dtype)
        erf = np.vectorize(math.erf, otypes=[np.float64])
        for _ in range(2):
            step = (erf(x).astype(y.dtype) - y) / (t(TWO_OVER_SQRT_PI) * np.exp(-x * x))
            x = (x - step).astype(y.dtype)
        x = np.where(np.abs(y) == 1, np.copysign(np.inf, y), x)
        return np.where(np.abs(y) > 1, np.nan, x).astype(y.dtype)


@torch_op
class AtenErfinvOp(UnaryOp):
    """The inverse error function: PyTorch's rational guess and two Newton steps; NaN beyond
    [-1, 1], +-inf at +-1; integers give float32 (`torch.erfinv`, `torch.special.erfinv`)."""

    name = "torch.aten.erfinv"
    SCHEMA = "aten::erfinv(Tensor self) -> Tensor"
    PY_NAMES = ("torch.erfinv", "Tensor.erfinv", "torch.special.erfinv")
    FLOAT_RESULT = True
    SAMPLES = (
        Sample(Tn((3, 4), low=-0.999, high=0.999)),
        Sample(Tn((6,), "float64", -0.999, 0.999)),
    )

    @staticmethod
    def eager(y: Any) -> Any:
        return erfinv(y) if y.size else y

    @staticmethod
    def payload(b: ScalarBuilder, y: SSAValue) -> SSAValue:
        x = newton_step(b, newton_step(b, erfinv_guess(b, y), y), y)
        y_abs, one = b.abs(y), b.const(1.0, y)
        infinite = b.math_fn(CopySignOp, b.const(float("inf"), y), y)
        x = b.select(b.cmp("eq", y_abs, one), infinite, x)
        return b.select(b.cmp("gt", y_abs, one), b.const(float("nan"), y), x)


@torch_op
class AtenLogitOp(ElementwiseOp):
    """`log(x / (1 - x))`, x first clamped to [eps, 1 - eps] when `eps` is given; integers give
    float32 (`torch.logit`)."""

    name = "torch.aten.logit"
    SCHEMA = "aten::logit(Tensor self, float? eps=None) -> Tensor"
    PY_NAMES = ("torch.logit", "Tensor.logit", "torch.special.logit")
    DTYPE_ARGS = ("self",)
    FLOAT_RESULT = True
    SAMPLES = (Sample(Tn((3, 4), low=0.0, high=1.0)), Sample(Tn((5,), "float64", -0.5, 1.5), 0.1))
    self_ = operand_def(ValueTensorType)
    eps = operand_def(FloatType | IntType | NoneType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, eps: Any = None) -> Any:
        if eps is not None:
            x = np.where(x < eps, eps, np.where(x > 1 - eps, 1 - eps, x)).astype(x.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(x / (1 - x))

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, eps: SSAValue | None) -> SSAValue:
        one = b.const(1.0, x)
        if eps is not None:
            high = b.sub(one, eps)
            x = b.select(b.cmp("lt", x, eps), eps, b.select(b.cmp("gt", x, high), high, x))
        return b.log(b.div(x, b.sub(one, x)))


@torch_op
class AtenSincOp(UnaryOp):
    """`sin(pi x) / (pi x)`, 1 at 0; integers give float32 (`torch.sinc`)."""

    name = "torch.aten.sinc"
    SCHEMA = "aten::sinc(Tensor self) -> Tensor"
    PY_NAMES = ("torch.sinc", "Tensor.sinc", "np.sinc", "torch.special.sinc")
    FLOAT_RESULT = True
    SAMPLES = (Sample(Tn((3, 4), low=-3.0, high=3.0)), Sample(Tn((5,), "int64", -2, 2)))

    @staticmethod
    def eager(x: Any) -> Any:
        product = x * x.dtype.type(math.pi)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(x == 0, 1, np.sin(product) / product)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        product = b.mul(x, b.const(math.pi, x))
        quotient = b.div(b.math_fn(SinOp, product), product)
        return b.select(b.cmp("eq", x, b.const(0.0, x)), b.const(1.0, x), quotient)


def _scaling(stem: str, doc: str, factor: float) -> Any:
    def eager_fn(x: Any) -> Any:
        return x * x.dtype.type(factor)

    def payload_fn(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.mul(x, b.const(factor, x))

    @torch_op
    class Op(UnaryOp):
        __doc__ = doc
        __qualname__ = f"Aten{stem.title()}Op"
        name = f"torch.aten.{stem}"
        SCHEMA = f"aten::{stem}(Tensor self) -> Tensor"
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}", f"np.{stem}")
        FLOAT_RESULT = True
        SAMPLES = (Sample(Tn((3, 4), low=-400.0, high=400.0)),)
        eager = staticmethod(eager_fn)
        payload = staticmethod(payload_fn)

    return Op


AtenDeg2radOp = _scaling("deg2rad", "Degrees to radians, `x * pi / 180` (`torch.deg2rad`).",
                         math.pi / 180)  # fmt: skip


AtenRad2degOp = _scaling("rad2deg", "Radians to degrees, `x * 180 / pi` (`torch.rad2deg`).",
                         180 / math.pi)  # fmt: skip


@torch_op
class AtenSignbitOp(UnaryOp):
    """True where the sign bit is set: negative numbers, -0.0 and NaNs with the sign bit
    (`torch.signbit`)."""

    name = "torch.aten.signbit"
    SCHEMA = "aten::signbit(Tensor self) -> Tensor"
    PY_NAMES = ("torch.signbit", "Tensor.signbit", "np.signbit")
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((5,), "int32", -3, 3)))

    @classmethod
    def result_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        return BOOL

    @staticmethod
    def eager(x: Any) -> Any:
        return np.signbit(x) if x.dtype != np.bool_ else np.zeros(x.shape, bool)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        if b.is_float(x):
            one = b.const(1.0, x)
            return b.cmp("lt", b.math_fn(CopySignOp, one, x), b.const(0.0, x))
        if x.type.width.data == 1:  # type: ignore[attr-defined]
            return b.const(False, x)
        return b.cmp("lt", x, b.const(0, x))


@torch_op
class AtenHeavisideOp(ElementwiseOp):
    """0 where self < 0 (and where it is NaN), `values` where self is 0, 1 where self > 0;
    both of one dtype (`torch.heaviside`)."""

    name = "torch.aten.heaviside"
    SCHEMA = "aten::heaviside(Tensor self, Tensor values) -> Tensor"
    PY_NAMES = ("torch.heaviside", "Tensor.heaviside", "np.heaviside")
    DTYPE_ARGS = ("self", "values")
    SAMPLES = (Sample(Tn((3, 4), "int64", -1, 2), Tn((4,), "int64")),)
    self_ = operand_def(ValueTensorType)
    values = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        dtypes = {a.dtype for a in args if isinstance(a, TensorMeta)}
        if None not in dtypes and len(dtypes) > 1:
            raise TypeError("heaviside is not yet implemented for tensors with different dtypes.")
        return super().compute_dtype(args)

    @staticmethod
    def eager(x: Any, values: Any) -> Any:
        return np.where(x == 0, values, (x > 0).astype(x.dtype))

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, values: SSAValue) -> SSAValue:
        zero = b.const(0, x)
        step = b.select(b.cmp("gt", x, zero), b.const(1, x), zero)
        return b.select(b.cmp("eq", x, zero), values, step)


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


@torch_op
class AtenSpecialEntrOp(UnaryOp):
    """`-x * log(x)` for x > 0, 0 at 0, -inf below 0 (and at +inf), NaN for NaN; integers give
    float32 (`torch.special.entr`)."""

    name = "torch.aten.special_entr"
    SCHEMA = "aten::special_entr(Tensor self) -> Tensor"
    PY_NAMES = ("torch.special.entr",)
    FLOAT_RESULT = True
    SAMPLES = (Sample(Tn((3, 4), low=-0.5, high=3.0)),)

    @staticmethod
    def eager(x: Any) -> Any:
        with np.errstate(all="ignore"):
            positive = -x * np.log(x)
        out = np.where(x > 0, positive, np.where(x == 0, 0, -np.inf))
        return np.where(np.isnan(x), x, out).astype(x.dtype)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        zero = b.const(0.0, x)
        positive = b.neg(b.mul(x, b.log(x)))
        below = b.select(b.cmp("eq", x, zero), zero, b.const(float("-inf"), x))
        out = b.select(b.cmp("gt", x, zero), positive, below)
        return b.select(b.is_nan(x), x, out)


OPS = (
    AtenErfOp,
    AtenErfcOp,
    AtenErfinvOp,
    AtenLogitOp,
    AtenSincOp,
    AtenDeg2radOp,
    AtenRad2degOp,
    AtenSignbitOp,
    AtenHeavisideOp,
    AtenSpecialNdtrOp,
    AtenSpecialXlog1pyOp,
    AtenSpecialXlog1pyOtherScalarOp,
    AtenSpecialEntrOp,
)
