"""View-like ops: view, reshape, flatten, squeeze, unsqueeze, permute, transpose, t, contiguous,
expand, expand_as and repeat.

With value semantics these all produce new tensors (the lowering copies; nothing aliases).
Size lists may hold sizes known only at run time (`x.view([x.size(0), -1])`); those dims are `?`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.folding import (
    fold_double_permute,
    fold_double_t,
    fold_double_transpose,
    fold_reshape,
    fold_same_type,
)
from dialects.torch.meta import Dynamic, ShapeError, TensorMeta, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.data_movement import constant_dim
from dialects.torch.ops.prim import ConstantIntOp
from dialects.torch.ops.shapes import (
    expand_shape,
    size_list,
    static_dims,
    unknown_length,
    view_shape,
)
from dialects.torch.types import DYN, BoolType, IntType, ListType, NoneType, ValueTensorType


def _result(x: TensorMeta, shape: tuple[int, ...] | None) -> list[Attribute]:
    return [ValueTensorType(shape, x.dtype)]


class _ViewBase(TorchOp):
    """Shape rule and reference shared by view and reshape."""

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, sizes = args
        if unknown_length(sizes):
            return _result(x, None)
        sizes = size_list(cls.name.removeprefix("torch.aten."), "size", sizes)
        if x.shape is None:
            return _result(x, tuple(DYN if d == -1 else d for d in static_dims(sizes)))
        return _result(x, view_shape(x.shape, sizes))

    @staticmethod
    def eager(x: Any, size: Any) -> Any:
        return np.reshape(x, size)

    def fold(self) -> Any:
        return fold_reshape(self, (_ViewBase, AtenFlattenUsingIntsOp))


@torch_op
class AtenViewOp(_ViewBase):
    """`x.view(sizes)`: the same elements in row-major order under new sizes; one may be -1.

    ```mlir
    %sizes = torch.prim.ListConstruct %n, %int-1 : (!torch.int, !torch.int) -> !torch.list<int>
    %r = torch.aten.view %x, %sizes : !torch.vtensor<[?,4,5],f32>, !torch.list<int> -> !torch.vtensor<[?,?],f32>
    ```
    """

    name = "torch.aten.view"
    SCHEMA = "aten::view(Tensor self, int[] size) -> Tensor"
    PY_NAMES = ("Tensor.view",)
    SAMPLES = (Sample(Tn((3, 4)), [2, 6]), Sample(Tn((2, 3, 4), "int64"), [-1, 4]),
               Sample(Tn(()), [1]), Sample(Tn((2, 6), "bool"), [3, 1, -1]))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    size = operand_def(ListType)
    result = result_def(ValueTensorType)


@torch_op
class AtenReshapeOp(_ViewBase):
    """`torch.reshape(x, shape)`: like `view` (a copy with value semantics)."""

    name = "torch.aten.reshape"
    SCHEMA = "aten::reshape(Tensor self, int[] shape) -> Tensor"
    PY_NAMES = ("torch.reshape", "Tensor.reshape")
    SAMPLES = (Sample(Tn((4, 6)), [2, -1, 3]), Sample(Tn((1, 5), "int32"), [5, 1]))
    self_ = operand_def(ValueTensorType)
    shape = operand_def(ListType)
    result = result_def(ValueTensorType)


def flatten_shape(shape: tuple[int, ...], start: int, end: int) -> tuple[int, ...]:
    """Dims start..end (inclusive, non-negative) merged into one; a 0-d tensor becomes [1]."""
    if not shape:
        return (1,)
    group = shape[start : end + 1]
    merged = DYN if DYN in group else int(np.prod(group, dtype=np.int64))
    return (*shape[:start], merged, *shape[end + 1 :])


@torch_op
class AtenFlattenUsingIntsOp(TorchOp):
    """`torch.flatten(x, start_dim, end_dim)`: merges dims start..end (inclusive) into one."""

    name = "torch.aten.flatten.using_ints"
    SCHEMA = "aten::flatten.using_ints(Tensor self, int start_dim=0, int end_dim=-1) -> Tensor"
    PY_NAMES = ("torch.flatten", "Tensor.flatten")
    SAMPLES = (Sample(Tn((2, 3, 4))), Sample(Tn((2, 3, 4, 5), "int64"), 1, 2), Sample(Tn(())))
    self_ = operand_def(ValueTensorType)
    start_dim = operand_def(IntType)
    end_dim = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, start, end = args
        first, last = constant_dim("flatten", start, x), constant_dim("flatten", end, x)
        if x.shape is None or first is None or last is None:
            return _result(x, None)
        if first > last:
            raise ShapeError("flatten() has invalid args: start_dim cannot come after end_dim")
        return _result(x, flatten_shape(x.shape, first, last))

    @staticmethod
    def eager(x: Any, start_dim: int = 0, end_dim: int = -1) -> Any:
        (typ,) = AtenFlattenUsingIntsOp.infer(TensorMeta(x.shape, None), start_dim, end_dim)
        assert isinstance(typ, ValueTensorType)
        return np.reshape(x, typ.sizes)

    def fold(self) -> Any:
        return fold_same_type(self)


def squeezed_dims(shape: tuple[int, ...], dims: list[int]) -> tuple[int, ...]:
    """The dims kept by squeezing `dims`: those not of static size 1 (`?` counts as > 1)."""
    return tuple(d for i, d in enumerate(shape) if not (i in dims and d == 1))


@torch_op
class AtenSqueezeOp(TorchOp):
    """`x.squeeze()`: drops every dim of size 1 (a `?` dim is taken to be > 1)."""

    name = "torch.aten.squeeze"
    SCHEMA = "aten::squeeze(Tensor self) -> Tensor"
    PY_NAMES = ("torch.squeeze", "Tensor.squeeze")
    SAMPLES = (Sample(Tn((1, 3, 1, 2))), Sample(Tn((1, 1), "int64")))
    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        (x,) = args
        if x.shape is None:
            return _result(x, None)
        return _result(x, squeezed_dims(x.shape, list(range(len(x.shape)))))

    @staticmethod
    def eager(x: Any) -> Any:
        return np.squeeze(x)


@torch_op
class AtenSqueezeDimOp(TorchOp):
    """`x.squeeze(dim)`: drops `dim` if its size is 1, else returns `x` unchanged."""

    name = "torch.aten.squeeze.dim"
    SCHEMA = "aten::squeeze.dim(Tensor self, int dim) -> Tensor"
    PY_NAMES = ("torch.squeeze", "Tensor.squeeze")
    SAMPLES = (Sample(Tn((3, 1, 2)), 1), Sample(Tn((3, 2), "int32"), 0))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim = args
        d = constant_dim("squeeze", dim, x)
        if x.shape is None or d is None:
            return _result(x, None)
        return _result(x, squeezed_dims(x.shape, [d]) if x.shape else ())

    @staticmethod
    def eager(x: Any, dim: int) -> Any:
        if x.ndim == 0 or x.shape[dim] != 1:
            return x
        return np.squeeze(x, axis=dim)

    def fold(self) -> Any:
        return fold_same_type(self)


@torch_op
class AtenUnsqueezeOp(TorchOp):
    """`x.unsqueeze(dim)`: a new size-1 dim at `dim` (in [-rank-1, rank])."""

    name = "torch.aten.unsqueeze"
    SCHEMA = "aten::unsqueeze(Tensor self, int dim) -> Tensor"
    PY_NAMES = ("torch.unsqueeze", "Tensor.unsqueeze")
    SAMPLES = (Sample(Tn((3, 4)), 1), Sample(Tn((3, 4), "int64"), -1), Sample(Tn(()), 0))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim = args
        if not isinstance(dim, int):
            raise TypeError("unsqueeze: `dim` must be a constant int")
        if x.shape is None:
            return _result(x, None)
        d = normalize_dim(dim, len(x.shape) + 1)
        return _result(x, (*x.shape[:d], 1, *x.shape[d:]))

    @staticmethod
    def eager(x: Any, dim: int) -> Any:
        return np.expand_dims(x, dim % (x.ndim + 1))


def permutation(op_name: str, dims: Any, rank: int) -> list[int]:
    """`dims` made non-negative; ShapeError unless it orders every dim once."""
    dims = size_list(op_name, "dims", dims)
    if not all(isinstance(d, int) for d in dims):
        raise TypeError(f"{op_name}: `dims` must be constant ints")
    if len(dims) != rank:
        raise ShapeError(
            f"{op_name}(): number of dimensions in the tensor input does not match the length "
            f"of the desired ordering of dimensions i.e. input.dim() = {rank} is not equal to "
            f"len(dims) = {len(dims)}"
        )
    normalized = [normalize_dim(d, rank) for d in dims]  # type: ignore[arg-type]
    if len(set(normalized)) != rank:
        raise ShapeError(f"{op_name}(): duplicate dims are not allowed.")
    return normalized


@torch_op
class AtenPermuteOp(TorchOp):
    """`x.permute(dims)`: result dim i is input dim dims[i]."""

    name = "torch.aten.permute"
    SCHEMA = "aten::permute(Tensor self, int[] dims) -> Tensor"
    PY_NAMES = ("torch.permute", "Tensor.permute")
    SAMPLES = (Sample(Tn((2, 3, 4)), [2, 0, 1]), Sample(Tn((2, 3), "int64"), [-1, 0]))
    self_ = operand_def(ValueTensorType)
    dims = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dims = args
        if x.shape is None:
            return _result(x, None)
        order = permutation("permute", dims, len(x.shape))
        return _result(x, tuple(x.shape[d] for d in order))

    @staticmethod
    def eager(x: Any, dims: Any) -> Any:
        return np.transpose(x, dims)

    def fold(self) -> Any:
        return fold_double_permute(self)


@torch_op
class AtenTransposeIntOp(TorchOp):
    """`x.transpose(dim0, dim1)`: swaps two dims."""

    name = "torch.aten.transpose.int"
    SCHEMA = "aten::transpose.int(Tensor self, int dim0, int dim1) -> Tensor"
    PY_NAMES = ("torch.transpose", "Tensor.transpose")
    SAMPLES = (Sample(Tn((2, 3, 4)), 0, 2), Sample(Tn((3, 4), "bool"), -1, -2))
    self_ = operand_def(ValueTensorType)
    dim0 = operand_def(IntType)
    dim1 = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim0, dim1 = args
        a, b = constant_dim("transpose", dim0, x), constant_dim("transpose", dim1, x)
        if x.shape is None or a is None or b is None:
            return _result(x, None)
        if not x.shape:
            return _result(x, ())
        shape = list(x.shape)
        shape[a], shape[b] = shape[b], shape[a]
        return _result(x, tuple(shape))

    @staticmethod
    def eager(x: Any, dim0: int, dim1: int) -> Any:
        return x if x.ndim == 0 else np.swapaxes(x, dim0, dim1)

    def fold(self) -> Any:
        return fold_double_transpose(self)


@torch_op
class AtenTOp(TorchOp):
    """`x.t()`: transposes a 2-D tensor; 0-D and 1-D tensors are returned as they are."""

    name = "torch.aten.t"
    SCHEMA = "aten::t(Tensor self) -> Tensor"
    PY_NAMES = ("torch.t", "Tensor.t")
    SAMPLES = (Sample(Tn((2, 3))), Sample(Tn((4,), "int64")))
    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        (x,) = args
        if x.shape is None:
            return _result(x, None)
        if len(x.shape) > 2:
            raise ShapeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {len(x.shape)}D"
            )
        return _result(x, tuple(reversed(x.shape)))

    @staticmethod
    def eager(x: Any) -> Any:
        return x.T

    def fold(self) -> Any:
        return fold_double_t(self)

    def decompose(self) -> Any:
        """`transpose(x, 0, 1)` (same lowering; transpose folds then see through it)."""
        rank = self.self_.type.rank  # type: ignore[attr-defined]
        if rank != 2:
            return None
        dims = [ConstantIntOp(0), ConstantIntOp(1)]
        return [*dims, AtenTransposeIntOp.build([self.self_, *(d.result for d in dims)])]


@torch_op
class AtenContiguousOp(TorchOp):
    """`x.contiguous()`: `x` itself (tensors are always contiguous values here)."""

    name = "torch.aten.contiguous"
    SCHEMA = "aten::contiguous(Tensor self, *, int memory_format=0) -> Tensor"
    PY_NAMES = ("Tensor.contiguous",)
    SAMPLES = (Sample(Tn((2, 3))),)
    self_ = operand_def(ValueTensorType)
    memory_format = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return _result(args[0], args[0].shape)

    @staticmethod
    def eager(x: Any, memory_format: int = 0) -> Any:
        return x

    def fold(self) -> Any:
        return [self.self_]


@torch_op
class AtenCloneOp(TorchOp):
    """`x.clone()`: `x`'s values (tensors are values here: nothing can write into `x`)."""

    name = "torch.aten.clone"
    SCHEMA = "aten::clone(Tensor self, *, int? memory_format=None) -> Tensor"
    PY_NAMES = ("torch.clone", "Tensor.clone")
    SAMPLES = (Sample(Tn((2, 3))), Sample(Tn((4,), "int64")))
    self_ = operand_def(ValueTensorType)
    memory_format = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return _result(args[0], args[0].shape)

    @staticmethod
    def eager(x: Any, memory_format: Any = None) -> Any:
        return x.copy()

    def fold(self) -> Any:
        return [self.self_]


