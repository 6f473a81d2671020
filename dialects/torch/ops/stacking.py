"""Stacking lists of tensors along a fixed axis: hstack, vstack / row_stack, dstack and
column_stack, decomposed into `cat` of the inputs made at least 1-, 2- or 3-D (numpy's rules:
`atleast_2d` puts a 1-D tensor in a row, `atleast_3d` a 2-D one in [m, n, 1]); dtypes promote.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.joining import AtenCatOp, tensor_list
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.prim import PrimListConstructOp
from dialects.torch.ops.views import AtenViewOp
from dialects.torch.types import ListType, ValueTensorType


def padded_shape(shape: tuple[int, ...], rank: int, column: bool) -> tuple[int, ...]:
    """`shape` grown to at least `rank` dims the way numpy's atleast_{1,2,3}d does (or, with
    `column`, a vector as one column, as column_stack does)."""
    if column and len(shape) <= 1:
        return (shape[0] if shape else 1, 1)
    if len(shape) >= rank:
        return shape
    if not shape:
        return (1,) * rank
    if len(shape) == 1:
        return ((1, shape[0], 1) if rank == 3 else (1, shape[0]))[:rank]
    return (*shape, 1)  # 2-D to 3-D


class _StackOp(TorchOp):
    """`cat` of the padded inputs along `AXIS` (hstack: 0 for 1-D inputs, else 1)."""

    RANK: ClassVar[int] = 1
    AXIS: ClassVar[int] = 0
    COLUMN: ClassVar[bool] = False

    @classmethod
    def axis(cls, rank: int) -> int:
        return cls.AXIS

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        tensors = tensor_list(cls.name.removeprefix("torch.aten."), args[0])
        if any(t.shape is None for t in tensors):
            return AtenCatOp.infer([TensorMeta(None, t.dtype) for t in tensors], 0)
        padded = [
            TensorMeta(padded_shape(t.shape, cls.RANK, cls.COLUMN), t.dtype)  # type: ignore[arg-type]
            for t in tensors
        ]
        return AtenCatOp.infer(padded, cls.axis(len(padded[0].shape)))  # type: ignore[arg-type]

    @classmethod
    def eager(cls, tensors: Any) -> Any:
        padded = [np.reshape(t, padded_shape(t.shape, cls.RANK, cls.COLUMN)) for t in tensors]
        return AtenCatOp.eager(padded, cls.axis(padded[0].ndim))

    def decompose(self) -> Any:
        owner = self.operands[0].owner
        if not isinstance(owner, PrimListConstructOp):
            return None
        inputs = list(owner.elements)
        if any(known_rank(t) is None for t in inputs):
            return None
        seq = OpSequence()
        padded = [self.pad(seq, t) for t in inputs]
        seq.call(AtenCatOp, seq.list_of(padded), self.axis(known_rank(padded[0]) or 0))
        return seq.ops

    def pad(self, seq: OpSequence, t: SSAValue) -> SSAValue:
        rank = known_rank(t)
        assert rank is not None
        if rank >= self.RANK and not (self.COLUMN and rank <= 1):
            return t
        sizes = seq.sizes(t)
        if self.COLUMN:
            return seq.call(AtenViewOp, t, [sizes[0] if sizes else 1, 1])
        if rank == 0:
            return seq.call(AtenViewOp, t, [1] * self.RANK)
        if rank == 1:
            return seq.call(AtenViewOp, t, ([1, sizes[0], 1] if self.RANK == 3 else [1, *sizes]))
        return seq.call(AtenViewOp, t, [*sizes, 1])


@torch_op
class AtenHstackOp(_StackOp):
    """`torch.hstack(tensors)`: joined along dim 1 (dim 0 for 1-D tensors)."""

    name = "torch.aten.hstack"
    SCHEMA = "aten::hstack(Tensor[] tensors) -> Tensor"
    PY_NAMES = ("torch.hstack",)
    SAMPLES = (Sample([Tn((2, 3)), Tn((2, 1))]), Sample([Tn((3,), "int64"), Tn((), "int64")]))
    tensors = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def axis(cls, rank: int) -> int:
        return 0 if rank == 1 else 1


@torch_op
class AtenVstackOp(_StackOp):
    """`torch.vstack(tensors)` / `torch.row_stack`: rows joined (1-D tensors are rows)."""

    name = "torch.aten.vstack"
    SCHEMA = "aten::vstack(Tensor[] tensors) -> Tensor"
    PY_NAMES = ("torch.vstack", "torch.row_stack")
    SAMPLES = (Sample([Tn((3,)), Tn((2, 3))]),)
    RANK = 2
    tensors = operand_def(ListType)
    result = result_def(ValueTensorType)


@torch_op
class AtenDstackOp(_StackOp):
    """`torch.dstack(tensors)`: joined along dim 2 (inputs made at least 3-D)."""

    name = "torch.aten.dstack"
    SCHEMA = "aten::dstack(Tensor[] tensors) -> Tensor"
    PY_NAMES = ("torch.dstack",)
    SAMPLES = (Sample([Tn((2, 3)), Tn((2, 3, 2))]), Sample([Tn((3,), "int32"), Tn((3,), "int32")]))
    RANK, AXIS = 3, 2
    tensors = operand_def(ListType)
    result = result_def(ValueTensorType)


@torch_op
class AtenColumnStackOp(_StackOp):
    """`torch.column_stack(tensors)`: vectors (and 0-d tensors) as columns, joined along dim 1."""

    name = "torch.aten.column_stack"
    SCHEMA = "aten::column_stack(Tensor[] tensors) -> Tensor"
    PY_NAMES = ("torch.column_stack",)
    SAMPLES = (Sample([Tn((3,)), Tn((3, 2))]),)
    RANK, AXIS, COLUMN = 2, 1, True
    tensors = operand_def(ListType)
    result = result_def(ValueTensorType)


OPS = (AtenHstackOp, AtenVstackOp, AtenDstackOp, AtenColumnStackOp)
