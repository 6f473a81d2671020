"""Ops returning a list of tensors: unbind, tensor_split (sections or indices) and meshgrid.

Like split and chunk, the result is a `!torch.list<vtensor>` that a program unpacks
(`a, b = x.unbind(0)`) or passes on whole (`torch.stack(x.unbind(1))`). Each decomposes into a
`torch.prim.ListConstruct` of select / slice / expand ops, one per piece; the piece count comes
from the sizes, else (a size known only at run time) from the unpacking that reads the list.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.data_movement import AtenSelectIntOp, AtenSliceTensorOp, constant_dim
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.prim import PrimListUnpackOp
from dialects.torch.ops.scalars import (
    AtenAddIntOp,
    AtenFloordivIntOp,
    AtenMinIntOp,
    AtenMulIntOp,
    AtenRemainderIntOp,
)
from dialects.torch.ops.shapes import size_list
from dialects.torch.ops.views import AtenExpandOp, AtenViewOp
from dialects.torch.types import DYN, IntType, ListType, StrType, ValueTensorType


def joined_type(pieces: list[ValueTensorType], dtype: Any) -> ValueTensorType:
    """One type admitting every piece: dims that differ become `?`."""
    shapes = {p.sizes for p in pieces}
    if not pieces or None in shapes or len({len(s) for s in shapes if s is not None}) > 1:
        return ValueTensorType(None, dtype)
    if len(shapes) == 1:
        return pieces[0]
    dims = zip(*(p.sizes for p in pieces))  # type: ignore[misc]
    return ValueTensorType(tuple(d[0] if len(set(d)) == 1 else DYN for d in dims), dtype)


def unpacked_count(op: TorchOp) -> int | None:
    """How many values every unpacking of `op`'s list takes (None: not only unpacked)."""
    counts = set()
    for use in op.results[0].uses:
        if not isinstance(use.operation, PrimListUnpackOp):
            return None
        counts.add(len(use.operation.results))
    return counts.pop() if len(counts) == 1 else None


class PiecesOp(TorchOp):
    """A list-of-tensors op: `pieces(args)` gives each piece's type (None: count unknown)."""

    @classmethod
    def pieces(cls, *args: Any) -> list[ValueTensorType] | None:
        raise NotImplementedError

    @classmethod
    def element_type(cls, *args: Any) -> ValueTensorType:
        """The list's element type when the piece count is not known."""
        raise NotImplementedError

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        pieces = cls.pieces(*args)
        if pieces is None:
            return [ListType(cls.element_type(*args))]
        return [ListType(joined_type(pieces, pieces[0].element if pieces else None))]

    def piece_types(self) -> list[Attribute] | None:
        return self.pieces(*self.arg_values())  # type: ignore[return-value]


@torch_op
class AtenUnbindIntOp(PiecesOp):
    """`x.unbind(dim)`: the `x.select(dim, k)` for every k."""

    name = "torch.aten.unbind.int"
    SCHEMA = "aten::unbind.int(Tensor self, int dim=0) -> Tensor[]"
    PY_NAMES = ("torch.unbind", "Tensor.unbind")
    SAMPLES = (Sample(Tn((3, 2))), Sample(Tn((2, 3), "int64"), -1))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    result = result_def(ListType)

    @classmethod
    def element_type(cls, *args: Any) -> ValueTensorType:
        x, dim = args
        d = constant_dim("unbind", dim, x)
        if x.shape is None or d is None:
            return ValueTensorType(None, x.dtype)
        if not x.shape:
            raise ShapeError("Dimension specified as 0 but tensor has no dimensions")
        return ValueTensorType(x.shape[:d] + x.shape[d + 1 :], x.dtype)

    @classmethod
    def pieces(cls, *args: Any) -> list[ValueTensorType] | None:
        x, dim = args
        piece = cls.element_type(x, dim)
        d = constant_dim("unbind", dim, x)
        if x.shape is None or d is None or x.shape[d] == DYN:
            return None
        return [piece] * x.shape[d]

    @staticmethod
    def eager(x: Any, dim: int = 0) -> Any:
        return [np.asarray(np.take(x, k, axis=dim)) for k in range(x.shape[dim])]  # 0-d: arrays

    def decompose(self) -> Any:
        x, dim = self.operands
        rank = known_rank(x)
        if rank is None:
            return None
        d = arg_value(dim) % rank
        size = x.type.sizes[d]  # type: ignore[attr-defined]
        count = size if size != DYN else unpacked_count(self)
        if count is None:
            return None
        seq = OpSequence()
        seq.list_of([seq.call(AtenSelectIntOp, x, d, k) for k in range(count)])
        return seq.ops


