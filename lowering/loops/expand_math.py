"""Expands float32 `math.exp/tanh/log/erf/log1p/expm1` into vectorizable arith ops
(`expand-math`).

numba 0.68 ships without SVML, so libm calls stay scalar and block loop vectorization; the
arith expansions of `lowering/loops/math_polynomials.py` vectorize, keep libm's special values
(NaN, infinities, overflow, subnormals) and are accurate to a few ulp. The sigmoid payload
`1 / (1 + exp(-x))` is covered through its `math.exp`: an exp whose every use adds it to the
constant 1 gets a cheaper expansion (`exp_before_add_one`: below -86 the sum is 1 anyway,
so exp need not make subnormal results). An exp marked with the unit attribute
`tsjit.nonpositive_argument` (softmax's `exp(x - max)`, whose argument is <= 0 or NaN)
skips the upper clamp and the overflow test (`exp_of_nonpositive`).

**Expects:** any stage holding scalar `math` ops (the pipeline runs it on the `loops` stage,
after `convert-linalg-to-parallel-loops`).

**Produces:** the same IR with every `math.exp`, `math.tanh`, `math.log`, `math.erf`,
`math.log1p` and `math.expm1` on `f32` replaced by `arith` ops plus `math.absf` /
`math.floor`. Other float types (f64, f16) keep their `math` op (the python target calls libm
for them).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import Float32Type, FloatAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from lowering.ir_marks import NONPOSITIVE_ARGUMENT
from lowering.loops.math_polynomials import (
    EXPANSIONS,
    Emitter,
    exp_before_add_one,
    exp_of_nonpositive,
)


class ExpandMathOp(RewritePattern):
    """A float32 `math` op with an entry in `EXPANSIONS` -> its arith expansion."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        expand = EXPANSIONS.get(type(op))
        if expand is None or not isinstance(op.results[0].type, Float32Type):
            return
        if isinstance(op, math.ExpOp) and NONPOSITIVE_ARGUMENT in op.attributes:
            expand = exp_of_nonpositive
        elif isinstance(op, math.ExpOp) and only_added_to_one(op.result):
            expand = exp_before_add_one
        result = expand(Emitter(rewriter), op.operands[0])
        rewriter.replace(op, (), [result])


def only_added_to_one(value: SSAValue) -> bool:
    """True if every use of `value` is an `arith.addf` of it and the constant 1."""
    if not value.uses:
        return False
    for use in value.uses:
        add = use.operation
        if not isinstance(add, arith.AddfOp) or add.lhs is add.rhs:
            return False
        other = add.rhs if add.lhs is value else add.lhs
        constant = other.owner
        if not isinstance(constant, arith.ConstantOp):
            return False
        if not isinstance(constant.value, FloatAttr) or constant.value.value.data != 1.0:
            return False
    return True


@dataclass(frozen=True)
class ExpandMathPass(ModulePass):
    """Replaces float32 transcendental `math` ops by polynomial arith code (see above)."""

    name = "expand-math"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ExpandMathOp(), apply_recursively=False).rewrite_module(op)
