"""The loop nest of one `linalg.generic` on memrefs: `scf.parallel` over its parallel dims,
`scf.for` over the sequential ones (the accumulator in `iter_args`), `memref.load/store` from
the indexing maps, and the cloned body. Used by `convert-linalg-to-parallel-loops`
(`parallel_loops.py`) for every generic, and extended by `outer_reduction_loops.py` for
reductions over outer dims. A nest that cannot be built raises the pass's
`PassFailedException` (`fail`).
"""


from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ShapedType,
)
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp, IndexOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.pattern_rewriter import (
    PatternRewriter,
)
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import PassFailedException

PASS_NAME = "convert-linalg-to-parallel-loops"

INDEX_OPS: dict[AffineBinaryOpKind, type[arith.SignlessIntegerBinaryOperation]] = {
    AffineBinaryOpKind.Add: arith.AddiOp,
    AffineBinaryOpKind.Mul: arith.MuliOp,
    AffineBinaryOpKind.Mod: arith.RemSIOp,
    AffineBinaryOpKind.FloorDiv: arith.FloorDivSIOp,
    AffineBinaryOpKind.CeilDiv: arith.CeilDivSIOp,
}
"""The arith op that computes each affine binary expression on `index` values."""


def fail(op: Operation, reason: str) -> PassFailedException:
    return PassFailedException(f"{PASS_NAME}: cannot lower '{op.name}': {reason}")




def shape_of(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, ShapedType)
    return value.type.get_shape()


def map_attrs(maps: Sequence[AffineMap]) -> ArrayAttr[AffineMapAttr]:
    return ArrayAttr(AffineMapAttr(m) for m in maps)


# ---- linalg.generic -> loops ----


