"""Order statistics computed from a sort: `torch.nanmedian` (the lower median of the values
that are not NaN, and its index) and `torch.quantile` / `torch.nanquantile` (q a float or a
1-D tensor; interpolation linear, lower, higher, midpoint or nearest), after torch's
algorithm: sort along the dim (NaN last), a fractional rank per row, gather below and above.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import INT64
from dialects.torch.meta import ShapeError, TensorMeta, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import (
    AtenAddScalarOp,
    AtenFloorDivideScalarOp,
    AtenMulScalarOp,
    AtenMulTensorOp,
    AtenSubScalarOp,
    AtenSubTensorOp,
)
from dialects.torch.ops.blends import AtenLerpScalarOp, AtenLerpTensorOp
from dialects.torch.ops.casts import AtenToDtypeOp
from dialects.torch.ops.clamping import AtenClampMinOp
from dialects.torch.ops.indexing import AtenGatherOp
from dialects.torch.ops.logical import AtenLogicalNotOp, AtenWhereScalarSelfOp
from dialects.torch.ops.math_functions import AtenCeilOp, AtenIsnanOp, AtenRoundOp, AtenTruncOp
from dialects.torch.ops.op_sequence import Decomposition, OpSequence, known_rank
from dialects.torch.ops.reduction import AtenAnyDimOp, AtenSumDimIntListOp
from dialects.torch.ops.scalars import AtenSubIntOp
from dialects.torch.ops.sorting import AtenSortOp
from dialects.torch.ops.views import (
    AtenExpandOp,
    AtenReshapeOp,
    AtenSqueezeDimOp,
    AtenUnsqueezeOp,
    AtenViewOp,
)
from dialects.torch.types import BoolType, FloatType, IntType, NoneType, StrType, ValueTensorType

MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _sorted(seq: OpSequence, x: SSAValue, dim: int) -> tuple[SSAValue, SSAValue]:
    """(values, indices) of a stable ascending sort along `dim` (NaN last)."""
    op = AtenSortOp.build([x, seq.value(dim), seq.value(False)])
    seq.add(op)
    return op.results[0], op.results[1]


def _reduced(shape: Any, dim: int | None, keepdim: bool) -> Any:
    if shape is None:
        return None
    if dim is None:
        return (1,) * len(shape) if keepdim else ()
    return (*shape[:dim], 1, *shape[dim + 1 :]) if keepdim else shape[:dim] + shape[dim + 1 :]


def numpy_nanmedian(x: Any, axis: int) -> tuple[Any, Any]:
    """Lower median of the non-NaN values along axis (NaN if none), and its index."""
    order = np.argsort(x, axis=axis, kind="stable")
    values = np.take_along_axis(x, order, axis)
    count = (~np.isnan(x)).sum(axis, keepdims=True)
    position = np.maximum((count - 1) // 2, 0)
    return (
        np.take_along_axis(values, position, axis).squeeze(axis),
        np.take_along_axis(order, position, axis).squeeze(axis).astype(np.int64),
    )


def nanmedian_parts(seq: OpSequence, x: SSAValue, dim: int) -> tuple[SSAValue, SSAValue]:
    """Values and indices (keepdim) of the lower median of the non-NaN values."""
    values, indices = _sorted(seq, x, dim)
    valid = seq.call(AtenLogicalNotOp, seq.call(AtenIsnanOp, x))
    count = seq.call(AtenSumDimIntListOp, valid, [dim], True, None)
    half = seq.call(AtenFloorDivideScalarOp, seq.call(AtenSubScalarOp, count, 1, 1), 2)
    position = seq.call(AtenClampMinOp, half, 0)
    return (
        seq.call(AtenGatherOp, values, dim, position, False),
        seq.call(AtenGatherOp, indices, dim, position, False),
    )


@torch_op
class AtenNanmedianOp(TorchOp):
    """`torch.nanmedian(x)` / `x.nanmedian()`: over all elements, 0-d."""

    name = "torch.aten.nanmedian"
    SCHEMA = "aten::nanmedian(Tensor self) -> Tensor"
    PY_NAMES = ("torch.nanmedian", "Tensor.nanmedian")
    SAMPLES = (Sample(Tn((5,), "int64", -9, 9)),)
    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return [ValueTensorType((), args[0].dtype)]

    @staticmethod
    def eager(x: Any) -> Any:
        return numpy_nanmedian(x.reshape(-1), 0)[0]

    def decompose(self) -> Any:
        seq = OpSequence()
        flat = seq.call(AtenReshapeOp, self.self_, [-1])
        values, _ = nanmedian_parts(seq, flat, 0)
        seq.call(AtenViewOp, values, [])
        return seq.ops


@torch_op
class AtenNanmedianDimOp(TorchOp):
    """`torch.nanmedian(x, dim, keepdim=False)` -> (values, indices)."""

    name = "torch.aten.nanmedian.dim"
    SCHEMA = (
        "aten::nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> "
        "(Tensor values, Tensor indices)"
    )
    PY_NAMES = ("torch.nanmedian", "Tensor.nanmedian")
    SAMPLES = (Sample(Tn((4, 3), "float64"), 0, True),)
    self_ = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    keepdim = operand_def(BoolType)
    values = result_def(ValueTensorType)
    indices = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dim, keepdim = args
        if x.rank is None:
            return [ValueTensorType(None, x.dtype), ValueTensorType(None, INT64)]
        axis = normalize_dim(dim, x.rank) if x.rank else None
        shape = _reduced(x.shape, axis, keepdim is True) if x.rank else ()
        return [ValueTensorType(shape, x.dtype), ValueTensorType(shape, INT64)]

    @staticmethod
    def eager(x: Any, dim: int, keepdim: bool = False) -> Any:
        if x.ndim == 0:
            return x.copy(), np.zeros((), np.int64)
        values, indices = numpy_nanmedian(x, dim % x.ndim)
        if keepdim:
            return np.expand_dims(values, dim), np.expand_dims(indices, dim)
        return values, indices

    def decompose(self) -> Any:
        x, dim, keepdim = self.operands
        rank = known_rank(x)
        if not rank:
            return None
        axis = normalize_dim(arg_value(dim), rank)
        seq = OpSequence()
        values, indices = nanmedian_parts(seq, x, axis)
        if arg_value(keepdim) is not True:
            values = seq.call(AtenSqueezeDimOp, values, axis)
            indices = seq.call(AtenSqueezeDimOp, indices, axis)
        return Decomposition(seq.ops, [values, indices])


def check_quantile(name: str, x: TensorMeta, q: Any, interpolation: Any) -> None:
    """torch's checks (`quantile() ...`)."""
    if x.dtype is not None and not x.dtype.is_float:
        raise TypeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, TensorMeta):
        if q.dtype is not None and x.dtype is not None and q.dtype != x.dtype:
            raise TypeError(f"{name}() q tensor must be same dtype as the input tensor")
        if q.rank is not None and q.rank > 1:
            raise ShapeError(f"{name}() q must be a scalar or 1D tensor")
    elif isinstance(q, float | int) and not 0 <= q <= 1:
        raise ShapeError(f"{name}() q must be in the range [0, 1] but got {q}")
    if interpolation not in MODES:
        raise ShapeError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
            f"but got {interpolation}"
        )


