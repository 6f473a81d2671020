"""Lowers custom ops (`dialects/torch/custom.py`) to a call of their kernel.

Each result gets a `tensor.empty` of its lowered type, whose `?` sizes are read with
`tensor.dim` from the argument dim the op's shape rule passes through; scalar arguments become
i64 / f64 / i1 values of their schema type. The op then becomes a destination-passing call of
the kernel's declaration (see `lowering/kernel_calls.py`):
`%r = func.call @my_ops.warp_perspective(%src, %M, %empty) : (...) -> tensor<?x?xf32>`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.utils.exceptions import PassFailedException

from dialects.torch.custom import CustomOp
from dialects.torch.dtypes import BOOL, FLOAT64, INT64
from dialects.torch.op_base import arg_value
from dialects.torch.types import DYN
from lowering.kernel_calls import declare_kernel
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import (
    empty_like_result,
    scalar_operand,
    static_shape,
    tensor_type_of,
)

SCALAR_DTYPES = {"int": INT64, "float": FLOAT64, "bool": BOOL}


class ConvertCustomOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CustomOp, rewriter: PatternRewriter) -> None:
        arguments = type(op).parsed_schema().arguments
        inputs = [
            value if a.is_tensor else self.scalar(rewriter, value, a.type)
            for a, value in zip(arguments, op.operands, strict=True)
        ]
        sources = type(op).dynamic_size_sources([arg_value(v) for v in op.operands])
        outputs = [
            self.destination(rewriter, op, index, dims, inputs)
            for index, dims in enumerate(sources)
        ]
        result_types = [tensor_type_of(op, i) for i in range(len(op.results))]
        operands = [*inputs, *outputs]
        symbol = declare_kernel(op, type(op).KERNEL_NAME, [v.type for v in operands], result_types)
        call = func.CallOp(symbol, operands, result_types)
        for new, old in zip(call.res, op.results):
            new.name_hint = old.name_hint
        rewriter.replace(op, call)

    @staticmethod
    def scalar(rewriter: PatternRewriter, value: SSAValue, kind: str) -> SSAValue:
        return build_scalars(rewriter, lambda b: scalar_operand(b, value, SCALAR_DTYPES[kind]))

    @staticmethod
    def destination(
        rewriter: PatternRewriter,
        op: CustomOp,
        index: int,
        dims: Sequence[tuple[int, int] | None],
        inputs: Sequence[SSAValue],
    ) -> SSAValue:
        result_type = tensor_type_of(op, index)
        sizes = [None if s is None else (inputs[s[0]], s[1]) for s in dims]
        for dim, size in enumerate(static_shape(result_type)):
            if size == DYN and sizes[dim] is None:
                raise PassFailedException(
                    f"convert-torch-to-linalg: {op.name}: the size of dim {dim} of result "
                    f"#{index} is only known at run time and is not an argument's size; its "
                    "shape function must pass an argument size through (e.g. `src.shape[0]`)"
                )
        return empty_like_result(rewriter, result_type, sizes)


PATTERNS: tuple[RewritePattern, ...] = (ConvertCustomOp(),)
