"""Statistics of samples: variance and standard deviation (`torch.var`, `torch.std`, every
overload), and the covariance / correlation matrices `torch.cov`, `torch.corrcoef`."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import FLOAT32
from dialects.torch.families import ScalarOperand, VarianceOp
from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import AtenDivScalarOp, AtenDivTensorOp, AtenSubTensorOp
from dialects.torch.ops.casts import AtenToDtypeOp
from dialects.torch.ops.clamping import AtenClampOp
from dialects.torch.ops.diagonals import AtenDiagonalOp
from dialects.torch.ops.linear import AtenMatmulOp
from dialects.torch.ops.math_functions import AtenSqrtOp
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.reduction import AtenMeanDimOp, axes
from dialects.torch.ops.scalars import AtenMaxIntOp, AtenSubIntOp
from dialects.torch.ops.views import AtenTOp, AtenUnsqueezeOp, AtenViewOp
from dialects.torch.types import BoolType, IntType, ListType, NoneType, ValueTensorType


def variance(x: Any, dim: Any, correction: float, keepdim: bool, sqrt: bool) -> Any:
    """Sum of squared deviations / max(N - correction, 0), like torch (inf/NaN below 1)."""
    reduced = axes(dim, x.ndim)
    count = int(np.prod([x.shape[d] for d in reduced]))
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.sum(x, axis=reduced, keepdims=True) / x.dtype.type(count)
        squares = np.sum((x - mean) ** 2, axis=reduced, keepdims=keepdim)
        result = squares / x.dtype.type(max(count - correction, 0))
        return np.sqrt(result) if sqrt else result


def _forms(stem: str, sqrt: bool) -> tuple[Any, Any, Any]:
    what = "standard deviation" if sqrt else "variance"

    @torch_op
    class Whole(VarianceOp):
        __doc__ = f"The {what} of all elements; `unbiased` divides by N - 1 (`torch.{stem}(x)`)."
        __qualname__ = f"Aten{stem.title()}Op"
        name = f"torch.aten.{stem}"
        SCHEMA = f"aten::{stem}(Tensor self, bool unbiased=True) -> Tensor"
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}")
        SQRT = sqrt
        SAMPLES = (Sample(Tn((5,), "float64"), False),)
        self_ = operand_def(ValueTensorType)
        unbiased = operand_def(BoolType)
        result = result_def(ValueTensorType)

        @staticmethod
        def eager(x: Any, unbiased: bool = True) -> Any:
            return variance(x, None, 1.0 if unbiased else 0.0, False, sqrt)

    @torch_op
    class Dim(VarianceOp):
        __doc__ = f"The {what} over the dims in `dim` (`torch.{stem}(x, dim, unbiased, keepdim)`)."
        __qualname__ = f"Aten{stem.title()}DimOp"
        name = f"torch.aten.{stem}.dim"
        SCHEMA = (
            f"aten::{stem}.dim(Tensor self, int[1]? dim, bool unbiased=True, "
            "bool keepdim=False) -> Tensor"
        )
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}")
        SQRT = sqrt
        SAMPLES = (Sample(Tn((2, 3, 4)), [0, 2], True, True),)
        self_ = operand_def(ValueTensorType)
        dim = operand_def(ListType | NoneType)
        unbiased = operand_def(BoolType)
        keepdim = operand_def(BoolType)
        result = result_def(ValueTensorType)

        @staticmethod
        def eager(x: Any, dim: Any, unbiased: bool = True, keepdim: bool = False) -> Any:
            return variance(x, dim, 1.0 if unbiased else 0.0, keepdim, sqrt)

    @torch_op
    class Correction(VarianceOp):
        __doc__ = (
            f"The {what} dividing by N - `correction` (default 1; `torch.{stem}(x, dim, "
            "correction=0)`)."
        )
        __qualname__ = f"Aten{stem.title()}CorrectionOp"
        name = f"torch.aten.{stem}.correction"
        SCHEMA = (
            f"aten::{stem}.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
            "bool keepdim=False) -> Tensor"
        )
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}")
        SQRT = sqrt
        SAMPLES = (
            Sample(Tn((4, 3)), [0], correction=0, keepdim=True),
            Sample(Tn((2, 3), "float64"), None, correction=2.5),
        )
        self_ = operand_def(ValueTensorType)
        dim = operand_def(ListType | NoneType)
        correction = operand_def(ScalarOperand | NoneType)
        keepdim = operand_def(BoolType)
        result = result_def(ValueTensorType)

        @staticmethod
        def eager(x: Any, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Any:
            return variance(x, dim, 1.0 if correction is None else correction, keepdim, sqrt)

    return Whole, Dim, Correction


AtenVarOp, AtenVarDimOp, AtenVarCorrectionOp = _forms("var", sqrt=False)


AtenStdOp, AtenStdDimOp, AtenStdCorrectionOp = _forms("std", sqrt=True)


def matrix_type(name: str, x: TensorMeta) -> ValueTensorType:
    """[V, V] for V variables (0-d for one), float; torch's checks."""
    if x.dtype is not None and x.dtype.is_bool:
        raise TypeError(f"{name}(): bool dtype is not supported for input")
    if x.rank is not None and x.rank > 2:
        raise ShapeError(
            f"{name}(): expected input to have two or fewer dimensions but got an input with "
            f"{x.rank} dimensions"
        )
    dtype = None if x.dtype is None else x.dtype if x.dtype.is_float else FLOAT32
    if x.shape is None:
        return ValueTensorType(None, dtype)
    variables = 1 if x.rank in (0, 1) else x.shape[0]
    return ValueTensorType(() if variables == 1 else (variables, variables), dtype)