def numpy_quantile(x: Any, q: Any, dim: Any, keepdim: bool, mode: str, ignore_nan: bool) -> Any:
    """torch's algorithm in numpy (sorted rows, a rank per row, gather and interpolate)."""
    if dim is None:
        rows, axis = x.reshape(-1), 0
    else:
        rows, axis = x, dim % x.ndim
    values = np.moveaxis(np.sort(np.moveaxis(rows, axis, -1), -1, kind="stable"), -1, axis)
    values = np.moveaxis(values, axis, -1)[..., None, :]  # [..., 1, n]
    qs = np.asarray(q, dtype=x.dtype).reshape(-1, 1)  # [Q, 1]
    if ignore_nan:
        count = (~np.isnan(values)).sum(-1, keepdims=True)
        ranks = np.maximum(qs * (count - 1), 0).astype(x.dtype)
    else:
        last = values.shape[-1] - 1
        ranks = np.where(np.isnan(values).any(-1, keepdims=True), last, qs * last)
        ranks = ranks.astype(x.dtype)
    out = _interpolate(values, ranks, mode)[..., 0]  # [..., Q]
    out = np.moveaxis(out, -1, 0)  # [Q, ...]
    out = np.expand_dims(out, axis + 1) if keepdim and dim is not None else out
    if keepdim and dim is None:
        out = out.reshape((out.shape[0],) + (1,) * x.ndim)
    return out[0] if np.ndim(q) == 0 else out


