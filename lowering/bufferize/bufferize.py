"""Converts linalg / tensor / scf on builtin tensors to the same ops on memref buffers.

xDSL has no bufferization (issue #6139), so this is ours. It keeps one invariant, which makes
it simple and correct: *every tensor value's buffer is written once, when it is created, and
never again.* A linalg op may therefore write in place into the buffer of its init (out)
operand only if that buffer is fresh: made for it by `tensor.empty` (or by a chain of linalg
ops, such as `linalg.fill`, that wrote in place into a fresh `tensor.empty`), in the same
block, and read by nobody else (`tensor.dim` uses do not count: sizes never change).
Otherwise the init is first copied into a new buffer.

Constant tensors (`arith.constant dense<...> : tensor<...>`) become read-only
`memref.global`s, read with `memref.get_global` (see `hoist_tensor_constants`).

The pass runs in three steps:
1. `CopyUnsafeInits` (on tensors): an init that is not fresh is replaced by
   `bufferization.alloc_tensor() copy(%init)`, so from here on every init may be overwritten.
2. `ConvertTensorType`: `tensor<?x4xf32>` -> `memref<?x4xf32>` on every result, block argument
   and attribute (function signatures, `func.call`, scf results, iter_args and yields).
3. One pattern per op: `tensor.empty` -> `memref.alloc`, `alloc_tensor copy` -> `memref.alloc`
   + `memref.copy`, `tensor.dim` -> `memref.dim`, `tensor.extract` -> `memref.load`,
   `tensor.collapse_shape` -> `memref.collapse_shape` (a view), and every linalg op with
   tensor results -> the same op on memrefs, its results replaced by its inits.
A call of a custom-op kernel passes destinations like a linalg op (`lowering/kernel_calls.py`):
step 1 gives it private ones, step 3 drops its results for its destination buffers.

`tensor.insert_slice %src into %dest` (what `x[t] = v` becomes) is one more such writer: its
`dest` is an init, so it writes into `dest`'s buffer when that is fresh (step 3: a
`memref.subview` of it and a `memref.copy` of `src`), else into a copy. One more kind of buffer
is fresh: an `scf.for` body's loop-carried argument read by nobody but its writer, when the
loop's initial value is fresh for the loop (step 1 gives the loop a private copy otherwise) and
the body yields distinct values, each made in the body or its own argument. A loop that grows
`out[t] = h` then writes each `h` into one buffer instead of copying `out` every iteration.

**Expects:** the `linalg` stage: `func.func`s on ranked builtin `tensor<>` types (static or
dynamic dims, 0-d allowed) holding arith / math ops, `tensor.empty`, `tensor.dim`,
`tensor.extract`, linalg ops on tensors (generic, fill, named ops, transpose, broadcast,
reduce), `func.call` / `func.return`, and `scf.if` / `scf.for` / `scf.while` that carry tensors.

**Produces:** the `memref` stage: only func, arith, math, scf, memref (alloc, dim, load, copy)
and linalg ops on memrefs (no results). No tensor type remains anywhere. Any other op that
touches a tensor is rejected with a `PassFailedException` naming the op.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, bufferization, func, memref, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.ops import BroadcastOp, ReduceOp
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    TypeConversionPattern,
    attr_type_rewrite_pattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import PassFailedException

from lowering.contracts import require_stage
from lowering.kernel_calls import ConvertKernelCallOp, CopyUnsafeKernelOutputs

PASS_NAME = "linalg-bufferize"

LinalgOnTensors = LinalgStructuredOperation | BroadcastOp | ReduceOp
"""The linalg ops that take init (out) operands and return the updated inits as tensors."""

PASS_THROUGH_OPS: tuple[type[Operation], ...] = (
    func.FuncOp,
    func.CallOp,
    func.ReturnOp,
    scf.ForOp,
    scf.IfOp,
    scf.WhileOp,
    scf.YieldOp,
    scf.ConditionOp,
)
"""Ops that only pass whole tensors around: they keep their structure, only types change."""

CONVERTED_OPS: tuple[type[Operation], ...] = (
    tensor.EmptyOp,
    tensor.DimOp,
    tensor.ExtractOp,
    tensor.CastOp,
    tensor.CollapseShapeOp,
    tensor.InsertSliceOp,
    arith.ConstantOp,
    bufferization.AllocTensorOp,
    LinalgStructuredOperation,
    BroadcastOp,
    ReduceOp,
)
"""Ops that this pass rewrites to memref ops."""


# ---- legality ----


def has_tensor_type(op: Operation) -> bool:
    """True if a result, operand or block argument of `op` is a tensor."""
    values = (*op.results, *op.operands, *(a for r in op.regions for b in r.blocks for a in b.args))
    return any(isinstance(v.type, TensorType) for v in values)


def check_supported(module: ModuleOp) -> None:
    """Reject, before changing anything, any op that touches tensors and is not handled here."""
    for op in module.walk():
        if isinstance(op, (*CONVERTED_OPS, *PASS_THROUGH_OPS)) or not has_tensor_type(op):
            continue
        raise PassFailedException(
            f"{PASS_NAME}: cannot bufferize '{op.name}': it is not one of the supported "
            "tensor ops (tensor.empty/dim/extract, linalg on tensors, func, scf.if/for/while)"
        )


def check_no_tensors(module: ModuleOp) -> None:
    """The memref-stage contract: no tensor type and no tensor/bufferization op remains."""
    for op in module.walk():
        if has_tensor_type(op) or op.dialect_name() in ("tensor", "bufferization"):
            raise PassFailedException(
                f"{PASS_NAME}: '{op.name}' still holds tensors after bufferization "
                "(memref-stage contract: no tensor types remain)"
            )


# ---- step 0: drop tensor computations nobody reads ----

DEAD_WHEN_UNUSED = (LinalgStructuredOperation, BroadcastOp, ReduceOp, tensor.EmptyOp, tensor.DimOp)
"""Ops without effects besides their results (a linalg body holds only scalar ops and reads)."""


def erase_unused_tensor_ops(module: ModuleOp) -> None:
    """Erase linalg ops on tensors, `tensor.empty` and `tensor.dim` whose results nobody uses
    (`x[t] = h` scripts a read of `x[t]` for its shape only): they would compute into buffers
    of their own, and a dead read of a loop-carried tensor keeps it from being written in
    place. Backwards, so a chain of dead ops goes in one walk."""
    for op in reversed(list(module.walk())):
        if isinstance(op, DEAD_WHEN_UNUSED) and op.results and not any(r.uses for r in op.results):
            op.detach()
            op.erase()


# ---- step 1: make every linalg init safe to overwrite ----


def readers(value: SSAValue) -> list[Operation]:
    """The ops that read `value`'s contents (`tensor.dim` reads only sizes, which never change)."""
    return [use.operation for use in value.uses if not isinstance(use.operation, tensor.DimOp)]


