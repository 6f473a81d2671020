"""Fuses neighbouring `scf.parallel` loops along their outer dim (`scf-parallel-loop-fusion`).

After elementwise fusion, a softmax or a layer norm is still several loop nests over the same
rows (a max, a sum, a normalization), each a parallel launch and a pass over memory. This
pass makes them one parallel loop over rows with the row's loops inside:

```
scf.parallel (%i) = (%c0) to (%n) step (%c1) { ... m[%i, 0] = max over j ... }
%buf = memref.alloc(%n)
scf.parallel (%i2) = (%c0) to (%n) step (%c1) { ... x[%i2, j] - m[%i2, 0] ... }
  ==>
%buf = memref.alloc(%n)
scf.parallel (%i) = (%c0) to (%n) step (%c1) { ... m[%i, 0] = ...; ... x[%i, j] - m[%i, 0] ... }
```

Steps: `memref.dim` of a `memref.alloc` folds to the size it was allocated with (so equal
bounds become one SSA value); every multi-dim `scf.parallel` becomes an outer 1-D loop around
an inner `scf.parallel` of the other dims; then each loop absorbs the next loop of its block
when (1) both have no reductions and the same lower bound, upper bound and step; (2) the ops
between them are allocations, `memref.dim`s and pure arith ops, hoisted above the first loop;
(3) every buffer that one loop writes and the other touches is a `memref.alloc` accessed only
by `load`/`store` whose first index is the loop's own outer induction variable, so iteration
`i` of the second loop reads only what iteration `i` of the first one wrote; (4) the fused
loop holds at most `max-ops` ops (`MAX_FUSED_OPS`: kernels of bounded size compile in time
linear in the program's length).

**Expects:** the `loops` stage.

**Produces:** the `loops` stage, with fewer top-level `scf.parallel` ops.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter

HOISTABLE_OPS = (memref.AllocOp, memref.DimOp)
LOCAL_MEMREF_OPS = (
    memref.AllocOp,
    memref.AllocaOp,
    memref.DimOp,
    memref.CastOp,
    memref.GetGlobalOp,
)
"""Memref ops that neither read nor write a buffer element."""

MAX_FUSED_OPS = 800
"""The most ops (counted through nested loops) a fused loop may hold, so that the pieces
`linalg-fuse-elementwise` cut a long straight-line program into stay kernels of bounded size
(LLVM's optimizer is superlinear in a function's size); a softmax or a layer norm is far
below it."""


# ---- normalization ----


class FoldDimOfAlloc(RewritePattern):
    """`memref.dim (memref.alloc %sizes), k` -> the size `k` was allocated with."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.DimOp, rewriter: PatternRewriter) -> None:
        alloc, index = op.source.owner, op.index.owner
        if not isinstance(alloc, memref.AllocOp) or not isinstance(index, arith.ConstantOp):
            return
        assert isinstance(index.value, IntegerAttr)
        dim = index.value.value.data
        memref_type = alloc.memref.type
        assert isinstance(memref_type, MemRefType)
        shape = memref_type.get_shape()
        if shape[dim] >= 0:
            rewriter.replace(op, arith.ConstantOp.from_int_and_width(shape[dim], op.result.type))
            return
        position = sum(1 for size in shape[:dim] if size < 0)
        rewriter.replace(op, (), [alloc.dynamic_sizes[position]])