@torch_op
class AtenExpandOp(TorchOp):
    """`x.expand(sizes)`: size-1 dims (and new leading dims) repeat to `sizes`; -1 keeps a dim."""

    name = "torch.aten.expand"
    SCHEMA = "aten::expand(Tensor self, int[] size, *, bool implicit=False) -> Tensor"
    PY_NAMES = ("Tensor.expand",)
    SAMPLES = (Sample(Tn((3, 1)), [3, 4]), Sample(Tn((1, 3), "int64"), [2, -1, 3]),
               Sample(Tn(()), [2]))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    size = operand_def(ListType)
    implicit = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, sizes = args[:2]
        if unknown_length(sizes):
            return _result(x, None)
        sizes = size_list("expand", "size", sizes)
        if x.shape is None:
            return _result(x, None)
        return _result(x, expand_shape(x.shape, sizes))

    @staticmethod
    def eager(x: Any, size: Any, implicit: bool = False) -> Any:
        offset = len(size) - x.ndim
        shape = [x.shape[i - offset] if s == -1 else s for i, s in enumerate(size)]
        return np.broadcast_to(x, shape).copy()


@torch_op
class AtenExpandAsOp(TorchOp):
    """`x.expand_as(other)`: `x.expand(other.shape)`."""

    name = "torch.aten.expand_as"
    SCHEMA = "aten::expand_as(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("Tensor.expand_as",)
    SAMPLES = (Sample(Tn((3, 1)), Tn((2, 3, 4))), Sample(Tn((4,), "int32"), Tn((2, 4), "bool")))
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, other = args
        if x.shape is None or other.shape is None:
            return _result(x, None)
        target = [Dynamic("int") if d == DYN else d for d in other.shape]
        return _result(x, expand_shape(x.shape, target))

    @staticmethod
    def eager(x: Any, other: Any) -> Any:
        return np.broadcast_to(x, other.shape).copy()

    def fold(self) -> Any:
        """`x.expand_as(y)` of a `y` shaped like `x` is `x` (`out[t] = h` scripts to one)."""
        return fold_same_type(self)


