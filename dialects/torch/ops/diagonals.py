"""Diagonals: diagonal (read one), diag_embed (write one into zeros), diag (either, by rank)
and trace (the sum of the main diagonal).

diagonal and diag_embed are lowered (`lowering/torch_to_linalg/diagonals.py`); diag and
trace decompose into them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.reduction import AtenSumOp
from dialects.torch.types import DYN, IntType, ValueTensorType


def diagonal_length(size1: int, size2: int, offset: int) -> int:
    """How many elements the diagonal at `offset` of a size1 x size2 matrix has (`?` if a
    size is)."""
    if DYN in (size1, size2):
        return DYN
    if offset >= 0:
        return max(min(size1, size2 - offset), 0)
    return max(min(size1 + offset, size2), 0)


def _two_dims(op_name: str, dim1: Any, dim2: Any, rank: int) -> tuple[int, int]:
    if not (isinstance(dim1, int) and isinstance(dim2, int)):
        raise TypeError(f"{op_name}: `dim1` and `dim2` must be constant ints")
    d1, d2 = normalize_dim(dim1, rank), normalize_dim(dim2, rank)
    if d1 == d2:
        raise ShapeError(
            f"{op_name}(): dimensions cannot be identical {dim1}, {dim2}"
            if op_name == "diagonal"
            else f"{op_name}(): diagonal dimensions cannot be identical {dim1}, {dim2}"
        )
    return d1, d2


def _constant_offset(op_name: str, offset: Any) -> int:
    if not isinstance(offset, int):
        raise TypeError(f"{op_name}: `offset` must be a constant int")
    return offset


@torch_op
class AtenDiagonalOp(TorchOp):
    """`torch.diagonal(x, offset, dim1, dim2)`: the elements `x[..., i, ..., i + offset, ...]`
    (dims dim1 and dim2 dropped, the diagonal appended as the last dim)."""

    name = "torch.aten.diagonal"
    SCHEMA = "aten::diagonal(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor"
    PY_NAMES = ("torch.diagonal", "Tensor.diagonal")
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((2, 3, 4), "int64"), -1, 2, 0))
    self_ = operand_def(ValueTensorType)
    offset = operand_def(IntType)
    dim1 = operand_def(IntType)
    dim2 = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, offset, dim1, dim2 = args
        offset = _constant_offset("diagonal", offset)
        if x.shape is None:
            return [ValueTensorType(None, x.dtype)]
        d1, d2 = _two_dims("diagonal", dim1, dim2, len(x.shape))
        if len(x.shape) < 2:
            raise ShapeError(
                f"diagonal(): expected a tensor of at least 2 dims, got {len(x.shape)}"
            )
        rest = [s for d, s in enumerate(x.shape) if d not in (d1, d2)]
        length = diagonal_length(x.shape[d1], x.shape[d2], offset)
        return [ValueTensorType((*rest, length), x.dtype)]

    @staticmethod
    def eager(x: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
        return np.diagonal(x, offset, dim1, dim2).copy()


@torch_op
class AtenDiagEmbedOp(TorchOp):
    """`torch.diag_embed(x, offset, dim1, dim2)`: zeros with the last dim of `x` written on
    the diagonal at `offset` of the new dims `dim1`, `dim2` (each of size n + |offset|)."""

    name = "torch.aten.diag_embed"
    SCHEMA = "aten::diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor"
    PY_NAMES = ("torch.diag_embed", "Tensor.diag_embed")
    SAMPLES = (Sample(Tn((2, 3))), Sample(Tn((3,), "int64"), -1, 0, 1))
    self_ = operand_def(ValueTensorType)
    offset = operand_def(IntType)
    dim1 = operand_def(IntType)
    dim2 = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, offset, dim1, dim2 = args
        offset = _constant_offset("diag_embed", offset)
        if x.shape is None:
            return [ValueTensorType(None, x.dtype)]
        if not x.shape:
            raise ShapeError("diag_embed(): expected a tensor of at least 1 dim")
        rank = len(x.shape) + 1
        d1, d2 = _two_dims("diag_embed", dim1, dim2, rank)
        n = x.shape[-1]
        size = DYN if n == DYN else n + abs(offset)
        rest = iter(x.shape[:-1])
        shape = tuple(size if d in (d1, d2) else next(rest) for d in range(rank))
        return [ValueTensorType(shape, x.dtype)]

    @staticmethod
    def eager(x: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
        (typ,) = AtenDiagEmbedOp.infer(TensorMeta.of_array(x), offset, dim1, dim2)
        assert isinstance(typ, ValueTensorType) and typ.sizes is not None
        rank = len(typ.sizes)
        d1, d2 = dim1 % rank, dim2 % rank
        out = np.zeros(typ.sizes, x.dtype)
        view = np.moveaxis(out, (d1, d2), (-2, -1))  # a view: writes land in `out`
        for k in range(x.shape[-1]):
            i, j = (k, k + offset) if offset >= 0 else (k - offset, k)
            view[..., i, j] = x[..., k]
        return out


@torch_op
class AtenDiagOp(TorchOp):
    """`torch.diag(x, diagonal)`: a 1-D `x` becomes a square matrix with `x` on that diagonal;
    a 2-D `x` gives that diagonal as a 1-D tensor."""

    name = "torch.aten.diag"
    SCHEMA = "aten::diag(Tensor self, int diagonal=0) -> Tensor"
    PY_NAMES = ("torch.diag", "Tensor.diag")
    SAMPLES = (Sample(Tn((3,)), 1), Sample(Tn((3, 4), "int64"), -1))
    self_ = operand_def(ValueTensorType)
    diagonal = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, offset = args
        if x.rank == 1:
            return AtenDiagEmbedOp.infer(x, offset, 0, 1)
        if x.rank == 2:
            return AtenDiagonalOp.infer(x, offset, 0, 1)
        if x.rank is None:
            return [ValueTensorType(None, x.dtype)]
        raise ShapeError("diag(): Supports 1D or 2D tensors. Got " + f"{x.rank}D")

    @staticmethod
    def eager(x: Any, diagonal: int = 0) -> Any:
        return np.diag(x, diagonal).copy()

    def decompose(self) -> Any:
        rank = known_rank(self.self_)
        if rank not in (1, 2):
            return None
        seq = OpSequence()
        op = AtenDiagEmbedOp if rank == 1 else AtenDiagonalOp
        seq.call(op, self.self_, self.diagonal, 0, 1)
        return seq.ops


@torch_op
class AtenTraceOp(TorchOp):
    """`torch.trace(x)`: the sum of the main diagonal of a 2-D tensor (integers sum to int64)."""

    name = "torch.aten.trace"
    SCHEMA = "aten::trace(Tensor self) -> Tensor"
    PY_NAMES = ("torch.trace", "Tensor.trace")
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((3, 3), "int32")))
    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        (x,) = args
        if x.rank is not None and x.rank != 2:
            raise ShapeError(f"trace: expected a matrix, but got tensor with dim {x.rank}")
        return AtenSumOp.infer(TensorMeta((DYN,), x.dtype), None)

    @staticmethod
    def eager(x: Any) -> Any:
        return np.trace(x)

    def decompose(self) -> Any:
        if known_rank(self.self_) != 2:
            return None
        seq = OpSequence()
        diagonal = seq.call(AtenDiagonalOp, self.self_, 0, 0, 1)
        seq.call(AtenSumOp, diagonal, None)
        return seq.ops


OPS = (
    AtenDiagonalOp,
    AtenDiagEmbedOp,
    AtenDiagOp,
    AtenTraceOp,
)
