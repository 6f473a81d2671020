"""Splits a whole-array reduction loop into chunks that run in parallel (`scf-split-reductions`).

A reduction to a scalar (`x.sum()`, `((y - t) ** 2).mean()`, `x.max()`) lowers to an `scf.for`
nest outside any parallel loop: one thread folds every element. When each accumulator of
the outer loop is folded only by reorderable ops (`scf-vectorize-reductions` flags them:
the reduction may be reordered), the loop is cut into `CHUNKS` ranges, each folded from the
fold's identity in a parallel loop and stored to a buffer of partial results, which a short
loop then folds into the accumulator's initial value:

```
%r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %init) -> (f32) { ...pure body... }
  ==>
%parts = memref.alloc(%c16) : memref<?xf32>
scf.parallel (%c) = (%c0) to (%c16) step (%c1) {
  %p = scf.for %i = %lb + %c * n / 16 to %lb + (%c + 1) * n / 16 ... iter_args(%acc = -0.0)
  memref.store %p, %parts[%c]
}
%r = scf.for %c = %c0 to %c16 step %c1 iter_args(%acc = %init) { %acc + %parts[%c] }
```
The number of chunks is fixed, not the number of threads, so a result does not depend on
how many threads run it (and the reordering is one `reassoc` already allows).

**Applies to:** an `scf.for` with step 1 directly in a function body, with float
`iter_args`, whose body (at any depth) writes no memory and calls nothing, where every
accumulator is folded by one flagged `addf`, `mulf`, `maximumf` or `minimumf`, or handed to a
nested `scf.for` whose matching result is yielded and whose accumulator is, recursively.

**Expects / produces:** the `loops` stage.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.loops.vectorize_reductions import REORDERABLE

CHUNKS = 16
"""Ranges a split reduction runs in: enough for the threads of a small machine to share."""

IDENTITIES: dict[type[Operation], float] = {
    arith.AddfOp: -0.0,
    arith.MulfOp: 1.0,
    arith.MaximumfOp: float("-inf"),
    arith.MinimumfOp: float("inf"),
}
"""Each splittable fold and the value it leaves unchanged (-0.0 + x is x, even for -0.0)."""

SIDE_EFFECTS = (memref.StoreOp, memref.CopyOp, func.CallOp, memref.AllocOp, scf.ParallelOp)


def fold_kind(loop: scf.ForOp, index: int) -> type[Operation] | None:
    """The fold op type of accumulator `index` of `loop`, if it is splittable (see the
    module doc), else None."""
    body = loop.body.block
    acc, yielded = body.args[1 + index], body.last_op
    assert isinstance(yielded, scf.YieldOp)
    result = yielded.operands[index]
    owner = result.owner
    if isinstance(owner, tuple(IDENTITIES)) and acc in owner.operands:
        flagged = getattr(owner, "fastmath", None) == REORDERABLE
        return type(owner) if flagged and acc.uses.get_length() == 1 else None
    if isinstance(owner, scf.ForOp) and owner.parent_block() is body:
        position = owner.results.index(result)
        if acc.uses.get_length() == 1 and owner.iter_args[position] is acc:
            return fold_kind(owner, position)
    return None


def splittable(loop: scf.ForOp) -> list[type[Operation]] | None:
    """The fold kinds of the loop's accumulators, if the loop can be split."""
    if not loop.iter_args or not isinstance(loop.parent_op(), func.FuncOp):
        return None
    step = loop.step.owner
    if not (isinstance(step, arith.ConstantOp) and step.value == IntegerAttr(1, IndexType())):
        return None
    if any(not isinstance(a.type, AnyFloat) for a in loop.iter_args):
        return None
    if any(isinstance(op, SIDE_EFFECTS) for op in loop.body.walk()):
        return None
    kinds = [fold_kind(loop, i) for i in range(len(loop.iter_args))]
    return None if None in kinds else kinds  # type: ignore[return-value]


