"""Ops along a dim that accumulate or difference neighbours: the scans cumsum, cumprod,
cummax / cummin (values, indices) and logcumsumexp (numba kernels), the trapezoidal rule
(`torch.trapezoid`, `cumulative_trapezoid`) and `torch.diff`.

Each is computed by a kernel row by row (`dialects/torch/ops/along_dim.py`). cumsum and
cumprod widen bool and integer inputs to int64 (or to an explicit `dtype`) and accumulate in
the result dtype; cummax / cummin move the index forward on ties and stick to NaN (torch).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch import kernel_refs
from dialects.torch.dtypes import FLOAT32, INT64, DType, result_type
from dialects.torch.families import explicit_dtype
from dialects.torch.meta import ShapeError, TensorMeta, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.along_dim import AlongDimOp, KernelPlan, row_dim
from dialects.torch.ops.arithmetic import (
    AtenAddTensorOp,
    AtenMulScalarOp,
    AtenMulTensorOp,
    AtenSubTensorOp,
)
from dialects.torch.ops.data_movement import AtenSliceTensorOp
from dialects.torch.ops.joining import AtenCatOp
from dialects.torch.ops.logical import AtenLogicalXorOp
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.reduction import AtenSumDimIntListOp
from dialects.torch.ops.views import AtenCloneOp, AtenViewOp
from dialects.torch.types import DYN, FloatType, IntType, NoneType, ValueTensorType


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


def _float_dtype(*tensors: TensorMeta) -> Any:
    if any(t.dtype is None for t in tensors):
        return None
    dtype = result_type([(t.dtype, t.rank or 0) for t in tensors], [])
    return dtype if dtype.is_float else FLOAT32


class _Trapezoid(TorchOp):
    """Shared rule: y is at least 1-D; the integral drops `dim`, the cumulative form keeps it
    one shorter."""

    CUMULATIVE = False

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        y = args[0]
        x = args[1] if isinstance(args[1], TensorMeta) else None
        dim = args[-1]
        dtype = _float_dtype(y, *([x] if x is not None else []))
        if y.rank is None:
            return [ValueTensorType(None, dtype)]
        if not isinstance(dim, int):
            raise TypeError(f"{cls.name}: `dim` must be a constant")
        axis = normalize_dim(dim, y.rank)
        points = None if x is None or x.rank not in (0, 1) else (x.shape[0] if x.rank else 1)
        if points is not None and points not in (DYN, y.shape[axis]):
            raise ShapeError(
                "trapezoid: There must be one `x` value for each sample point"
                if not cls.CUMULATIVE
                else "cumulative_trapezoid: There must be one `x` value for each sample point"
            )
        shape = list(y.shape)
        if cls.CUMULATIVE:
            shape[axis] = DYN if shape[axis] == DYN else max(shape[axis] - 1, 0)
        else:
            del shape[axis]
        return [ValueTensorType(tuple(shape), dtype)]

    @classmethod
    def integrate(cls, y: Any, spacing: Any, dim: int) -> Any:
        """numpy: sum (or cumsum) of `(y[1:] + y[:-1]) * spacing / 2` along dim."""
        y = np.moveaxis(np.asarray(y, dtype=_numpy_float(y, spacing)), dim, -1)
        spacing = np.moveaxis(spacing, dim, -1) if np.ndim(spacing) else spacing
        pieces = (y[..., 1:] + y[..., :-1]) * spacing / 2
        out = np.cumsum(pieces, -1) if cls.CUMULATIVE else pieces.sum(-1)
        return np.moveaxis(out, -1, dim) if cls.CUMULATIVE else out

    def lower_sum(self, seq: OpSequence, y: SSAValue, spacing: SSAValue | float, axis: int) -> Any:
        later = seq.call(AtenSliceTensorOp, y, axis, 1, None, 1)
        earlier = seq.call(AtenSliceTensorOp, y, axis, 0, -1, 1)
        pairs = seq.call(AtenAddTensorOp, later, earlier, 1)
        if isinstance(spacing, float):
            scaled = seq.call(AtenMulScalarOp, pairs, spacing / 2)
        else:
            halves = seq.call(AtenMulScalarOp, pairs, 0.5)
            scaled = seq.call(AtenMulTensorOp, halves, spacing)
        if self.CUMULATIVE:
            seq.call(AtenCumsumOp, scaled, axis, None)
        else:
            seq.call(AtenSumDimIntListOp, scaled, [axis], False, None)
        return seq.ops


def _numpy_float(*values: Any) -> Any:
    dtype = np.result_type(*values)
    return dtype if dtype.kind == "f" else np.float32


class _WithSpacing(_Trapezoid):
    @classmethod
    def eager(cls, y: Any, dx: Any = 1, dim: int = -1) -> Any:  # type: ignore[override]
        dtype = _numpy_float(y)
        out = cls.integrate(y.astype(dtype), np.asarray(dx, dtype), dim % y.ndim)
        return np.asarray(out, dtype=dtype)

    def decompose(self) -> Any:
        y, dx, dim = self.operands
        rank = known_rank(y)
        spacing = arg_value(dx)
        if rank is None or not isinstance(spacing, int | float):
            return None
        return self.lower_sum(OpSequence(), y, float(spacing), normalize_dim(arg_value(dim), rank))


class _WithPoints(_Trapezoid):
    @classmethod
    def eager(cls, y: Any, x: Any, dim: int = -1) -> Any:  # type: ignore[override]
        dtype = _numpy_float(y, x)
        axis = dim % y.ndim
        if x.ndim <= 1:  # points along `dim` (a 0-d x: one point)
            x = x.reshape([-1 if d == axis else 1 for d in range(y.ndim)])
        x = np.broadcast_to(
            x.astype(dtype), (*y.shape[:axis], x.shape[axis - y.ndim], *y.shape[axis + 1 :])
        )
        x = np.diff(x, axis=axis)
        return np.asarray(cls.integrate(y.astype(dtype), x, axis), dtype=dtype)

    def decompose(self) -> Any:
        y, x, dim = self.operands
        rank, x_rank = known_rank(y), known_rank(x)
        if rank is None or x_rank is None:
            return None
        axis = normalize_dim(arg_value(dim), rank)
        seq = OpSequence()
        if x_rank <= 1:  # points along `dim` (a 0-d x: one point)
            x = seq.call(AtenViewOp, x, [-1 if d == axis else 1 for d in range(rank)])
            x_axis = axis
        else:
            x_axis = axis - rank + x_rank  # x broadcasts against y from the right
        later = seq.call(AtenSliceTensorOp, x, x_axis, 1, None, 1)
        earlier = seq.call(AtenSliceTensorOp, x, x_axis, 0, -1, 1)
        return self.lower_sum(seq, y, seq.call(AtenSubTensorOp, later, earlier, 1), axis)


@torch_op
class AtenTrapezoidDxOp(_WithSpacing):
    """`torch.trapezoid(y, dx=1, dim=-1)` (`torch.trapz`): integer y gives float32."""

    name = "torch.aten.trapezoid.dx"
    SCHEMA = "aten::trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor"
    PY_NAMES = ("torch.trapezoid", "torch.trapz", "np.trapezoid")
    SAMPLES = (Sample(Tn((4, 3), "int64", -9, 9), dx=0.5, dim=0),)
    y = operand_def(ValueTensorType)
    dx = operand_def(FloatType | IntType)
    dim = operand_def(IntType)
    result = result_def(ValueTensorType)


@torch_op
class AtenTrapezoidXOp(_WithPoints):
    """`torch.trapezoid(y, x, dim=-1)`: sample points x (1-D along dim, or broadcast)."""

    name = "torch.aten.trapezoid.x"
    SCHEMA = "aten::trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor"
    PY_NAMES = ("torch.trapezoid", "torch.trapz", "np.trapezoid")
    SAMPLES = (Sample(Tn((3, 4), "float64"), Tn((3,), "float64"), dim=0),)
    y = operand_def(ValueTensorType)
    x = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    result = result_def(ValueTensorType)


@torch_op
class AtenCumulativeTrapezoidDxOp(_WithSpacing):
    """`torch.cumulative_trapezoid(y, dx=1, dim=-1)`: the running integral (one shorter)."""

    name = "torch.aten.cumulative_trapezoid.dx"
    SCHEMA = "aten::cumulative_trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor"
    PY_NAMES = ("torch.cumulative_trapezoid",)
    CUMULATIVE = True
    SAMPLES = (Sample(Tn((3, 5)), dx=2),)
    y = operand_def(ValueTensorType)
    dx = operand_def(FloatType | IntType)
    dim = operand_def(IntType)
    result = result_def(ValueTensorType)


@torch_op
class AtenCumulativeTrapezoidXOp(_WithPoints):
    """`torch.cumulative_trapezoid(y, x, dim=-1)`."""

    name = "torch.aten.cumulative_trapezoid.x"
    SCHEMA = "aten::cumulative_trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor"
    PY_NAMES = ("torch.cumulative_trapezoid",)
    CUMULATIVE = True
    SAMPLES = (Sample(Tn((2, 4), "int64", -5, 5), Tn((2, 4))),)
    y = operand_def(ValueTensorType)
    x = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    result = result_def(ValueTensorType)


def _joined(x: TensorMeta, extras: list[TensorMeta], dim: int) -> tuple[int, ...] | None:
    """x's shape with the extras' sizes along `dim` added (their ranks checked)."""
    if x.shape is None:
        return None
    size = x.shape[dim]
    for extra in extras:
        if extra.rank is not None and extra.rank != x.rank:
            raise ShapeError("diff expects prepend or append to be the same dimension as input")
        extra_size = extra.shape[dim] if extra.shape is not None else DYN
        size = DYN if DYN in (size, extra_size) else size + extra_size
    return (*x.shape[:dim], size, *x.shape[dim + 1 :])


@torch_op
class AtenDiffOp(TorchOp):
    """n-th forward difference along `dim` (`torch.diff`, `x.diff()`); torch's checks: rank
    >= 1, n >= 0, prepend / append of x's rank."""

    name = "torch.aten.diff"
    SCHEMA = (
        "aten::diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, "
        "Tensor? append=None) -> Tensor"
    )
    PY_NAMES = ("torch.diff", "Tensor.diff", "np.diff")
    SAMPLES = (Sample(Tn((4, 3), "int64", -9, 9), 2, 0, Tn((1, 3), "int64", -9, 9), None),)
    self_ = operand_def(ValueTensorType)
    n = operand_def(IntType)
    dim = operand_def(IntType)
    prepend = operand_def(ValueTensorType | NoneType)
    append = operand_def(ValueTensorType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, n, dim, prepend, append = args
        extras = [e for e in (prepend, append) if isinstance(e, TensorMeta)]
        dtypes = [(t.dtype, t.rank or 0) for t in (x, *extras)]
        dtype = None if any(d is None for d, _ in dtypes) else result_type(dtypes, [])
        if x.rank is None:
            return [ValueTensorType(None, dtype)]
        if x.rank == 0:
            raise ShapeError("diff expects input to be at least one-dimensional")
        if not isinstance(n, int) or not isinstance(dim, int):
            raise TypeError("diff: `n` and `dim` must be constants")
        if n < 0:
            raise ShapeError(f"order must be non-negative but got {n}")
        axis = normalize_dim(dim, x.rank)
        shape = _joined(x, extras, axis)
        if shape is None:
            return [ValueTensorType(None, dtype)]
        size = shape[axis] if shape[axis] == DYN else max(shape[axis] - n, 0)
        return [ValueTensorType((*shape[:axis], size, *shape[axis + 1 :]), dtype)]

    @staticmethod
    def eager(x: Any, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Any:
        parts = [p for p in (prepend, x, append) if p is not None]
        joined = np.concatenate(parts, axis=dim) if len(parts) > 1 else x
        for _ in range(n):
            later = np.take(joined, range(1, joined.shape[dim]), axis=dim)
            earlier = np.take(joined, range(joined.shape[dim] - 1), axis=dim)
            joined = later != earlier if joined.dtype == bool else later - earlier
        return joined

    def decompose(self) -> Any:
        x, n, dim, prepend, append = self.operands
        rank = known_rank(x)
        if rank is None:
            return None
        axis = normalize_dim(arg_value(dim), rank)
        seq = OpSequence()
        parts = [p for p in (prepend, x, append) if isinstance(p.type, ValueTensorType)]
        current = seq.call(AtenCatOp, seq.list_of(parts), axis) if len(parts) > 1 else x
        for _ in range(arg_value(n)):
            later = seq.call(AtenSliceTensorOp, current, axis, 1, None, 1)
            earlier = seq.call(AtenSliceTensorOp, current, axis, 0, -1, 1)
            if _is_bool(current):
                current = seq.call(AtenLogicalXorOp, later, earlier)
            else:
                current = seq.call(AtenSubTensorOp, later, earlier, 1)
        if not seq.ops:
            seq.call(AtenCloneOp, x, None)
        return seq.ops


def _is_bool(value: Any) -> bool:
    element = value.type.element
    return element is not None and element.is_bool  # type: ignore[no-any-return]


OPS = (
    AtenCumsumOp,
    AtenCumprodOp,
    AtenCummaxOp,
    AtenCumminOp,
    AtenLogcumsumexpOp,
    AtenTrapezoidDxOp,
    AtenTrapezoidXOp,
    AtenCumulativeTrapezoidDxOp,
    AtenCumulativeTrapezoidXOp,
    AtenDiffOp,
)
