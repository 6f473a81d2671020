"""erfc and erfinv, which neither xDSL's `math` dialect nor numba's libm calls offer as one op:
their payloads compute them from `math.erf`, `math.exp`, `math.log` and arithmetic."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from xdsl.dialects.math import CopySignOp
from xdsl.ir import SSAValue

from dialects.torch.dtypes import FLOAT64
from dialects.torch.families import UnaryOp
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.scalar_builder import ScalarBuilder

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
    PY_NAMES = ("torch.erfc", "Tensor.erfc")
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


# ---- erfinv: PyTorch's calc_erfinv ----

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
    PY_NAMES = ("torch.erfinv", "Tensor.erfinv")
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


OPS = (AtenErfcOp, AtenErfinvOp)
