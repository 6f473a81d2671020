"""Placing values among others: `torch.bucketize` and `torch.searchsorted` (the bucket of each
value in sorted boundaries), and `torch.histc` (counts in equal-width bins).

Both count the sequence elements the value goes after, which is torch's binary search for a
sorted sequence: `!(s >= v)` (left) or `!(s > v)` (right), so a NaN value goes after all. The
count compares each value with the whole row (`(v[..., None] vs s[..., None, :]).sum(-1)`):
fine for the short boundary lists these functions take. `sorter=` is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import INT32, INT64
from dialects.torch.families import ScalarOperand
from dialects.torch.meta import Dynamic, ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import (
    AtenAddTensorOp,
    AtenDivScalarOp,
    AtenDivTensorOp,
    AtenMulScalarOp,
    AtenSubScalarOp,
    AtenSubTensorOp,
)
from dialects.torch.ops.casts import AtenToDtypeOp
from dialects.torch.ops.clamping import AtenClampMaxOp
from dialects.torch.ops.comparison import (
    AtenEqTensorOp,
    AtenGeScalarOp,
    AtenGeTensorOp,
    AtenGtTensorOp,
    AtenLeScalarOp,
    AtenLeTensorOp,
)
from dialects.torch.ops.constructors import AtenArangeOp, AtenFullOp
from dialects.torch.ops.logical import AtenLogicalAndOp, AtenLogicalNotOp, AtenWhereScalarOtherOp
from dialects.torch.ops.math_functions import AtenFloorOp
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.reduction import AtenAmaxOp, AtenAminOp, AtenSumDimIntListOp
from dialects.torch.ops.views import AtenReshapeOp, AtenUnsqueezeOp
from dialects.torch.types import DYN, BoolType, IntType, NoneType, StrType, ValueTensorType


def insertion_points(sequence: Any, values: Any, right: bool) -> Any:
    """numpy: per value, how many elements of its row of `sequence` it goes after."""
    sequence, values = np.asarray(sequence), np.asarray(values)
    if sequence.ndim == 1:
        rows = sequence
    else:
        rows = sequence[..., None, :]
    column = values[..., None]
    after = ~(rows > column) if right else ~(rows >= column)
    return after.sum(-1).astype(np.int64)


def count_after(seq: OpSequence, sequence: SSAValue, values: SSAValue, right: bool, int32: bool):  # type: ignore[no-untyped-def]
    """The decomposition: compare, negate, sum over the sequence's dim."""
    column = seq.call(AtenUnsqueezeOp, values, -1)
    rows = sequence if known_rank(sequence) == 1 else seq.call(AtenUnsqueezeOp, sequence, -2)
    compared = seq.call(AtenGtTensorOp if right else AtenGeTensorOp, rows, column)
    after = seq.call(AtenLogicalNotOp, compared)
    dtype = (INT32 if int32 else INT64).scalar_type
    return seq.call(AtenSumDimIntListOp, after, [-1], False, dtype)


def _result(values: Any, int32: Any) -> list[Attribute]:
    shape = values.shape if isinstance(values, TensorMeta) else ()
    return [ValueTensorType(shape, INT32 if int32 is True else INT64)]


def _scalar_tensor(seq: OpSequence, value: SSAValue, like: SSAValue) -> SSAValue:
    """A Python number as a 0-d tensor of the sequence's dtype."""
    return seq.call(AtenFullOp, [], value, like.type.element.scalar_type)  # type: ignore[attr-defined]


class _Bucketize(TorchOp):
    PY_NAMES = ("torch.bucketize",)
    UNCHECKED_PRECONDITION = "the boundaries are sorted"  # else the result is unspecified

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        values, boundaries, int32, _ = args
        if boundaries.rank not in (None, 1):
            raise ShapeError(
                f"boundaries tensor must be 1 dimension, but got dim({boundaries.rank})"
            )
        return _result(values, int32)

    @staticmethod
    def eager(values: Any, boundaries: Any, out_int32: bool = False, right: bool = False) -> Any:
        out = insertion_points(boundaries, values, right)
        return out.astype(np.int32) if out_int32 else out

    def decompose(self) -> Any:
        values, boundaries, int32, right = self.operands
        seq = OpSequence()
        if not isinstance(values.type, ValueTensorType):
            values = _scalar_tensor(seq, values, boundaries)
        elif known_rank(values) is None:
            return None
        count_after(seq, boundaries, values, arg_value(right) is True, arg_value(int32) is True)
        return seq.ops


@torch_op
class AtenBucketizeTensorOp(_Bucketize):
    """`torch.bucketize(x, boundaries, *, out_int32=False, right=False)`: 1-D boundaries."""

    name = "torch.aten.bucketize.Tensor"
    SCHEMA = (
        "aten::bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, "
        "bool right=False) -> Tensor"
    )
    SAMPLES = (
        Sample(Tn((5,), "int64", -4, 4), Tn((1,), "int64", 0, 0), out_int32=True, right=True),
    )
    self_ = operand_def(ValueTensorType)
    boundaries = operand_def(ValueTensorType)
    out_int32 = operand_def(BoolType)
    right = operand_def(BoolType)
    result = result_def(ValueTensorType)


