"""A batched matmul becomes a loop of 2-D matmuls on views (`memref-unbatch-contractions`).

`convert-linalg-to-library-calls` sends 2-D matmuls to the register-blocked kernels; a
batched one (`torch.bmm`, `q @ k.transpose(-2, -1)` of `[B, H, T, D]`, `x @ W` of a 3-D `x`)
stayed a loop nest of multiply-adds (measured: `bmm` of `[32,128,64] x [32,64,128]` 20 ms
against torch's 0.45 ms at one thread). Here its leading batch dims become `scf.for` loops
around the 2-D matmul of one batch element's matrices, each a `memref.subview` (the python
target: the numpy view `x[b]`) cast to a plain 2-D type, so that the library-call pass
turns it into a kernel call:

```
linalg.generic {(b, i, j, k): (b, i, k), (b, k, j) -> (b, i, j)} ins(%a, %w) outs(%c)
  ==>
scf.for %t = %c0 to %batch step %c1 {
  %a2 = memref.cast (memref.subview %a[%t, 0, 0] [1, %m, %k] [1, 1, 1]) : memref<?x?xf32>
  (and %w2, %c2)
  linalg.generic {(i, j, k): (i, k), (k, j) -> (i, j)} ins(%a2, %w2) outs(%c2)
}
```
An input without the batch dims (a 2-D weight shared by every batch element) is read whole.

**Applies to:** a `linalg.generic` contraction (`out + a * b`, one float type) on memrefs
whose output map is `(b..., i, j)` with its leading dims `b...` parallel and in front of every
operand that has them, and whose other dims and maps form a 2-D matmul (`(i, k)` and `(k, j)`
or `(j, k)`); operands with a known strided layout.

**Expects / produces:** the `memref` stage.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
)
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.contractions import dim_maps, is_contraction, iterator_kinds


@dataclass(frozen=True)
class Batched:
    """A batched matmul: its batch dims, each operand's map as dim positions, and whether
    each operand has the batch dims."""

    batch: tuple[int, ...]
    maps: tuple[tuple[int, ...], ...]
    batched: tuple[bool, ...]


def match_batched(op: GenericOp) -> Batched | None:
    """The batch structure of `op`, if the module doc's pattern fits."""
    kinds = iterator_kinds(op)
    if len(kinds) < 4 or not is_contraction(op):
        return None
    maps = dim_maps(op)
    if maps is None:
        return None
    batch = tuple(maps[2][:-2])
    if any(kinds[d] != IteratorType.PARALLEL for d in batch) or len(batch) != len(kinds) - 3:
        return None
    batched = []
    for operand_map, value in zip(maps, op.operands, strict=True):
        has_batch = tuple(operand_map[: len(batch)]) == batch
        rest = operand_map[len(batch) :] if has_batch else operand_map
        if len(rest) != 2 or set(rest) & set(batch):
            return None
        if has_batch and value.type.get_strides() is None:  # type: ignore[union-attr]
            return None
        batched.append(has_batch)
    if not batched[2]:
        return None
    return Batched(batch, tuple(map(tuple, maps)), tuple(batched))


def matrix_sizes(value: SSAValue, lead: int, at: InsertPoint) -> list[SSAValue]:
    """The sizes of the dims of `value` after its first `lead`, read once at `at`."""
    rank = value.type.get_num_dims()  # type: ignore[union-attr]
    sizes = []
    for d in range(lead, rank):
        index = arith.ConstantOp(IntegerAttr(d, IndexType()))
        dim = memref.DimOp(value, index)
        Rewriter.insert_op([index, dim], at)
        sizes.append(dim.result)
    return sizes


def matrix_view(
    value: SSAValue, ivs: list[SSAValue], sizes: list[SSAValue], at: InsertPoint
) -> SSAValue:
    """`value[ivs...]` (its trailing dims of `sizes`) as a 2-D memref of the plain type (see
    the module doc)."""
    source_type = value.type
    assert isinstance(source_type, MemRefType)
    rank, lead = source_type.get_num_dims(), len(ivs)
    strides = source_type.get_strides()
    assert strides is not None
    layout = StridedLayoutAttr(list(strides[lead:]), None)
    shape = [DYNAMIC_INDEX, DYNAMIC_INDEX]
    view_type = MemRefType(source_type.get_element_type(), shape, layout)
    view = memref.SubviewOp(
        value, ivs, sizes, [],
        [DYNAMIC_INDEX] * lead + [0, 0], [1] * lead + shape, [1] * rank, view_type,
    )  # fmt: skip
    plain = memref.CastOp.get(view.result, MemRefType(source_type.get_element_type(), shape))
    Rewriter.insert_op([view, plain], at)
    return plain.dest


def unbatched_maps(found: Batched) -> list[AffineMap]:
    """The 2-D matmul's maps: the non-batch dims of each map, renumbered from 0."""
    batch = set(found.batch)
    kept = sorted({p for m in found.maps for p in m} - batch)
    renumber = {d: n for n, d in enumerate(kept)}
    return [
        AffineMap(3, 0, tuple(AffineDimExpr(renumber[p]) for p in m if p not in batch))
        for m in found.maps
    ]


class UnbatchContraction(RewritePattern):
    """A batched matmul -> batch loops around a 2-D matmul of views (module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        found = match_batched(op)
        if found is None:
            return
        out = op.outputs[0]
        at = InsertPoint.before(op)
        zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        one = arith.ConstantOp(IntegerAttr(1, IndexType()))
        rewriter.insert([zero, one], at)
        sizes = []
        for position in range(len(found.batch)):
            index = arith.ConstantOp(IntegerAttr(position, IndexType()))
            size = memref.DimOp(out, index)
            rewriter.insert([index, size], at)
            sizes.append(size.result)
        count = len(sizes)
        batched = [v for v, has_batch in zip(op.operands, found.batched) if has_batch]
        matrix = {v: matrix_sizes(v, count, at) for v in batched}
        body = Block([scf.ReduceOp()], arg_types=[IndexType()] * count)
        loop = scf.ParallelOp([zero.result] * count, sizes, [one.result] * count, Region(body))
        rewriter.insert(loop, at)
        ivs: list[SSAValue] = list(body.args)
        at = InsertPoint.before(body.last_op)  # type: ignore[arg-type]
        operands = [
            matrix_view(value, ivs, matrix[value], at) if has_batch else value
            for value, has_batch in zip(op.operands, found.batched, strict=True)
        ]
        kinds = [k for d, k in enumerate(iterator_kinds(op)) if d not in set(found.batch)]
        matmul = GenericOp(
            operands[:2],
            operands[2:],
            op.body.clone(),
            ArrayAttr([AffineMapAttr(m) for m in unbatched_maps(found)]),
            ArrayAttr([IteratorTypeAttr(k) for k in kinds]),
        )
        rewriter.insert(matmul, at)
        rewriter.erase(op)


@dataclass(frozen=True)
class MemrefUnbatchContractionsPass(ModulePass):
    """Batched matmuls -> loops of 2-D matmuls on views (module doc)."""

    name = "memref-unbatch-contractions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(UnbatchContraction(), apply_recursively=False).rewrite_module(op)
