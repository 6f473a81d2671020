"""Starts a contraction from the terms that are added to its result instead of from zeros
(`linalg-accumulate-sums`).

A contraction (matmul, conv, sum) adds its products to its init: `C(I) = I + sum`. When the
only user of its result is an elementwise op that adds something to it, the addition can
start the sum instead: `C(I) + r = C(I + r)` (the additions in another order, like `addmm`).
An RNN step `tanh(x[t] @ W + h @ U + b)` becomes `tanh(h @ U into (x[t] @ W into (b)))`:
the matmuls accumulate into one buffer that starts as `b`, and the elementwise op only
applies `tanh`: no zero fills, no sum pass, one buffer instead of three.

```
%z = linalg.fill 0.0                              %r = linalg.generic ins(%b) { b }
%c = linalg.generic ins(%a, %w) outs(%z)    ==>   %c = linalg.generic ins(%a, %w) outs(%r)
       { out + a * w } {reduction}                       { out + a * w } {reduction}
%e = linalg.generic ins(%c, %b) { tanh(c + b) }   %e = linalg.generic ins(%c) { tanh(c) }
```

The rewrite applies to an elementwise `linalg.generic` `E` (parallel iterators only, one
result, its init not read) with an input `c` that:
- is the result of an *accumulating contraction* `C` in the same block: a `linalg.generic`
  with a reduction iterator and one result whose body yields `out + X` (`X` not reading
  `out`, which nothing else reads), used by nobody but `E` (`tensor.dim` aside);
- `E` reads once, with the identity map (so `E` runs over `C`'s result), and whose block
  argument has one use, an `arith.addf` with another value `r`.
Then `r` moves into a new generic `R` over the same points, made of `E`'s body ops that
compute it (`R` reads `E`'s other inputs with their maps): `R = r` if `C` starts from a fill
of zero (the fill goes), else `R = I + r`. `C` starts from `R` and moves to just in front of
`E` (after `R`); in `E` the sum becomes `c`. When `R` would only copy an input of `c`'s type
read with the identity map, `C` starts from that input itself (bufferization copies it if it
must). Unused inputs of `E` go. Applied to a fixed point, so sums of several terms and of
several contractions (`x @ W + h @ U + b`) become one chain of accumulations: the
contraction that comes last in the block takes the terms first, so the chain runs in program
order (a weight is then packed for the library kernels before a call in the loop takes any
operand it might write: `convert-linalg-to-library-calls`).

Float sums only (`arith.addf`). The sum is computed in another order (like the library
kernels, which split and reorder sums anyway): results differ by rounding; NaN and inf
propagate as before (only an overflow that another order cancels can differ).

In the pipeline for the RNN step: the library kernels start a matmul from zeros or a bias
and add a bias behind it themselves (`_set`, `_bias`: `lowering/loops/library_call_finish.py`),
so alone it gains little (W5, one process, 1 thread: 9.7 vs 9.9 ms), but the chain it makes
of `x[t] @ W + b` and `h @ U` into one buffer is what `library-call-pairs` runs as one
`matmul_pair` call: one parallel loop for both products, and the elementwise op reads one
buffer instead of two.

**Expects:** the `linalg` stage (linalg on tensors).

**Produces:** the `linalg` stage where such contractions start from the terms added to them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    TensorType,
)
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import FillOp, GenericOp, YieldOp
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from lowering.linalg_opt.fuse_elementwise import DeduplicateInputs


@dataclass(frozen=True)
class Accumulation:
    """`E`'s input `position` is the result of `contraction`; `add` in `E`'s body adds the
    input's block argument and `term`."""

    consumer: GenericOp
    position: int
    contraction: GenericOp
    add: arith.AddfOp
    term: SSAValue


# ---- matching ----


def readers(value: SSAValue) -> list[Operation]:
    """The ops that read `value`'s contents (`tensor.dim` reads only its sizes)."""
    return [use.operation for use in value.uses if not isinstance(use.operation, tensor.DimOp)]


def accumulating_contraction(value: SSAValue) -> GenericOp | None:
    """The generic with a reduction that makes `value` as `init + X` (see the module doc)."""
    if not isinstance(value, OpResult) or not isinstance(value.op, GenericOp):
        return None
    op = value.op
    if len(op.outputs) != 1 or len(op.results) != 1:
        return None
    if all(kind.data != IteratorType.REDUCTION for kind in op.iterator_types):
        return None
    out = op.body.block.args[-1]
    yield_ = op.body.block.last_op
    if not isinstance(yield_, YieldOp) or not out.has_one_use():
        return None
    add = yield_.operands[0].owner
    if not isinstance(add, arith.AddfOp) or out not in (add.lhs, add.rhs):
        return None
    return op if add.lhs is not add.rhs else None


