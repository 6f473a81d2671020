"""Calls of custom-op kernels in the IR, from the `linalg` stage down to the python target.

A custom op (`dialects/torch/custom.py`) lowers to a call of a body-less `func.func` that names
its kernel (`lowering/run/custom_kernels.py`) in the attribute `tsjit.kernel`. The call passes
destinations, like a linalg op: its last N operands are the buffers of its N results.

On tensors (stage `linalg`), each result *is* its destination after the kernel wrote it:
```mlir
%out = tensor.empty(%h, %w) : tensor<?x?xf32>
%warp = func.call @my_ops.warp_perspective(%src, %M, %out)
    : (tensor<?x?xf32>, tensor<3x3xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
func.func private @my_ops.warp_perspective(tensor<?x?xf32>, tensor<3x3xf32>, tensor<?x?xf32>)
    -> tensor<?x?xf32> attributes {tsjit.kernel = "my_ops.warp_perspective"}
```
After bufferization (stage `memref`) the call has no results and writes into its destination
buffers, which stand for the results: `func.call @my_ops.warp_perspective(%src, %M, %out)
: (memref<?x?xf32>, memref<3x3xf32>, memref<?x?xf32>) -> ()`. The python target binds each
declaration to the registered kernel when the generated module is imported.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import bufferization, func, tensor
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable

KERNEL_ATTR = "tsjit.kernel"


# ---- declarations and calls ----


def kernel_name(op: Operation | None) -> str | None:
    """The kernel a `func.func` declaration stands for, or None for any other op."""
    if not isinstance(op, func.FuncOp) or not op.is_declaration:
        return None
    attr = op.attributes.get(KERNEL_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


def declare_kernel(
    at: Operation, name: str, inputs: Sequence[Attribute], outputs: Sequence[Attribute]
) -> str:
    """The symbol of a declaration of kernel `name` with this type in the module of `at`:
    an existing one, else a new one placed in front of the function holding `at`."""
    function = at
    while not isinstance(function.parent_op(), ModuleOp):
        parent = function.parent_op()
        assert parent is not None, "a kernel call must be inside a module"
        function = parent
    module = function.parent_op()
    assert isinstance(module, ModuleOp)
    taken = {o.sym_name.data: o for o in module.ops if isinstance(o, func.FuncOp)}
    symbol, index = name, 0
    while symbol in taken:
        existing = taken[symbol]
        same_type = list(existing.function_type.inputs) == list(inputs) and list(
            existing.function_type.outputs
        ) == list(outputs)
        if kernel_name(existing) == name and same_type:
            return symbol
        index += 1
        symbol = f"{name}_{index}"
    declaration = func.FuncOp.external(symbol, inputs, outputs)
    declaration.attributes[KERNEL_ATTR] = StringAttr(name)
    Rewriter.insert_op(declaration, InsertPoint.before(function))
    return symbol


def kernel_outputs(call: func.CallOp) -> list[SSAValue] | None:
    """The destination operands of a call of a kernel declaration, else None."""
    if kernel_name(SymbolTable.lookup_symbol(call, call.callee)) is None:
        return None
    count = len(call.res)
    return list(call.arguments[len(call.arguments) - count :]) if count else []


# ---- bufferization (used by `linalg-bufferize`) ----


def is_private_destination(value: SSAValue, call: Operation) -> bool:
    """A `tensor.empty` of the call's block that only the call reads (sizes aside)."""
    if not isinstance(value, OpResult) or not isinstance(value.op, tensor.EmptyOp):
        return False
    readers = [u for u in value.uses if not isinstance(u.operation, tensor.DimOp)]
    return value.op.parent_block() is call.parent_block() and len(readers) == 1


class CopyUnsafeKernelOutputs(RewritePattern):
    """Give a kernel call its own destination wherever another op may read the one it has
    (CSE merges equal `tensor.empty`s): a kernel writes its destination whole, so a new
    `tensor.empty` of the same sizes (or a buffer like the old one) is enough."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        outputs = kernel_outputs(op)
        if not outputs:
            return
        first = len(op.arguments) - len(outputs)
        for index, value in enumerate(outputs, start=first):
            if is_private_destination(value, op):
                continue
            owner = value.owner
            private = (
                tensor.EmptyOp(tuple(owner.dynamic_sizes), value.type)
                if isinstance(owner, tensor.EmptyOp)
                else bufferization.AllocTensorOp(value.type, copy=value)  # type: ignore[arg-type]
            )
            rewriter.insert(private)
            op.operands[index] = private.results[0]
            rewriter.notify_op_modified(op)


class ConvertKernelCallOp(RewritePattern):
    """On memrefs: a kernel call with results -> the call without, its results replaced by its
    destination buffers; its declaration loses the results too."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        outputs = kernel_outputs(op)
        if not outputs:
            return
        declaration = SymbolTable.lookup_symbol(op, op.callee)
        assert isinstance(declaration, func.FuncOp)
        if declaration.function_type.outputs.data:
            inputs = list(declaration.function_type.inputs)
            declaration.function_type = FunctionType.from_lists(inputs, [])
        for result, buffer in zip(op.res, outputs, strict=True):
            buffer.name_hint = result.name_hint or buffer.name_hint
        rewriter.replace(op, func.CallOp(op.callee, list(op.arguments), []), outputs)