def section_bounds(size: int, sections: int) -> list[tuple[int, int]]:
    """torch's tensor_split into `sections`: the first `size % sections` pieces are one longer."""
    q, r = divmod(size, sections)
    starts = [k * q + min(k, r) for k in range(sections + 1)]
    return list(pairwise(starts))


def _check_sections(sections: Any) -> int:
    if not isinstance(sections, int):
        raise TypeError("tensor_split: `sections` must be a constant int")
    if sections <= 0:
        raise ShapeError(f"number of sections must be larger than 0, got {sections}")
    return sections


def _slice_types(x: TensorMeta, d: int, lengths: list[int]) -> list[ValueTensorType]:
    assert x.shape is not None
    return [ValueTensorType((*x.shape[:d], n, *x.shape[d + 1 :]), x.dtype) for n in lengths]


class _TensorSplitOp(PiecesOp):
    @classmethod
    def element_type(cls, *args: Any) -> ValueTensorType:
        x, _, dim = args
        d = constant_dim("tensor_split", dim, x)
        if x.shape is None or d is None:
            return ValueTensorType(None, x.dtype)
        if not x.shape:
            raise ShapeError(
                "tensor_split expected at least a 1-dimensional tensor, but got a tensor with "
                "0 dims"
            )
        return ValueTensorType((*x.shape[:d], DYN, *x.shape[d + 1 :]), x.dtype)

    @classmethod
    def bounds(cls, size: int, arg: Any) -> list[tuple[Any, Any]]:
        raise NotImplementedError

    @classmethod
    def pieces(cls, *args: Any) -> list[ValueTensorType] | None:
        x, arg, dim = args
        element = cls.element_type(*args)
        d = constant_dim("tensor_split", dim, x)
        if x.shape is None or d is None:
            return None
        size = x.shape[d]
        if size == DYN:
            return [element] * cls.count(arg)
        lengths = [len(range(size)[slice(a, b)]) for a, b in cls.bounds(size, arg)]
        return _slice_types(x, d, lengths)

    @classmethod
    def count(cls, arg: Any) -> int:
        raise NotImplementedError

    @classmethod
    def eager(cls, x: Any, arg: Any, dim: int = 0) -> Any:
        d = dim % x.ndim
        return [x[(slice(None),) * d + (slice(a, b),)] for a, b in cls.bounds(x.shape[d], arg)]


@torch_op
class AtenTensorSplitSectionsOp(_TensorSplitOp):
    """`x.tensor_split(n, dim)`: n pieces whose lengths differ by at most one (longer first)."""

    name = "torch.aten.tensor_split.sections"
    SCHEMA = "aten::tensor_split.sections(Tensor self, int sections, int dim=0) -> Tensor[]"
    PY_NAMES = ("torch.tensor_split", "Tensor.tensor_split")
    SAMPLES = (Sample(Tn((4, 6)), 4, 1), Sample(Tn((5,), "int64"), 3))
    self_ = operand_def(ValueTensorType)
    sections = operand_def(IntType)
    dim = operand_def(IntType)
    result = result_def(ListType)

    @classmethod
    def count(cls, arg: Any) -> int:
        return _check_sections(arg)

    @classmethod
    def bounds(cls, size: int, arg: Any) -> list[tuple[Any, Any]]:
        return section_bounds(size, _check_sections(arg))  # type: ignore[return-value]

    def decompose(self) -> Any:
        x, sections, dim = self.operands
        rank = known_rank(x)
        if rank is None:
            return None
        d, n = arg_value(dim) % rank, arg_value(sections)
        seq = OpSequence()
        size = seq.size(x, d)
        if isinstance(size, int):
            edges: list[Any] = [a for a, _ in section_bounds(size, n)] + [size]
        else:
            q = seq.call(AtenFloordivIntOp, size, n)
            r = seq.call(AtenRemainderIntOp, size, n)
            edges = [
                seq.call(AtenAddIntOp, seq.call(AtenMulIntOp, q, k), seq.call(AtenMinIntOp, r, k))
                for k in range(n)
            ] + [size]
        pieces = [seq.call(AtenSliceTensorOp, x, d, a, b, 1) for a, b in pairwise(edges)]
        seq.list_of(pieces)
        return seq.ops