@dataclass
class GenericLowering:
    """Builds the loop nest of one `linalg.generic` on memrefs in its place."""

    op: GenericOp
    rewriter: PatternRewriter
    maps: tuple[AffineMap, ...] = ()
    parallel_dims: tuple[int, ...] = ()
    sequential_dims: tuple[int, ...] = ()
    bounds: list[SSAValue] = field(default_factory=list[SSAValue])
    ivs: dict[int, SSAValue] = field(default_factory=dict[int, SSAValue])
    constants: dict[int, SSAValue] = field(default_factory=dict[int, SSAValue])

    def __post_init__(self) -> None:
        self.maps = tuple(attr.data for attr in self.op.indexing_maps)
        self.parallel_dims, self.sequential_dims = split_dims(self.op, self.maps)

    @property
    def num_inputs(self) -> int:
        return len(self.op.inputs)

    def lower(self) -> None:
        self.bounds = [self.loop_bound(source) for source in self.op.get_loop_bound_sources()]
        # Constants and bounds go before the op, the loops after it: so a constant made
        # while building the loops still dominates them.
        insertion_point = InsertPoint.after(self.op)
        if self.parallel_dims:
            insertion_point = self.build_parallel_loop(insertion_point)
        if self.sequential_dims:
            self.build_sequential_loops(insertion_point)
        else:
            outputs = self.load_used_args(range(len(self.op.operands)), insertion_point)
            results = self.inline_body(insertion_point, outputs)
            self.store_outputs(dict(enumerate(results, start=self.num_inputs)), insertion_point)
        self.rewriter.erase(self.op)

    # ---- loops ----

    def build_parallel_loop(self, insertion_point: InsertPoint) -> InsertPoint:
        """One `scf.parallel` over every parallel dim; returns the point inside its body."""
        dims = self.parallel_dims
        body = Block([scf.ReduceOp()], arg_types=[IndexType()] * len(dims))
        zeros, ones = [self.constant(0)] * len(dims), [self.constant(1)] * len(dims)
        ubs = [self.bounds[d] for d in dims]
        self.rewriter.insert(scf.ParallelOp(zeros, ubs, ones, Region(body)), insertion_point)
        for dim, iv in zip(dims, body.args, strict=True):
            self.ivs[dim] = iv
            iv.name_hint = f"i{dim}"
        assert body.last_op is not None
        return InsertPoint.before(body.last_op)

    def build_sequential_loops(self, insertion_point: InsertPoint) -> None:
        """The `scf.for` nest. An output indexed by the sequential dims is *streamed*: stored
        in the innermost loop at each iteration. Every other output is read before the nest,
        carried in `iter_args`, and stored after it."""
        outputs = range(self.num_inputs, len(self.op.operands))
        sequential = set(self.sequential_dims)
        streamed = [i for i in outputs if uses_dims(self.maps[i], sequential)]
        carried = [i for i in outputs if i not in streamed]
        accs = [self.load(index, insertion_point) for index in carried]
        loops: list[scf.ForOp] = []
        for dim in self.sequential_dims:
            block = Block(arg_types=[IndexType(), *(acc.type for acc in accs)])
            loop = scf.ForOp(self.constant(0), self.bounds[dim], self.constant(1), accs, block)
            self.rewriter.insert(loop, insertion_point)
            if loops:
                self.rewriter.insert(scf.YieldOp(*loop.results), InsertPoint.at_end(loop.parent))
            self.ivs[dim], *accs = block.args
            self.ivs[dim].name_hint = f"i{dim}"
            loops.append(loop)
            insertion_point = InsertPoint.at_end(block)
        values = self.load_used_args([*range(self.num_inputs), *streamed], insertion_point)
        values.update(zip(carried, accs, strict=True))
        results = dict(zip(outputs, self.inline_body(insertion_point, values), strict=True))
        self.store_outputs({i: results[i] for i in streamed}, insertion_point)
        yielded = [
            self.cast(results[i], acc.type, insertion_point) for i, acc in zip(carried, accs)
        ]
        self.rewriter.insert(scf.YieldOp(*yielded), insertion_point)
        self.store_outputs(dict(zip(carried, loops[0].results)), InsertPoint.after(loops[0]))

    # ---- body ----

    def inline_body(
        self, insertion_point: InsertPoint, values: dict[int, SSAValue]
    ) -> tuple[SSAValue, ...]:
        """Move the body to `insertion_point`; return what its `linalg.yield` yielded."""
        block = self.op.body.block
        for index, arg in enumerate(block.args):
            if arg.uses:
                self.rewriter.replace_all_uses_with(arg, values[index])
        while block.args:
            self.rewriter.erase_block_argument(block.args[0])
        yield_op = block.last_op
        assert yield_op is not None
        yielded = tuple(yield_op.operands)
        self.rewriter.erase(yield_op)
        index_ops = [op for op in block.ops if isinstance(op, IndexOp)]
        self.rewriter.inline_block(block, insertion_point)
        for index_op in index_ops:
            self.rewriter.replace(index_op, (), [self.ivs[index_op.dim.value.data]])
        return yielded

    def load_used_args(
        self, operand_indices: Sequence[int], insertion_point: InsertPoint
    ) -> dict[int, SSAValue]:
        args = self.op.body.block.args
        return {i: self.load(i, insertion_point) for i in operand_indices if args[i].uses}

    def load(self, operand_index: int, insertion_point: InsertPoint) -> SSAValue:
        """The element of operand `operand_index` at the current ivs (a scalar as is)."""
        operand = self.op.operands[operand_index]
        if not isinstance(operand.type, MemRefType):
            return operand
        indices = self.indices(self.maps[operand_index], insertion_point)
        load = memref.LoadOp.get(operand, indices)
        self.rewriter.insert(load, insertion_point)
        return load.res

    def store_outputs(self, values: dict[int, SSAValue], insertion_point: InsertPoint) -> None:
        """Stores each value into the output with that operand index, at the current ivs."""
        for index, value in values.items():
            output = self.op.operands[index]
            assert isinstance(output.type, MemRefType)
            value = self.cast(value, output.type.element_type, insertion_point)
            indices = self.indices(self.maps[index], insertion_point)
            store = memref.StoreOp.get(value, output, indices)
            self.rewriter.insert(store, insertion_point)

    def cast(self, value: SSAValue, to: Attribute, insertion_point: InsertPoint) -> SSAValue:
        """`value` converted to `to`, as `linalg.fill` does when its scalar type differs."""
        if value.type == to:
            return value
        cast = scalar_cast(value, to)
        if cast is None:
            raise fail(self.op, f"cannot store a {value.type} value into a {to} buffer")
        self.rewriter.insert(cast, insertion_point)
        return cast.results[0]

    # ---- index maths ----

    def indices(self, affine_map: AffineMap, insertion_point: InsertPoint) -> list[SSAValue]:
        return [self.index_value(expr, insertion_point) for expr in affine_map.results]

    def index_value(self, expr: AffineExpr, insertion_point: InsertPoint) -> SSAValue:
        """`expr` on the current ivs, as arith ops on `index` values."""
        if isinstance(expr, AffineDimExpr):
            return self.ivs[expr.position]
        if isinstance(expr, AffineConstantExpr):
            return self.constant(expr.value)
        if not isinstance(expr, AffineBinaryOpExpr):
            raise fail(self.op, f"unsupported affine expression {expr}")
        lhs = self.index_value(expr.lhs, insertion_point)
        rhs = self.index_value(expr.rhs, insertion_point)
        op = INDEX_OPS[expr.kind](lhs, rhs)
        self.rewriter.insert(op, insertion_point)
        return op.result

    def constant(self, value: int) -> SSAValue:
        """An `index` constant, created once per op, before the loop nest."""
        if value not in self.constants:
            op = arith.ConstantOp(IntegerAttr(value, IndexType()))
            self.rewriter.insert(op, InsertPoint.before(self.op))
            self.constants[value] = op.result
        return self.constants[value]

    def loop_bound(self, source: tuple[SSAValue, int, int]) -> SSAValue:
        operand, dim, size = source
        if size != DYNAMIC_INDEX:
            return self.constant(size)
        dim_op = memref.DimOp(operand, self.constant(dim))
        self.rewriter.insert(dim_op, InsertPoint.before(self.op))
        return dim_op.result


