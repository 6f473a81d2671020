"""Triangles of matrices: `triu` / `tril` (the upper / lower triangle of the last two dims)
and `torch.tril_indices` / `triu_indices` (the coordinates of one)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import INT64, dtype_of_code
from dialects.torch.meta import Dynamic, ShapeError
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.constructors import DTypeOperand
from dialects.torch.ops.prim import ValueTensorLiteralOp
from dialects.torch.types import IntType, ValueTensorType


class TriangleOp(TorchOp):
    """Keeps `x[..., i, j]` where `j - i >= diagonal` (UPPER) or `j - i <= diagonal`."""

    UPPER: ClassVar[bool]

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, diagonal = args
        if isinstance(diagonal, Dynamic) or not isinstance(diagonal, int):
            raise TypeError(f"{cls.name}: `diagonal` must be an int known while scripting")
        if x.rank is not None and x.rank < 2:
            raise ShapeError(
                f"{cls.name.split('.')[-1]}: input tensor must have at least 2 dimensions"
            )
        return [ValueTensorType(x.shape, x.dtype)]

    @classmethod
    def eager(cls, x: Any, diagonal: int = 0) -> Any:
        return (np.triu if cls.UPPER else np.tril)(x, diagonal)


@torch_op
class AtenTriuOp(TriangleOp):
    """`torch.triu(x, diagonal=0)`: the elements on and above the `diagonal`-th diagonal."""

    name = "torch.aten.triu"
    SCHEMA = "aten::triu(Tensor self, int diagonal=0) -> Tensor"
    PY_NAMES = ("torch.triu", "Tensor.triu")
    SAMPLES = (Sample(Tn((4, 5))), Sample(Tn((2, 3, 3), "int64"), 1), Sample(Tn((3, 4)), -1))
    UPPER = True
    self_ = operand_def(ValueTensorType)
    diagonal = operand_def(IntType)
    result = result_def(ValueTensorType)


@torch_op
class AtenTrilOp(TriangleOp):
    """`torch.tril(x, diagonal=0)`: the elements on and below the `diagonal`-th diagonal."""

    name = "torch.aten.tril"
    SCHEMA = "aten::tril(Tensor self, int diagonal=0) -> Tensor"
    PY_NAMES = ("torch.tril", "Tensor.tril")
    SAMPLES = (Sample(Tn((4, 5))), Sample(Tn((2, 3, 3), "bool"), -1), Sample(Tn((3, 4)), 2))
    UPPER = False
    self_ = operand_def(ValueTensorType)
    diagonal = operand_def(IntType)
    result = result_def(ValueTensorType)


class _TriangleIndices(TorchOp):
    LOWER = True

    @classmethod
    def checked(cls, row: Any, col: Any, offset: Any, dtype: Any) -> Any:
        """The result dtype, after torch's checks of the arguments."""
        if not all(isinstance(v, int) for v in (row, col, offset)):
            raise TypeError(f"{cls.name}: `row`, `col` and `offset` must be constants")
        if row < 0:
            raise ShapeError(f"row must be non-negative, got{row}")
        if col < 0:
            raise ShapeError(f"col must be non-negative, got{col}")
        result = INT64 if dtype is None else dtype_of_code(dtype)
        if result.category != 1:
            kind = "tril_indices" if cls.LOWER else "triu_indices"
            raise TypeError(f"\"{kind}\" not implemented for '{result.name.capitalize()}'")
        return result

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        dtype = cls.checked(*args)
        return [ValueTensorType(cls.eager(*args[:3]).shape, dtype)]

    @classmethod
    def eager(cls, row: int, col: int, offset: int = 0, dtype: Any = None) -> Any:  # type: ignore[override]
        if cls.LOWER:
            rows, cols = np.tril_indices(row, offset, col)
        else:
            rows, cols = np.triu_indices(row, offset, col)
        return np.stack([rows, cols]).astype(np.int64).reshape(2, -1)

    def decompose(self) -> Any:
        values = [arg_value(v) for v in self.operands]
        dtype = self.checked(*values)
        return [ValueTensorLiteralOp(self.eager(*values[:3]).astype(dtype.numpy))]


@torch_op
class AtenTrilIndicesOp(_TriangleIndices):
    """`torch.tril_indices(row, col, offset=0, dtype=torch.long)`."""

    name = "torch.aten.tril_indices"
    SCHEMA = "aten::tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=4) -> Tensor"
    PY_NAMES = ("torch.tril_indices",)
    SAMPLES = (Sample(4, 3, -1, dtype=3),)
    row = operand_def(IntType)
    col = operand_def(IntType)
    offset = operand_def(IntType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenTriuIndicesOp(_TriangleIndices):
    """`torch.triu_indices(row, col, offset=0, dtype=torch.long)`."""

    name = "torch.aten.triu_indices"
    SCHEMA = "aten::triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=4) -> Tensor"
    PY_NAMES = ("torch.triu_indices",)
    LOWER = False
    SAMPLES = (Sample(2, 5, 2),)
    row = operand_def(IntType)
    col = operand_def(IntType)
    offset = operand_def(IntType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


OPS = (
    AtenTriuOp,
    AtenTrilOp,
    AtenTrilIndicesOp,
    AtenTriuIndicesOp,
)
