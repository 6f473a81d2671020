"""Indexing by index tensors: index_select, gather, embedding and `x[index]` / `x[:, index]`.

Indices must be int64 or int32 and in range (torch raises IndexError otherwise; the compiled
code does not check, so an index out of range reads an unspecified element).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.data_movement import constant_dim
from dialects.torch.ops.prim import PrimListConstructOp
from dialects.torch.types import DYN, BoolType, IntType, ListType, ValueTensorType


def check_index_dtype(op_name: str, index: TensorMeta) -> None:
    if index.dtype is not None and (index.dtype.is_float or index.dtype.is_bool):
        raise TypeError(f"{op_name}(): Expected dtype int32 or int64 for index")


def checked_indices(op_name: str, index: Any, size: int) -> Any:
    """The indices as int64, IndexError for any out of [0, size) (torch does not wrap)."""
    index = np.asarray(index, dtype=np.int64)
    if index.size and (index.min() < 0 or index.max() >= size):
        raise IndexError(f"{op_name}(): index out of range in self")
    return index


@torch_op
class AtenIndexSelectOp(TorchOp):
    """`torch.index_select(x, dim, index)`: the slices of `x` along `dim` at a 1-D index."""

    name = "torch.aten.index_select"
    SCHEMA = "aten::index_select(Tensor self, int dim, Tensor index) -> Tensor"
    PY_NAMES = ("torch.index_select", "Tensor.index_select")
    SAMPLES = (
        Sample(Tn((4, 3)), 0, Tn((5,), "int64", 0, 4)),
        Sample(Tn((2, 5), "int64"), -1, Tn((2,), "int32", 0, 5)),
        Sample(Tn((3, 2, 2), "bool"), 1, Tn((), "int64", 0, 2)),
    )
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    index = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim, index = args
        check_index_dtype("index_select", index)
        if index.rank is not None and index.rank > 1:
            raise ShapeError("index_select(): Index is supposed to be a vector")
        d = constant_dim("index_select", dim, x)
        if x.shape is None or d is None or index.shape is None:
            return [ValueTensorType(None, x.dtype)]
        count = index.shape[0] if index.shape else 1
        if x.rank == 0:  # torch: a 0-d tensor selects itself with one index
            if count not in (1, DYN):
                raise ShapeError(
                    f"index_select(): Index to scalar can have only 1 value, got {count} value(s)"
                )
            return [ValueTensorType((), x.dtype)]
        return [ValueTensorType((*x.shape[:d], count, *x.shape[d + 1 :]), x.dtype)]

    @staticmethod
    def eager(x: Any, dim: int, index: Any) -> Any:
        if x.ndim == 0:
            checked_indices("index_select", np.reshape(index, -1), 1)
            return x.copy()
        dim = dim % x.ndim
        indices = checked_indices("index_select", np.reshape(index, -1), x.shape[dim])
        return np.take(x, indices, axis=dim)


@torch_op
class AtenGatherOp(TorchOp):
    """`torch.gather(x, dim, index)`: `out[i][j] = x[index[i][j]][j]` (dim 0); the result has
    the index's shape, which may be smaller than `x` outside `dim`."""

    name = "torch.aten.gather"
    SCHEMA = "aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor"
    PY_NAMES = ("torch.gather", "Tensor.gather")
    SAMPLES = (
        Sample(Tn((3, 4)), 1, Tn((3, 6), "int64", 0, 4)),
        Sample(Tn((4, 3), "int64"), 0, Tn((2, 2), "int64", 0, 4)),
        Sample(Tn((2, 3, 2), "float64"), -2, Tn((2, 1, 2), "int32", 0, 3)),
    )
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    index = operand_def(ValueTensorType)
    sparse_grad = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim, index = args[:3]
        check_index_dtype("gather", index)
        d = constant_dim("gather", dim, x)
        if x.shape is None or index.shape is None or d is None:
            return [ValueTensorType(index.shape, x.dtype)]
        if len(index.shape) != len(x.shape):
            raise ShapeError("Index tensor must have the same number of dimensions as input tensor")
        for i, (have, want) in enumerate(zip(x.shape, index.shape)):
            if i != d and DYN not in (have, want) and want > have:
                raise ShapeError(
                    f"Size does not match at dimension {i} expected index {list(index.shape)} to "
                    f"be smaller than self {list(x.shape)} apart from dimension {d}"
                )
        return [ValueTensorType(index.shape, x.dtype)]

    @staticmethod
    def eager(x: Any, dim: int, index: Any, sparse_grad: bool = False) -> Any:
        if x.ndim == 0:
            checked_indices("gather", index, 1)
            return x.copy()
        dim = dim % x.ndim
        window = tuple(slice(None) if i == dim else slice(0, n) for i, n in enumerate(index.shape))
        indices = checked_indices("gather", index, x.shape[dim])
        return np.take_along_axis(x[window], indices, axis=dim)


