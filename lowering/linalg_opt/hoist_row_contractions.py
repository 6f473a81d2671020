"""Computes a loop's per-step contraction of an invariant tensor's rows for all steps at once,
in front of the loop (`linalg-hoist-row-contractions`).

An RNN step `h = tanh(x[t] @ W + h @ U + b)` multiplies the row `x[t]` of a tensor that the
loop never changes by a weight it never changes either. Step by step that is one small
matmul per step; all steps at once it is one matmul of `x` seen as `[T * B, K]` by `W`
before the loop (`[T * B, N]`), which runs a large, efficient kernel once, and leaves each
step only a read of its `B` rows:

```
scf.for %t = 0 to dim(%x, 0) step 1 {                 %x2 = tensor.collapse_shape %x [[0, 1], [2]]
  %r = select(%i < 0, %i + T, %i)  (%i = %t)          %xw = generic ins(%x2, %w) outs(fill 0)
  %a = generic { %x[%r, d0, d1] }           ==>       scf.for %t = 0 to dim(%x, 0) step 1 {
  %m = generic ins(%a, %w) outs(fill 0) {reduction}     %m = generic { %xw[%r * B + d0, d1] }
  ...                                                   ...
```

Values on tensors never change, so the rewrite is legal when the contraction's other operands
and its fill value are defined outside the loop, and row `i` of its result reads only row
`i` of the slice: the slice's map and the result's map start with the same parallel dim
`i`, no other operand's map uses `i`, and the body does not read `linalg.index`. Then row
`r * B + i` of the hoisted result is row `i` of step `r`'s result, whatever `r` is. It is
only worth it when the loop computes every row once: an `scf.for` from 0 to `dim(%x, 0)`
(through `arith.index_cast`) by 1 whose slice row is the induction variable (possibly
wrapped as a negative index, `select(i < 0, i + T, i)`). A contraction that does not run on
every step (inside an `scf.if`) stays. With `T == 0` the hoisted ops have no rows.

A vector slice (`x[t]` of an `x` `[T, K]`, a batch-1 RNN) needs no copy: the hoisted
contraction gets one more parallel loop dim `t`, first in the maps of `x` and of its
`[T, ...]` result (`x[t] @ w` for every `t` is the matmul `x @ w`), and is legal whatever
its other maps are; the loop reads row `r` of the result.

`x` seen as `[T * B, K]` is a `tensor.collapse_shape`, a view of `x` once bufferized (the
python target: `x.reshape(...)`), and the library kernel starts the result from zeros
itself: hoisting copies and fills nothing.

The pipeline hoists vector slices only: a slice of rank 2 and more (the batch-64 RNN) needs
`collapse_rows=true`. Measured on W5 (50 steps of [64, 256] @ [256, 256]) at 7b765b4, one
process, 1 thread, CPU time: 7.45 ms a call in the loop, 7.94 ms hoisted: the one large
matmul is faster than the 50 small ones (nn kernel, 1 thread: 111 vs 84 GFLOP/s), but the
loop then reads each step's rows of the [T * B, N] result from memory instead of from the
cache the step's matmul just wrote them to. With 2 threads hoisting saves one parallel
loop per step; not measurable on the loaded machine of that measurement (load 3-6).

**Expects:** the `linalg` stage (linalg on tensors); slices of a row are the copies
`linalg.generic outs(tensor.empty) { tensor.extract %x[%r, d0, d1, ...] }` that
`convert-torch-to-linalg` makes for `x[t]`; a contraction is a `linalg.generic` with a
reduction iterator and one result, initialized by `linalg.fill`.

**Produces:** the `linalg` stage where each such contraction is computed in front of its loop
(on `tensor.collapse_shape` of the source for slices of rank 2 and more) and read in it by a
row copy; the slice and fill it no longer needs are erased.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import FillOp, GenericOp, IndexOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter


@dataclass(frozen=True)
class RowSlice:
    """`slice = source[row]`, copied by `copy` (a generic over the slice's shape)."""

    copy: GenericOp
    source: SSAValue
    row: SSAValue


@dataclass(frozen=True)
class Candidate:
    """A contraction `op` in `loop` whose input `position` is `slice`, its init `fill`."""

    loop: scf.ForOp
    op: GenericOp
    position: int
    slice: RowSlice
    fill: FillOp


# ---- matching ----


def is_defined_outside(value: SSAValue, loop: Operation) -> bool:
    owner = value.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    return op is None or not loop.is_ancestor(op)


def constant_index(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def through_casts(value: SSAValue) -> SSAValue:
    while isinstance(value, OpResult) and isinstance(value.op, arith.IndexCastOp):
        value = value.op.input
    return value


def is_dim(value: SSAValue, source: SSAValue, dim: int) -> bool:
    """`value` is `tensor.dim source, dim` (through index casts)."""
    owner = through_casts(value).owner
    return (
        isinstance(owner, tensor.DimOp)
        and owner.source is source
        and constant_index(owner.index) == dim
    )


def match_row_slice(value: SSAValue) -> RowSlice | None:
    """`value` is a whole row `source[row]` copied by a generic (see the module docstring)."""
    copy = value.owner
    if not isinstance(copy, GenericOp) or copy.inputs or len(copy.outputs) != 1:
        return None
    rank = len(copy.iterator_types)
    if any(it.data != IteratorType.PARALLEL for it in copy.iterator_types):
        return None
    if copy.indexing_maps.data[0].data != AffineMap.identity(rank):
        return None
    ops = list(copy.body.block.ops)
    if len(ops) != rank + 2:
        return None
    *indices, extract, yield_ = ops
    if [i.dim.value.data for i in indices if isinstance(i, IndexOp)] != list(range(rank)):
        return None
    if not isinstance(extract, tensor.ExtractOp) or not isinstance(yield_, YieldOp):
        return None
    if tuple(yield_.operands) != (extract.result,) or rank == 0:
        return None
    row, *rest = extract.indices
    if rest != [i.results[0] for i in indices] or row.owner in ops:
        return None
    source = extract.tensor
    if isinstance(row.owner, Block) and row.owner.parent_op() is copy:
        return None
    if not covers_source_rows(copy.outputs[0], source):
        return None
    return RowSlice(copy, source, row)


def covers_source_rows(init: SSAValue, source: SSAValue) -> bool:
    """The slice's shape is `source`'s shape without its first dim."""
    empty = init.owner
    if not isinstance(empty, tensor.EmptyOp):
        return False
    shape = init.type.get_shape()  # type: ignore[union-attr]
    source_shape = source.type.get_shape()  # type: ignore[union-attr]
    if len(source_shape) != len(shape) + 1:
        return False
    sizes = iter(empty.dynamic_sizes)
    for dim, size in enumerate(shape, start=1):
        if size == DYNAMIC_INDEX:
            if not is_dim(next(sizes), source, dim):
                return False
        elif size != source_shape[dim]:
            return False
    return True


def first_dim(affine_map: AffineMap) -> int | None:
    """The dim of a map's first result if every result is a plain dim, else None."""
    results = affine_map.results
    if not results or not all(isinstance(r, AffineDimExpr) for r in results):
        return None
    return results[0].position  # type: ignore[union-attr]


def uses_dim(affine_map: AffineMap, dim: int) -> bool:
    return any(r.used_dims() & {dim} for r in affine_map.results)


def is_row_wise(op: GenericOp, position: int) -> bool:
    """Row `i` of `op`'s result reads only row `i` of input `position` (the first dim `i` of
    both maps, parallel, in no other operand's map nor elsewhere in theirs)."""
    maps = [attr.data for attr in op.indexing_maps]
    row_map, out_map = maps[position], maps[-1]
    i = first_dim(row_map)
    if i is None or first_dim(out_map) != i:
        return False
    if op.iterator_types.data[i].data != IteratorType.PARALLEL:
        return False
    if any(uses_dim(m, i) for n, m in enumerate(maps[:-1]) if n != position):
        return False
    rest = [r for m in (row_map, out_map) for r in m.results[1:]]
    return not any(r.used_dims() & {i} for r in rest)


def runs_every_row_once(loop: scf.ForOp, row_slice: RowSlice) -> bool:
    """`loop` steps by 1 from 0 to `dim(source, 0)` (or that static size) and the slice's row
    is its step."""
    if constant_index(loop.lb) != 0 or constant_index(loop.step) != 1:
        return False
    steps = row_slice.source.type.get_shape()[0]  # type: ignore[union-attr]
    bound = constant_index(through_casts(loop.ub))
    if not is_dim(loop.ub, row_slice.source, 0) and (bound is None or bound != steps):
        return False
    return is_induction_row(row_slice.row, loop.body.block.args[0])


def is_induction_row(row: SSAValue, induction: SSAValue) -> bool:
    """`row` is the induction variable, or it wrapped as a negative index:
    `select(i < 0, i + n, i)` with `i` the induction variable (through index casts)."""
    if through_casts(row) is induction:
        return True
    select = row.owner
    if not isinstance(select, arith.SelectOp) or not isinstance(select.cond.owner, arith.CmpiOp):
        return False
    plain = select.rhs
    wrapped = select.lhs.owner
    if through_casts(plain) is not induction or not isinstance(wrapped, arith.AddiOp):
        return False
    compare = select.cond.owner
    return compare.lhs is plain and constant_index(compare.rhs) == 0 and wrapped.lhs is plain


def body_is_invariant(op: GenericOp, loop: scf.ForOp) -> bool:
    """`op`'s body uses no value of `loop` from outside the body (a per-step scale): a copy
    of it in front of the loop would use values not defined there."""
    for inner in op.body.walk():
        for operand in inner.operands:
            if not op.is_ancestor(operand_owner(operand)) and not is_defined_outside(operand, loop):
                return False
    return True


def operand_owner(value: SSAValue) -> Operation:
    owner = value.owner
    parent = owner if isinstance(owner, Operation) else owner.parent_op()
    assert parent is not None
    return parent


def match_candidate(op: GenericOp, loop: scf.ForOp) -> Candidate | None:
    if len(op.outputs) != 1 or len(op.results) != 1:
        return None
    if all(it.data != IteratorType.REDUCTION for it in op.iterator_types):
        return None
    if any(isinstance(o, IndexOp) for o in op.body.walk()):
        return None
    if not body_is_invariant(op, loop):
        return None
    fill = op.outputs[0].owner
    if not isinstance(fill, FillOp) or not is_defined_outside(fill.inputs[0], loop):
        return None
    if not isinstance(fill.outputs[0].owner, tensor.EmptyOp):
        return None
    for position, value in enumerate(op.inputs):
        row_slice = match_row_slice(value)
        if row_slice is None or not is_defined_outside(row_slice.source, loop):
            continue
        others = [v for n, v in enumerate(op.inputs) if n != position]
        if not all(is_defined_outside(v, loop) for v in others):
            continue
        is_vector = len(value.type.get_shape()) == 1  # type: ignore[union-attr]
        if not is_vector and not is_row_wise(op, position):
            continue
        if runs_every_row_once(loop, row_slice):
            return Candidate(loop, op, position, row_slice, fill)
    return None


def candidates(module: ModuleOp) -> list[Candidate]:
    found = []
    for loop in module.walk():
        if not isinstance(loop, scf.ForOp):
            continue
        for op in loop.body.block.ops:
            if isinstance(op, GenericOp) and (match := match_candidate(op, loop)) is not None:
                found.append(match)
    return found


# ---- rewriting ----


class Emitter:
    """Inserts ops at one point and returns their results."""

    def __init__(self, point: InsertPoint) -> None:
        self.point = point

    def emit(self, op: Operation) -> SSAValue:
        Rewriter.insert_op(op, self.point)
        return op.results[0]

    def dim(self, source: SSAValue, dim: int) -> SSAValue:
        index = self.emit(arith.ConstantOp(IntegerAttr(dim, IndexType())))
        return self.emit(tensor.DimOp(source, index))

    def empty(self, shape: Sequence[int], sizes: Sequence[SSAValue], element: Attribute):
        """`tensor.empty` of `shape`; `sizes` holds one size per dynamic dim."""
        return self.emit(tensor.EmptyOp(list(sizes), TensorType(element, shape)))


def emit_in(block: Block, op: Operation) -> SSAValue:
    block.add_op(op)
    return op.results[0]


Read = Callable[[Block, list[SSAValue]], SSAValue]


def copy_into(init: SSAValue, read: Read) -> GenericOp:
    """A generic over `init`'s shape yielding `read(body, indices)` at each point."""
    shape_type = init.type
    assert isinstance(shape_type, TensorType)
    rank = len(shape_type.get_shape())
    block = Block(arg_types=[shape_type.get_element_type()])
    indices = [emit_in(block, IndexOp(d)) for d in range(rank)]
    block.add_op(YieldOp(read(block, indices)))
    return GenericOp(
        [],
        [init],
        Region(block),
        [AffineMapAttr(AffineMap.identity(rank))],
        [IteratorTypeAttr(IteratorType.PARALLEL)] * rank,
        [shape_type],
    )


def joined(first: int, second: int) -> int:
    """The static size of two dims made one, or dynamic."""
    return DYNAMIC_INDEX if DYNAMIC_INDEX in (first, second) else first * second


def collapsed_source(at: Emitter, source: SSAValue) -> SSAValue:
    """`source` `[T, B, ...]` seen as `[T * B, ...]`: `tensor.collapse_shape`, which
    bufferizes to a view (the buffers are C-contiguous), not a copy."""
    source_type = source.type
    assert isinstance(source_type, TensorType)
    shape = source_type.get_shape()
    flat_shape = [joined(shape[0], shape[1]), *shape[2:]]
    groups = [[0, 1], *[[d] for d in range(2, len(shape))]]
    reassociation = ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups])
    collapse = tensor.CollapseShapeOp(
        operands=[source],
        result_types=[TensorType(source_type.get_element_type(), flat_shape)],
        properties={"reassociation": reassociation},
    )
    return at.emit(collapse)


