"""Shape-changing composites: unflatten, narrow, view_as, reshape_as, broadcast_to, tile,
repeat_interleave (an int count) and numel.

Each decomposes (`torch-decompose`) into view, slice, expand, repeat, unsqueeze or flatten, so
none has a lowering of its own; sizes known only at run time are read with `aten.size.int`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import Dynamic, ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.data_movement import AtenSliceTensorOp, constant_dim
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.scalars import AtenAddIntOp, AtenMulIntOp
from dialects.torch.ops.shapes import numel, size_list, view_shape
from dialects.torch.ops.views import (
    AtenExpandOp,
    AtenFlattenUsingIntsOp,
    AtenRepeatOp,
    AtenUnsqueezeOp,
    AtenViewOp,
)
from dialects.torch.types import DYN, IntType, ListType, NoneType, ValueTensorType


@torch_op
class AtenUnflattenIntOp(TorchOp):
    """`x.unflatten(dim, sizes)`: dim `dim` split into `sizes` (one may be -1)."""

    name = "torch.aten.unflatten.int"
    SCHEMA = "aten::unflatten.int(Tensor self, int dim, int[] sizes) -> Tensor"
    PY_NAMES = ("torch.unflatten", "Tensor.unflatten")
    SAMPLES = (Sample(Tn((4, 6)), 1, [2, -1]), Sample(Tn((6,), "int64"), 0, [3, 2]))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    sizes = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim, sizes = args
        sizes = size_list("unflatten", "sizes", sizes)
        if not sizes:
            raise ShapeError("unflatten: sizes must be non-empty")
        d = constant_dim("unflatten", dim, x)
        if x.shape is None or d is None:
            return [ValueTensorType(None, x.dtype)]
        if x.rank == 0:
            raise ShapeError("unflatten: cannot unflatten a 0-d tensor")
        try:
            middle = view_shape((x.shape[d],), sizes)
        except ShapeError:
            raise ShapeError(
                f"unflatten: Provided sizes {[s if isinstance(s, int) else '?' for s in sizes]}"
                f" don't multiply up to the size of dim {dim} ({x.shape[d]}) in the input tensor"
            ) from None
        return [ValueTensorType((*x.shape[:d], *middle, *x.shape[d + 1 :]), x.dtype)]

    @staticmethod
    def eager(x: Any, dim: int, sizes: Any) -> Any:
        (typ,) = AtenUnflattenIntOp.infer(TensorMeta.of_array(x), dim, list(sizes))
        assert isinstance(typ, ValueTensorType)
        return np.reshape(x, typ.sizes)

    def decompose(self) -> Any:
        x = self.self_
        rank = known_rank(x)
        if rank is None:
            return None
        d = arg_value(self.dim) % rank
        seq = OpSequence()
        outer = seq.sizes(x)
        sizes = [*outer[:d], *list_values(self.sizes), *outer[d + 1 :]]
        seq.call(AtenViewOp, x, sizes)
        return seq.ops


def list_values(value: Any) -> list[Any]:
    """The elements of an int list operand: Python ints, or the SSA values of runtime ones."""
    from dialects.torch.ops.prim import PrimListConstructOp

    owner = value.owner
    if isinstance(owner, PrimListConstructOp):
        return [e if isinstance(arg_value(e), Dynamic) else arg_value(e) for e in owner.elements]
    return size_list("list", "value", arg_value(value))


@torch_op
class AtenNarrowOp(TorchOp):
    """`x.narrow(dim, start, length)`: `length` elements from `start` along `dim` (a negative
    start counts from the end)."""

    name = "torch.aten.narrow"
    SCHEMA = "aten::narrow(Tensor self, int dim, int start, int length) -> Tensor"
    PY_NAMES = ("torch.narrow", "Tensor.narrow")
    SAMPLES = (Sample(Tn((4, 6)), 1, 1, 3), Sample(Tn((5,), "int64"), 0, -3, 2))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    start = operand_def(IntType)
    length = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim, start, length = args
        d = constant_dim("narrow", dim, x)
        if x.rank == 0:
            raise ShapeError("narrow() cannot be applied to a 0-dim tensor.")
        if isinstance(length, int) and length < 0:
            raise ShapeError("narrow(): length must be non-negative.")
        if x.shape is None or d is None:
            return [ValueTensorType(None, x.dtype)]
        size = x.shape[d]
        if isinstance(start, int) and size != DYN:
            if not -size <= start <= size:
                raise IndexError(
                    f"start out of range (expected to be in range of [{-size}, {size}], "
                    f"but got {start})"
                )
            if isinstance(length, int) and start % max(size, 1) + length > size:
                raise ShapeError(
                    f"start ({start}) + length ({length}) exceeds dimension size ({size})."
                )
        new = length if isinstance(length, int) else DYN
        return [ValueTensorType((*x.shape[:d], new, *x.shape[d + 1 :]), x.dtype)]

    @staticmethod
    def eager(x: Any, dim: int, start: int, length: int) -> Any:
        AtenNarrowOp.infer(TensorMeta.of_array(x), dim, start, length)
        start = start + x.shape[dim] if start < 0 else start
        return x[(slice(None),) * (dim % x.ndim) + (slice(start, start + length),)]

    def decompose(self) -> Any:
        """`x.slice(dim, start, start + length)`; a negative constant start is made
        non-negative first (a start known only at run time must be non-negative)."""
        x, dim, start, length = self.operands
        rank = known_rank(x)
        if rank is None:
            return None
        seq = OpSequence()
        first: Any = start if isinstance(arg_value(start), Dynamic) else arg_value(start)
        if isinstance(first, int) and first < 0:
            size = seq.size(x, arg_value(dim) % rank)
            first = first + size if isinstance(size, int) else seq.call(AtenAddIntOp, size, first)
        count = arg_value(length)
        if isinstance(first, int) and isinstance(count, int):
            end: Any = first + count
        else:
            end = seq.call(AtenAddIntOp, first, length)
        seq.call(AtenSliceTensorOp, x, dim, first, end, 1)
        return seq.ops


class _AsOtherOp(TorchOp):
    """`x.view_as(other)` / `x.reshape_as(other)`: `x.view(other.shape)`."""

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, other = args
        if x.shape is not None and other.shape is not None:
            view_shape(x.shape, [Dynamic("int") if d == DYN else d for d in other.shape])
        return [ValueTensorType(other.shape, x.dtype)]

    @staticmethod
    def eager(x: Any, other: Any) -> Any:
        return np.reshape(x, other.shape)

    def decompose(self) -> Any:
        x, other = self.operands
        if known_rank(other) is None:
            return None
        seq = OpSequence()
        seq.call(AtenViewOp, x, seq.sizes(other))
        return seq.ops


@torch_op
class AtenViewAsOp(_AsOtherOp):
    """`x.view_as(other)`."""

    name = "torch.aten.view_as"
    SCHEMA = "aten::view_as(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("Tensor.view_as",)
    SAMPLES = (Sample(Tn((4, 6)), Tn((2, 3, 4), "int64")),)
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenReshapeAsOp(_AsOtherOp):
    """`x.reshape_as(other)`."""

    name = "torch.aten.reshape_as"
    SCHEMA = "aten::reshape_as(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("Tensor.reshape_as",)
    SAMPLES = (Sample(Tn((6,), "int32"), Tn((3, 2))),)
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenBroadcastToOp(TorchOp):
    """`torch.broadcast_to(x, size)`: `x.expand(size)`."""

    name = "torch.aten.broadcast_to"
    SCHEMA = "aten::broadcast_to(Tensor self, int[] size) -> Tensor"
    PY_NAMES = ("torch.broadcast_to", "Tensor.broadcast_to")
    SAMPLES = (Sample(Tn((6,)), [3, 6]), Sample(Tn((3, 1), "bool"), [2, -1, 4]))
    self_ = operand_def(ValueTensorType)
    size = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return AtenExpandOp.infer(*args, False)

    @staticmethod
    def eager(x: Any, size: Any) -> Any:
        return AtenExpandOp.eager(x, size)

    def decompose(self) -> Any:
        seq = OpSequence()
        seq.call(AtenExpandOp, self.self_, self.size, False)
        return seq.ops


@torch_op
class AtenTileOp(TorchOp):
    """`torch.tile(x, dims)`: `x.repeat(dims)`, `dims` padded with leading 1s to x's rank."""

    name = "torch.aten.tile"
    SCHEMA = "aten::tile(Tensor self, int[] dims) -> Tensor"
    PY_NAMES = ("torch.tile", "Tensor.tile")
    SAMPLES = (Sample(Tn((2, 3)), [2]), Sample(Tn((3,), "int64"), [2, 2]))
    self_ = operand_def(ValueTensorType)
    dims = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def padded(cls, dims: Any, rank: int) -> list[Any]:
        counts = size_list("tile", "dims", dims)
        return [1] * (rank - len(counts)) + counts

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dims = args
        if x.rank is None:
            return [ValueTensorType(None, x.dtype)]
        return AtenRepeatOp.infer(x, cls.padded(dims, x.rank))

    @staticmethod
    def eager(x: Any, dims: Any) -> Any:
        return np.tile(x, dims)

    def decompose(self) -> Any:
        rank = known_rank(self.self_)
        if rank is None:
            return None
        seq = OpSequence()
        seq.call(AtenRepeatOp, self.self_, self.padded(list_values(self.dims), rank))
        return seq.ops


