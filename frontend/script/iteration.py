"""What a `for` loop, a list comprehension, `zip` and `enumerate` iterate over.

A sequence is either known while scripting (a tuple, a Python list, a ModuleList, a dict's
keys, or a list of tensors whose count is known: `x.split([2, 4])`, `x.tensor_split(3)`, a
chunk of a dim whose size is known): loops over it unroll. Or its length is known only at run
time (`RunTimeSequence`): the rows of a tensor (`for row in x`), and the pieces of
`x.unbind(d)`, `x.split(n, d)` and `x.chunk(n, d)` of a dim whose size is not known while
scripting. A loop over those is a `torch.prim.Loop` whose iteration i makes item i itself
(`x.select(d, i)`, `x.slice(d, i * n, i * n + n)`), so no list of unknown length is ever
indexed at run time:

    for c in x.chunk(3, 1):        # c = x[:, i*k : i*k + k], k = ceil(x.size(1) / 3),
        acc = acc + c.sum()        # for i < the number of chunks (at most 3)

`zip` of run-time sequences runs for the shortest; `enumerate` adds the iteration number. A
list comprehension over a run-time sequence is a loop that grows a list
(`frontend/script/grown_lists.py`: its items must have the same shape, and it needs at least
one of them). A list of tensors made by any other op (its length known only at run time) is a
located error.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Block, SSAValue

from dialects.torch.op_base import ConstantLikeOp, arg_value
from dialects.torch.ops.data_movement import AtenSelectIntOp, AtenSizeIntOp, AtenSliceTensorOp
from dialects.torch.ops.joining import AtenChunkOp, AtenSplitSizesOp, AtenSplitTensorOp
from dialects.torch.ops.pieces import (
    AtenMeshgridIndexingOp,
    AtenTensorSplitIndicesOp,
    AtenTensorSplitSectionsOp,
    AtenUnbindIntOp,
)
from dialects.torch.ops.prim import (
    PrimIfYieldOp,
    PrimListConstructOp,
    PrimListUnpackOp,
    PrimRaiseExceptionOp,
)
from dialects.torch.ops.reshaping import AtenNarrowOp
from dialects.torch.ops.scalars import AtenMaxIntOp, AtenMinIntOp
from frontend.ir.builder import Value, kind_of
from frontend.ir.resolve import ops_for_method
from frontend.script.collaborator import Collaborator
from frontend.script.control import _article
from frontend.script.grown_lists import GrownList
from frontend.script.value_kinds import ModuleValue


@dataclass
class RunTimeSequence:
    """Items made one at a time by ops: `length` (an int, or an `!torch.int` known at run
    time) and `item(i)`, which emits item i (i an int or an `!torch.int`) where the builder is."""

    length: Value
    item: Callable[[Value], Value]
    what: str  # for errors: "the pieces of `x.chunk(3)`"


Sequence = list[Value] | RunTimeSequence


def leaves_early(body: list[ast.stmt]) -> bool:
    """A `break` or `continue` of this loop (an unrolled loop cannot have one)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break | ast.Continue):
            return True
        if not isinstance(node, ast.For | ast.While | ast.FunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _constant(value: SSAValue) -> Value:
    """A constant operand as its Python value, any other operand as itself."""
    if isinstance(value.owner, ConstantLikeOp):
        return arg_value(value)
    return value


def known_piece_count(op: Any) -> int | None:
    """How many tensors the list-of-tensors op `op` makes, if known while scripting."""
    if isinstance(op, AtenMeshgridIndexingOp):
        listed = op.tensors.owner
        return len(listed.elements) if isinstance(listed, PrimListConstructOp) else None
    if isinstance(op, AtenSplitSizesOp | AtenTensorSplitIndicesOp | AtenTensorSplitSectionsOp):
        listed = op.operands[1].owner
        if isinstance(op, AtenSplitSizesOp) and isinstance(listed, PrimListConstructOp):
            return len(listed.elements)  # x.split([n, m]): sizes known at run time
        arg = arg_value(op.operands[1])
        if isinstance(op, AtenSplitSizesOp) and isinstance(arg, list):
            return len(arg)
        if isinstance(arg, int | list):
            return op.count(arg)  # type: ignore[union-attr]
    piece_types = getattr(op, "piece_types", None)
    if piece_types is None:
        return None
    try:
        pieces = piece_types()
    except (ValueError, TypeError, ArithmeticError):  # reported by the op's own check
        return None
    return None if pieces is None else len(pieces)


class Iteration(Collaborator):
    """Sequences, `zip` / `enumerate` / `list` / `reversed`, and loops and list comprehensions
    over run-time sequences. Interface: `sequence(node, value)`, `iteration_call`,
    `sequence_call`, `sequence_loop`, `run_time_comprehension`, `comprehension_scope`,
    `run_time_list_item`, `tensor_list_sequence`, `tensor_list_length`, `int_op`."""

    # ---- what a value iterates over ----

    def sequence(self, node: ast.expr, value: Value, unroll: bool = True) -> Sequence:
        """The items of `value` (evaluated from `node`): a list if known while scripting,
        else a `RunTimeSequence`. `unroll=False` prefers a run-time loop over a list of
        tensors whose count is known (a loop with `break` cannot unroll)."""

        if isinstance(value, ModuleValue):
            return list(self.scripter.modules.module_items(node, value))
        if isinstance(value, tuple | list | dict):  # a dict: its keys
            return list(value)
        if isinstance(value, RunTimeSequence):  # zip(...) / enumerate(...) of one
            return value
        if isinstance(value, GrownList):
            return self.grown_list_sequence(node, value)
        if kind_of(value) == "Tensor":
            return self.tensor_rows(node, value)
        if kind_of(value) == "list[Tensor]" and isinstance(value, SSAValue):
            return self.tensor_list_sequence(node, value, unroll)
        raise self.error(
            node,
            f"cannot iterate over {_article(kind_of(value))}",
            "loop over range(...), a tensor, a list of tensors (x.chunk, x.split, x.unbind), "
            "a tuple or an nn.ModuleList",
        )

    def tensor_rows(self, node: ast.expr, tensor: SSAValue) -> RunTimeSequence:
        """`for row in x`: `x.select(0, i)` for i < len(x)."""
        length = self.scripter.ops.emit(node, ops_for_method("__len__"), [tensor], {})[0]
        return RunTimeSequence(
            length,
            lambda i: self.scripter.ops.emit(node, (AtenSelectIntOp,), [tensor, 0, i], {})[0],
            f"the rows of `{ast.unparse(node)}`",
        )

    def grown_list_sequence(self, node: ast.expr, grown: GrownList) -> RunTimeSequence:
        """A list grown in an earlier run-time loop: its rows, one per item."""
        if grown.prefix:
            raise self.error(
                node,
                "cannot iterate over a list grown in a loop decided at run time that had items "
                "before the loop",
                "stack it first (torch.stack(outs)) and loop over the tensor's rows",
            )
        subscript = ast.copy_location(ast.Subscript(node, ast.Constant(0), ast.Load()), node)
        return RunTimeSequence(
            self.scripter.grown_lists.grown_list_length(node, grown),
            lambda i: self.scripter.grown_lists.grown_list_item(subscript, grown, i),
            f"`{ast.unparse(node)}`",
        )

    def tensor_list_sequence(self, node: ast.expr, value: SSAValue, unroll: bool) -> Sequence:
        """The tensors of a list made by an op: unpacked when their count is known while
        scripting, else made one per iteration (`RUN_TIME_PIECES`)."""
        op = value.owner
        count = known_piece_count(op)
        make = RUN_TIME_PIECES.get(type(op))
        if count is not None and (unroll or make is None):
            unpack = self.scripter.builder.insert(PrimListUnpackOp(value, count))
            return list(unpack.results)
        if make is not None:
            return make(self, node, op)
        made_by = getattr(op, "name", type(op).__name__)
        raise self.error(
            node,
            f"cannot iterate over a list[Tensor] made by `{made_by}`: its length is known only "
            "at run time",
            "loops run over x.unbind(d), x.split(n, d), x.chunk(n, d), the rows of a tensor, "
            "or lists whose length is known while scripting; unpack it (a, b = ...) instead",
        )

    def run_time_list_item(self, node: ast.Subscript, value: SSAValue, index: Value) -> Value:
        """`parts[i]` with `i` known at run time, of the pieces of `x.unbind` / `x.split(n)` /
        `x.chunk(n)`: piece i made by itself (a negative i counts from the end; like `x[i]`,
        the index is not bounds-checked)."""
        make = RUN_TIME_PIECES.get(type(value.owner))
        if make is None:
            raise self.error(
                node.slice,
                "a list of tensors must be indexed with a constant int, except the pieces of "
                "x.unbind(d) / x.split(n, d) / x.chunk(n, d)",
            )
        sequence = make(self, node.value, value.owner)
        shifted = self.int_op(node, ast.Add(), index, sequence.length)
        return sequence.item(self.int_op(node, ast.Mod(), shifted, sequence.length))

    def tensor_list_length(self, node: ast.AST, value: SSAValue) -> Value:
        """`len(parts)` of a list of tensors made by an op."""
        sequence = self.tensor_list_sequence(node, value, True)  # type: ignore[arg-type]
        return len(sequence) if isinstance(sequence, list) else sequence.length

    # ---- the pieces of unbind / split / chunk, one per iteration ----

    def dim_size(self, node: ast.AST, tensor: SSAValue, dim: Value) -> Value:
        return self.scripter.ops.emit(node, (AtenSizeIntOp,), [tensor, dim], {})[0]

    def int_op(self, node: ast.AST, op: ast.operator, lhs: Value, rhs: Value) -> Value:
        """An int operation, folded when both ints are known while scripting."""
        return self.scripter.operators.binop(node, op, lhs, rhs)

    def ceil_div(self, node: ast.AST, lhs: Value, rhs: Value) -> Value:
        """ceil(lhs / rhs) of ints >= 0 (rhs > 0)."""
        top = self.int_op(node, ast.Add(), lhs, self.int_op(node, ast.Sub(), rhs, 1))
        return self.int_op(node, ast.FloorDiv(), top, rhs)

    def int_extremum(self, node: ast.AST, fn: Any, lhs: Value, rhs: Value) -> Value:
        if isinstance(lhs, int) and isinstance(rhs, int):
            return fn(lhs, rhs)
        op = AtenMinIntOp if fn is builtins.min else AtenMaxIntOp
        return self.scripter.ops.emit(node, (op,), [lhs, rhs], {})[0]

    def slices_of(self, node: ast.expr, op: Any, length: Value, width: Value) -> RunTimeSequence:
        """Pieces `x.slice(dim, i * width, i * width + width)` (the last one clipped); of
        width 1, `x.narrow(dim, i, 1)`, whose size 1 is then known (`c.squeeze(dim)`)."""
        x, dim = op.operands[0], _constant(op.operands[2])

        def piece(i: Value) -> Value:
            if width == 1:
                return self.scripter.ops.emit(node, (AtenNarrowOp,), [x, dim, i, 1], {})[0]
            start = self.int_op(node, ast.Mult(), i, width)
            end = self.int_op(node, ast.Add(), start, width)
            return self.scripter.ops.emit(node, (AtenSliceTensorOp,), [x, dim, start, end, 1], {})[
                0
            ]

        return RunTimeSequence(length, piece, f"the pieces of `{ast.unparse(node)}`")

    def unbind_pieces(self, node: ast.expr, op: Any) -> RunTimeSequence:
        """`x.unbind(d)`: `x.select(d, i)` for i < x.size(d)."""
        x, dim = op.operands[0], _constant(op.operands[1])
        return RunTimeSequence(
            self.dim_size(node, x, dim),
            lambda i: self.scripter.ops.emit(node, (AtenSelectIntOp,), [x, dim, i], {})[0],
            f"the pieces of `{ast.unparse(node)}`",
        )

    def split_pieces(self, node: ast.expr, op: Any) -> RunTimeSequence:
        """`x.split(n, d)`: max(ceil(size / n), 1) pieces of n (the last one shorter)."""
        width = _constant(op.operands[1])
        size = self.dim_size(node, op.operands[0], _constant(op.operands[2]))
        if width == 0:  # only a dim of size 0 splits into (one) pieces of 0
            return self.slices_of(node, op, 1, 0)
        length = self.int_extremum(node, builtins.max, self.ceil_div(node, size, width), 1)
        return self.slices_of(node, op, length, width)

    def chunk_pieces(self, node: ast.expr, op: Any) -> RunTimeSequence:
        """`x.chunk(n, d)`: pieces of k = ceil(size / n), so ceil(size / k) of them (fewer
        than n when the size is small), or n empty pieces of a dim of size 0."""
        chunks = _constant(op.operands[1])
        size = self.dim_size(node, op.operands[0], _constant(op.operands[2]))
        width = self.ceil_div(node, size, chunks)
        nonzero_width = self.int_extremum(node, builtins.max, width, 1)
        empty = self.int_op(  # 1 for a dim of size 0, else 0
            node, ast.Sub(), 1, self.int_extremum(node, builtins.min, size, 1)
        )
        length = self.int_op(
            node,
            ast.Add(),
            self.ceil_div(node, size, nonzero_width),
            self.int_op(node, ast.Mult(), chunks, empty),
        )
        return self.slices_of(node, op, length, width)

    @contextmanager
    def comprehension_scope(self, generator: ast.comprehension) -> Iterator[None]:
        """The comprehension's variables live only inside it, as in Python: hidden from a loop
        that would carry them, restored after."""
        names = [n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)]
        hidden_before = {n: self.scripter.env.pop(n) for n in names if n in self.scripter.env}
        unusable_before = {
            n: self.scripter.unusable.pop(n) for n in names if n in self.scripter.unusable
        }
        try:
            yield
        finally:
            for name in names:
                self.scripter.env.pop(name, None)
                self.scripter.unusable.pop(name, None)
            self.scripter.env.update(hidden_before)
            self.scripter.unusable.update(unusable_before)

    # ---- list(), tuple(), reversed() ----

    def sequence_call(self, node: ast.Call, fn: Any, args: list[Value]) -> Value:
        """`list(parts)`, `tuple(items)`, `reversed(x.chunk(3))` of a sequence."""
        if node.keywords or len(args) > 1 or (fn is builtins.reversed and not args):
            raise self.error(node, f"{fn.__name__}() takes one sequence here")
        if not args:
            return self.scripter.expressions.new_list([]) if fn is builtins.list else ()
        value = args[0]
        is_op_list = isinstance(value, SSAValue) and kind_of(value) == "list[Tensor]"
        if fn is not builtins.reversed and is_op_list:
            return value  # a list of tensors made by an op stays one
        sequence = self.sequence(node.args[0], value)
        if isinstance(sequence, list):
            if fn is builtins.tuple:
                return tuple(sequence)
            return self.scripter.expressions.new_list(
                sequence[::-1] if fn is builtins.reversed else sequence
            )
        if fn is not builtins.reversed:
            raise self.error(
                node,
                f"{fn.__name__}() of {sequence.what}, whose length is known only at run time, "
                "is not supported",
                "iterate over it directly (for row in x), or stack / unbind it",
            )
        last = self.int_op(node, ast.Sub(), sequence.length, 1)
        return RunTimeSequence(
            sequence.length,
            lambda i: sequence.item(self.int_op(node, ast.Sub(), last, i)),
            sequence.what,
        )

    # ---- zip and enumerate ----

    def iteration_call(self, node: ast.Call, fn: Any, args: list[Value]) -> Value:
        """`enumerate(seq[, start])` / `zip(a, b, ...)`: a list of tuples for a loop unrolled
        while scripting, or a `RunTimeSequence` of tuples when a sequence's length is known
        only at run time."""
        if fn is builtins.enumerate:
            return self.enumerate_call(node, args)
        if node.keywords:
            raise self.error(node, "zip() takes no keyword arguments here")
        sequences = [self.sequence(n, v) for n, v in zip(node.args, args)]
        if all(isinstance(s, list) for s in sequences):
            return list(zip(*sequences))  # type: ignore[call-overload]
        sequences = [  # lists of tensors made by ops: made one per iteration like the others
            self.sequence(n, v, unroll=False) if isinstance(s, list) else s
            for n, v, s in zip(node.args, args, sequences)
        ]
        known = [len(s) for s in sequences if isinstance(s, list)]
        if known:  # zip(self.heads, x.chunk(3)): unrolled, as long as the known ones
            return self.zip_unrolled(node, sequences, min(known))
        runs: list[RunTimeSequence] = sequences  # type: ignore[assignment]
        length = runs[0].length
        for other in runs[1:]:
            length = self.int_extremum(node, builtins.min, length, other.length)
        return RunTimeSequence(
            length,
            lambda i: tuple(s.item(i) for s in runs),
            f"`{ast.unparse(node)}`",
        )

    def zip_unrolled(self, node: ast.Call, sequences: list[Sequence], count: int) -> Value:
        """`zip` of sequences known while scripting (the shortest has `count` items) and
        run-time ones, unrolled: items 0..count-1 of each; RuntimeError at run time when a
        run-time sequence is shorter (its loop would stop early, which unrolling cannot)."""
        columns = []
        for sequence in sequences:
            if isinstance(sequence, list):
                columns.append(sequence[:count])
                continue
            self.check_at_least(node, sequence, count)
            columns.append([sequence.item(i) for i in range(count)])
        return list(zip(*columns))

    def check_at_least(self, node: ast.Call, sequence: RunTimeSequence, count: int) -> None:
        message = (
            f"zip(): {sequence.what} has fewer than the {count} items of the sequences known "
            "while scripting (the loop is unrolled to those)"
        )
        if isinstance(sequence.length, int):
            if sequence.length < count:
                raise self.error(node, message)
            return
        short = self.scripter.values.scalar_binop(node, "lt", sequence.length, count)
        blocks = (Block(), Block())
        blocks[0].add_ops([PrimRaiseExceptionOp("RuntimeError", message), PrimIfYieldOp([])])
        blocks[1].add_op(PrimIfYieldOp([]))
        self.scripter.control.build_if(short, [], blocks)

    def enumerate_call(self, node: ast.Call, args: list[Value]) -> Value:
        starts = [k.value for k in node.keywords if k.arg == "start"]
        if len(args) + len(starts) == 2 and len(node.keywords) == len(starts):
            start = args[1] if len(args) == 2 else self.scripter.expressions.expr(starts[0])
            args = args[:1]
        elif len(args) == 1 and not node.keywords:
            start = 0
        else:
            raise self.error(node, "enumerate() takes one sequence (and a start) here")
        if kind_of(start) != "int":
            raise self.error(node, f"enumerate()'s start must be an int, got {kind_of(start)}")
        sequence = self.sequence(node.args[0], args[0])
        if isinstance(sequence, list):
            return [(self.int_op(node, ast.Add(), start, k), v) for k, v in enumerate(sequence)]
        return RunTimeSequence(
            sequence.length,
            lambda i: (self.int_op(node, ast.Add(), i, start), sequence.item(i)),
            sequence.what,
        )

    # ---- loops and list comprehensions over run-time sequences ----

    def sequence_loop(self, node: ast.For, sequence: RunTimeSequence) -> None:
        """`for <target> in <sequence>:` as a `torch.prim.Loop` whose iteration i makes item
        i; a loop growing lists peels its first iteration (`grown_loop`)."""
        loop_node, name = node, ""
        if isinstance(node.target, ast.Name):
            name = node.target.id
        else:  # `for i, (a, b) in ...`: a hidden loop variable, unpacked first in the body
            name = f"__item_{id(node)}"
            bind = ast.Assign(targets=[node.target], value=ast.Name(id=name, ctx=ast.Load()))
            loop_node = ast.copy_location(
                ast.For(
                    target=ast.Name(id=name, ctx=ast.Store()),
                    iter=node.iter,
                    body=[ast.copy_location(bind, node.target), *node.body],
                    orelse=[],
                ),
                node,
            )
        grown = self.scripter.grown_lists.growable_lists(loop_node)
        if grown:
            self.scripter.grown_lists.grown_loop(
                loop_node,
                sequence.length,
                grown,
                name,
                lambda: sequence.item(0),
                lambda i: sequence.item(self.int_op(node, ast.Add(), i, 1)),
            )
            return
        self.scripter.loops.loop(
            loop_node, sequence.length, True, lambda: True, (name, sequence.item)
        )

    def run_time_comprehension(
        self, node: ast.ListComp, generator: ast.comprehension, sequence: RunTimeSequence
    ) -> Value:
        """`[f(c) for c in x.chunk(n)]`: a loop appending each f(c) to a list it grows."""
        if generator.ifs:
            raise self.error(
                generator.ifs[0],
                f"a list comprehension with `if` over {sequence.what} (its length is known only "
                "at run time) is not supported",
                "keep every item (torch.where(cond, f(c), other)), or loop over a range of a "
                "number known while scripting",
            )
        hidden = f"__comprehension_{id(node)}"
        append = ast.Expr(
            ast.Call(
                ast.Attribute(ast.Name(id=hidden, ctx=ast.Load()), "append", ast.Load()),
                [node.elt],
                [],
            )
        )
        loop = ast.For(target=generator.target, iter=generator.iter, body=[append], orelse=[])
        for new in (append, append.value, append.value.func, append.value.func.value, loop):  # type: ignore[attr-defined]
            ast.copy_location(new, node)
        with self.comprehension_scope(generator):
            self.scripter.env[hidden] = self.scripter.expressions.new_list([])
            self.sequence_loop(loop, sequence)
            result = self.scripter.env.pop(hidden)
            self.scripter.unusable.pop(hidden, None)
        return result


RUN_TIME_PIECES: dict[type, Callable[[Any, ast.expr, Any], RunTimeSequence]] = {
    AtenUnbindIntOp: Iteration.unbind_pieces,
    AtenSplitTensorOp: Iteration.split_pieces,
    AtenChunkOp: Iteration.chunk_pieces,
}
"""The list-of-tensors ops whose piece i a run-time loop makes itself."""