@torch_op
class AtenEmbeddingOp(TorchOp):
    """`torch.embedding(weight, indices)`: the rows of the 2-D `weight` at `indices`, shape
    `indices.shape + [embedding_dim]` (`F.embedding(indices, weight)` swaps the arguments).
    `padding_idx`, `scale_grad_by_freq` and `sparse` only affect gradients."""

    name = "torch.aten.embedding"
    SCHEMA = (
        "aten::embedding(Tensor weight, Tensor indices, int padding_idx=-1, "
        "bool scale_grad_by_freq=False, bool sparse=False) -> Tensor"
    )
    PY_NAMES = ("torch.embedding",)
    SAMPLES = (
        Sample(Tn((5, 3)), Tn((2, 4), "int64", 0, 5)),
        Sample(Tn((4, 2), "float64"), Tn((3,), "int32", 0, 4), 0),
    )
    weight = operand_def(ValueTensorType)
    indices = operand_def(ValueTensorType)
    padding_idx = operand_def(IntType)
    scale_grad_by_freq = operand_def(BoolType)
    sparse = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        weight, indices = args[:2]
        check_index_dtype("embedding", indices)
        if weight.rank is not None and weight.rank != 2:
            raise ShapeError("'weight' must be 2-D")
        if weight.shape is None or indices.shape is None:
            return [ValueTensorType(None, weight.dtype)]
        return [ValueTensorType((*indices.shape, weight.shape[1]), weight.dtype)]

    @staticmethod
    def eager(
        weight: Any,
        indices: Any,
        padding_idx: int = -1,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
    ) -> Any:
        return weight[checked_indices("embedding", indices, weight.shape[0])]


def indexed_dim(op_name: str, indices: Any) -> tuple[int, TensorMeta]:
    """The dim an index list indexes (its None entries are the `:` before it) and the index."""
    if not isinstance(indices, list):
        raise TypeError(f"{op_name}(): the index list must have a known length")
    tensors = [i for i, t in enumerate(indices) if t is not None]
    if len(tensors) != 1 or tensors[0] != len(indices) - 1:
        raise TypeError(
            f"{op_name}(): indexing with more than one index tensor (or an index tensor "
            "before a slice, x[idx, :] written as x[idx]) is not supported"
        )
    index = indices[-1]
    if not isinstance(index, TensorMeta):
        raise TypeError(f"{op_name}(): the index must be a tensor")
    return tensors[0], index


@torch_op
class AtenIndexTensorOp(TorchOp):
    """`x[index]`, `x[:, index]`, `x[..., index]` with one integer index tensor: the slices of
    `x` along dim d picked by `index` (negative indices count from the end); the result is
    `x.shape[:d] + index.shape + x.shape[d + 1:]`.

    ```mlir
    %l = torch.prim.ListConstruct %none, %i : (!torch.none, !torch.vtensor<[5],si64>) -> !torch.list<vtensor>
    %r = torch.aten.index.Tensor %x, %l : !torch.vtensor<[4,3],f32>, !torch.list<vtensor> -> !torch.vtensor<[4,5],f32>
    ```
    ATen's `indices` are `Tensor?[]`: an entry per dim, None for `:`; here exactly one entry
    is a tensor, the last (dims after it are kept whole).
    """

    name = "torch.aten.index.Tensor"
    SCHEMA = "aten::index.Tensor(Tensor self, Tensor[] indices) -> Tensor"
    PY_NAMES = ()  # the frontend emits it for `x[index]`
    SAMPLES = (
        Sample(Tn((4, 3)), [Tn((5,), "int64", -4, 4)]),
        Sample(Tn((5,), "int64"), [Tn((2, 3), "int32", 0, 5)]),
        Sample(Tn((3, 2, 2), "bool"), [Tn((), "int64", 0, 3)]),
    )  # `x[:, index]` (None entries): tests/e2e/test_movement_ops.py
    self_ = operand_def(ValueTensorType)
    indices = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, indices = args
        d, index = indexed_dim("index", indices)
        if index.dtype is not None and index.dtype.is_bool:  # x[mask]: dialects/.../value_sized.py
            from dialects.torch.ops.value_sized import masked_index_shape

            return [ValueTensorType(masked_index_shape("index", x, d, index), x.dtype)]
        check_index_dtype("index", index)
        if x.rank == 0:
            raise IndexError("index(): a 0-d tensor cannot be indexed by a tensor")
        if x.rank is not None and d >= x.rank:
            raise IndexError(
                f"index(): too many indices for tensor of dimension {x.rank} (got {d + 1})"
            )
        if x.shape is None or index.shape is None:
            return [ValueTensorType(None, x.dtype)]
        return [ValueTensorType((*x.shape[:d], *index.shape, *x.shape[d + 1 :]), x.dtype)]

    @staticmethod
    def eager(x: Any, indices: Any) -> Any:
        d = len(indices) - 1
        if np.asarray(indices[-1]).dtype == np.bool_:
            from dialects.torch.ops.value_sized import masked_index_eager

            return masked_index_eager(x, d, indices[-1])
        index = np.asarray(indices[-1], dtype=np.int64)
        size = x.shape[d]
        if index.size and (index.min() < -size or index.max() >= size):
            raise IndexError(f"index(): index out of range for dim {d} of size {size}")
        return x[(slice(None),) * d + (index,)]

    def decompose(self) -> Any:
        """`x[mask]` with a bool mask: nonzero and index_select (`value_sized.py`)."""
        from dialects.torch.ops.op_sequence import OpSequence, known_rank
        from dialects.torch.ops.value_sized import masked_index_ops

        owner = self.indices.owner
        mask = owner.operands[-1] if isinstance(owner, PrimListConstructOp) else None
        if mask is None or not isinstance(mask.type, ValueTensorType):
            return None
        if mask.type.element is None or not mask.type.element.is_bool or known_rank(mask) is None:
            return None
        seq = OpSequence()
        masked_index_ops(seq, self.self_, len(owner.operands) - 1, mask)
        return seq.ops


OPS = (AtenIndexSelectOp, AtenGatherOp, AtenEmbeddingOp, AtenIndexTensorOp)
