"""Joining and splitting: cat, stack and the fixed-axis stacks hstack, vstack / row_stack,
dstack, column_stack (lists of tensors in), and split, chunk (lists out).

A `Tensor[]` operand is a `torch.prim.ListConstruct` of tensors; a `Tensor[]` result is a
`!torch.list<vtensor<...>>` that the program unpacks with `torch.prim.ListUnpack`:

```mlir
%l = torch.aten.chunk %x, %int2, %int1 : !torch.vtensor<[?,6],f32>, !torch.int, !torch.int -> !torch.list<vtensor<[?,3],f32>>
%a, %b = torch.prim.ListUnpack %l : !torch.list<vtensor<[?,3],f32>> -> !torch.vtensor<[?,3],f32>, !torch.vtensor<[?,3],f32>
```
The list's element type joins the pieces' types; `piece_types()` gives each piece's exact type
when the split dim's size is static (ListUnpack takes those).
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import DType, promote
from dialects.torch.meta import ShapeError, TensorMeta, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.data_movement import constant_dim
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.prim import PrimListConstructOp
from dialects.torch.ops.shapes import size_list
from dialects.torch.ops.views import AtenViewOp
from dialects.torch.types import DYN, IntType, ListType, ValueTensorType


def tensor_list(op_name: str, value: Any) -> list[TensorMeta]:
    if not isinstance(value, list) or not all(isinstance(t, TensorMeta) for t in value):
        raise TypeError(f"{op_name}: `tensors` must be a list of tensors with a known length")
    if not value:
        raise ShapeError(f"torch.{op_name}(): expected a non-empty list of Tensors")
    return value


def promoted_dtype(tensors: list[TensorMeta]) -> DType | None:
    """cat and stack promote like torch.result_type over their inputs."""
    if any(t.dtype is None for t in tensors):
        return None
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = promote(dtype, t.dtype)  # type: ignore[arg-type]
    return dtype


def cat_inputs(tensors: list[TensorMeta]) -> list[int]:
    """Indices of the tensors cat reads: torch skips 1-D empty tensors among tensors of another
    rank. A 1-D tensor of size `?` there must be empty for the program to be valid, so it is
    skipped too (a size-0 dim may be `?` in a specialized signature)."""

    def maybe_empty(t: TensorMeta) -> bool:
        return t.shape in ((0,), (DYN,))

    ranks = {len(t.shape) for t in tensors if t.shape is not None and not maybe_empty(t)}
    return [i for i, t in enumerate(tensors) if not (maybe_empty(t) and ranks - {1})]


def cat_shape(tensors: list[TensorMeta], dim: int) -> tuple[int, ...]:
    """Sizes match outside `dim` (`?` matches anything) and add up along it."""
    shapes = [tensors[i].shape for i in cat_inputs(tensors)]
    first = shapes[0]
    assert first is not None
    out = list(first)
    for number, shape in enumerate(shapes[1:], start=1):
        assert shape is not None
        if len(shape) != len(first):
            raise ShapeError(
                f"Tensors must have same number of dimensions: got {len(first)} and {len(shape)}"
            )
        for d, (have, got) in enumerate(zip(out, shape)):
            if d == dim:
                out[d] = DYN if DYN in (have, got) else have + got
            elif DYN not in (have, got) and have != got:
                raise ShapeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size "
                    f"{have} but got size {got} for tensor number {number} in the list."
                )
            elif have == DYN:
                out[d] = got
    return tuple(out)


@torch_op
class AtenCatOp(TorchOp):
    """`torch.cat(tensors, dim)`: joins tensors along an existing dim; dtypes promote."""

    name = "torch.aten.cat"
    SCHEMA = "aten::cat(Tensor[] tensors, int dim=0) -> Tensor"
    PY_NAMES = ("torch.cat", "torch.concat", "torch.concatenate")
    SAMPLES = (
        Sample([Tn((2, 3)), Tn((4, 3))]),
        Sample([Tn((2, 1), "int64"), Tn((2, 3), "int64"), Tn((2, 2), "int64")], -1),
        Sample([Tn((3,), "int32"), Tn((2,), "float64")]),
        Sample([Tn((2, 2), "bool"), Tn((0,), "bool")], 1),
    )
    tensors = operand_def(ListType)
    dim = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        tensors, dim = tensor_list("cat", args[0]), args[1]
        dtype = promoted_dtype(tensors)
        reference = tensors[cat_inputs(tensors)[0]]
        if any(tensors[i].shape is None for i in cat_inputs(tensors)):
            return [ValueTensorType(None, dtype)]
        if reference.rank == 0:
            raise ShapeError("zero-dimensional tensor (at position 0) cannot be concatenated")
        d = constant_dim("cat", dim, reference)
        assert d is not None
        return [ValueTensorType(cat_shape(tensors, d), dtype)]

    @staticmethod
    def eager(tensors: Any, dim: int = 0) -> Any:
        metas = [TensorMeta.of_array(t) for t in tensors]
        kept = [tensors[i] for i in cat_inputs(metas)]
        (typ,) = AtenCatOp.infer(metas, dim)
        assert isinstance(typ, ValueTensorType) and typ.element is not None
        return np.concatenate([t.astype(typ.element.numpy) for t in kept], axis=dim)


@torch_op
class AtenStackOp(TorchOp):
    """`torch.stack(tensors, dim)`: joins equal-shaped tensors along a new dim; dtypes promote."""

    name = "torch.aten.stack"
    SCHEMA = "aten::stack(Tensor[] tensors, int dim=0) -> Tensor"
    PY_NAMES = ("torch.stack",)
    SAMPLES = (
        Sample([Tn((2, 3)), Tn((2, 3))]),
        Sample([Tn((3,), "int64"), Tn((3,), "int64"), Tn((3,), "int64")], -1),
        Sample([Tn(()), Tn((), "float64")], 0),
    )
    tensors = operand_def(ListType)
    dim = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        tensors, dim = tensor_list("stack", args[0]), args[1]
        dtype = promoted_dtype(tensors)
        if any(t.shape is None for t in tensors):
            return [ValueTensorType(None, dtype)]
        if not isinstance(dim, int):
            raise TypeError("stack: `dim` must be a constant int")
        shape = list(tensors[0].shape)  # type: ignore[arg-type]
        for entry, t in enumerate(tensors[1:], start=1):
            assert t.shape is not None
            same = len(t.shape) == len(shape) and all(
                DYN in (a, b) or a == b for a, b in zip(shape, t.shape)
            )
            if not same:
                raise ShapeError(
                    f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)}"
                    f" at entry 0 and {list(t.shape)} at entry {entry}"
                )
            shape = [b if a == DYN else a for a, b in zip(shape, t.shape)]
        d = normalize_dim(dim, len(shape) + 1)
        return [ValueTensorType((*shape[:d], len(tensors), *shape[d:]), dtype)]

    @staticmethod
    def eager(tensors: Any, dim: int = 0) -> Any:
        (typ,) = AtenStackOp.infer([TensorMeta.of_array(t) for t in tensors], dim)
        assert isinstance(typ, ValueTensorType) and typ.element is not None
        return np.stack([t.astype(typ.element.numpy) for t in tensors], axis=dim)


def split_lengths(size: int, split_size: int) -> list[int]:
    """torch's `split`: pieces of `split_size`, the last one shorter; at least one piece."""
    if split_size < 0:
        raise ShapeError(
            f"split expects split_size be non-negative, but got split_size={split_size}"
        )
    if split_size == 0 and size != 0:
        raise ShapeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
        )
    count = max(-(-size // split_size), 1) if split_size else 1
    return [min(split_size, size - i * split_size) for i in range(count)]


def chunk_lengths(size: int, chunks: int) -> list[int]:
    """torch's `chunk`: pieces of ceil(size / chunks), so there may be fewer than `chunks`."""
    if chunks <= 0:
        raise ShapeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if size == 0:
        return [0] * chunks
    return split_lengths(size, -(-size // chunks))


class SplitLikeOp(TorchOp):
    """An op cutting `self` along `dim` into pieces; lengths come from `lengths(size, arg)`."""

    @classmethod
    def lengths(cls, size: int, arg: Any) -> list[int]:
        raise NotImplementedError

    @classmethod
    def check_arg(cls, arg: Any) -> None:
        """Reject arguments torch rejects whatever the size (negative split sizes)."""

    @classmethod
    def pieces(cls, x: TensorMeta, arg: Any, dim: Any) -> list[ValueTensorType] | None:
        """Each piece's type, or None while the count is unknown (dynamic size or rank)."""
        d = constant_dim(cls.name.removeprefix("torch.aten."), dim, x)
        if x.shape is None or d is None or not _is_constant(arg):
            return None
        if x.shape[d] == DYN and not isinstance(arg, list):
            return None
        lengths = arg if x.shape[d] == DYN else cls.lengths(x.shape[d], arg)  # sizes: known
        return [ValueTensorType((*x.shape[:d], n, *x.shape[d + 1 :]), x.dtype) for n in lengths]

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, arg, dim = args
        cls.check_arg(arg)
        pieces = cls.pieces(x, arg, dim)
        if pieces is not None:
            sizes = {p.sizes for p in pieces}
            shape = sizes.pop() if len(sizes) == 1 else _joined(pieces)
        else:
            d = constant_dim(cls.name.removeprefix("torch.aten."), dim, x)
            shape = None if x.shape is None or d is None else (*x.shape[:d], DYN, *x.shape[d + 1 :])
        return [ListType(ValueTensorType(shape, x.dtype))]

    def piece_types(self) -> list[Attribute] | None:
        x, arg, dim = self.arg_values()
        return self.pieces(x, arg, dim)  # type: ignore[return-value]

    @classmethod
    def eager(cls, x: Any, arg: Any, dim: int = 0) -> Any:
        d = normalize_dim(dim, x.ndim)
        starts = np.cumsum([0, *cls.lengths(x.shape[d], arg)])
        index = (slice(None),) * d
        return [x[(*index, slice(a, b))] for a, b in pairwise(starts)]


def _is_constant(arg: Any) -> bool:
    return isinstance(arg, int) or (isinstance(arg, list) and all(isinstance(a, int) for a in arg))


def _joined(pieces: list[ValueTensorType]) -> tuple[int, ...]:
    shapes = [p.sizes for p in pieces]
    return tuple(dims[0] if len(set(dims)) == 1 else DYN for dims in zip(*shapes))  # type: ignore[misc]


@torch_op
class AtenSplitTensorOp(SplitLikeOp):
    """`x.split(split_size, dim)`: pieces of `split_size` along `dim`, the last one shorter."""

    name = "torch.aten.split.Tensor"
    SCHEMA = "aten::split.Tensor(Tensor self, int split_size, int dim=0) -> Tensor[]"
    PY_NAMES = ("torch.split", "Tensor.split")
    SAMPLES = (Sample(Tn((5, 2)), 2), Sample(Tn((2, 6), "int64"), 3, -1))
    self_ = operand_def(ValueTensorType)
    split_size = operand_def(IntType)
    dim = operand_def(IntType)
    result = result_def(ListType)

    @classmethod
    def check_arg(cls, arg: Any) -> None:
        if isinstance(arg, int) and arg < 0:
            split_lengths(0, arg)

    @classmethod
    def lengths(cls, size: int, arg: Any) -> list[int]:
        return split_lengths(size, arg)


@torch_op
class AtenSplitSizesOp(SplitLikeOp):
    """`x.split([n0, n1, ...], dim)`: pieces of the given lengths, which add up to the size."""

    name = "torch.aten.split.sizes"
    SCHEMA = "aten::split.sizes(Tensor self, int[] split_size, int dim=0) -> Tensor[]"
    PY_NAMES = ("torch.split", "Tensor.split")
    SAMPLES = (Sample(Tn((5, 2)), [1, 4]), Sample(Tn((2, 6), "bool"), [2, 0, 4], 1))
    self_ = operand_def(ValueTensorType)
    split_size = operand_def(ListType)
    dim = operand_def(IntType)
    result = result_def(ListType)

    @classmethod
    def check_arg(cls, arg: Any) -> None:
        sizes = size_list("split", "split_size", arg)
        if not all(isinstance(n, int) for n in sizes):
            raise TypeError("split: `split_size` must be constant ints")
        if any(n < 0 for n in sizes):  # type: ignore[operator]
            raise ShapeError(
                "split_with_sizes expects split_sizes have only non-negative entries, but got "
                f"split_sizes={sizes}"
            )

    @classmethod
    def lengths(cls, size: int, arg: Any) -> list[int]:
        if sum(arg) != size:
            raise ShapeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                f"size at dimension), but got split_sizes={list(arg)}"
            )
        return list(arg)


@torch_op
class AtenChunkOp(SplitLikeOp):
    """`x.chunk(chunks, dim)`: pieces of ceil(size / chunks) (fewer than `chunks` if small)."""

    name = "torch.aten.chunk"
    SCHEMA = "aten::chunk(Tensor self, int chunks, int dim=0) -> Tensor[]"
    PY_NAMES = ("torch.chunk", "Tensor.chunk")
    SAMPLES = (Sample(Tn((4, 6)), 2, 1), Sample(Tn((5, 3), "int32"), 3))
    self_ = operand_def(ValueTensorType)
    chunks = operand_def(IntType)
    dim = operand_def(IntType)
    result = result_def(ListType)

    @classmethod
    def check_arg(cls, arg: Any) -> None:
        if isinstance(arg, int):
            chunk_lengths(1, arg)

    @classmethod
    def lengths(cls, size: int, arg: Any) -> list[int]:
        return chunk_lengths(size, arg)


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


OPS = (
    AtenCatOp,
    AtenStackOp,
    AtenSplitTensorOp,
    AtenSplitSizesOp,
    AtenChunkOp,
    AtenHstackOp,
    AtenVstackOp,
    AtenDstackOp,
    AtenColumnStackOp,
)
