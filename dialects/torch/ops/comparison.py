"""Comparisons: gt, lt, ge, le, eq, ne (Tensor and Scalar), the elementwise extremes
maximum / minimum (`torch.max(a, b)`), fmax / fmin (NaN-ignoring), isin (membership) and
`torch.equal` (same shape and values)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import f32
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import BOOL, is_float_attr
from dialects.torch.families import (
    BinaryOp,
    BinaryScalarOp,
    ComparisonMixin,
    ElementwiseOp,
    ScalarOperand,
)
from dialects.torch.meta import TensorMeta
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.logical import AtenLogicalNotOp
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.prim import ConstantBoolOp
from dialects.torch.ops.reduction import AtenAllOp, AtenAnyDimOp, AtenAnyOp
from dialects.torch.ops.scalars import AtenBoolTensorOp
from dialects.torch.ops.views import AtenReshapeOp, AtenUnsqueezeOp
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN, BoolType, FloatType, ValueTensorType

COMPARE_SAMPLES = (
    Sample(Tn((3, 4)), Tn((3, 4))),
    Sample(Tn((2, 3)), Tn((3,))),
    Sample(Tn((5,), "int64"), Tn((5,))),
)


COMPARE_SCALAR_SAMPLES = (Sample(Tn((3, 4)), 0.5), Sample(Tn((6,), "int64"), 0))


def _comparison(predicate: str, numpy_fn: Any, py_name: str, operator_name: str) -> tuple[Any, ...]:
    """The Tensor and Scalar forms of one comparison."""

    def eager_fn(x: Any, y: Any) -> Any:
        return numpy_fn(x, y)

    names = (f"torch.{py_name}", f"Tensor.{py_name}", f"operator.{operator_name}")
    doc = f"`self {predicate} other` elementwise, giving bool (`torch.{py_name}`)."

    @torch_op
    class TensorForm(ComparisonMixin, BinaryOp):
        __doc__ = doc
        __qualname__ = f"Aten{py_name.title()}TensorOp"
        name = f"torch.aten.{py_name}.Tensor"
        SCHEMA = f"aten::{py_name}.Tensor(Tensor self, Tensor other) -> Tensor"
        PY_NAMES = names
        PREDICATE = predicate
        SAMPLES = COMPARE_SAMPLES
        eager = staticmethod(eager_fn)

    @torch_op
    class ScalarForm(ComparisonMixin, BinaryScalarOp):
        __doc__ = doc
        __qualname__ = f"Aten{py_name.title()}ScalarOp"
        name = f"torch.aten.{py_name}.Scalar"
        SCHEMA = f"aten::{py_name}.Scalar(Tensor self, Scalar other) -> Tensor"
        PY_NAMES = names
        PREDICATE = predicate
        SAMPLES = COMPARE_SCALAR_SAMPLES
        eager = staticmethod(eager_fn)

    return TensorForm, ScalarForm


AtenGtTensorOp, AtenGtScalarOp = _comparison("gt", np.greater, "gt", "gt")


AtenLtTensorOp, AtenLtScalarOp = _comparison("lt", np.less, "lt", "lt")


AtenGeTensorOp, AtenGeScalarOp = _comparison("ge", np.greater_equal, "ge", "ge")


AtenLeTensorOp, AtenLeScalarOp = _comparison("le", np.less_equal, "le", "le")


AtenEqTensorOp, AtenEqScalarOp = _comparison("eq", np.equal, "eq", "eq")


AtenNeTensorOp, AtenNeScalarOp = _comparison("ne", np.not_equal, "ne", "ne")


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


SAMPLES = (Sample(Tn((3, 4)), Tn((4,))), Sample(Tn((5,), "int64", -9, 9), Tn((5,), "int32", -9, 9)))


@torch_op
class AtenFmaxOp(BinaryOp):
    """NaN-ignoring elementwise max, broadcast and promoted (`torch.fmax`, `x.fmax(y)`)."""

    name = "torch.aten.fmax"
    SCHEMA = "aten::fmax(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("torch.fmax", "Tensor.fmax", "np.fmax")
    SAMPLES = SAMPLES[1:]

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        return np.fmax(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        if is_float_attr(x.type):
            return b.emit(arith.MaxnumfOp(x, y))
        return b.maximum(x, y)


@torch_op
class AtenFminOp(BinaryOp):
    """NaN-ignoring elementwise min, broadcast and promoted (`torch.fmin`, `x.fmin(y)`)."""

    name = "torch.aten.fmin"
    SCHEMA = "aten::fmin(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("torch.fmin", "Tensor.fmin", "np.fmin")
    SAMPLES = SAMPLES[:1]

    @staticmethod
    def eager(x: Any, y: Any) -> Any:
        return np.fmin(x, y)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        if is_float_attr(x.type):
            return b.emit(arith.MinnumfOp(x, y))
        return b.minimum(x, y)


class _Isin(TorchOp):
    PY_NAMES = ("torch.isin",)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        elements = args[0]
        shape = elements.shape if isinstance(elements, TensorMeta) else ()
        return [ValueTensorType(shape, BOOL)]

    @staticmethod
    def eager(elements: Any, test: Any, assume_unique: bool = False, invert: bool = False) -> Any:
        return np.isin(elements, test, invert=invert)

    def finish(self, seq: OpSequence, found: Any) -> Any:
        if arg_value(self.operands[3]) is True:
            seq.call(AtenLogicalNotOp, found)
        return seq.ops


@torch_op
class AtenIsinTensorTensorOp(_Isin):
    """`torch.isin(x, t)`: `(x.unsqueeze(-1) == t.flatten()).any(-1)` (a bool per element)."""

    name = "torch.aten.isin.Tensor_Tensor"
    SCHEMA = (
        "aten::isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, "
        "bool assume_unique=False, bool invert=False) -> Tensor"
    )
    SAMPLES = (Sample(Tn((5,), "int64", -3, 3), Tn((3,), "float32", -3, 3), invert=True),)
    elements = operand_def(ValueTensorType)
    test_elements = operand_def(ValueTensorType)
    assume_unique = operand_def(BoolType)
    invert = operand_def(BoolType)
    result = result_def(ValueTensorType)

    def decompose(self) -> Any:
        elements, test = self.operands[0], self.operands[1]
        if known_rank(elements) is None:
            return None
        seq = OpSequence()
        column = seq.call(AtenUnsqueezeOp, elements, -1)
        row = seq.call(AtenReshapeOp, test, [-1])
        equal = seq.call(AtenEqTensorOp, column, row)
        return self.finish(seq, seq.call(AtenAnyDimOp, equal, -1, False))


@torch_op
class AtenIsinTensorScalarOp(_Isin):
    """`torch.isin(x, 3)`: `x == 3`."""

    name = "torch.aten.isin.Tensor_Scalar"
    SCHEMA = (
        "aten::isin.Tensor_Scalar(Tensor elements, Scalar test_element, *, "
        "bool assume_unique=False, bool invert=False) -> Tensor"
    )
    SAMPLES = (Sample(Tn((6,), "int64", -2, 2), 1),)
    elements = operand_def(ValueTensorType)
    test_element = operand_def(ScalarOperand)
    assume_unique = operand_def(BoolType)
    invert = operand_def(BoolType)
    result = result_def(ValueTensorType)

    def decompose(self) -> Any:
        seq = OpSequence()
        found = seq.call(AtenEqScalarOp, self.operands[0], self.operands[1])
        return self.finish(seq, found)


@torch_op
class AtenIsinScalarTensorOp(_Isin):
    """`torch.isin(3, t)`: a 0-d bool, `(t == 3).any()`."""

    name = "torch.aten.isin.Scalar_Tensor"
    SCHEMA = (
        "aten::isin.Scalar_Tensor(Scalar element, Tensor test_elements, *, "
        "bool assume_unique=False, bool invert=False) -> Tensor"
    )
    SAMPLES = (Sample(2, Tn((2, 3), "int64", -3, 3)),)
    element = operand_def(ScalarOperand)
    test_elements = operand_def(ValueTensorType)
    assume_unique = operand_def(BoolType)
    invert = operand_def(BoolType)
    result = result_def(ValueTensorType)

    def decompose(self) -> Any:
        seq = OpSequence()
        equal = seq.call(AtenEqScalarOp, self.operands[1], self.operands[0])
        return self.finish(seq, seq.call(AtenAnyOp, equal))


@torch_op
class AtenEqualOp(TorchOp):
    """`torch.equal(a, b)` / `a.equal(b)`: whether both have the same shape and values, a
    Python bool. Decomposes into `bool((a == b).all())`, or `False` when the shapes known
    while compiling differ (sizes known only at run time are assumed equal: a mismatch there
    broadcasts or fails like `==`)."""

    name = "torch.aten.equal"
    SCHEMA = "aten::equal(Tensor self, Tensor other) -> bool"
    PY_NAMES = ("torch.equal", "Tensor.equal")
    SAMPLES = (Sample(Tn((3, 4), "int64", 0, 1.5), Tn((3, 4), "int64", 0, 1.5)),
               Sample(Tn((2, 3)), Tn((3, 2))))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    result = result_def(BoolType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return [BoolType()]

    @staticmethod
    def eager(x: Any, other: Any) -> Any:
        return bool(x.shape == other.shape and np.array_equal(x, other))

    def decompose(self) -> Any:
        a, b = self.self_.type, self.other.type
        if not (isinstance(a, ValueTensorType) and isinstance(b, ValueTensorType)):
            return None
        if a.sizes is None or b.sizes is None:
            return None
        if len(a.sizes) != len(b.sizes) or any(
            x != y and DYN not in (x, y) for x, y in zip(a.sizes, b.sizes)
        ):
            return [ConstantBoolOp(False)]
        s = OpSequence()
        same = s.call(AtenEqTensorOp, self.self_, self.other)
        s.call(AtenBoolTensorOp, s.call(AtenAllOp, same))
        return s.ops


def check_tolerances(rtol: Any, atol: Any) -> None:
    for name, value in (("rtol", rtol), ("atol", atol)):
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise TypeError(f"isclose: `{name}` must be a constant float")
        if value < 0:
            raise ValueError(f"{name} must be greater than or equal to zero, but got {value:g}")


TORCH_NAMES = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
               "bool": "Bool"}  # fmt: skip


@torch_op
class AtenIscloseOp(ElementwiseOp):
    """`torch.isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)`: a == b, or |a - b| finite
    and at most atol + |rtol * b| (integers compared in float32); NaNs match with `equal_nan`.
    Both inputs must have the same dtype, as in torch."""

    name = "torch.aten.isclose"
    SCHEMA = (
        "aten::isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, "
        "bool equal_nan=False) -> Tensor"
    )
    PY_NAMES = ("torch.isclose", "Tensor.isclose")
    STATIC_ARGS = ("rtol", "atol", "equal_nan")
    SAMPLES = (
        Sample(Tn((3, 4), low=-1.0, high=1.0), Tn((4,), low=-1.0, high=1.0), 0.5, 0.2),
        Sample(Tn((5,), "int64", 0, 9), Tn((5,), "int64", 0, 9), 0.3, 1.0, True),
    )
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    rtol = operand_def(FloatType)
    atol = operand_def(FloatType)
    equal_nan = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def result_dtype(cls, args: tuple[Any, ...]) -> Any:
        a, b, rtol, atol, _ = args
        check_tolerances(rtol, atol)
        if a.dtype is not None and b.dtype is not None and a.dtype != b.dtype:
            raise TypeError(
                f"{TORCH_NAMES[a.dtype.name]} did not match {TORCH_NAMES[b.dtype.name]}"
            )
        return BOOL

    @staticmethod
    def eager(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
              equal_nan: bool = False) -> Any:  # fmt: skip
        close = a == b
        if equal_nan:
            close = close | (np.isnan(a) & np.isnan(b))
        if rtol == 0 and atol == 0:
            return close
        if a.dtype.kind != "f":
            a, b = a.astype(np.float32), b.astype(np.float32)
        error = np.abs(a - b)
        with np.errstate(invalid="ignore"):
            return close | (np.isfinite(error) & (error <= atol + np.abs(rtol * b)))

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, y: SSAValue, rtol: float, atol: float,
                equal_nan: bool) -> SSAValue:  # fmt: skip
        close = b.cmp("eq", x, y)
        if equal_nan and ScalarBuilder.is_float(x):
            close = b.or_(close, b.and_(b.is_nan(x), b.is_nan(y)))
        if rtol == 0 and atol == 0:
            return close
        if not ScalarBuilder.is_float(x):
            x, y = b.cast(x, f32), b.cast(y, f32)
        error = b.abs(b.sub(x, y))
        allowed = b.add(b.const(float(atol), x), b.abs(b.mul(b.const(float(rtol), x), y)))
        finite = b.cmp("lt", error, b.const(float("inf"), x))
        return b.or_(close, b.and_(finite, b.cmp("le", error, allowed)))


@torch_op
class AtenAllcloseOp(TorchOp):
    """`torch.allclose(a, b, rtol, atol, equal_nan)`: whether `isclose` holds everywhere, a
    Python bool (`bool(isclose(...).all())`)."""

    name = "torch.aten.allclose"
    SCHEMA = (
        "aten::allclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, "
        "bool equal_nan=False) -> bool"
    )
    PY_NAMES = ("torch.allclose", "Tensor.allclose")
    SAMPLES = (Sample(Tn((3, 4)), Tn((3, 4)), 0.0, 2.0), Sample(Tn((2, 3)), Tn((3,))))
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    rtol = operand_def(FloatType)
    atol = operand_def(FloatType)
    equal_nan = operand_def(BoolType)
    result = result_def(BoolType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        AtenIscloseOp.infer(*args)
        return [BoolType()]

    @staticmethod
    def eager(*args: Any) -> Any:
        return bool(np.all(AtenIscloseOp.eager(*args)))

    def decompose(self) -> Any:
        s = OpSequence()
        close = s.call(AtenIscloseOp, *self.operands)
        s.call(AtenBoolTensorOp, s.call(AtenAllOp, close))
        return s.ops


OPS = (
    AtenIscloseOp,
    AtenAllcloseOp,
    AtenGtTensorOp,
    AtenGtScalarOp,
    AtenLtTensorOp,
    AtenLtScalarOp,
    AtenGeTensorOp,
    AtenGeScalarOp,
    AtenLeTensorOp,
    AtenLeScalarOp,
    AtenEqTensorOp,
    AtenEqScalarOp,
    AtenNeTensorOp,
    AtenNeScalarOp,
    AtenMaximumOp,
    AtenMaxOtherOp,
    AtenMinimumOp,
    AtenMinOtherOp,
    AtenFmaxOp,
    AtenFminOp,
    AtenIsinTensorTensorOp,
    AtenIsinTensorScalarOp,
    AtenIsinScalarTensorOp,
    AtenEqualOp,
)