def is_fresh(value: SSAValue, user: Operation) -> bool:
    """True if `user` may overwrite the buffer of `value` (see the module docstring)."""
    if isinstance(value, BlockArgument):
        return readers(value) == [user] and is_fresh_loop_argument(value)
    if not isinstance(value, OpResult) or value.op.parent_block() is not user.parent_block():
        return False
    owner = value.op
    if len(readers(value)) != 1:
        return False
    if isinstance(owner, tensor.EmptyOp | bufferization.AllocTensorOp):
        return True
    if isinstance(owner, LinalgOnTensors):
        init = owner.operands[len(owner.operands) - len(owner.results) + value.index]
        return is_fresh(init, owner)
    if isinstance(owner, tensor.InsertSliceOp):
        return is_fresh(owner.dest, owner)
    return False


def is_fresh_loop_argument(arg: BlockArgument) -> bool:
    """`arg` is a loop-carried value of an `scf.for` whose buffer its body may overwrite: the
    loop's initial value is fresh for the loop and the body yields its own values (module
    docstring)."""
    loop = arg.block.parent_op()
    if not isinstance(loop, scf.ForOp) or arg.index == 0 or not yields_own_values(loop):
        return False
    return is_fresh(loop.iter_args[arg.index - 1], loop)


def yields_own_values(loop: scf.ForOp) -> bool:
    """The body yields distinct values, each made in the body or the argument it replaces: no
    two loop-carried values ever share a buffer."""
    body = loop.body.block
    yielded = list(body.last_op.operands) if body.last_op is not None else []
    if len({id(v) for v in yielded}) != len(yielded):
        return False
    for index, value in enumerate(yielded):
        if isinstance(value, BlockArgument) and value is not body.args[index + 1]:
            return False
        if isinstance(value, OpResult) and value.op.parent_block() is not body:
            return False
    return True


