"""Ops whose result size depends on the values of a tensor: nonzero and what is built on it
(argwhere, the one-argument where, nonzero_numpy). `x[mask]` and masked_select are
`indexing.py`, unique `unique.py`.

`torch.aten.nonzero` is the one core op: its result `[?, rank]` (int64) has a first dim
known only after counting, which `lowering/torch_to_linalg/value_sized.py` does at run time
before allocating it (kernels in `lowering/run/kernels/value_sized.py`). The others decompose
into it and ops of known sizes, as torch itself computes them:
- `torch.argwhere(x)` is `torch.nonzero(x)`;
- `torch.where(cond)` (one argument) is the columns of `nonzero(cond)`, one 1-D index tensor
  per dim (a 0-d `cond` counts as 1-D);
- `x[mask]` with a bool `mask` over dims `d .. d+k-1` of `x` (`x.shape[d:d+k] == mask.shape`)
  is `x` with those dims flattened into one, `index_select`ed along `d` at
  `nonzero(mask.reshape(-1))[:, 0]`: shape `x.shape[:d] + [count] + x.shape[d+k:]`
  (decomposed by `aten.index.Tensor`, `dialects/torch/ops/indexing.py`);
- `torch.masked_select(x, mask)` is `x[mask]` after broadcasting both: 1-D (also
  `indexing.py`).

A value-sized dim is `?` in every type, also when the arguments' shapes are exact; code that
combines it with another `?` dim (`x[m] + y[m]`) assumes, as for every `?` dim, that the
sizes agree at run time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import INT64
from dialects.torch.meta import TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.data_movement import AtenSelectIntOp
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.pieces import PiecesOp
from dialects.torch.ops.views import (
    AtenReshapeOp,
)
from dialects.torch.types import DYN, BoolType, ListType, ValueTensorType

INDICES = ValueTensorType((DYN,), INT64)  # one column of nonzero: a 1-D index tensor


def nonzero_positions(x: Any) -> Any:
    """`[count, rank]` int64 coordinates of the nonzero elements, row-major (0-d: `[0|1, 0]`)."""
    return np.argwhere(np.asarray(x)).astype(np.int64)  # [count, ndim], also for 0-d


@torch_op
class AtenNonzeroOp(TorchOp):
    """`torch.nonzero(x)`: the coordinates of the nonzero elements (NaN is nonzero), one row
    each in row-major order, `[count, x.dim()]` int64.

    ```mlir
    %r = torch.aten.nonzero %x : !torch.vtensor<[3,4],f32> -> !torch.vtensor<[?,2],si64>
    ```
    """

    name = "torch.aten.nonzero"
    SCHEMA = "aten::nonzero(Tensor self) -> Tensor"
    PY_NAMES = ("torch.nonzero", "Tensor.nonzero")
    SAMPLES = (Sample(Tn((3, 4), "int64", -1, 2)), Sample(Tn((2, 3, 2), "bool")))
    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        (x,) = args
        return [ValueTensorType((DYN, DYN if x.rank is None else x.rank), INT64)]

    @staticmethod
    def eager(x: Any) -> Any:
        return nonzero_positions(x)


@torch_op
class AtenArgwhereOp(TorchOp):
    """`torch.argwhere(x)`: `torch.nonzero(x)`."""

    name = "torch.aten.argwhere"
    SCHEMA = "aten::argwhere(Tensor self) -> Tensor"
    PY_NAMES = ("torch.argwhere", "Tensor.argwhere")
    SAMPLES = (Sample(Tn((5,), "float64", -1, 2)),)
    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return AtenNonzeroOp.infer(*args)

    @staticmethod
    def eager(x: Any) -> Any:
        return nonzero_positions(x)

    def decompose(self) -> Any:
        seq = OpSequence()
        seq.call(AtenNonzeroOp, self.self_)
        return seq.ops


class _IndexColumnsOp(PiecesOp):
    """The columns of `nonzero(x)`: one 1-D int64 index tensor per dim of `x` (one for 0-d)."""

    @classmethod
    def element_type(cls, *args: Any) -> ValueTensorType:
        return INDICES

    @classmethod
    def pieces(cls, *args: Any) -> list[ValueTensorType] | None:
        x: TensorMeta = args[0]
        return None if x.rank is None else [INDICES] * max(x.rank, 1)

    @staticmethod
    def eager(x: Any) -> Any:
        return [np.asarray(c, np.int64) for c in np.nonzero(np.atleast_1d(x))]

    def decompose(self) -> Any:
        x = self.operands[0]
        rank = known_rank(x)
        if rank is None:
            return None
        seq = OpSequence()
        if rank == 0:
            x = seq.call(AtenReshapeOp, x, [1])
        positions = seq.call(AtenNonzeroOp, x)
        seq.list_of([seq.call(AtenSelectIntOp, positions, 1, d) for d in range(max(rank, 1))])
        return seq.ops


@torch_op
class AtenWhereOp(_IndexColumnsOp):
    """`torch.where(condition)` with one argument: `torch.nonzero(condition, as_tuple=True)`,
    a tuple of 1-D int64 index tensors, one per dim (`x[torch.where(m)]` picks what `x[m]`
    does)."""

    name = "torch.aten.where"
    SCHEMA = "aten::where(Tensor condition) -> Tensor[]"
    PY_NAMES = ("torch.where",)
    SAMPLES = (Sample(Tn((3, 4), "bool")), Sample(Tn((), "int64", 0, 2)))
    condition = operand_def(ValueTensorType)
    result = result_def(ListType)


@torch_op
class AtenNonzeroNumpyOp(_IndexColumnsOp):
    """`torch.nonzero(x, as_tuple=True)`: as `torch.where(x)`. ATen's `nonzero_numpy` has no
    `as_tuple`; here it is a required keyword, so that only calls that pass it bind to this
    overload (the others to `aten::nonzero`), and it must be True."""

    name = "torch.aten.nonzero_numpy"
    SCHEMA = "aten::nonzero_numpy(Tensor self, *, bool as_tuple) -> Tensor[]"
    PY_NAMES = ("torch.nonzero", "Tensor.nonzero")
    SAMPLES = (Sample(Tn((2, 3), "int32", -1, 2), as_tuple=True),)
    self_ = operand_def(ValueTensorType)
    as_tuple = operand_def(BoolType)
    result = result_def(ListType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        if args[1] is False:
            raise TypeError("nonzero(x, as_tuple=False) is not supported: write torch.nonzero(x)")
        if args[1] is not True:
            raise TypeError("nonzero(): as_tuple must be known while scripting")
        return super().infer(*args)

    @staticmethod
    def eager(x: Any, as_tuple: bool = True) -> Any:
        return _IndexColumnsOp.eager(x)


OPS = (
    AtenNonzeroOp,
    AtenArgwhereOp,
    AtenWhereOp,
    AtenNonzeroNumpyOp,
)
