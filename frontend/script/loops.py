"""Scripting of loops: `for ... in range(...)`, `for row in x` over a tensor, `while`,
`break` and `continue` as `torch.prim.Loop`, and loops over tuples, lists and module
containers, which are unrolled while scripting.

A `torch.prim.Loop` carries every variable the body assigns that exists before the loop (a
tuple is carried element by element); its body ends, on every path, in the continue flag and
the carried values (`LoopFrame`). Variables first assigned inside the loop end with it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Attribute, Block, Region, SSAValue

from dialects.torch.ops.prim import PrimLoopConditionOp, PrimLoopOp
from dialects.torch.ops.scalars import AtenDeriveIndexOp, AtenRangeLengthOp
from dialects.torch.types import DYN, IntType, ValueTensorType
from frontend.errors import ScriptError
from frontend.ir.builder import Value, kind_of
from frontend.script.collaborator import Collaborator
from frontend.script.control import FunctionFrame, Leaf, _article
from frontend.script.iteration import RunTimeSequence, Sequence, leaves_early
from frontend.script.value_kinds import Unusable

INT64_MAX = 2**63 - 1  # TorchScript's trip count for `while` loops


@dataclass
class LoopFrame:
    """A loop body: paths end in `continue` (or the end of the body) or `break`. Like
    `FunctionFrame`, its methods take the `FunctionScripter` as `s`."""

    carried: list[str]
    widths: list[int | None]  # a carried tuple's length, None for a single value
    condition: Callable[[], Value]  # whether to run the next iteration, after a `continue`

    def exit(self, s: Any, node: ast.stmt) -> Leaf:
        if isinstance(node, ast.Return):
            raise s.error(
                node,
                "`return` inside a loop decided at run time is not supported",
                "loop over range(<a number known while scripting>) (it unrolls), or `break` out "
                "of the loop and return after it",
            )
        go_on = False if isinstance(node, ast.Break) else self.condition()
        return self.leaf(s, node, go_on)

    def fallthrough(self, s: Any, node: ast.AST) -> Leaf:
        return self.leaf(s, node, self.condition())

    def leaf(self, s: Any, node: ast.AST, go_on: Value) -> Leaf:
        values: list[Value] = [s.values.to_bool(go_on, node)]
        names = ["condition"]
        for name, width in zip(self.carried, self.widths):
            value = s.values.read_variable(name, node)
            parts = carried_parts(s, node, name, value, width)
            values += parts
            names += [name] if width is None else [f"{name}[{i}]" for i in range(width)]
        return Leaf([s.builder.materialize(v) for v in values], node, names)


def carried_parts(s: Any, node: ast.AST, name: str, value: Value, width: int | None) -> list[Value]:
    """A loop-carried variable's values: itself, or a tuple's elements (carried one by one)."""
    if width is None:
        if isinstance(value, tuple):
            raise s.error(node, f"`{name}` is a tuple here but not before the loop")
        return [value]
    if not isinstance(value, tuple) or len(value) != width:
        raise s.error(
            node,
            f"`{name}` is a tuple of {width} before the loop but not after an iteration",
            "keep loop-carried tuples the same length",
        )
    return list(value)


def is_range_call(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
    )


def _walk_same_loop(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of `body` outside nested loops and functions."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.For | ast.While | ast.FunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))


def assigned_names(body: list[ast.stmt]) -> list[str]:
    """Variables assigned anywhere in `body`, in order of first assignment."""
    names: dict[str, None] = {}
    for stmt in body:
        for node in ast.walk(stmt):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For):
                targets = [node.target]
            elif isinstance(node, ast.Call) and is_in_place_method(node.func):
                targets = [in_place_base(node.func)]  # `acc.add_(x)` assigns `acc`
            for target in targets:
                while isinstance(target, ast.Subscript):  # `out[:, t] = h` assigns `out`
                    target = target.value
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        names.setdefault(name.id)
    return list(names)


def is_in_place_method(func: ast.expr) -> bool:
    """`x.add_`, `x.mul_(2).clamp_`: a tensor method that updates its receiver."""
    return (
        isinstance(func, ast.Attribute)
        and func.attr.endswith("_")
        and not func.attr.startswith("_")
    )


def in_place_base(func: ast.Attribute) -> ast.expr:
    """The variable an in-place method (chain) updates: `y` of `y.mul_(3).clamp_(min=0)`."""
    base = func.value
    while isinstance(base, ast.Call) and is_in_place_method(base.func):
        base = base.func.value  # type: ignore[attr-defined]
    return base


Frame = FunctionFrame | LoopFrame


class Loops(Collaborator):
    """Loops. Interface: `unroll(loop)`, `loop(node, trip, ...)`, `list_append`,
    `comprehension_items`, `unrolled_comprehension`, and the handlers `stmt_For`,
    `stmt_While`, `expr_ListComp`."""

    def unroll(self, node: ast.For) -> list[ast.stmt] | None:
        """The statements of a loop unrolled while scripting; None for a `torch.prim.Loop`.
        A loop over a range of numbers known while scripting unrolls when it `return`s (a
        compiled loop cannot)."""
        if is_range_call(node.iter):
            if not any(isinstance(n, ast.Return) for n in _walk_same_loop(node.body)):
                return None  # (its bounds are not evaluated twice)
            items = self.constant_range(node)
            if items is None or len(items) > UNROLL_LIMIT:
                return None
            return self.unrolled(node, items)  # type: ignore[arg-type]
        items = self.iteration_items(node)
        return None if items is None else self.unrolled(node, items)

    def constant_range(self, node: ast.For) -> list[int] | None:
        """The numbers of `range(...)` when its arguments are known while scripting."""
        call = node.iter
        assert isinstance(call, ast.Call)
        if call.keywords or not 1 <= len(call.args) <= 3:
            return None
        bounds = [self.scripter.expressions.expr(a) for a in call.args]
        if not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds) or (
            len(bounds) == 3 and bounds[2] == 0
        ):
            return None
        return list(range(*bounds))  # type: ignore[arg-type]

    def iteration_items(self, node: ast.For) -> list[Value] | None:
        """The items of a loop that is unrolled while scripting (over a Sequential/ModuleList,
        a tuple, a list, or a list of tensors whose count is known), or None for a loop over a
        sequence whose length is known at run time (a `torch.prim.Loop`, `run_time_loop`)."""
        iterable = self.scripter.expressions.expr(node.iter)
        sequence = self.scripter.iteration.sequence(
            node.iter, iterable, unroll=not leaves_early(node.body)
        )
        if isinstance(sequence, RunTimeSequence):
            self.scripter.run_time_loops[node] = sequence
            return None
        return sequence

    def unrolled(self, node: ast.For, items: list[Value]) -> list[ast.stmt]:
        """The loop body once per item, each copy preceded by `target = item`."""
        if node.orelse:
            raise self.else_error(node, "for")
        for inner in _walk_same_loop(node.body):
            if isinstance(inner, ast.Break | ast.Continue):
                raise self.error(
                    inner,
                    f"`{type(inner).__name__.lower()}` in a loop over modules, a tuple or a "
                    "list is not supported (the loop is unrolled)",
                    "use an `if` around the rest of the body",
                )
        statements: list[ast.stmt] = []
        for index, item in enumerate(items):
            name = f"__item_{id(node)}_{index}"
            self.scripter.env[name] = item
            bind = ast.Assign(targets=[node.target], value=ast.Name(id=name, ctx=ast.Load()))
            statements += [ast.copy_location(bind, node.target), *node.body]
        return statements

    # ---- Python lists: grown while scripting ----

    def list_append(
        self, node: ast.Call, items: list[Value], args: list[Value], kwargs: dict[str, Value]
    ) -> None:
        """`outs.append(v)` in the block that made `outs` (its loops over constant ranges
        unroll, `loop_over_constant_range`); a list is a value known while scripting."""
        if len(args) != 1 or kwargs:
            raise self.error(node, "append() takes exactly one argument")
        if self.scripter.grown_lists.grow(node, items, args[0]):
            return
        if self.scripter.list_blocks.get(id(items)) is not self.scripter.builder.block:
            raise self.error(
                node,
                "append() to a list inside a branch decided at run time, or more than once per "
                "iteration of a run-time loop, or in a loop with break/continue, is not supported",
                "append once per iteration at the top of the loop body (the list then grows as "
                "rows of a tensor), or loop over range(<a number known while scripting>)",
            )
        items.append(args[0])

    def list_sort(
        self, node: ast.Call, items: list[Value], args: list[Value], kwargs: dict[str, Value]
    ) -> None:
        """`xs.sort()` / `xs.sort(reverse=True)` of a list of numbers known while scripting,
        in place (TorchScript's `aten::sort.int` / `sort.float`), in the block that made it."""
        reverse = kwargs.get("reverse", False)
        if args or set(kwargs) - {"reverse"} or not isinstance(reverse, bool):
            raise self.error(node, "sort() takes only `reverse=True` or `reverse=False` here")
        if not all(isinstance(v, bool | int | float) for v in items):
            raise self.error(
                node,
                "sort() of a list holding values known only at run time is not supported",
                "sort a tensor instead: torch.sort(torch.tensor(xs))",
            )
        if self.scripter.list_blocks.get(id(items)) is not self.scripter.builder.block:
            raise self.error(node, "sort() of a list inside a branch decided at run time")
        items.sort(reverse=reverse)

    def expr_ListComp(self, node: ast.ListComp) -> Value:  # noqa: N802
        """`[f(x) for x in items]` over a range of numbers known while scripting, a tuple, a
        list or a ModuleList: unrolled into a list of values."""
        if len(node.generators) != 1 or node.generators[0].is_async:
            raise self.error(node, "a list comprehension takes one `for` here")
        generator = node.generators[0]
        items = self.comprehension_items(generator)
        if isinstance(items, RunTimeSequence):
            return self.scripter.iteration.run_time_comprehension(node, generator, items)
        return self.unrolled_comprehension(node, generator, items)

    def unrolled_comprehension(
        self, node: ast.ListComp, generator: ast.comprehension, items: list[Value]
    ) -> Value:
        saved = dict(self.scripter.env)
        results = []
        for item in items:
            self.scripter.statements.assign(generator.target, item)
            if all(self.comprehension_condition(test) for test in generator.ifs):
                results.append(self.scripter.expressions.expr(node.elt))
        self.scripter.env = saved
        return self.scripter.expressions.new_list(results)

    def comprehension_condition(self, test: ast.expr) -> bool:
        condition = self.scripter.control.condition(test)
        if not isinstance(condition, bool):
            raise self.error(test, "a list comprehension's `if` must be decided while scripting")
        return condition

    def comprehension_items(self, generator: ast.comprehension) -> Sequence:
        if is_range_call(generator.iter):
            call = generator.iter
            assert isinstance(call, ast.Call)
            bounds = [self.scripter.expressions.expr(a) for a in call.args]
            if not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds):
                raise self.error(
                    generator.iter,
                    "a list comprehension over range() needs numbers known while scripting",
                    "write the loop out, growing a tensor with torch.cat",
                )
            return list(range(*bounds))  # type: ignore[arg-type]
        return self.scripter.iteration.sequence(
            generator.iter, self.scripter.expressions.expr(generator.iter)
        )

    # ---- loops ----

    def stmt_For(self, node: ast.For) -> None:  # noqa: N802
        if node.orelse:
            raise self.else_error(node, "for")
        if not is_range_call(node.iter):
            self.run_time_loop(node)
            return
        bounds = self.range_arguments(node)
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable must be a plain name")
        lo, hi, step = bounds
        trip = self.range_length(node, lo, hi, step)
        if trip == 0:
            return
        if (
            isinstance(trip, int)
            and trip <= UNROLL_LIMIT
            and (appends_to_a_list(node) or prints(node))
        ):
            for stmt in self.unrolled(node, list(range(lo, hi, step))):  # type: ignore[arg-type]
                self.scripter.statements.statement(stmt)
            return
        target = node.target.id
        grown = self.scripter.grown_lists.growable_lists(node)
        if grown:
            second = self.scripter.values.scalar_binop(node, "add", lo, step) if not (
                isinstance(lo, int) and isinstance(step, int)
            ) else lo + step  # fmt: skip

            def later(iteration: SSAValue) -> Value:
                return self.scripter.ops.emit(
                    node, (AtenDeriveIndexOp,), [iteration, second, step], {}
                )[0]

            self.scripter.grown_lists.grown_loop(node, trip, grown, target, lambda: lo, later)
            return

        def loop_variable(iteration: SSAValue) -> Value:
            if lo == 0 and step == 1:
                iteration.name_hint = target
                return iteration
            return self.scripter.ops.emit(node, (AtenDeriveIndexOp,), [iteration, lo, step], {})[0]

        self.loop(node, trip, True, lambda: True, (target, loop_variable))

    def run_time_loop(self, node: ast.For) -> None:
        """`for row in x:`, `for c in x.chunk(3):`, ...: a loop over a sequence that is
        unrolled, or whose length is known at run time (`script_iteration.py`)."""
        sequence = self.scripter.run_time_loops.pop(node, None)
        if sequence is None:  # not seen by `block_list` (e.g. inside an `if` without exits)
            items = self.iteration_items(node)
            if items is not None:
                for stmt in self.unrolled(node, items):
                    self.scripter.statements.statement(stmt)
                return
            sequence = self.scripter.run_time_loops.pop(node)
        self.scripter.iteration.sequence_loop(node, sequence)

    def range_arguments(self, node: ast.For) -> tuple[Value, Value, Value]:
        call = node.iter
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "range"
            and not call.keywords
        ):
            raise self.error(
                call,
                "only `for ... in range(...)` loops are supported",
                "loop over indices: `for i in range(len(xs))`",
            )
        if not 1 <= len(call.args) <= 3:
            raise self.error(call, f"range() takes 1 to 3 arguments, got {len(call.args)}")
        args = [self.scripter.expressions.expr(a) for a in call.args]
        for arg, value in zip(call.args, args):
            if kind_of(value) not in ("int", "bool"):
                raise self.error(
                    arg,
                    f"range() needs ints, got {_article(kind_of(value))}",
                    "convert it with int(...)",
                )
        if len(args) == 1:
            return 0, args[0], 1
        return args[0], args[1], args[2] if len(args) == 3 else 1

    def range_length(self, node: ast.For, lo: Value, hi: Value, step: Value) -> Value:
        if step == 0:
            raise self.error(node.iter, "range() arg 3 must not be zero")
        if all(isinstance(v, int) for v in (lo, hi, step)):
            return len(range(lo, hi, step))
        if lo == 0 and step == 1:
            return hi
        return self.scripter.ops.emit(node.iter, (AtenRangeLengthOp,), [lo, hi, step], {})[0]

    def else_error(self, node: ast.For | ast.While, keyword: str) -> ScriptError:
        """The refusal of a loop's `else:` clause, at the `else` (else at the loop)."""
        lines = self.scripter.source.lines
        place: ast.AST = node
        for number in range(node.body[-1].end_lineno or node.lineno, node.orelse[0].lineno + 1):
            text = lines[number - 1]
            if text.lstrip().startswith("else") and text.strip()[4:5] in (":", " "):
                col = len(text) - len(text.lstrip())
                place = ast.Pass(lineno=number, col_offset=col, end_lineno=number,
                                 end_col_offset=col + 4)  # fmt: skip
                break
        return self.error(
            place, f"`{keyword} ... else` is not supported",
            f"set a flag before `break` and test it after the `{keyword}` loop",
        )  # fmt: skip

    def stmt_While(self, node: ast.While) -> None:  # noqa: N802
        if node.orelse:
            raise self.else_error(node, "while")
        initial = self.scripter.control.condition(node.test)
        if initial is False:
            return
        self.loop(
            node, INT64_MAX, initial, lambda: self.scripter.control.condition(node.test), None
        )

    def loop(
        self,
        node: ast.For | ast.While,
        trip: Value,
        initial: Value,
        condition: Callable[[], Value],
        target: tuple[str, Callable[[SSAValue], Value]] | None,
        extra_carried: list[str] | None = None,
    ) -> None:
        """A `torch.prim.Loop` carrying every variable the body assigns that exists before it
        (and `extra_carried`: hidden variables the body updates, such as a grown list's rows)."""
        carried = [n for n in assigned_names(node.body) if n in self.scripter.env]
        if target is not None and target[0] in self.scripter.env and target[0] not in carried:
            carried.append(target[0])  # `i = 0; for i in ...`: the last item after the loop
        carried += [n for n in extra_carried or [] if n not in carried]
        widths = [_width(self.scripter.env[n]) for n in carried]
        inits = [
            self.scripter.builder.materialize(v)
            for n, w in zip(carried, widths)
            for v in carried_parts(
                self.scripter, node, n, self.scripter.values.read_variable(n, node), w
            )
        ]
        operands = [
            self.scripter.builder.materialize(trip),
            self.scripter.builder.materialize(initial),
        ]
        carried_types = [any_sizes(v.type) for v in inits]
        body = Block(arg_types=[IntType(), *carried_types])
        body.args[0].name_hint = "iter"
        defined_before = set(self.scripter.env)
        with self.scripter.control.branch(body):
            self.scripter.env.update(_regroup(carried, widths, list(body.args[1:])))
            if target is not None:
                self.scripter.env[target[0]] = target[1](body.args[0])
                self.scripter.unusable.pop(target[0], None)
            self.scripter.frames.append(LoopFrame(carried, widths, condition))
            try:
                leaf = self.scripter.control.block_list(node.body) or self.scripter.frames[
                    -1
                ].fallthrough(self.scripter, node)
            finally:
                self.scripter.frames.pop()
            self.check_carried(node, leaf.names[1:], inits, leaf)
            body.add_op(PrimLoopConditionOp(leaf.values[0], leaf.values[1:]))
        op = PrimLoopOp(
            operands=[operands[0], operands[1], inits],
            result_types=[carried_types],
            regions=[Region(body)],
        )
        self.scripter.builder.insert(op)
        for name, value in zip(leaf.names[1:], [*body.args[1:]]):
            value.name_hint = name if name.isidentifier() else None
        for name, result in zip(leaf.names[1:], op.results):
            result.name_hint = name if name.isidentifier() else None
        self.scripter.env.update(_regroup(carried, widths, list(op.results)))
        self.forget_loop_locals(node, defined_before, target)

    def check_carried(
        self, node: ast.AST, carried: list[str], inits: list[SSAValue], leaf: Leaf
    ) -> None:
        for name, init, value in zip(carried, inits, leaf.values[1:]):
            if kind_of(init) != kind_of(value):
                raise self.error(
                    self.scripter.assignments.get(name, leaf.node),
                    f"`{name}` is {_article(kind_of(init))} before the loop but "
                    f"{_article(kind_of(value))} after an iteration",
                    "give it the same type before and inside the loop",
                )

    def forget_loop_locals(
        self, node: ast.For | ast.While, defined_before: set[str], target: tuple[str, Any] | None
    ) -> None:
        """Variables first assigned inside the loop (and the loop variable) end with it."""

        names = assigned_names(node.body)
        if target is not None:
            names.append(target[0])
        for name in names:
            if name not in defined_before:
                self.scripter.values.mark_unusable(
                    name,
                    Unusable(
                        f"`{name}` is only defined inside the loop",
                        node,
                        "assign it before the loop to use it afterwards",
                    ),
                )


