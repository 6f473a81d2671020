"""Sorting and selection along a dim: sort, argsort, msort, topk, kthvalue, median, mode.

Each is computed by a kernel row by row (`dialects/torch/ops/along_dim.py`). Sorts are stable
(torch's CPU order, also for `descending`, NaN above every number); `topk` and `kthvalue` take
their elements from that order, so among tied values they return the lowest indices first,
where torch's selection may return another of the tied indices (same values).
`topk` with `k` known only at run time is the stable sort's first `k` (`decompose`).
`median` is torch's lower median; a row holding NaN has the median NaN, at its first NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch import kernel_refs
from dialects.torch.dtypes import INT64
from dialects.torch.meta import Dynamic, ShapeError, TensorMeta
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.along_dim import (
    AlongDimOp,
    KernelPlan,
    constant,
    row_dim,
    sized_along,
    stable_order,
    taken,
)
from dialects.torch.ops.data_movement import AtenSliceTensorOp
from dialects.torch.ops.op_sequence import Decomposition, OpSequence, known_rank
from dialects.torch.ops.prim import raise_if
from dialects.torch.ops.scalars import AtenGtIntOp, AtenLtIntOp, AtenOrBoolOp
from dialects.torch.types import DYN, BoolType, IntType, NoneType, ValueTensorType

WHOLE_ROW = -1  # the sort kernel's `k` for "every element of the row"


def _pair(shape: Any, x: TensorMeta) -> list[Attribute]:
    return [ValueTensorType(shape, x.dtype), ValueTensorType(shape, INT64)]


def _axis(x: Any, dim: int) -> int:
    return dim % x.ndim if x.ndim else 0


class SortingOp(AlongDimOp):
    """sort / argsort: the whole row in stable sorted order (`descending` keeps ties in
    order); RESULTS says which of (values, indices) the op returns."""

    KERNEL = kernel_refs.SORT
    RETURNS_VALUES = True

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        named = cls.named_args(args)
        x: TensorMeta = named["self"]
        row_dim(cls, named)
        constant(cls, named, "descending")
        pair = _pair(x.shape, x)
        return pair if cls.RETURNS_VALUES else pair[1:]

    def plan(self) -> KernelPlan:
        named = self.named()
        dim = row_dim(type(self), named)
        descending = int(bool(named.get("descending")))
        outputs = (0, 1) if self.RETURNS_VALUES else (None, 0)
        return KernelPlan(self.KERNEL, dim, (descending, WHOLE_ROW), outputs)


def _sorted(x: Any, dim: int, descending: bool) -> tuple[Any, Any]:
    order = stable_order(x, _axis(x, dim), bool(descending))
    return taken(x, order, _axis(x, dim)), order


@torch_op
class AtenSortOp(SortingOp):
    """`torch.sort(x, dim=-1, descending=False)` -> (values, indices); stable."""

    name = "torch.aten.sort"
    SCHEMA = (
        "aten::sort(Tensor self, int dim=-1, bool descending=False) -> "
        "(Tensor values, Tensor indices)"
    )
    PY_NAMES = ("torch.sort", "Tensor.sort")
    SAMPLES = (Sample(Tn((3, 5)), 1), Sample(Tn((4, 3), "int64", -3, 3), 0, True))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    descending = operand_def(BoolType)
    values = result_def(ValueTensorType)
    indices = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, dim: int = -1, descending: bool = False) -> Any:
        return _sorted(x, dim, descending)


@torch_op
class AtenSortStableOp(SortingOp):
    """`torch.sort(x, stable=True, dim=-1, descending=False)` (every sort here is stable)."""

    name = "torch.aten.sort.stable"
    SCHEMA = (
        "aten::sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> "
        "(Tensor values, Tensor indices)"
    )
    PY_NAMES = ("torch.sort", "Tensor.sort")
    SAMPLES = (Sample(Tn((2, 3, 4), "int32", -2, 2), stable=True, dim=1, descending=True),)
    self_ = operand_def(ValueTensorType)
    stable = operand_def(BoolType | NoneType)
    dim = operand_def(IntType)
    descending = operand_def(BoolType)
    values = result_def(ValueTensorType)
    indices = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, stable: Any = None, dim: int = -1, descending: bool = False) -> Any:
        return _sorted(x, dim, descending)


@torch_op
class AtenArgsortOp(SortingOp):
    """`torch.argsort(x, dim=-1, descending=False)`: the indices of a stable sort."""

    name = "torch.aten.argsort"
    SCHEMA = "aten::argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor"
    PY_NAMES = ("torch.argsort", "Tensor.argsort")
    SAMPLES = (Sample(Tn((3, 5)), 1, True), Sample(Tn((6,), "int64", -2, 2)))
    RETURNS_VALUES = False
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    descending = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, dim: int = -1, descending: bool = False) -> Any:
        return _sorted(x, dim, descending)[1]


@torch_op
class AtenArgsortStableOp(SortingOp):
    """`torch.argsort(x, stable=True, dim=-1, descending=False)`."""

    name = "torch.aten.argsort.stable"
    SCHEMA = (
        "aten::argsort.stable(Tensor self, *, bool stable, int dim=-1, "
        "bool descending=False) -> Tensor"
    )
    PY_NAMES = ("torch.argsort", "Tensor.argsort")
    SAMPLES = (Sample(Tn((3, 4), "int64", -2, 2), stable=True, dim=0),)
    RETURNS_VALUES = False
    self_ = operand_def(ValueTensorType)
    stable = operand_def(BoolType)
    dim = operand_def(IntType)
    descending = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, stable: bool = False, dim: int = -1, descending: bool = False) -> Any:
        return _sorted(x, dim, descending)[1]


@torch_op
class AtenMsortOp(SortingOp):
    """`torch.msort(x)`: `x` sorted along dim 0 (values only)."""

    name = "torch.aten.msort"
    SCHEMA = "aten::msort(Tensor self) -> Tensor"
    PY_NAMES = ("torch.msort", "Tensor.msort")
    SAMPLES = (Sample(Tn((4, 3))),)
    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        (x,) = args
        return [ValueTensorType(x.shape, x.dtype)]

    def plan(self) -> KernelPlan:
        return KernelPlan(self.KERNEL, 0, (0, WHOLE_ROW), (0, None))

    @staticmethod
    def eager(x: Any) -> Any:
        return _sorted(x, 0, False)[0]


@torch_op
class AtenTopkOp(AlongDimOp):
    """`torch.topk(x, k, dim=-1, largest=True, sorted=True)` -> (values, indices): the `k`
    largest (smallest) elements in sorted order; ties: lowest indices first (see the module
    docstring); `sorted=False` gives them sorted too."""

    name = "torch.aten.topk"
    SCHEMA = (
        "aten::topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> "
        "(Tensor values, Tensor indices)"
    )
    PY_NAMES = ("torch.topk", "Tensor.topk")
    SAMPLES = (Sample(Tn((3, 6)), 2), Sample(Tn((5, 2), "float64"), 3, 0, False))
    KERNEL = kernel_refs.SORT
    self_ = operand_def(ValueTensorType)
    k = operand_def(IntType)
    dim = operand_def(IntType)
    largest = operand_def(BoolType)
    sorted = operand_def(BoolType)
    values = result_def(ValueTensorType)
    indices = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        named = cls.named_args(args)
        x: TensorMeta = named["self"]
        dim = row_dim(cls, named)
        constant(cls, named, "largest")
        if isinstance(named["k"], Dynamic):  # a sort and a slice (`decompose`)
            if x.rank == 0:
                constant(cls, named, "k")  # the error: a 0-d tensor has no dim to slice
            return _pair(None if x.shape is None else sized_along(x.shape, dim, DYN), x)
        k = named["k"]
        if x.shape is None or dim is None:
            return _pair(None, x)
        size = x.shape[dim] if x.shape else 1
        if not 0 <= k <= size and size >= 0:
            raise ShapeError("selected index k out of range")
        return _pair(sized_along(x.shape, dim, k), x)

    def plan(self) -> KernelPlan:
        named = self.named()
        dim = row_dim(type(self), named)
        largest = int(bool(named.get("largest", True)))
        return KernelPlan(self.KERNEL, dim, (largest, named["k"]), (0, 1))

    def decompose(self) -> Any:
        """With `k` known only at run time: the stable sort's first `k` along the dim (the
        kernel's order, ties lowest index first), after a check that `k` fits."""
        named = self.named()
        if not isinstance(named["k"], Dynamic) or known_rank(self.self_) is None:
            return None
        dim = row_dim(type(self), named)
        seq = OpSequence()
        largest = bool(named.get("largest", True))
        order = seq.add(AtenSortOp.build([self.self_, seq.value(dim), seq.value(largest)]))
        size = seq.size(self.self_, dim)
        k = self.k
        too_many = seq.call(AtenGtIntOp, k, size)
        negative = seq.call(AtenLtIntOp, k, 0)
        seq.add(raise_if(seq.call(AtenOrBoolOp, too_many, negative), "RuntimeError",
                         "selected index k out of range"))  # fmt: skip
        values, indices = (
            seq.call(AtenSliceTensorOp, result, dim, 0, k, 1) for result in order.results
        )
        return Decomposition(seq.ops, [values, indices])

    @staticmethod
    def eager(x: Any, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
        values, order = _sorted(x, dim, largest)
        if x.ndim == 0:
            return values, order
        picked = np.arange(k)
        axis = _axis(x, dim)
        return np.take(values, picked, axis), np.take(order, picked, axis)


class KthOp(AlongDimOp):
    """One element per row: the k-th smallest (kthvalue) or the lower median."""

    KERNEL = kernel_refs.KTH

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        named = cls.named_args(args)
        x: TensorMeta = named["self"]
        dim = row_dim(cls, named)
        keepdim = constant(cls, named, "keepdim")
        if x.shape is None or dim is None:
            return _pair(None, x)
        size = x.shape[dim] if x.shape else 1
        cls.check_size(named, size, dim)
        return _pair(sized_along(x.shape, dim, 1 if keepdim else None), x)

    @classmethod
    def check_size(cls, named: dict[str, Any], size: int, dim: int) -> None:
        raise NotImplementedError


@torch_op
class AtenKthvalueOp(KthOp):
    """`torch.kthvalue(x, k, dim=-1, keepdim=False)` -> (values, indices): the `k`-th smallest
    element of each row (1-based) and its index; ties: the lowest index first."""

    name = "torch.aten.kthvalue"
    SCHEMA = (
        "aten::kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) -> "
        "(Tensor values, Tensor indices)"
    )
    PY_NAMES = ("torch.kthvalue", "Tensor.kthvalue")
    SAMPLES = (Sample(Tn((3, 5)), 2), Sample(Tn((4, 3), "float64"), 4, 0, True))
    self_ = operand_def(ValueTensorType)
    k = operand_def(IntType)
    dim = operand_def(IntType)
    keepdim = operand_def(BoolType)
    values = result_def(ValueTensorType)
    indices = result_def(ValueTensorType)

    @classmethod
    def check_size(cls, named: dict[str, Any], size: int, dim: int) -> None:
        k = constant(cls, named, "k")
        if size >= 0 and not 1 <= k <= size:
            raise ShapeError(f"kthvalue(): selected number k out of range for dimension {dim}")

    def plan(self) -> KernelPlan:
        named = self.named()
        return KernelPlan(self.KERNEL, row_dim(type(self), named), (named["k"] - 1, 0), (0, 1))

    @staticmethod
    def eager(x: Any, k: int, dim: int = -1, keepdim: bool = False) -> Any:
        values, order = _sorted(x, dim, False)
        if x.ndim == 0:
            return values, order
        axis = _axis(x, dim)
        picked = [k - 1]
        value, index = np.take(values, picked, axis), np.take(order, picked, axis)
        if not keepdim:
            value, index = value.squeeze(axis), index.squeeze(axis)
        return value, index


def lower_median(x: Any, axis: int) -> tuple[Any, Any]:
    """torch's lower median along `axis` (kept as size 1) and its index; NaN rows: first NaN."""
    n = x.shape[axis]
    values, order = _sorted(x, axis, False)
    value = np.take(values, [(n - 1) // 2], axis)
    index = np.take(order, [(n - 1) // 2], axis)
    if x.dtype.kind == "f":
        nan = np.isnan(x)
        has_nan = nan.any(axis, keepdims=True)
        value = np.where(has_nan, np.nan, value)
        index = np.where(has_nan, np.argmax(nan, axis, keepdims=True), index)
    return value, index


@torch_op
class AtenMedianOp(KthOp):
    """`torch.median(x)`: the lower median of all elements, a 0-d tensor (NaN if any is NaN,
    or if `x` is empty)."""

    name = "torch.aten.median"
    SCHEMA = "aten::median(Tensor self) -> Tensor"
    PY_NAMES = ("torch.median", "Tensor.median")
    SAMPLES = (Sample(Tn((4, 3))), Sample(Tn((6,), "int64", -5, 5)))
    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        (x,) = args
        return [ValueTensorType(() if x.shape is not None else None, x.dtype)]

    def plan(self) -> KernelPlan:
        return KernelPlan(self.KERNEL, None, (0, 1), (0, None))  # k: the kernel's median

    @staticmethod
    def eager(x: Any) -> Any:
        if x.size == 0:
            return np.array(np.nan, x.dtype)
        return lower_median(x.reshape(-1), 0)[0].reshape(())


@torch_op
class AtenMedianDimOp(KthOp):
    """`torch.median(x, dim, keepdim=False)` -> (values, indices): each row's lower median
    and its index (stable order: the lowest index of tied values; NaN rows: the first NaN)."""

    name = "torch.aten.median.dim"
    SCHEMA = (
        "aten::median.dim(Tensor self, int dim, bool keepdim=False) -> "
        "(Tensor values, Tensor indices)"
    )
    PY_NAMES = ("torch.median", "Tensor.median")
    SAMPLES = (Sample(Tn((3, 5)), 1), Sample(Tn((4, 3), "int64", -3, 3), 0, True))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    keepdim = operand_def(BoolType)
    values = result_def(ValueTensorType)
    indices = result_def(ValueTensorType)

    @classmethod
    def check_size(cls, named: dict[str, Any], size: int, dim: int) -> None:
        if size == 0:
            raise ShapeError(f"median(): Expected reduction dim {dim} to have non-zero size.")

    def plan(self) -> KernelPlan:
        dim = row_dim(type(self), self.named())
        return KernelPlan(self.KERNEL, dim, (0, 1), (0, 1))  # k: the kernel's median

    @staticmethod
    def eager(x: Any, dim: int, keepdim: bool = False) -> Any:
        if x.ndim == 0:
            return x.copy(), np.zeros((), np.int64)
        axis = _axis(x, dim)
        value, index = lower_median(x, axis)
        if not keepdim:
            value, index = value.squeeze(axis), index.squeeze(axis)
        return value, index


def _mode_of_row(row: Any) -> tuple[Any, int]:
    order = stable_order(row, 0, False)
    best, best_count, run = 0, 0, 0
    for j in range(row.size):
        run = run + 1 if j > 0 and row[order[j]] == row[order[j - 1]] else 1
        if run > best_count:
            best, best_count = j, run
    return row[order[best]], int(order[best])


@torch_op
class AtenModeOp(KthOp):
    """`torch.mode(x, dim=-1, keepdim=False)` -> (values, indices): each row's most frequent
    value (the smallest of equally frequent ones; NaNs never equal each other) and the index
    of its last occurrence, as torch."""

    name = "torch.aten.mode"
    SCHEMA = (
        "aten::mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)"
    )
    PY_NAMES = ("torch.mode", "Tensor.mode")
    SAMPLES = (Sample(Tn((3, 8), "int64", -2, 2)), Sample(Tn((6, 2), "int32", 0, 3), 0, True))
    KERNEL = kernel_refs.MODE
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    keepdim = operand_def(BoolType)
    values = result_def(ValueTensorType)
    indices = result_def(ValueTensorType)

    @classmethod
    def check_size(cls, named: dict[str, Any], size: int, dim: int) -> None:
        if size == 0:
            raise ShapeError(f"mode(): Expected reduction dim {dim} to have non-zero size.")

    def plan(self) -> KernelPlan:
        return KernelPlan(self.KERNEL, row_dim(type(self), self.named()), (), (0, 1))

    @staticmethod
    def eager(x: Any, dim: int = -1, keepdim: bool = False) -> Any:
        if x.ndim == 0:
            return x.copy(), np.zeros((), np.int64)
        axis = _axis(x, dim)
        moved = np.moveaxis(x, axis, -1)
        values = np.empty(moved.shape[:-1], x.dtype)
        indices = np.empty(moved.shape[:-1], np.int64)
        for index in np.ndindex(moved.shape[:-1]):
            values[index], indices[index] = _mode_of_row(moved[index])
        if keepdim:
            values, indices = np.expand_dims(values, axis), np.expand_dims(indices, axis)
        return values, indices


OPS = (
    AtenSortOp,
    AtenSortStableOp,
    AtenArgsortOp,
    AtenArgsortStableOp,
    AtenMsortOp,
    AtenTopkOp,
    AtenKthvalueOp,
    AtenMedianOp,
    AtenMedianDimOp,
    AtenModeOp,
)
