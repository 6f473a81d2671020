"""Fuses elementwise `linalg.generic` producers into their consumers (`linalg-fuse-elementwise`).

```
%t = linalg.generic {maps = [(d0, d1) -> (d0, d1), ... -> (d0, d1)]} ins(%x) { exp }
%r = linalg.generic {maps = [(d0, d1) -> (d1), (d0, d1) -> (d0, d1), ...]} ins(%t, %y) { add }
  ==>
%r = linalg.generic {maps = [(d0, d1) -> (d1), ...]} ins(%x, %y) { exp; add }
```
A producer is fused into a consumer input when it is a `linalg.generic` with only parallel
iterators, one result, an invertible (permutation) output map and a body that does not read
its init. The producer's input maps become `producer_map o output_map^-1 o consumer_map`, so
broadcasting consumer maps (`(d0, d1) -> (d1)`, `(d0, d1) -> (d0, 0)`) compose naturally,
and consumers with reduction iterators (`sum(exp(x - m))`) take producers too. Fusing may
recompute the producer: when the consumer map is not a permutation (a broadcast runs the
producer once per consumer point) or when the producer has other users (it then stays for
them). Both are only done for *cheap* producers (no transcendental `math` op, no division,
a few ops), and never a broadcast into a consumer with reductions (a matmul would redo the
producer for every product); otherwise the producer keeps its buffer. Nor when the fused
body would hold more than `max-ops` top-level ops (`MAX_FUSED_OPS`): a long straight-line
program becomes several kernels of bounded size, so compile time stays linear in its length.

Cleanups on the fused ops: an input read twice with the same map is read once, and unused
inputs are dropped. `tensor.dim` of a linalg result or of `tensor.empty` is folded to the
size it was built from, so equal sizes become the same SSA value (which loop fusion needs).

**Expects:** the `linalg` stage (linalg on tensors, maps without symbols).

**Produces:** the `linalg` stage with fewer `linalg.generic` ops and `tensor.empty`s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math, tensor
from xdsl.dialects.builtin import AffineMapAttr, IndexType, IntegerAttr, ModuleOp, ShapedType
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp, IndexOp, YieldOp
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

CHEAP_OP_LIMIT = 8
MAX_FUSED_OPS = 400
"""The most top-level ops a fused body may hold: LLVM's optimizer is superlinear in a
function's size, so a 1,000-line straight-line program fused into one body of ~2,000 ops took
most of its 98 s first call compiling that kernel. Bodies of at most this size keep compile
time linear in program size; a cut costs one buffer written and read per element."""
"""A producer recomputed per use or per broadcast point has at most this many body ops."""

MOVE_ABOVE = 64
"""A producer body of more ops is moved into the fused op rather than cloned: in a chain of
fusions each step clones the whole growing body, quadratic in the chain's length (1,000
elementwise lines took minutes). Shorter bodies are cloned, as they always were."""

CHEAP_MATH_OPS = (math.AbsFOp, math.FloorOp, math.CeilOp, math.TruncOp, math.CopySignOp)
EXPENSIVE_ARITH_OPS = (arith.DivfOp, arith.DivSIOp, arith.RemSIOp, arith.FloorDivSIOp)


# ---- legality and cost ----


def body_ops(op: GenericOp) -> list[Operation]:
    return [o for o in op.body.block.ops if not isinstance(o, YieldOp)]


def is_cheap(op: GenericOp) -> bool:
    """Few ops, none of them transcendental or a division: cheaper to redo than to store."""
    ops: list[Operation] = []
    for top in op.body.block.ops:  # stops past the limit: a fused body can be huge
        if not isinstance(top, YieldOp):
            ops.extend(top.walk())
        if len(ops) > CHEAP_OP_LIMIT:
            return False
    for o in ops:
        if isinstance(o, EXPENSIVE_ARITH_OPS):
            return False
        if o.dialect_name() == "math" and not isinstance(o, CHEAP_MATH_OPS):
            return False
    return True


def fused_size_exceeds(producer: GenericOp, consumer: GenericOp, limit: int) -> bool:
    """Whether the two bodies hold more than `limit` top-level ops together (each counted up
    to `limit + 1`: no walk of a long body)."""
    total = 0
    for block in (producer.body.block, consumer.body.block):
        for _ in block.ops:
            total += 1
            if total > limit:
                return True
    return False


def has_more_ops(block: Block, limit: int) -> bool:
    """Whether `block` holds more than `limit` top-level ops (counted up to `limit + 1`)."""
    return any(count >= limit for count, _ in enumerate(block.ops))


def is_permutation(affine_map: AffineMap) -> bool:
    return len(affine_map.results) == affine_map.num_dims and (
        affine_map.inverse_permutation() is not None
    )


def maps_of(op: GenericOp) -> list[AffineMap]:
    return [attr.data for attr in op.indexing_maps]


def fusable_producer(value: SSAValue) -> GenericOp | None:
    """The elementwise generic that makes `value`, if it can be fused into its users."""
    if not isinstance(value, OpResult) or not isinstance(value.op, GenericOp):
        return None
    producer = value.op
    if len(producer.res) != 1:
        return None
    if any(kind.data != IteratorType.PARALLEL for kind in producer.iterator_types):
        return None
    maps = maps_of(producer)
    if any(m.num_symbols for m in maps) or not is_permutation(maps[-1]):
        return None
    if any(arg.uses for arg in producer.body.block.args[len(producer.inputs) :]):
        return None
    return producer


# ---- fusion ----


@dataclass
class Fusion:
    """Fuses `producer` into the inputs `operands` of `consumer` (all read with one map)."""

    producer: GenericOp
    consumer: GenericOp
    operands: tuple[int, ...]

    @property
    def consumer_map(self) -> AffineMap:
        return maps_of(self.consumer)[self.operands[0]]

    def producer_dims(self) -> AffineMap:
        """Each producer dim as an expression of the consumer's dims."""
        inverse = maps_of(self.producer)[-1].inverse_permutation()
        assert inverse is not None
        return inverse.compose(self.consumer_map)

    def is_worth_it(self) -> bool:
        """No recomputation, or a cheap producer redone per broadcast point or per user.

        Never recomputed inside a reduction (a matmul would redo it for every product).
        """
        broadcasts = not is_permutation(self.consumer_map)
        if broadcasts and any(
            k.data != IteratorType.PARALLEL for k in self.consumer.iterator_types
        ):
            return False
        shared = any(use.operation is not self.consumer for use in self.producer.res[0].uses)
        return not (broadcasts or shared) or is_cheap(self.producer)

    def index_ops_resolve(self) -> bool:
        """Every `linalg.index` of the producer is a consumer dim or a constant there."""
        dims = self.producer_dims().results
        if all(isinstance(e, AffineDimExpr | AffineConstantExpr) for e in dims):
            return True  # whatever the producer's indices are (no walk of a long body)
        for op in self.producer.body.walk():
            if isinstance(op, IndexOp):
                expr = dims[op.dim.value.data]
                if not isinstance(expr, AffineDimExpr | AffineConstantExpr):
                    return False
        return True

    def operands_and_maps(self) -> tuple[list[SSAValue], list[AffineMap]]:
        """The fused op's inputs (the producer's in place of the fused operands) and maps."""
        producer, consumer = self.producer, self.consumer
        to_consumer = self.producer_dims()
        fused = set(self.operands)
        inputs: list[SSAValue] = []
        maps: list[AffineMap] = []
        consumer_maps = maps_of(consumer)
        producer_maps = maps_of(producer)
        for index, value in enumerate(consumer.inputs):
            if index == self.operands[0]:
                inputs += producer.inputs
                maps += [m.compose(to_consumer) for m in producer_maps[: len(producer.inputs)]]
            if index not in fused:
                inputs.append(value)
                maps.append(consumer_maps[index])
        maps += consumer_maps[len(consumer.inputs) :]
        return inputs, maps

    def build(self, inputs: Sequence[SSAValue], maps: Sequence[AffineMap]) -> GenericOp:
        """The fused op. Both bodies are moved into it when the fused operands are the
        producer's only uses (both are erased then; cloning the growing body of a chain of
        fusions at each step made the pass quadratic), else the producer's is cloned."""
        consumer = self.consumer
        to_consumer = self.producer_dims()
        if self.moves():
            block = self.move_bodies(inputs, to_consumer)
        else:
            block = Block(arg_types=[element_type(v) for v in (*inputs, *consumer.outputs)])
            self.fill_body(block, inputs, to_consumer)
        return GenericOp(
            inputs,
            tuple(consumer.outputs),
            Region(block),
            [AffineMapAttr(m) for m in maps],
            consumer.iterator_types,
            consumer.res.types,
        )

    def moves(self) -> bool:
        """Whether `build` moves the bodies: the producer's is long (more than `MOVE_ABOVE`
        ops) and the fused operands are its only uses."""
        if not has_more_ops(self.producer.body.block, MOVE_ABOVE):
            return False
        operands = set(self.operands)
        uses = self.producer.res[0].uses
        return all(u.operation is self.consumer and u.index in operands for u in uses)

    def move_bodies(self, inputs: Sequence[SSAValue], dims: AffineMap) -> Block:
        """`fill_body`'s block made of the producer's block: its arguments and yield adapted,
        the consumer's ops moved after its own (the same ops, in the same order)."""
        producer, consumer = self.producer, self.consumer
        block = producer.body.block
        producer.body.detach_block(block)
        for arg in block.args[len(producer.inputs) :]:  # the producer's init: never read
            block.erase_arg(arg)
        consumer_args = consumer.body.block.args
        position = 0
        for index in range(len(consumer.inputs)):
            if index == self.operands[0]:
                position += len(producer.inputs)
            if index not in self.operands:
                new = block.insert_arg(element_type(inputs[position]), position)
                consumer_args[index].replace_all_uses_with(new)
                position += 1
        for arg in consumer_args[len(consumer.inputs) :]:
            arg.replace_all_uses_with(block.insert_arg(arg.type, len(block.args)))
        produced = block.last_op
        assert isinstance(produced, YieldOp)
        for index in self.operands:
            consumer_args[index].replace_all_uses_with(produced.operands[0])
        produced.detach()
        produced.erase()
        if not all(
            isinstance(e, AffineDimExpr) and e.position == d for d, e in enumerate(dims.results)
        ):
            resolve_index_ops(block, dims)  # else each producer index is the consumer's
        for op in list(consumer.body.block.ops):
            op.detach()
            block.add_op(op)
        return block

    def fill_body(self, block: Block, inputs: Sequence[SSAValue], dims: AffineMap) -> None:
        """The producer's body (its yield feeding the fused operands), then the consumer's."""
        producer, consumer = self.producer, self.consumer
        first = self.operands[0]
        args = iter(block.args)
        mapper: dict[SSAValue, SSAValue] = {}
        consumer_args = consumer.body.block.args
        for index in range(len(consumer.inputs)):
            if index == first:
                for arg in producer.body.block.args[: len(producer.inputs)]:
                    mapper[arg] = next(args)
            if index not in self.operands:
                mapper[consumer_args[index]] = next(args)
        for arg in consumer_args[len(consumer.inputs) :]:
            mapper[arg] = next(args)
        for op in producer.body.block.ops:
            if isinstance(op, YieldOp):
                for index in self.operands:
                    mapper[consumer_args[index]] = mapper.get(op.operands[0], op.operands[0])
            else:
                block.add_op(clone_resolving_index(op, mapper, dims))
        for op in consumer.body.block.ops:
            block.add_op(op.clone(mapper))


