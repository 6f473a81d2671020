"""Converts linalg ops on memrefs to `scf.parallel` / `scf.for` loops over `memref.load/store`.

xDSL's own `convert-linalg-to-loops` emits only perfectly nested `scf.for` loops and
`affine.apply` index maths; this pass emits what the python target turns into `prange`:

```
scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c4) step (%c1, %c1) {   // all parallel dims
  %acc0 = memref.load %out[%i]                 // only when there are reduction dims
  %acc = scf.for %k = %c0 to %m step %c1 iter_args(%a = %acc0) {   // each reduction dim
    %x = memref.load %in[%i, %k]               // indices from the indexing maps, in arith
    ...cloned body, linalg.index -> the loop's induction variable...
    scf.yield %new
  }
  memref.store %acc, %out[%i]                  // linalg.yield -> one store per output
  scf.reduce
}
```
Parallel dims are hoisted before reduction dims (legal: they are independent). A parallel dim
that no output indexes on its own (its writes would collide) is run sequentially like a
reduction dim. Carrying the accumulator in `iter_args` lets numba vectorize the inner loop.
An output whose map uses a sequential dim is stored inside the innermost `scf.for` instead
(softmax's `exp(x - max)`, written next to the sum of the same values).
Ops with no parallel dims get only the `scf.for` nest; ops with no loops only the body.
A reduction over outer dims whose innermost dim is parallel and contiguous (`x.sum(0)`) runs
the other way round, the reduced dims outside a loop over a block of that dim
(`lowering/loops/outer_reduction_loops.py`).
Loop bounds are `arith.constant`s for static sizes and `memref.dim` of an operand otherwise.
Named ops, `linalg.transpose`, `linalg.broadcast` and `linalg.reduce` are first rewritten to
`linalg.generic`.

**Expects:** the `memref` stage (`linalg-bufferize`): linalg ops on memrefs without results,
with indexing maps built from dims, constants, `+`, `*`, `mod`, `floordiv` and `ceildiv`, and
parallel / reduction iterators; everything else is left as it is.

**Produces:** the `loops` stage: func, arith, math, scf (parallel, for, if, while, yield,
reduce) and memref (alloc, dim, load, store, copy). No linalg and no affine op remains; an op
that cannot be lowered raises a `PassFailedException` naming it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    MemRefType,
    ModuleOp,
    ShapedType,
)
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import BroadcastOp, GenericOp, ReduceOp
from xdsl.ir.affine import (
    AffineDimExpr,
    AffineMap,
)
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

from lowering.contracts import require_stage
from lowering.loops.generic_loops import GenericLowering, fail, map_attrs, shape_of
from lowering.loops.outer_reduction_loops import OuterReductionLowering, reduces_outer_dims

# ---- generalization: every linalg op becomes a linalg.generic ----


class GeneralizeStructuredOp(RewritePattern):
    """Named structured ops (fill, matmul, conv, transpose, ...) -> `linalg.generic`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LinalgStructuredOperation, rewriter: PatternRewriter) -> None:
        if isinstance(op, GenericOp):
            return
        generic = GenericOp(
            tuple(op.inputs),
            tuple(op.outputs),
            op.body.clone(),
            op.get_indexing_maps(),
            op.get_iterator_types(),
            op.res.types,
        )
        rewriter.replace(op, generic)


class GeneralizeBroadcastOp(RewritePattern):
    """`linalg.broadcast` -> `linalg.generic` whose input map skips the added dims."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BroadcastOp, rewriter: PatternRewriter) -> None:
        rank = len(shape_of(op.init))
        added = set(op.dimensions.get_values())
        kept = tuple(AffineDimExpr(d) for d in range(rank) if d not in added)
        maps = (AffineMap(rank, 0, kept), AffineMap.identity(rank))
        iterators = (IteratorTypeAttr.parallel(),) * rank
        generic = GenericOp(
            (op.input,), (op.init,), op.hidden_region.clone(), map_attrs(maps), iterators
        )
        rewriter.replace(op, generic, [op.init] if op.result else [])


class GeneralizeReduceOp(RewritePattern):
    """`linalg.reduce` -> `linalg.generic` with reduction iterators on the reduced dims."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReduceOp, rewriter: PatternRewriter) -> None:
        rank = len(shape_of(op.input))
        reduced = set(op.dimensions.get_values())
        kept = tuple(AffineDimExpr(d) for d in range(rank) if d not in reduced)
        maps = (AffineMap.identity(rank), AffineMap(rank, 0, kept))
        iterators = tuple(
            IteratorTypeAttr.reduction() if d in reduced else IteratorTypeAttr.parallel()
            for d in range(rank)
        )
        generic = GenericOp((op.input,), (op.init,), op.region.clone(), map_attrs(maps), iterators)
        rewriter.replace(op, generic, [op.init] if op.result else [])


# ---- lowering: each generic becomes its loop nest (generic_loops.py) ----


class ConvertGenericOp(RewritePattern):
    """`linalg.generic` on memrefs -> `scf.parallel` + `scf.for` + `memref.load/store`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        if op.res or not all(
            isinstance(v.type, MemRefType) for v in op.operands if isinstance(v.type, ShapedType)
        ):
            raise fail(op, "it works on tensors; run linalg-bufferize first")
        if any(m.data.num_symbols for m in op.indexing_maps):
            raise fail(op, "indexing maps with symbols are not supported")
        if reduces_outer_dims(op):
            OuterReductionLowering(op, rewriter).lower()
        else:
            GenericLowering(op, rewriter).lower()


# ---- the pass ----


def check_no_linalg(module: ModuleOp) -> None:
    """The loops-stage contract: no linalg op remains."""
    for op in module.walk():
        if op.dialect_name() in ("linalg", "affine"):
            raise fail(op, "no lowering to loops (loops-stage contract: no linalg remains)")


@dataclass(frozen=True)
class ConvertLinalgToParallelLoopsPass(ModulePass):
    """Lowers the `memref` stage to the `loops` stage (see the module docstring).

    `cse` (on by default) merges the index constants and `memref.dim`s of neighbouring loop
    nests; it never moves or merges memory reads and writes.
    """

    name = "convert-linalg-to-parallel-loops"

    cse: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_stage(op, self.name, "memref")
        generalize = GreedyRewritePatternApplier(
            [GeneralizeStructuredOp(), GeneralizeBroadcastOp(), GeneralizeReduceOp()],
            dce_enabled=False,
        )
        PatternRewriteWalker(generalize, apply_recursively=False).rewrite_module(op)
        PatternRewriteWalker(ConvertGenericOp(), apply_recursively=False).rewrite_module(op)
        check_no_linalg(op)
        if self.cse:
            CommonSubexpressionElimination().apply(ctx, op)