def _interpolate(values: Any, ranks: Any, mode: str) -> Any:
    shape = np.broadcast_shapes(values.shape[:-1], ranks.shape[:-1]) + (1,)
    values = np.broadcast_to(values, (*shape[:-1], values.shape[-1]))
    ranks = np.broadcast_to(ranks, shape)
    below = np.take_along_axis(values, ranks.astype(np.int64), -1)
    above = np.take_along_axis(values, np.ceil(ranks).astype(np.int64), -1)
    if mode == "lower":
        return below
    if mode == "higher":
        return above
    if mode == "nearest":
        return np.take_along_axis(values, np.round(ranks).astype(np.int64), -1)
    weight = np.asarray(0.5, values.dtype) if mode == "midpoint" else ranks - np.trunc(ranks)
    return np.where(
        weight < 0.5, below + weight * (above - below), above - (above - below) * (1 - weight)
    )  # fmt: skip  (torch's lerp)


def quantile_type(name: str, args: tuple[Any, ...]) -> list[Attribute]:
    x, q, dim, keepdim, interpolation = args
    check_quantile(name, x, q, interpolation)
    if not isinstance(dim, int | type(None)):
        raise TypeError(f"{name}(): `dim` must be a constant")
    if x.rank is None:
        return [ValueTensorType(None, x.dtype)]
    axis = None if dim is None else normalize_dim(dim, x.rank)
    shape = _reduced(x.shape, axis, keepdim is True)
    if isinstance(q, TensorMeta) and q.rank == 1:
        shape = (q.shape[0], *shape)
    return [ValueTensorType(shape, x.dtype)]


class _Quantile(TorchOp):
    IGNORE_NAN = False

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return quantile_type(cls.name.split(".")[2], args)

    @classmethod
    def eager(cls, x: Any, q: Any, dim: Any = None, keepdim: bool = False,  # type: ignore[override]
              interpolation: str = "linear") -> Any:  # fmt: skip
        return numpy_quantile(x, q, dim, keepdim, interpolation, cls.IGNORE_NAN)

    def decompose(self) -> Any:
        x, q, dim, keepdim, interpolation = self.operands
        rank = known_rank(x)
        q_rank = known_rank(q) if isinstance(q.type, ValueTensorType) else 0
        if rank is None or q_rank is None:
            return None
        seq = OpSequence()
        axis = arg_value(dim)
        whole = axis is None or rank == 0  # a 0-d input along its dim is the whole tensor
        if whole:
            x, axis = seq.call(AtenReshapeOp, x, [-1]), 0
        else:
            axis = normalize_dim(axis, rank)
        values, _ = _sorted(seq, x, axis)
        if q_rank == 1:  # one row of results per q: [Q, ...] (the rows broadcast)
            values = seq.call(AtenUnsqueezeOp, values, 0)
            axis += 1
            count_shape = [-1] + [1] * (known_rank(values) - 1)  # type: ignore[operator]
            q = seq.call(AtenViewOp, q, count_shape)
        ranks = self.ranks(seq, values, q, axis)
        if q_rank == 1:  # gather needs the rows for each q
            values = seq.call(AtenExpandOp, values, [seq.size(q, 0), *seq.sizes(values)[1:]], False)
        result = interpolated(seq, values, ranks, axis, arg_value(interpolation))
        self.finish(
            seq, result, axis, None if whole else arg_value(dim), arg_value(keepdim) is True, rank
        )
        return seq.ops

    def ranks(self, seq: OpSequence, values: SSAValue, q: Any, axis: int) -> SSAValue:
        """The fractional rank per row (keepdim shape), torch's rule."""
        dtype = values.type.element.scalar_type  # type: ignore[attr-defined]
        nan = seq.call(AtenIsnanOp, values)
        if self.IGNORE_NAN:
            valid = seq.call(AtenLogicalNotOp, nan)
            count = seq.call(AtenSumDimIntListOp, valid, [axis], True, dtype)
            last = seq.call(AtenSubScalarOp, count, 1, 1)
            scaled = _times_q(seq, last, q)
            return seq.call(AtenClampMinOp, scaled, 0)
        last = seq.size(values, axis)
        last = last - 1 if isinstance(last, int) else seq.call(AtenSubIntOp, last, 1)
        any_nan = seq.call(AtenAnyDimOp, nan, axis, True)
        ones = seq.call(AtenToDtypeOp, any_nan, dtype, False, False, None)
        full = seq.call(AtenMulScalarOp, ones, 0)  # zeros of the keepdim shape
        scaled = _times_q(seq, seq.call(AtenAddScalarOp, full, last, 1), q)
        return seq.call(AtenWhereScalarSelfOp, any_nan, last, scaled)

    def finish(self, seq: OpSequence, result: SSAValue, axis: int, dim: Any, keepdim: bool,
               rank: int) -> None:  # fmt: skip
        if dim is not None and not keepdim:
            seq.call(AtenSqueezeDimOp, result, axis)
        elif dim is None:
            sizes = [1] * rank if keepdim else []
            if known_rank(result) == 2:  # [Q, 1]
                seq.call(AtenViewOp, result, [-1, *sizes])
            else:
                seq.call(AtenViewOp, result, sizes)