def resolve_index_ops(block: Block, dims: AffineMap) -> None:
    """`clone_resolving_index` in place: each top-level producer `linalg.index` of `block`
    becomes the consumer's index (or a constant) read at the same place."""
    for op in list(block.ops):
        if isinstance(op, IndexOp):
            new = clone_resolving_index(op, {}, dims)
            block.insert_op_before(new, op)
            op.results[0].replace_all_uses_with(new.results[0])
            op.detach()
            op.erase()


def clone_resolving_index(
    op: Operation, mapper: dict[SSAValue, SSAValue], dims: AffineMap
) -> Operation:
    """A clone of `op` where a producer `linalg.index` becomes the consumer's index."""
    if not isinstance(op, IndexOp):
        return op.clone(mapper)
    expr = dims.results[op.dim.value.data]
    if isinstance(expr, AffineDimExpr):
        new: Operation = IndexOp(expr.position)
    else:
        assert isinstance(expr, AffineConstantExpr)
        new = arith.ConstantOp(IntegerAttr(expr.value, IndexType()))
    mapper[op.results[0]] = new.results[0]
    return new


def element_type(value: SSAValue):
    return value.type.get_element_type() if isinstance(value.type, ShapedType) else value.type


class FuseElementwiseProducer(RewritePattern):
    """A consumer generic absorbs one fusable producer of its inputs (see the module doc)."""

    def __init__(self, max_ops: int = MAX_FUSED_OPS) -> None:
        self.max_ops = max_ops
        self.unlisted: set[GenericOp] = set()
        """Fused ops whose body ops are in no walker's worklist (made by `build`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        maps = maps_of(op)
        for index, value in enumerate(op.inputs):
            producer = fusable_producer(value)
            if producer is None:
                continue
            same = tuple(
                i for i, v in enumerate(op.inputs) if v is value and maps[i] == maps[index]
            )
            fusion = Fusion(producer, op, same)
            if fused_size_exceeds(producer, op, self.max_ops):
                continue
            if not fusion.is_worth_it() or not fusion.index_ops_resolve():
                continue
            inputs, fused_maps = fusion.operands_and_maps()
            if not maps_cover(fused_maps, len(op.iterator_types)):  # a producer without
                continue  # inputs gave the bound
            stale = self.listed_body_ops(fusion) if fusion.moves() else []
            fused = fusion.build(inputs, fused_maps)
            rewriter.replace(op, fused)
            if not producer.res[0].uses:
                rewriter.erase(producer)
            forget(rewriter, stale)
            self.unlisted.add(fused)
            return

    def listed_body_ops(self, fusion: Fusion) -> list[Operation]:
        """The ops of both bodies that may be in the worklist: erasing the producer and the
        consumer took their body ops off it when the bodies were cloned; moved, they must be
        taken off too, or the walker would visit them again (and rewrite in another order)."""
        generics = (fusion.producer, fusion.consumer)
        return [o for g in generics if g not in self.unlisted for o in g.body.walk()]


def forget(rewriter: PatternRewriter, ops: Sequence[Operation]) -> None:
    """Take `ops` off the worklists of the walkers `rewriter` reports to (as erasing them
    would, without erasing them)."""
    for handler in rewriter.operation_removal_handler:
        worklist = getattr(getattr(handler, "__self__", None), "_worklist", None)
        if worklist is not None:
            for op in ops:
                worklist.remove(op)


# ---- cleanups ----


class DeduplicateInputs(RewritePattern):
    """Inputs that are the same value read with the same map become one; unused ones go."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        maps = maps_of(op)
        args = op.body.block.args
        keep: list[int] = []
        replace: dict[int, int] = {}
        for index, value in enumerate(op.inputs):
            twin = next((k for k in keep if op.inputs[k] is value and maps[k] == maps[index]), None)
            if twin is not None:
                replace[index] = twin
            elif args[index].uses or not dims_covered_without(op, index):
                keep.append(index)
        if len(keep) == len(op.inputs):
            return
        for index, twin in replace.items():
            args[index].replace_all_uses_with(args[twin])
        outputs = range(len(op.inputs), len(args))
        block = op.body.block
        new_block = Block(arg_types=[args[i].type for i in (*keep, *outputs)])
        for old, new in zip([args[i] for i in (*keep, *outputs)], new_block.args):
            old.replace_all_uses_with(new)
        for body_op in list(block.ops):
            body_op.detach()
            new_block.add_op(body_op)
        generic = GenericOp(
            [op.inputs[i] for i in keep],
            tuple(op.outputs),
            Region(new_block),
            [AffineMapAttr(maps[i]) for i in (*keep, *outputs)],
            op.iterator_types,
            op.res.types,
        )
        rewriter.replace(op, generic)


