"""Lowers every elementwise torch op to one `linalg.generic` built from the op's `payload`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from xdsl.dialects import tensor
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch.dtypes import DType
from dialects.torch.families import ElementwiseOp
from dialects.torch.op_base import arg_value
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import ValueTensorType
from lowering.torch_to_linalg.utils import (
    PARALLEL,
    broadcast_map,
    build_generic,
    empty_like_result,
    scalar_operand,
    size_sources,
    static_shape,
    tensor_type_of,
)


class ConvertElementwiseOp(RewritePattern):
    """Tensor operands become generic inputs with broadcasting maps; scalar operands are
    materialized in the compute dtype (constants directly in it, so float32 never widens).
    Tensors in `RAW_ARGS` keep their dtype; `STATIC_ARGS`, strings and None reach the
    payload as Python values. A 0-d tensor operand (`x / x.sum()`) is read once with
    `tensor.extract` before the generic and used in the body like a scalar: one load instead
    of one per element (and numba's parfors cannot index a 0-d array inside `prange`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ElementwiseOp, rewriter: PatternRewriter) -> None:
        result_type = tensor_type_of(op)
        compute = op.compute_dtype(tuple(op.arg_values()))
        result_dtype = op.result_types[0]
        assert compute is not None and isinstance(result_dtype, ValueTensorType)
        out_element = result_type.element_type
        tensors = [v for v in op.operands if _is_tensor(v) and static_shape(v.type)]
        hoisted = {v: _extract_scalar(rewriter, v) for v in op.operands if _is_0d_tensor(v)}
        result_shape = static_shape(result_type)
        maps = [broadcast_map(static_shape(t.type), result_shape) for t in tensors]
        maps.append(broadcast_map(result_shape, result_shape))
        init = empty_like_result(rewriter, result_type, size_sources(tensors, len(result_shape)))

        names = [a.name for a in op.parsed_schema().arguments]

        def body(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
            elements = iter(args[: len(tensors)])
            values = [
                _payload_value(b, op, name, v, _element(v, elements, hoisted), compute)
                for name, v in zip(names, op.operands)
            ]
            return [b.cast(op.payload(b, *values), out_element)]

        generic = build_generic(tensors, [init], maps, [PARALLEL] * len(result_shape), body)
        rewriter.replace(op, generic)


def _element(
    operand: SSAValue, elements: Iterator[SSAValue], hoisted: dict[SSAValue, SSAValue]
) -> SSAValue | None:
    """The body value of a tensor operand (its block argument or hoisted scalar), else None."""
    if operand in hoisted:
        return hoisted[operand]
    return next(elements) if _is_tensor(operand) else None


def _extract_scalar(rewriter: PatternRewriter, value: SSAValue) -> SSAValue:
    element = value.type.element_type  # type: ignore[attr-defined]
    extract = tensor.ExtractOp(value, [], element)
    rewriter.insert(extract)
    return extract.result


def _is_0d_tensor(value: SSAValue) -> bool:
    return _is_tensor(value) and not static_shape(value.type)


def _payload_value(
    b: ScalarBuilder,
    op: ElementwiseOp,
    name: str,
    operand: SSAValue,
    element: SSAValue | None,
    compute: DType,
) -> Any:
    """What the payload receives for one operand (see `ElementwiseOp`)."""
    if element is not None:
        return element if name in op.RAW_ARGS else b.cast(element, compute.signless_attr)
    known = arg_value(operand)
    if name in op.STATIC_ARGS or known is None or isinstance(known, str):
        return known
    return scalar_operand(b, operand, compute)


def _is_tensor(value: SSAValue) -> bool:
    from xdsl.dialects.builtin import TensorType

    return isinstance(value.type, TensorType | ValueTensorType)


PATTERNS: tuple[RewritePattern, ...] = (ConvertElementwiseOp(),)
