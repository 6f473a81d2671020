"""Scripting of control flow: `if`/`elif`/`else`, conditional expressions, `and`/`or`, early
`return`, `for ... in range(...)`, `while`, `break` and `continue`.

Statements run in structured form, like TorchScript's `prim::If` / `prim::Loop`:
- an `if` without `return`/`break`/`continue` inside yields every variable that a branch
  changed (an SSA merge); a variable defined in one branch only, or with different types on the
  two branches, becomes unusable after it, and reading it is an error that names both places;
- an `if` with such an exit takes the rest of the enclosing statement list into each branch
  that does not leave, so every path ends in an exit. What a path yields at its exit depends on
  the innermost frame: the return values in a function; the continue flag and the carried
  variables in a loop body (`break` yields false).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xdsl.ir import Attribute, Block, Region, SSAValue

from dialects.torch.ops.data_movement import AtenSelectIntOp
from dialects.torch.ops.prim import (
    PrimIfOp,
    PrimIfYieldOp,
    PrimLoopConditionOp,
    PrimLoopOp,
)
from dialects.torch.ops.scalar import AtenDeriveIndexOp, AtenRangeLengthOp
from dialects.torch.types import BoolType, IntType
from frontend.builder import IRBuilder, Value, kind_of
from frontend.errors import ScriptError
from frontend.resolve import ops_for_method
from lowering.torch_refine_types import join

if TYPE_CHECKING:
    from frontend.script_values import Unusable

INT64_MAX = 2**63 - 1  # TorchScript's trip count for `while` loops
EXITS = (ast.Return, ast.Break, ast.Continue)


@dataclass
class Leaf:
    """The end of one path through a statement list: the values it yields there."""

    values: list[SSAValue]
    node: ast.AST
    names: list[str] = field(default_factory=list[str])  # what each value is, for errors


# ---- frames: what an exit means ----


class FunctionFrame:
    """The function body: paths end in `return`.

    Returned tuples (nested too) are flattened into the function's results; `structure`
    records their shape (None for one value), which every `return` must share.
    """

    def __init__(self) -> None:
        self.structure: Any = None
        self.first_return: ast.stmt | None = None

    def exit(self, s: ControlFlowMixin, node: ast.stmt) -> Leaf:
        if not isinstance(node, ast.Return):
            raise s.error(node, f"`{type(node).__name__.lower()}` outside a loop")
        if node.value is None:
            raise s.error(node, "a scripted function must return a value")
        values, structure = flatten_tuples(s.expr(node.value))
        if self.first_return is None:
            self.structure, self.first_return = structure, node
        elif structure != self.structure:
            count, other = _count(structure), _count(self.structure)
            what = (
                f"this path returns {count} values but another returns {other}"
                if count != other
                else "this path returns a different tuple structure than another"
            )
            raise s.error(
                node,
                what + s.also_at(self.first_return),
                "return the same number of values on every path",
            )
        names = (
            [f"return value {i}" for i in range(len(values))]
            if len(values) > 1
            else ["return value"]
        )
        return Leaf([s.builder.materialize(v) for v in values], node, names)

    def fallthrough(self, s: ControlFlowMixin, node: ast.AST) -> Leaf:
        raise s.error(
            node,
            "this path through the function does not end with a `return`",
            "return a value on every path",
        )


@dataclass
class LoopFrame:
    """A loop body: paths end in `continue` (or the end of the body) or `break`."""

    carried: list[str]
    widths: list[int | None]  # a carried tuple's length, None for a single value
    condition: Callable[[], Value]  # whether to run the next iteration, after a `continue`

    def exit(self, s: ControlFlowMixin, node: ast.stmt) -> Leaf:
        if isinstance(node, ast.Return):
            raise s.error(
                node,
                "`return` inside a loop is not supported",
                "`break` out of the loop and return after it",
            )
        go_on = False if isinstance(node, ast.Break) else self.condition()
        return self.leaf(s, node, go_on)

    def fallthrough(self, s: ControlFlowMixin, node: ast.AST) -> Leaf:
        return self.leaf(s, node, self.condition())

    def leaf(self, s: ControlFlowMixin, node: ast.AST, go_on: Value) -> Leaf:
        values: list[Value] = [s.to_bool(go_on, node)]
        names = ["condition"]
        for name, width in zip(self.carried, self.widths):
            value = s.read_variable(name, node)
            parts = carried_parts(s, node, name, value, width)
            values += parts
            names += [name] if width is None else [f"{name}[{i}]" for i in range(width)]
        return Leaf([s.builder.materialize(v) for v in values], node, names)


def flatten_tuples(value: Value) -> tuple[list[Value], Any]:
    """A value's leaves and its tuple structure: None for a leaf, else a tuple of structures."""
    if not isinstance(value, tuple):
        return [value], None
    leaves: list[Value] = []
    structure = []
    for item in value:
        sub, shape = flatten_tuples(item)
        leaves += sub
        structure.append(shape)
    return leaves, tuple(structure)


