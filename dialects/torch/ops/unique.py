"""`torch.unique` and `torch.unique_consecutive` of the flattened tensor: a value-sized result.

Both decompose, as sorting-based implementations compute them, into ops of known sizes and
`nonzero` (`dialects/torch/ops/value_sized.py`), whose lowering counts before it allocates:
```
flat   = x.reshape(-1)                        # unique: s, order = sort(flat) (stable)
starts = cat([ones_like(s[:1]), s[1:] != s[:-1]])   # where a run of equal values starts
first  = nonzero(starts)[:, 0]                # [count] positions of the run starts
values = s[first]
counts = ends[1:] - ends[:-1], ends = cat([first, [numel]])
inverse = cumsum(starts) - 1                  # run of each element (unique: scattered back
                                              # through `order`), shaped like x
```
NaN never equals NaN, so every NaN is its own value (as in torch), sorted above the numbers.
`torch.unique` always sorts (torch on the CPU sorts with `sorted=False` too). An output not
asked for (`return_inverse=False`, `return_counts=False`) is an empty int64 tensor, as ATen's.
The Python functions with torch's signature and results are in `frontend/torch/unique.py`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import BOOL, INT64
from dialects.torch.meta import Dynamic, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import AtenSubScalarOp, AtenSubTensorOp
from dialects.torch.ops.comparison import AtenNeTensorOp
from dialects.torch.ops.constructors import AtenFullOp, AtenOnesLikeOp, AtenZerosLikeOp, AtenZerosOp
from dialects.torch.ops.data_movement import AtenSelectIntOp, AtenSliceTensorOp
from dialects.torch.ops.indexing import AtenIndexSelectOp
from dialects.torch.ops.joining import AtenCatOp
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.prim import PrimListUnpackOp
from dialects.torch.ops.scans import AtenCumsumOp
from dialects.torch.ops.scatter_index import AtenScatterSrcOp
from dialects.torch.ops.sorting import AtenSortOp
from dialects.torch.ops.value_sized import AtenNonzeroOp
from dialects.torch.ops.views import (
    AtenReshapeOp,
)
from dialects.torch.types import DYN, BoolType, IntType, NoneType, ValueTensorType

EMPTY_INDICES = ValueTensorType((0,), INT64)  # an output that was not asked for


def _flag(op_name: str, value: Any, name: str) -> bool:
    if isinstance(value, Dynamic):
        raise TypeError(f"{op_name}(): `{name}` must be known while scripting")
    return bool(value)


def _result_types(op_name: str, x: TensorMeta, inverse: Any, counts: Any) -> list[Attribute]:
    return [
        ValueTensorType((DYN,), x.dtype),
        ValueTensorType(x.shape, INT64) if _flag(op_name, inverse, "return_inverse") else EMPTY_INDICES,
        ValueTensorType((DYN,), INT64) if _flag(op_name, counts, "return_counts") else EMPTY_INDICES,
    ]  # fmt: skip


def unique_eager(x: Any, sort: bool, inverse: bool, counts: bool) -> tuple[Any, Any, Any]:
    """numpy reference: runs of equal values (NaN never equal) of `x` flattened, sorted first
    (stable, NaN last) when `sort`."""
    flat = np.reshape(x, -1)
    order = np.argsort(flat, kind="stable") if sort else np.arange(flat.size)
    s = flat[order]
    starts = np.ones(s.size, np.bool_)
    starts[1:] = s[1:] != s[:-1]
    first = np.flatnonzero(starts)
    run = np.cumsum(starts) - 1
    run_of = np.empty(flat.size, np.int64)
    run_of[order] = run
    empty = np.zeros(0, np.int64)
    return (
        s[first],
        run_of.reshape(np.shape(x)) if inverse else empty,
        np.diff(np.append(first, flat.size)).astype(np.int64) if counts else empty,
    )


def unique_ops(seq: OpSequence, x: SSAValue, sort: bool, inverse: bool, counts: bool) -> None:
    """Build (values, inverse, counts) of `x` (see the module docstring), unpacked from a list
    by the last op built."""
    flat = seq.call(AtenReshapeOp, x, [-1])
    order = None
    if sort:
        sorting = seq.add(AtenSortOp.build([flat, seq.value(0), seq.value(False)]))
        flat, order = sorting.results
    changed = seq.call(AtenNeTensorOp, _slice(seq, flat, 1, None), _slice(seq, flat, 0, -1))
    head = seq.call(AtenOnesLikeOp, _slice(seq, flat, 0, 1), BOOL.scalar_type)
    starts = seq.call(AtenCatOp, [head, changed], 0)
    first = seq.call(AtenSelectIntOp, seq.call(AtenNonzeroOp, starts), 1, 0)
    results = [seq.call(AtenIndexSelectOp, flat, 0, first)]
    if inverse:
        run = seq.call(AtenSubScalarOp, seq.call(AtenCumsumOp, starts, 0, None), 1, 1)
        if order is not None:
            run = seq.call(AtenScatterSrcOp, seq.call(AtenZerosLikeOp, run, None), 0, order, run)
        results.append(seq.call(AtenReshapeOp, run, seq.sizes(x)))
    else:
        results.append(seq.call(AtenZerosOp, [0], INT64.scalar_type))
    if counts:
        total = seq.call(AtenFullOp, [1], seq.size(flat, 0), INT64.scalar_type)
        ends = seq.call(AtenCatOp, [first, total], 0)
        results.append(
            seq.call(AtenSubTensorOp, _slice(seq, ends, 1, None), _slice(seq, ends, 0, -1), 1)
        )
    else:
        results.append(seq.call(AtenZerosOp, [0], INT64.scalar_type))
    listed = seq.list_of(results)  # unpacked with each element's own type
    seq.add(PrimListUnpackOp.create(operands=[listed], result_types=[r.type for r in results]))


def _slice(seq: OpSequence, x: SSAValue, start: int, end: int | None) -> SSAValue:
    return seq.call(AtenSliceTensorOp, x, 0, start, end, 1)


@torch_op
class AtenUnique2Op(TorchOp):
    """`torch.unique(x, sorted, return_inverse, return_counts)` as ATen computes it: the
    distinct values of `x` flattened, in ascending order; the index of each element's value
    (shaped like `x`) and how often each value occurs, or empty int64 tensors when not asked
    for."""

    name = "torch.aten._unique2"
    SCHEMA = (
        "aten::_unique2(Tensor self, bool sorted=True, bool return_inverse=False, "
        "bool return_counts=False) -> (Tensor, Tensor, Tensor)"
    )
    PY_NAMES = ("torch._unique2",)
    SAMPLES = (
        Sample(Tn((3, 4), "int64", -2, 3), True, True, True),
        Sample(Tn((5,), "float64", -1, 1), False, False, True),
    )
    self_ = operand_def(ValueTensorType)
    sorted = operand_def(BoolType)
    return_inverse = operand_def(BoolType)
    return_counts = operand_def(BoolType)
    values = result_def(ValueTensorType)
    inverse = result_def(ValueTensorType)
    counts = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, _, inverse, counts = args
        return _result_types("unique", x, inverse, counts)

    @staticmethod
    def eager(
        x: Any, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False
    ) -> Any:
        return unique_eager(x, True, return_inverse, return_counts)

    def decompose(self) -> Any:
        if known_rank(self.self_) is None:
            return None
        _, _, inverse, counts = self.arg_values()
        seq = OpSequence()
        unique_ops(seq, self.self_, True, bool(inverse), bool(counts))
        return seq.ops


@torch_op
class AtenUniqueConsecutiveOp(TorchOp):
    """`torch.unique_consecutive(x, return_inverse, return_counts)` of `x` flattened: the first
    value of each run of equal values, the run of each element and the run lengths (empty
    int64 tensors when not asked for). `dim` must be None."""

    name = "torch.aten.unique_consecutive"
    SCHEMA = (
        "aten::unique_consecutive(Tensor self, bool return_inverse=False, "
        "bool return_counts=False, int? dim=None) -> (Tensor, Tensor, Tensor)"
    )
    PY_NAMES = ("torch._unique_consecutive",)  # torch.unique_consecutive: frontend/torch/unique.py
    SAMPLES = (Sample(Tn((2, 5), "int32", -1, 2), True, True),)
    self_ = operand_def(ValueTensorType)
    return_inverse = operand_def(BoolType)
    return_counts = operand_def(BoolType)
    dim = operand_def(IntType | NoneType)
    values = result_def(ValueTensorType)
    inverse = result_def(ValueTensorType)
    counts = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, inverse, counts, dim = args
        if dim is not None:
            raise TypeError("unique_consecutive(): dim= is not supported (only None)")
        return _result_types("unique_consecutive", x, inverse, counts)

    @staticmethod
    def eager(
        x: Any, return_inverse: bool = False, return_counts: bool = False, dim: Any = None
    ) -> Any:
        return unique_eager(x, False, return_inverse, return_counts)

    def decompose(self) -> Any:
        if known_rank(self.self_) is None:
            return None
        _, inverse, counts, _ = self.arg_values()
        seq = OpSequence()
        unique_ops(seq, self.self_, False, bool(inverse), bool(counts))
        return seq.ops


OPS = (
    AtenUnique2Op,
    AtenUniqueConsecutiveOp,
)