@torch_op
class AtenTensorSplitIndicesOp(_TensorSplitOp):
    """`x.tensor_split([i0, i1, ...], dim)`: the pieces `[:i0]`, `[i0:i1]`, ..., `[ik:]`."""

    name = "torch.aten.tensor_split.indices"
    SCHEMA = "aten::tensor_split.indices(Tensor self, int[] indices, int dim=0) -> Tensor[]"
    PY_NAMES = ("torch.tensor_split", "Tensor.tensor_split")
    SAMPLES = (Sample(Tn((2, 7)), [1, 5], 1),)
    self_ = operand_def(ValueTensorType)
    indices = operand_def(ListType)
    dim = operand_def(IntType)
    result = result_def(ListType)

    @classmethod
    def count(cls, arg: Any) -> int:
        return len(cls.edges(arg)) + 1

    @staticmethod
    def edges(arg: Any) -> list[int]:
        edges = size_list("tensor_split", "indices", arg)
        if not all(isinstance(e, int) for e in edges):
            raise TypeError("tensor_split: `indices` must be constant ints")
        return edges  # type: ignore[return-value]

    @classmethod
    def bounds(cls, size: int, arg: Any) -> list[tuple[Any, Any]]:
        edges = cls.edges(arg)
        return list(zip([0, *edges], [*edges, None]))

    def decompose(self) -> Any:
        x, indices, dim = self.operands
        rank = known_rank(x)
        if rank is None:
            return None
        d = arg_value(dim) % rank
        seq = OpSequence()
        bounds = self.bounds(0, arg_value(indices))
        seq.list_of([seq.call(AtenSliceTensorOp, x, d, a, b, 1) for a, b in bounds])
        return seq.ops


def _grid_order(count: int, indexing: str) -> list[int]:
    """Which input gives each grid dim: 'xy' swaps the first two."""
    if indexing not in ("ij", "xy"):
        raise ValueError(
            f"torch.meshgrid: indexing must be one of 'xy' or 'ij', but received: {indexing}"
        )
    order = list(range(count))
    if indexing == "xy" and count >= 2:
        order[0], order[1] = 1, 0
    return order


@torch_op
class AtenMeshgridIndexingOp(PiecesOp):
    """`torch.meshgrid(tensors, indexing='ij')`: for 1-D (or 0-d) inputs of sizes n0, n1, ...,
    tensor i repeated along the others into shape (n0, n1, ...); 'xy' swaps the first two
    dims of every result."""

    name = "torch.aten.meshgrid.indexing"
    SCHEMA = "aten::meshgrid.indexing(Tensor[] tensors, *, str indexing='ij') -> Tensor[]"
    PY_NAMES = ("torch.meshgrid",)
    SAMPLES = (
        Sample([Tn((2,)), Tn((3,))]),
        Sample([Tn((2,), "int64"), Tn((3,), "int64"), Tn((), "int64")], indexing="xy"),
    )
    tensors = operand_def(ListType)
    indexing = operand_def(StrType)
    result = result_def(ListType)

    @classmethod
    def grid_shape(cls, tensors: Any, indexing: Any) -> tuple[int, ...] | None:
        if not isinstance(tensors, list) or not all(isinstance(t, TensorMeta) for t in tensors):
            raise TypeError("meshgrid: `tensors` must be a list of tensors with a known length")
        if not tensors:
            raise ShapeError("meshgrid expects a non-empty TensorList")
        dtypes = {t.dtype for t in tensors} - {None}
        if len(dtypes) > 1:
            raise TypeError("meshgrid expects all tensors to have the same dtype")
        if any(t.rank is not None and t.rank > 1 for t in tensors):
            raise ShapeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list")
        if any(t.shape is None for t in tensors):
            return None
        sizes = [t.shape[0] if t.shape else 1 for t in tensors]  # type: ignore[index]
        return tuple(sizes[i] for i in _grid_order(len(sizes), indexing))

    @classmethod
    def element_type(cls, *args: Any) -> ValueTensorType:
        tensors, indexing = args
        return ValueTensorType(cls.grid_shape(tensors, indexing), tensors[0].dtype)

    @classmethod
    def pieces(cls, *args: Any) -> list[ValueTensorType] | None:
        return [cls.element_type(*args)] * len(args[0])

    @staticmethod
    def eager(tensors: Any, indexing: str = "ij") -> Any:
        return [g.copy() for g in np.meshgrid(*tensors, indexing=indexing)]

    def decompose(self) -> Any:
        from dialects.torch.ops.prim import PrimListConstructOp

        owner = self.tensors.owner
        if not isinstance(owner, PrimListConstructOp):
            return None
        inputs = list(owner.elements)
        if any(known_rank(t) is None for t in inputs):
            return None
        order = _grid_order(len(inputs), arg_value(self.indexing))
        seq = OpSequence()
        sizes = [seq.size(t, 0) if known_rank(t) else 1 for t in inputs]
        grid = [sizes[i] for i in order]
        pieces: list[SSAValue] = []
        for i, t in enumerate(inputs):
            position = order.index(i)
            shape = [-1 if d == position else 1 for d in range(len(inputs))]
            column = seq.call(AtenViewOp, t, shape)
            pieces.append(seq.call(AtenExpandOp, column, grid, False))
        seq.list_of(pieces)
        return seq.ops


OPS = (
    AtenUnbindIntOp,
    AtenTensorSplitSectionsOp,
    AtenTensorSplitIndicesOp,
    AtenMeshgridIndexingOp,
)
