"""Reductions folded in one pass: sum, prod, mean, max/min (with indices), amax/amin,
argmax/argmin, all/any, over all dims, one dim or a list of dims, with keepdim."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import FLOAT32, DType, dtype_of_code
from dialects.torch.families import (
    AllMixin,
    AnyMixin,
    ArgMixin,
    MaxMixin,
    MeanMixin,
    MinMixin,
    ProdMixin,
    ReduceDimsOp,
    ReductionOp,
    SumMixin,
)
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.types import BoolType, IntType, ListType, NoneType, ValueTensorType


def axes(dim: Any, ndim: int) -> tuple[int, ...]:
    """numpy axes for a torch `dim` (int, list, or None/[] for all dims)."""
    if dim is None or dim == []:
        return tuple(range(ndim))
    if ndim == 0:  # dim 0 / -1 of a 0-d tensor is the tensor itself
        return ()
    return tuple(d % ndim for d in ([dim] if isinstance(dim, int) else dim))


def one_axis(dim: int | None, ndim: int) -> int | None:
    """The numpy axis for a single torch `dim`: None (the whole array) for 0-d tensors."""
    return None if ndim == 0 else dim


def _widened(x: Any, dtype: int | None) -> Any:
    """torch sums and multiplies in the requested dtype, else int64 for integers and bools."""
    if dtype is not None:
        return dtype_of_code(dtype).numpy
    return np.int64 if x.dtype.kind in "bi" else None


@torch_op
class AtenSumOp(SumMixin, ReductionOp):
    """Sum of all elements, a 0-d tensor; ints and bools sum as int64 (`torch.sum(x)`)."""

    name = "torch.aten.sum"
    SCHEMA = "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.sum", "Tensor.sum", "np.sum")
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((0, 3))), Sample(Tn((6,), "bool")),
               Sample(Tn((2, 3)), dtype=7))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, dtype: Any = None) -> Any:
        return np.sum(x, dtype=_widened(x, dtype))


@torch_op
class AtenSumDimIntListOp(SumMixin, ReductionOp):
    """Sum over the dims in `dim` (`torch.sum(x, dim, keepdim)`)."""

    name = "torch.aten.sum.dim_IntList"
    SCHEMA = (
        "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor"
    )
    PY_NAMES = ("torch.sum", "Tensor.sum", "np.sum")
    SAMPLES = (Sample(Tn((3, 4)), [0], True), Sample(Tn((2, 3, 4)), [0, 2]),
               Sample(Tn((2, 3, 4)), [-1], True), Sample(Tn((4, 5), "int32"), [0]))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    dim = operand_def(ListType | NoneType)
    keepdim = operand_def(BoolType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, dim: Any, keepdim: bool = False, dtype: Any = None) -> Any:
        return np.sum(x, axis=axes(dim, x.ndim), keepdims=keepdim, dtype=_widened(x, dtype))


@torch_op
class AtenProdOp(ProdMixin, ReductionOp):
    """Product of all elements; ints and bools multiply as int64 (`torch.prod(x)`)."""

    name = "torch.aten.prod"
    SCHEMA = "aten::prod(Tensor self, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.prod", "Tensor.prod", "np.prod")
    SAMPLES = (Sample(Tn((2, 3), low=0.5, high=1.5)), Sample(Tn((5,), "int32", -3, 3)))
    self_ = operand_def(ValueTensorType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, dtype: Any = None) -> Any:
        return np.prod(x, dtype=_widened(x, dtype))


@torch_op
class AtenProdDimIntOp(ProdMixin, ReductionOp):
    """Product along one dim (`torch.prod(x, dim, keepdim)`)."""

    name = "torch.aten.prod.dim_int"
    SCHEMA = (
        "aten::prod.dim_int(Tensor self, int dim, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor"
    )
    PY_NAMES = ("torch.prod", "Tensor.prod")
    SAMPLES = (Sample(Tn((3, 4), "float64"), -1, True), Sample(Tn((3, 4), "bool"), 0))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    keepdim = operand_def(BoolType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, dim: int, keepdim: bool = False, dtype: Any = None) -> Any:
        return np.prod(x, axis=one_axis(dim, x.ndim), keepdims=keepdim, dtype=_widened(x, dtype))


@torch_op
class AtenMeanOp(MeanMixin, ReductionOp):
    """Mean of all elements; floating point (or `dtype=`) only (`torch.mean(x)`)."""

    name = "torch.aten.mean"
    SCHEMA = "aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.mean", "Tensor.mean", "np.mean")
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((5,), "int64"), dtype=7))
    self_ = operand_def(ValueTensorType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, dtype: Any = None) -> Any:
        with np.errstate(invalid="ignore"):
            return np.mean(x, dtype=_widened(x, dtype))


@torch_op
class AtenMeanDimOp(MeanMixin, ReductionOp):
    """Mean over the dims in `dim` (`torch.mean(x, dim, keepdim, dtype=)`)."""

    name = "torch.aten.mean.dim"
    SCHEMA = (
        "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor"
    )
    PY_NAMES = ("torch.mean", "Tensor.mean", "np.mean")
    SAMPLES = (Sample(Tn((2, 3, 4)), [0, -1], True), Sample(Tn((4, 3)), [0], dtype=7))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(ListType | NoneType)
    keepdim = operand_def(BoolType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(x: Any, dim: Any, keepdim: bool = False, dtype: Any = None) -> Any:
        with np.errstate(invalid="ignore"):
            return np.mean(x, axis=axes(dim, x.ndim), keepdims=keepdim, dtype=_widened(x, dtype))


def _max_or_min(
    mixin: Any, stem: str, numpy_fn: Any, arg_fn: Any, word: str
) -> tuple[Any, Any, Any]:
    """The whole-tensor, `.dim` (values + indices) and `a<stem>` (dim list) forms."""

    @torch_op
    class Whole(mixin, ReductionOp):
        __doc__ = f"{word.title()} element, a 0-d tensor; NaN if any is NaN (`torch.{stem}(x)`)."
        __qualname__ = f"Aten{stem.title()}Op"
        name = f"torch.aten.{stem}"
        SCHEMA = f"aten::{stem}(Tensor self) -> Tensor"
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}", f"np.{stem}", f"np.a{stem}")
        SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((7,), "int64")), Sample(Tn((4,), "bool")))
        self_ = operand_def(ValueTensorType)
        result = result_def(ValueTensorType)

        @staticmethod
        def eager(x: Any) -> Any:
            return numpy_fn(x)

    @torch_op
    class Dim(mixin, ReductionOp):
        __doc__ = (
            f"{word.title()} value along `dim` and the index of its first occurrence "
            f"(`torch.{stem}(x, dim)`)."
        )
        __qualname__ = f"Aten{stem.title()}DimOp"
        name = f"torch.aten.{stem}.dim"
        SCHEMA = (
            f"aten::{stem}.dim(Tensor self, int dim, bool keepdim=False) -> "
            "(Tensor values, Tensor indices)"
        )
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}")
        SAMPLES = (Sample(Tn((3, 4)), 1), Sample(Tn((2, 3, 4), "int64"), -1, True))
        self_ = operand_def(ValueTensorType)
        dim = operand_def(IntType)
        keepdim = operand_def(BoolType)
        values = result_def(ValueTensorType)
        indices = result_def(ValueTensorType)

        @staticmethod
        def eager(x: Any, dim: int, keepdim: bool = False) -> Any:
            index = arg_fn(x, axis=one_axis(dim, x.ndim), keepdims=keepdim)
            return numpy_fn(x, axis=one_axis(dim, x.ndim), keepdims=keepdim), index.astype(np.int64)

    @torch_op
    class Among(mixin, ReductionOp):
        __doc__ = f"{word.title()} value over the dims in `dim` (`torch.a{stem}`)."
        __qualname__ = f"AtenA{stem}Op"
        name = f"torch.aten.a{stem}"
        SCHEMA = f"aten::a{stem}(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor"
        PY_NAMES = (f"torch.a{stem}", f"Tensor.a{stem}")
        SAMPLES = (Sample(Tn((3, 4)), [1]), Sample(Tn((2, 3, 4), "int32"), [0, 2], True))
        self_ = operand_def(ValueTensorType)
        dim = operand_def(ListType)
        keepdim = operand_def(BoolType)
        result = result_def(ValueTensorType)

        @staticmethod
        def eager(x: Any, dim: Any = (), keepdim: bool = False) -> Any:
            return numpy_fn(x, axis=axes(list(dim), x.ndim), keepdims=keepdim)

    return Whole, Dim, Among


AtenMaxOp, AtenMaxDimOp, AtenAmaxOp = _max_or_min(MaxMixin, "max", np.max, np.argmax, "largest")


AtenMinOp, AtenMinDimOp, AtenAminOp = _max_or_min(MinMixin, "min", np.min, np.argmin, "smallest")


def _arg(mixin: Any, stem: str, numpy_fn: Any) -> Any:
    @torch_op
    class ArgOp(ArgMixin, mixin, ReductionOp):
        __doc__ = (
            f"Index of the first {stem} along `dim`, or in the flattened tensor when `dim` is "
            f"None (`torch.arg{stem}`); NaN counts as the {stem}."
        )
        __qualname__ = f"AtenArg{stem}Op"
        name = f"torch.aten.arg{stem}"
        SCHEMA = f"aten::arg{stem}(Tensor self, int? dim=None, bool keepdim=False) -> Tensor"
        PY_NAMES = (f"torch.arg{stem}", f"Tensor.arg{stem}", f"np.arg{stem}")
        SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((2, 3, 4), "int64"), None, True),
                   Sample(Tn((3, 5), "int32"), -1), Sample(Tn((4, 3), "float64"), 0, True))  # fmt: skip
        self_ = operand_def(ValueTensorType)
        dim = operand_def(IntType | NoneType)
        keepdim = operand_def(BoolType)
        result = result_def(ValueTensorType)

        @staticmethod
        def eager(x: Any, dim: Any = None, keepdim: bool = False) -> Any:
            return numpy_fn(x, axis=one_axis(dim, x.ndim), keepdims=keepdim).astype(np.int64)

    return ArgOp


AtenArgmaxOp = _arg(MaxMixin, "max", np.argmax)


AtenArgminOp = _arg(MinMixin, "min", np.argmin)


def _all_or_any(mixin: Any, stem: str, numpy_fn: Any) -> tuple[Any, Any, Any]:
    what = "every" if stem == "all" else "some"

    @torch_op
    class Whole(mixin, ReductionOp):
        __doc__ = f"Whether {what} element is nonzero, a 0-d bool tensor (`torch.{stem}(x)`)."
        __qualname__ = f"Aten{stem.title()}Op"
        name = f"torch.aten.{stem}"
        SCHEMA = f"aten::{stem}(Tensor self) -> Tensor"
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}", f"np.{stem}")
        SAMPLES = (Sample(Tn((3, 4), "bool")), Sample(Tn((5,), "int64", -1, 1.5)))
        self_ = operand_def(ValueTensorType)
        result = result_def(ValueTensorType)

        @staticmethod
        def eager(x: Any) -> Any:
            return numpy_fn(x)

    @torch_op
    class Dim(mixin, ReductionOp):
        __doc__ = f"Whether {what} element along `dim` is nonzero (`torch.{stem}(x, dim)`)."
        __qualname__ = f"Aten{stem.title()}DimOp"
        name = f"torch.aten.{stem}.dim"
        SCHEMA = f"aten::{stem}.dim(Tensor self, int dim, bool keepdim=False) -> Tensor"
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}")
        SAMPLES = (Sample(Tn((3, 4), "bool"), 1, True), Sample(Tn((3, 4), "int64", -1, 1.5), 0))
        self_ = operand_def(ValueTensorType)
        dim = operand_def(IntType)
        keepdim = operand_def(BoolType)
        result = result_def(ValueTensorType)

        @staticmethod
        def eager(x: Any, dim: int, keepdim: bool = False) -> Any:
            return numpy_fn(x, axis=one_axis(dim, x.ndim), keepdims=keepdim)

    @torch_op
    class Dims(mixin, ReductionOp):
        __doc__ = f"Whether {what} element over the dims in `dim` is nonzero."
        __qualname__ = f"Aten{stem.title()}DimsOp"
        name = f"torch.aten.{stem}.dims"
        SCHEMA = f"aten::{stem}.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor"
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}")
        SAMPLES = (Sample(Tn((2, 3, 4), "bool"), [0, 2]),)
        self_ = operand_def(ValueTensorType)
        dim = operand_def(ListType | NoneType)
        keepdim = operand_def(BoolType)
        result = result_def(ValueTensorType)

        @staticmethod
        def eager(x: Any, dim: Any = None, keepdim: bool = False) -> Any:
            return numpy_fn(x, axis=axes(dim, x.ndim), keepdims=keepdim)

    return Whole, Dim, Dims


AtenAllOp, AtenAllDimOp, AtenAllDimsOp = _all_or_any(AllMixin, "all", np.all)


AtenAnyOp, AtenAnyDimOp, AtenAnyDimsOp = _all_or_any(AnyMixin, "any", np.any)


@torch_op
class AtenLogsumexpOp(ReduceDimsOp):
    """`torch.logsumexp(x, dim, keepdim=False)`: log(sum(exp(x))) over `dim`, computed as
    m + log(sum(exp(x - m))) with m the max (0 where the max is infinite, so all -inf gives
    -inf and +inf gives +inf); integer inputs give float32 (lowering/torch_to_linalg/
    reduction.py)."""

    name = "torch.aten.logsumexp"
    SCHEMA = "aten::logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor"
    PY_NAMES = ("torch.logsumexp", "Tensor.logsumexp", "torch.special.logsumexp")
    SAMPLES = (Sample(Tn((3, 5), low=-50.0, high=50.0), [1]),
               Sample(Tn((2, 3, 4), "int64", -3, 3), [0, 2], True))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    dim = operand_def(ListType)
    keepdim = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def result_element(cls, named: dict[str, Any], input_dtype: DType | None) -> DType | None:
        if input_dtype is not None and not input_dtype.is_float:
            return FLOAT32
        return input_dtype

    @staticmethod
    def eager(x: Any, dim: Any, keepdim: bool = False) -> Any:
        reduced = axes(list(dim), x.ndim)
        wide = x.astype(np.float64)
        with np.errstate(all="ignore"):
            top = np.max(wide, axis=reduced, keepdims=True) if wide.size else np.zeros(())
            shift = np.where(np.isinf(top), 0.0, top)
            total = np.sum(np.exp(wide - shift), axis=reduced, keepdims=True)
            out = np.log(total) + shift
        return out if keepdim else np.squeeze(out, axis=reduced)


OPS = (
    AtenSumOp,
    AtenSumDimIntListOp,
    AtenProdOp,
    AtenProdDimIntOp,
    AtenMeanOp,
    AtenMeanDimOp,
    AtenMaxOp,
    AtenMaxDimOp,
    AtenAmaxOp,
    AtenMinOp,
    AtenMinDimOp,
    AtenAminOp,
    AtenArgmaxOp,
    AtenArgminOp,
    AtenAllOp,
    AtenAllDimOp,
    AtenAllDimsOp,
    AtenAnyOp,
    AtenAnyDimOp,
    AtenAnyDimsOp,
    AtenLogsumexpOp,
)