def scalar_cast(value: SSAValue, to: Attribute) -> Operation | None:
    """The arith op converting a scalar `value` to type `to` (i1 counts as unsigned)."""
    src = value.type
    if isinstance(src, AnyFloat) and isinstance(to, AnyFloat):
        return (arith.ExtFOp if src.bitwidth < to.bitwidth else arith.TruncFOp)(value, to)
    if isinstance(src, IntegerType) and isinstance(to, AnyFloat):
        return (arith.UIToFPOp if src.bitwidth == 1 else arith.SIToFPOp)(value, to)
    if isinstance(src, AnyFloat) and isinstance(to, IntegerType):
        return arith.FPToSIOp(value, to)
    if isinstance(src, IntegerType) and isinstance(to, IntegerType):
        if src.bitwidth > to.bitwidth:
            return arith.TruncIOp(value, to)
        return (arith.ExtUIOp if src.bitwidth == 1 else arith.ExtSIOp)(value, to)
    return None


def split_dims(op: GenericOp, maps: Sequence[AffineMap]) -> tuple[tuple[int, ...], ...]:
    """(parallel dims, sequential dims) of `op`.

    A parallel dim runs in `scf.parallel` only if every output map has it as a plain result,
    so that different iterations write different elements. An output whose map uses a
    sequential dim is written at every iteration of that dim (the last write stays, as in
    linalg): `softmax` yields `exp(x - max)` per element next to the sum it reduces.
    """
    iterators = [attr.data for attr in op.iterator_types]
    if IteratorType.WINDOW in iterators:
        raise fail(op, "window iterators are not supported")
    output_maps = maps[len(op.inputs) :]
    plain = [{r.position for r in m.results if isinstance(r, AffineDimExpr)} for m in output_maps]
    parallel = tuple(
        d
        for d, kind in enumerate(iterators)
        if kind == IteratorType.PARALLEL and all(d in dims for dims in plain)
    )
    sequential = tuple(d for d in range(len(iterators)) if d not in parallel)
    return parallel, sequential


def uses_dims(affine_map: AffineMap, dims: set[int]) -> bool:
    return any(r.used_dims() & dims for r in affine_map.results)
