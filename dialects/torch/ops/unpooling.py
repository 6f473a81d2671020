"""Max unpooling: `max_unpool2d` / `max_unpool3d` write each input element at the flat
position its index names within its channel plane (volume) of an `output_size` result of
zeros, the inverse of max pooling with indices (`pooling_indices.py`, `pooling3d_indices.py`).

`_max_unpool` is `F.max_unpool2d` / `F.max_unpool3d`'s form (kernel, stride, padding and an
optional output size): it decomposes into the ATen op with PyTorch's default output size
`(n - 1) * stride + kernel - 2 * padding` per dim (sizes known at run time too), or the
given one's last dims.

`torch-decompose` flattens the planes of the input, of the indices and of a zero result
(`new_zeros`, sizes known at run time too), `scatter`s along the flat dim (a later element
wins where indices repeat, as PyTorch's CPU loop; an index outside the plane raises
RuntimeError at run time) and views the result as `(..., *output_size)`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import Dynamic, ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.constructors import AtenNewZerosOp
from dialects.torch.ops.data_movement import list_elements
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.scalars import AtenAddIntOp, AtenMulIntOp, AtenSubIntOp
from dialects.torch.ops.scatter_index import AtenScatterSrcOp
from dialects.torch.ops.views import AtenFlattenUsingIntsOp, AtenViewOp
from dialects.torch.types import DYN, IntType, ListType, NoneType, ValueTensorType


class MaxUnpoolOp(TorchOp):
    """The shape rule, reference and decomposition over the last `DIMS` dims."""

    DIMS: ClassVar[int]

    @classmethod
    def short_name(cls) -> str:
        return cls.name.removeprefix("torch.aten.")

    @classmethod
    def out_sizes(cls, output_size: Any) -> list[int]:
        if isinstance(output_size, Dynamic):  # sizes known at run time
            return [DYN] * cls.DIMS
        if not isinstance(output_size, list | tuple) or len(output_size) != cls.DIMS:
            raise ShapeError(
                f"There should be exactly {cls.DIMS} elements (depth, height, width) in output_size"
                if cls.DIMS == 3
                else "There should be exactly two elements (height, width) in output_size"
            )
        return [DYN if isinstance(v, Dynamic) or v is None else int(v) for v in output_size]

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, indices, output_size = args[:3]
        name = cls.short_name()
        if x.dtype is not None and not x.dtype.is_float:
            torch_name = {"int64": "Long", "int32": "Int", "bool": "Bool"}.get(x.dtype.name)
            raise TypeError(f"\"{name}\" not implemented for '{torch_name or x.dtype.name}'")
        if indices.dtype is not None and indices.dtype.name != "int64":
            raise TypeError(f"{name}(): elements in indices should be type int64")
        sizes = cls.out_sizes(output_size)
        if x.shape is not None and len(x.shape) not in (cls.DIMS + 1, cls.DIMS + 2):
            raise ShapeError(
                f"{name}(): Expected {cls.DIMS + 1}D or {cls.DIMS + 2}D tensor, but got "
                f"{list(x.shape)}"
            )
        _check_same_shape(x, indices)
        if x.shape is None:
            return [ValueTensorType(None, x.dtype)]
        return [ValueTensorType((*x.shape[: -cls.DIMS], *sizes), x.dtype)]

    @classmethod
    def eager(cls, x: Any, indices: Any, output_size: Any, *rest: Any) -> Any:
        lead = x.shape[: -cls.DIMS]
        plane = int(np.prod(output_size))
        out = np.zeros((int(np.prod(lead)), plane), dtype=x.dtype)
        values, positions = x.reshape(out.shape[0], -1), indices.reshape(out.shape[0], -1)
        if positions.size and (positions.min() < 0 or positions.max() >= plane):
            bad = positions[(positions < 0) | (positions >= plane)][0]
            sizes = "x".join(str(n) for n in output_size)
            raise RuntimeError(
                f"Found an invalid max index: {bad} (output volumes are of size {sizes}"
            )
        for row in range(out.shape[0]):
            for j in range(values.shape[1]):
                out[row, positions[row, j]] = values[row, j]
        return out.reshape(*lead, *output_size)

    def decompose(self) -> Any:
        x, indices, output_size = self.operands[:3]
        rank = known_rank(x)
        sizes = list_elements(output_size)
        if rank is None or sizes is None:
            return None
        s = OpSequence()
        first = rank - self.DIMS
        values = s.call(AtenFlattenUsingIntsOp, x, first, rank - 1)
        positions = s.call(AtenFlattenUsingIntsOp, indices, first, rank - 1)
        plane = sizes[0]
        for size in sizes[1:]:
            plane = s.call(AtenMulIntOp, plane, size)
        lead = [s.size(x, d) for d in range(first)]
        zeros = s.call(AtenNewZerosOp, values, [*lead, plane], None)
        out = s.call(AtenScatterSrcOp, zeros, first, positions, values)
        s.call(AtenViewOp, out, [*lead, *sizes])
        return s.ops


def _check_same_shape(x: TensorMeta, indices: TensorMeta) -> None:
    if x.shape is None or indices.shape is None:
        return
    same = len(x.shape) == len(indices.shape) and all(
        DYN in (a, b) or a == b for a, b in zip(x.shape, indices.shape, strict=True)
    )
    if not same:
        raise ShapeError(
            f"Expected shape of indices to be same as that of the input tensor "
            f"({list(x.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )


@torch_op
class AtenMaxUnpool2dOp(MaxUnpoolOp):
    """`F.max_unpool2d(x, indices, kernel_size, stride, padding, output_size)`'s ATen op: x's
    elements at their flat `indices` (`h * W + w`) in an (H, W) plane of zeros."""

    name = "torch.aten.max_unpool2d"
    SCHEMA = "aten::max_unpool2d(Tensor self, Tensor indices, int[2] output_size) -> Tensor"
    PY_NAMES = ("torch.max_unpool2d",)
    DIMS = 2
    SAMPLES = (
        Sample(Tn((1, 2, 2, 3)), Tn((1, 2, 2, 3), "int64", 0, 20), [4, 5]),
        Sample(Tn((3, 2, 2), "float64"), Tn((3, 2, 2), "int64", 0, 9), [3, 3]),
    )
    self_ = operand_def(ValueTensorType)
    indices = operand_def(ValueTensorType)
    output_size = operand_def(ListType)
    result = result_def(ValueTensorType)


@torch_op
class AtenMaxUnpool3dOp(MaxUnpoolOp):
    """`F.max_unpool3d`'s ATen op: x's elements at their flat `indices` (`(d * H + h) * W + w`)
    in a (D, H, W) volume of zeros (stride and padding are checked by PyTorch only)."""

    name = "torch.aten.max_unpool3d"
    SCHEMA = (
        "aten::max_unpool3d(Tensor self, Tensor indices, int[3] output_size, int[3] stride, "
        "int[3] padding) -> Tensor"
    )
    PY_NAMES = ("torch.max_unpool3d",)
    DIMS = 3
    SAMPLES = (
        Sample(Tn((1, 2, 2, 2, 2)), Tn((1, 2, 2, 2, 2), "int64", 0, 27), [3, 3, 3], [2, 2, 2],
               [0, 0, 0]),
    )  # fmt: skip
    self_ = operand_def(ValueTensorType)
    indices = operand_def(ValueTensorType)
    output_size = operand_def(ListType)
    stride = operand_def(ListType)
    padding = operand_def(ListType)
    result = result_def(ValueTensorType)


def _per_dim(value: Any, dims: int) -> list[Any]:
    if isinstance(value, list | tuple) and len(value) == 1:
        value = value[0]
    if isinstance(value, list | tuple):
        if len(value) != dims:
            raise ShapeError(f"max_unpool{dims}d: expected {dims} sizes, got {list(value)}")
        return list(value)
    return [value] * dims


@torch_op
class AtenMaxUnpoolOp(TorchOp):
    """`F.max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None)` and
    `F.max_unpool3d` (`dims` 2 or 3): the ATen op at PyTorch's output size."""

    name = "torch.aten._max_unpool"
    SCHEMA = (
        "aten::_max_unpool(Tensor self, Tensor indices, int dims, int[] kernel_size, "
        "int[]? stride=None, int[] padding=0, int[]? output_size=None) -> Tensor"
    )
    PY_NAMES = ("torch._max_unpool",)
    SAMPLES = (
        Sample(Tn((1, 2, 2, 3)), Tn((1, 2, 2, 3), "int64", 0, 12), 2, 2),
        Sample(Tn((2, 2, 2, 2)), Tn((2, 2, 2, 2), "int64", 0, 8), 3, [2, 2, 2], None, 0),
    )
    self_ = operand_def(ValueTensorType)
    indices = operand_def(ValueTensorType)
    dims = operand_def(IntType)
    kernel_size = operand_def(ListType | IntType)
    stride = operand_def(ListType | IntType | NoneType)
    padding = operand_def(ListType | IntType)
    output_size = operand_def(ListType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def aten_op(cls, dims: Any) -> type[MaxUnpoolOp]:
        if dims not in (2, 3):
            raise TypeError("_max_unpool: `dims` must be the constant 2 or 3")
        return AtenMaxUnpool2dOp if dims == 2 else AtenMaxUnpool3dOp

    @classmethod
    def window(cls, args: tuple[Any, ...]) -> tuple[list[Any], ...]:
        dims, kernel_size, stride, padding = args[2:6]
        kernel = _per_dim(kernel_size, dims)
        steps = kernel if stride is None else _per_dim(stride, dims)
        return kernel, steps, _per_dim(padding, dims)

    @classmethod
    def sizes(cls, shape: tuple[int, ...] | None, args: tuple[Any, ...]) -> list[Any] | None:
        """The output size per pooled dim (ints, DYN where the input's is unknown)."""
        dims, output_size = args[2], args[6]
        if isinstance(output_size, Dynamic):
            return [DYN] * dims
        if output_size is not None:
            return list(output_size)[len(output_size) - dims :]
        if shape is None:
            return None
        kernel, steps, pads = cls.window(args)
        return [
            DYN if n == DYN else (n - 1) * st + k - 2 * p
            for n, k, st, p in zip(shape[-dims:], kernel, steps, pads, strict=True)
        ]

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, indices, dims = args[:3]
        aten = cls.aten_op(dims)
        sizes = cls.sizes(x.shape, args)
        if sizes is None:
            return [ValueTensorType(None, x.dtype)]
        return aten.infer(x, indices, sizes)

    @classmethod
    def eager(cls, *args: Any) -> Any:
        x, indices = args[:2]
        sizes = cls.sizes(x.shape, args)
        return cls.aten_op(args[2]).eager(x, indices, sizes)

    def decompose(self) -> Any:
        x = self.self_
        rank = known_rank(x)
        args = tuple(self.arg_values())
        if rank is None or not all(isinstance(a, int) or a is None for a in _flat(args[2:6])):
            return None
        s = OpSequence()
        dims, output_size = args[2], args[6]
        if output_size is not None:
            sizes = list_elements(self.output_size)
            assert sizes is not None
            sizes = sizes[len(sizes) - dims :]
        else:
            kernel, steps, pads = self.window(args)
            sizes = []
            for d, k, st, p in zip(range(rank - dims, rank), kernel, steps, pads, strict=True):
                n = s.call(AtenSubIntOp, s.size(x, d), 1)
                sizes.append(s.call(AtenAddIntOp, s.call(AtenMulIntOp, n, st), k - 2 * p))
        aten = self.aten_op(dims)
        extra = [] if dims == 2 else [self.window(args)[1], self.window(args)[2]]
        s.call(aten, x, self.indices, s.list_of([s.value(v) for v in sizes]), *extra)
        return s.ops


def _flat(values: tuple[Any, ...]) -> list[Any]:
    return [v for value in values for v in (value if isinstance(value, list | tuple) else [value])]


OPS = (AtenMaxUnpool2dOp, AtenMaxUnpool3dOp, AtenMaxUnpoolOp)
