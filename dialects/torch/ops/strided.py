"""`as_strided`: a view of the input's storage by sizes, strides and a storage offset.

tsjit's tensors are values, so the storage is the input's elements in row-major order: the
storage of a contiguous tensor, which is what PyTorch reads for one. Element p of the result
is `flat[offset + sum(p[d] * stride[d])]`; `torch-decompose` writes it as an `index_select`
of the flattened input at those offsets (a constant of the sizes and strides), viewed as
`size`. As PyTorch does, the largest offset must lie inside the storage (RuntimeError with
PyTorch's message); the input's sizes must be known (while they are not, the result type
stays open and the frontend compiles the call for its exact shapes). The input of a
transposing or slicing view (`x.t().as_strided(...)`) is refused: PyTorch would read the
storage beneath it, which tsjit does not keep.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import Dynamic, ShapeError
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.data_movement import AtenSelectIntOp, AtenSliceTensorOp
from dialects.torch.ops.diagonals import AtenDiagonalOp
from dialects.torch.ops.indexing import AtenIndexSelectOp
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.prim import ValueTensorLiteralOp
from dialects.torch.ops.reshaping import AtenNarrowOp
from dialects.torch.ops.views import (
    AtenExpandOp,
    AtenPermuteOp,
    AtenReshapeOp,
    AtenTOp,
    AtenTransposeIntOp,
)
from dialects.torch.types import DYN, IntType, ListType, NoneType, ValueTensorType

# ops whose result PyTorch makes a non-contiguous view of their input's storage
STRIDED_VIEWS = (AtenPermuteOp, AtenTransposeIntOp, AtenTOp, AtenSliceTensorOp, AtenSelectIntOp,
                 AtenNarrowOp, AtenExpandOp, AtenDiagonalOp)  # fmt: skip


def _constant_ints(name: str, value: Any) -> list[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    if not isinstance(value, list | tuple) or any(isinstance(v, Dynamic) for v in value):
        raise TypeError(f"as_strided: `{name}` must be constant ints")
    return [int(v) for v in value]


def offsets(size: list[int], stride: list[int], offset: int) -> Any:
    """The storage offset of every element of the result, in row-major order."""
    grid = np.full(size, offset, dtype=np.int64)
    for d, (n, st) in enumerate(zip(size, stride, strict=True)):
        shape = [1] * len(size)
        shape[d] = n
        grid = grid + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    return grid


@torch_op
class AtenAsStridedOp(TorchOp):
    """`torch.as_strided(x, size, stride, storage_offset=0)` of a contiguous `x`."""

    name = "torch.aten.as_strided"
    SCHEMA = (
        "aten::as_strided(Tensor self, int[] size, int[] stride, int? storage_offset=None) "
        "-> Tensor"
    )
    PY_NAMES = ("torch.as_strided", "Tensor.as_strided")
    SAMPLES = (
        Sample(Tn((3, 4)), [2, 3], [1, 2], 1),
        Sample(Tn((10,), "int64", -9, 9), [3, 3], [3, 1]),  # overlapping windows
        Sample(Tn((2, 3, 2), "float64"), [2, 2, 2], [6, 0, 2], 1),
    )
    self_ = operand_def(ValueTensorType)
    size = operand_def(ListType | IntType)
    stride = operand_def(ListType | IntType)
    storage_offset = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def geometry(cls, args: tuple[Any, ...]) -> tuple[list[int], list[int], int]:
        size, stride = _constant_ints("size", args[1]), _constant_ints("stride", args[2])
        offset = 0 if args[3] is None else args[3]
        if not isinstance(offset, int):
            raise TypeError("as_strided: `storage_offset` must be a constant int")
        if len(size) != len(stride):
            raise ShapeError("mismatch in length of strides and shape")
        if any(st < 0 for st in stride):
            raise ShapeError(
                f"as_strided: Negative strides are not supported at the moment, got strides: "
                f"{stride}"
            )
        if any(n < 0 for n in size) or offset < 0:
            raise ShapeError(f"as_strided: negative size or storage offset: {size}, {offset}")
        return size, stride, offset

    @classmethod
    def check_storage(cls, shape: tuple[int, ...], dtype: Any, args: tuple[Any, ...]) -> None:
        size, stride, offset = cls.geometry(args)
        storage = int(np.prod(shape))
        needed = 0 if 0 in size else offset + sum((n - 1) * st for n, st in zip(size, stride)) + 1
        if needed > storage:
            item = dtype.numpy.itemsize if dtype is not None else 4
            raise ShapeError(
                f"setStorage: sizes {size}, strides {stride}, storage offset {offset}, and "
                f"itemsize {item} requiring a storage size of {needed * item} are out of "
                f"bounds for storage of size {storage * item}"
            )

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x = args[0]
        size, _, _ = cls.geometry(args)
        if x.shape is None or DYN in x.shape:
            return [ValueTensorType(None, x.dtype)]  # open: compiled for the exact shapes
        cls.check_storage(x.shape, x.dtype, args)
        return [ValueTensorType(tuple(size), x.dtype)]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        x = args[0]
        cls.check_storage(x.shape, None, args)
        size, stride, offset = cls.geometry(args)
        return np.ascontiguousarray(x).reshape(-1)[offsets(size, stride, offset)]

    def decompose(self) -> Any:
        x = self.self_
        if not isinstance(x.type, ValueTensorType) or x.type.sizes is None or DYN in x.type.sizes:
            return None
        refuse_strided_view(x)
        size, stride, offset = self.geometry(tuple(self.arg_values()))
        s = OpSequence()
        flat = s.call(AtenReshapeOp, x, [-1])
        where = np.ascontiguousarray(offsets(size, stride, offset).reshape(-1))
        index = s.add(ValueTensorLiteralOp(where)).results[0]
        picked = s.call(AtenIndexSelectOp, flat, 0, index)
        s.call(AtenReshapeOp, picked, size)
        return s.ops


def refuse_strided_view(x: SSAValue) -> None:
    """ShapeError if PyTorch's `x` would be a non-contiguous view of another tensor."""
    owner = x.owner
    if isinstance(owner, STRIDED_VIEWS):
        raise ShapeError(
            f"as_strided of the result of {owner.name} is not supported: PyTorch reads the "
            "storage beneath that view, which tsjit does not keep"
        )


OPS = (AtenAsStridedOp,)