def private_copy(rewriter: PatternRewriter, init: SSAValue) -> SSAValue:
    """A private buffer for `init` (a new `tensor.empty` when it has no contents to keep),
    inserted before the matched op."""
    empty = init.owner
    if isinstance(empty, tensor.EmptyOp):
        private = tensor.EmptyOp(tuple(empty.dynamic_sizes), init.type)
    else:
        private = bufferization.AllocTensorOp(init.type, copy=init)
    rewriter.insert(private)
    private.results[0].name_hint = init.name_hint
    return private.results[0]


class CopyUnsafeDestinations(RewritePattern):
    """Give an insert_slice a private copy of its destination if someone else may read it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.InsertSliceOp, rewriter: PatternRewriter) -> None:
        dest = op.dest
        if is_fresh(dest, op):
            return
        op.operands[1] = private_copy(rewriter, dest)
        rewriter.notify_op_modified(op)
        if isinstance(dest.owner, tensor.EmptyOp) and not dest.uses:
            rewriter.erase(dest.owner)


class CopyUnsafeLoopInits(RewritePattern):
    """Give an `scf.for` a private copy of an initial value whose loop-carried argument the
    body overwrites in place (its only reader is an init or destination it may write), when
    the initial value is not fresh for the loop."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        if not yields_own_values(op):
            return
        for index, arg in enumerate(op.body.block.args[1:]):
            init = op.iter_args[index]
            if not isinstance(arg.type, TensorType) or is_fresh(init, op):
                continue
            users = readers(arg)
            if len(users) == 1 and writes_into(users[0], arg):
                op.operands[3 + index] = private_copy(rewriter, init)
                rewriter.notify_op_modified(op)


def writes_into(op: Operation, value: SSAValue) -> bool:
    """`op` takes `value` as an init or destination (a buffer it may write into)."""
    if isinstance(op, tensor.InsertSliceOp):
        return op.dest is value
    if isinstance(op, LinalgOnTensors):
        return value in op.operands[len(op.operands) - len(op.results) :]
    return False


class CopyUnsafeInits(RewritePattern):
    """Give a linalg op a private copy of each init that someone else may still read.

    An init made by `tensor.empty` has no contents to keep, so it gets a new `tensor.empty`
    of the same sizes instead of a copy.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LinalgOnTensors, rewriter: PatternRewriter) -> None:
        first_init = len(op.operands) - len(op.results)
        for index in range(first_init, len(op.operands)):
            init = op.operands[index]
            if is_fresh(init, op):
                continue
            op.operands[index] = private_copy(rewriter, init)
            rewriter.notify_op_modified(op)
            if isinstance(init.owner, tensor.EmptyOp) and not init.uses:
                rewriter.erase(init.owner)


# ---- constant tensors -> memref.global ----


def hoist_tensor_constants(module: ModuleOp) -> list[memref.GlobalOp]:
    """Replace each constant tensor by `memref.get_global` (+ `to_tensor` for its readers).

    Returns the `memref.global`s to add to the module once tensor types are converted (the
    conversion would otherwise rewrite the type inside their dense attribute).
    """
    globals_: list[memref.GlobalOp] = []
    for op in list(module.walk()):
        if not (isinstance(op, arith.ConstantOp) and isinstance(op.result.type, TensorType)):
            continue
        typ: TensorType[Attribute] = op.result.type
        name = f"__constant_{len(globals_)}"
        buffer_type = MemRefType(typ.element_type, typ.get_shape())
        value = op.value
        private = StringAttr("private")
        global_op = memref.GlobalOp.get(
            StringAttr(name), buffer_type, value, sym_visibility=private, constant=UnitAttr()
        )
        globals_.append(global_op)
        read = memref.GetGlobalOp(name, buffer_type)
        read.memref.name_hint = op.result.name_hint
        as_tensor = bufferization.ToTensorOp(read.memref, restrict=True)
        Rewriter.replace_op(op, [read, as_tensor])
    return globals_


class DropToTensorOp(RewritePattern):
    """`bufferization.to_tensor %m` (memref to memref once types are converted) -> `%m`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: bufferization.ToTensorOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, [], [op.memref])