@torch_op
class AtenRepeatInterleaveSelfIntOp(TorchOp):
    """`torch.repeat_interleave(x, repeats, dim)`: each element `repeats` times in a row along
    `dim` (of the flattened tensor when `dim` is None). Tensor `repeats` (a count per element)
    are not supported: the result's size would depend on their values."""

    name = "torch.aten.repeat_interleave.self_int"
    SCHEMA = (
        "aten::repeat_interleave.self_int(Tensor self, int repeats, int? dim=None, *, "
        "int? output_size=None) -> Tensor"
    )
    PY_NAMES = ("torch.repeat_interleave", "Tensor.repeat_interleave")
    SAMPLES = (Sample(Tn((2, 3)), 2, 0), Sample(Tn((2, 2), "int64"), 3))
    self_ = operand_def(ValueTensorType)
    repeats = operand_def(IntType)
    dim = operand_def(IntType | NoneType)
    output_size = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, repeats, dim = args[:3]
        if isinstance(repeats, int) and repeats < 0:
            raise ShapeError("repeat_interleave: repeats can not be negative")
        if not isinstance(repeats, int):  # an int known at run time: the dim's size is too
            repeats = DYN
        if dim is None:
            count = None if x.shape is None else numel(x.shape)
            unknown = count is None or repeats == DYN
            return [ValueTensorType((DYN if unknown else count * repeats,), x.dtype)]
        d = constant_dim("repeat_interleave", dim, x)
        if x.shape is None or d is None:
            return [ValueTensorType(None, x.dtype)]
        if x.rank == 0:
            return [ValueTensorType((repeats,), x.dtype)]
        size = x.shape[d]
        new = DYN if DYN in (size, repeats) else size * repeats
        return [ValueTensorType((*x.shape[:d], new, *x.shape[d + 1 :]), x.dtype)]

    @staticmethod
    def eager(x: Any, repeats: int, dim: Any = None, output_size: Any = None) -> Any:
        return np.repeat(x, repeats, axis=dim)

    def decompose(self) -> Any:
        """`x.unsqueeze(d + 1).expand(..., repeats, ...).flatten(d, d + 1)`."""
        x, repeats, dim = self.operands[:3]
        rank = known_rank(x)
        if rank is None:
            return None
        seq = OpSequence()
        if arg_value(dim) is None or rank == 0:
            x, d = seq.call(AtenViewOp, x, [-1]), 0
        else:
            d = arg_value(dim) % rank
        wide = seq.call(AtenUnsqueezeOp, x, d + 1)
        sizes = seq.sizes(wide)
        count = arg_value(repeats)
        sizes[d + 1] = count if isinstance(count, int) else repeats  # a run-time count
        grown = seq.call(AtenExpandOp, wide, sizes, False)
        seq.call(AtenFlattenUsingIntsOp, grown, d, d + 1)
        return seq.ops