@torch_op
class AtenBucketizeScalarOp(_Bucketize):
    """`torch.bucketize(0.5, boundaries)`: a 0-d index."""

    name = "torch.aten.bucketize.Scalar"
    SCHEMA = (
        "aten::bucketize.Scalar(Scalar self, Tensor boundaries, *, bool out_int32=False, "
        "bool right=False) -> Tensor"
    )
    SAMPLES = (Sample(0.25, Tn((3,), low=0.0, high=0.0)),)
    self_ = operand_def(ScalarOperand)
    boundaries = operand_def(ValueTensorType)
    out_int32 = operand_def(BoolType)
    right = operand_def(BoolType)
    result = result_def(ValueTensorType)


def side_is_right(side: Any, right: Any) -> bool:
    """torch's reading of `side` and `right` (which may not contradict each other)."""
    if side not in (None, "left", "right"):
        raise ValueError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
    if side == "left" and right is True:
        raise ShapeError(
            "torch.searchsorted(): side and right can't be set to opposites, got side of left "
            "while right was True"
        )
    return right is True or side == "right"


class _Searchsorted(TorchOp):
    PY_NAMES = ("torch.searchsorted",)
    UNCHECKED_PRECONDITION = "the sequence is sorted"  # else the result is unspecified

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        sequence, values, int32, right, side, sorter = args
        side_is_right(side, right)
        if sorter is not None:
            raise TypeError("torch.searchsorted(): `sorter` is not supported by tsjit")
        vector = isinstance(values, TensorMeta)
        if vector and None not in (sequence.rank, values.rank) and sequence.rank != 1:
            leading = zip(sequence.shape[:-1], values.shape[:-1], strict=False)
            if sequence.rank != values.rank or any(
                DYN not in (a, b) and a != b for a, b in leading
            ):
                raise ShapeError(
                    "torch.searchsorted(): boundaries tensor should be 1 dimension or the first "
                    "N-1 dimensions of boundaries tensor and input value tensor must match, but "
                    f"we got boundaries tensor {list(sequence.shape)} and input value tensor "
                    f"{list(values.shape)}"
                )
        elif not vector and sequence.rank not in (None, 1):
            raise ShapeError("torch.searchsorted(): input value can be a scalar only when "
                             f"boundaries tensor dimension is 1, but we got boundaries tensor "
                             f"dim({sequence.rank}) and input value's dim(0) numel(1)")  # fmt: skip
        return _result(values, int32)

    @staticmethod
    def eager(
        sequence: Any, values: Any, out_int32: bool = False, right: bool = False,
        side: Any = None, sorter: Any = None,
    ) -> Any:  # fmt: skip
        out = insertion_points(sequence, values, side_is_right(side, right))
        return out.astype(np.int32) if out_int32 else out

    def decompose(self) -> Any:
        sequence, values, int32, right, side, _ = self.operands
        if known_rank(sequence) is None:
            return None
        seq = OpSequence()
        if not isinstance(values.type, ValueTensorType):
            values = _scalar_tensor(seq, values, sequence)
        elif known_rank(values) is None:
            return None
        to_right = side_is_right(arg_value(side), arg_value(right))
        count_after(seq, sequence, values, to_right, arg_value(int32) is True)
        return seq.ops


@torch_op
class AtenSearchsortedTensorOp(_Searchsorted):
    """`torch.searchsorted(sorted_sequence, values, *, out_int32, right, side)`: a 1-D
    sequence, or rows matching the values' leading dims."""

    name = "torch.aten.searchsorted.Tensor"
    SCHEMA = (
        "aten::searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, "
        "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor"
    )
    SAMPLES = (Sample(Tn((2, 3), "float64", 0.0, 0.0), Tn((2, 5), "float64", -1, 1)),)
    sorted_sequence = operand_def(ValueTensorType)
    self_ = operand_def(ValueTensorType)
    out_int32 = operand_def(BoolType)
    right = operand_def(BoolType)
    side = operand_def(StrType | NoneType)
    sorter = operand_def(ValueTensorType | NoneType)
    result = result_def(ValueTensorType)


@torch_op
class AtenSearchsortedScalarOp(_Searchsorted):
    """`torch.searchsorted(sorted_sequence, 0.5)`: a 0-d index (1-D sequence)."""

    name = "torch.aten.searchsorted.Scalar"
    SCHEMA = (
        "aten::searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, "
        "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor"
    )
    SAMPLES = (Sample(Tn((4,), "int64", 0, 0), 0, right=True),)
    sorted_sequence = operand_def(ValueTensorType)
    self_ = operand_def(ScalarOperand)
    out_int32 = operand_def(BoolType)
    right = operand_def(BoolType)
    side = operand_def(StrType | NoneType)
    sorter = operand_def(ValueTensorType | NoneType)
    result = result_def(ValueTensorType)


