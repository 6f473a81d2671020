"""Makes float reduction loops vectorizable without `reassoc` (`scf-vectorize-reductions`).

Generated code runs without a function-wide `reassoc` flag: it let LLVM cancel
`(x - x) - (x - x)` to 0 where PyTorch gives NaN for inf inputs (fuzzer, seed 3). LLVM may
then not reorder a reduction, and a loop that folds one accumulator is a serial chain of
dependent ops that does not vectorize. Two rewrites give the reorderings back, where they
are exactly what a reduction allows:

1. **Sums and products:** the `arith.addf` / `arith.mulf` that folds the accumulator gets
   `fastmath<reassoc,contract>`, and only it: LLVM may reorder the chain of those adds (the
   python target emits them through an LLVM intrinsic with these flags), while the ops
   computing each term keep NaN and inf exact. (With `nsz` too, LLVM's reassociation pulled
   `t - t` into the sum and cancelled it: measured, so `nsz` is left out.)
2. **Max and min** (NaN-propagating ones are a compare and a select, which LLVM does not
   treat as a reduction): the loop is split into `UNROLL` independent accumulators, whose
   compare-and-selects the SLP vectorizer packs into vector instructions (a row max 3x
   faster, measured, numba 0.68):
```
%m = scf.for %j = %lb to %ub step %c1 iter_args(%acc = %init) -> (f32) {
  %v = memref.load %x[%i, %j]  ;  %r = arith.maximumf %acc, %v  ;  scf.yield %r
}
  ==>
%main_ub = %ub - (%ub - %lb) mod 8
%a:8 = scf.for %j = %lb to %main_ub step %c8 iter_args(%acc0 = %init, ..., %acc7 = %init) {
  (the body for %j, %j + 1, ..., %j + 7, each on its own accumulator)
}
%t = scf.for %j = %main_ub to %ub step %c1 iter_args(%acc = %a#0) { the body }
%m = max(%t, %a#1, ..., %a#7)
```
Taking the initial value several times is right for max and min (idempotent), and so is any
combination order (NaN propagates from every accumulator).

**Expects:** the `loops` stage.
- (1) applies to each float `iter_args` value of an `scf.for` that the loop yields as
  `addf` / `mulf` of it and one other value, the accumulator and the fold used nowhere else.
- (2) applies to an `scf.for` with `index` bounds, step 1, one `iter_args` value, a body of
  loads and pure `arith` / `math` ops only, yielding `maximumf` / `minimumf` (or `maxnumf` /
  `minnumf`) of its accumulator, used nowhere else.

**Produces:** the `loops` stage with such folds flagged and such loops split as above.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

UNROLL = 8
COMBINERS = (arith.MaximumfOp, arith.MinimumfOp, arith.MaxnumfOp, arith.MinnumfOp)
FOLDS = (arith.AddfOp, arith.MulfOp)
REORDERABLE = arith.FastMathFlagsAttr(("reassoc", "contract"))
"""The flags of a sum's or a product's fold: reorderable, but no `nsz` (see the module doc)."""


def combiner_of(loop: scf.ForOp) -> type[Operation] | None:
    """The max/min op that folds the loop's single accumulator, if the loop qualifies."""
    body = loop.body.block
    if len(loop.iter_args) != 1 or not isinstance(loop.lb.type, IndexType):
        return None
    step = loop.step.owner
    if not isinstance(step, arith.ConstantOp) or step.value != IntegerAttr(1, IndexType()):
        return None
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)
    combine = yielded.operands[0].owner
    acc = body.args[1]
    if not isinstance(combine, COMBINERS) or acc not in combine.operands:
        return None
    if acc.uses.get_length() != 1 or combine.results[0].uses.get_length() != 1:
        return None
    for op in list(body.ops)[:-1]:
        if op.regions or not (isinstance(op, memref.LoadOp) or op.dialect_name() in PURE):
            return None
    return type(combine)


PURE = ("arith", "math")


def index_constant(value: int, rewriter: PatternRewriter) -> SSAValue:
    constant = arith.ConstantOp(IntegerAttr(value, IndexType()))
    rewriter.insert(constant)
    return constant.result


def clone_body(source: Block, target: Block, iv: SSAValue, acc: SSAValue) -> SSAValue:
    """Appends a copy of `source`'s ops (not its yield) for `iv` and `acc`; the new result."""
    mapper: dict[SSAValue, SSAValue] = {source.args[0]: iv, source.args[1]: acc}
    for op in list(source.ops)[:-1]:
        target.add_op(op.clone(mapper))
    yielded = source.last_op
    assert yielded is not None
    return mapper[yielded.operands[0]]


def flag_reorderable_folds(loop: scf.ForOp) -> None:
    """Flags each sum or product fold of the loop's accumulators (rewrite 1 of the module doc)."""
    body = loop.body.block
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)
    for acc, result in zip(body.args[1:], yielded.operands):
        fold = result.owner
        if not isinstance(fold, FOLDS) or acc not in fold.operands:
            continue
        if fold.lhs is fold.rhs or acc.uses.get_length() != 1 or result.uses.get_length() != 1:
            continue
        fold.fastmath = REORDERABLE


class UnrollMaxReduction(RewritePattern):
    """One qualifying max/min reduction loop -> `UNROLL` accumulators (see the module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        combiner = combiner_of(op)
        if combiner is None:
            return
        body = op.body.block
        count = rewriter.insert(arith.SubiOp(op.ub, op.lb)).result
        rest = rewriter.insert(arith.RemSIOp(count, index_constant(UNROLL, rewriter))).result
        main_ub = rewriter.insert(arith.SubiOp(op.ub, rest)).result
        init = op.iter_args[0]
        main = scf.ForOp(
            op.lb, main_ub, index_constant(UNROLL, rewriter), [init] * UNROLL, unrolled(body)
        )
        rewriter.insert(main)
        tail_block = Block(arg_types=[IndexType(), init.type])
        tail_result = clone_body(body, tail_block, tail_block.args[0], tail_block.args[1])
        tail_block.add_op(scf.YieldOp(tail_result))
        tail = rewriter.insert(scf.ForOp(main_ub, op.ub, op.step, [main.results[0]], tail_block))
        total = tail.results[0]
        for partial in main.results[1:]:
            total = rewriter.insert(combiner(total, partial)).results[0]  # type: ignore[call-arg]
        rewriter.replace(op, (), [total])


def unrolled(body: Block) -> Block:
    """The main loop's body: `body` for `j + r` on accumulator `r`, for r < UNROLL."""
    acc_type = body.args[1].type
    block = Block(arg_types=[IndexType(), *([acc_type] * UNROLL)])
    j, *accs = block.args
    results = []
    for r, acc in enumerate(accs):
        offset = arith.ConstantOp(IntegerAttr(r, IndexType()))
        iv = arith.AddiOp(j, offset.result)
        block.add_ops([offset, iv])
        results.append(clone_body(body, block, iv.result, acc))
    block.add_op(scf.YieldOp(*results))
    return block


@dataclass(frozen=True)
class ScfVectorizeReductionsPass(ModulePass):
    """Makes float reduction loops vectorizable (see the module doc)."""

    name = "scf-vectorize-reductions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for loop in op.walk():
            if isinstance(loop, scf.ForOp):
                flag_reorderable_folds(loop)
        PatternRewriteWalker(UnrollMaxReduction(), apply_recursively=False).rewrite_module(op)
