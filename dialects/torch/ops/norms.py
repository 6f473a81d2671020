"""Norms and other map-then-reduce ops: torch.norm / Tensor.norm, torch.linalg.vector_norm,
torch.linalg.norm (vectors), count_nonzero, nansum (distances: `distances.py`).

A `MapReduceOp` reduces `term(x)` over the reduced dims with `add`, `max` or `min`, then
applies `finish` to each result (`MapReduce`); `lowering/torch_to_linalg/norms.py` turns that
into one folding `linalg.generic` (+ one elementwise generic for `finish`). The p-norm of
`x` over some dims, by `p` (torch's `ord`):
- `2` (and `'fro'`): sqrt(sum x^2); `1`: sum |x|; `0`: the count of nonzeros;
- `inf` / `-inf`: max / min of |x| (NaN propagates);
- any other p: (sum |x|^p)^(1/p).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import INT64, DType
from dialects.torch.families import ReduceDimsOp, ScalarOperand, SumMixin, explicit_dtype
from dialects.torch.meta import Dynamic, ShapeError, TensorMeta, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import (
    AtenAddScalarOp,
    AtenMulScalarOp,
    AtenMulTensorOp,
    AtenReciprocalOp,
)
from dialects.torch.ops.comparison import AtenGtScalarOp
from dialects.torch.ops.logical import AtenWhereScalarOtherOp
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.reduction import axes
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import BoolType, IntType, ListType, NoneType, StrType, ValueTensorType

Term = Callable[[ScalarBuilder, SSAValue, Attribute], SSAValue]


Finish = Callable[[ScalarBuilder, SSAValue], SSAValue]


@dataclass(frozen=True)
class MapReduce:
    """`finish(combine over the reduced dims of term(x))`, starting from `identity`.

    `term(b, x, element)` gets an input element in its own type and returns its contribution
    in the result's element type; `combine` is "add", "max" or "min" (NaN-propagating)."""

    term: Term
    combine: str
    identity: float
    finish: Finish | None = None


class MapReduceOp(ReduceDimsOp):
    """A reduction described by `map_reduce()` (see the module docstring)."""

    def map_reduce(self) -> MapReduce:
        raise NotImplementedError


def norm_map_reduce(p: float) -> MapReduce:
    """The fold of a p-norm (see the module docstring)."""

    def magnitude(b: ScalarBuilder, x: SSAValue, element: Attribute) -> SSAValue:
        return b.abs(b.cast(x, element))

    if p == math.inf:
        return MapReduce(magnitude, "max", 0.0)
    if p == -math.inf:
        return MapReduce(magnitude, "min", math.inf)
    if p == 0:
        return MapReduce(_nonzero, "add", 0.0)
    if p == 1:
        return MapReduce(magnitude, "add", 0.0)
    if p == 2:

        def square(b: ScalarBuilder, x: SSAValue, element: Attribute) -> SSAValue:
            value = b.cast(x, element)
            return b.mul(value, value)

        return MapReduce(square, "add", 0.0, lambda b, acc: b.sqrt(acc))

    def power(b: ScalarBuilder, x: SSAValue, element: Attribute) -> SSAValue:
        return b.pow(magnitude(b, x, element), b.const(p, element))

    return MapReduce(power, "add", 0.0, lambda b, acc: b.pow(acc, b.const(1.0 / p, acc)))


def _nonzero(b: ScalarBuilder, x: SSAValue, element: Attribute) -> SSAValue:
    """1 where x != 0 (NaN counts), else 0, in `element`."""
    hit = b.cmp("ne", x, b.const(0, x))
    return b.select(hit, b.const(1, element), b.const(0, element))


