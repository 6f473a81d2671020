"""Writing into a part of a tensor, as values: `select_scatter` and `slice_scatter` (what a
scripted `x[i] = v` / `x[:, a:b] = v` becomes: a new tensor equal to `x` except there).

`src` has the shape of the part (`x.select(dim, index)` / `x.slice(dim, start, end, step)`)
and is converted to `x`'s dtype, as an assignment into a tensor does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.data_movement import AtenSelectIntOp, AtenSliceTensorOp, constant_dim
from dialects.torch.types import DYN, IntType, NoneType, ValueTensorType


def _check_part(op_name: str, part: list[Attribute], src: TensorMeta) -> None:
    """`src` must have the part's shape (`?` dims agree with anything)."""
    (expected,) = part
    sizes = expected.sizes if isinstance(expected, ValueTensorType) else None
    if sizes is None or src.shape is None:
        return
    agree = len(sizes) == len(src.shape) and all(
        a == b or DYN in (a, b) for a, b in zip(sizes, src.shape)
    )
    if not agree:
        raise ShapeError(
            f"{op_name}: expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(sizes)}"
        )


@torch_op
class AtenSelectScatterOp(TorchOp):
    """`x` with `x[..., index, ...]` (at `dim`) replaced by `src`."""

    name = "torch.aten.select_scatter"
    SCHEMA = "aten::select_scatter(Tensor self, Tensor src, int dim, int index) -> Tensor"
    PY_NAMES = ("torch.select_scatter",)
    SAMPLES = (
        Sample(Tn((3, 4)), Tn((4,)), 0, 1),
        Sample(Tn((2, 3), "int64"), Tn((2,), "int64"), 1, -1),
    )
    self_ = operand_def(ValueTensorType)
    src = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    index = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, src, dim, index = args
        constant_dim("select_scatter", dim, x)
        _check_part("select_scatter", AtenSelectIntOp.infer(x, dim, index), src)
        return [ValueTensorType(x.shape, x.dtype)]

    @staticmethod
    def eager(x: Any, src: Any, dim: int, index: int) -> Any:
        out = np.array(x, copy=True)
        out[(slice(None),) * (dim % x.ndim) + (index,)] = src
        return out


@torch_op
class AtenSliceScatterOp(TorchOp):
    """`x` with `x[..., start:end:step, ...]` (at `dim`) replaced by `src`."""

    name = "torch.aten.slice_scatter"
    SCHEMA = (
        "aten::slice_scatter(Tensor self, Tensor src, int dim=0, int? start=None, "
        "int? end=None, int step=1) -> Tensor"
    )
    PY_NAMES = ("torch.slice_scatter",)
    SAMPLES = (
        Sample(Tn((5, 4)), Tn((2, 4)), 0, 1, 3, 1),
        Sample(Tn((3, 6)), Tn((3, 3)), 1, None, None, 2),
        Sample(Tn((3, 6)), Tn((3, 2)), 1, -3, -1, 1),
    )
    self_ = operand_def(ValueTensorType)
    src = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    start = operand_def(IntType | NoneType)
    end = operand_def(IntType | NoneType)
    step = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, src, dim, start, end, step = args
        _check_part("slice_scatter", AtenSliceTensorOp.infer(x, dim, start, end, step), src)
        return [ValueTensorType(x.shape, x.dtype)]

    @staticmethod
    def eager(
        x: Any, src: Any, dim: int = 0, start: Any = None, end: Any = None, step: int = 1
    ) -> Any:
        out = np.array(x, copy=True)
        out[(slice(None),) * (dim % x.ndim) + (slice(start, end, step),)] = src
        return out


OPS = (
    AtenSelectScatterOp,
    AtenSliceScatterOp,
)
