"""`torch.rot90(x, k=1, dims=[0, 1])`: a rotation by 90 degrees k times in the plane of two
dims, from the first towards the second (a flip and a transpose)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.aten_lookup import aten
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.types import IntType, ListType, ValueTensorType


def rotation_dims(dims: Any, rank: int) -> tuple[int, int]:
    """The two dims, non-negative, with torch's checks and messages."""
    if not isinstance(dims, list | tuple):
        raise TypeError("rot90: `dims` must be a constant list of two ints")
    if len(dims) != 2:
        raise ShapeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if rank < 2:
        raise ShapeError(f"expected total dims >= 2, but got total dims = {rank}")
    first, second = (normalize_dim(d, rank) for d in dims)
    if first == second:
        raise ShapeError(
            f"expected rotation dims to be different, but got dim0 = {first} and dim1 = {second}"
        )
    return first, second


@torch_op
class AtenRot90Op(TorchOp):
    """`torch.rot90` / `x.rot90(k, dims)`: k % 4 quarter turns (k may be negative)."""

    name = "torch.aten.rot90"
    SCHEMA = "aten::rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor"
    PY_NAMES = ("torch.rot90", "Tensor.rot90", "np.rot90")
    SAMPLES = (Sample(Tn((2, 3, 4)), -3, [2, 0]),)
    self_ = operand_def(ValueTensorType)
    k = operand_def(IntType)
    dims = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, k, dims = args
        if x.rank is None:
            return [ValueTensorType(None, x.dtype)]
        first, second = rotation_dims(dims, x.rank)
        if not isinstance(k, int):
            raise TypeError("rot90: `k` must be a constant")
        shape = list(x.shape)
        if k % 2:
            shape[first], shape[second] = shape[second], shape[first]
        return [ValueTensorType(tuple(shape), x.dtype)]

    @staticmethod
    def eager(x: Any, k: int = 1, dims: Any = (0, 1)) -> Any:
        return np.rot90(x, k, axes=tuple(dims)).copy()

    def decompose(self) -> Any:
        """torch's: k=1 flips the second dim then transposes, k=2 flips both, k=3 flips the
        first then transposes, k=0 is a copy."""
        x, k, dims = self.operands
        rank = known_rank(x)
        if rank is None:
            return None
        first, second = rotation_dims(arg_value(dims), rank)
        turns = arg_value(k) % 4
        seq = OpSequence()
        if turns == 0:
            seq.call(aten("clone"), x, None)
        elif turns == 2:
            seq.call(aten("flip"), x, [first, second])
        else:
            flipped = seq.call(aten("flip"), x, [second if turns == 1 else first])
            seq.call(aten("transpose.int"), flipped, first, second)
        return seq.ops


OPS = (AtenRot90Op,)