def size_source(op: GenericOp, position: int, dim: int) -> tuple[SSAValue, int]:
    """An (operand defined outside the loop, its dim) that loop dim `dim` of `op` indexes;
    the slice stands for its source, one dim further."""
    maps = [attr.data for attr in op.indexing_maps]
    fallback = None
    for n, value in enumerate(op.inputs):
        positions = [r.position for r in maps[n].results]  # type: ignore[union-attr]
        if dim not in positions:
            continue
        if n != position:
            return value, positions.index(dim)
        fallback = (match_row_slice(value).source, positions.index(dim) + 1)  # type: ignore[union-attr]
    if fallback is None:
        raise ValueError(f"no input of {op.name} gives the size of its dim {dim}")
    return fallback


def hoisted_result(at: Emitter, candidate: Candidate, flat: SSAValue, rows: SSAValue):
    """The contraction over all rows of the flattened source, in front of the loop."""
    op = candidate.op
    result_type = op.results[0].type
    assert isinstance(result_type, TensorType)
    shape = result_type.get_shape()
    source_shape = candidate.slice.source.type.get_shape()  # type: ignore[union-attr]
    hoisted_shape = [joined(source_shape[0], shape[0]), *shape[1:]]
    out_map = op.indexing_maps.data[-1].data
    sizes = [rows] if hoisted_shape[0] == DYNAMIC_INDEX else []
    for size, result in zip(shape[1:], out_map.results[1:]):
        if size == DYNAMIC_INDEX:
            dim = result.position  # type: ignore[union-attr]
            sizes.append(at.dim(*size_source(op, candidate.position, dim)))
    empty = at.empty(hoisted_shape, sizes, result_type.get_element_type())
    fill = at.emit(FillOp([candidate.fill.inputs[0]], [empty], [empty.type]))
    inputs = [flat if n == candidate.position else v for n, v in enumerate(op.inputs)]
    body = op.body.clone()
    return at.emit(
        GenericOp(inputs, [fill], body, op.indexing_maps, op.iterator_types, [empty.type])
    )


