"""Folds constants and trivial ops in the torch dialect (`torch-canonicalize`).

**Expects:** `func.func`s in the torch dialect, typed or not (folds that need a type, such as
`x * 1 -> x` or `x.size(0) -> 3`, wait for `torch-refine-types`).
**Produces:** the same program with, repeated to a fixed point:
- every torch op whose operands are all constants and whose results are scalars
  (`torch.aten.add.int`, `aten.__range_length`, `aten.Bool.int`, ...) replaced by the
  `torch.constant.*` its eager reference computes (not when that raises, like `1 // 0`, or
  leaves int64: the run time keeps those);
- each op's `fold` hook applied (`x * 1`, `x + 0`, `x - 0`, `x / 1` when the result type is
  exactly `x`'s; `size`/`dim`/`len` of static shapes; transpose of a transpose, reshape of a
  reshape where those ops define the hook);
- a `torch.prim.ListUnpack` of a `torch.prim.ListConstruct` replaced by its elements;
- `torch.prim.If` on a constant condition replaced by the taken branch, and `prim.If` results
  that both branches give as the same outer value replaced by it;
- `torch.prim.Loop` that cannot run (constant trip count <= 0 or initial condition false)
  replaced by its initial values, and loop-carried values the body passes on unchanged
  replaced by their initial value;
- dead pure ops erased, and every type recomputed from the shape rules when anything changed
  (a folded value may be more precise than the result it replaces).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from dialects.torch.folding import NOT_CONSTANT, constant_value
from dialects.torch.op_base import TorchOp
from dialects.torch.ops.prim import (
    PrimIfOp,
    PrimIfYieldOp,
    PrimListConstructOp,
    PrimListGetItemOp,
    PrimListUnpackOp,
    PrimLoopConditionOp,
    PrimLoopOp,
)
from lowering.torch_opt.ir_utils import (
    defined_outside,
    inline_block_before,
    is_scalar_type,
    refine_module,
    replace_results,
    scalar_constant,
)

EVALUATION_ERRORS = (ArithmeticError, ValueError, TypeError)


class FoldConstantScalarOp(RewritePattern):
    """A torch op on constants with scalar results becomes the constants it computes."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, TorchOp) or not op.results:
            return
        if not all(is_scalar_type(r.type) for r in op.results):
            return
        values = [constant_value(v) for v in op.operands]
        if any(v is NOT_CONSTANT for v in values):
            return
        try:
            out = type(op).run_eager(*values)
        except EVALUATION_ERRORS:
            return  # e.g. `1 // 0`: raised when (and if) the program runs
        outputs = out if isinstance(out, tuple) else (out,)
        constants = [scalar_constant(v, r.type) for v, r in zip(outputs, op.results, strict=True)]
        if None in constants:
            return
        replace_results(rewriter, op, constants)


class ApplyFoldHook(RewritePattern):
    """The op's own `fold` hook: existing values, constants, or an in-place update."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, TorchOp):
            return
        folded = op.fold()
        if folded is None:
            return
        folded = list(folded)
        if folded == list(op.results):
            rewriter.notify_op_modified(op)
            return
        replace_results(rewriter, op, folded)


class FoldConstantIf(RewritePattern):
    """`prim.If` on a constant condition is the branch it takes."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PrimIfOp, rewriter: PatternRewriter) -> None:
        condition = constant_value(op.condition)
        if not isinstance(condition, bool):
            return
        region = op.then_region if condition else op.else_region
        values = inline_block_before(rewriter, region.block, op)
        replace_results(rewriter, op, values)


class FoldIfSameBranches(RewritePattern):
    """A `prim.If` result that both branches give as the same outer value is that value."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PrimIfOp, rewriter: PatternRewriter) -> None:
        then_yield, else_yield = op.then_region.block.last_op, op.else_region.block.last_op
        assert isinstance(then_yield, PrimIfYieldOp) and isinstance(else_yield, PrimIfYieldOp)
        for result, a, b in zip(op.results, then_yield.values, else_yield.values, strict=True):
            if a is b and result.uses and defined_outside(a, op):
                rewriter.replace_all_uses_with(result, a)


class FoldLoopThatNeverRuns(RewritePattern):
    """A `prim.Loop` with a trip count <= 0 or a false initial condition gives its inits."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PrimLoopOp, rewriter: PatternRewriter) -> None:
        trip_count = constant_value(op.max_trip_count)
        condition = constant_value(op.initial_condition)
        never = condition is False or (isinstance(trip_count, int) and trip_count <= 0)
        if never:
            replace_results(rewriter, op, list(op.iter_args))


class FoldLoopInvariantCarried(RewritePattern):
    """A carried value the body passes on unchanged is its initial value throughout."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PrimLoopOp, rewriter: PatternRewriter) -> None:
        body = op.body.block
        condition = body.last_op
        assert isinstance(condition, PrimLoopConditionOp)
        for index, (arg, passed) in enumerate(zip(body.args[1:], condition.iter_args)):
            if passed is not arg:
                continue
            init = op.iter_args[index]
            result = op.results[index]
            uses = [u for u in arg.uses if u.operation is not condition]
            if result.uses or uses:
                rewriter.replace_uses_with_if(arg, init, lambda u: u.operation is not condition)
                rewriter.replace_all_uses_with(result, init)


class FoldUnpackOfListConstruct(RewritePattern):
    """`a, b = [x, y]`: a `prim.ListUnpack` of a `prim.ListConstruct` gives its elements
    (such as the sizes of a whole `x.shape` unpacked)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PrimListUnpackOp, rewriter: PatternRewriter) -> None:
        listed = op.list_.owner
        if isinstance(listed, PrimListConstructOp) and len(listed.elements) == len(op.results):
            replace_results(rewriter, op, list(listed.elements))


class FoldGetItemOfKnownList(RewritePattern):
    """`parts[i]` of a list whose elements are known: the element of a `prim.ListConstruct`,
    or result i of a `prim.ListUnpack` of the producer's pieces (added before it)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PrimListGetItemOp, rewriter: PatternRewriter) -> None:
        position, pieces = op.position(), op.pieces()
        if position is None or pieces is None:
            return
        listed = op.list_.owner
        if isinstance(listed, PrimListConstructOp):
            replace_results(rewriter, op, [listed.elements[position]])
            return
        unpack = PrimListUnpackOp(op.list_, len(pieces))
        rewriter.insert(unpack, InsertPoint.before(op))
        replace_results(rewriter, op, [unpack.results[position]])


CANONICALIZATION_PATTERNS: tuple[RewritePattern, ...] = (
    FoldConstantScalarOp(),
    ApplyFoldHook(),
    FoldConstantIf(),
    FoldIfSameBranches(),
    FoldLoopThatNeverRuns(),
    FoldLoopInvariantCarried(),
    FoldUnpackOfListConstruct(),
    FoldGetItemOfKnownList(),
)


def canonicalize(module: ModuleOp) -> bool:
    """Apply the patterns to a fixed point; True when anything changed (types then refined)."""
    changed = PatternRewriteWalker(
        GreedyRewritePatternApplier(list(CANONICALIZATION_PATTERNS)), apply_recursively=True
    ).rewrite_module(module)
    if changed:
        refine_module(module)
    return changed


@dataclass(frozen=True)
class TorchCanonicalizePass(ModulePass):
    """Constant folding, fold hooks, constant branches and loops that never run."""

    name = "torch-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        canonicalize(op)
