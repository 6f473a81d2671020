"""`torch.renorm(x, p, dim, maxnorm)`: each slice along `dim` whose p-norm exceeds `maxnorm` is
scaled down to it (`maxnorm / (norm + 1e-7)`, torch's factor); other slices are kept."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.families import ScalarOperand
from dialects.torch.meta import Dynamic, ShapeError, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.aten_lookup import aten
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.types import IntType, ValueTensorType

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
        axis = normalize_dim(arg_value(dim), rank)
        others = [d for d in range(rank) if d != axis]
        seq = OpSequence()
        norm = seq.call(aten("linalg_vector_norm"), x, p, others, True, None)
        shifted = seq.call(aten("add.Scalar"), norm, EPSILON, 1)
        scale = seq.call(aten("mul.Scalar"), seq.call(aten("reciprocal"), shifted), maxnorm)
        above = seq.call(aten("gt.Scalar"), norm, maxnorm)
        factor = seq.call(aten("where.ScalarOther"), above, scale, 1.0)
        seq.call(aten("mul.Tensor"), x, factor)
        return seq.ops


OPS = (AtenRenormOp,)
