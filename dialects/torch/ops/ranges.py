"""Constructors of computed values: eye, linspace, logspace, and `torch.vander` (the
Vandermonde matrix of a 1-D tensor).

The default dtype is float32 whatever the Python numbers are; `dtype=` is a ScalarType code.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import DEFAULT_FLOAT, INT64
from dialects.torch.meta import Dynamic, ShapeError
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import AtenPowTensorTensorOp
from dialects.torch.ops.casts import AtenToDtypeOp
from dialects.torch.ops.constructors import (
    AtenArangeOp,
    DTypeOperand,
    ScalarOperand,
    requested_dtype,
)
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.reorder import AtenFlipOp
from dialects.torch.ops.views import AtenUnsqueezeOp
from dialects.torch.types import DYN, BoolType, FloatType, IntType, NoneType, ValueTensorType


def _count(op_name: str, what: str, value: Any) -> int:
    """A size argument: a non-negative int, or DYN when known only at run time."""
    if isinstance(value, Dynamic):
        return DYN
    if not isinstance(value, int):
        raise TypeError(f"{op_name}: `{what}` must be an int")
    if value < 0:
        raise ShapeError(f"{op_name}: {what} must be greater or equal to 0, got {value}")
    return value


class _EyeOp(TorchOp):
    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        n = _count("eye", "n", args[0])
        m = _count("eye", "m", args[1]) if len(args) == 3 else n
        return [ValueTensorType((n, m), requested_dtype(args[-1], DEFAULT_FLOAT))]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        (typ,) = cls.infer(*args)
        assert isinstance(typ, ValueTensorType) and typ.element is not None
        return (
            np.eye(*args[:-1], dtype=typ.element.numpy)
            if len(args) == 3
            else np.eye(args[0], dtype=typ.element.numpy)
        )


@torch_op
class AtenEyeOp(_EyeOp):
    """`torch.eye(n)`: the n x n identity matrix."""

    name = "torch.aten.eye"
    SCHEMA = "aten::eye(int n, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.eye",)
    SAMPLES = (Sample(3), Sample(2, dtype=4))
    n = operand_def(IntType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenEyeMOp(_EyeOp):
    """`torch.eye(n, m)`: n x m, ones where row == column."""

    name = "torch.aten.eye.m"
    SCHEMA = "aten::eye.m(int n, int m, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.eye",)
    SAMPLES = (Sample(2, 4), Sample(3, 2, dtype=11))
    n = operand_def(IntType)
    m = operand_def(IntType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


def linspace_values(start: float, end: float, steps: int) -> Any:
    """torch's linspace in float64: the first half counts up from `start`, the second half
    down from `end` (so both ends are exact)."""
    if steps == 1:
        return np.array([start], np.float64)
    step = (end - start) / max(steps - 1, 1)
    i = np.arange(steps, dtype=np.float64)
    return np.where(i < steps // 2, start + step * i, end - step * (steps - 1 - i))


class _SpaceOp(TorchOp):
    """linspace / logspace: `steps` values from `start` to `end`."""

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        start, end, steps = args[:3]
        op_name = cls.name.removeprefix("torch.aten.")
        for value in (start, end):
            if isinstance(value, bool):
                raise TypeError(f"{op_name}: start and end must be numbers")
        count = _count(op_name, "number of steps", steps)
        dtype = requested_dtype(args[-1], DEFAULT_FLOAT)
        return [ValueTensorType((count,), dtype)]

    @classmethod
    def values(cls, args: tuple[Any, ...], is_float: bool) -> Any:
        """In float64; for an integer dtype torch converts start and end to it first."""
        start, end = (float(v if is_float else int(v)) for v in args[:2])
        return linspace_values(start, end, int(args[2]))

    @classmethod
    def eager(cls, *args: Any) -> Any:
        (typ,) = cls.infer(*args)
        assert isinstance(typ, ValueTensorType) and typ.element is not None
        values = cls.values(args, typ.element.is_float)
        if not typ.element.is_float:
            values = np.trunc(values)
        return values.astype(typ.element.numpy)


@torch_op
class AtenLinspaceOp(_SpaceOp):
    """`torch.linspace(start, end, steps)`: evenly spaced, both ends included."""

    name = "torch.aten.linspace"
    SCHEMA = (
        "aten::linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None) -> Tensor"
    )
    PY_NAMES = ("torch.linspace",)
    SAMPLES = (Sample(0, 1, 5), Sample(-2.5, 7, 4, dtype=4))
    start = operand_def(ScalarOperand)
    end = operand_def(ScalarOperand)
    steps = operand_def(IntType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenLogspaceOp(_SpaceOp):
    """`torch.logspace(start, end, steps, base)`: `base ** linspace(start, end, steps)`."""

    name = "torch.aten.logspace"
    SCHEMA = (
        "aten::logspace(Scalar start, Scalar end, int steps, float base=10.0, *, "
        "ScalarType? dtype=None) -> Tensor"
    )
    PY_NAMES = ("torch.logspace",)
    SAMPLES = (Sample(0, 2, 3), Sample(-1.0, 1.0, 5, 2.0, dtype=7))
    start = operand_def(ScalarOperand)
    end = operand_def(ScalarOperand)
    steps = operand_def(IntType)
    base = operand_def(FloatType | IntType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def values(cls, args: tuple[Any, ...], is_float: bool) -> Any:
        return np.power(float(args[3]), super().values(args, is_float))


def _columns(x: Any, n: Any) -> Any:
    """N (the column count), with torch's checks; x.shape[0] by default."""
    if n is None:
        return x.shape[0] if x.shape is not None else DYN
    if not isinstance(n, int):
        raise TypeError("vander: `N` must be a constant")
    if n < 0:
        raise ShapeError("N must be non-negative.")
    return n