def is_elementwise(op: GenericOp) -> bool:
    """Parallel iterators only, one result, the init not read."""
    if len(op.outputs) != 1 or len(op.results) != 1:
        return False
    if any(kind.data != IteratorType.PARALLEL for kind in op.iterator_types):
        return False
    return not any(arg.uses for arg in op.body.block.args[len(op.inputs) :])


def match_accumulation(op: GenericOp) -> Accumulation | None:
    """The accumulation into the contraction `op` reads that comes last in the block: the
    contractions of a sum then run in their program order, each into the one after it."""
    if not is_elementwise(op):
        return None
    block = op.parent_block()
    assert block is not None
    matches = [m for m in accumulations(op) if m.contraction.parent_block() is block]
    if len(matches) < 2:  # the block's order only when there is a choice (a walk per op
        return matches[0] if matches else None  # made the pass quadratic)
    order = {o: n for n, o in enumerate(block.ops)}
    return max(matches, key=lambda m: order[m.contraction])


def accumulations(op: GenericOp) -> Iterator[Accumulation]:
    maps = [attr.data for attr in op.indexing_maps]
    identity = AffineMap.identity(len(op.iterator_types))
    for position, value in enumerate(op.inputs):
        contraction = accumulating_contraction(value)
        if contraction is None or maps[position] != identity:
            continue
        if readers(value) != [op] or list(op.inputs).count(value) != 1:
            continue
        arg = op.body.block.args[position]
        use = arg.get_unique_use()
        if use is None:
            continue
        add = use.operation
        if not isinstance(add, arith.AddfOp) or add.parent_block() is not op.body.block:
            continue
        term = add.rhs if add.lhs is arg else add.lhs
        if term is not arg:
            yield Accumulation(op, position, contraction, add, term)


def zero_fill(init: SSAValue) -> FillOp | None:
    """The `linalg.fill` of 0.0 that makes `init`, read by nobody else."""
    fill = init.owner
    if not isinstance(fill, FillOp) or len(readers(init)) != 1:
        return None
    constant = fill.inputs[0].owner
    if not isinstance(constant, arith.ConstantOp) or not isinstance(constant.value, FloatAttr):
        return None
    return fill if constant.value.value.data == 0.0 else None


# ---- rewriting ----


def copied_input(match: Accumulation) -> SSAValue | None:
    """The input of `E` that `term` is, when it has `c`'s type and the identity map."""
    consumer = match.consumer
    args = list(consumer.body.block.args[: len(consumer.inputs)])
    if match.term not in args:
        return None
    index = args.index(match.term)
    maps = [attr.data for attr in consumer.indexing_maps]
    value = consumer.inputs[index]
    if maps[index] != maps[match.position] or value.type != consumer.inputs[match.position].type:
        return None
    return value


def empty_like(value: SSAValue, rewriter: PatternRewriter) -> SSAValue:
    """A `tensor.empty` of `value`'s type and sizes, in front of the matched op."""
    value_type = value.type
    assert isinstance(value_type, TensorType)
    sizes: list[SSAValue] = []
    for dim, size in enumerate(value_type.get_shape()):
        if size == DYNAMIC_INDEX:
            index = arith.ConstantOp(IntegerAttr(dim, IndexType()))
            dim_op = tensor.DimOp(value, index)
            rewriter.insert([index, dim_op])
            sizes.append(dim_op.result)
    return rewriter.insert(tensor.EmptyOp(sizes, value_type)).tensor


