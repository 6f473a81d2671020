"""Lowers `torch.aten.nonzero`, whose result size is known only after counting, to two kernel
calls (`lowering/run/kernels/value_sized.py`, destination passing as `lowering/kernel_calls.py`):
the count into a one-element buffer, read with `tensor.extract`, then the positions into a
`tensor.empty` of that many rows.

```mlir
%c0 = tensor.empty() : tensor<1xi64>
%c = func.call @tsjit.count_nonzero(%x, %c0) : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<1xi64>
%n = tensor.extract %c[%zero] : tensor<1xi64>
%rows = arith.index_cast %n : i64 to index
%p0 = tensor.empty(%rows) : tensor<?x2xi64>
%p = func.call @tsjit.nonzero(%x, %p0) : (tensor<?x4xf32>, tensor<?x2xi64>) -> tensor<?x2xi64>
```
Every other value-sized op decomposes into `nonzero` (`dialects/torch/ops/value_sized.py`).
"""

from __future__ import annotations

from xdsl.dialects import func, tensor
from xdsl.dialects.builtin import IndexType, TensorType, i64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from dialects.torch import kernel_refs
from dialects.torch.kernel_refs import KernelRef
from dialects.torch.ops.value_sized import AtenNonzeroOp
from dialects.torch.scalar_builder import ScalarBuilder
from lowering.kernel_calls import declare_kernel
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import tensor_type_of


class ConvertAtenNonzeroOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenNonzeroOp, rewriter: PatternRewriter) -> None:
        source = op.self_
        rows = _count(rewriter, op, source)
        result_type = tensor_type_of(op)
        empty = tensor.EmptyOp([rows], result_type)
        rewriter.insert(empty)
        call = _kernel_call(op, kernel_refs.NONZERO, source, empty.tensor)
        rewriter.insert(call)
        call.res[0].name_hint = op.result.name_hint
        rewriter.replace(op, [], [call.res[0]])


def _count(rewriter: PatternRewriter, op: AtenNonzeroOp, source: SSAValue) -> SSAValue:
    """How many elements of `source` are nonzero, as an index (the kernel's count, read)."""
    empty = tensor.EmptyOp([], TensorType(i64, [1]))
    rewriter.insert(empty)
    call = _kernel_call(op, kernel_refs.COUNT_NONZERO, source, empty.tensor)
    rewriter.insert(call)
    counted = call.res[0]
    counted.name_hint = "count"

    def read(b: ScalarBuilder) -> SSAValue:
        element = b.emit(tensor.ExtractOp(counted, [b.const(0, IndexType())], i64))
        return b.index_cast(element, IndexType())

    return build_scalars(rewriter, read)


def _kernel_call(
    op: AtenNonzeroOp, kernel: KernelRef, source: SSAValue, destination: SSAValue
) -> func.CallOp:
    operands = [source, destination]
    symbol = declare_kernel(op, kernel.name, [v.type for v in operands], [destination.type])
    return func.CallOp(symbol, operands, [destination.type])


PATTERNS: tuple[RewritePattern, ...] = (ConvertAtenNonzeroOp(),)
