"""Writing values at the positions of index tensors: `torch.index_put` (`y[idx] = v`,
`y[:, i, j] = v`, `y.index_put_((idx,), v, accumulate=True)`), `masked_scatter` and `put`
(flat positions) (lowered in `lowering/torch_to_linalg/index_put.py`).

`indices` holds one entry per leading dim of `self`: an int64 / int32 index tensor, or None
(`:`, only from the frontend: Python's `torch.index_put` takes tensors only); dims after the
list are kept whole. The index tensors broadcast together to a shape B, and pick the
elements at `(i0[b], i1[b], ...)` along the dims they index. The *indexed shape* (what
`y[indices]` would read, and what `values` broadcasts to) follows PyTorch's placement: B
replaces the indexed dims where those are adjacent, else B comes first:
`y[:, i, j]` of a [2, 3, 4, 5] tensor with i, j of shape [7] is [2, 7, 5]; `y[i, :, j]` is
[7, 3, 5]. Negative indices count from the end; an index out of range is an IndexError (also
in compiled code). One boolean mask may be the only index tensor (`y[mask] = v`): it covers
the dims from its own on, and `v` either broadcasts to `x.shape[:d] + [1] + rest` (the same
values at every masked position) or is `x.shape[:d] + [k] + rest`, one value per masked
element (k is checked against the mask's count at run time, as masked_scatter writes them).
Without `accumulate` the
element written last (in row-major order of the indexed shape) wins where indices repeat
(PyTorch leaves that unspecified); with it, every write adds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta, broadcast_shapes
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.index_rules import RULES
from dialects.torch.types import DYN, BoolType, ListType, ValueTensorType


def indexed_dims(indices: list[Any]) -> list[int]:
    """The dims that an index list indexes with tensors (its non-None entries)."""
    return [d for d, index in enumerate(indices) if index is not None]


def adjacent(dims: list[int]) -> bool:
    """Whether the indexed dims are consecutive (B then replaces them in place)."""
    return dims == list(range(dims[0], dims[0] + len(dims)))


def indexed_shape(
    shape: tuple[int, ...], dims: list[int], broadcast: tuple[int, ...]
) -> tuple[int, ...]:
    """The shape of `self[indices]` for `self` of `shape`: the kept dims with B placed at the
    first indexed dim (adjacent index tensors) or in front (separated ones)."""
    kept = [n for d, n in enumerate(shape) if d not in dims]
    at = dims[0] if adjacent(dims) else 0
    return (*kept[:at], *broadcast, *kept[at:])


def is_mask(index: Any) -> bool:
    """Whether an index entry is a boolean mask (its dtype known to be bool)."""
    return isinstance(index, TensorMeta) and index.dtype is not None and index.dtype.is_bool


def _check_indices(x: TensorMeta, indices: Any) -> list[TensorMeta]:
    if not isinstance(indices, list):
        raise TypeError("index_put(): the index list must have a known length")
    tensors = [i for i in indices if i is not None]
    if not tensors:
        raise TypeError("index_put(): at least one index must be a tensor")
    if not all(isinstance(i, TensorMeta) for i in tensors):
        raise TypeError("index_put(): indices must be tensors (or None for `:`)")
    if x.rank is not None and len(indices) > x.rank:
        raise ShapeError(f"too many indices for tensor of dimension {x.rank} (got {len(indices)})")
    for index in tensors:
        dtype = index.dtype
        if is_mask(index) and len(tensors) > 1:
            raise TypeError(
                "index_put(): a boolean mask must be the only index tensor (x[mask] = v); "
                "combining it with other index tensors is not supported"
            )
        if dtype is not None and dtype.name == "uint8":
            raise TypeError("index_put(): a uint8 mask index is not supported: use a bool mask")
        if dtype is not None and not dtype.is_bool and dtype.name not in ("int64", "int32"):
            raise TypeError("tensors used as indices must be long, int, byte or bool tensors")
    return tensors


def per_masked_element(
    shape: tuple[int, ...], d: int, mask_rank: int, values: tuple[int, ...]
) -> bool:
    """Whether `values` holds one value per masked element in `x[mask] = v` (mask at dim d of
    an x of `shape`): `x.shape[:d] + [k] + rest` with k not 1 (k must be the mask's count)."""
    rest = shape[d + mask_rank :]
    if len(values) != d + 1 + len(rest) or values[d] == 1:
        return False
    around = (*values[:d], *values[d + 1 :])
    return all(DYN in (v, n) or v == n for v, n in zip(around, (*shape[:d], *rest)))


def _check_mask(x: TensorMeta, indices: list[Any], values: TensorMeta) -> None:
    """`x[mask] = v` (mask at dim d): the mask has x's sizes from d on, and `v` one value for
    every masked element (it broadcasts to x's dims around the mask's)."""
    d = len(indices) - 1
    mask = indices[d]
    if x.shape is None or mask.shape is None or values.shape is None:
        return
    covered = x.shape[d : d + len(mask.shape)]
    if len(covered) < len(mask.shape):
        raise ShapeError(
            f"too many indices for tensor of dimension {len(x.shape)} (got {d + len(mask.shape)})"
        )
    for k, (m, n) in enumerate(zip(mask.shape, covered)):
        if DYN not in (m, n) and m != n:
            raise ShapeError(
                f"The shape of the mask {_shape_text(mask.shape)} at index {k} does not match "
                f"the shape of the indexed tensor {_shape_text(x.shape)} at index {d + k}"
            )
    rest = x.shape[d + len(mask.shape) :]
    target = (*x.shape[:d], 1, *rest)
    if per_masked_element(x.shape, d, len(mask.shape), values.shape):
        return
    if not _fits(values.shape, target):
        raise ShapeError(
            f"index_put(): x[mask] = v with v of shape {_shape_text(values.shape)}: v must "
            f"broadcast to {_shape_text(target)} (the same values at every masked position) "
            "or have one value per masked element"
        )


def _fits(values: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether `values` broadcasts to `target` (not the other way: no extra dims)."""
    if len(values) > len(target):
        return False
    tail = target[len(target) - len(values) :]
    return all(v in (1, DYN) or t == DYN or v == t for v, t in zip(values, tail))


def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join("?" if n == DYN else str(n) for n in shape) + "]"


@torch_op
class AtenIndexPutOp(TorchOp):
    """`torch.index_put(x, indices, values, accumulate=False)`: a copy of `x` with `values`
    (broadcast to the indexed shape) written (or added, with `accumulate`) at `indices`.

    ```mlir
    %l = torch.prim.ListConstruct %none, %i : (!torch.none, !torch.vtensor<[3],si64>) -> !torch.list<vtensor>
    %r = torch.aten.index_put %x, %l, %v, %false : !torch.vtensor<[4,5],f32>, !torch.list<vtensor>, !torch.vtensor<[4,3],f32>, !torch.bool -> !torch.vtensor<[4,5],f32>
    ```
    ATen's `indices` are `Tensor?[]` (None for `:`).
    """

    name = "torch.aten.index_put"
    SCHEMA = (
        "aten::index_put(Tensor self, Tensor[] indices, Tensor values, bool accumulate=False)"
        " -> Tensor"
    )
    PY_NAMES = ("torch.index_put", "Tensor.index_put")
    IN_PLACE = True  # `x.index_put_(...)`: the result written back
    SAMPLES = (
        Sample(Tn((5, 3)), [Tn((), "int64", -5, 5)], Tn((3,))),
        Sample(
            Tn((4, 3, 2)), [Tn((2, 1), "int64", -4, 4), Tn((3,), "int32", 0, 3)], Tn((3, 2)), True
        ),
    )  # one index element without accumulate: PyTorch leaves repeated indices' winner open
    self_ = operand_def(ValueTensorType)
    indices = operand_def(ListType)
    values = operand_def(ValueTensorType)
    accumulate = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, indices, values = args[:3]
        tensors = _check_indices(x, indices)
        if x.dtype is not None and values.dtype is not None and x.dtype != values.dtype:
            raise TypeError(
                "Index put requires the source and destination dtypes match, got "
                f"{x.dtype.name} for the destination and {values.dtype.name} for the source"
            )
        if is_mask(tensors[0]):
            _check_mask(x, indices, values)
            return [ValueTensorType(x.shape, x.dtype)]
        broadcast = broadcast_shapes([i.shape for i in tensors])
        if x.shape is None or broadcast is None or values.shape is None:
            return [ValueTensorType(x.shape, x.dtype)]
        target = indexed_shape(x.shape, indexed_dims(indices), broadcast)
        if not _fits(values.shape, target):
            raise ShapeError(
                f"shape mismatch: value tensor of shape {_shape_text(values.shape)} cannot be "
                f"broadcast to indexing result of shape {_shape_text(target)}"
            )
        return [ValueTensorType(x.shape, x.dtype)]

    @staticmethod
    def eager(x: Any, indices: Any, values: Any, accumulate: bool = False) -> Any:
        out = np.array(x, copy=True)
        where: list[Any] = []
        for d, index in enumerate(indices):
            if index is None:
                where.append(slice(None))
                continue
            if np.asarray(index).dtype == np.bool_:  # the masked positions, one array per dim
                where.extend(np.nonzero(index))
                continue
            where.append(RULES["index_put"].checked(index, out.shape[d], d))
        target = out[tuple(where)].shape
        values = np.broadcast_to(np.asarray(values, dtype=out.dtype), target)
        if accumulate:
            np.add.at(out, tuple(where), values)
        else:
            out[tuple(where)] = values
        return out


@torch_op
class AtenMaskedScatterOp(TorchOp):
    """`x.masked_scatter(mask, source)`: x with the elements where `mask` (broadcast to x's
    shape) is set taken from `source`, in row-major order; `source` needs at least as many
    elements as the mask has ones (checked at run time)."""

    name = "torch.aten.masked_scatter"
    SCHEMA = "aten::masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor"
    PY_NAMES = ("torch.masked_scatter", "Tensor.masked_scatter")
    IN_PLACE = True  # `x.masked_scatter_(...)`: the result written back
    SAMPLES = (
        Sample(Tn((3, 4)), Tn((3, 4), "bool"), Tn((13,))),
        Sample(Tn((2, 3), "int64"), Tn((3,), "bool"), Tn((2, 4), "int64")),
    )
    self_ = operand_def(ValueTensorType)
    mask = operand_def(ValueTensorType)
    source = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, mask, source = args
        if mask.dtype is not None and not mask.dtype.is_bool:
            raise TypeError(
                f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                f"{mask.dtype.name}"
            )
        if x.dtype is not None and source.dtype is not None and x.dtype != source.dtype:
            raise TypeError(
                f"masked_scatter: expected self and source to have same dtypes but got "
                f"{x.dtype.name} and {source.dtype.name}"
            )
        known = x.shape is not None and mask.shape is not None
        if known and not _fits(mask.shape, x.shape):
            raise ShapeError(
                f"masked_scatter: the mask of shape {_shape_text(mask.shape)} must broadcast "
                f"to self's shape {_shape_text(x.shape)}"
            )
        return [ValueTensorType(x.shape, x.dtype)]

    @staticmethod
    def eager(x: Any, mask: Any, source: Any) -> Any:
        out = np.array(x, copy=True)
        chosen = np.broadcast_to(np.asarray(mask, dtype=bool), out.shape)
        count = int(chosen.sum())
        values = np.asarray(source).reshape(-1)
        if count > values.size:
            raise ValueError("Number of elements of source < number of ones in mask")
        out[chosen] = values[:count]
        return out


@torch_op
class AtenPutOp(TorchOp):
    """`x.put(index, source, accumulate=False)`: x with `source`'s elements written (or
    added) at the flat, row-major positions `index` (any shape; negative positions count
    from the end; out of range is an IndexError, also at run time)."""

    name = "torch.aten.put"
    SCHEMA = "aten::put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor"
    PY_NAMES = ("torch.put", "Tensor.put")
    IN_PLACE = True  # `x.put_(...)`: the result written back
    SAMPLES = (
        Sample(Tn((3, 4)), Tn((2, 2), "int64", -12, 12), Tn((4,)), True),
        Sample(Tn((5,), "int64"), Tn((), "int64", 0, 5), Tn((1, 1), "int64")),
    )  # repeated positions only with accumulate (PyTorch leaves their winner open)
    self_ = operand_def(ValueTensorType)
    index = operand_def(ValueTensorType)
    source = operand_def(ValueTensorType)
    accumulate = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, index, source = args[:3]
        if index.dtype is not None and index.dtype.name != "int64":
            raise TypeError(f"put_(): Expected a long tensor for index, but got {index.dtype.name}")
        if x.dtype is not None and source.dtype is not None and x.dtype != source.dtype:
            raise TypeError(
                f"put_(): self and source expected to have the same dtype, but got "
                f"self.dtype = {x.dtype.name} and source.dtype = {source.dtype.name}"
            )
        counts = [_numel(t.shape) for t in (index, source)]
        if None not in counts and counts[0] != counts[1]:
            raise ShapeError(
                "put_(): Expected source and index to have the same number of elements, but "
                f"got source.numel() = {counts[1]}, index.numel() = {counts[0]}"
            )
        return [ValueTensorType(x.shape, x.dtype)]

    @staticmethod
    def eager(x: Any, index: Any, source: Any, accumulate: bool = False) -> Any:
        out = np.array(x, copy=True)
        flat = out.reshape(-1)
        positions = np.asarray(index, dtype=np.int64).reshape(-1)
        if positions.size and (positions.min() < -flat.size or positions.max() >= flat.size):
            raise IndexError(
                f"out of range: tried to access an index on a tensor of {flat.size} elements"
            )
        values = np.asarray(source, dtype=out.dtype).reshape(-1)
        if accumulate:
            np.add.at(flat, positions, values)
        else:
            flat[positions] = values
        return out


def _numel(shape: tuple[int, ...] | None) -> int | None:
    if shape is None or DYN in shape:
        return None
    return int(np.prod(shape, dtype=np.int64))


OPS = (
    AtenIndexPutOp,
    AtenMaskedScatterOp,
    AtenPutOp,
)