# ---- step 2: tensor types -> memref types ----


@dataclass
class ConvertTensorType(TypeConversionPattern):
    """`tensor<?x4xf32>` -> `memref<?x4xf32>`, also inside function types."""

    recursive: bool = True

    @attr_type_rewrite_pattern
    def convert_type(self, typ: TensorType[Attribute], /) -> MemRefType[Attribute]:
        return MemRefType(typ.element_type, typ.get_shape())


def convert_tensor_types(module: ModuleOp) -> None:
    apply_once(module, ConvertTensorType())


def apply_once(module: ModuleOp, pattern: RewritePattern) -> None:
    """Apply `pattern` to every op of `module` once, in program order.

    Not through a `PatternRewriteWalker`: when an op is queued twice (its operand's producer
    was replaced, then it is replaced itself) xDSL 0.75's worklist keeps a stale entry and the
    walk fails with "insertion point must have a parent block". Every conversion here rewrites
    each op at most once; ops replaced leave the IR (skipped), their regions move to the new
    op, so nested ops are still visited.
    """
    for op in list(module.walk()):
        if op is module or op.parent is None:
            continue
        pattern.match_and_rewrite(op, PatternRewriter(op))


# ---- step 3: ops ----


class ConvertEmptyOp(RewritePattern):
    """`tensor.empty(%n)` -> `memref.alloc(%n)`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.EmptyOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, memref.AllocOp(tuple(op.dynamic_sizes), (), op.tensor.type))


class ConvertAllocTensorOp(RewritePattern):
    """`alloc_tensor() copy(%src)` -> `memref.alloc` sized like `%src` + `memref.copy`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: bufferization.AllocTensorOp, rewriter: PatternRewriter) -> None:
        sizes = list(op.dynamic_sizes)
        if op.copy is not None:
            sizes = dynamic_sizes_of(op.copy, rewriter)
        alloc = memref.AllocOp(sizes, (), op.tensor.type)
        new_ops: list[Operation] = [alloc]
        if op.copy is not None:
            new_ops.append(memref.CopyOp(op.copy, alloc.memref))
        rewriter.replace(op, new_ops, [alloc.memref])


def dynamic_sizes_of(buffer: SSAValue, rewriter: PatternRewriter) -> list[SSAValue]:
    """`memref.dim` of each dynamic dim of `buffer`, inserted before the matched op."""
    assert isinstance(buffer.type, MemRefType)
    sizes: list[SSAValue] = []
    for dim, size in enumerate(buffer.type.get_shape()):
        if size != DYNAMIC_INDEX:
            continue
        index = arith.ConstantOp(IntegerAttr(dim, IndexType()))
        dim_op = memref.DimOp(buffer, index)
        rewriter.insert((index, dim_op))
        sizes.append(dim_op.result)
    return sizes


class ConvertDimOp(RewritePattern):
    """`tensor.dim` -> `memref.dim`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.DimOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, memref.DimOp(op.source, op.index))


class ConvertExtractOp(RewritePattern):
    """`tensor.extract %t[%i]` -> `memref.load %m[%i]`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.ExtractOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, memref.LoadOp.get(op.tensor, tuple(op.indices)))


class ConvertCastOp(RewritePattern):
    """`tensor.cast` (a static/dynamic dim view) -> `memref.cast` of the same buffer."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.CastOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, memref.CastOp.get(op.source, op.dest.type))


class ConvertCollapseShapeOp(RewritePattern):
    """`tensor.collapse_shape` -> `memref.collapse_shape` of the same buffer (a view: every
    buffer here is C-contiguous, so the collapsed one is too)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.CollapseShapeOp, rewriter: PatternRewriter) -> None:
        source_type = op.src.type
        assert isinstance(source_type, MemRefType)
        if not isinstance(source_type.layout, NoneAttr):
            raise PassFailedException(
                f"{PASS_NAME}: tensor.collapse_shape of a buffer with a layout ({source_type})"
            )
        collapse = memref.CollapseShapeOp(
            operands=[op.src],
            result_types=[op.result.type],
            properties={"reassociation": op.reassociation},
        )
        rewriter.replace(op, collapse)


