"""IR helpers shared by the torch passes: constants, scalar kinds, region values, rebuilding."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import PassFailedException

from dialects.torch.op_base import types_compatible
from dialects.torch.ops.prim import constant_op_for
from dialects.torch.types import BoolType, FloatType, IntType
from lowering.torch_opt.refine_types import refine_function

INT64_RANGE = range(-(2**63), 2**63)


def scalar_constant(value: Any, typ: Attribute) -> Any:
    """`value` as the Python constant of a `!torch.int/float/bool` result, or None if it is not one.

    Ints outside int64 are refused: the compiled code would wrap around.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(typ, BoolType) and isinstance(value, bool | int):
        return bool(value)
    if isinstance(value, bool):
        return None
    if isinstance(typ, IntType) and isinstance(value, int):
        return value if value in INT64_RANGE else None
    if isinstance(typ, FloatType) and isinstance(value, int | float):
        return float(value)
    return None


def is_scalar_type(typ: Attribute) -> bool:
    return isinstance(typ, IntType | FloatType | BoolType)


def constant_name(value: Any) -> str:
    """The SSA name the frontend gives constants: `%int3`, `%int_m1`, `%true`, `%float`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"int{value}" if value >= 0 else f"int_m{-value}"
    return "float" if isinstance(value, float) else "none"


def materialize(rewriter: PatternRewriter, value: Any, before: Operation) -> SSAValue:
    """A `torch.constant.*` holding `value`, inserted before `before`."""
    constant = constant_op_for(value)
    constant.results[0].name_hint = constant_name(value)
    rewriter.insert(constant, InsertPoint.before(before))
    return constant.results[0]


def replace_results(rewriter: PatternRewriter, op: Operation, values: Sequence[Any]) -> None:
    """Replace `op` by existing SSA values and Python constants (materialized before `op`)."""
    new: list[SSAValue] = []
    for result, value in zip(op.results, values, strict=True):
        if not isinstance(value, SSAValue):
            value = materialize(rewriter, value, op)
        elif not types_compatible(value.type, result.type):
            raise PassFailedException(
                f"{op.name}: folded to a value of type {value.type}, but the result has type "
                f"{result.type}"
            )
        new.append(value)
    rewriter.replace(op, [], new)


def defined_outside(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is defined outside `op` (so it is visible after `op` is gone)."""
    owner = value.owner
    defining = owner if isinstance(owner, Operation) else owner.parent_op()
    return defining is None or not op.is_ancestor(defining)


def inline_block_before(rewriter: PatternRewriter, block: Block, op: Operation,
                        args: Sequence[SSAValue] = ()) -> list[SSAValue]:  # fmt: skip
    """Move `block`'s ops before `op`, binding its arguments; give what its terminator passed on.

    The terminator is erased; for a `prim.Loop` body the carried values are returned.
    """
    terminator = block.last_op
    assert terminator is not None, "a prim region ends in its terminator"
    passed = list(terminator.operands)
    rewriter.erase(terminator)
    rewriter.inline_block(block, InsertPoint.before(op), args)
    return passed


def refine_module(module: ModuleOp) -> None:
    """Recompute every type from the shape rules, so folded values' precise types propagate."""
    for function in module.ops:
        if isinstance(function, func.FuncOp):
            refine_function(function)