@dataclass
class Splitter:
    """Rewrites one splittable loop (see the module doc)."""

    loop: scf.ForOp
    kinds: list[type[Operation]]

    def constant(self, value: float, type_: Attribute, at: InsertPoint) -> SSAValue:
        if isinstance(type_, IndexType):
            attr: Attribute = IntegerAttr(int(value), type_)
        else:
            attr = FloatAttr(value, type_)  # type: ignore[arg-type]
        const = arith.ConstantOp(attr)  # type: ignore[arg-type]
        Rewriter.insert_op(const, at)
        return const.result

    def emit(self, op: Operation, at: InsertPoint) -> SSAValue:
        Rewriter.insert_op(op, at)
        return op.results[0]

    def split(self) -> None:
        loop, before = self.loop, InsertPoint.before(self.loop)
        index = IndexType()
        zero, one = self.constant(0, index, before), self.constant(1, index, before)
        chunks = self.constant(CHUNKS, index, before)
        trip = self.emit(arith.SubiOp(loop.ub, loop.lb), before)
        parts = [
            self.emit(memref.AllocOp([chunks], [], MemRefType(a.type, [DYNAMIC_INDEX])), before)
            for a in loop.iter_args
        ]
        body = Block([scf.ReduceOp()], arg_types=[index])
        Rewriter.insert_op(scf.ParallelOp([zero], [chunks], [one], Region(body)), before)
        inside = InsertPoint.before(body.last_op)  # type: ignore[arg-type]
        lo = self.chunk_bound(body.args[0], trip, chunks, inside)
        next_chunk = self.emit(arith.AddiOp(body.args[0], one), inside)
        hi = self.chunk_bound(next_chunk, trip, chunks, inside)
        identities = [
            self.constant(IDENTITIES[kind], a.type, inside)
            for kind, a in zip(self.kinds, loop.iter_args, strict=True)
        ]
        partial = loop.clone()
        Rewriter.insert_op(partial, inside)
        partial.operands = [lo, hi, partial.step, *identities]
        for value, buffer in zip(partial.results, parts, strict=True):
            Rewriter.insert_op(memref.StoreOp.get(value, buffer, [body.args[0]]), inside)
        self.combine(parts, zero, chunks, one)

    def chunk_bound(
        self, chunk: SSAValue, trip: SSAValue, chunks: SSAValue, at: InsertPoint
    ) -> SSAValue:
        """lb + chunk * trip / chunks (trip >= 0, so the division rounds down)."""
        scaled = self.emit(arith.MuliOp(chunk, trip), at)
        offset = self.emit(arith.DivSIOp(scaled, chunks), at)
        return self.emit(arith.AddiOp(self.loop.lb, offset), at)

    def combine(
        self, parts: list[SSAValue], zero: SSAValue, chunks: SSAValue, one: SSAValue
    ) -> None:
        """The loop folding the partial results into the initial values, in the loop's place."""
        loop = self.loop
        block = Block(arg_types=[IndexType(), *(a.type for a in loop.iter_args)])
        inside = InsertPoint.at_end(block)
        folded = []
        for kind, buffer, acc in zip(self.kinds, parts, block.args[1:], strict=True):
            value = self.emit(memref.LoadOp.get(buffer, [block.args[0]]), inside)
            folded.append(self.emit(kind(acc, value), inside))  # type: ignore[call-arg]
        Rewriter.insert_op(scf.YieldOp(*folded), inside)
        combined = scf.ForOp(zero, chunks, one, list(loop.iter_args), block)
        Rewriter.replace_op(loop, combined)


@dataclass(frozen=True)
class ScfSplitReductionsPass(ModulePass):
    """Splits whole-array reductions into parallel chunks (see the module doc)."""

    name = "scf-split-reductions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        loops = [o for o in op.walk() if isinstance(o, scf.ForOp)]
        for loop in loops:
            kinds = splittable(loop)
            if kinds is not None:
                Splitter(loop, kinds).split()