@torch_op
class AtenVanderOp(TorchOp):
    """`torch.vander`: [len(x), N]; integers and bools give int64, floats keep their dtype."""

    name = "torch.aten.vander"
    SCHEMA = "aten::vander(Tensor x, int? N=None, bool increasing=False) -> Tensor"
    PY_NAMES = ("torch.vander", "np.vander")
    SAMPLES = (Sample(Tn((3,), "int32", -3, 3), 4, True),)
    x = operand_def(ValueTensorType)
    N = operand_def(IntType | NoneType)
    increasing = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, n, _ = args
        dtype = x.dtype if x.dtype is None or x.dtype.is_float else INT64
        if x.rank not in (None, 1):
            raise ShapeError("x must be a one-dimensional tensor.")
        rows = x.shape[0] if x.shape is not None else DYN
        return [ValueTensorType((rows, _columns(x, n)), dtype)]

    @staticmethod
    def eager(x: Any, n: Any = None, increasing: bool = False) -> Any:
        if x.dtype.kind != "f":
            x = x.astype(np.int64)
        n = len(x) if n is None else n
        return np.vander(x, n, increasing=increasing)

    def decompose(self) -> Any:
        """`x[:, None] ** arange(N)` (flipped unless increasing); ints widened to int64."""
        x, n, increasing = self.operands
        if known_rank(x) is None:
            return None
        seq = OpSequence()
        columns = arg_value(n)
        columns = seq.size(x, 0) if columns is None else columns
        if not self.result.type.element.is_float:  # type: ignore[attr-defined]
            x = seq.call(AtenToDtypeOp, x, INT64.scalar_type, False, False, None)
        exponents = seq.call(AtenArangeOp, columns, INT64.scalar_type)
        powers = seq.call(AtenPowTensorTensorOp, seq.call(AtenUnsqueezeOp, x, 1), exponents)
        if arg_value(increasing) is not True:
            seq.call(AtenFlipOp, powers, [1])
        return seq.ops


OPS = (
    AtenEyeOp,
    AtenEyeMOp,
    AtenLinspaceOp,
    AtenLogspaceOp,
    AtenVanderOp,
)