def _width(value: Value) -> int | None:
    return len(value) if isinstance(value, tuple) else None


def _regroup(
    names: list[str], widths: list[int | None], values: list[SSAValue]
) -> dict[str, Value]:
    """Carried values back into variables (tuples regrouped from their elements)."""
    out: dict[str, Value] = {}
    it = iter(values)
    for name, width in zip(names, widths):
        out[name] = next(it) if width is None else tuple(next(it) for _ in range(width))
    return out


def any_sizes(typ: Attribute) -> Attribute:
    """A loop-carried tensor's type while scripting: its rank and dtype, any sizes (an
    iteration may change them: `out = torch.cat([out, h])`); the call's signature refines
    every size again (`torch-refine-types`)."""
    if isinstance(typ, ValueTensorType) and typ.sizes is not None:
        return ValueTensorType([DYN] * len(typ.sizes), typ.dtype)
    return typ


UNROLL_LIMIT = 256
"""A `for i in range(n)` with a constant n up to this that appends to a list or prints
unrolls."""


def prints(node: ast.For) -> bool:
    """Whether the loop's body calls `print(...)` (which runs in Python between compiled parts
    of the program, so only in an unrolled loop) and neither leaves it early nor `return`s."""
    if leaves_early(node.body) or any(isinstance(n, ast.Return) for n in ast.walk(node)):
        return False
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"
        for n in ast.walk(node)
    )


def appends_to_a_list(node: ast.For) -> bool:
    """Whether the loop's body calls `<name>.append(...)` (a list it grows) and does not
    `return` (an unrolled body cannot)."""
    if any(isinstance(n, ast.Return) for n in ast.walk(node)):
        return False
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "append"
        and isinstance(n.func.value, ast.Name)
        for n in ast.walk(node)
    )
