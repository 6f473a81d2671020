"""How a library contraction's output starts and ends: the ops around it a kernel can do.

A matmul or conv2d `linalg.generic` accumulates into its output `%out`, which the op in
front of it fills (`linalg.fill` of zeros, or a `linalg.generic` broadcasting a bias vector),
and which an elementwise op behind it often reads once (a bias add, a relu) into another
buffer `%dst`. Each is a pass over the whole output. The library kernels can do both while
their sums are in registers (`lowering/python_target/gemm_tile.py`), so
`convert-linalg-to-library-calls` asks `match_finish` what to fold into the call:

- **init** (the op in front, in the same block, with only ops that touch no memref data in
  between): `linalg.fill` of 0.0 -> the `_set` kernel (writes `%out`, never reads it); a
  `linalg.generic` that writes `%out` from a vector along `%out`'s dim 1 (its columns for a
  matmul, its channels for a conv2d) -> `_bias`, the vector an operand. Only when `%out` is
  an allocation the contraction's inputs do not view (else the fill could change them).
- **epilogue** (the op behind, likewise): a `linalg.generic` of identity maps over `%out`
  (and at most a vector along dim 1) into `%dst`, body `x + bias` (when the init was zeros),
  `maximumf(x, 0.0)`, or the two in that order -> `_bias`, `_relu`: the kernel writes `%dst`.
  Only when nothing else uses `%out` and `%dst` cannot be the storage of an input.

The sums are then `acc = sum`, `acc + bias`, in the same order as before (`(0 + sum) + bias`
is `sum + bias` with `nsz`), so the results do not change. Unmatched, the kernel accumulates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import FloatAttr, MemRefType
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import FillOp, GenericOp, YieldOp
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from lowering.loops.buffer_storage import ANY, ARGUMENT, storage

BIAS_DIM = 1
"""The output dim a bias runs along: a matmul's columns, a conv2d's channels (NCHW)."""

INERT = (memref.DimOp, memref.AllocOp, memref.AllocaOp, memref.CastOp, memref.SubviewOp)
"""Ops that take memrefs but neither read nor write their data."""


@dataclass(frozen=True)
class Finish:
    """What a kernel call does beyond accumulating: its name suffix (`_set`, `_bias`, then
    `_relu`), its bias operand, the buffer it writes, and the ops it makes dead."""

    suffix: str
    bias: SSAValue | None
    destination: SSAValue
    dead: tuple[Operation, ...]


def match_finish(op: GenericOp, inputs: Sequence[SSAValue]) -> Finish | None:
    """The init and epilogue of contraction `op`, which reads `inputs`, that its kernel can
    do (module docstring)."""
    out = op.outputs[0]
    if not isinstance(out, OpResult) or not isinstance(out.op, memref.AllocOp):
        return None
    if out in {storage(value) for value in inputs}:
        return None
    init = neighbour(op, before=True)
    bias = init_bias(init, out)
    if bias is None or (bias is not ZEROS and storage(bias) == out):
        return None
    assert init is not None
    if bias is ZEROS:
        finish = Finish("_set", None, out, (init,))
    else:
        finish = Finish("_bias", bias, out, (init,))  # type: ignore[arg-type]
    return with_epilogue(finish, op, inputs) or finish


def with_epilogue(finish: Finish, op: GenericOp, inputs: Sequence[SSAValue]) -> Finish | None:
    """`finish` with the epilogue behind `op` (module docstring), else None."""
    out = op.outputs[0]
    assert isinstance(out, OpResult)
    (init,) = finish.dead
    epilogue = neighbour(op, before=False)
    if not isinstance(epilogue, GenericOp):
        return None
    if {use.operation for use in out.uses} != {init, op, epilogue}:
        return None
    matched = match_epilogue(epilogue, out)
    if matched is None:
        return None
    added_bias, relu = matched
    if added_bias is not None and finish.bias is not None:
        return None
    bias = finish.bias if added_bias is None else added_bias
    destination = epilogue.outputs[0]
    if not may_write(destination, [*inputs, bias]) or not available_at(destination, op):
        return None
    suffix = finish.suffix if added_bias is None else "_bias"
    relu_suffix = "_relu" if relu else ""
    return Finish(suffix + relu_suffix, bias, destination, (epilogue, init, out.op))


def available_at(destination: SSAValue, op: Operation) -> bool:
    """Whether the kernel call at `op` can write `destination`: it is defined before `op`, or
    it is an allocation between `op` and its epilogue (inert, so `neighbour` skipped it) whose
    sizes are, which then moves in front of `op`."""
    alloc = destination.owner
    if not isinstance(alloc, memref.AllocOp) or alloc.parent_block() is not op.parent_block():
        return True
    block = op.parent_block()
    assert block is not None
    if block.get_operation_index(alloc) < block.get_operation_index(op):
        return True
    for size in alloc.operands:
        owner = size.owner
        if (
            isinstance(owner, Operation)
            and owner.parent_block() is block
            and block.get_operation_index(owner) > block.get_operation_index(op)
        ):
            return False
    alloc.detach()
    block.insert_op_before(alloc, op)
    return True


def neighbour(op: Operation, before: bool) -> Operation | None:
    """The closest op in front of (behind) `op` in its block that touches memref data."""
    other = op.prev_op if before else op.next_op
    while other is not None:
        memrefs = [v for v in other.operands if isinstance(v.type, MemRefType)]
        if memrefs and not isinstance(other, INERT):
            return other
        other = other.prev_op if before else other.next_op
    return None


ZEROS = "zeros"


def init_bias(init: Operation | None, out: SSAValue) -> SSAValue | str | None:
    """`ZEROS` for a fill of `out` with 0.0, the vector a generic broadcasts into `out` along
    `BIAS_DIM`, else None."""
    if isinstance(init, FillOp):
        if list(init.outputs) != [out] or len(init.inputs) != 1:
            return None
        return ZEROS if is_float_zero(init.inputs[0]) else None
    if not isinstance(init, GenericOp) or list(init.outputs) != [out] or len(init.inputs) != 1:
        return None
    if init.res or not all_parallel(init):
        return None
    vector_map, out_map = (attr.data for attr in init.indexing_maps)
    if not is_bias_map(vector_map, init.inputs[0]) or not is_identity(out_map):
        return None
    ops = list(init.body.block.ops)
    vector_arg = init.body.block.args[0]
    if len(ops) != 1 or not isinstance(ops[0], YieldOp) or ops[0].operands[0] is not vector_arg:
        return None
    return init.inputs[0]


def match_epilogue(epilogue: GenericOp, out: SSAValue) -> tuple[SSAValue | None, bool] | None:
    """(the vector the epilogue adds along `BIAS_DIM` or None, whether it applies a relu) for
    `dst = relu?(out + bias?)` over identity maps, else None."""
    if epilogue.res or not all_parallel(epilogue) or len(epilogue.outputs) != 1:
        return None
    maps = [attr.data for attr in epilogue.indexing_maps]
    inputs = list(epilogue.inputs)
    if out not in inputs or len(inputs) > 2 or not is_identity(maps[-1]):
        return None
    args = epilogue.body.block.args
    value = args[inputs.index(out)]
    bias, bias_arg = None, None
    for index, (operand, operand_map) in enumerate(zip(inputs, maps)):
        if operand is out:
            if not is_identity(operand_map):
                return None
        elif is_bias_map(operand_map, operand):
            bias, bias_arg = operand, args[index]
        else:
            return None
    ops = [o for o in epilogue.body.block.ops if not isinstance(o, arith.ConstantOp)]
    if bias_arg is not None:
        if not ops or not is_add_of(ops[0], value, bias_arg):
            return None
        value = ops.pop(0).results[0]
    relu = bool(ops) and is_relu_of(ops[0], value)
    if relu:
        value = ops.pop(0).results[0]
    if len(ops) != 1 or not isinstance(ops[0], YieldOp) or ops[0].operands[0] is not value:
        return None
    if bias is None and not relu:
        return None
    return bias, relu


def may_write(destination: SSAValue, inputs: Sequence[SSAValue | None]) -> bool:
    """Whether a kernel may write `destination` while it reads `inputs`: not the storage of
    one of them, and not a function argument when one of them is one too (a caller may pass
    one array twice)."""
    where = storage(destination)
    read = {storage(value) for value in inputs if value is not None}
    if where is ANY or where in read or ANY in read:
        return False
    return where != ARGUMENT


def all_parallel(op: GenericOp) -> bool:
    return all(attr.data == IteratorType.PARALLEL for attr in op.iterator_types)


def is_identity(affine_map: AffineMap) -> bool:
    results = affine_map.results
    return all(isinstance(r, AffineDimExpr) and r.position == i for i, r in enumerate(results))


def is_bias_map(affine_map: AffineMap, operand: SSAValue) -> bool:
    """A rank-1 operand indexed by `BIAS_DIM` of an iteration space of rank at least 2."""
    if not isinstance(operand.type, MemRefType) or len(operand.type.get_shape()) != 1:
        return False
    (result,) = affine_map.results or (None,)
    return (
        affine_map.num_dims >= 2
        and isinstance(result, AffineDimExpr)
        and result.position == BIAS_DIM
    )


def is_float_zero(value: SSAValue) -> bool:
    if not isinstance(value, OpResult) or not isinstance(value.op, arith.ConstantOp):
        return False
    attr = value.op.value
    return isinstance(attr, FloatAttr) and attr.value.data == 0.0


def is_add_of(op: Operation, value: SSAValue, bias: SSAValue) -> bool:
    return isinstance(op, arith.AddfOp) and {op.lhs, op.rhs} == {value, bias} and value is not bias


def is_relu_of(op: Operation, value: SSAValue) -> bool:
    """`arith.maximumf(value, 0.0)` either way round (NaN propagating, like the kernels)."""
    if not isinstance(op, arith.MaximumfOp):
        return False
    other = op.rhs if op.lhs is value else op.lhs if op.rhs is value else None
    return other is not None and is_float_zero(other)
