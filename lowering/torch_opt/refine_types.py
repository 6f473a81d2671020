"""Refines every torch type in a function for one call signature (stage `torch-opt`).

**Expects:** `func.func`s in the torch dialect whose types may be partly unknown
(`!torch.vtensor<*,unk>`). The `signature` option (`f32[?,4],f32[4],int`) gives the argument
types of the first function; empty keeps the argument types as written.
**Produces:** the same ops with every value's type recomputed from the op shape rules, in
program order through `torch.prim.If`/`torch.prim.Loop` regions, and the function type updated
to match. Raises a `PassFailedException` naming the op when the signature makes it ill-typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import PassFailedException, VerifyException

from dialects.torch.folding import NOT_CONSTANT, constant_value
from dialects.torch.op_base import TorchOp, types_compatible
from dialects.torch.ops.data_movement import AtenSizeIntOp, AtenSizeOp
from dialects.torch.ops.prim import (
    ConstantIntOp,
    PrimIfOp,
    PrimIfYieldOp,
    PrimListConstructOp,
    PrimListGetItemOp,
    PrimListUnpackOp,
    PrimLoopConditionOp,
    PrimLoopOp,
    PrimTupleConstructOp,
    PrimTupleUnpackOp,
)
from dialects.torch.types import (
    DYN,
    BoolType,
    FloatType,
    IntType,
    ListType,
    NoneType,
    TupleType,
    ValueTensorType,
)
from lowering.signature import parse_signature


@dataclass(frozen=True)
class TorchRefineTypesPass(ModulePass):
    """Propagate argument types through the shape rules of every op."""

    name = "torch-refine-types"
    signature: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = [f for f in op.ops if isinstance(f, func.FuncOp)]
        for index, function in enumerate(functions):
            if index == 0 and self.signature:
                set_argument_types(function, parse_signature(self.signature))
            refine_function(function)


def set_argument_types(function: func.FuncOp, types: list[Attribute]) -> None:
    block = function.body.block
    if len(types) != len(block.args):
        raise PassFailedException(
            f"torch-refine-types: @{function.sym_name.data} takes {len(block.args)} arguments "
            f"but the signature gives {len(types)}"
        )
    for arg, typ in zip(block.args, types):
        if not types_compatible(arg.type, typ):
            raise PassFailedException(
                f"torch-refine-types: argument %{arg.name_hint} of @{function.sym_name.data} is "
                f"declared {arg.type}, which does not admit {typ}"
            )
        Rewriter.replace_value_with_new_type(arg, typ)


def refine_function(function: func.FuncOp) -> None:
    refine_block(function.body.block)
    returned = function.body.block.last_op
    outputs = [v.type for v in returned.operands] if returned else []
    inputs = [a.type for a in function.body.block.args]
    function.function_type = FunctionType.from_lists(inputs, outputs)


def refine_block(block: Block) -> None:
    for op in list(block.ops):
        if isinstance(op, AtenSizeOp):
            expanded = expand_whole_size(op)
            if expanded is not None:
                for new in expanded:
                    refine_op(new)
                continue
        refine_op(op)


def expand_whole_size(op: AtenSizeOp) -> list[Operation] | None:
    """`torch.aten.size %x` of a tensor whose rank is now known -> `prim.ListConstruct` of
    `aten.size.int %x, d` for each dim d (the new ops, in order); None while the rank is
    unknown."""
    tensor = op.self_
    if not isinstance(tensor.type, ValueTensorType) or tensor.type.rank is None:
        return None
    new_ops: list[Operation] = []
    sizes = []
    for dim in range(tensor.type.rank):
        constant = ConstantIntOp(dim)
        constant.result.name_hint = f"int{dim}"
        size = AtenSizeIntOp.create(operands=[tensor, constant.result], result_types=[IntType()])
        new_ops += [constant, size]
        sizes.append(size.results[0])
    new_ops.append(PrimListConstructOp(sizes, IntType()))
    Rewriter.replace_op(op, new_ops)
    return new_ops


def refine_op(op: Operation) -> None:
    try:
        new_types = _refined_types(op)
    except VerifyException as err:
        raise PassFailedException(f"torch-refine-types: {err}") from err
    if new_types is None:
        return
    for result, typ in zip(list(op.results), new_types, strict=True):
        if result.type != typ:
            Rewriter.replace_value_with_new_type(result, typ)


def _refined_types(op: Operation) -> list[Attribute] | None:
    if isinstance(op, TorchOp):
        return op.infer_result_types()
    if isinstance(op, PrimIfOp):
        return _refine_if(op)
    if isinstance(op, PrimLoopOp):
        return _refine_loop(op)
    if isinstance(op, PrimListConstructOp):
        typed = [e.type for e in op.elements if not isinstance(e.type, NoneType)]  # `Tensor?[]`
        return [
            ListType(
                join_all(typed or [e.type for e in op.elements])
                if op.elements
                else op.result.type.element_type
            )
        ]  # type: ignore[attr-defined]
    if isinstance(op, PrimTupleConstructOp):
        return [TupleType([e.type for e in op.elements])]
    if isinstance(op, PrimListUnpackOp | PrimListGetItemOp):
        return op.inferred_types()
    if isinstance(op, PrimTupleUnpackOp):
        return list(op.tuple_.type.element_types.data)  # type: ignore[attr-defined]
    for region in op.regions:
        for block in region.blocks:
            refine_block(block)
    return None


def _refine_if(op: PrimIfOp) -> list[Attribute]:
    """The join of both branches' types, or only the taken branch's when the condition is
    known from the types (`if x.dim() == 3:` of a 2-D x): the other branch may hold shape
    errors for these types (it never runs; `torch-canonicalize` then removes it)."""
    taken = static_value(op.condition)
    regions = (op.then_region, op.else_region)
    if isinstance(taken, bool):
        region = regions[0] if taken else regions[1]
        refine_block(region.block)
        terminator = region.block.last_op
        assert isinstance(terminator, PrimIfYieldOp)
        return [v.type for v in terminator.values]
    yielded: list[list[Attribute]] = []
    for region in regions:
        refine_block(region.block)
        terminator = region.block.last_op
        assert isinstance(terminator, PrimIfYieldOp)
        yielded.append([v.type for v in terminator.values])
    return [join(a, b) for a, b in zip(*yielded, strict=True)]


def _refine_loop(op: PrimLoopOp) -> list[Attribute]:
    """Iterate the body until the carried types stop changing (they only get less precise)."""
    carried = [v.type for v in op.iter_args]
    body = op.body.block
    for _ in range(10):
        for arg, typ in zip(body.args[1:], carried):
            if arg.type != typ:
                Rewriter.replace_value_with_new_type(arg, typ)
        refine_block(body)
        terminator = body.last_op
        assert isinstance(terminator, PrimLoopConditionOp)
        joined = [join(a, v.type) for a, v in zip(carried, terminator.iter_args, strict=True)]
        if joined == carried:
            return carried
        carried = joined
    raise PassFailedException("torch-refine-types: loop-carried types did not converge")


def join(a: Attribute, b: Attribute) -> Attribute:
    """The most precise type that admits both (dims that differ become `?`)."""
    if a == b or not (isinstance(a, ValueTensorType) and isinstance(b, ValueTensorType)):
        return a
    dtype = a.element if a.element == b.element else None
    sa, sb = a.sizes, b.sizes
    if sa is None or sb is None or len(sa) != len(sb):
        return ValueTensorType(None, dtype)
    return ValueTensorType([x if x == y else DYN for x, y in zip(sa, sb)], dtype)


def join_all(types: list[Attribute]) -> Attribute:
    out = types[0]
    for t in types[1:]:
        out = join(out, t)
    return out


EVALUATION_ERRORS = (ArithmeticError, ValueError, TypeError)
STATIC_DEPTH = 8
"""How many scalar ops deep `static_value` looks for a condition's constants."""


def static_value(value: SSAValue, depth: int = STATIC_DEPTH) -> Any:
    """The Python value of a scalar computed only from constants and the sizes the types fix
    (`x.dim() == 3`, `x.size(0) > 1`), evaluated with the ops' fold hooks and eager
    references; None when it is not known."""
    known = constant_value(value)
    if known is not NOT_CONSTANT:
        return known
    op = value.owner
    if depth == 0 or not isinstance(op, TorchOp) or len(op.results) != 1:
        return None
    folded = op.fold()
    if folded is not None and len(folded) == 1 and not isinstance(folded[0], SSAValue):
        return folded[0]
    if not isinstance(op.results[0].type, IntType | FloatType | BoolType):
        return None
    values = [static_value(v, depth - 1) for v in op.operands]
    if any(v is None for v in values):
        return None
    try:
        return type(op).run_eager(*values)
    except EVALUATION_ERRORS:
        return None

