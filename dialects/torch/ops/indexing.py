"""Indexing by index tensors: index_select, gather, embedding and `x[index]` / `x[:, index]`.

Indices must be int64 or int32 and in range (torch raises IndexError otherwise; the compiled
code checks `x[...]`'s index tensors, not those of index_select, gather and embedding, where
an index out of range reads an unspecified element).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta, broadcast_shapes
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.data_movement import constant_dim
from dialects.torch.ops.index_put import indexed_shape
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


def index_entries(op_name: str, indices: Any) -> list[tuple[int, TensorMeta]]:
    """The (dim, index tensor) of each non-None entry of an index list (None entries are `:`)."""
    if not isinstance(indices, list):
        raise TypeError(f"{op_name}(): the index list must have a known length")
    entries = [(d, index) for d, index in enumerate(indices) if index is not None]
    if not entries:
        raise TypeError(f"{op_name}(): at least one index must be a tensor")
    if not all(isinstance(index, TensorMeta) for _, index in entries):
        raise TypeError(f"{op_name}(): indices must be tensors (or None for `:`)")
    return entries


def is_mask_index(index: TensorMeta) -> bool:
    return index.dtype is not None and index.dtype.is_bool


def masked_dim(op_name: str, indices: list[Any], entries: list[tuple[int, TensorMeta]]) -> int:
    """The dim of the one boolean mask of an index list (the last entry, `x[:, mask]`)."""
    if len(entries) > 1:
        raise TypeError(
            f"{op_name}(): a boolean mask must be the only index tensor (x[mask]); combining "
            "it with other index tensors is not supported"
        )
    d = entries[0][0]
    if d != len(indices) - 1:
        raise TypeError(f"{op_name}(): a boolean mask must be the last entry of the index list")
    return d


def advanced_index_shape(
    op_name: str, x: TensorMeta, indices: list[Any], entries: list[tuple[int, TensorMeta]]
) -> tuple[int, ...] | None:
    """The shape of `x[indices]` for integer index tensors: their shapes broadcast to B, which
    replaces the indexed dims where those are adjacent, else comes first (PyTorch's placement,
    `dialects/torch/ops/index_put.py`); the dims after the list are kept whole."""
    for _, index in entries:
        check_index_dtype(op_name, index)
    if x.rank == 0:
        raise IndexError(f"{op_name}(): a 0-d tensor cannot be indexed by a tensor")
    if x.rank is not None and len(indices) > x.rank:
        raise IndexError(
            f"{op_name}(): too many indices for tensor of dimension {x.rank} (got {len(indices)})"
        )
    shapes = [index.shape for _, index in entries]
    try:
        broadcast = broadcast_shapes(shapes)
    except ShapeError:
        listed = ", ".join(_shape_text(s) for s in shapes if s is not None)
        raise IndexError(
            "shape mismatch: indexing tensors could not be broadcast together with shapes " + listed
        ) from None
    if x.shape is None or broadcast is None:
        return None
    return indexed_shape(x.shape, [d for d, _ in entries], broadcast)


def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join("?" if n == DYN else str(n) for n in shape) + "]"


@torch_op
class AtenIndexTensorOp(TorchOp):
    """`x[i]`, `x[:, i]`, `x[rows, cols]`, `x[i0, :, i2]`: integer index tensors (an entry per
    leading dim of `x`, None for `:`; dims after the list are kept whole) broadcast together to
    a shape B and pick the elements at `(i0[b], i1[b], ...)` along the dims they index; B
    replaces those dims where they are adjacent, else comes first (`x[i0, :, i2]` of a
    [4, 3, 5] tensor with i0, i2 of shape [7] is [7, 3]). Negative indices count from the end;
    one out of range is an IndexError (also in compiled code). One boolean mask, the last
    entry, may be the only index (`x[mask]`, `x[:, mask]`: `value_sized.py`).

    ```mlir
    %l = torch.prim.ListConstruct %i, %none, %j : (!torch.vtensor<[5],si64>, !torch.none, !torch.vtensor<[5],si64>) -> !torch.list<vtensor>
    %r = torch.aten.index.Tensor %x, %l : !torch.vtensor<[4,3,6],f32>, !torch.list<vtensor> -> !torch.vtensor<[5,3],f32>
    ```
    """

    name = "torch.aten.index.Tensor"
    SCHEMA = "aten::index.Tensor(Tensor self, Tensor[] indices) -> Tensor"
    PY_NAMES = ()  # the frontend emits it for `x[index]`
    SAMPLES = (
        Sample(Tn((4, 3, 2)), [Tn((2, 1), "int64", -4, 4), Tn((3,), "int32", -3, 3)]),
        Sample(Tn((3, 2, 2), "bool"), [Tn((), "int64", -3, 3)]),
    )  # None entries (`x[i, :, j]`) and PyTorch as the oracle: tests/e2e/test_index_read.py
    self_ = operand_def(ValueTensorType)
    indices = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, indices = args
        entries = index_entries("index", indices)
        if any(is_mask_index(index) for _, index in entries):  # x[mask]: value_sized.py
            from dialects.torch.ops.value_sized import masked_index_shape

            d = masked_dim("index", indices, entries)
            return [ValueTensorType(masked_index_shape("index", x, d, indices[d]), x.dtype)]
        return [ValueTensorType(advanced_index_shape("index", x, indices, entries), x.dtype)]

    @staticmethod
    def eager(x: Any, indices: Any) -> Any:
        entries = [(d, np.asarray(index)) for d, index in enumerate(indices) if index is not None]
        if entries[0][1].dtype == np.bool_:
            from dialects.torch.ops.value_sized import masked_index_eager

            return masked_index_eager(x, entries[0][0], entries[0][1])
        key: list[Any] = [slice(None)] * len(indices)
        for d, index in entries:
            size = x.shape[d]
            if index.size and (index.min() < -size or index.max() >= size):
                raise IndexError(f"index(): index out of range for dim {d} of size {size}")
            key[d] = index.astype(np.int64)
        try:
            np.broadcast_shapes(*(index.shape for _, index in entries))
        except ValueError:
            raise IndexError(
                "shape mismatch: indexing tensors could not be broadcast together"
            ) from None
        return np.array(x[tuple(key)])

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
