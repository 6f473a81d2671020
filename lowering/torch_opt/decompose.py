"""Rewrites composite torch ops into the core op set (`torch-decompose`).

**Expects:** `func.func`s in the torch dialect, typed (a decomposition may read shapes).
**Produces:** every op that defines a `decompose` hook replaced by the ops the hook builds,
repeated until no such op is left (a decomposition may produce ops that decompose further),
and every type recomputed from the shape rules when anything changed.

The *core set* is every registered op without a `decompose` hook: those are lowered directly by
`convert-torch-to-linalg` (elementwise ops from their payload, reductions, matmul/mm/linear,
data movement, scalar ops and `prim` control flow). An op gets a hook only when its direct
lowering would not exist or would be slower than its decomposition: `rsub` or `linear`, for
example, keep their own lowerings, which fuse what a decomposition would split into several
loops. `decomposable_ops()` lists the ops with a hook.
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
)

from dialects.torch.op_base import ConstantLikeOp, TorchOp
from dialects.torch.ops.prim import PrimListConstructOp
from lowering.torch_opt.canonicalize import FoldUnpackOfListConstruct
from lowering.torch_opt.ir_utils import constant_name, refine_module


def decomposable_ops() -> list[type[TorchOp]]:
    """The registered ops outside the core set: those that define a `decompose` hook."""
    from dialects.torch.registry import ATEN_OPS

    return [op for op in ATEN_OPS if op.decompose is not TorchOp.decompose]


class ApplyDecomposeHook(RewritePattern):
    """An op with a `decompose` hook becomes the ops the hook builds."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, TorchOp):
            return
        new_ops = op.decompose()
        if not new_ops:
            return
        # the last op's results replace the op's, unless the hook names them (`results`)
        rewriter.replace(op, list(new_ops), getattr(new_ops, "results", None))
        for new in new_ops:  # `replace` gave every new value the old name
            if isinstance(new, ConstantLikeOp) and not isinstance(new, PrimListConstructOp):
                new.results[0].name_hint = constant_name(new.python_value())


@dataclass(frozen=True)
class TorchDecomposePass(ModulePass):
    """Composite ops into the core set, driven by the ops' `decompose` hooks."""

    name = "torch-decompose"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = [ApplyDecomposeHook(), FoldUnpackOfListConstruct()]  # lists of pieces
        for _ in range(MAX_ROUNDS):
            changed = PatternRewriteWalker(
                GreedyRewritePatternApplier(patterns, dce_enabled=False),
                apply_recursively=True,
            ).rewrite_module(op)
            if not changed:
                return
            refine_module(op)  # new types may let more hooks decompose (a shape sliced twice)


MAX_ROUNDS = 8
"""Rounds of decomposing then refining types: a hook waiting for a type that an earlier
round's decomposition fixes (`x.view(*x.shape[:-1], h, d)` then its shape sliced again) runs
in the next round."""
