"""Expands float32 `math.exp/tanh/log/erf` into vectorizable arith ops (`expand-math`).

numba 0.68 ships without SVML, so libm calls stay scalar and block loop vectorization; the
arith expansions of `lowering/math_polynomials.py` vectorize, keep libm's special values
(NaN, infinities, overflow, subnormals) and are accurate to a few ulp. The sigmoid payload
`1 / (1 + exp(-x))` is covered through its `math.exp`.

**Expects:** any stage holding scalar `math` ops (the pipeline runs it on the `loops` stage,
after `convert-linalg-to-parallel-loops`).

**Produces:** the same IR with every `math.exp`, `math.tanh`, `math.log` and `math.erf` on
`f32` replaced by `arith` ops plus `math.absf` / `math.floor`. Other float types (f64, f16)
keep their `math` op (the python target calls libm for them).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from lowering.math_polynomials import EXPANSIONS, Emitter


class ExpandMathOp(RewritePattern):
    """A float32 `math` op with an entry in `EXPANSIONS` -> its arith expansion."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        expand = EXPANSIONS.get(type(op))
        if expand is None or not isinstance(op.results[0].type, Float32Type):
            return
        result = expand(Emitter(rewriter), op.operands[0])
        rewriter.replace(op, (), [result])


@dataclass(frozen=True)
class ExpandMathPass(ModulePass):
    """Replaces float32 transcendental `math` ops by polynomial arith code (see above)."""

    name = "expand-math"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ExpandMathOp(), apply_recursively=False).rewrite_module(op)
