"""What a memref value views, for the library-call passes' aliasing checks.

`storage(buffer)` follows view ops (casts, subviews, reshapes) back to the allocation or
global a buffer views. Two buffers of different storage never overlap; function arguments
may be one another's storage (a caller may pass one array twice); anything else may be any.
"""

from __future__ import annotations

from xdsl.dialects import func, memref
from xdsl.ir import BlockArgument, OpResult, SSAValue

ANY = "any storage"
ARGUMENT = "a function argument"
VIEWS = (
    memref.CastOp,
    memref.SubviewOp,
    memref.ReinterpretCastOp,
    memref.ExpandShapeOp,
    memref.CollapseShapeOp,
)


def storage(buffer: SSAValue) -> object:
    """What `buffer` views: its allocation, the name of its global, `ARGUMENT` for function
    arguments (a caller may pass one array twice), else `ANY`."""
    while isinstance(buffer, OpResult) and isinstance(buffer.op, VIEWS):
        buffer = buffer.op.operands[0]
    if isinstance(buffer, OpResult) and isinstance(buffer.op, memref.AllocOp | memref.AllocaOp):
        return buffer
    if isinstance(buffer, OpResult) and isinstance(buffer.op, memref.GetGlobalOp):
        return str(buffer.op.name_)
    if isinstance(buffer, BlockArgument) and isinstance(buffer.block.parent_op(), func.FuncOp):
        return ARGUMENT
    return ANY