class ConvertInsertSliceOp(RewritePattern):
    """`tensor.insert_slice %src into %dest[...]` -> `memref.subview %dest[...]` +
    `memref.copy %src` into it; the result is `%dest`'s buffer (step 1 made it safe)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.InsertSliceOp, rewriter: PatternRewriter) -> None:
        source_type, dest_type = op.source.type, op.dest.type
        assert isinstance(source_type, MemRefType) and isinstance(dest_type, MemRefType)
        rank = source_type.get_num_dims()
        if rank == 0:  # one element: a load and a store (a 0-d view would be a number)
            rewriter.replace(op, store_element(op), [op.dest])
            return
        layout = StridedLayoutAttr([None] * rank, None)
        view_type = MemRefType(source_type.get_element_type(), source_type.get_shape(), layout)
        view = memref.SubviewOp(
            op.dest, list(op.offsets), list(op.sizes), list(op.strides),
            op.static_offsets.get_values(), op.static_sizes.get_values(),
            op.static_strides.get_values(), view_type,
        )  # fmt: skip
        view.result.name_hint = f"{op.dest.name_hint}_part" if op.dest.name_hint else None
        rewriter.replace(op, [view, memref.CopyOp(op.source, view.result)], [op.dest])


def store_element(op: tensor.InsertSliceOp) -> list[Operation]:
    """`dest[offsets] = src[]` for a 0-d `src`."""
    new_ops: list[Operation] = []
    dynamic = iter(op.offsets)
    indices: list[SSAValue] = []
    for offset in op.static_offsets.get_values():
        if offset == DYNAMIC_INDEX:
            indices.append(next(dynamic))
            continue
        constant = arith.ConstantOp(IntegerAttr(offset, IndexType()))
        new_ops.append(constant)
        indices.append(constant.result)
    load = memref.LoadOp.get(op.source, ())
    return [*new_ops, load, memref.StoreOp.get(load.res, op.dest, indices)]


class ConvertLinalgOp(RewritePattern):
    """A linalg op with results -> the same op without results, writing into its inits."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LinalgOnTensors, rewriter: PatternRewriter) -> None:
        if not op.results:
            return
        inits = op.operands[len(op.operands) - len(op.results) :]
        new_op = type(op).create(
            operands=op.operands,
            result_types=(),
            properties=dict(op.properties),
            attributes=dict(op.attributes),
            regions=[op.detach_region(region) for region in tuple(op.regions)],
        )
        for result, init in zip(op.results, inits, strict=True):
            # The buffer now holds this result: keep the result's (more telling) name.
            init.name_hint = result.name_hint or init.name_hint
        rewriter.replace(op, new_op, list(inits))


# ---- the pass ----


@dataclass(frozen=True)
class LinalgBufferizePass(ModulePass):
    """Bufferizes the `linalg` stage into the `memref` stage (see the module docstring)."""

    name = "linalg-bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_stage(op, self.name, "linalg")
        check_supported(op)
        erase_unused_tensor_ops(op)
        constants = hoist_tensor_constants(op)
        apply_once(op, CopyUnsafeLoopInits())  # before the body's writers ask is_fresh
        unsafe = GreedyRewritePatternApplier(
            [
                CopyUnsafeInits(),
                CopyUnsafeDestinations(),
                CopyUnsafeKernelOutputs(),
            ]
        )
        PatternRewriteWalker(unsafe).rewrite_module(op)
        convert_tensor_types(op)
        for global_op in reversed(constants):
            op.body.block.insert_op_before(global_op, op.body.block.first_op)  # type: ignore[arg-type]
        op_patterns = GreedyRewritePatternApplier(
            [
                ConvertEmptyOp(),
                ConvertAllocTensorOp(),
                ConvertDimOp(),
                ConvertExtractOp(),
                ConvertCastOp(),
                ConvertCollapseShapeOp(),
                ConvertInsertSliceOp(),
                DropToTensorOp(),
                ConvertLinalgOp(),
                ConvertKernelCallOp(),
            ],
            dce_enabled=False,
        )
        apply_once(op, op_patterns)
        check_no_tensors(op)