class SplitOuterDim(RewritePattern):
    """`scf.parallel (%i, %j)` -> `scf.parallel (%i) { scf.parallel (%j) }` (no reductions)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ParallelOp, rewriter: PatternRewriter) -> None:
        if len(op.lowerBound) < 2 or op.initVals:
            return
        body = op.body.block
        inner_block = Block(arg_types=[a.type for a in body.args[1:]])
        for old, new in zip(body.args[1:], inner_block.args):
            new.name_hint = old.name_hint
            old.replace_all_uses_with(new)
        for inner_op in list(body.ops):
            inner_op.detach()
            inner_block.add_op(inner_op)
        inner = scf.ParallelOp(
            list(op.lowerBound[1:]), list(op.upperBound[1:]), list(op.step[1:]),
            Region(inner_block),
        )  # fmt: skip
        outer_block = Block([inner, scf.ReduceOp()], arg_types=[body.args[0].type])
        outer_block.args[0].name_hint = body.args[0].name_hint
        body.args[0].replace_all_uses_with(outer_block.args[0])
        outer = scf.ParallelOp(
            [op.lowerBound[0]], [op.upperBound[0]], [op.step[0]], Region(outer_block)
        )
        rewriter.replace(op, outer)


# ---- legality ----


def root(buffer: SSAValue) -> SSAValue:
    """The buffer a `memref.cast` chain views."""
    while isinstance(buffer, OpResult) and isinstance(buffer.op, memref.CastOp):
        buffer = buffer.op.source
    return buffer


@dataclass
class Accesses:
    """The buffers one loop reads and writes, and whether each access stays in its row."""

    loop: scf.ParallelOp
    reads: set[SSAValue]
    writes: set[SSAValue]
    off_row: set[SSAValue]
    opaque: bool = False

    @staticmethod
    def of(loop: scf.ParallelOp) -> Accesses:
        accesses = Accesses(loop, set(), set(), set())
        iv = loop.body.block.args[0]
        for op in loop.body.walk():
            if isinstance(op, memref.LoadOp | memref.StoreOp):
                buffer = root(op.memref)
                (accesses.writes if isinstance(op, memref.StoreOp) else accesses.reads).add(buffer)
                if not op.indices or op.indices[0] is not iv:
                    accesses.off_row.add(buffer)
            elif isinstance(op, memref.CopyOp):
                accesses.reads.add(root(op.source))
                accesses.writes.add(root(op.destination))
                accesses.off_row |= {root(op.source), root(op.destination)}
            elif op.dialect_name() not in ("arith", "math", "scf") and not isinstance(
                op, LOCAL_MEMREF_OPS
            ):
                accesses.opaque = True
        return accesses

    def touched(self) -> set[SSAValue]:
        return self.reads | self.writes


def can_fuse(first: scf.ParallelOp, second: scf.ParallelOp) -> bool:
    """True if `second` may run inside `first`'s iterations (see the module docstring)."""
    if first.initVals or second.initVals or len(first.lowerBound) != 1:
        return False
    if len(second.lowerBound) != 1:
        return False
    bounds = zip(
        (first.lowerBound[0], first.upperBound[0], first.step[0]),
        (second.lowerBound[0], second.upperBound[0], second.step[0]),
    )
    if not all(same_index(a, b) for a, b in bounds):
        return False
    a, b = Accesses.of(first), Accesses.of(second)
    if a.opaque or b.opaque:
        return False
    shared = (a.writes & b.touched()) | (b.writes & a.touched())
    for buffer in shared:
        if buffer in a.off_row or buffer in b.off_row:
            return False
        if not isinstance(buffer, OpResult) or not isinstance(buffer.op, memref.AllocOp):
            return False
    return True


def same_index(a: SSAValue, b: SSAValue) -> bool:
    if a is b:
        return True
    ca, cb = a.owner, b.owner
    return (
        isinstance(ca, arith.ConstantOp)
        and isinstance(cb, arith.ConstantOp)
        and ca.value == cb.value
    )


def is_hoistable(op: Operation) -> bool:
    if isinstance(op, HOISTABLE_OPS):
        return True
    return op.dialect_name() == "arith" and not op.regions


# ---- fusion ----


def next_loop(loop: scf.ParallelOp) -> tuple[scf.ParallelOp | None, list[Operation]]:
    """The next `scf.parallel` after `loop` and the hoistable ops in between."""
    between: list[Operation] = []
    op = loop.next_op
    while op is not None and not isinstance(op, scf.ParallelOp):
        if not is_hoistable(op):
            return None, []
        between.append(op)
        op = op.next_op
    return op, between


def fuse_into(first: scf.ParallelOp, second: scf.ParallelOp, between: list[Operation]) -> None:
    for op in between:
        op.detach()
        Rewriter.insert_op(op, InsertPoint.before(first))
    target = first.body.block
    terminator = target.last_op
    assert terminator is not None
    source = second.body.block
    source.args[0].replace_all_uses_with(target.args[0])
    for op in list(source.ops)[:-1]:  # all but the scf.reduce terminator
        op.detach()
        Rewriter.insert_op(op, InsertPoint.before(terminator))
    second.detach()
    second.erase()


def sizes_exceed(loops: tuple[scf.ParallelOp, scf.ParallelOp], limit: int) -> bool:
    """Whether the loops hold more than `limit` ops together (counted up to `limit + 1`)."""
    total = 0
    for loop in loops:
        for _ in loop.walk():
            total += 1
            if total > limit:
                return True
    return False


def fuse_loops_in(block: Block, max_ops: int = MAX_FUSED_OPS) -> bool:
    """Fuses every fusable pair of neighbouring loops in `block` while the fused loop holds
    at most `max_ops` ops; True if anything changed."""
    changed = False
    op = block.first_op
    while op is not None:
        if isinstance(op, scf.ParallelOp):
            following, between = next_loop(op)
            if (
                following is not None
                and not sizes_exceed((op, following), max_ops)
                and can_fuse(op, following)
            ):
                fuse_into(op, following, between)
                changed = True
                continue  # try to absorb the loop after it too
        op = op.next_op
    return changed


@dataclass(frozen=True)
class ScfParallelLoopFusionPass(ModulePass):
    """Fuses neighbouring parallel loops along their outer dim (see the module docstring)."""

    name = "scf-parallel-loop-fusion"
    max_ops: int = MAX_FUSED_OPS  # the most ops of a fused loop

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(FoldDimOfAlloc()).rewrite_module(op)
        PatternRewriteWalker(SplitOuterDim()).rewrite_module(op)
        blocks = [b for region_op in op.walk() for r in region_op.regions for b in r.blocks]
        changed = True
        while changed:
            changed = False
            for block in blocks:
                if block.parent_op() is not None:
                    changed |= fuse_loops_in(block, self.max_ops)
            blocks = [b for region_op in op.walk() for r in region_op.regions for b in r.blocks]
