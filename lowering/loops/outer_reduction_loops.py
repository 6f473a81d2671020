"""Loops for a reduction over an outer dim: the reduced dim outside, the contiguous dim inside.

`convert-linalg-to-parallel-loops` puts parallel dims outside and reductions inside, carrying
the accumulator in `iter_args`. When the reduced dims are not the innermost one of the data
(`x.sum(0)` of a row-major `[m, n]`), that order reads down columns: each step of the inner
loop touches another cache line, and nothing vectorizes (measured: `x.sum(0)` of `[2048, 1024]`
float32 took 9.3 ms against torch's 0.6 ms at one thread). Here the innermost dim of the
iteration space is parallel and is the last index of every operand, so the loops become

```
scf.parallel (%i..., %b) = (0...) to (%outer..., ceildiv(%n, 256)) {   // blocks of 256 columns
  %lo = %b * 256, %hi = min(%lo + 256, %n)
  scf.for %k = 0 to %m {                                  // each reduced dim
    scf.for %j = %lo to %hi {                             // contiguous: vectorizes
      %acc = memref.load %out[%i..., %j]; loads of the inputs; body
      memref.store %new, %out[%i..., %j]
    }
  }
}
```
Each output element still folds the reduced values in their order (the block of outputs is
the accumulator, in L1), so results are those of the other loop order, without reordering.

**Applies to:** a `linalg.generic` on memrefs whose last loop dim is parallel, is the last
result of every operand's map, and which has sequential dims (`split_dims`); an output
indexed by a sequential dim (softmax's `exp(x - max)` next to its sum) must be indexed by
every dim, so that each element is written once, in the innermost loop. Everything else
keeps the default order.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, MemRefType, UnitAttr
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.rewriter import InsertPoint

from lowering.ir_marks import NONNEGATIVE_LOOP
from lowering.loops.generic_loops import GenericLowering, split_dims

COLUMN_BLOCK = 256
"""Outputs per parallel iteration: 1 KB of float32 accumulators (a block of 1024 was 1.7x
faster at one thread, but 256 leaves blocks for two threads from 512 columns on)."""



def reduces_outer_dims(op: GenericOp) -> bool:
    """Whether `op` is a reduction whose innermost loop dim is parallel and contiguous."""
    maps = [attr.data for attr in op.indexing_maps]
    parallel, sequential = split_dims(op, maps)
    last = len(op.iterator_types) - 1
    if not sequential or last not in parallel:
        return False
    every_dim = set(range(last + 1))
    for output_map in maps[len(op.inputs) :]:
        used = {d for r in output_map.results for d in r.used_dims()}
        if used & set(sequential) and used != every_dim:
            return False  # written several times per element: the order of writes matters
    shaped = [m for m, v in zip(maps, op.operands) if isinstance(v.type, MemRefType)]
    return all(_last_result_is(m, last) for m in shaped)


def _last_result_is(affine_map: AffineMap, dim: int) -> bool:
    results = affine_map.results
    return bool(results) and isinstance(results[-1], AffineDimExpr) and results[-1].position == dim


@dataclass
class OuterReductionLowering(GenericLowering):
    """Builds the loop nest above for an op `reduces_outer_dims` accepts."""

    def lower(self) -> None:
        self.bounds = [self.loop_bound(source) for source in self.op.get_loop_bound_sources()]
        insertion_point = InsertPoint.after(self.op)
        last = len(self.bounds) - 1
        insertion_point, block = self.build_block_loop(insertion_point, last)
        lo, hi = self.block_range(block, self.bounds[last], insertion_point)
        zero = self.constant(0)
        for dim in self.sequential_dims:
            insertion_point = self.build_for(dim, zero, self.bounds[dim], insertion_point)
        insertion_point = self.build_for(last, lo, hi, insertion_point, NONNEGATIVE_LOOP)
        values = self.load_used_args(range(len(self.op.operands)), insertion_point)
        results = self.inline_body(insertion_point, values)
        self.store_outputs(dict(enumerate(results, start=self.num_inputs)), insertion_point)
        self.rewriter.erase(self.op)

    def build_block_loop(
        self, insertion_point: InsertPoint, last: int
    ) -> tuple[InsertPoint, SSAValue]:
        """`scf.parallel` over the other parallel dims and the blocks of the last; returns the
        point inside its body and the block index."""
        outer = [d for d in self.parallel_dims if d != last]
        width = self.constant(COLUMN_BLOCK)
        blocks = arith.CeilDivSIOp(self.bounds[last], width)
        self.rewriter.insert(blocks, insertion_point)
        body = Block([scf.ReduceOp()], arg_types=[IndexType()] * (len(outer) + 1))
        zeros, ones = [self.constant(0)] * len(body.args), [self.constant(1)] * len(body.args)
        ubs = [*(self.bounds[d] for d in outer), blocks.result]
        self.rewriter.insert(scf.ParallelOp(zeros, ubs, ones, Region(body)), insertion_point)
        for dim, iv in zip(outer, body.args, strict=False):
            self.ivs[dim] = iv
            iv.name_hint = f"i{dim}"
        block = body.args[-1]
        block.name_hint = "block"
        assert body.last_op is not None
        return InsertPoint.before(body.last_op), block

    def block_range(
        self, block: SSAValue, size: SSAValue, insertion_point: InsertPoint
    ) -> tuple[SSAValue, SSAValue]:
        """(block * COLUMN_BLOCK, min(that + COLUMN_BLOCK, size))."""
        width = self.constant(COLUMN_BLOCK)
        lo = arith.MuliOp(block, width)
        end = arith.AddiOp(lo, width)
        hi = arith.MinSIOp(end, size)
        for op in (lo, end, hi):
            self.rewriter.insert(op, insertion_point)
        return lo.result, hi.result

    def build_for(
        self, dim: int, lb: SSAValue, ub: SSAValue, insertion_point: InsertPoint, *marks: str
    ) -> InsertPoint:
        """An `scf.for` over `dim` from `lb` to `ub` with the unit attributes `marks`; returns
        the point inside its body."""
        block = Block(arg_types=[IndexType()])
        loop = scf.ForOp(lb, ub, self.constant(1), [], block)
        loop.attributes.update({mark: UnitAttr() for mark in marks})
        self.rewriter.insert(loop, insertion_point)
        self.rewriter.insert(scf.YieldOp(), InsertPoint.at_end(block))
        self.ivs[dim] = block.args[0]
        block.args[0].name_hint = f"i{dim}"
        assert block.last_op is not None
        return InsertPoint.before(block.last_op)
