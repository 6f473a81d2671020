"""`einsum` as an op: what the script frontend emits when an operand's rank is unknown while
scripting (a `...` to resolve, sizes of 1 to broadcast), decomposed by `torch-decompose` once
the call's signature gives the ranks and the dims of size 1, through the plan of
`dialects/torch/einsum_plan.py` (the one the frontend runs when it knows the ranks): diagonals,
sums, squeezes of broadcast size-1 dims, permutes, reshapes and one `bmm` per pair.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.einsum_plan import EinsumError, expand_ellipsis, plan_einsum, run_einsum
from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.diagonals import AtenDiagonalOp
from dialects.torch.ops.joining import promoted_dtype, tensor_list
from dialects.torch.ops.linear import AtenBmmOp
from dialects.torch.ops.op_sequence import Decomposition, OpSequence, known_rank
from dialects.torch.ops.prim import PrimListConstructOp
from dialects.torch.ops.reduction import AtenSumDimIntListOp
from dialects.torch.ops.scalars import AtenMulIntOp
from dialects.torch.ops.views import AtenPermuteOp, AtenReshapeOp, AtenSqueezeDimOp
from dialects.torch.types import DYN, ListType, NoneType, StrType, ValueTensorType


class _SequenceOps:
    """`EinsumOps` building torch ops into an `OpSequence` (sizes static where known)."""

    def __init__(self, s: OpSequence) -> None:
        self.s = s

    def size(self, x: SSAValue, dim: int) -> Any:
        return self.s.size(x, dim)

    def mul(self, a: Any, b: Any) -> Any:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        return b if a == 1 else self.s.call(AtenMulIntOp, a, b)

    def sum(self, x: SSAValue, dims: list[int]) -> SSAValue:
        return self.s.call(AtenSumDimIntListOp, x, dims, False, None)

    def permute(self, x: SSAValue, dims: list[int]) -> SSAValue:
        return self.s.call(AtenPermuteOp, x, dims)

    def reshape(self, x: SSAValue, sizes: list[Any]) -> SSAValue:
        return self.s.call(AtenReshapeOp, x, sizes)

    def bmm(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.s.call(AtenBmmOp, a, b)

    def rank(self, x: SSAValue) -> int | None:
        return known_rank(x)

    def diagonal(self, x: SSAValue, dim1: int, dim2: int) -> SSAValue:
        return self.s.call(AtenDiagonalOp, x, 0, dim1, dim2)

    def squeeze(self, x: SSAValue, dim: int) -> SSAValue:
        return self.s.call(AtenSqueezeDimOp, x, dim)


def output_shape(equation: str, tensors: list[TensorMeta]) -> tuple[int, ...]:
    """The result's sizes: per output subscript the operands' size (1 only if all are 1)."""
    plan = expand_ellipsis(plan_einsum(equation, len(tensors)), [t.rank for t in tensors])
    sizes: dict[str, int] = {}
    for subscripts, t in zip(plan.inputs, tensors, strict=True):
        assert t.shape is not None
        if len(subscripts) != len(t.shape):
            raise ShapeError(
                f"einsum(): the number of subscripts in the equation ({len(subscripts)}) does "
                f"not match the number of dimensions ({len(t.shape)}) for operand"
            )
        for s, n in zip(subscripts, t.shape, strict=True):
            known = sizes.get(s, 1)
            sizes[s] = n if known == 1 else known if n in (1, DYN) else n
    return tuple(sizes[s] for s in plan.output)


@torch_op
class AtenEinsumOp(TorchOp):
    """`torch.einsum(equation, *tensors)` (`path` is ignored: operands contract left to right)."""

    name = "torch.aten.einsum"
    SCHEMA = "aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor"
    PY_NAMES = ()  # the script frontend emits it (frontend/script/einsum.py)
    SAMPLES = (
        Sample("ij,ij->ij", [Tn((1, 4)), Tn((3, 4))]),
        Sample("...ij,...jk->...ik", [Tn((2, 1, 3, 4)), Tn((5, 4, 2))]),
    )
    equation = operand_def(StrType)
    tensors = operand_def(ListType)
    path = operand_def(ListType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        equation, tensors = args[0], tensor_list("einsum", args[1])
        if not isinstance(equation, str):
            raise TypeError("einsum: the equation must be a constant string")
        dtype = promoted_dtype(tensors)
        if any(t.shape is None for t in tensors):
            return [ValueTensorType(None, dtype)]
        try:
            return [ValueTensorType(output_shape(equation, tensors), dtype)]
        except EinsumError as err:
            raise ShapeError(str(err)) from None

    @staticmethod
    def eager(equation: str, tensors: Any, path: Any = None) -> Any:
        return np.einsum(equation, *tensors)

    def decompose(self) -> Any:
        owner = self.tensors.owner
        if not isinstance(owner, PrimListConstructOp):
            return None
        operands = list(owner.elements)
        if any(known_rank(x) is None for x in operands):
            return None
        s = OpSequence()
        equation = self.arg_values()[0]
        result = run_einsum(plan_einsum(equation, len(operands)), operands, _SequenceOps(s))
        return Decomposition(s.ops, [result])


OPS = (AtenEinsumOp,)