def p_norm(x: Any, p: float, dim: Any, keepdim: bool, dtype: Any = None) -> Any:
    """The numpy reference of a p-norm over `dim` (None / []: every dim)."""
    reduced = axes(dim, x.ndim)
    wide = np.abs(x.astype(np.float64))
    with np.errstate(all="ignore"):
        if p == math.inf:
            out = np.max(wide, axis=reduced, keepdims=keepdim, initial=0.0)
        elif p == -math.inf:
            out = np.min(wide, axis=reduced, keepdims=keepdim, initial=math.inf)
        elif p == 0:
            out = np.sum(wide != 0, axis=reduced, keepdims=keepdim).astype(np.float64)
        else:
            out = np.sum(wide**p, axis=reduced, keepdims=keepdim) ** (1.0 / p)
    return out


def order_value(cls: Any, p: Any, default: float = 2.0) -> float:
    """A norm order as a float: None -> `default`, 'fro' -> 2; TypeError for 'nuc', for other
    strings and for an order known only at run time."""
    if p is None:
        return default
    if isinstance(p, Dynamic):
        raise TypeError(f"{cls.name}: the norm order `p` must be known while scripting")
    if isinstance(p, str):
        if p == "fro":
            return 2.0
        if p == "nuc":
            raise TypeError(f"{cls.name}: the nuclear norm (p='nuc') is not supported")
        raise TypeError(f"{cls.name}: invalid norm order {p!r}")
    return float(p)


class NormOp(MapReduceOp):
    """A p-norm over `dim` (all dims when None / []); floating point only, like torch; the
    result has the input's dtype, or `dtype=`. `ORDER_ARG` names the order argument."""

    ORDER_ARG: ClassVar[str] = "p"
    FLOAT_ONLY = True

    @classmethod
    def result_element(cls, named: dict[str, Any], input_dtype: DType | None) -> DType | None:
        if input_dtype is not None and not input_dtype.is_float:
            raise TypeError(
                "linalg.vector_norm: Expected a floating point or complex tensor as input. "
                f"Got {input_dtype.name}"
            )
        return explicit_dtype(named) or input_dtype

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        named = cls.named_args(args)
        cls.order(named)
        out = named.get("out")
        if out is not None:
            raise TypeError(f"{cls.name}: out= is not supported")
        return super().infer(*args)

    @classmethod
    def order(cls, named: dict[str, Any]) -> float:
        return order_value(cls, named.get(cls.ORDER_ARG))

    def map_reduce(self) -> MapReduce:
        return norm_map_reduce(self.order(self.named_args(tuple(self.arg_values()))))

    @classmethod
    def run_norm(cls, x: Any, p: Any, dim: Any, keepdim: bool, dtype: Any) -> Any:
        return p_norm(x, order_value(cls, p), dim, keepdim)


@torch_op
class AtenNormScalarOp(NormOp):
    """`torch.norm(x, p=2)` / `x.norm()`: the p-norm of all elements, a 0-d tensor."""

    name = "torch.aten.norm.Scalar"
    SCHEMA = "aten::norm.Scalar(Tensor self, Scalar p=2) -> Tensor"
    PY_NAMES = ("torch.norm", "Tensor.norm")
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((5,), "float64"), 3))
    self_ = operand_def(ValueTensorType)
    p = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def eager(cls, x: Any, p: Any = 2) -> Any:  # type: ignore[override]
        return cls.run_norm(x, p, None, False, None)