@torch_op
class AtenNumelOp(TorchOp):
    """`x.numel()`: the element count, a Python int."""

    name = "torch.aten.numel"
    SCHEMA = "aten::numel(Tensor self) -> int"
    PY_NAMES = ("torch.numel", "Tensor.numel", "Tensor.nelement")
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn(())))
    self_ = operand_def(ValueTensorType)
    result = result_def(IntType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return [IntType()]

    @staticmethod
    def eager(x: Any) -> Any:
        return int(x.size)

    def fold(self) -> Any:
        sizes = self.self_.type.sizes  # type: ignore[attr-defined]
        count = None if sizes is None else numel(sizes)
        return None if count is None else [count]

    def decompose(self) -> Any:
        """The product of the sizes (`aten.mul.int` of `aten.size.int`s) when one is dynamic."""
        if known_rank(self.self_) is None or self.fold() is not None:
            return None
        seq = OpSequence()
        total: Any = 1
        for size in seq.sizes(self.self_):
            total = seq.call(AtenMulIntOp, total, size)
        return seq.ops


OPS = (
    AtenUnflattenIntOp,
    AtenNarrowOp,
    AtenViewAsOp,
    AtenReshapeAsOp,
    AtenBroadcastToOp,
    AtenTileOp,
    AtenRepeatInterleaveSelfIntOp,
    AtenNumelOp,
)
