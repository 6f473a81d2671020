"""Variance and standard deviation (`torch.var`, `torch.std`) with every torch overload:
`unbiased`, dim lists, `correction=`, keepdim."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.irdl import operand_def, result_def

from dialects.torch.families import ScalarOperand, VarianceOp
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.reduction import axes
from dialects.torch.types import BoolType, ListType, NoneType, ValueTensorType


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

OPS = (AtenVarOp, AtenVarDimOp, AtenVarCorrectionOp, AtenStdOp, AtenStdDimOp, AtenStdCorrectionOp)
