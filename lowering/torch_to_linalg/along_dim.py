"""Lowers the ops computed row by row along one dim (sorts, selections, scans) to kernel calls.

An `AlongDimOp` (`dialects/torch/ops/along_dim.py`) says, in its `KernelPlan`, which kernel
(`lowering/run/kernels/along_dim.py`) computes it, the dim of its rows and the kernel's int
scalars. The op becomes a destination-passing call like a custom op's
(`lowering/kernel_calls.py`):
```mlir
%values = tensor.empty(%n) : tensor<4x?xf32>
%indices = tensor.empty(%n) : tensor<4x?xi64>
%v, %i = func.call @tsjit.sort(%x, %outer, %n64, %inner, %descending, %k, %values, %indices)
```
`outer`, `n`, `inner` (i64) are the products of `x`'s sizes before, at and after the dim
(read with `tensor.dim` where dynamic); a whole-tensor op passes `1, numel, 1`. A result
dim has the size of the same input dim (the row dim: the input's, or static k / 1 / dropped,
as the op's type says). A kernel output the op does not return (argsort's values) gets a
scratch buffer of the returned result's shape.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.ops.along_dim import AlongDimOp, KernelPlan
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.kernel_calls import declare_kernel
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import dim_of, empty_like_result, static_shape, tensor_type_of


class ConvertAlongDimOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AlongDimOp, rewriter: PatternRewriter) -> None:
        plan = op.plan()
        source = op.operands[0]
        shape = static_shape(source.type)
        split = _row_split(plan, len(shape))
        sizes = [_product(rewriter, source, dims) for dims in split]
        scalars = [_i64(rewriter, value) for value in plan.scalars]
        outputs = _destinations(rewriter, op, plan, source)
        operands = [source, *sizes, *scalars, *outputs]
        result_types = [o.type for o in outputs]
        symbol = declare_kernel(op, plan.kernel.name, [v.type for v in operands], result_types)
        call = func.CallOp(symbol, operands, result_types)
        rewriter.insert(call)
        by_result = {r: call.res[k] for k, r in enumerate(plan.outputs) if r is not None}
        results = [by_result[i] for i in range(len(op.results))]
        for new, old in zip(results, op.results):
            new.name_hint = old.name_hint
        rewriter.replace(op, [], results)


def _row_split(plan: KernelPlan, rank: int) -> tuple[list[int], list[int], list[int]]:
    """The input dims that make up (outer, n, inner)."""
    if plan.dim is None or rank == 0:
        return [], list(range(rank)), []
    return list(range(plan.dim)), [plan.dim], list(range(plan.dim + 1, rank))


def _product(rewriter: PatternRewriter, source: SSAValue, dims: Sequence[int]) -> SSAValue:
    """The product of `source`'s sizes in `dims` as an i64 (1 for no dims)."""
    shape = static_shape(source.type)
    static = 1
    for d in dims:
        static *= 1 if shape[d] == DYN else shape[d]
    dynamic = [dim_of(rewriter, source, d) for d in dims if shape[d] == DYN]

    def build(b: ScalarBuilder) -> SSAValue:
        if not dynamic:
            return b.const(static, i64)
        count = b.const(static, IndexType())
        for size in dynamic:
            count = b.mul(count, size)
        return b.index_cast(count, i64)

    return build_scalars(rewriter, build)


def _i64(rewriter: PatternRewriter, value: int) -> SSAValue:
    return build_scalars(rewriter, lambda b: b.const(value, i64))


def _destinations(
    rewriter: PatternRewriter, op: AlongDimOp, plan: KernelPlan, source: SSAValue
) -> list[SSAValue]:
    """One `tensor.empty` per kernel output: the op's result type, or for a scratch output
    the returned result's shape with the input's element type (values) or i64 (indices)."""
    returned = next(r for r in plan.outputs if r is not None)
    shape_type = tensor_type_of(op, returned)
    input_type = source.type
    assert isinstance(input_type, TensorType)
    outputs = []
    for position, result in enumerate(plan.outputs):
        if result is not None:
            typ = tensor_type_of(op, result)
        else:
            element: Attribute = input_type.element_type if position == 0 else i64
            typ = TensorType(element, shape_type.get_shape())
        outputs.append(empty_like_result(rewriter, typ, _size_sources(plan, source, typ)))
    return outputs


def _size_sources(
    plan: KernelPlan, source: SSAValue, typ: TensorType
) -> list[tuple[SSAValue, int] | None]:
    """For each result dim, the input dim of the same size (the row dim dropped when the
    result has one dim fewer); a dynamic row dim of a result is the input's."""
    rank = len(static_shape(source.type))
    result_rank = len(typ.get_shape())
    if plan.dim is None or result_rank == 0:
        return [None] * result_rank
    if result_rank == rank:
        return [(source, d) for d in range(rank)]
    return [(source, d if d < plan.dim else d + 1) for d in range(result_rank)]


PATTERNS: tuple[RewritePattern, ...] = (ConvertAlongDimOp(),)