@torch_op
class AtenNormScalarOptDimOp(NormOp):
    """`torch.norm(x, p=2, dim=None, keepdim=False, dtype=None)` / `x.norm(p, dim)`: the
    p-norm over `dim` (p: a number, or None for 2; inf / -inf for max / min of |x|)."""

    name = "torch.aten.norm.ScalarOpt_dim"
    SCHEMA = (
        "aten::norm.ScalarOpt_dim(Tensor self, Scalar? p=2, int[1]? dim=None, "
        "bool keepdim=False, *, ScalarType? dtype=None, Tensor? out=None) -> Tensor"
    )
    PY_NAMES = ("torch.norm", "Tensor.norm")
    SAMPLES = (Sample(Tn((3, 4)), 1, [1], True), Sample(Tn((2, 3, 4)), math.inf, [0, 2]))
    self_ = operand_def(ValueTensorType)
    p = operand_def(ScalarOperand | NoneType)
    dim = operand_def(ListType | NoneType)
    keepdim = operand_def(BoolType)
    dtype = operand_def(IntType | NoneType)
    out = operand_def(ValueTensorType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def eager(  # type: ignore[override]
        cls, x: Any, p: Any = 2, dim: Any = None, keepdim: bool = False, dtype: Any = None,
        out: Any = None,
    ) -> Any:  # fmt: skip
        return cls.run_norm(x, p, dim, keepdim, dtype)


@torch_op
class AtenNormStrOp(NormOp):
    """`torch.norm(x, 'fro', dim=None, keepdim=False)`: the Frobenius norm, the 2-norm of the
    elements over `dim` (`'nuc'` is refused)."""

    name = "torch.aten.norm.str"
    SCHEMA = (
        "aten::norm.str(Tensor self, str p, int[1]? dim=None, bool keepdim=False, *, "
        "ScalarType? dtype=None, Tensor? out=None) -> Tensor"
    )
    PY_NAMES = ("torch.norm", "Tensor.norm")
    SAMPLES = (Sample(Tn((3, 4)), "fro"), Sample(Tn((2, 3, 4), "float64"), "fro", [1, 2], True))
    self_ = operand_def(ValueTensorType)
    p = operand_def(StrType)
    dim = operand_def(ListType | NoneType)
    keepdim = operand_def(BoolType)
    dtype = operand_def(IntType | NoneType)
    out = operand_def(ValueTensorType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def eager(  # type: ignore[override]
        cls, x: Any, p: str, dim: Any = None, keepdim: bool = False, dtype: Any = None,
        out: Any = None,
    ) -> Any:  # fmt: skip
        return cls.run_norm(x, p, dim, keepdim, dtype)


@torch_op
class AtenLinalgVectorNormOp(NormOp):
    """`torch.linalg.vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None)`."""

    name = "torch.aten.linalg_vector_norm"
    SCHEMA = (
        "aten::linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, "
        "bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"
    )
    PY_NAMES = ("torch.linalg.vector_norm",)
    ORDER_ARG = "ord"
    SAMPLES = (Sample(Tn((3, 4)), 1, [-1]), Sample(Tn((4, 3)), -math.inf, [0], True, dtype=7))
    self_ = operand_def(ValueTensorType)
    ord = operand_def(ScalarOperand)
    dim = operand_def(ListType | NoneType)
    keepdim = operand_def(BoolType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def eager(  # type: ignore[override]
        cls, x: Any, ord: Any = 2, dim: Any = None, keepdim: bool = False, dtype: Any = None
    ) -> Any:
        return cls.run_norm(x, ord, dim, keepdim, dtype)


@torch_op
class AtenLinalgNormOp(NormOp):
    """`torch.linalg.norm(x, ord=None, dim=None, keepdim=False)` of vectors: the 2-norm of
    all elements when `ord` is None, else the `ord`-norm over one dim; matrix norms (an
    `ord` over two dims) are refused."""

    name = "torch.aten.linalg_norm"
    SCHEMA = (
        "aten::linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, "
        "bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"
    )
    PY_NAMES = ("torch.linalg.norm",)
    ORDER_ARG = "ord"
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((4, 3), "float64"), 3, [1]))
    self_ = operand_def(ValueTensorType)
    ord = operand_def(ScalarOperand | NoneType)
    dim = operand_def(ListType | NoneType)
    keepdim = operand_def(BoolType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        named = cls.named_args(args)
        x: TensorMeta = named["self"]
        if named.get("ord") is not None and x.rank is not None:
            count = len(cls.reduced_dims(named, x.rank))
            if count != 1:
                raise TypeError(
                    "torch.linalg.norm: an `ord` over two dims is a matrix norm, which is not "
                    "supported; use torch.linalg.vector_norm"
                )
        return super().infer(*args)

    @classmethod
    def eager(  # type: ignore[override]
        cls, x: Any, ord: Any = None, dim: Any = None, keepdim: bool = False, dtype: Any = None
    ) -> Any:
        return cls.run_norm(x, ord, dim, keepdim, dtype)


@torch_op
class AtenLinalgNormOrdStrOp(NormOp):
    """`torch.linalg.norm(x, 'fro', dim=None, keepdim=False)`: the Frobenius norm, the 2-norm
    of the elements over `dim` (all dims when None); `'nuc'` is refused."""

    name = "torch.aten.linalg_norm.ord_str"
    SCHEMA = (
        "aten::linalg_norm.ord_str(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, "
        "*, ScalarType? dtype=None) -> Tensor"
    )
    PY_NAMES = ("torch.linalg.norm",)
    ORDER_ARG = "ord"
    SAMPLES = (Sample(Tn((2, 3, 4)), "fro", [1, 2], True),)
    self_ = operand_def(ValueTensorType)
    ord = operand_def(StrType)
    dim = operand_def(ListType | NoneType)
    keepdim = operand_def(BoolType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def eager(  # type: ignore[override]
        cls, x: Any, ord: str, dim: Any = None, keepdim: bool = False, dtype: Any = None
    ) -> Any:
        return cls.run_norm(x, ord, dim, keepdim, dtype)


class CountNonzeroOp(MapReduceOp):
    """The number of nonzero elements (NaN counts) over `dim`, int64."""

    @classmethod
    def result_element(cls, named: dict[str, Any], input_dtype: DType | None) -> DType | None:
        return INT64

    def map_reduce(self) -> MapReduce:
        return MapReduce(_nonzero, "add", 0)

    @staticmethod
    def eager(x: Any, dim: Any = None) -> Any:
        return np.count_nonzero(x, axis=axes(dim, x.ndim))


@torch_op
class AtenCountNonzeroOp(CountNonzeroOp):
    """`torch.count_nonzero(x, dim=None)`: nonzero elements, over one dim or all."""

    name = "torch.aten.count_nonzero"
    SCHEMA = "aten::count_nonzero(Tensor self, int? dim=None) -> Tensor"
    PY_NAMES = ("torch.count_nonzero", "Tensor.count_nonzero")
    SAMPLES = (Sample(Tn((3, 4), "int64", -1, 2)), Sample(Tn((3, 4), "bool"), 1))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)


@torch_op
class AtenCountNonzeroDimIntListOp(CountNonzeroOp):
    """`torch.count_nonzero(x, dim=(0, 1))`: nonzero elements over the dims in `dim`."""

    name = "torch.aten.count_nonzero.dim_IntList"
    SCHEMA = "aten::count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor"
    PY_NAMES = ("torch.count_nonzero", "Tensor.count_nonzero")
    SAMPLES = (Sample(Tn((2, 3, 4), "int32", -1, 2), [0, 2]),)
    self_ = operand_def(ValueTensorType)
    dim = operand_def(ListType)
    result = result_def(ValueTensorType)


@torch_op
class AtenNansumOp(SumMixin, MapReduceOp):
    """`torch.nansum(x, dim=None, keepdim=False, dtype=None)`: the sum with NaNs as zeros."""

    name = "torch.aten.nansum"
    SCHEMA = (
        "aten::nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor"
    )
    PY_NAMES = ("torch.nansum", "Tensor.nansum")
    SAMPLES = (Sample(Tn((3, 4))), Sample(Tn((3, 4), "int32", -3, 3), [1], True))
    self_ = operand_def(ValueTensorType)
    dim = operand_def(ListType | NoneType)
    keepdim = operand_def(BoolType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    def map_reduce(self) -> MapReduce:
        def term(b: ScalarBuilder, x: SSAValue, element: Attribute) -> SSAValue:
            value = b.cast(x, element)
            if not b.is_float(value):
                return value
            return b.select(b.is_nan(value), b.const(0, element), value)

        return MapReduce(term, "add", 0)

    @staticmethod
    def eager(x: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
        wide = np.int64 if x.dtype.kind in "bi" else None
        return np.nansum(x, axis=axes(dim, x.ndim), keepdims=keepdim, dtype=wide)


EPSILON = 1e-7


@torch_op
class AtenRenormOp(TorchOp):
    """`torch.renorm` / `x.renorm(p, dim, maxnorm)`: floats only, rank >= 2, p > 0,
    maxnorm >= 0 (torch's messages)."""

    name = "torch.aten.renorm"
    SCHEMA = "aten::renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor"
    PY_NAMES = ("torch.renorm", "Tensor.renorm")
    SAMPLES = (Sample(Tn((2, 3, 2)), 1, -1, 2.0),)
    self_ = operand_def(ValueTensorType)
    p = operand_def(ScalarOperand)
    dim = operand_def(IntType)
    maxnorm = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, p, dim, maxnorm = args
        if x.dtype is not None and not x.dtype.is_float:
            raise TypeError(
                "linalg.vector_norm: Expected a floating point or complex tensor as input. "
                f"Got {x.dtype.name.capitalize().replace('Int64', 'Long')}"
            )
        if not isinstance(p, Dynamic) and p <= 0:
            raise ShapeError("renorm: non-positive-norm not supported")
        if not isinstance(maxnorm, Dynamic) and maxnorm < 0:
            raise ShapeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
        if x.rank is not None:
            if x.rank <= 1:
                raise ShapeError(
                    f"renorm: input needs at least 2 dimensions, got {x.rank} dimensions"
                )
            normalize_dim(dim, x.rank)
        return [ValueTensorType(x.shape, x.dtype)]

    @staticmethod
    def eager(x: Any, p: float, dim: int, maxnorm: float) -> Any:
        others = tuple(d for d in range(x.ndim) if d != dim % x.ndim)
        wide = np.abs(x.astype(np.float64))
        norm = (
            wide.max(others, keepdims=True)
            if p == np.inf
            else (wide**p).sum(others, keepdims=True) ** (1 / p)
        )
        factor = np.where(norm > maxnorm, maxnorm / (norm + EPSILON), 1.0)
        return (x * factor.astype(x.dtype)).astype(x.dtype)

    def decompose(self) -> Any:
        """`x * where(norm > maxnorm, maxnorm / (norm + 1e-7), 1)`, the norm over the other
        dims (kept)."""
        x, p, dim, maxnorm = self.operands
        rank = known_rank(x)
        if rank is None:
            return None
        order_value(type(self), arg_value(p))  # this op's error for a run-time order
        axis = normalize_dim(arg_value(dim), rank)
        others = [d for d in range(rank) if d != axis]
        seq = OpSequence()
        norm = seq.call(AtenLinalgVectorNormOp, x, p, others, True, None)
        shifted = seq.call(AtenAddScalarOp, norm, EPSILON, 1)
        scale = seq.call(AtenMulScalarOp, seq.call(AtenReciprocalOp, shifted), maxnorm)
        above = seq.call(AtenGtScalarOp, norm, maxnorm)
        factor = seq.call(AtenWhereScalarOtherOp, above, scale, 1.0)
        seq.call(AtenMulTensorOp, x, factor)
        return seq.ops


OPS = (
    AtenNormScalarOp,
    AtenNormScalarOptDimOp,
    AtenNormStrOp,
    AtenLinalgVectorNormOp,
    AtenLinalgNormOp,
    AtenLinalgNormOrdStrOp,
    AtenCountNonzeroOp,
    AtenCountNonzeroDimIntListOp,
    AtenNansumOp,
    AtenRenormOp,
)
