"""Reading at index tensors and masks: index_select, gather, embedding, `x[index]` /
`x[:, index]`, `x[mask]` and masked_select (through nonzero), and the composites one_hot and
take_along_dim.

Indices must be int64 or int32 and in range: each op raises torch's exception otherwise, by
the rules of `index_rules.py` (also in compiled code).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import INT64
from dialects.torch.meta import ShapeError, TensorMeta, broadcast_shapes, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.casts import AtenToDtypeOp
from dialects.torch.ops.comparison import AtenEqTensorOp
from dialects.torch.ops.constructors import (
    AtenArangeOp,
)
from dialects.torch.ops.data_movement import AtenSelectIntOp, constant_dim
from dialects.torch.ops.index_put import indexed_shape
from dialects.torch.ops.index_rules import checked_classes, rule_of
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.prim import PrimListConstructOp
from dialects.torch.ops.shapes import numel
from dialects.torch.ops.value_sized import AtenNonzeroOp
from dialects.torch.ops.views import (
    AtenExpandOp,
    AtenFlattenUsingIntsOp,
    AtenReshapeOp,
    AtenUnsqueezeOp,
    AtenViewOp,
)
from dialects.torch.types import DYN, BoolType, IntType, ListType, NoneType, ValueTensorType


def check_index_dtype(op_name: str, index: TensorMeta) -> None:
    if index.dtype is not None and (index.dtype.is_float or index.dtype.is_bool):
        raise TypeError(f"{op_name}(): Expected dtype int32 or int64 for index")


def checked_indices(op_name: str, index: Any, size: int, dim: int = 0) -> Any:
    """The indices as int64, checked (and wrapped) by `op_name`'s rule (`index_rules.py`)."""
    return rule_of(op_name).checked(index, size, dim)


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
        indices = checked_indices("gather", index, x.shape[dim], dim)
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
        if any(is_mask_index(index) for _, index in entries):  # x[mask]: masked_index_shape
            d = masked_dim("index", indices, entries)
            return [ValueTensorType(masked_index_shape("index", x, d, indices[d]), x.dtype)]
        return [ValueTensorType(advanced_index_shape("index", x, indices, entries), x.dtype)]

    @staticmethod
    def eager(x: Any, indices: Any) -> Any:
        entries = [(d, np.asarray(index)) for d, index in enumerate(indices) if index is not None]
        if entries[0][1].dtype == np.bool_:
            return masked_index_eager(x, entries[0][0], entries[0][1])
        key: list[Any] = [slice(None)] * len(indices)
        for d, index in entries:
            key[d] = checked_indices("index", index, x.shape[d], d)
        try:
            np.broadcast_shapes(*(index.shape for _, index in entries))
        except ValueError:
            raise IndexError(
                "shape mismatch: indexing tensors could not be broadcast together"
            ) from None
        return np.array(x[tuple(key)])

    def decompose(self) -> Any:
        """`x[mask]` with a bool mask: nonzero and index_select (`masked_index_ops`)."""
        from dialects.torch.ops.op_sequence import OpSequence, known_rank

        owner = self.indices.owner
        mask = owner.operands[-1] if isinstance(owner, PrimListConstructOp) else None
        if mask is None or not isinstance(mask.type, ValueTensorType):
            return None
        if mask.type.element is None or not mask.type.element.is_bool or known_rank(mask) is None:
            return None
        seq = OpSequence()
        masked_index_ops(seq, self.self_, len(owner.operands) - 1, mask)
        return seq.ops


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
        indices = checked_classes(x, num_classes)
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
        return np.take_along_axis(xs, checked_indices("take_along_dim", ix, x.shape[d], d), d)

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


class MaskShapeError(ShapeError, IndexError):
    """A mask whose shape does not match the dims it indexes (torch raises IndexError)."""


def masked_index_shape(op_name: str, x: TensorMeta, dim: int, mask: TensorMeta) -> Any:
    """The shape of `x[:, ..., mask]` (`dim` dims before the mask): `[count]` in place of the
    dims the mask covers; MaskShapeError (an IndexError) where the sizes differ."""
    if x.shape is None or mask.shape is None:
        return None
    k = len(mask.shape)
    if dim + k > len(x.shape):
        raise MaskShapeError(
            f"{op_name}(): too many indices for tensor of dimension {len(x.shape)} (got {dim + k})"
        )
    for i, size in enumerate(mask.shape):
        have = x.shape[dim + i]
        if DYN not in (size, have) and size != have:
            raise MaskShapeError(
                f"The shape of the mask {list(mask.shape)} at index {i} does not match the "
                f"shape of the indexed tensor {list(x.shape)} at index {dim + i}"
            )
    return (*x.shape[:dim], DYN, *x.shape[dim + k :])