def _count(structure: Any) -> int:
    return 1 if structure is None else len(structure)


def regroup_tuples(values: list[Any], structure: Any) -> Any:
    """The inverse of `flatten_tuples`."""
    it = iter(values)

    def build(shape: Any) -> Any:
        return next(it) if shape is None else tuple(build(s) for s in shape)

    return build(structure)


def carried_parts(
    s: ControlFlowMixin, node: ast.AST, name: str, value: Value, width: int | None
) -> list[Value]:
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


Frame = FunctionFrame | LoopFrame


def has_exit(node: ast.stmt) -> bool:
    """Whether `node` holds a `return`, or a `break`/`continue` of the enclosing loop."""
    if isinstance(node, EXITS):
        return True
    if isinstance(node, ast.If):
        return any(has_exit(s) for s in (*node.body, *node.orelse))
    if isinstance(node, ast.For | ast.While):
        return any(isinstance(n, ast.Return) for n in ast.walk(node))
    return False


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


def always_exits(body: list[ast.stmt]) -> bool:
    """Whether every path through `body` ends in `return`, `break` or `continue`."""
    return any(
        isinstance(s, EXITS)
        or (
            isinstance(s, ast.If)
            and bool(s.orelse)
            and always_exits(s.body)
            and always_exits(s.orelse)
        )
        for s in body
    )


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
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        names.setdefault(name.id)
    return list(names)


