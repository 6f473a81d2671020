"""Composites that read at index tensors: one_hot and take_along_dim (decomposed into
comparisons with arange, and gather).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import INT64
from dialects.torch.meta import ShapeError, TensorMeta, broadcast_shapes, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.casts import AtenToDtypeOp
from dialects.torch.ops.constructors import AtenArangeOp
from dialects.torch.ops.elementwise import AtenEqTensorOp
from dialects.torch.ops.indexing import AtenGatherOp, check_index_dtype, checked_indices
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.shapes import numel
from dialects.torch.ops.views import AtenExpandOp, AtenUnsqueezeOp, AtenViewOp
from dialects.torch.types import DYN, IntType, NoneType, ValueTensorType


@torch_op
class AtenOneHotOp(TorchOp):
    """`F.one_hot(x, num_classes)`: int64, shape `x.shape + [num_classes]`, 1 at `x[i]`.

    `num_classes` must be given: the default (-1, one more than the largest value) makes the
    shape depend on the values."""

    name = "torch.aten.one_hot"
    SCHEMA = "aten::one_hot(Tensor self, int num_classes=-1) -> Tensor"
    PY_NAMES = ("F.one_hot",)
    SAMPLES = (Sample(Tn((2, 3), "int64", 0, 4), 4), Sample(Tn((), "int64", 0, 3), 3))
    self_ = operand_def(ValueTensorType)
    num_classes = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, classes = args
        if x.dtype is not None and x.dtype != INT64:
            raise TypeError("one_hot is only applicable to index tensor of type LongTensor.")
        if not isinstance(classes, int):
            raise TypeError("one_hot: `num_classes` must be a constant int")
        if classes == -1:
            raise TypeError(
                "one_hot: pass num_classes (with -1, the number of classes is the largest "
                "value + 1, which is only known at run time)"
            )
        if classes < 0:
            raise ShapeError("num_classes should be positive")
        return [ValueTensorType(None if x.shape is None else (*x.shape, classes), INT64)]

    @staticmethod
    def eager(x: Any, num_classes: int = -1) -> Any:
        indices = checked_indices("one_hot", x, num_classes)
        return (indices[..., None] == np.arange(num_classes)).astype(np.int64)

    def decompose(self) -> Any:
        """`(x.unsqueeze(-1) == arange(num_classes)).to(int64)`."""
        seq = OpSequence()
        column = seq.call(AtenUnsqueezeOp, self.self_, -1)
        classes = seq.call(AtenArangeOp, self.num_classes, None)
        hits = seq.call(AtenEqTensorOp, column, classes)
        seq.call(AtenToDtypeOp, hits, INT64.scalar_type, False, False, None)
        return seq.ops


def _broadcast_off_dim(x: TensorMeta, index: TensorMeta, d: int) -> tuple[int, ...] | None:
    """The broadcast of both shapes outside dim `d` (ShapeError if they do not broadcast)."""
    if x.shape is None or index.shape is None:
        return None
    if len(x.shape) != len(index.shape):
        raise ShapeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {len(x.shape)} dimensions for input, and "
            f"{len(index.shape)} dimensions for indices"
        )
    outer = broadcast_shapes(
        [tuple(1 if i == d else n for i, n in enumerate(s)) for s in (x.shape, index.shape)]
    )
    return outer


@torch_op
class AtenTakeAlongDimOp(TorchOp):
    """`torch.take_along_dim(x, indices, dim)`: `gather` along `dim` after broadcasting the
    other dims of `x` and `indices`; with no dim, of the flattened tensors."""

    name = "torch.aten.take_along_dim"
    SCHEMA = "aten::take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor"
    PY_NAMES = ("torch.take_along_dim", "Tensor.take_along_dim")
    SAMPLES = (
        Sample(Tn((3, 4)), Tn((1, 2), "int64", 0, 4), 1),
        Sample(Tn((2, 3), "int64"), Tn((4,), "int64", 0, 6)),
    )
    self_ = operand_def(ValueTensorType)
    indices = operand_def(ValueTensorType)
    dim = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, index, dim = args
        check_index_dtype("take_along_dim", index)
        if dim is None:
            count = None if index.shape is None else numel(index.shape)
            return [ValueTensorType((DYN if count is None else count,), x.dtype)]
        if not isinstance(dim, int):
            raise TypeError("take_along_dim: `dim` must be a constant int")
        if x.rank is None:
            return [ValueTensorType(None, x.dtype)]
        d = normalize_dim(dim, x.rank)
        outer = _broadcast_off_dim(x, index, d)
        if outer is None or index.shape is None:
            return [ValueTensorType(None, x.dtype)]
        shape = tuple(index.shape[i] if i == d else n for i, n in enumerate(outer))
        return [ValueTensorType(shape, x.dtype)]

    @staticmethod
    def eager(x: Any, indices: Any, dim: Any = None) -> Any:
        if dim is None:
            flat = np.reshape(x, -1)
            return flat[checked_indices("take_along_dim", np.reshape(indices, -1), flat.size)]
        d = dim % x.ndim
        outer = _broadcast_off_dim(TensorMeta.of_array(x), TensorMeta.of_array(indices), d)
        assert outer is not None
        xs = np.broadcast_to(x, tuple(x.shape[d] if i == d else n for i, n in enumerate(outer)))
        ix = np.broadcast_to(
            indices, tuple(indices.shape[d] if i == d else n for i, n in enumerate(outer))
        )
        return np.take_along_axis(xs, checked_indices("take_along_dim", ix, x.shape[d]), d)

    def decompose(self) -> Any:
        x, index, dim = self.operands
        rank, d = known_rank(x), arg_value(dim)
        if rank is None or known_rank(index) is None:
            return None
        seq = OpSequence()
        if d is None:
            flat_x = seq.call(AtenViewOp, x, [-1])
            flat_index = seq.call(AtenViewOp, index, [-1])
            seq.call(AtenGatherOp, flat_x, 0, flat_index, False)
            return seq.ops
        d %= rank
        sizes_x, sizes_i = seq.sizes(x), seq.sizes(index)
        target_x, target_i = [], []
        for axis, (a, b) in enumerate(zip(sizes_x, sizes_i)):
            if axis == d:
                target_x.append(-1)
                target_i.append(-1)
                continue
            wide = b if a == 1 else a  # sizes equal, or one of them is 1
            target_x.append(wide if a == 1 else -1)
            target_i.append(wide if b == 1 else -1)
        grown_x = seq.call(AtenExpandOp, x, target_x, False)
        grown_i = seq.call(AtenExpandOp, index, target_i, False)
        seq.call(AtenGatherOp, grown_x, d, grown_i, False)
        return seq.ops


OPS = (AtenOneHotOp, AtenTakeAlongDimOp)
