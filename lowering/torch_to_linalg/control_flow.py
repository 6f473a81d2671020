"""Lowers structured control flow: `torch.prim.If` -> `scf.if`, `torch.prim.Loop` -> `scf.for`
(a `for i in range(n)` loop: both conditions constant true) or `scf.while` (anything else).

The pass walks ops in program order, so these patterns run before the ops in their regions:
they move the regions into the new op, give the block arguments their lowered types and
replace the terminators; the region's ops are lowered afterwards by the other patterns.
Loop counters are `i64`, like every `!torch.int`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, cf, scf, tensor
from xdsl.dialects.builtin import IntegerAttr, TensorType, i1, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint, Rewriter

from dialects.torch.op_base import arg_value
from dialects.torch.ops.prim import (
    PrimIfOp,
    PrimIfYieldOp,
    PrimLoopConditionOp,
    PrimLoopOp,
    PrimRaiseExceptionOp,
)
from dialects.torch.scalar_builder import ScalarBuilder
from lowering.ir_marks import RAISE_SEPARATOR, RUN_TIME_CHECK
from lowering.torch_to_linalg.scalars import arith_operand, build_scalars
from lowering.torch_to_linalg.utils import to_builtin_type

INT64_MAX = 2**63 - 1  # the trip count TorchScript gives `while` loops


def lowered_operands(rewriter: PatternRewriter, values: Sequence[SSAValue]) -> list[SSAValue]:
    """Operands as lowered values: torch constants become `arith.constant`s before the op."""
    return [build_scalars(rewriter, lambda b, v=v: arith_operand(b, v)) for v in values]


def convert_block_arguments(rewriter: PatternRewriter, block: Block) -> None:
    for arg in block.args:
        new_type = to_builtin_type(arg.type)
        if new_type != arg.type:
            rewriter.replace_value_with_new_type(arg, new_type)


class ConvertPrimIfOp(RewritePattern):
    """`torch.prim.If` -> `scf.if` with the same regions; `prim.If.yield` -> `scf.yield`. A
    run-time check (`RUN_TIME_CHECK`) -> `cf.assert` of the negated condition."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PrimIfOp, rewriter: PatternRewriter) -> None:
        (condition,) = lowered_operands(rewriter, [op.condition])
        raised = op.then_region.block.first_op
        if RUN_TIME_CHECK in op.attributes and isinstance(raised, PrimRaiseExceptionOp):
            passes = build_scalars(rewriter, lambda b: b.not_(condition))
            message = f"{raised.kind.data}{RAISE_SEPARATOR}{raised.message.data}"
            rewriter.replace(op, [cf.AssertOp(passes, message)], [])
            return
        regions = [
            rewriter.move_region_contents_to_new_regions(region)
            for region in (op.then_region, op.else_region)
        ]
        for region in regions:
            terminator = region.block.last_op
            assert isinstance(terminator, PrimIfYieldOp)
            rewriter.replace(terminator, scf.YieldOp(*terminator.values))
        result_types = [to_builtin_type(t) for t in op.result_types]
        rewriter.replace(op, scf.IfOp(condition, result_types, regions[0], regions[1]))