def numpy_histc(x: Any, bins: int, low: float, high: float) -> Any:
    flat = x.reshape(-1)
    if low == high and flat.size:
        low, high = float(np.nanmin(flat)), float(np.nanmax(flat))
    if low == high:
        low, high = low - 1, high + 1
    lo, hi = x.dtype.type(low), x.dtype.type(high)
    inside = (flat >= lo) & (flat <= hi)
    position = np.floor((flat[inside] - lo) * x.dtype.type(bins) / (hi - lo)).astype(np.int64)
    position = np.minimum(position, bins - 1)
    return np.bincount(position, minlength=bins)[:bins].astype(x.dtype)


@torch_op
class AtenHistcOp(TorchOp):
    """`torch.histc` / `x.histc(bins, min, max)`: floats only; bins, min and max constants."""

    name = "torch.aten.histc"
    SCHEMA = "aten::histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor"
    PY_NAMES = ("torch.histc", "Tensor.histc")
    SAMPLES = (Sample(Tn((3, 4)), 4, -1, 1),)
    self_ = operand_def(ValueTensorType)
    bins = operand_def(IntType)
    min = operand_def(ScalarOperand)
    max = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, bins, low, high = args
        if x.dtype is not None and not x.dtype.is_float:
            names = {"int64": "Long", "int32": "Int", "bool": "Bool"}
            raise TypeError(f"\"histogram_cpu\" not implemented for '{names[x.dtype.name]}'")
        if any(isinstance(v, Dynamic) for v in (bins, low, high)):
            raise TypeError("torch.histc: `bins`, `min` and `max` must be constants")
        if bins <= 0:
            raise ShapeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        if low > high:
            raise ShapeError("torch.histc: max must be larger than min")
        return [ValueTensorType((bins,), x.dtype)]

    @staticmethod
    def eager(x: Any, bins: int = 100, low: Any = 0, high: Any = 0) -> Any:
        return numpy_histc(x, bins, low, high)

    def decompose(self) -> Any:
        """The bin of each element (-1 outside), compared with every bin index and summed."""
        x, bins_value, low_value, high_value = self.operands
        if known_rank(x) is None:
            return None
        bins, low, high = arg_value(bins_value), arg_value(low_value), arg_value(high_value)
        seq = OpSequence()
        flat = seq.call(AtenReshapeOp, x, [-1])
        if low == high:
            lo, hi = self.data_range(seq, flat)
            span = seq.call(AtenSubTensorOp, hi, lo, 1)
            shifted = seq.call(AtenSubTensorOp, flat, lo, 1)
            scaled = seq.call(AtenDivTensorOp, seq.call(AtenMulScalarOp, shifted, bins), span)
            inside = seq.call(AtenLogicalAndOp, seq.call(AtenGeTensorOp, flat, lo),
                              seq.call(AtenLeTensorOp, flat, hi))  # fmt: skip
        else:
            shifted = seq.call(AtenSubScalarOp, flat, low, 1)
            scaled = seq.call(
                AtenDivScalarOp, seq.call(AtenMulScalarOp, shifted, bins), high - low
            )  # torch's order of operations
            inside = seq.call(AtenLogicalAndOp, seq.call(AtenGeScalarOp, flat, low),
                              seq.call(AtenLeScalarOp, flat, high))  # fmt: skip
        position = seq.call(AtenToDtypeOp, seq.call(AtenFloorOp, scaled), INT64.scalar_type,
                            False, False, None)  # fmt: skip
        position = seq.call(AtenClampMaxOp, position, bins - 1)
        position = seq.call(AtenWhereScalarOtherOp, inside, position, -1)
        column = seq.call(AtenUnsqueezeOp, position, 1)
        hits = seq.call(AtenEqTensorOp, column, seq.call(AtenArangeOp, bins, INT64.scalar_type))
        dtype = self.result.type.element.scalar_type  # type: ignore[attr-defined]
        seq.call(AtenSumDimIntListOp, hits, [0], False, dtype)
        return seq.ops

    @staticmethod
    def data_range(seq: OpSequence, flat: SSAValue) -> tuple[SSAValue, SSAValue]:
        """The data's min and max (0-d), moved 1 apart each way if equal."""
        empty_min = seq.call(AtenAminOp, flat, [], False)
        empty_max = seq.call(AtenAmaxOp, flat, [], False)
        equal = seq.call(AtenEqTensorOp, empty_min, empty_max)
        lo = seq.call(AtenSubTensorOp, empty_min, seq.call(AtenToDtypeOp, equal,
                      flat.type.element.scalar_type, False, False, None), 1)  # type: ignore[attr-defined]  # fmt: skip
        hi = seq.call(AtenAddTensorOp, empty_max, seq.call(AtenToDtypeOp, equal,
                      flat.type.element.scalar_type, False, False, None), 1)  # type: ignore[attr-defined]  # fmt: skip
        return lo, hi


OPS = (
    AtenBucketizeTensorOp,
    AtenBucketizeScalarOp,
    AtenSearchsortedTensorOp,
    AtenSearchsortedScalarOp,
    AtenHistcOp,
)
