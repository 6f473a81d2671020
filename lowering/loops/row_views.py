"""Library kernels read a row `x[r]` of a buffer in place instead of a copy of it
(`memref-row-views`).

`convert-torch-to-linalg` makes `x[r]` a copy (a `linalg.generic` that loads `x[r, d0, d1,
...]` at each point into a new buffer). An elementwise reader fuses that copy, but a matmul
cannot, so an RNN step `x[t] @ W` copies its row on every step (a parallel loop) before the
kernel reads it. The row of a C-contiguous buffer is a C-contiguous block of it: when only
library kernels read the copy, as inputs, they get `memref.subview %x[%r, 0, ...]` (the
python target: the numpy view `x[r]`) and the copy goes.

```
%c = memref.alloc(%b, %k)                              %c = memref.subview %x[%r, 0, 0]
linalg.generic outs(%c) { memref.load %x[%r, d0, d1] }        [1, %b, %k] [1, 1, 1]
func.call @tsjit.matmul_packed_f32(%c, %wp, %out)  ==>  func.call @tsjit.matmul_packed_f32(
                                                             %c, %wp, %out)
```

A copy is replaced when its buffer is a `memref.alloc` of the row's sizes (`memref.dim %x,
d + 1` or the same static size) written by the copy alone, whose other users, all behind the
copy in its block, are `memref.dim`, `memref.cast`, and calls of library kernels that take
it (or a cast of it) as an input: a kernel writes only its last buffer operand (the output
of a matmul or conv2d, the packed panels of a pack). Buffers are written once, when they are
made (`linalg-bufferize`), and arguments are C-contiguous: the view holds what the copy held
for as long as the copy lived.

It runs after `convert-linalg-to-library-calls`, which decides which weights a loop leaves
unchanged (packed once in front of it) from the calls in the loop: a call reading a row of a
function argument counts as a possible write of every argument there, a copy does not.

**Expects:** the `memref` stage after `convert-linalg-to-library-calls`.

**Produces:** the same, with such row copies replaced by `memref.subview`s (of a strided
layout type) cast to the copy's type, which the calls were made for (a cast that only renames
the layout: the python target passes arrays whatever their layout).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
    SymbolRefAttr,
)
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp, IndexOp, YieldOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from lowering.ir_marks import LIBRARY_ATTR


@dataclass(frozen=True)
class RowCopy:
    """`copy` writes `source[row]` into `buffer`."""

    copy: GenericOp
    buffer: SSAValue
    source: SSAValue
    row: SSAValue


def match_row_copy(op: GenericOp) -> RowCopy | None:
    """`op` copies a whole row of a buffer into a new allocation (module docstring)."""
    if op.inputs or len(op.outputs) != 1:
        return None
    buffer = op.outputs[0]
    rank = len(op.iterator_types)
    if rank == 0 or not isinstance(buffer.owner, memref.AllocOp):
        return None
    if any(kind.data != IteratorType.PARALLEL for kind in op.iterator_types):
        return None
    if op.indexing_maps.data[0].data != AffineMap.identity(rank):
        return None
    ops = list(op.body.block.ops)
    if len(ops) != rank + 2:
        return None
    *indices, load, yield_ = ops
    if not isinstance(load, memref.LoadOp) or not isinstance(yield_, YieldOp):
        return None
    if tuple(yield_.operands) != (load.res,):
        return None
    if [i.dim.value.data for i in indices if isinstance(i, IndexOp)] != list(range(rank)):
        return None
    row, *rest = load.indices
    if rest != [i.results[0] for i in indices] or op.is_ancestor(owner_op(row)):
        return None
    source = load.memref
    if not covers_row(buffer.owner, source):
        return None
    return RowCopy(op, buffer, source, row)


def owner_op(value: SSAValue) -> Operation:
    owner = value.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    assert op is not None
    return op


def covers_row(alloc: memref.AllocOp, source: SSAValue) -> bool:
    """`alloc` has the shape of `source` without its first dim."""
    shape = alloc.memref.type.get_shape()
    source_shape = source.type.get_shape()  # type: ignore[union-attr]
    if len(source_shape) != len(shape) + 1 or alloc.symbol_operands:
        return False
    sizes = iter(alloc.dynamic_sizes)
    for dim, size in enumerate(shape, start=1):
        if size != DYNAMIC_INDEX:
            if size != source_shape[dim]:
                return False
            continue
        dim_op = next(sizes).owner
        if not isinstance(dim_op, memref.DimOp) or dim_op.source is not source:
            return False
        index = dim_op.index.owner
        if not isinstance(index, arith.ConstantOp) or not isinstance(index.value, IntegerAttr):
            return False
        if index.value.value.data != dim:
            return False
    return True


def reads_only(copy: RowCopy) -> bool:
    """Every user of the copy's buffer but the copy is behind it in its block and only reads
    it: a dim, a cast only read likewise, or a library kernel taking it as an input."""
    block = copy.copy.parent_block()
    return all(
        use.operation is copy.copy or only_read_by(use.operation, copy.buffer, block)
        for use in copy.buffer.uses
    )


def only_read_by(op: Operation, buffer: SSAValue, block: Block | None) -> bool:
    if op.parent_block() is not block:
        return False
    if isinstance(op, memref.DimOp):
        return True
    if isinstance(op, memref.CastOp):
        return all(only_read_by(use.operation, op.dest, block) for use in op.dest.uses)
    if not isinstance(op, func.CallOp) or not is_library_call(op):
        return False
    buffers = [v for v in op.operands if isinstance(v.type, MemRefType)]
    return buffer not in buffers[-1:]


def is_library_call(call: func.CallOp) -> bool:
    """`call` calls a declaration marked as a library kernel."""
    module = call.get_toplevel_object()
    if not isinstance(module, ModuleOp):
        return False
    callee: SymbolRefAttr = call.callee
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == callee.root_reference.data:
            return LIBRARY_ATTR in op.attributes
    return False


def row_view(copy: RowCopy) -> memref.SubviewOp:
    """`source[row]` as a subview: the row's sizes, the source's strides for its dims."""
    alloc = copy.buffer.owner
    assert isinstance(alloc, memref.AllocOp)
    source_type = copy.source.type
    assert isinstance(source_type, MemRefType)
    shape = alloc.memref.type.get_shape()
    strides = source_type.get_strides()
    assert strides is not None
    layout = StridedLayoutAttr(list(strides[1:]), None)
    view_type = MemRefType(source_type.get_element_type(), shape, layout)
    rank = len(shape) + 1
    return memref.SubviewOp(
        copy.source, [copy.row], list(alloc.dynamic_sizes), [],
        [DYNAMIC_INDEX, *[0] * (rank - 1)], [1, *shape], [1] * rank, view_type,
    )  # fmt: skip


class ViewRowCopy(RewritePattern):
    """A row copy only library kernels read -> a view of the row (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        copy = match_row_copy(op)
        if copy is None or not reads_only(copy):
            return
        if copy.source.type.get_strides() is None:  # type: ignore[union-attr]
            return
        view = row_view(copy)
        as_buffer = memref.CastOp.get(view.result, copy.buffer.type)
        rewriter.insert([view, as_buffer])
        alloc = copy.buffer.owner
        assert isinstance(alloc, memref.AllocOp)
        rewriter.erase(op)
        copy.buffer.replace_all_uses_with(as_buffer.dest)
        rewriter.erase(alloc)


@dataclass(frozen=True)
class MemrefRowViewsPass(ModulePass):
    """Row copies that only library kernels read -> views (module docstring)."""

    name = "memref-row-views"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ViewRowCopy(), apply_recursively=False).rewrite_module(op)