class ConvertPrimLoopOp(RewritePattern):
    """A counted loop without `break` -> `scf.for`; otherwise `scf.while` with the counter and
    the continue flag carried next to the loop values."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PrimLoopOp, rewriter: PatternRewriter) -> None:
        body = op.body.block
        terminator = body.last_op
        assert isinstance(terminator, PrimLoopConditionOp)
        convert_block_arguments(rewriter, body)
        trip, initial, *inits = lowered_operands(rewriter, op.operands)
        if (
            arg_value(op.initial_condition) is True
            and arg_value(terminator.should_continue) is True
        ):
            self.to_for(op, rewriter, trip, inits, terminator)
        else:
            self.to_while(op, rewriter, (trip, initial), inits, terminator)

    @staticmethod
    def to_for(
        op: PrimLoopOp,
        rewriter: PatternRewriter,
        trip: SSAValue,
        inits: Sequence[SSAValue],
        terminator: PrimLoopConditionOp,
    ) -> None:
        rewriter.replace(terminator, scf.YieldOp(*terminator.iter_args))
        zero, one = (arith.ConstantOp(IntegerAttr(v, i64)) for v in (0, 1))
        rewriter.insert([zero, one])
        region = rewriter.move_region_contents_to_new_regions(op.body)
        carried = [a.type for a in region.block.args[1:]]  # after the induction variable
        inits = [_cast_to(rewriter, v, t) for v, t in zip(inits, carried, strict=True)]
        rewriter.replace(op, scf.ForOp(zero, trip, one, inits, region))

    @staticmethod
    def to_while(
        op: PrimLoopOp,
        rewriter: PatternRewriter,
        trip_and_initial: tuple[SSAValue, SSAValue],
        inits: Sequence[SSAValue],
        terminator: PrimLoopConditionOp,
    ) -> None:
        trip, initial = trip_and_initial
        carried_types = [v.type for v in inits]
        before = Block(arg_types=[i64, i1, *carried_types])
        counter, go_on, *carried = before.args
        b = ScalarBuilder(before)
        if arg_value(op.max_trip_count) != INT64_MAX:
            go_on = b.and_(b.cmp("lt", counter, trip), go_on)
        before.add_op(scf.ConditionOp(go_on, counter, *carried))

        after = op.body.block
        one = arith.ConstantOp(IntegerAttr(1, i64))
        next_counter = arith.AddiOp(after.args[0], one)
        next_values = [terminator.should_continue, *terminator.iter_args]
        rewriter.replace(terminator, [one, next_counter, scf.YieldOp(next_counter, *next_values)])

        zero = arith.ConstantOp(IntegerAttr(0, i64))
        rewriter.insert(zero)
        loop = scf.WhileOp(
            [zero, initial, *inits],
            [i64, *carried_types],
            Region(before),
            rewriter.move_region_contents_to_new_regions(op.body),
        )
        rewriter.replace(op, loop, loop.results[1:])


def _cast_to(rewriter: PatternRewriter, value: SSAValue, typ: Attribute) -> SSAValue:
    """`value` as the loop-carried type `typ` (an init of `1x1` carried as `?x?`: the for
    loop's result types come from its inits, and must match its block arguments)."""
    if value.type == typ or not isinstance(typ, TensorType):
        return value
    cast = tensor.CastOp(value, typ)
    rewriter.insert(cast)
    return cast.dest


class ConvertPrimRaiseExceptionOp(RewritePattern):
    """`torch.prim.RaiseException kind message` -> `cf.assert %false, "kind: message"`: every
    later stage keeps it where it is, and the python target raises `kind(message)`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PrimRaiseExceptionOp, rewriter: PatternRewriter) -> None:
        false = arith.ConstantOp(IntegerAttr(0, i1))
        message = f"{op.kind.data}{RAISE_SEPARATOR}{op.message.data}"
        rewriter.replace(op, [false, cf.AssertOp(false.result, message)], [])


PATTERNS: tuple[RewritePattern, ...] = (
    ConvertPrimIfOp(),
    ConvertPrimLoopOp(),
    ConvertPrimRaiseExceptionOp(),
)


# ---- after conversion: values more precise than the carried types ----


def reconcile_carried_types(root: Operation) -> None:
    """Insert a `tensor.cast` wherever an init or yield of an scf op has a more precise tensor
    type than the value it becomes (`?x16` carried as `?x?`): scf requires exact matches, and
    the torch types are joined over all paths (`torch-refine-types`)."""
    for op in list(root.walk()):
        if isinstance(op, scf.ForOp):
            _cast_operands(op, 3, [r.type for r in op.results])
            _cast_operands(op.body.block.last_op, 0, [r.type for r in op.results])
        elif isinstance(op, scf.IfOp):
            for region in (op.true_region, op.false_region):
                if region.blocks:
                    _cast_operands(region.block.last_op, 0, [r.type for r in op.results])
        elif isinstance(op, scf.WhileOp):
            carried = [a.type for a in op.before_region.block.args]
            _cast_operands(op, 0, carried)
            _cast_operands(op.before_region.block.last_op, 1, [r.type for r in op.results])
            _cast_operands(op.after_region.block.last_op, 0, carried)


def _cast_operands(op: Operation | None, first: int, types: Sequence[Attribute]) -> None:
    assert op is not None
    for index, typ in enumerate(types, start=first):
        value = op.operands[index]
        if value.type == typ or not isinstance(typ, TensorType):
            continue
        cast = tensor.CastOp(value, typ)
        Rewriter.insert_op(cast, InsertPoint.before(op))
        op.operands[index] = cast.dest
