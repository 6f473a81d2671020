"""`torch.diff(x, n=1, dim=-1, prepend=None, append=None)`: the n-th forward difference along a
dim (`x[1:] - x[:-1]`, repeated n times; for bool, `x[1:] != x[:-1]`), after `prepend` and
`append` are joined to x along that dim."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import result_type
from dialects.torch.meta import ShapeError, TensorMeta, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.aten_lookup import aten
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.types import DYN, IntType, NoneType, ValueTensorType


def _joined(x: TensorMeta, extras: list[TensorMeta], dim: int) -> tuple[int, ...] | None:
    """x's shape with the extras' sizes along `dim` added (their ranks checked)."""
    if x.shape is None:
        return None
    size = x.shape[dim]
    for extra in extras:
        if extra.rank is not None and extra.rank != x.rank:
            raise ShapeError("diff expects prepend or append to be the same dimension as input")
        extra_size = extra.shape[dim] if extra.shape is not None else DYN
        size = DYN if DYN in (size, extra_size) else size + extra_size
    return (*x.shape[:dim], size, *x.shape[dim + 1 :])


@torch_op
class AtenDiffOp(TorchOp):
    """n-th forward difference along `dim` (`torch.diff`, `x.diff()`); torch's checks: rank
    >= 1, n >= 0, prepend / append of x's rank."""

    name = "torch.aten.diff"
    SCHEMA = (
        "aten::diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, "
        "Tensor? append=None) -> Tensor"
    )
    PY_NAMES = ("torch.diff", "Tensor.diff", "np.diff")
    SAMPLES = (Sample(Tn((4, 3), "int64", -9, 9), 2, 0, Tn((1, 3), "int64", -9, 9), None),)
    self_ = operand_def(ValueTensorType)
    n = operand_def(IntType)
    dim = operand_def(IntType)
    prepend = operand_def(ValueTensorType | NoneType)
    append = operand_def(ValueTensorType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, n, dim, prepend, append = args
        extras = [e for e in (prepend, append) if isinstance(e, TensorMeta)]
        dtypes = [(t.dtype, t.rank or 0) for t in (x, *extras)]
        dtype = None if any(d is None for d, _ in dtypes) else result_type(dtypes, [])
        if x.rank is None:
            return [ValueTensorType(None, dtype)]
        if x.rank == 0:
            raise ShapeError("diff expects input to be at least one-dimensional")
        if not isinstance(n, int) or not isinstance(dim, int):
            raise TypeError("diff: `n` and `dim` must be constants")
        if n < 0:
            raise ShapeError(f"order must be non-negative but got {n}")
        axis = normalize_dim(dim, x.rank)
        shape = _joined(x, extras, axis)
        if shape is None:
            return [ValueTensorType(None, dtype)]
        size = shape[axis] if shape[axis] == DYN else max(shape[axis] - n, 0)
        return [ValueTensorType((*shape[:axis], size, *shape[axis + 1 :]), dtype)]

    @staticmethod
    def eager(x: Any, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Any:
        parts = [p for p in (prepend, x, append) if p is not None]
        joined = np.concatenate(parts, axis=dim) if len(parts) > 1 else x
        for _ in range(n):
            later = np.take(joined, range(1, joined.shape[dim]), axis=dim)
            earlier = np.take(joined, range(joined.shape[dim] - 1), axis=dim)
            joined = later != earlier if joined.dtype == bool else later - earlier
        return joined

    def decompose(self) -> Any:
        x, n, dim, prepend, append = self.operands
        rank = known_rank(x)
        if rank is None:
            return None
        axis = normalize_dim(arg_value(dim), rank)
        seq = OpSequence()
        parts = [p for p in (prepend, x, append) if isinstance(p.type, ValueTensorType)]
        current = seq.call(aten("cat"), seq.list_of(parts), axis) if len(parts) > 1 else x
        for _ in range(arg_value(n)):
            later = seq.call(aten("slice.Tensor"), current, axis, 1, None, 1)
            earlier = seq.call(aten("slice.Tensor"), current, axis, 0, -1, 1)
            if _is_bool(current):
                current = seq.call(aten("logical_xor"), later, earlier)
            else:
                current = seq.call(aten("sub.Tensor"), later, earlier, 1)
        if not seq.ops:
            seq.call(aten("clone"), x, None)
        return seq.ops


def _is_bool(value: Any) -> bool:
    element = value.type.element
    return element is not None and element.is_bool  # type: ignore[no-any-return]


OPS = (AtenDiffOp,)
