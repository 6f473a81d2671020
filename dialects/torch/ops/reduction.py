"""Reductions: sum and max, over all dims or a list of dims, with keepdim."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import dtype_of_code
from dialects.torch.families import MaxMixin, ReductionOp, SumMixin
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.types import BoolType, IntType, ListType, NoneType, ValueTensorType


def _axes(dim: Any, ndim: int) -> tuple[int, ...]:
    if dim is None or dim == []:
        return tuple(range(ndim))
    return tuple(d % max(ndim, 1) for d in ([dim] if isinstance(dim, int) else dim))


def _sum_dtype(x: Any, dtype: int | None) -> Any:
    """torch sums in the requested dtype, else int64 for integers and bools."""
    if dtype is not None:
        return dtype_of_code(dtype).numpy
    return np.int64 if x.dtype.kind in "bi" else None


@torch_op
class AtenSumOp(SumMixin, ReductionOp):
    """Sum of all elements, a 0-d tensor; ints and bools sum as int64 (`torch.sum(x)`)."""

    name = "torch.aten.sum"
    SCHEMA = "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.sum", "Tensor.sum", "np.sum")
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((5,), "int64")), Sample(Tn((0, 3))),
               Sample(Tn((6,), "bool")), Sample(Tn((2, 3)), dtype=7))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, dtype: Any = None) -> Any:
        return np.sum(x, dtype=_sum_dtype(x, dtype))


@torch_op
class AtenSumDimIntListOp(SumMixin, ReductionOp):
    """Sum over the dims in `dim` (`torch.sum(x, dim, keepdim)`)."""

    name = "torch.aten.sum.dim_IntList"
    SCHEMA = (
        "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor"
    )
    PY_NAMES = ("torch.sum", "Tensor.sum", "np.sum")
    SAMPLES = (Sample(Tn((3, 4)), [1]), Sample(Tn((3, 4)), [0], True),
               Sample(Tn((2, 3, 4)), [0, 2]), Sample(Tn((2, 3, 4)), [-1], True),
               Sample(Tn((4, 5), "int32"), [0]), Sample(Tn((3, 4)), None))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    dim = operand_def(ListType | NoneType)
    keepdim = operand_def(BoolType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, dim: Any, keepdim: bool = False, dtype: Any = None) -> Any:
        return np.sum(x, axis=_axes(dim, x.ndim), keepdims=keepdim, dtype=_sum_dtype(x, dtype))


@torch_op
class AtenMaxOp(MaxMixin, ReductionOp):
    """Largest element, a 0-d tensor; NaN if any element is NaN (`torch.max(x)`)."""

    name = "torch.aten.max"
    SCHEMA = "aten::max(Tensor self) -> Tensor"
    PY_NAMES = ("torch.max", "Tensor.max", "np.max", "np.amax")
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((7,), "int64")), Sample(Tn((1,))))
    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any) -> Any:
        if x.size == 0:
            raise ValueError("max(): Expected reduction dim to be specified for input.numel() == 0")
        return np.max(x)


@torch_op
class AtenMaxDimOp(MaxMixin, ReductionOp):
    """Largest value along `dim` and the index of its first occurrence (`torch.max(x, dim)`)."""

    name = "torch.aten.max.dim"
    SCHEMA = (
        "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"
    )
    PY_NAMES = ("torch.max", "Tensor.max")
    SAMPLES = (
        Sample(Tn((3, 4)), 1),
        Sample(Tn((3, 4)), 0, True),
        Sample(Tn((2, 3, 4), "int64"), -1),
    )
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    keepdim = operand_def(BoolType)
    values = result_def(ValueTensorType)
    indices = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, dim: int, keepdim: bool = False) -> Any:
        index = np.argmax(x, axis=dim, keepdims=keepdim)
        values = np.max(x, axis=dim, keepdims=keepdim)
        return values, index.astype(np.int64)


@torch_op
class AtenAmaxOp(MaxMixin, ReductionOp):
    """Largest value over the dims in `dim` (`torch.amax`)."""

    name = "torch.aten.amax"
    SCHEMA = "aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor"
    PY_NAMES = ("torch.amax", "Tensor.amax")
    SAMPLES = (Sample(Tn((3, 4)), [1]), Sample(Tn((2, 3, 4)), [0, 2], True))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(ListType)
    keepdim = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, dim: Any = (), keepdim: bool = False) -> Any:
        return np.max(x, axis=_axes(list(dim), x.ndim), keepdims=keepdim)


OPS = (AtenSumOp, AtenSumDimIntListOp, AtenMaxOp, AtenMaxDimOp, AtenAmaxOp)