def dims_covered_without(op: GenericOp, dropped: int) -> bool:
    """True if every loop dim is still a plain result of some other operand map (its bound)."""
    maps = [m for i, m in enumerate(maps_of(op)) if i != dropped]
    return maps_cover(maps, len(op.iterator_types))


def maps_cover(maps: Sequence[AffineMap], dims: int) -> bool:
    """True if each of the `dims` loop dims is a plain result of some map (its bound)."""
    plain = {r.position for m in maps for r in m.results if isinstance(r, AffineDimExpr)}
    return len(plain) == dims


class FoldDimOfLinalgResult(RewritePattern):
    """`tensor.dim %r, %k` of a linalg result -> `tensor.dim` of its init (same shape)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.DimOp, rewriter: PatternRewriter) -> None:
        source = op.source
        if not isinstance(source, OpResult) or not isinstance(source.op, LinalgStructuredOperation):
            return
        linalg_op = source.op
        init = linalg_op.operands[len(linalg_op.operands) - len(linalg_op.results) + source.index]
        rewriter.replace(op, tensor.DimOp(init, op.index))


class FoldDimOfEmpty(RewritePattern):
    """`tensor.dim (tensor.empty %sizes), k` -> the size `k` was made with."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.DimOp, rewriter: PatternRewriter) -> None:
        empty = op.source.owner
        index = op.index.owner
        if not isinstance(empty, tensor.EmptyOp) or not isinstance(index, arith.ConstantOp):
            return
        assert isinstance(index.value, IntegerAttr)
        dim = index.value.value.data
        shape = empty.tensor.type.get_shape()  # type: ignore[union-attr]
        if shape[dim] >= 0:
            rewriter.replace(op, arith.ConstantOp(IntegerAttr(shape[dim], IndexType())))
            return
        position = sum(1 for size in shape[:dim] if size < 0)
        rewriter.replace(op, (), [empty.dynamic_sizes[position]])


@dataclass(frozen=True)
class LinalgFuseElementwisePass(ModulePass):
    """Producer-consumer fusion of elementwise `linalg.generic` ops (see the module docstring)."""

    name = "linalg-fuse-elementwise"
    max_ops: int = MAX_FUSED_OPS  # the most top-level ops of a fused body

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = GreedyRewritePatternApplier(
            [FoldDimOfLinalgResult(), FoldDimOfEmpty(), FuseElementwiseProducer(self.max_ops),
             DeduplicateInputs()]
        )  # fmt: skip
        PatternRewriteWalker(patterns).rewrite_module(op)
