"""Hoists loop-invariant `memref.load`s out of `scf.for` / `scf.parallel` loops.

After loop fusion a row loop often reads a per-row value (a max, a sum, a mean) inside its
inner loop: `x[i, j] - m[i, 0]` for every `j`. LLVM cannot hoist that load itself, because
numba gives it no aliasing facts about the arrays the loop stores to, so it would reload it
on every iteration (and may not vectorize). This pass moves such a load in front of the
loop when its indices are defined outside the loop and nothing in the loop writes its buffer
(no `memref.store` / `memref.copy` into it, no call). Indices that are outer induction
variables or constants are in bounds there whenever the load was reached before, since the
loops stage only indexes a size-1 dim with a constant.

**Expects:** the `loops` stage.

**Produces:** the `loops` stage with invariant loads in front of their loops.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

LOOPS = (scf.ForOp, scf.ParallelOp)


def root(buffer: SSAValue) -> SSAValue:
    while isinstance(buffer, OpResult) and isinstance(buffer.op, memref.CastOp):
        buffer = buffer.op.source
    return buffer


def written_buffers(loop: Operation) -> set[SSAValue] | None:
    """The buffers `loop` may write, or None if it holds an op that may write anything."""
    written: set[SSAValue] = set()
    for op in loop.walk():
        if isinstance(op, memref.StoreOp):
            written.add(root(op.memref))
        elif isinstance(op, memref.CopyOp):
            written.add(root(op.destination))
        elif op.dialect_name() == "func":
            return None
    return written


def is_defined_outside(value: SSAValue, loop: Operation) -> bool:
    owner = value.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    return op is None or not loop.is_ancestor(op)


def hoist_from(loop: Operation) -> bool:
    """Moves the invariant loads directly in `loop`'s body in front of it."""
    written = written_buffers(loop)
    if written is None:
        return False
    moved = False
    for block in (b for region in loop.regions for b in region.blocks):
        for op in list(block.ops):
            if not isinstance(op, memref.LoadOp) or root(op.memref) in written:
                continue
            if all(is_defined_outside(v, loop) for v in op.operands):
                op.detach()
                Rewriter.insert_op(op, InsertPoint.before(loop))
                moved = True
    return moved


@dataclass(frozen=True)
class ScfHoistInvariantLoadsPass(ModulePass):
    """Moves loop-invariant loads out of loops, innermost loops first (see above)."""

    name = "scf-hoist-invariant-loads"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        changed = True
        while changed:
            loops = [o for o in op.walk(region_first=True) if isinstance(o, LOOPS)]
            changed = any([hoist_from(loop) for loop in loops])
