"""Data movement and shape queries: indexing (`x[0]`, `x[:, 1:3]`), `x.size(i)`, `x.dim()`,
`len(x)`, and the int lists built from shapes while the rank is unknown (`x.shape[:-1]`).

The int lists: once `torch-refine-types` expands `torch.aten.size` into a `torch.prim.ListConstruct`, each
decomposes (`torch-decompose`) into the `ListConstruct` of the elements it picks, and the
users' shape rules read the sizes one by one.

```mlir
%s = torch.aten.size %x : !torch.vtensor<*,unk> -> !torch.list<int>
%l = torch.aten.slice.t %s, %none, %int-1, %int1 : !torch.list<int>, !torch.none, !torch.int, !torch.int -> !torch.list<int>
```
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.folding import fold_static_size
from dialects.torch.meta import Dynamic, ShapeError, TensorMeta, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.prim import PrimListConstructOp
from dialects.torch.types import DYN, IntType, ListType, NoneType, ValueTensorType


def constant_dim(op_name: str, dim: Any, x: TensorMeta) -> int | None:
    """The non-negative `dim`, or None while the rank is unknown; it must be a constant."""
    if isinstance(dim, Dynamic) or not isinstance(dim, int):
        raise TypeError(f"{op_name}: `dim` must be a constant int")
    return None if x.rank is None else normalize_dim(dim, x.rank)


@torch_op
class AtenSelectIntOp(TorchOp):
    """`x[..., index, ...]` along `dim`: drops that dim; a negative index counts from the end.

    ```mlir
    %r = torch.aten.select.int %x, %int0, %i : !torch.vtensor<[?,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[4],f32>
    ```
    """

    name = "torch.aten.select.int"
    SCHEMA = "aten::select.int(Tensor self, int dim, int index) -> Tensor"
    PY_NAMES = ("torch.select", "Tensor.select")
    SAMPLES = (Sample(Tn((3, 4)), 0, 1), Sample(Tn((3, 4)), 1, -1), Sample(Tn((5,), "int64"), 0, 2))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    index = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim, index = args
        d = constant_dim("select", dim, x)
        if d is None or x.shape is None:
            return [ValueTensorType(None, x.dtype)]
        size = x.shape[d]
        if isinstance(index, int) and size != DYN and not -size <= index < size:
            raise ShapeError(
                f"select(): index {index} out of range for tensor of size {size} at dimension {d}"
            )
        return [ValueTensorType(x.shape[:d] + x.shape[d + 1 :], x.dtype)]

    @staticmethod
    def eager(x: Any, dim: int, index: int) -> Any:
        return np.asarray(x[(slice(None),) * (dim % x.ndim) + (index,)])


@torch_op
class AtenSliceTensorOp(TorchOp):
    """`x[start:end:step]` along `dim` (Python slice clamping; `step` > 0).

    ```mlir
    %r = torch.aten.slice.Tensor %x, %int1, %int1, %int3, %int1 : !torch.vtensor<[?,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[?,2],f32>
    ```
    """

    name = "torch.aten.slice.Tensor"
    SCHEMA = "aten::slice.Tensor(Tensor self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor"
    SAMPLES = (
        Sample(Tn((5, 4)), 0, 1, 4, 1),
        Sample(Tn((3, 6)), 1, None, -1, 2),
        Sample(Tn((7,), "int64"), 0, -3, None, 1),
        Sample(Tn((4,)), 0, 2, 100, 1),
    )
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    start = operand_def(IntType | NoneType)
    end = operand_def(IntType | NoneType)
    step = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim, start, end, step = args
        d = constant_dim("slice", dim, x)
        if isinstance(step, int) and step <= 0:
            raise ShapeError("slice step must be positive")
        if d is None or x.shape is None:
            return [ValueTensorType(None, x.dtype)]
        known = all(isinstance(v, int) or v is None for v in (start, end, step))
        size = x.shape[d]
        new = len(range(size)[slice(start, end, step)]) if known and size != DYN else DYN
        return [ValueTensorType((*x.shape[:d], new, *x.shape[d + 1 :]), x.dtype)]

    @staticmethod
    def eager(x: Any, dim: int = 0, start: Any = None, end: Any = None, step: int = 1) -> Any:
        return x[(slice(None),) * (dim % x.ndim) + (slice(start, end, step),)]


@torch_op
class AtenSizeIntOp(TorchOp):
    """`x.size(dim)` / `x.shape[dim]`: the size of one dim, a Python int."""

    name = "torch.aten.size.int"
    SCHEMA = "aten::size.int(Tensor self, int dim) -> int"
    PY_NAMES = ("Tensor.size",)
    SAMPLES = (Sample(Tn((3, 4)), 1), Sample(Tn((2, 5, 1)), -2))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    result = result_def(IntType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        constant_dim("size", args[1], args[0])
        return [IntType()]

    @staticmethod
    def eager(x: Any, dim: int) -> Any:
        return int(x.shape[dim])

    def fold(self) -> Any:
        return fold_static_size(self.self_, self.dim)


@torch_op
class AtenSizeOp(TorchOp):
    """`x.shape` / `x.size()` used whole (`y.reshape(x.shape)`, `torch.zeros(x.size())`): the
    list of sizes, where the rank is not known while scripting.

    Once the argument types fix the rank, `torch-refine-types` expands it into a
    `torch.prim.ListConstruct` of one `torch.aten.size.int` per dim, which the shape rules of
    its users read element by element (`expand_whole_size`).

    ```mlir
    %s = torch.aten.size %x : !torch.vtensor<*,unk> -> !torch.list<int>
    ```
    """

    name = "torch.aten.size"
    SCHEMA = "aten::size(Tensor self) -> int[]"
    PY_NAMES = ()  # the frontend emits it for a shape used whole (`x.shape`, `x.size()`)
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((2, 1, 5), "int64")))
    self_ = operand_def(ValueTensorType)
    result = result_def(ListType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return [ListType(IntType())]

    @staticmethod
    def eager(x: Any) -> Any:
        return [int(d) for d in x.shape]


@torch_op
class AtenDimOp(TorchOp):
    """`x.dim()`: the rank, a Python int."""

    name = "torch.aten.dim"
    SCHEMA = "aten::dim(Tensor self) -> int"
    PY_NAMES = ("Tensor.dim",)
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((5,))))
    self_ = operand_def(ValueTensorType)
    result = result_def(IntType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return [IntType()]

    @staticmethod
    def eager(x: Any) -> Any:
        return int(x.ndim)

    def fold(self) -> Any:
        return fold_static_size(self.self_)


@torch_op
class AtenLenTensorOp(TorchOp):
    """`len(x)`: the size of dim 0 (TorchScript `aten::len.Tensor`)."""

    name = "torch.aten.len.Tensor"
    SCHEMA = "aten::len.Tensor(Tensor t) -> int"
    PY_NAMES = ("Tensor.__len__",)
    SAMPLES = (Sample(Tn((3, 4))),)
    t = operand_def(ValueTensorType)
    result = result_def(IntType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        if args[0].rank == 0:
            raise TypeError("len() of a 0-d tensor")
        return [IntType()]

    @staticmethod
    def eager(t: Any) -> Any:
        return len(t)

    def fold(self) -> Any:
        return fold_static_size(self.t, 0)


def list_elements(value: SSAValue) -> list[SSAValue] | None:
    """The element values of a list made by `torch.prim.ListConstruct`, else None."""
    owner = value.owner
    return list(owner.elements) if isinstance(owner, PrimListConstructOp) else None


def _rebuilt(elements: list[SSAValue]) -> list[Operation]:
    return [PrimListConstructOp(elements, IntType())]


@torch_op
class AtenSliceTOp(TorchOp):
    """`l[start:end:step]` of a list of ints (`x.shape[1:]` of a tensor of unknown rank)."""

    name = "torch.aten.slice.t"
    SCHEMA = "aten::slice.t(int[] l, int? start=None, int? end=None, int step=1) -> int[]"
    PY_NAMES = ()  # the frontend emits it for a shape sliced while its rank is unknown
    SAMPLES = (Sample([2, 3, 4], None, -1), Sample([5, 6, 7, 8], 1, None, 2))
    l = operand_def(ListType)  # noqa: E741 (the schema's name)
    start = operand_def(IntType | NoneType)
    end = operand_def(IntType | NoneType)
    step = operand_def(IntType)
    result = result_def(ListType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        step = args[3]
        if isinstance(step, int) and step == 0:
            raise ValueError("slice step cannot be zero")
        return [ListType(IntType())]

    @staticmethod
    def eager(items: Any, start: Any = None, end: Any = None, step: int = 1) -> Any:
        return list(items)[start:end:step]

    def decompose(self) -> Any:
        elements = list_elements(self.l)
        bounds = [arg_value(v) for v in (self.start, self.end, self.step)]
        if elements is None or not all(b is None or isinstance(b, int) for b in bounds):
            return None
        return _rebuilt(elements[slice(*bounds)])


@torch_op
class AtenAddTOp(TorchOp):
    """`a + b` of two lists of ints (`x.shape[:-1] + (h, d)`)."""

    name = "torch.aten.add.t"
    SCHEMA = "aten::add.t(int[] a, int[] b) -> int[]"
    PY_NAMES = ()  # the frontend emits it for a sliced shape joined with more sizes
    SAMPLES = (Sample([2, 3], [4]), Sample([], [5, 6]))
    a = operand_def(ListType)
    b = operand_def(ListType)
    result = result_def(ListType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return [ListType(IntType())]

    @staticmethod
    def eager(a: Any, b: Any) -> Any:
        return list(a) + list(b)

    def decompose(self) -> Any:
        first, second = list_elements(self.a), list_elements(self.b)
        if first is None or second is None:
            return None
        return _rebuilt(first + second)


OPS = (
    AtenSelectIntOp,
    AtenSliceTensorOp,
    AtenSizeIntOp,
    AtenSizeOp,
    AtenDimOp,
    AtenLenTensorOp,
    AtenSliceTOp,
    AtenAddTOp,
)
