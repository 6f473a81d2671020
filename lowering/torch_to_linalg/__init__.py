"""Converts the torch dialect to linalg, tensor, arith and math on builtin tensors.

**Expects:** every torch value fully typed (`torch-refine-types` has run): each
`!torch.vtensor` has a known rank and dtype.
**Produces:** `func.func`s on builtin `tensor<...>` (signless element types; `?` dims stay
dynamic and are read with `tensor.dim`) and `i64`/`f64`/`i1` scalars, holding only linalg
(`generic`, `fill`), tensor (`empty`, `dim`), arith and math ops, and `func.call`s of custom-op
kernels (`lowering/kernel_calls.py`). No torch op or type remains.

Scalar and tensor conversions live in this one pass on purpose: xDSL has no dialect-conversion
framework with materializations, so the pass converts function signatures first and then
rewrites ops in program order, which guarantees that every pattern sees its tensor operands
already lowered while torch constants stay readable as compile-time values. Leftover constants
are turned into `arith.constant` (or erased when unused) at the end.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import FloatAttr, FunctionType, IntegerAttr, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import PassFailedException

from dialects.torch.op_base import ConstantLikeOp
from dialects.torch.ops.prim import ConstantNoneOp
from lowering.contracts import require_stage
from lowering.torch_to_linalg import (
    along_dim,
    constructors,
    control_flow,
    conv,
    custom,
    data_movement,
    diagonals,
    elementwise,
    index_put,
    indexing,
    joining,
    linear,
    literals,
    normalization,
    norms,
    padding,
    patches,
    pooling,
    ranges,
    reduction,
    reorder,
    scalars,
    scatter,
    scatter_index,
    scatter_reduce,
    triangular,
    value_sized,
    views,
)
from lowering.torch_to_linalg.utils import to_builtin_type

PATTERNS: tuple[RewritePattern, ...] = (
    *elementwise.PATTERNS,
    *reduction.PATTERNS,
    *normalization.PATTERNS,
    *linear.PATTERNS,
    *scalars.PATTERNS,
    *control_flow.PATTERNS,
    *data_movement.PATTERNS,
    *views.PATTERNS,
    *joining.PATTERNS,
    *padding.PATTERNS,
    *scatter.PATTERNS,
    *triangular.PATTERNS,
    *indexing.PATTERNS,
    *constructors.PATTERNS,
    *conv.PATTERNS,
    *pooling.PATTERNS,
    *literals.PATTERNS,
    *custom.PATTERNS,
    *along_dim.PATTERNS,
    *norms.PATTERNS,
    *reorder.PATTERNS,
    *diagonals.PATTERNS,
    *ranges.PATTERNS,
    *scatter_index.PATTERNS,
    *scatter_reduce.PATTERNS,
    *index_put.PATTERNS,
    *patches.PATTERNS,
    *value_sized.PATTERNS,
)


@dataclass(frozen=True)
class ConvertTorchToLinalgPass(ModulePass):
    name = "convert-torch-to-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_stage(op, self.name, "torch-opt")
        functions = [f for f in op.ops if isinstance(f, func.FuncOp)]
        for function in functions:
            convert_signature(function)
        PatternRewriteWalker(
            GreedyRewritePatternApplier(list(PATTERNS)),
            apply_recursively=False,
            walk_regions_first=False,
        ).rewrite_module(op)
        for function in functions:
            control_flow.reconcile_carried_types(function)
            lower_leftover_constants(function)
            check_fully_lowered(function)
            update_function_type(function)


def convert_signature(function: func.FuncOp) -> None:
    for arg in function.body.block.args:
        try:
            new_type = to_builtin_type(arg.type)
        except ValueError as err:
            name = function.sym_name.data
            raise PassFailedException(f"convert-torch-to-linalg: @{name}: {err}") from err
        if new_type != arg.type:
            Rewriter.replace_value_with_new_type(arg, new_type)
    update_function_type(function)


def update_function_type(function: func.FuncOp) -> None:
    inputs = [a.type for a in function.body.block.args]
    last = function.body.block.last_op
    outputs = [v.type for v in last.operands] if isinstance(last, func.ReturnOp) else []
    function.function_type = FunctionType.from_lists(inputs, outputs)


def lower_leftover_constants(function: func.FuncOp) -> None:
    """Erase constants nothing reads; turn the rest into `arith.constant`."""
    for op in reversed(list(function.walk())):
        if not isinstance(op, ConstantLikeOp):
            continue
        if not op.results[0].uses:
            Rewriter.erase_op(op)
        elif not isinstance(op, ConstantNoneOp):
            Rewriter.replace_op(op, _arith_constant(op))


def _arith_constant(op: ConstantLikeOp) -> Operation:
    value = op.python_value()
    typ = to_builtin_type(op.results[0].type)
    if isinstance(value, float):
        return arith.ConstantOp(FloatAttr(value, typ))  # type: ignore[arg-type]
    if isinstance(value, bool | int):
        return arith.ConstantOp(IntegerAttr(int(value), typ))  # type: ignore[arg-type]
    raise PassFailedException(f"convert-torch-to-linalg: {op.name} is still used at run time")


def check_fully_lowered(function: func.FuncOp) -> None:
    for op in function.walk():
        if op.name.startswith("torch."):
            raise PassFailedException(
                f"convert-torch-to-linalg: no lowering for {op.name} in @{function.sym_name.data}"
                + _hint(op)
            )


def _hint(op: Operation) -> str:
    if any("unk" in str(r.type) or "<*" in str(r.type) for r in op.results):
        return " (its result type is not fully known; run torch-refine-types with a signature)"
    return ""
