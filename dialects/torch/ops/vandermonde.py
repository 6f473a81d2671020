"""`torch.vander(x, N=None, increasing=False)`: the Vandermonde matrix of a 1-D tensor, its
columns the powers of x (`x ** (N - 1)` first, unless `increasing`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import INT64
from dialects.torch.meta import ShapeError
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.aten_lookup import aten
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.types import DYN, BoolType, IntType, NoneType, ValueTensorType


def _columns(x: Any, n: Any) -> Any:
    """N (the column count), with torch's checks; x.shape[0] by default."""
    if n is None:
        return x.shape[0] if x.shape is not None else DYN
    if not isinstance(n, int):
        raise TypeError("vander: `N` must be a constant")
    if n < 0:
        raise ShapeError("N must be non-negative.")
    return n


@torch_op
class AtenVanderOp(TorchOp):
    """`torch.vander`: [len(x), N]; integers and bools give int64, floats keep their dtype."""

    name = "torch.aten.vander"
    SCHEMA = "aten::vander(Tensor x, int? N=None, bool increasing=False) -> Tensor"
    PY_NAMES = ("torch.vander", "np.vander")
    SAMPLES = (Sample(Tn((3,), "int32", -3, 3), 4, True),)
    x = operand_def(ValueTensorType)
    N = operand_def(IntType | NoneType)
    increasing = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, n, _ = args
        dtype = x.dtype if x.dtype is None or x.dtype.is_float else INT64
        if x.rank not in (None, 1):
            raise ShapeError("x must be a one-dimensional tensor.")
        rows = x.shape[0] if x.shape is not None else DYN
        return [ValueTensorType((rows, _columns(x, n)), dtype)]

    @staticmethod
    def eager(x: Any, n: Any = None, increasing: bool = False) -> Any:
        if x.dtype.kind != "f":
            x = x.astype(np.int64)
        n = len(x) if n is None else n
        return np.vander(x, n, increasing=increasing)

    def decompose(self) -> Any:
        """`x[:, None] ** arange(N)` (flipped unless increasing); ints widened to int64."""
        x, n, increasing = self.operands
        if known_rank(x) is None:
            return None
        seq = OpSequence()
        columns = arg_value(n)
        columns = seq.size(x, 0) if columns is None else columns
        if not self.result.type.element.is_float:  # type: ignore[attr-defined]
            x = seq.call(aten("to.dtype"), x, INT64.scalar_type, False, False, None)
        exponents = seq.call(aten("arange"), columns, INT64.scalar_type)
        powers = seq.call(aten("pow.Tensor_Tensor"), seq.call(aten("unsqueeze"), x, 1), exponents)
        if arg_value(increasing) is not True:
            seq.call(aten("flip"), powers, [1])
        return seq.ops


OPS = (AtenVanderOp,)
