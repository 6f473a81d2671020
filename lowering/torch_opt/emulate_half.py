"""Converts float16 / bfloat16 tensors to float32 tensors rounded to half after each op
(`torch-emulate-half`), as PyTorch's CPU kernels compute half ops.

**Expects:** `func.func`s in the torch dialect with every tensor's dtype known (after
`torch-refine-types`), composite ops not yet decomposed (a softmax or a layer norm is rounded
once, at its end, as torch's kernel is) and every `ScalarType` argument that names a half
dtype a `torch.constant.int`.
**Produces:** no `f16` / `bf16` element type anywhere (arguments, results, literals, lists):
each is `f32`. After every ATen op whose result was half, a `torch.aten._round_to_float16` /
`_round_to_bfloat16` of the result, which its uses read instead. A reduction or a matmul
accumulates in float32 and rounds once, at its end, as torch's do. `x.half()` /
`x.bfloat16()` become `x.float()` then the rounding; a `dtype=` argument naming a half dtype
names float32; a number constant an elementwise op promotes with half tensors is rounded to
half, as torch casts it (but `mul` / `div` / `pow` read it in float32, as torch's kernels do);
`x.dtype` of a half tensor is folded to the half dtype's code first, so
scripted code that tests the dtype still sees torch's answer.

A function's arguments are half values carried as float32 (the caller converts them) and its
half results are float32 holding half values (the caller converts them back).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dialects.torch.dtypes import BFLOAT16, FLOAT16, FLOAT32, DType, result_type
from dialects.torch.families import ElementwiseOp
from dialects.torch.op_base import TorchOp
from dialects.torch.ops.arithmetic import (
    AtenDivScalarModeOp,
    AtenDivScalarOp,
    AtenFloorDivideScalarOp,
    AtenMulScalarOp,
    AtenPowTensorScalarOp,
)
from dialects.torch.ops.casts import AtenCastFloatOp, CastOp, PrimDtypeOp
from dialects.torch.ops.half_rounding import (
    AtenRoundToBFloat16Op,
    AtenRoundToFloat16Op,
    RoundToHalfOp,
)
from dialects.torch.ops.prim import ConstantFloatOp, ConstantIntOp, ValueTensorLiteralOp
from dialects.torch.types import ListType, TupleType, ValueTensorType

ROUNDING: dict[str, type[RoundToHalfOp]] = {
    FLOAT16.name: AtenRoundToFloat16Op,
    BFLOAT16.name: AtenRoundToBFloat16Op,
}
HALF_CODES = (FLOAT16.scalar_type, BFLOAT16.scalar_type)


@dataclass(frozen=True)
class TorchEmulateHalfPass(ModulePass):
    """Half tensors become float32 tensors, rounded to half after each op (see the module)."""

    name = "torch-emulate-half"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in [f for f in op.ops if isinstance(f, func.FuncOp)]:
            if has_half(function):
                emulate_function(function)


def has_half(function: func.FuncOp) -> bool:
    return any(
        half_of(v.type) is not None for op in function.walk() for v in (*op.results, *op.operands)
    ) or any(half_of(a.type) is not None for a in function.body.block.args)


def emulate_function(function: func.FuncOp) -> None:
    for op in list(function.walk()):
        if op is not function:
            emulate_op(op)
    for op in function.walk():
        for region in op.regions:
            for block in region.blocks:
                retype_block_args(block)
    block = function.body.block
    returned = block.last_op
    outputs = [v.type for v in returned.operands] if returned else []
    function.function_type = FunctionType.from_lists([a.type for a in block.args], outputs)


def retype_block_args(block: Block) -> None:
    for arg in list(block.args):
        typ = as_float32(arg.type)
        if typ != arg.type:
            Rewriter.replace_value_with_new_type(arg, typ)


# ---- one op ----


def emulate_op(op: Operation) -> None:
    if isinstance(op, PrimDtypeOp):
        fold_dtype(op)
    elif isinstance(op, ValueTensorLiteralOp):
        retype_literal(op)
    elif not (isinstance(op, CastOp) and emulate_cast(op)):
        emulate_results(op)


def emulate_results(op: Operation) -> None:
    """Retypes `op`'s half results to float32; an ATen op's are rounded after it."""
    if isinstance(op, TorchOp):
        rename_half_dtype_arguments(op)
    if isinstance(op, ElementwiseOp):
        round_scalar_operands(op)
    computes = isinstance(op, TorchOp) and op.name.startswith("torch.aten.")
    for result in list(op.results):
        half = half_of(result.type)
        typ = as_float32(result.type)
        if typ == result.type:
            continue
        new = Rewriter.replace_value_with_new_type(result, typ)
        if computes and half is not None and isinstance(typ, ValueTensorType):
            round_after(op, new, half)


def round_after(op: Operation, value: SSAValue, half: DType) -> None:
    rounding = ROUNDING[half.name].build([value])
    Rewriter.insert_op(rounding, InsertPoint.after(op))
    rounded = rounding.results[0]
    rounded.name_hint = value.name_hint
    value.replace_uses_with_if(rounded, lambda use: use.operation is not rounding)


def emulate_cast(op: CastOp) -> bool:
    """`x.half()` / `x.bfloat16()` (a cast whose target is fixed to half): `x.float()`
    rounded. False for the other casts (`x.to(dtype)` is handled by its dtype argument)."""
    half = half_of(op.results[0].type)
    if half is None or op.name == "torch.aten.to.dtype":
        return False
    flag = op.operands[1:2]
    replacement = AtenCastFloatOp.build([op.operands[0], *flag])
    Rewriter.replace_op(op, [replacement])
    round_after(replacement, replacement.results[0], half)
    return True


def rename_half_dtype_arguments(op: TorchOp) -> None:
    """A `ScalarType` argument naming float16 / bfloat16 names float32 instead."""
    schema = op.parsed_schema()
    for index, argument in enumerate(schema.arguments):
        if argument.type != "ScalarType" or index >= len(op.operands):
            continue
        owner = op.operands[index].owner
        if isinstance(owner, ConstantIntOp) and owner.python_value() in HALF_CODES:
            code = ConstantIntOp(FLOAT32.scalar_type)
            code.result.name_hint = "float32"
            Rewriter.insert_op(code, InsertPoint.before(op))
            op.operands[index] = code.result


OPMATH_SCALAR_OPS = (
    AtenMulScalarOp,
    AtenDivScalarOp,
    AtenDivScalarModeOp,
    AtenFloorDivideScalarOp,
    AtenPowTensorScalarOp,
)
"""Ops whose torch CPU kernels read a Python scalar in float32 (`original_scalar_value`); the
others get it cast to the common dtype first, which is half here."""


def round_scalar_operands(op: ElementwiseOp) -> None:
    """A float constant that an elementwise op computing in half promotes with its tensors
    is rounded to half first, as torch's TensorIterator casts it (`x + 0.1` adds float16's
    0.0999755859375); the ops of `OPMATH_SCALAR_OPS` keep it in float32."""
    if isinstance(op, OPMATH_SCALAR_OPS):
        return
    names = [a.name for a in op.parsed_schema().arguments]
    promoted = [v for n, v in zip(names, op.operands) if n in type(op).DTYPE_ARGS]
    tensors = [v.type for v in promoted if isinstance(v.type, ValueTensorType)]
    if not tensors or any(t.element is None or t.rank is None for t in tensors):
        return
    kinds = ["float" for v in promoted if isinstance(v.owner, ConstantFloatOp)]
    half = result_type([(t.element, t.rank) for t in tensors], kinds)
    if not half.is_half:
        return
    for index, (name, value) in enumerate(zip(names, op.operands)):
        owner = value.owner
        is_number = isinstance(owner, ConstantFloatOp | ConstantIntOp)
        if name not in type(op).DTYPE_ARGS or not is_number:
            continue
        number = owner.python_value()
        rounded = float(ROUNDING[half.name].eager(np.float32(number)))
        if rounded != number:  # an int that half cannot hold becomes the float it rounds to
            constant = ConstantFloatOp(rounded)
            Rewriter.insert_op(constant, InsertPoint.before(op))
            op.operands[index] = constant.result


def fold_dtype(op: PrimDtypeOp) -> None:
    """`x.dtype` of a half tensor: its code, before the tensor becomes float32."""
    half = half_of(op.a.type)
    if half is not None:
        Rewriter.replace_op(op, [ConstantIntOp(half.scalar_type)])


def retype_literal(op: ValueTensorLiteralOp) -> None:
    if half_of(op.result.type) is None:
        return
    values = op.python_value().astype(np.float32)  # half values, exact in float32
    Rewriter.replace_op(op, [ValueTensorLiteralOp(values)])


# ---- types ----


def half_of(typ: Attribute) -> DType | None:
    """The half dtype of a tensor type (or of a list's / tuple's tensors), else None."""
    if isinstance(typ, ValueTensorType):
        element = typ.element
        return element if element is not None and element.is_half else None
    if isinstance(typ, ListType):
        return half_of(typ.element_type)
    if isinstance(typ, TupleType):
        found = [h for t in typ.element_types if (h := half_of(t)) is not None]
        return found[0] if found else None
    return None


def as_float32(typ: Attribute) -> Attribute:
    """`typ` with each half element type float32."""
    if isinstance(typ, ValueTensorType):
        element = typ.element
        if element is not None and element.is_half:
            return ValueTensorType(typ.sizes, FLOAT32)
        return typ
    if isinstance(typ, ListType):
        inner = as_float32(typ.element_type)
        return typ if inner == typ.element_type else ListType(inner)
    if isinstance(typ, TupleType):
        return TupleType([as_float32(t) for t in typ.element_types])
    return typ