def batched_result(at: Emitter, candidate: Candidate, steps: SSAValue) -> SSAValue:
    """The contraction of a vector slice for every step at once, in front of the loop: one
    more parallel loop dim `t` (the first) reads row `t` of the source and writes row `t` of
    a `[T, ...]` result (`x[t] @ w` for all `t` is the matmul `x @ w`)."""
    op = candidate.op
    result_type = op.results[0].type
    assert isinstance(result_type, TensorType)
    shape = result_type.get_shape()
    source_shape = candidate.slice.source.type.get_shape()  # type: ignore[union-attr]
    loops = len(op.iterator_types)
    shifted = [AffineDimExpr(d + 1) for d in range(loops)]
    step = AffineDimExpr(0)
    maps = [
        attr.data.replace_dims_and_symbols(shifted, [], loops + 1, 0) for attr in op.indexing_maps
    ]
    for n in (candidate.position, len(maps) - 1):
        maps[n] = AffineMap(loops + 1, 0, (step, *maps[n].results))
    out_map = op.indexing_maps.data[-1].data
    sizes = [steps] if source_shape[0] == DYNAMIC_INDEX else []
    for size, result in zip(shape, out_map.results):
        if size == DYNAMIC_INDEX:
            dim = result.position  # type: ignore[union-attr]
            sizes.append(at.dim(*size_source(op, candidate.position, dim)))
    empty = at.empty([source_shape[0], *shape], sizes, result_type.get_element_type())
    fill = at.emit(FillOp([candidate.fill.inputs[0]], [empty], [empty.type]))
    inputs = [
        candidate.slice.source if n == candidate.position else v for n, v in enumerate(op.inputs)
    ]
    iterators = [IteratorTypeAttr(IteratorType.PARALLEL), *op.iterator_types]
    batched = GenericOp(
        inputs, [fill], op.body.clone(), [AffineMapAttr(m) for m in maps], iterators, [empty.type]
    )
    return at.emit(batched)


