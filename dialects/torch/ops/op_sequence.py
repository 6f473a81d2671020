"""`OpSequence`: builds the ops of a `decompose` hook, one registered op at a time.

`seq.call(AtenFlipOp, x, [1])` materializes Python constants (ints, floats, bools, None, int
lists) as `torch.constant.*` / `torch.prim.ListConstruct` ops, builds the op with the result
types of its shape rule, and returns its first result; `seq.ops` is the hook's answer (the
last op's results replace the decomposed op, or those a `Decomposition` names).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.ir import Operation, SSAValue

from dialects.torch.op_base import TorchOp
from dialects.torch.ops.prim import (
    ConstantBoolOp,
    ConstantFloatOp,
    ConstantIntOp,
    ConstantNoneOp,
    PrimListConstructOp,
)
from dialects.torch.types import IntType, ValueTensorType


class OpSequence:
    """The ops built so far, in order."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> Operation:
        self.ops.append(op)
        return op

    def value(self, value: Any) -> SSAValue:
        """An SSA value for `value` (an SSA value itself, or a Python constant / int list)."""
        if isinstance(value, SSAValue):
            return value
        if value is None:
            return self.add(ConstantNoneOp()).results[0]
        if isinstance(value, bool):
            return self.add(ConstantBoolOp(value)).results[0]
        if isinstance(value, int):
            return self.add(ConstantIntOp(value)).results[0]
        if isinstance(value, float):
            return self.add(ConstantFloatOp(value)).results[0]
        if isinstance(value, list | tuple):
            return self.list_of([self.value(v) for v in value])
        raise TypeError(f"OpSequence: no constant for {value!r}")

    def list_of(self, elements: Sequence[SSAValue]) -> SSAValue:
        """A `torch.prim.ListConstruct` of ints or of tensors."""
        element_type = elements[0].type if elements else IntType()
        return self.add(PrimListConstructOp(list(elements), element_type)).results[0]

    def call(self, op: type[TorchOp], *args: Any) -> SSAValue:
        """`op` of `args` (every schema argument, in order); its first result."""
        built = op.build([self.value(a) for a in args])
        self.add(built)
        return built.results[0]

    def size(self, x: SSAValue, dim: int) -> Any:
        """The size of `x`'s dim as a Python int when static, else an `aten.size.int` value."""
        from dialects.torch.ops.data_movement import AtenSizeIntOp

        assert isinstance(x.type, ValueTensorType) and x.type.sizes is not None
        static = x.type.sizes[dim]
        return static if static >= 0 else self.call(AtenSizeIntOp, x, dim)

    def sizes(self, x: SSAValue) -> list[Any]:
        """Every size of `x` (ints, or `aten.size.int` values where dynamic)."""
        assert isinstance(x.type, ValueTensorType) and x.type.rank is not None
        return [self.size(x, d) for d in range(x.type.rank)]


class Decomposition(list):  # type: ignore[type-arg]
    """A `decompose` answer whose values replacing the op's results are not the last op's
    (`lowering/torch_opt/decompose.py` reads `results`)."""

    def __init__(self, ops: list[Any], results: list[SSAValue]) -> None:
        super().__init__(ops)
        self.results = results


def known_rank(value: SSAValue) -> int | None:
    """The rank of a tensor value, None while unknown."""
    typ = value.type
    return typ.rank if isinstance(typ, ValueTensorType) else None
