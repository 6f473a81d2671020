"""Elementwise ops: arithmetic, activations and comparisons, each lowered from its `payload`."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from dialects.torch.families import (
    BinaryAlphaOp,
    BinaryOp,
    BinaryScalarAlphaOp,
    BinaryScalarOp,
    ComparisonMixin,
    UnaryOp,
)
from dialects.torch.folding import fold_to_self
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.scalar_builder import ScalarBuilder

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

# ---- arithmetic ----


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


# ---- unary ----


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


# ---- comparisons ----

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

OPS = (
    AtenAddTensorOp, AtenAddScalarOp, AtenSubTensorOp, AtenSubScalarOp, AtenRsubScalarOp,
    AtenMulTensorOp, AtenMulScalarOp, AtenDivTensorOp, AtenDivScalarOp,
    AtenNegOp, AtenReciprocalOp, AtenReluOp, AtenTanhOp, AtenSigmoidOp, AtenExpOp,
    AtenGtTensorOp, AtenGtScalarOp, AtenLtTensorOp, AtenLtScalarOp,
    AtenGeTensorOp, AtenGeScalarOp, AtenLeTensorOp, AtenLeScalarOp,
    AtenEqTensorOp, AtenEqScalarOp, AtenNeTensorOp, AtenNeScalarOp,
)  # fmt: skip