def hoist(candidate: Candidate) -> None:
    """Computes `candidate` for all steps before its loop and reads its rows in the loop."""
    op, row_slice = candidate.op, candidate.slice
    at = Emitter(InsertPoint.before(candidate.loop))
    result_type = op.results[0].type
    assert isinstance(result_type, TensorType)
    element = result_type.get_element_type()
    steps = at.dim(row_slice.source, 0)
    if len(row_slice.source.type.get_shape()) == 2:  # type: ignore[union-attr]
        all_steps = batched_result(at, candidate, steps)

        def read(block: Block, indices: list[SSAValue]) -> SSAValue:
            row = [row_slice.row, *indices]
            return emit_in(block, tensor.ExtractOp(all_steps, row, element))

    else:
        per_step = at.dim(row_slice.source, 1)
        rows = at.emit(arith.MuliOp(steps, per_step))
        flat = collapsed_source(at, row_slice.source)
        all_rows = hoisted_result(at, candidate, flat, rows)

        def read(block: Block, indices: list[SSAValue]) -> SSAValue:
            start = emit_in(block, arith.MuliOp(row_slice.row, per_step))
            row = emit_in(block, arith.AddiOp(start, indices[0]))
            return emit_in(block, tensor.ExtractOp(all_rows, [row, *indices[1:]], element))

    step_empty = candidate.fill.outputs[0].owner
    assert isinstance(step_empty, tensor.EmptyOp)
    init = tensor.EmptyOp(list(step_empty.dynamic_sizes), result_type)
    step_rows = copy_into(init.tensor, read)
    Rewriter.insert_op([init, step_rows], InsertPoint.before(op))
    op.results[0].replace_all_uses_with(step_rows.results[0])
    Rewriter.erase_op(op)
    slice_empty = row_slice.copy.outputs[0].owner
    fold_dims(row_slice.copy.results[0])
    for dead in (candidate.fill, step_empty, row_slice.copy, slice_empty):
        if isinstance(dead, Operation) and all(r.first_use is None for r in dead.results):
            Rewriter.erase_op(dead)