def _times_q(seq: OpSequence, value: SSAValue, q: Any) -> SSAValue:
    if isinstance(q.type, ValueTensorType):
        return seq.call(AtenMulTensorOp, value, q)
    return seq.call(AtenMulScalarOp, value, q)


def interpolated(seq: OpSequence, values: SSAValue, ranks: SSAValue, axis: int, mode: str) -> Any:
    """Gather below / above the ranks along `axis` and interpolate as `mode` says."""
    sizes = seq.sizes(values)
    sizes[axis] = 1
    ranks = seq.call(AtenExpandOp, ranks, sizes, False)
    long = INT64.scalar_type
    below_index = seq.call(AtenToDtypeOp, ranks, long, False, False, None)
    if mode == "nearest":
        nearest = seq.call(AtenToDtypeOp, seq.call(AtenRoundOp, ranks), long, False, False, None)
        return seq.call(AtenGatherOp, values, axis, nearest, False)
    below = seq.call(AtenGatherOp, values, axis, below_index, False)
    if mode == "lower":
        return below
    above_index = seq.call(AtenToDtypeOp, seq.call(AtenCeilOp, ranks), long, False, False, None)
    above = seq.call(AtenGatherOp, values, axis, above_index, False)
    if mode == "higher":
        return above
    if mode == "midpoint":
        return seq.call(AtenLerpScalarOp, below, above, 0.5)
    weights = seq.call(AtenSubTensorOp, ranks, seq.call(AtenTruncOp, ranks), 1)
    return seq.call(AtenLerpTensorOp, below, above, weights)


def _quantile_op(stem: str, q_kind: str, ignore_nan: bool, samples: tuple[Any, ...]) -> Any:
    q_type = "Tensor q" if q_kind == "tensor" else "float q"
    overload = "" if q_kind == "tensor" else ".scalar"

    @torch_op
    class Op(_Quantile):
        __doc__ = (
            f"`torch.{stem}(x, q, dim=None, keepdim=False, *, interpolation='linear')` with q "
            f"{'a 1-D tensor (results stacked first)' if q_kind == 'tensor' else 'a float'}"
            + ("; NaN ignored" if ignore_nan else "; a row with NaN gives NaN")
        )
        __qualname__ = f"Aten{stem.title()}{'Scalar' if overload else ''}Op"
        name = f"torch.aten.{stem}{overload}"
        SCHEMA = (
            f"aten::{stem}{overload}(Tensor self, {q_type}, int? dim=None, bool keepdim=False, "
            '*, str interpolation="linear") -> Tensor'
        )
        PY_NAMES = (f"torch.{stem}", f"Tensor.{stem}")
        IGNORE_NAN = ignore_nan
        SAMPLES = samples
        self_ = operand_def(ValueTensorType)
        q = operand_def(ValueTensorType if q_kind == "tensor" else FloatType)
        dim = operand_def(IntType | NoneType)
        keepdim = operand_def(BoolType)
        interpolation = operand_def(StrType)
        result = result_def(ValueTensorType)

    Op.__name__ = Op.__qualname__
    return Op


AtenQuantileOp = _quantile_op("quantile", "tensor", False, (
    Sample(Tn((3, 5)), Tn((2,), low=0.0, high=1.0), 1, True),
))  # fmt: skip


AtenQuantileScalarOp = _quantile_op("quantile", "float", False, (
    Sample(Tn((4, 3), "float64"), 0.75, None, interpolation="nearest"),
))  # fmt: skip


AtenNanquantileOp = _quantile_op("nanquantile", "tensor", True, (
    Sample(Tn((2, 4), "float64"), Tn((3,), "float64", 0.0, 1.0), 0),
))  # fmt: skip


AtenNanquantileScalarOp = _quantile_op("nanquantile", "float", True, (
    Sample(Tn((3, 5)), 0.5, -1, interpolation="midpoint"),
))  # fmt: skip


OPS = (
    AtenNanmedianOp,
    AtenNanmedianDimOp,
    AtenQuantileOp,
    AtenQuantileScalarOp,
    AtenNanquantileOp,
    AtenNanquantileScalarOp,
)
