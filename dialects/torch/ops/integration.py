"""The trapezoidal rule along a dim: `torch.trapezoid` / `torch.trapz` (the integral) and
`torch.cumulative_trapezoid` (its running value), with sample spacing `dx` (a number) or
sample points `x` (1-D along `dim`, or broadcastable to y)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import FLOAT32, result_type
from dialects.torch.meta import ShapeError, TensorMeta, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.aten_lookup import aten
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.types import DYN, FloatType, IntType, ValueTensorType


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
        later = seq.call(aten("slice.Tensor"), y, axis, 1, None, 1)
        earlier = seq.call(aten("slice.Tensor"), y, axis, 0, -1, 1)
        pairs = seq.call(aten("add.Tensor"), later, earlier, 1)
        if isinstance(spacing, float):
            scaled = seq.call(aten("mul.Scalar"), pairs, spacing / 2)
        else:
            halves = seq.call(aten("mul.Scalar"), pairs, 0.5)
            scaled = seq.call(aten("mul.Tensor"), halves, spacing)
        if self.CUMULATIVE:
            seq.call(aten("cumsum"), scaled, axis, None)
        else:
            seq.call(aten("sum.dim_IntList"), scaled, [axis], False, None)
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
            x = seq.call(aten("view"), x, [-1 if d == axis else 1 for d in range(rank)])
            x_axis = axis
        else:
            x_axis = axis - rank + x_rank  # x broadcasts against y from the right
        later = seq.call(aten("slice.Tensor"), x, x_axis, 1, None, 1)
        earlier = seq.call(aten("slice.Tensor"), x, x_axis, 0, -1, 1)
        return self.lower_sum(seq, y, seq.call(aten("sub.Tensor"), later, earlier, 1), axis)


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


OPS = (AtenTrapezoidDxOp, AtenTrapezoidXOp, AtenCumulativeTrapezoidDxOp, AtenCumulativeTrapezoidXOp)
