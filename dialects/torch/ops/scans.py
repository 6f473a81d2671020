"""Scans along a dim: cumsum, cumprod, cummax / cummin (values, indices), logcumsumexp.

Each is computed by a kernel row by row (`dialects/torch/ops/along_dim.py`). cumsum and
cumprod widen bool and integer inputs to int64 (or to an explicit `dtype`) and accumulate in
the result dtype; cummax / cummin move the index forward on ties and stick to NaN (torch).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch import kernel_refs
from dialects.torch.dtypes import INT64, DType
from dialects.torch.families import explicit_dtype
from dialects.torch.meta import TensorMeta
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.along_dim import AlongDimOp, KernelPlan, row_dim
from dialects.torch.types import IntType, NoneType, ValueTensorType


def _axis(x: Any, dim: int) -> int | None:
    return dim % x.ndim if x.ndim else None


class AccumulateOp(AlongDimOp):
    """cumsum / cumprod: running sums or products in the result dtype (`NUMPY`: the numpy
    reference, `np.cumsum` / `np.cumprod`)."""

    NUMPY: ClassVar[Any]

    @classmethod
    def result_dtype(cls, named: dict[str, Any]) -> DType | None:
        explicit = explicit_dtype(named)
        if explicit is not None:
            return explicit
        x: TensorMeta = named["self"]
        if x.dtype is not None and not x.dtype.is_float:
            return INT64
        return x.dtype

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        named = cls.named_args(args)
        row_dim(cls, named)
        return [ValueTensorType(named["self"].shape, cls.result_dtype(named))]

    def plan(self) -> KernelPlan:
        return KernelPlan(self.KERNEL, row_dim(type(self), self.named()), (), (0,))

    @classmethod
    def eager(cls, x: Any, dim: int, dtype: Any = None) -> Any:
        named = cls.named_args((TensorMeta.of_array(x), dim, dtype))
        result = cls.result_dtype(named)
        assert result is not None
        out = cls.NUMPY(x.astype(result.numpy), axis=_axis(x, dim))
        return out.reshape(x.shape)


@torch_op
class AtenCumsumOp(AccumulateOp):
    """`torch.cumsum(x, dim, dtype=None)`: running sums along `dim`."""

    name = "torch.aten.cumsum"
    SCHEMA = "aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.cumsum", "Tensor.cumsum")
    SAMPLES = (Sample(Tn((3, 5)), 1), Sample(Tn((4, 3), "bool"), 0))
    KERNEL = kernel_refs.CUMSUM
    NUMPY = staticmethod(np.cumsum)
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)


@torch_op
class AtenCumprodOp(AccumulateOp):
    """`torch.cumprod(x, dim, dtype=None)`: running products along `dim`."""

    name = "torch.aten.cumprod"
    SCHEMA = "aten::cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.cumprod", "Tensor.cumprod")
    SAMPLES = (
        Sample(Tn((2, 4, 3), low=0.5, high=1.5), -2),
        Sample(Tn((5,), "int32", -3, 3), 0, dtype=7),
    )
    KERNEL = kernel_refs.CUMPROD
    NUMPY = staticmethod(np.cumprod)
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)


def running_extreme(x: Any, dim: int, largest: bool) -> tuple[Any, Any]:
    """The numpy reference of cummax / cummin: values and the index each was last reached at."""
    values, indices = np.empty_like(x), np.zeros(x.shape, np.int64)
    if x.ndim == 0:
        return x.copy(), indices
    axis = dim % x.ndim
    moved_x, moved_v, moved_i = (np.moveaxis(a, axis, -1) for a in (x, values, indices))
    for row in np.ndindex(moved_x.shape[:-1]):
        best, at = None, 0
        for j, v in enumerate(moved_x[row]):
            wins = best is None or (v >= best if largest else v <= best)
            if wins or v != v:
                best, at = v, j
            moved_v[row][j], moved_i[row][j] = best, at
    return values, indices


def _cumulative_extreme(stem: str, largest: bool) -> Any:
    word = "max" if largest else "min"

    @torch_op
    class CumExtreme(AlongDimOp):
        __doc__ = (
            f"`torch.{stem}(x, dim)` -> (values, indices): the running {word} along `dim` and "
            f"the index it was last reached at (ties move it forward; NaN sticks, like torch)."
        )
        __qualname__ = f"Aten{stem.title()}Op"
        name = f"torch.aten.{stem}"
        SCHEMA = f"aten::{stem}(Tensor self, int dim) -> (Tensor values, Tensor indices)"
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}")
        SAMPLES = (Sample(Tn((3, 5)), 1), Sample(Tn((4, 3), "int64", -2, 2), 0))
        KERNEL = kernel_refs.CUMEXTREME
        self_ = operand_def(ValueTensorType)
        dim = operand_def(IntType)
        values = result_def(ValueTensorType)
        indices = result_def(ValueTensorType)

        @classmethod
        def infer(cls, *args: Any) -> list[Attribute]:
            named = cls.named_args(args)
            row_dim(cls, named)
            x: TensorMeta = named["self"]
            return [ValueTensorType(x.shape, x.dtype), ValueTensorType(x.shape, INT64)]

        def plan(self) -> KernelPlan:
            dim = row_dim(type(self), self.named())
            return KernelPlan(self.KERNEL, dim, (int(largest),), (0, 1))

        @staticmethod
        def eager(x: Any, dim: int) -> Any:
            return running_extreme(x, dim, largest)

    return CumExtreme


AtenCummaxOp = _cumulative_extreme("cummax", largest=True)
AtenCumminOp = _cumulative_extreme("cummin", largest=False)


@torch_op
class AtenLogcumsumexpOp(AlongDimOp):
    """`torch.logcumsumexp(x, dim)`: running log(sum(exp(x))) along `dim`, without overflow;
    floating point inputs only (like torch)."""

    name = "torch.aten.logcumsumexp"
    SCHEMA = "aten::logcumsumexp(Tensor self, int dim) -> Tensor"
    PY_NAMES = ("torch.logcumsumexp", "Tensor.logcumsumexp")
    SAMPLES = (Sample(Tn((3, 5), low=-30.0, high=30.0), 1), Sample(Tn((4,), "float64"), 0))
    KERNEL = kernel_refs.LOGCUMSUMEXP
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        named = cls.named_args(args)
        row_dim(cls, named)
        x: TensorMeta = named["self"]
        if x.dtype is not None and not x.dtype.is_float:
            raise TypeError(f'"logcumsumexp_out_cpu" not implemented for {x.dtype.name}')
        return [ValueTensorType(x.shape, x.dtype)]

    def plan(self) -> KernelPlan:
        return KernelPlan(self.KERNEL, row_dim(type(self), self.named()), (), (0,))

    @staticmethod
    def eager(x: Any, dim: int) -> Any:
        if x.ndim == 0:
            return x.copy()
        with np.errstate(all="ignore"):
            out = np.logaddexp.accumulate(x.astype(np.float64), axis=dim % x.ndim)
        return out.astype(x.dtype)


OPS = (AtenCumsumOp, AtenCumprodOp, AtenCummaxOp, AtenCumminOp, AtenLogcumsumexpOp)
