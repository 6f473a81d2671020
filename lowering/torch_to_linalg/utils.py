"""Helpers shared by the torch-to-linalg patterns: types, init tensors, maps, scalars, generics."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    IndexType,
    IntegerAttr,
    TensorType,
    f64,
    i1,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import FillOp, GenericOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from dialects.torch.dtypes import DType
from dialects.torch.meta import Dynamic
from dialects.torch.op_base import arg_value
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN, BoolType, FloatType, IntType, ValueTensorType

PARALLEL = IteratorTypeAttr.parallel()
REDUCTION = IteratorTypeAttr.reduction()

# ---- types ----


def to_builtin_type(t: Attribute) -> Attribute:
    """!torch.vtensor<[?,4],f32> -> tensor<?x4xf32>; !torch.int -> i64; others unchanged."""
    if isinstance(t, ValueTensorType):
        if t.sizes is None or t.element is None:
            raise ValueError(
                f"cannot lower {t}: its rank and dtype must be known (run torch-refine-types)"
            )
        shape = [DYNAMIC_INDEX if d == DYN else d for d in t.sizes]
        return TensorType(t.element.signless_attr, shape)
    return {IntType(): i64, FloatType(): f64, BoolType(): i1}.get(t, t)


def tensor_type_of(op: Operation, index: int = 0) -> TensorType:
    result = to_builtin_type(op.results[index].type)
    assert isinstance(result, TensorType)
    return result


def static_shape(t: Attribute) -> tuple[int, ...]:
    assert isinstance(t, TensorType), f"expected a lowered tensor, got {t}"
    return tuple(DYN if d == DYNAMIC_INDEX else d for d in t.get_shape())


# ---- init tensors ----


def empty_like_result(
    rewriter: PatternRewriter,
    result_type: TensorType,
    size_sources: Sequence[tuple[SSAValue, int] | None],
) -> SSAValue:
    """`tensor.empty` of the result type; each dynamic dim reads its size from (tensor, dim)."""
    sizes: list[SSAValue] = []
    for dim, size in enumerate(static_shape(result_type)):
        if size != DYN:
            continue
        source = size_sources[dim]
        assert source is not None, f"no operand gives the size of result dim {dim}"
        sizes.append(dim_of(rewriter, *source))
    empty = tensor.EmptyOp(sizes, result_type)
    rewriter.insert(empty)
    return empty.tensor


def dim_of(rewriter: PatternRewriter, value: SSAValue, dim: int) -> SSAValue:
    index = arith.ConstantOp(IntegerAttr(dim, IndexType()))
    size = tensor.DimOp(value, index)
    rewriter.insert([index, size])
    return size.result


def filled(rewriter: PatternRewriter, init: SSAValue, value: float | int | bool) -> SSAValue:
    """`linalg.fill` of `init` with a constant of its element type."""
    assert isinstance(init.type, TensorType)
    block = Block()
    cst = ScalarBuilder(block).const(value, init.type.element_type)
    ops = list(block.ops)
    for op in ops:
        op.detach()
    fill = FillOp([cst], [init], [init.type])
    rewriter.insert([*ops, fill])
    return fill.results[0]


# ---- indexing maps ----


def broadcast_map(operand_shape: Sequence[int], result_shape: Sequence[int]) -> AffineMap:
    """Map result indices to an operand aligned to the right; its size-1 dims read index 0."""
    offset = len(result_shape) - len(operand_shape)
    exprs = [
        AffineExpr.constant(0) if size == 1 and result_shape[offset + i] != 1
        else AffineExpr.dimension(offset + i)
        for i, size in enumerate(operand_shape)
    ]  # fmt: skip
    return AffineMap(len(result_shape), 0, tuple(exprs))


def size_sources(
    operands: Sequence[SSAValue], result_rank: int, trailing: int = 0
) -> list[tuple[SSAValue, int] | None]:
    """For each result dim, an operand dim that carries its size (not a broadcast 1).

    Operands align to the right after dropping their last `trailing` dims (matmul batches).
    """
    sources: list[tuple[SSAValue, int] | None] = [None] * result_rank
    for value in operands:
        shape = static_shape(value.type)
        shape = shape[: len(shape) - trailing]
        offset = result_rank - len(shape)
        for i, size in enumerate(shape):
            if size != 1 and sources[offset + i] is None:
                sources[offset + i] = (value, i)
    return sources


# ---- scalars ----


def scalar_operand(b: ScalarBuilder, value: SSAValue, dtype: DType) -> SSAValue:
    """A torch scalar operand as an arith value of `dtype`: constants fold into the dtype."""
    known = arg_value(value)
    if not isinstance(known, Dynamic):
        return b.const(known, dtype.signless_attr)
    return b.cast(value, dtype.signless_attr)


# ---- generic ----


def build_generic(
    inputs: Sequence[SSAValue],
    inits: Sequence[SSAValue],
    maps: Sequence[AffineMap],
    iterators: Sequence[Any],
    body: Callable[[ScalarBuilder, Sequence[SSAValue]], Sequence[SSAValue]],
) -> GenericOp:
    """A `linalg.generic` whose body `body(b, block_args)` returns the yielded values."""
    arg_types = [_element(v.type) for v in (*inputs, *inits)]
    block = Block(arg_types=arg_types)
    yielded = body(ScalarBuilder(block), block.args)
    block.add_op(YieldOp(*yielded))
    return GenericOp(
        inputs,
        inits,
        Region(block),
        [AffineMapAttr(m) for m in maps],
        list(iterators),
        [v.type for v in inits],
    )


def _element(t: Attribute) -> Attribute:
    assert isinstance(t, TensorType), f"linalg operand must be a tensor, got {t}"
    return t.element_type
