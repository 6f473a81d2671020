"""Writing values at index tensors: scatter (a src tensor or a value), scatter_add,
index_add, index_copy and index_fill (lowered in `lowering/torch_to_linalg/scatter_index.py`).

- scatter / scatter_add along `dim`: `out[..., index[p], ...] = src[p]` (or `+=`) for every
  position p of `index` (index has self's rank; index.size(d) <= src.size(d), and
  <= self.size(d) off `dim`). When two positions write one element the later one (in
  row-major order of `index`) wins, as on PyTorch's CPU.
- scatter_reduce along `dim` (`reduce` = sum, prod, mean, amax, amin): the writers of an
  element combined, with self's element first when `include_self`; an element no writer hits
  keeps self's value. mean divides by the number combined (ints: floor division, as torch);
  amax / amin propagate NaN.
- index_add / index_copy / index_fill: a 1-D `index` of positions along `dim`; slice j of
  `source` goes to position `index[j]`.
Indices must be int64 and in range: each op raises torch's exception otherwise, by the rules
of `index_rules.py` (index_fill alone wraps negative indices), also in compiled code.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.constructors import ScalarOperand
from dialects.torch.ops.data_movement import constant_dim
from dialects.torch.ops.indexing import checked_indices
from dialects.torch.types import DYN, BoolType, IntType, StrType, ValueTensorType


def _check_int64(op_name: str, index: TensorMeta) -> None:
    if index.dtype is not None and index.dtype.name != "int64":
        raise TypeError(f"{op_name}(): Expected dtype int64 for index")


def _check_same_dtype(op_name: str, x: TensorMeta, src: TensorMeta, what: str = "src") -> None:
    if x.dtype is not None and src.dtype is not None and x.dtype != src.dtype:
        raise TypeError(
            f"{op_name}(): self ({x.dtype.name}) and {what} ({src.dtype.name}) must have "
            "the same scalar type"
        )


def _fits(small: int, large: int) -> bool:
    return DYN in (small, large) or small <= large


def check_scatter(op_name: str, x: TensorMeta, dim: Any, index: TensorMeta, src: Any) -> None:
    """torch's checks of scatter's `index` (int64, self's rank, inside self and src)."""
    _check_int64(op_name, index)
    d = constant_dim(op_name, dim, x)
    if isinstance(src, TensorMeta):
        _check_same_dtype(op_name, x, src)
    if x.shape is None or index.shape is None or d is None:
        return
    rank = max(len(x.shape), 1)
    if max(len(index.shape), 1) != rank:
        raise ShapeError("Index tensor must have the same number of dimensions as self tensor")
    for i, n in enumerate(index.shape):
        if i != d and i < len(x.shape) and not _fits(n, x.shape[i]):
            raise ShapeError(
                f"Expected index {list(index.shape)} to be smaller than self "
                f"{list(x.shape)} apart from dimension {d}"
            )
    src_shape = src.shape if isinstance(src, TensorMeta) else None
    if src_shape is not None and not all(_fits(n, m) for n, m in zip(index.shape, src_shape)):
        raise ShapeError(
            f"Expected index {list(index.shape)} to be smaller than self {list(x.shape)}"
            f" apart from dimension {d} and to be smaller size than src "
            f"{list(src.shape)}"
        )


class ScatterLikeOp(TorchOp):
    """scatter / scatter_add: `self`, `dim`, an `index` of self's rank, and what to write."""

    IN_PLACE = True  # `x.scatter_(...)`: the result (self's shape and dtype) written back

    @classmethod
    def check(cls, x: TensorMeta, dim: Any, index: TensorMeta, src: Any) -> None:
        check_scatter(cls.name.removeprefix("torch.aten.").split(".")[0], x, dim, index, src)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim, index, src = args
        cls.check(x, dim, index, src)
        return [ValueTensorType(x.shape, x.dtype)]

    @classmethod
    def eager(cls, x: Any, dim: int, index: Any, src: Any) -> Any:
        out = np.array(x, copy=True)
        if out.ndim == 0:
            out, index = out.reshape(1), np.reshape(index, 1)
            src = np.reshape(src, 1) if isinstance(src, np.ndarray) else src
        d = dim % out.ndim
        index = checked_indices(cls.name, index, out.shape[d], d)
        for p in np.ndindex(*index.shape):
            at = (*p[:d], int(index[p]), *p[d + 1 :])
            value = src[p] if isinstance(src, np.ndarray) else src
            out[at] = out[at] + value if cls.ACCUMULATE else value
        return out.reshape(np.shape(x))

    ACCUMULATE = False


@torch_op
class AtenScatterSrcOp(ScatterLikeOp):
    """`x.scatter(dim, index, src)`: `out[..., index[p], ...] = src[p]` along `dim`."""

    name = "torch.aten.scatter.src"
    SCHEMA = "aten::scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor"
    PY_NAMES = ("torch.scatter", "Tensor.scatter")
    SAMPLES = (
        Sample(Tn((3, 5)), 1, Tn((3, 4), "int64", 0, 5), Tn((3, 4))),
        Sample(Tn((4, 2), "int64"), 0, Tn((2, 2), "int64", 0, 4), Tn((3, 2), "int64")),
    )
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    index = operand_def(ValueTensorType)
    src = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenScatterValueOp(ScatterLikeOp):
    """`x.scatter(dim, index, value)`: `out[..., index[p], ...] = value` along `dim`."""

    name = "torch.aten.scatter.value"
    SCHEMA = "aten::scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor"
    PY_NAMES = ("torch.scatter", "Tensor.scatter")
    SAMPLES = (Sample(Tn((4, 6)), 1, Tn((4, 1), "int64", 0, 6), 1.5),)
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    index = operand_def(ValueTensorType)
    value = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenScatterAddOp(ScatterLikeOp):
    """`x.scatter_add(dim, index, src)`: `out[..., index[p], ...] += src[p]` along `dim`."""

    name = "torch.aten.scatter_add"
    SCHEMA = "aten::scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor"
    PY_NAMES = ("torch.scatter_add", "Tensor.scatter_add")
    SAMPLES = (
        Sample(Tn((3, 5)), 1, Tn((3, 6), "int64", 0, 5), Tn((3, 6))),
        Sample(Tn((4,), "int64"), 0, Tn((5,), "int64", 0, 4), Tn((5,), "int64")),
    )
    ACCUMULATE = True
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    index = operand_def(ValueTensorType)
    src = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


@torch_op
class AtenScatterReduceTwoOp(TorchOp):
    """`x.scatter_reduce(dim, index, src, reduce, include_self=True)`: the `src[p]` written at
    `out[..., index[p], ...]` combined by `reduce`, self's element included or not."""

    IN_PLACE = True  # `x.scatter_reduce_(...)`: the result written back
    name = "torch.aten.scatter_reduce.two"
    SCHEMA = (
        "aten::scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, "
        "*, bool include_self=True) -> Tensor"
    )
    PY_NAMES = ("torch.scatter_reduce", "Tensor.scatter_reduce")
    SAMPLES = (
        Sample(Tn((3, 5)), 1, Tn((3, 6), "int64", 0, 5), Tn((3, 6)), "amax", include_self=False),
        Sample(Tn((4, 2)), 0, Tn((5, 2), "int64", 0, 4), Tn((5, 2)), "mean"),
        Sample(
            Tn((5,), "int64", -9, 9),
            0,
            Tn((7,), "int64", 0, 5),
            Tn((7,), "int64", -9, 9),
            "mean",
            include_self=False,
        ),
        Sample(
            Tn((2, 4), "int32", -3, 3), 1, Tn((2, 3), "int64", 0, 4), Tn((2, 3), "int32"), "prod"
        ),
    )
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    index = operand_def(ValueTensorType)
    src = operand_def(ValueTensorType)
    reduce = operand_def(StrType)
    include_self = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim, index, src, reduce, include_self = args
        if reduce not in REDUCTIONS:
            raise ValueError(
                f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
            )
        if not isinstance(include_self, bool):
            raise TypeError("scatter_reduce(): `include_self` must be a constant bool")
        if reduce == "mean" and x.dtype is not None and x.dtype.is_bool:
            raise TypeError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")
        if (
            isinstance(src, TensorMeta)
            and None not in (x.dtype, src.dtype)
            and x.dtype != src.dtype
        ):
            raise TypeError("scatter(): Expected self.dtype to be equal to src.dtype")
        check_scatter("scatter_reduce", x, dim, index, src)
        return [ValueTensorType(x.shape, x.dtype)]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        x, dim, index, src, reduce, include_self = args
        out = np.array(x, copy=True).reshape(np.shape(x) or (1,))
        index, src = (
            np.reshape(index, np.shape(index) or (1,)),
            np.reshape(src, np.shape(src) or (1,)),
        )
        d = dim % out.ndim
        index = checked_indices(cls.name, index, out.shape[d])
        taken: dict[tuple[int, ...], list[Any]] = {}
        for p in np.ndindex(*index.shape):
            at = (*p[:d], int(index[p]), *p[d + 1 :])
            taken.setdefault(at, [out[at]] if include_self else []).append(src[p])
        for at, values in taken.items():
            out[at] = _reduced(np.array(values, dtype=out.dtype), reduce)
        return out.reshape(np.shape(x))


def _reduced(values: Any, reduce: str) -> Any:
    """One element's writers combined by `reduce`, as torch's CPU kernel does."""
    if reduce in ("amax", "amin") and values.dtype.kind == "f" and np.isnan(values).any():
        return np.nan
    if reduce == "mean":
        total = values.sum(dtype=values.dtype)
        if values.dtype.kind == "f":
            return total / values.dtype.type(len(values))
        return np.floor_divide(total, values.dtype.type(len(values)))
    combine = {"sum": np.sum, "prod": np.prod, "amax": np.max, "amin": np.min}[reduce]
    return combine(values, dtype=values.dtype) if reduce in ("sum", "prod") else combine(values)


class IndexWriteOp(TorchOp):
    """index_add / index_copy / index_fill: a 1-D `index` of positions along `dim`."""

    IN_PLACE = True  # `x.index_add_(...)`: the result written back

    ACCUMULATE = False

    @classmethod
    def check(cls, x: TensorMeta, dim: Any, index: TensorMeta, source: Any) -> None:
        op_name = cls.name.removeprefix("torch.aten.").split(".")[0]
        _check_int64(op_name, index)
        if index.rank is not None and index.rank > 1:
            raise ShapeError(f"{op_name}(): Index should have dimension 1 or 0 (got {index.rank})")
        d = constant_dim(op_name, dim, x)
        if not isinstance(source, TensorMeta):
            return
        _check_same_dtype(op_name, x, source, "source")
        if x.shape is None or source.shape is None or index.shape is None or d is None:
            return
        count = index.shape[0] if index.shape else 1
        same_rank = max(len(source.shape), 1) == max(len(x.shape), 1)
        agree = same_rank and all(
            DYN in (a, b) or a == b for i, (a, b) in enumerate(zip(x.shape, source.shape)) if i != d
        )
        along = source.shape[d] if source.shape else 1
        if not agree or not (DYN in (along, count) or along == count):
            raise ShapeError(
                f"{op_name}(): source {list(source.shape)} must have the shape of self "
                f"{list(x.shape)} except at dim {d}, where its size must be the number of "
                f"indices ({count})"
            )

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim, index, source = args[:4]
        cls.check(x, dim, index, source)
        return [ValueTensorType(x.shape, x.dtype)]

    @classmethod
    def write(cls, out: Any, at: tuple[Any, ...], value: Any, args: tuple[Any, ...]) -> None:
        out[at] = value

    @classmethod
    def eager(cls, x: Any, dim: int, index: Any, source: Any, *rest: Any) -> Any:
        out = np.array(x, copy=True).reshape(np.shape(x) or (1,))
        d = dim % out.ndim
        positions = checked_indices(cls.name, np.reshape(index, -1), out.shape[d], d)
        if isinstance(source, np.ndarray):
            source = source.reshape(np.shape(source) or (1,))
        for j, i in enumerate(positions):
            at = (slice(None),) * d + (int(i),)
            part = source[(slice(None),) * d + (j,)] if isinstance(source, np.ndarray) else source
            cls.write(out, at, part, rest)
        return out.reshape(np.shape(x))


@torch_op
class AtenIndexAddOp(IndexWriteOp):
    """`x.index_add(dim, index, source, alpha=1)`: slice j of `source` times alpha added at
    position `index[j]` along `dim`."""

    name = "torch.aten.index_add"
    SCHEMA = (
        "aten::index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1)"
        " -> Tensor"
    )
    PY_NAMES = ("torch.index_add", "Tensor.index_add")
    SAMPLES = (
        Sample(Tn((4, 3)), 0, Tn((5,), "int64", 0, 4), Tn((5, 3)), alpha=2.0),
        Sample(Tn((2, 3), "int64"), 1, Tn((2,), "int64", 0, 3), Tn((2, 2), "int64")),
    )
    ACCUMULATE = True
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    index = operand_def(ValueTensorType)
    source = operand_def(ValueTensorType)
    alpha = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def write(cls, out: Any, at: tuple[Any, ...], value: Any, args: tuple[Any, ...]) -> None:
        alpha = args[0] if args else 1
        out[at] = out[at] + out.dtype.type(alpha) * value


@torch_op
class AtenIndexCopyOp(IndexWriteOp):
    """`x.index_copy(dim, index, source)`: slice j of `source` written at `index[j]` (the
    later one wins where indices repeat)."""

    name = "torch.aten.index_copy"
    SCHEMA = "aten::index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor"
    PY_NAMES = ("torch.index_copy", "Tensor.index_copy")
    SAMPLES = (Sample(Tn((5, 2)), 0, Tn((3,), "int64", 0, 5), Tn((3, 2))),)
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    index = operand_def(ValueTensorType)
    source = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenIndexFillIntScalarOp(IndexWriteOp):
    """`x.index_fill(dim, index, value)`: the slices at `index` along `dim` set to `value`
    (negative indices count from the end)."""

    name = "torch.aten.index_fill.int_Scalar"
    SCHEMA = (
        "aten::index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor"
    )
    PY_NAMES = ("torch.index_fill", "Tensor.index_fill")
    SAMPLES = (
        Sample(Tn((3, 4)), 1, Tn((2,), "int64", -4, 4), -1.0),
        Sample(Tn((4,), "int32"), 0, Tn((), "int64", 0, 4), 7),
    )
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    index = operand_def(ValueTensorType)
    value = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def write(cls, out: Any, at: tuple[Any, ...], value: Any, args: tuple[Any, ...]) -> None:
        out[at] = out.dtype.type(value)


@torch_op
class AtenIndexFillIntTensorOp(IndexWriteOp):
    """`x.index_fill(dim, index, value)` with a 0-d tensor `value` (converted to x's dtype)."""

    name = "torch.aten.index_fill.int_Tensor"
    SCHEMA = (
        "aten::index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor"
    )
    PY_NAMES = ("torch.index_fill", "Tensor.index_fill")
    SAMPLES = (Sample(Tn((3, 4)), 0, Tn((2,), "int64", -3, 3), Tn((), "int64", -5, 5)),)
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    index = operand_def(ValueTensorType)
    value = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim, index, value = args
        if value.rank is not None and value.rank != 0:
            raise ShapeError(
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.rank} dimension(s)."
            )
        cls.check(x, dim, index, None)
        return [ValueTensorType(x.shape, x.dtype)]

    @classmethod
    def write(cls, out: Any, at: tuple[Any, ...], value: Any, args: tuple[Any, ...]) -> None:
        out[at] = np.asarray(value).astype(out.dtype)[()]

    @classmethod
    def eager(cls, x: Any, dim: int, index: Any, value: Any, *rest: Any) -> Any:
        return super().eager(x, dim, index, np.asarray(value).item(), *rest)


OPS = (
    AtenScatterSrcOp,
    AtenScatterValueOp,
    AtenScatterAddOp,
    AtenScatterReduceTwoOp,
    AtenIndexAddOp,
    AtenIndexCopyOp,
    AtenIndexFillIntScalarOp,
    AtenIndexFillIntTensorOp,
)
