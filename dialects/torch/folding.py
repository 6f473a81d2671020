"""Helpers for the ops' `fold` hooks: compile-time values of operands, identity elements.

`torch-canonicalize` calls `op.fold()`; an op's hook is usually one line built from these,
e.g. `x * 1 -> x` is `fold_to_self(self, lambda other: other == 1)`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.ir import SSAValue

from dialects.torch.op_base import ConstantLikeOp, TorchOp
from dialects.torch.types import DYN, ValueTensorType


class _NotConstant:
    def __repr__(self) -> str:
        return "NOT_CONSTANT"


NOT_CONSTANT: Any = _NotConstant()
"""What `constant_value` gives for a value only known at run time."""


def constant_value(value: SSAValue) -> Any:
    """The Python value of a compile-time constant (scalars, None, str, lists of them)."""
    owner = value.owner
    if not isinstance(owner, ConstantLikeOp):
        return NOT_CONSTANT
    python = owner.python_value()
    return python if _fully_known(python) else NOT_CONSTANT


def _fully_known(value: Any) -> bool:
    if isinstance(value, list | tuple):
        return all(_fully_known(v) for v in value)
    return value is None or isinstance(value, bool | int | float | str)


def is_fully_typed_as(value: SSAValue, typ: Any) -> bool:
    """Whether `value` is a tensor of known rank and dtype and has exactly type `typ`."""
    return (
        isinstance(value.type, ValueTensorType) and value.type.is_fully_known and value.type == typ
    )


def fold_to_self(op: TorchOp, is_identity: Callable[..., bool]) -> Sequence[SSAValue] | None:
    """`[self]` when `op`'s other arguments are constants for which `op` leaves `self` alone.

    `is_identity` takes those constants by schema name (`lambda other, alpha: other * alpha
    == 0`). The fold also needs the result type to equal `self`'s: broadcasting or dtype
    promotion (`int_tensor * 1.0` is float) makes the op more than an identity.
    """
    names = [a.name for a in op.parsed_schema().arguments]
    operands = dict(zip(names, op.operands, strict=True))
    x = operands.pop("self")
    constants = {name: constant_value(v) for name, v in operands.items()}
    if any(c is NOT_CONSTANT for c in constants.values()):
        return None
    if not is_fully_typed_as(x, op.results[0].type):
        return None
    return [x] if is_identity(**constants) else None


def fold_static_size(tensor: SSAValue, dim: SSAValue | int | None = None) -> Sequence[int] | None:
    """`[x.size(dim)]` when the type of `x` makes that dim static (`dim` None: the rank)."""
    typ = tensor.type
    sizes = typ.sizes if isinstance(typ, ValueTensorType) else None
    if sizes is None:
        return None
    if dim is None:
        return [len(sizes)]
    index = dim if isinstance(dim, int) else constant_value(dim)
    if not isinstance(index, int) or not -len(sizes) <= index < len(sizes):
        return None
    size = sizes[index]
    return None if size == DYN else [size]