def masked_index_eager(x: Any, dim: int, mask: Any) -> Any:
    """`x[:, ..., mask]` in numpy, with torch's IndexError for a mask of the wrong shape."""
    masked_index_shape("index", TensorMeta.of_array(x), dim, TensorMeta.of_array(mask))
    return x[(slice(None),) * dim + (np.asarray(mask, np.bool_),)]


def masked_index_ops(seq: OpSequence, x: SSAValue, dim: int, mask: SSAValue) -> SSAValue:
    """Build `x[:, ..., mask]` (`dim` dims before the mask) from nonzero and index_select."""
    k = known_rank(mask)
    assert k is not None, "the mask's rank must be known"
    if k == 0:  # a 0-d mask adds a dim of 1 (True) or 0 (False)
        x = seq.call(AtenUnsqueezeOp, x, dim)
    elif k > 1:
        x = seq.call(AtenFlattenUsingIntsOp, x, dim, dim + k - 1)
    flat_mask = mask if k == 1 else seq.call(AtenReshapeOp, mask, [-1])
    positions = seq.call(AtenSelectIntOp, seq.call(AtenNonzeroOp, flat_mask), 1, 0)
    return seq.call(AtenIndexSelectOp, x, dim, positions)


def _check_mask_dtype(op_name: str, mask: TensorMeta) -> None:
    if mask.dtype is not None and not mask.dtype.is_bool:
        raise TypeError(f"{op_name}: expected BoolTensor for mask")


@torch_op
class AtenMaskedSelectOp(TorchOp):
    """`torch.masked_select(x, mask)`: the elements of `x` where the bool `mask` is True, `x`
    and `mask` broadcast together, as a 1-D tensor in row-major order."""

    name = "torch.aten.masked_select"
    SCHEMA = "aten::masked_select(Tensor self, Tensor mask) -> Tensor"
    PY_NAMES = ("torch.masked_select", "Tensor.masked_select")
    SAMPLES = (
        Sample(Tn((3, 4)), Tn((3, 4), "bool")),
        Sample(Tn((2, 1), "int64"), Tn((3,), "bool")),
    )
    self_ = operand_def(ValueTensorType)
    mask = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, mask = args
        _check_mask_dtype("masked_select", mask)
        broadcast_shapes([x.shape, mask.shape])
        return [ValueTensorType((DYN,), x.dtype)]

    @staticmethod
    def eager(x: Any, mask: Any) -> Any:
        shape = np.broadcast_shapes(np.shape(x), np.shape(mask))
        return np.broadcast_to(x, shape)[np.broadcast_to(mask, shape)]

    def decompose(self) -> Any:
        x, mask = self.self_, self.mask
        if known_rank(x) is None or known_rank(mask) is None:
            return None
        seq = OpSequence()
        shape = broadcast_shapes([x.type.sizes, mask.type.sizes])  # type: ignore[attr-defined]
        assert shape is not None
        x, mask = (_broadcast(seq, v, shape, (x, mask)) for v in (x, mask))
        masked_index_ops(seq, x, 0, mask)
        return seq.ops


def _broadcast(
    seq: OpSequence, value: SSAValue, shape: tuple[int, ...], operands: tuple[SSAValue, ...]
) -> SSAValue:
    """`value` expanded to the broadcast `shape` of `operands` (itself when it has it)."""
    if tuple(value.type.sizes) == shape:  # type: ignore[attr-defined]
        return value
    sizes = [seq.size(*_size_source(operands, shape, a)) if n == DYN else n
             for a, n in enumerate(shape)]  # fmt: skip
    return seq.call(AtenExpandOp, value, sizes, False)


def _size_source(
    operands: tuple[SSAValue, ...], shape: tuple[int, ...], axis: int
) -> tuple[SSAValue, int]:
    """An operand dim (aligned to the right) that gives the dynamic size of `shape[axis]`."""
    for value in operands:
        sizes = value.type.sizes  # type: ignore[attr-defined]
        dim = axis - len(shape) + len(sizes)
        if dim >= 0 and sizes[dim] == DYN:
            return value, dim
    raise AssertionError(f"no operand gives the size of broadcast dim {axis}")


OPS = (
    AtenIndexSelectOp,
    AtenGatherOp,
    AtenEmbeddingOp,
    AtenIndexTensorOp,
    AtenOneHotOp,
    AtenTakeAlongDimOp,
    AtenMaskedSelectOp,
)
