"""Unrolls loops with a small constant trip count into straight-line code (`torch-unroll-loops`).

**Expects:** `func.func`s in the torch dialect; run `torch-canonicalize` first so trip counts
such as `__range_length(0, 4, 1)` are constants.
**Produces:** every `torch.prim.Loop` whose trip count is a constant of at most
`max-trip-count`, whose initial condition is constant true and whose body always goes on
(its `prim.Loop.condition` is constant true: no `break`, no `while` test) replaced by that many
copies of its body, each with the iteration number as a `torch.constant.int` and the values
the previous copy carried. Loops nested in an unrolled loop are copied with it and unrolled in
turn when they qualify. Other loops are left as they are. Run `torch-canonicalize` afterwards
to fold the now-constant index maths.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dialects.torch.folding import constant_value
from dialects.torch.ops.prim import ConstantIntOp, PrimLoopConditionOp, PrimLoopOp
from lowering.torch_opt.ir_utils import constant_name, refine_module


def constant_trip_count(loop: PrimLoopOp) -> int | None:
    """The exact number of iterations when it is a constant and the body never stops early."""
    condition = loop.body.block.last_op
    assert isinstance(condition, PrimLoopConditionOp)
    trip_count = constant_value(loop.max_trip_count)
    if constant_value(loop.initial_condition) is not True:
        return None
    if constant_value(condition.should_continue) is not True:
        return None
    return max(trip_count, 0) if isinstance(trip_count, int) else None


def unroll(loop: PrimLoopOp, trip_count: int) -> None:
    """Replace `loop` by `trip_count` copies of its body, threading the carried values."""
    body = loop.body.block
    condition = body.last_op
    assert isinstance(condition, PrimLoopConditionOp)
    carried: list[SSAValue] = list(loop.iter_args)
    for iteration in range(trip_count):
        index = ConstantIntOp(iteration)
        index.result.name_hint = constant_name(iteration)
        Rewriter.insert_op(index, InsertPoint.before(loop))
        mapping: dict[SSAValue, SSAValue] = {body.args[0]: index.result}
        mapping.update(zip(body.args[1:], carried))
        for op in body.ops:
            if op is condition:
                break
            Rewriter.insert_op(op.clone(value_mapper=mapping), InsertPoint.before(loop))
        carried = [mapping.get(v, v) for v in condition.iter_args]
    Rewriter.replace_op(loop, [], carried)


@dataclass(frozen=True)
class TorchUnrollLoopsPass(ModulePass):
    """Straight-line code for `prim.Loop`s of at most `max-trip-count` iterations."""

    name = "torch-unroll-loops"
    max_trip_count: int = 8

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        unrolled = False
        while (found := self._next_loop(op)) is not None:
            unroll(*found)
            unrolled = True
        if unrolled:
            refine_module(op)  # the carried values may be more precise than the loop's results

    def _next_loop(self, module: ModuleOp) -> tuple[PrimLoopOp, int] | None:
        for loop in module.walk():
            if not isinstance(loop, PrimLoopOp):
                continue
            count = constant_trip_count(loop)
            if count is not None and count <= self.max_trip_count:
                return loop, count
        return None
