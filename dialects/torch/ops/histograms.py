"""`torch.histc(x, bins=100, min=0, max=0)`: counts of x's elements in `bins` equal-width bins
over [min, max] (the last bin closed; elements outside and NaN not counted). `min == max`
takes the range from the data (widened by 1 on both sides when all elements are equal)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import INT64
from dialects.torch.families import ScalarOperand
from dialects.torch.meta import Dynamic, ShapeError
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.aten_lookup import aten
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.types import IntType, ValueTensorType


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
        flat = seq.call(aten("reshape"), x, [-1])
        if low == high:
            lo, hi = self.data_range(seq, flat)
            span = seq.call(aten("sub.Tensor"), hi, lo, 1)
            shifted = seq.call(aten("sub.Tensor"), flat, lo, 1)
            scaled = seq.call(aten("div.Tensor"), seq.call(aten("mul.Scalar"), shifted, bins), span)
            inside = seq.call(aten("logical_and"), seq.call(aten("ge.Tensor"), flat, lo),
                              seq.call(aten("le.Tensor"), flat, hi))  # fmt: skip
        else:
            shifted = seq.call(aten("sub.Scalar"), flat, low, 1)
            scaled = seq.call(
                aten("div.Scalar"), seq.call(aten("mul.Scalar"), shifted, bins), high - low
            )  # torch's order of operations
            inside = seq.call(aten("logical_and"), seq.call(aten("ge.Scalar"), flat, low),
                              seq.call(aten("le.Scalar"), flat, high))  # fmt: skip
        position = seq.call(aten("to.dtype"), seq.call(aten("floor"), scaled), INT64.scalar_type,
                            False, False, None)  # fmt: skip
        position = seq.call(aten("clamp_max"), position, bins - 1)
        position = seq.call(aten("where.ScalarOther"), inside, position, -1)
        column = seq.call(aten("unsqueeze"), position, 1)
        hits = seq.call(
            aten("eq.Tensor"), column, seq.call(aten("arange"), bins, INT64.scalar_type)
        )
        dtype = self.result.type.element.scalar_type  # type: ignore[attr-defined]
        seq.call(aten("sum.dim_IntList"), hits, [0], False, dtype)
        return seq.ops

    @staticmethod
    def data_range(seq: OpSequence, flat: SSAValue) -> tuple[SSAValue, SSAValue]:
        """The data's min and max (0-d), moved 1 apart each way if equal."""
        empty_min = seq.call(aten("amin"), flat, [], False)
        empty_max = seq.call(aten("amax"), flat, [], False)
        equal = seq.call(aten("eq.Tensor"), empty_min, empty_max)
        lo = seq.call(aten("sub.Tensor"), empty_min, seq.call(aten("to.dtype"), equal,
                      flat.type.element.scalar_type, False, False, None), 1)  # type: ignore[attr-defined]  # fmt: skip
        hi = seq.call(aten("add.Tensor"), empty_max, seq.call(aten("to.dtype"), equal,
                      flat.type.element.scalar_type, False, False, None), 1)  # type: ignore[attr-defined]  # fmt: skip
        return lo, hi


OPS = (AtenHistcOp,)