class ControlFlowMixin:
    """`FunctionScripter`'s statements and expressions that create regions."""

    if TYPE_CHECKING:
        env: dict[str, Value]
        unusable: dict[str, Unusable]
        assignments: dict[str, ast.AST]
        builder: IRBuilder
        frames: list[Frame]
        tensor_loops: dict[ast.For, SSAValue]

        def error(self, node: ast.AST, message: str, hint: str = "") -> ScriptError: ...
        def expr(self, node: ast.expr) -> Value: ...
        def statement(self, node: ast.stmt) -> None: ...
        def module_items(self, node: ast.AST, module: Any) -> list[Any]: ...
        def to_bool(self, value: Value, node: ast.AST) -> Value: ...
        def read_variable(self, name: str, node: ast.AST) -> Value: ...
        def emit(
            self, node: ast.AST, candidates: Any, args: list[Value], kwargs: dict[str, Value]
        ) -> list[SSAValue]: ...
        def scalar_binop(self, node: ast.AST, name: str, lhs: Value, rhs: Value) -> Value: ...
        def mark_unusable(self, name: str, why: Unusable) -> None: ...

    # ---- statement lists ----

    def block_list(self, body: list[ast.stmt]) -> Leaf | None:
        """Script `body`; a Leaf if every path through it exits, None if it falls through."""
        for index, stmt in enumerate(body):
            rest = body[index + 1 :]
            if isinstance(stmt, EXITS):
                if rest:
                    raise self.error(
                        rest[0],
                        f"unreachable code after `{type(stmt).__name__.lower()}`",
                        "remove it",
                    )
                return self.frames[-1].exit(self, stmt)
            if isinstance(stmt, ast.If) and has_exit(stmt):
                return self.exit_if(stmt, rest)
            if isinstance(stmt, ast.For) and not is_range_call(stmt.iter):
                items = self.iteration_items(stmt)
                if items is not None:
                    return self.block_list(self.unrolled(stmt, items) + rest)
            self.statement(stmt)
        return None

    def iteration_items(self, node: ast.For) -> list[Value] | None:
        """The items of a loop that is unrolled while scripting (over a Sequential/ModuleList,
        a tuple or a list), or None for a loop over a tensor (a `torch.prim.Loop`)."""
        from frontend.script_modules import ModuleValue

        iterable = self.expr(node.iter)
        if isinstance(iterable, ModuleValue):
            return list(self.module_items(node.iter, iterable))
        if isinstance(iterable, tuple | list):
            return list(iterable)
        if kind_of(iterable) == "Tensor":
            self.tensor_loops[node] = iterable
            return None
        raise self.error(
            node.iter,
            f"cannot iterate over {_article(kind_of(iterable))}",
            "loop over range(...), a tensor, a tuple or an nn.ModuleList",
        )

    def unrolled(self, node: ast.For, items: list[Value]) -> list[ast.stmt]:
        """The loop body once per item, each copy preceded by `target = item`."""
        if node.orelse:
            raise self.error(node.orelse[0], "`for ... else` is not supported")
        for inner in _walk_same_loop(node.body):
            if isinstance(inner, ast.Break | ast.Continue):
                raise self.error(
                    inner,
                    f"`{type(inner).__name__.lower()}` in a loop over modules or a tuple is "
                    "not supported (the loop is unrolled)",
                    "use an `if` around the rest of the body",
                )
        statements: list[ast.stmt] = []
        for index, item in enumerate(items):
            name = f"__item_{id(node)}_{index}"
            self.env[name] = item
            bind = ast.Assign(targets=[node.target], value=ast.Name(id=name, ctx=ast.Load()))
            statements += [ast.copy_location(bind, node.target), *node.body]
        return statements

    @contextmanager
    def branch(self, block: Block) -> Iterator[None]:
        """Script into `block` with a private copy of the variables."""
        saved = (self.builder.block, dict(self.env), dict(self.unusable))
        self.builder.block = block
        try:
            yield
        finally:
            self.builder.block, self.env, self.unusable = saved

    def condition(self, node: ast.expr) -> Value:
        """The test of an `if`/`while`: a Python bool (decided now) or a `!torch.bool`."""
        return self.to_bool(self.expr(node), node)

    # ---- if with exits ----

    def exit_if(self, node: ast.If, rest: list[ast.stmt]) -> Leaf:
        cond = self.condition(node.test)
        if isinstance(cond, bool):  # decided while scripting, like TorchScript's constant ifs
            taken = node.body if cond else node.orelse
            return self.block_list(taken if always_exits(taken) else taken + rest)
        blocks = (Block(), Block())
        leaves: list[Leaf] = []
        for block, body in zip(blocks, (node.body, node.orelse)):
            with self.branch(block):
                statements = body if always_exits(body) else body + rest
                leaf = self.block_list(statements) or self.frames[-1].fallthrough(self, node)
                block.add_op(PrimIfYieldOp(leaf.values))
                leaves.append(leaf)
        types = self.merged_types(leaves[0], leaves[1])
        op = self.build_if(cond, types, blocks)
        for result, name in zip(op.results, leaves[0].names):
            result.name_hint = name if name.isidentifier() else None
        return Leaf(list(op.results), node, leaves[0].names)

    def merged_types(self, a: Leaf, b: Leaf) -> list[Attribute]:
        if len(a.values) != len(b.values):
            raise self.error(
                b.node,
                f"this path returns {len(b.values)} values but another "
                f"returns {len(a.values)}" + self.also_at(a.node),
            )
        for name, x, y in zip(a.names, a.values, b.values):
            if kind_of(x) != kind_of(y):
                raise self.error(
                    b.node,
                    f"{_describe(name)} is {_article(kind_of(y))} here but "
                    f"{_article(kind_of(x))} on another path" + self.also_at(a.node),
                    "give it the same type on every path",
                )
        return [join(x.type, y.type) for x, y in zip(a.values, b.values)]

    def also_at(self, node: ast.AST) -> str:
        location = self.error(node, "").location
        return "" if location is None else f" (line {location.line}, column {location.col + 1})"

    def build_if(
        self, cond: Value, types: list[Attribute], blocks: tuple[Block, Block]
    ) -> PrimIfOp:
        op = PrimIfOp(
            operands=[self.builder.materialize(cond)],
            result_types=[types],
            regions=[Region(blocks[0]), Region(blocks[1])],
        )
        self.builder.insert(op)
        return op

    # ---- if without exits: merge the variables ----

    def stmt_If(self, node: ast.If) -> None:  # noqa: N802
        cond = self.condition(node.test)
        if isinstance(cond, bool):
            for stmt in node.body if cond else node.orelse:
                self.statement(stmt)
            return
        before = dict(self.env)
        blocks = (Block(), Block())
        envs: list[dict[str, Value]] = []
        for block, body in zip(blocks, (node.body, node.orelse)):
            with self.branch(block):
                for stmt in body:
                    self.statement(stmt)
                envs.append(dict(self.env))
        self.merge_branches(node, before, envs, blocks, cond)

    def merge_branches(
        self,
        node: ast.If,
        before: dict[str, Value],
        envs: list[dict[str, Value]],
        blocks: tuple[Block, Block],
        cond: Value,
    ) -> None:
        changed = [
            n for n in {**envs[0], **envs[1]} if any(e.get(n) is not before.get(n) for e in envs)
        ]
        merged: list[tuple[str, SSAValue, SSAValue]] = []
        for name in changed:
            then_value, else_value = envs[0].get(name), envs[1].get(name)
            if self.is_mergeable(node, name, then_value, else_value):
                if then_value is else_value or (
                    then_value == else_value and not isinstance(then_value, SSAValue)
                ):
                    self.env[name] = then_value
                    continue
                merged.append((name, *self.materialize_in(blocks, then_value, else_value)))
        for block, index in zip(blocks, (1, 2)):
            block.add_op(PrimIfYieldOp([m[index] for m in merged]))  # type: ignore[misc]
        types = [join(t.type, e.type) for _, t, e in merged]
        op = self.build_if(cond, types, blocks)
        for (name, _, _), result in zip(merged, op.results):
            result.name_hint = name
            self.env[name] = result

    def materialize_in(
        self, blocks: tuple[Block, Block], *values: Value
    ) -> tuple[SSAValue, SSAValue]:
        out: list[SSAValue] = []
        saved = self.builder.block
        for block, value in zip(blocks, values):
            self.builder.block = block
            out.append(self.builder.materialize(value))
        self.builder.block = saved
        return out[0], out[1]

    def is_mergeable(self, node: ast.If, name: str, then_value: Value, else_value: Value) -> bool:
        """False (and `name` unusable after the `if`) unless both branches define it alike."""
        from frontend.script_values import Unusable, is_scalar_or_tensor

        if then_value is None or else_value is None:
            message = f"`{name}` is not defined on every path through this `if`"
            self.mark_unusable(name, Unusable(message, node, "define it before the `if`"))
            return False
        for value in (then_value, else_value):
            if not is_scalar_or_tensor(value):
                raise self.error(
                    node,
                    f"`{name}` holds a {kind_of(value)} and is changed in a "
                    "branch; only tensors and scalars can be",
                    "assign it outside the `if`",
                )
        if kind_of(then_value) != kind_of(else_value):
            self.mark_unusable(
                name,
                Unusable(
                    f"`{name}` is {_article(kind_of(then_value))} in the true branch and "
                    f"{_article(kind_of(else_value))} in the false branch of this `if`",
                    node,
                    "give it the same type in both branches",
                ),
            )
            return False
        return True

    # ---- expressions with branches ----

    def expr_IfExp(self, node: ast.IfExp) -> Value:  # noqa: N802
        cond = self.condition(node.test)
        if isinstance(cond, bool):
            return self.expr(node.body if cond else node.orelse)
        blocks = (Block(), Block())
        leaves: list[Leaf] = []
        for block, expr in zip(blocks, (node.body, node.orelse)):
            with self.branch(block):
                value = self.builder.materialize(self.expr(expr))
                block.add_op(PrimIfYieldOp([value]))
                leaves.append(Leaf([value], expr, ["the conditional expression"]))
        return self.build_if(cond, self.merged_types(*leaves), blocks).results[0]

    def expr_BoolOp(self, node: ast.BoolOp) -> Value:  # noqa: N802
        """`a and b` / `a or b` on bools, short-circuiting like Python (a prim.If each)."""
        is_and = isinstance(node.op, ast.And)
        result = self.to_bool(self.expr(node.values[0]), node.values[0])
        for operand in node.values[1:]:
            if isinstance(result, bool):
                if result != is_and:  # False and ..., True or ...: decided
                    return result
                result = self.to_bool(self.expr(operand), operand)
                continue
            result = self.short_circuit(result, operand, is_and)
        return result

    def short_circuit(self, lhs: Value, operand: ast.expr, is_and: bool) -> Value:
        blocks = (Block(), Block())
        evaluated, skipped = (blocks[0], blocks[1]) if is_and else (blocks[1], blocks[0])
        with self.branch(evaluated):
            value = self.builder.materialize(self.to_bool(self.expr(operand), operand))
            evaluated.add_op(PrimIfYieldOp([value]))
        with self.branch(skipped):
            skipped.add_op(PrimIfYieldOp([self.builder.materialize(not is_and)]))
        return self.build_if(lhs, [BoolType()], blocks).results[0]

    # ---- loops ----

    def stmt_For(self, node: ast.For) -> None:  # noqa: N802
        if node.orelse:
            raise self.error(node.orelse[0], "`for ... else` is not supported")
        if not is_range_call(node.iter):
            self.tensor_loop(node)
            return
        bounds = self.range_arguments(node)
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable must be a plain name")
        lo, hi, step = bounds
        trip = self.range_length(node, lo, hi, step)
        if trip == 0:
            return
        target = node.target.id

        def loop_variable(iteration: SSAValue) -> Value:
            if lo == 0 and step == 1:
                iteration.name_hint = target
                return iteration
            return self.emit(node, (AtenDeriveIndexOp,), [iteration, lo, step], {})[0]

        self.loop(node, trip, True, lambda: True, (target, loop_variable))

    def tensor_loop(self, node: ast.For) -> None:
        """`for row in x:` iterates over the first dim of a tensor."""
        tensor = self.tensor_loops.pop(node, None)
        if tensor is None:  # not seen by `block_list` (e.g. inside an `if` without exits)
            items = self.iteration_items(node)
            if items is not None:
                for stmt in self.unrolled(node, items):
                    self.statement(stmt)
                return
            tensor = self.tensor_loops.pop(node)
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable must be a plain name")
        trip = self.emit(node.iter, ops_for_method("__len__"), [tensor], {})[0]

        def row(iteration: SSAValue) -> Value:
            return self.emit(node, (AtenSelectIntOp,), [tensor, 0, iteration], {})[0]

        self.loop(node, trip, True, lambda: True, (node.target.id, row))

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
        args = [self.expr(a) for a in call.args]
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
        return self.emit(node.iter, (AtenRangeLengthOp,), [lo, hi, step], {})[0]

    def stmt_While(self, node: ast.While) -> None:  # noqa: N802
        if node.orelse:
            raise self.error(node.orelse[0], "`while ... else` is not supported")
        initial = self.condition(node.test)
        if initial is False:
            return
        self.loop(node, INT64_MAX, initial, lambda: self.condition(node.test), None)

    def loop(
        self,
        node: ast.For | ast.While,
        trip: Value,
        initial: Value,
        condition: Callable[[], Value],
        target: tuple[str, Callable[[SSAValue], Value]] | None,
    ) -> None:
        """A `torch.prim.Loop` carrying every variable the body assigns that exists before it."""
        carried = [n for n in assigned_names(node.body) if n in self.env]
        widths = [_width(self.env[n]) for n in carried]
        inits = [
            self.builder.materialize(v)
            for n, w in zip(carried, widths)
            for v in carried_parts(self, node, n, self.read_variable(n, node), w)
        ]
        operands = [self.builder.materialize(trip), self.builder.materialize(initial)]
        body = Block(arg_types=[IntType(), *(v.type for v in inits)])
        body.args[0].name_hint = "iter"
        defined_before = set(self.env)
        with self.branch(body):
            self.env.update(_regroup(carried, widths, list(body.args[1:])))
            if target is not None:
                self.env[target[0]] = target[1](body.args[0])
                self.unusable.pop(target[0], None)
            self.frames.append(LoopFrame(carried, widths, condition))
            try:
                leaf = self.block_list(node.body) or self.frames[-1].fallthrough(self, node)
            finally:
                self.frames.pop()
            self.check_carried(node, leaf.names[1:], inits, leaf)
            body.add_op(PrimLoopConditionOp(leaf.values[0], leaf.values[1:]))
        op = PrimLoopOp(
            operands=[operands[0], operands[1], inits],
            result_types=[[v.type for v in inits]],
            regions=[Region(body)],
        )
        self.builder.insert(op)
        for name, value in zip(leaf.names[1:], [*body.args[1:]]):
            value.name_hint = name if name.isidentifier() else None
        for name, result in zip(leaf.names[1:], op.results):
            result.name_hint = name if name.isidentifier() else None
        self.env.update(_regroup(carried, widths, list(op.results)))
        self.forget_loop_locals(node, defined_before, target)

    def check_carried(
        self, node: ast.AST, carried: list[str], inits: list[SSAValue], leaf: Leaf
    ) -> None:
        for name, init, value in zip(carried, inits, leaf.values[1:]):
            if kind_of(init) != kind_of(value):
                raise self.error(
                    self.assignments.get(name, leaf.node),
                    f"`{name}` is {_article(kind_of(init))} before the loop but "
                    f"{_article(kind_of(value))} after an iteration",
                    "give it the same type before and inside the loop",
                )

    def forget_loop_locals(
        self, node: ast.For | ast.While, defined_before: set[str], target: tuple[str, Any] | None
    ) -> None:
        """Variables first assigned inside the loop (and the loop variable) end with it."""
        from frontend.script_values import Unusable

        names = assigned_names(node.body)
        if target is not None:
            names.append(target[0])
        for name in names:
            if name not in defined_before:
                self.mark_unusable(
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


def _article(kind: str) -> str:
    return {
        "Tensor": "a Tensor",
        "int": "an int",
        "float": "a float",
        "bool": "a bool",
        "None": "None",
    }.get(kind, f"a {kind}")


def _describe(name: str) -> str:
    return f"`{name}`" if name.isidentifier() else f"the {name}"
