"""How a `linalg.generic` on memrefs reads as a contraction: its body, its indexing maps as
dim positions, its iterator kinds. Shared by the passes that turn contractions into library
calls (`lowering/loops/`) and the one that unbatches batched matmuls (`lowering/bufferize/`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, Float64Type, MemRefType
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)

DTYPES = {Float32Type(): "f32", Float64Type(): "f64"}
"""The element types of contractions that have library kernels, and their kernel suffixes."""



def is_contraction(op: GenericOp) -> bool:
    """Two inputs and one output, all of one float type, body `out + in0 * in1`."""
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        return False
    if any(not isinstance(v.type, MemRefType) for v in op.operands):
        return False
    types = {v.type.get_element_type() for v in op.operands}  # type: ignore[union-attr]
    if len(types) != 1 or next(iter(types)) not in DTYPES:
        return False
    ops = list(op.body.block.ops)
    if len(ops) != 3 or not isinstance(ops[2], YieldOp):
        return False
    mul, add, _ = ops
    a, b, out = op.body.block.args
    if not isinstance(mul, arith.MulfOp) or not isinstance(add, arith.AddfOp):
        return False
    if {mul.lhs, mul.rhs} != {a, b} or a is b:
        return False
    return {add.lhs, add.rhs} == {out, mul.result} and ops[2].operands[0] is add.result


def dims(affine_map: AffineMap) -> list[int] | None:
    """The positions of a map made only of plain dims, else None."""
    results = affine_map.results
    if not all(isinstance(r, AffineDimExpr) for r in results):
        return None
    return [r.position for r in results]  # type: ignore[union-attr]


def linear_terms(expr: AffineExpr) -> dict[int, int] | None:
    """`d2 * 2 + d5` -> {2: 2, 5: 1}; None for anything else (constants, mod, div)."""
    if isinstance(expr, AffineDimExpr):
        return {expr.position: 1}
    if not isinstance(expr, AffineBinaryOpExpr):
        return None
    if expr.kind == AffineBinaryOpKind.Mul:
        dim, factor = expr.lhs, expr.rhs
        if isinstance(dim, AffineConstantExpr):
            dim, factor = factor, dim
        if isinstance(dim, AffineDimExpr) and isinstance(factor, AffineConstantExpr):
            return {dim.position: factor.value}
        return None
    if expr.kind != AffineBinaryOpKind.Add:
        return None
    lhs, rhs = linear_terms(expr.lhs), linear_terms(expr.rhs)
    if lhs is None or rhs is None or lhs.keys() & rhs.keys():
        return None
    return lhs | rhs


def iterator_kinds(op: GenericOp) -> list[IteratorType]:
    return [attr.data for attr in op.iterator_types]


def maps_of(op: GenericOp) -> list[AffineMap]:
    return [attr.data for attr in op.indexing_maps]


def ranks_are(values: Sequence[SSAValue], rank: int) -> bool:
    return all(len(v.type.get_shape()) == rank for v in values)  # type: ignore[union-attr]

def dim_maps(op: GenericOp) -> list[list[int]] | None:
    """The dim positions of each indexing map, if every map is made of plain dims."""
    maps = [dims(m) for m in maps_of(op)]
    return None if any(m is None for m in maps) else maps  # type: ignore[return-value]