def covariance(seq: OpSequence, x: SSAValue, correction: Any, result: Any) -> SSAValue:
    """`(x - mean) @ (x - mean).T / max(N - correction, 0)`, squeezed like torch."""
    rank = known_rank(x)
    element = result.element
    if x.type.element != element:  # type: ignore[attr-defined]
        x = seq.call(AtenToDtypeOp, x, element.scalar_type, False, False, None)
    if rank != 2:
        x = seq.call(AtenViewOp, x, [1, -1])
    centered = seq.call(AtenSubTensorOp, x, seq.call(AtenMeanDimOp, x, [1], True, None), 1)
    products = seq.call(AtenMatmulOp, centered, seq.call(AtenTOp, centered))
    observations = seq.size(x, 1)
    if isinstance(observations, int):
        divisor: Any = max(observations - correction, 0)
    else:
        divisor = seq.call(AtenMaxIntOp, seq.call(AtenSubIntOp, observations, correction), 0)
    scaled = seq.call(AtenDivScalarOp, products, divisor)
    if result.sizes:
        return scaled
    return seq.call(AtenViewOp, scaled, [])


def numpy_cov(x: Any, correction: int) -> Any:
    dtype = x.dtype.type if x.dtype.kind == "f" else np.float32
    x = np.atleast_2d(x.astype(dtype))
    centered = x - x.mean(1, keepdims=True)
    with np.errstate(all="ignore"):
        out = centered @ centered.T / dtype(max(x.shape[1] - correction, 0))
    return out.squeeze() if out.shape == (1, 1) else out


@torch_op
class AtenCovOp(TorchOp):
    """`torch.cov(x, correction=1)` / `x.cov()` (no weights)."""

    name = "torch.aten.cov"
    SCHEMA = (
        "aten::cov(Tensor self, *, int correction=1, Tensor? fweights=None, "
        "Tensor? aweights=None) -> Tensor"
    )
    PY_NAMES = ("torch.cov", "Tensor.cov", "np.cov")
    SAMPLES = (Sample(Tn((3, 5), "int64", -5, 5), correction=0),)
    self_ = operand_def(ValueTensorType)
    correction = operand_def(IntType)
    fweights = operand_def(ValueTensorType | NoneType)
    aweights = operand_def(ValueTensorType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, correction, fweights, aweights = args
        if fweights is not None or aweights is not None:
            raise TypeError("cov(): fweights and aweights are not supported by tsjit")
        if not isinstance(correction, int):
            raise TypeError("cov(): `correction` must be a constant")
        return [matrix_type("cov", x)]

    @staticmethod
    def eager(x: Any, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Any:
        return numpy_cov(x, correction)

    def decompose(self) -> Any:
        if known_rank(self.self_) is None:
            return None
        seq = OpSequence()
        covariance(seq, self.self_, arg_value(self.correction), self.result.type)
        return seq.ops


@torch_op
class AtenCorrcoefOp(TorchOp):
    """`torch.corrcoef(x)` / `x.corrcoef()`: cov scaled by the standard deviations, clipped
    to [-1, 1] (one variable: `c / c`)."""

    name = "torch.aten.corrcoef"
    SCHEMA = "aten::corrcoef(Tensor self) -> Tensor"
    PY_NAMES = ("torch.corrcoef", "Tensor.corrcoef", "np.corrcoef")
    SAMPLES = (Sample(Tn((3, 6))),)
    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return [matrix_type("corrcoef", args[0])]

    @staticmethod
    def eager(x: Any) -> Any:
        c = numpy_cov(x, 1)
        with np.errstate(all="ignore"):
            if c.ndim == 0:
                return c / c
            std = np.sqrt(np.diagonal(c))
            return np.clip(c / std[:, None] / std[None, :], -1, 1)

    def decompose(self) -> Any:
        if known_rank(self.self_) is None:
            return None
        seq = OpSequence()
        c = covariance(seq, self.self_, 1, self.result.type)
        if not self.result.type.sizes:  # type: ignore[attr-defined]
            seq.call(AtenDivTensorOp, c, c)
            return seq.ops
        std = seq.call(AtenSqrtOp, seq.call(AtenDiagonalOp, c, 0, 0, 1))
        rows = seq.call(AtenDivTensorOp, c, seq.call(AtenUnsqueezeOp, std, 1))
        scaled = seq.call(AtenDivTensorOp, rows, seq.call(AtenUnsqueezeOp, std, 0))
        seq.call(AtenClampOp, scaled, -1.0, 1.0)
        return seq.ops


OPS = (
    AtenVarOp,
    AtenVarDimOp,
    AtenVarCorrectionOp,
    AtenStdOp,
    AtenStdDimOp,
    AtenStdCorrectionOp,
    AtenCovOp,
    AtenCorrcoefOp,
)