@torch_op
class AtenRepeatOp(TorchOp):
    """`x.repeat(repeats)`: tiles `x` (padded with leading size-1 dims) `repeats[i]` times."""

    name = "torch.aten.repeat"
    SCHEMA = "aten::repeat(Tensor self, int[] repeats) -> Tensor"
    PY_NAMES = ("Tensor.repeat",)
    SAMPLES = (Sample(Tn((2, 3)), [2, 1]), Sample(Tn((3,), "int64"), [2, 2]))
    self_ = operand_def(ValueTensorType)
    repeats = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, repeats = args
        if unknown_length(repeats):
            return _result(x, None)
        repeats = size_list("repeat", "repeats", repeats)
        if x.shape is None:
            return _result(x, None)
        if len(repeats) < len(x.shape):
            raise ShapeError(
                "Number of dimensions of repeat dims can not be smaller than number of "
                "dimensions of tensor"
            )
        if any(isinstance(r, int) and r < 0 for r in repeats):
            raise ShapeError(f"Trying to create tensor with negative dimension: {repeats}")
        padded = (1,) * (len(repeats) - len(x.shape)) + x.shape
        counts = static_dims(repeats)
        return _result(x, tuple(DYN if DYN in (d, r) else d * r for d, r in zip(padded, counts)))

    @staticmethod
    def eager(x: Any, repeats: Any) -> Any:
        return np.tile(x, repeats)


OPS = (
    AtenViewOp,
    AtenReshapeOp,
    AtenFlattenUsingIntsOp,
    AtenSqueezeOp,
    AtenSqueezeDimOp,
    AtenUnsqueezeOp,
    AtenPermuteOp,
    AtenTransposeIntOp,
    AtenTOp,
    AtenContiguousOp,
    AtenCloneOp,
    AtenExpandOp,
    AtenExpandAsOp,
    AtenRepeatOp,
)
