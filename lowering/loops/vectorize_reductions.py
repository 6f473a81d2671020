"""Marks the folds of float reduction loops reorderable (`scf-vectorize-reductions`).

Generated code runs without a function-wide `reassoc` flag: it let LLVM cancel
`(x - x) - (x - x)` to 0 where PyTorch gives NaN for inf inputs (fuzzer, seed 3). LLVM may
then not reorder a reduction, and a loop folding one accumulator is a serial chain of
dependent ops that does not vectorize. This pass gives the reordering back where it is
exactly what a reduction allows: the op that folds the accumulator, and only it, gets
`fastmath<reassoc,contract>`:

```
%s = scf.for %j = %lb to %ub step %c1 iter_args(%acc = %init) -> (f32) {
  %v = memref.load %x[%i, %j]  ;  %t = arith.subf %v, %v
  %r = arith.addf %acc, %t fastmath<reassoc,contract>  ;  scf.yield %r
}
```
The python target emits such a fold through an LLVM op of its own: an `fadd` / `fmul` with
these flags, or the `llvm.maximum` / `llvm.minimum` (NaN-propagating) and `llvm.maxnum` /
`llvm.minnum` (NaN-ignoring) intrinsics, which LLVM vectorizes as reductions. The ops that
compute each term keep NaN and inf exact. `nsz` is left out: with it, LLVM's reassociation
pulled `t - t` into the sum and cancelled it (measured). Measured on a row max of
[1024, 1024] f32, one thread: the compare-and-select chain 2.41 ms, split into 8
accumulators 0.65 ms, `llvm.maximum` 0.165 ms; a row sum as a flagged `fadd` runs as fast
as under a function-wide `reassoc`.

**Expects:** the `loops` stage.
**Produces:** the same IR where each float `iter_args` value of an `scf.for` that the loop
yields as `addf` / `mulf` / `maximumf` / `minimumf` / `maxnumf` / `minnumf` of it and one
other value (the accumulator and the fold used nowhere else) has its fold flagged.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

FOLDS = (
    arith.AddfOp, arith.MulfOp, arith.MaximumfOp, arith.MinimumfOp, arith.MaxnumfOp,
    arith.MinnumfOp,
)  # fmt: skip
REORDERABLE = arith.FastMathFlagsAttr(("reassoc", "contract"))
"""The flags of a reduction's fold: reorderable, but no `nsz` (see the module doc)."""


def flag_reorderable_folds(loop: scf.ForOp) -> None:
    """Flags each fold of the loop's accumulators (see the module doc)."""
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


@dataclass(frozen=True)
class ScfVectorizeReductionsPass(ModulePass):
    """Marks the folds of float reduction loops reorderable (see the module doc)."""

    name = "scf-vectorize-reductions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for loop in op.walk():
            if isinstance(loop, scf.ForOp):
                flag_reorderable_folds(loop)
