"""Removes dead code in the torch dialect, through `prim.If`/`prim.Loop` regions (`torch-dce`).

**Expects:** `func.func`s in the torch dialect.
**Produces:** the same program without
- `torch.prim.If` results nothing reads (dropped from both branches' yields);
- `torch.prim.Loop`-carried values that nothing after the loop reads and that the body reads
  only to compute their own next value (or other dead carried values);
- then every op whose results are unused and that has no effect, including whole `prim.If`
  and `prim.Loop` ops (xDSL's region DCE; torch ops and the `prim` terminators are Pure).
Repeated until nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.transforms.dead_code_elimination import region_dce, would_be_trivially_dead

from dialects.torch.ops.prim import PrimIfOp, PrimIfYieldOp, PrimLoopConditionOp, PrimLoopOp


def prune_if_results(op: PrimIfOp) -> bool:
    """Drop the results nothing reads; True if the op was rebuilt."""
    live = [i for i, r in enumerate(op.results) if r.uses]
    if len(live) == len(op.results):
        return False
    for region in (op.then_region, op.else_region):
        terminator = region.block.last_op
        assert isinstance(terminator, PrimIfYieldOp)
        Rewriter.replace_op(terminator, PrimIfYieldOp([terminator.values[i] for i in live]))
    new = PrimIfOp.create(
        operands=[op.condition],
        result_types=[op.results[i].type for i in live],
        regions=[Rewriter.move_region_contents_to_new_regions(r) for r in op.regions],
    )
    _replace_live(op, new, live)
    return True


def prune_loop_carried(op: PrimLoopOp) -> bool:
    """Drop the carried values only their own next values depend on; True if rebuilt."""
    body = op.body.block
    live = _live_carried(op)
    if len(live) == len(op.iter_args):
        return False
    condition = body.last_op
    assert isinstance(condition, PrimLoopConditionOp)
    kept = [condition.iter_args[i] for i in live]
    Rewriter.replace_op(condition, PrimLoopConditionOp(condition.should_continue, kept))
    region_dce(op.body)
    for index in reversed(range(len(op.iter_args))):
        if index not in live:
            body.erase_arg(body.args[index + 1])
    new = PrimLoopOp.create(
        operands=[op.max_trip_count, op.initial_condition, *[op.iter_args[i] for i in live]],
        result_types=[op.results[i].type for i in live],
        regions=[Rewriter.move_region_contents_to_new_regions(op.body)],
    )
    _replace_live(op, new, live)
    return True


def _replace_live(old: Operation, new: Operation, live: list[int]) -> None:
    results: list[SSAValue | None] = [None] * len(old.results)
    for position, index in enumerate(live):
        results[index] = new.results[position]
    Rewriter.replace_op(old, new, results)


def _live_carried(op: PrimLoopOp) -> list[int]:
    """Carried values read after the loop, or read in the body by anything that is live."""
    body = op.body.block
    condition = body.last_op
    assert isinstance(condition, PrimLoopConditionOp)
    live = {i for i, r in enumerate(op.results) if r.uses}
    while True:
        roots = [condition.should_continue, *[condition.iter_args[i] for i in live]]
        roots += [v for o in body.ops if not would_be_trivially_dead(o) and o is not condition
                  for v in _all_operands(o)]  # fmt: skip
        needed = _args_reached(body, roots)
        grown = live | {i for i, arg in enumerate(body.args[1:]) if arg in needed}
        if grown == live:
            return sorted(live)
        live = grown


def _all_operands(op: Operation) -> list[SSAValue]:
    """The operands of `op` and of every op nested in its regions."""
    return [v for nested in op.walk() for v in nested.operands]


def _args_reached(body: Block, roots: list[SSAValue]) -> set[SSAValue]:
    """The body's arguments that the backward slice of `roots` (within the body) reaches."""
    seen: set[SSAValue] = set()
    work = list(roots)
    while work:
        value = work.pop()
        if value in seen:
            continue
        seen.add(value)
        owner = value.owner
        if isinstance(owner, Operation) and body.is_ancestor(owner):
            work += _all_operands(owner)
    return {a for a in body.args if a in seen}


def eliminate_dead_code(module: ModuleOp) -> bool:
    """Prune region results and dead ops to a fixed point; True if anything changed."""
    changed_any = False
    while True:
        changed = False
        for op in list(module.walk()):
            if isinstance(op, PrimIfOp) and op.parent is not None:
                changed |= prune_if_results(op)
            elif isinstance(op, PrimLoopOp) and op.parent is not None:
                changed |= prune_loop_carried(op)
        changed |= region_dce(module.body)
        if not changed:
            return changed_any
        changed_any = True


@dataclass(frozen=True)
class TorchDeadCodeEliminationPass(ModulePass):
    """Dead ops, unused `prim.If` results and dead loop-carried values."""

    name = "torch-dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        eliminate_dead_code(op)
