"""Helpers for the ops' `fold` hooks: compile-time values of operands, identity elements.

`torch-canonicalize` calls `op.fold()`; an op's hook is usually one line built from these,
e.g. `x * 1 -> x` is `fold_to_self(self, lambda other: other == 1)`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from dialects.torch.op_base import ConstantLikeOp, TorchOp
from dialects.torch.types import DYN, ValueTensorType


class _NotConstant:
    def __repr__(self) -> str:
        return "NOT_CONSTANT"


NOT_CONSTANT: Any = _NotConstant()
"""What `constant_value` gives for a value only known at run time."""


def constant_value(value: SSAValue) -> Any:
    """The Python value of a compile-time constant (scalars, None, str, tensor literals as
    numpy arrays, lists of them)."""
    owner = value.owner
    if not isinstance(owner, ConstantLikeOp):
        return NOT_CONSTANT
    python = owner.python_value()
    return python if _fully_known(python) else NOT_CONSTANT


def _fully_known(value: Any) -> bool:
    if isinstance(value, list | tuple):
        return all(_fully_known(v) for v in value)
    return value is None or isinstance(value, bool | int | float | str | np.ndarray)


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
    if any(isinstance(v.type, ValueTensorType) for v in operands.values()):
        return None  # a tensor `other` may broadcast: only scalar identities fold
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


# ---- data movement: ops that undo each other or change nothing ----


def _constant_dims(tensor: SSAValue, dims: Sequence[SSAValue | int]) -> list[int] | None:
    """Constant dims made non-negative against `tensor`'s rank; None if unknown or invalid."""
    typ = tensor.type
    rank = typ.rank if isinstance(typ, ValueTensorType) else None
    values = [d if isinstance(d, int) else constant_value(d) for d in dims]
    if rank is None or not all(isinstance(v, int) and -rank <= v < max(rank, 1) for v in values):
        return None
    return [v % max(rank, 1) for v in values]


def fold_same_type(op: TorchOp) -> Sequence[SSAValue] | None:
    """`[self]` for a shape-only op whose result type is exactly `self`'s, fully known.

    At most one dim may be `?` and none 0: then equal types force equal shapes for ops that
    keep the element count (reshape, squeeze, flatten).
    """
    x = op.operands[0]
    if not is_fully_typed_as(x, op.results[0].type):
        return None
    sizes = x.type.sizes or ()  # type: ignore[attr-defined]
    return [x] if sizes.count(DYN) <= 1 and 0 not in sizes else None


def fold_reshape(op: TorchOp, reshapes: tuple[type[TorchOp], ...]) -> Sequence[Any] | None:
    """Reshape of a reshape reads the first one's input (in place); an identity is `self`."""
    inner = op.operands[0].owner
    if isinstance(inner, reshapes):
        op.operands = (inner.operands[0], *op.operands[1:])
        return list(op.results)
    return fold_same_type(op)


def fold_double_transpose(op: TorchOp) -> Sequence[SSAValue] | None:
    """`transpose(transpose(x, a, b), a, b) -> x`; `transpose(x, a, a) -> x`."""
    x = op.operands[0]
    dims = _constant_dims(x, op.operands[1:])
    if dims is None:
        return None
    if dims[0] == dims[1]:
        return [x]
    inner = x.owner
    if not isinstance(inner, type(op)):
        return None
    inner_dims = _constant_dims(inner.operands[0], inner.operands[1:])
    return [inner.operands[0]] if inner_dims and set(inner_dims) == set(dims) else None


def fold_double_permute(op: TorchOp) -> Sequence[SSAValue] | None:
    """`permute(x, identity) -> x`; permutes that compose to the identity give `x`."""
    x = op.operands[0]
    order = constant_value(op.operands[1])
    dims = _constant_dims(x, order) if isinstance(order, list) else None
    if dims is None:
        return None
    if dims == sorted(dims):
        return [x]
    inner = x.owner
    if not isinstance(inner, type(op)):
        return None
    inner_order = constant_value(inner.operands[1])
    inner_dims = (
        _constant_dims(inner.operands[0], inner_order) if isinstance(inner_order, list) else None
    )
    if inner_dims is None or [inner_dims[d] for d in dims] != sorted(dims):
        return None
    return [inner.operands[0]]


def fold_double_t(op: TorchOp) -> Sequence[SSAValue] | None:
    """`t(x) -> x` for 0-D and 1-D `x`; `t(t(x)) -> x`."""
    x = op.operands[0]
    rank = x.type.rank if isinstance(x.type, ValueTensorType) else None
    if rank is not None and rank <= 1:
        return [x]
    inner = x.owner
    return [inner.operands[0]] if isinstance(inner, type(op)) else None