def term_generic(
    match: Accumulation, init: SSAValue | None, sizes_of: SSAValue, rewriter: PatternRewriter
) -> GenericOp:
    """`R`: `term` (plus `init` when given) at each point of `E`, into a new tensor of the
    sizes of `sizes_of` (defined in front of `C`, like `c`)."""
    consumer = match.consumer
    maps = [attr.data for attr in consumer.indexing_maps]
    identity = maps[match.position]
    kept = [n for n in range(len(consumer.inputs)) if n != match.position]
    inputs = ([init] if init is not None else []) + [consumer.inputs[n] for n in kept]
    input_maps = ([identity] if init is not None else []) + [maps[n] for n in kept]
    c_value = consumer.inputs[match.position]
    element = c_value.type.get_element_type()  # type: ignore[union-attr]
    block = Block(arg_types=[v.type.get_element_type() for v in inputs] + [element])  # type: ignore[union-attr]
    args = iter(block.args)
    mapper: dict[SSAValue, SSAValue] = {}
    start = next(args) if init is not None else None
    old_args = consumer.body.block.args
    for n in kept:
        mapper[old_args[n]] = next(args)
    for op in consumer.body.block.ops:
        if op is match.add:
            break
        block.add_op(op.clone(mapper))
    result = mapper.get(match.term, match.term)
    if start is not None:
        total = arith.AddfOp(start, result)
        block.add_op(total)
        result = total.result
    block.add_op(YieldOp(result))
    erase_dead_ops(block)
    output = empty_like(sizes_of, rewriter)
    rank = len(consumer.iterator_types)
    return GenericOp(
        inputs,
        [output],
        Region(block),
        [AffineMapAttr(m) for m in (*input_maps, identity)],
        [IteratorTypeAttr(IteratorType.PARALLEL)] * rank,
        [c_value.type],
    )


def erase_dead_ops(block: Block, rewriter: PatternRewriter | None = None) -> None:
    """Erases the ops of a linalg body whose results nobody reads (all of them are pure)."""
    for op in reversed(list(block.ops)):
        if isinstance(op, YieldOp) or not op.results or any(r.uses for r in op.results):
            continue
        if rewriter is None:
            op.erase()
        else:
            rewriter.erase(op)


def accumulate(match: Accumulation, rewriter: PatternRewriter) -> None:
    """Moves `term` into `C`'s init and `C` in front of `E` (see the module docstring);
    `rewriter` is at `E`."""
    consumer, contraction = match.consumer, match.contraction
    init = contraction.outputs[0]
    fill = zero_fill(init)
    start = copied_input(match) if fill is not None else None
    if start is None:
        sizes_of = fill.outputs[0] if fill is not None else init
        generic = term_generic(match, None if fill is not None else init, sizes_of, rewriter)
        start = rewriter.insert(generic).results[0]
    contraction.detach()
    rewriter.insert(contraction)
    contraction.operands[len(contraction.operands) - 1] = start
    if fill is not None:
        erase_fill(fill, rewriter)
    arg = consumer.body.block.args[match.position]
    match.add.result.replace_all_uses_with(arg)
    rewriter.erase(match.add)
    erase_dead_ops(consumer.body.block, rewriter)
    rewriter.notify_op_modified(contraction)
    if is_copy_of(consumer, match.position):
        empty = consumer.outputs[0].owner
        rewriter.replace(consumer, [], [consumer.inputs[match.position]])
        if isinstance(empty, tensor.EmptyOp) and not empty.tensor.uses:
            rewriter.erase(empty)
        return
    rewriter.notify_op_modified(consumer)
    DeduplicateInputs().match_and_rewrite(consumer, rewriter)


def erase_fill(fill: FillOp, rewriter: PatternRewriter) -> None:
    """Erases `fill` (its `tensor.dim`s read its init's sizes) and its init if unused."""
    empty = fill.outputs[0]
    for use in list(fill.results[0].uses):
        dim_op = use.operation
        assert isinstance(dim_op, tensor.DimOp)
        rewriter.replace(dim_op, tensor.DimOp(empty, dim_op.index))
    rewriter.erase(fill)
    if isinstance(empty.owner, tensor.EmptyOp) and not empty.uses:
        rewriter.erase(empty.owner)


def is_copy_of(op: GenericOp, position: int) -> bool:
    """`op` yields input `position` unchanged, read and written with identity maps."""
    yield_ = op.body.block.last_op
    assert isinstance(yield_, YieldOp)
    if tuple(yield_.operands) != (op.body.block.args[position],):
        return False
    maps = [attr.data for attr in op.indexing_maps]
    identity = AffineMap.identity(len(op.iterator_types))
    return maps[position] == maps[-1] == identity and op.inputs[position].type == op.res[0].type


class AccumulateSum(RewritePattern):
    """An elementwise `c + r` of a contraction `c` -> the contraction started from `r`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        match = match_accumulation(op)
        if match is not None:
            accumulate(match, rewriter)


@dataclass(frozen=True)
class LinalgAccumulateSumsPass(ModulePass):
    """Contractions start from the terms added to their results (see the module docstring)."""

    name = "linalg-accumulate-sums"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(AccumulateSum()).rewrite_module(op)