def fold_dims(value: SSAValue) -> None:
    """Replaces each `tensor.dim value, c` by the size `value`'s `tensor.empty` init was made
    with, so a copy read only for its sizes can go."""
    owner = value.owner
    assert isinstance(owner, GenericOp)
    empty = owner.outputs[0].owner
    if not isinstance(empty, tensor.EmptyOp):
        return
    shape = empty.tensor.type.get_shape()
    dynamic = [n for n, size in enumerate(shape) if size == DYNAMIC_INDEX]
    for use in list(value.uses):
        dim_op = use.operation
        index = constant_index(dim_op.operands[1]) if isinstance(dim_op, tensor.DimOp) else None
        if index is None or not 0 <= index < len(shape):
            continue
        if shape[index] == DYNAMIC_INDEX:
            size = empty.dynamic_sizes[dynamic.index(index)]
        else:
            constant = arith.ConstantOp(IntegerAttr(shape[index], IndexType()))
            Rewriter.insert_op(constant, InsertPoint.before(dim_op))
            size = constant.result
        dim_op.results[0].replace_all_uses_with(size)
        Rewriter.erase_op(dim_op)


@dataclass(frozen=True)
class LinalgHoistRowContractionsPass(ModulePass):
    """Hoist per-step contractions of an invariant tensor's rows out of `scf.for` loops;
    slices of rank 2 and more only with `collapse_rows` (off in the pipeline: see the module
    docstring)."""

    name = "linalg-hoist-row-contractions"
    collapse_rows: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for candidate in candidates(op):
            is_vector = len(candidate.slice.source.type.get_shape()) == 2  # type: ignore[union-attr]
            if is_vector or self.collapse_rows:
                hoist(candidate)
