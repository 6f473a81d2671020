"""Scripting of control flow: `if`/`elif`/`else`, conditional expressions, `and`/`or`, early
`return`, and the statement lists that `break`/`continue`/`return` leave (loops themselves are
in `frontend/script/loops.py`).

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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from xdsl.ir import Attribute, Block, Region, SSAValue

from dialects.torch.ops.prim import (
    PrimIfOp,
    PrimIfYieldOp,
)
from dialects.torch.types import BoolType, NoneType
from frontend.ir.builder import Value, kind_of
from frontend.script.collaborator import Collaborator
from frontend.script.dicts import ScriptDict
from frontend.script.value_kinds import Unusable, is_scalar_or_tensor
from lowering.torch_opt.refine_types import join

EXITS = (ast.Return, ast.Break, ast.Continue)
GRAD_MODES = frozenset({"no_grad", "enable_grad", "inference_mode", "set_grad_enabled"})
"""Context managers whose body scripts as is (compiled code computes no gradients)."""


@dataclass
class Leaf:
    """The end of one path through a statement list: the values it yields there."""

    values: list[SSAValue]
    node: ast.AST
    names: list[str] = field(default_factory=list[str])  # what each value is, for errors


# ---- frames: what an exit means (their `s` is the FunctionScripter) ----


class FunctionFrame:
    """The function body: paths end in `return`.

    Returned tuples (nested too) are flattened into the function's results; `structure`
    records their shape (None for one value), which every `return` must share.
    """

    def __init__(self) -> None:
        self.structure: Any = None
        self.first_return: ast.stmt | None = None

    def exit(self, s: Any, node: ast.stmt) -> Leaf:
        if not isinstance(node, ast.Return):
            raise s.error(node, f"`{type(node).__name__.lower()}` outside a loop")
        if node.value is None:
            raise s.error(node, "a scripted function must return a value")
        returned = s.expressions.expr(node.value)
        if type(returned).__name__ == "GrownList":
            raise s.error(
                node.value,
                "a list grown in a loop decided at run time cannot be returned",
                "return torch.stack(...) or torch.cat(...) of it",
            )
        values, structure = flatten_tuples(returned)
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
                what + s.control.also_at(self.first_return),
                "return the same number of values on every path",
            )
        names = (
            [f"return value {i}" for i in range(len(values))]
            if len(values) > 1
            else ["return value"]
        )
        return Leaf([s.builder.materialize(v) for v in values], node, names)

    def fallthrough(self, s: Any, node: ast.AST) -> Leaf:
        raise s.error(
            node,
            "this path through the function does not end with a `return`",
            "return a value on every path",
        )


class ListShape(tuple):  # type: ignore[type-arg]
    """The structure of a returned Python list (a tuple of its items' structures)."""


@dataclass(frozen=True)
class DictShape:
    """The structure of a returned dict: its keys (in insertion order) and the structures of
    their values; the caller gets a dict back."""

    keys: tuple[Any, ...]
    items: tuple[Any, ...]

    def __len__(self) -> int:
        return len(self.items)


NONE_ITEM = "None"
"""The structure of a `None` inside a returned tuple or list (`return output, None`): no
function result, the caller gets None back."""


def is_none(value: Value) -> bool:
    return value is None or (isinstance(value, SSAValue) and isinstance(value.type, NoneType))


def flatten_tuples(value: Value) -> tuple[list[Value], Any]:
    """A value's leaves and its tuple structure: None for a leaf, else a tuple of structures
    (a `ListShape` for a list: `return [a, b]` gives the caller a list)."""
    if isinstance(value, dict):
        flat = [flatten_tuples(item) for item in value.values()]
        leaves_of_items = [leaf for sub, _ in flat for leaf in sub]
        return leaves_of_items, DictShape(tuple(value), tuple(shape for _, shape in flat))
    if not isinstance(value, tuple | list):
        return [value], None
    leaves: list[Value] = []
    structure = []
    for item in value:
        if is_none(item):
            structure.append(NONE_ITEM)
            continue
        sub, shape = flatten_tuples(item)
        leaves += sub
        structure.append(shape)
    return leaves, ListShape(structure) if isinstance(value, list) else tuple(structure)


def _count(structure: Any) -> int:
    return 1 if structure is None else len(structure)


def regroup_tuples(values: list[Any], structure: Any) -> Any:
    """The inverse of `flatten_tuples`."""
    it = iter(values)

    def build(shape: Any) -> Any:
        if shape is None:
            return next(it)
        if isinstance(shape, DictShape):
            return ScriptDict((key, build(s)) for key, s in zip(shape.keys, shape.items))
        if shape == NONE_ITEM:
            return None
        items = [build(s) for s in shape]
        return items if isinstance(shape, ListShape) else tuple(items)

    return build(structure)


def has_exit(node: ast.stmt) -> bool:
    """Whether `node` holds a `return`, or a `break`/`continue` of the enclosing loop."""
    if isinstance(node, EXITS):
        return True
    if isinstance(node, ast.If):
        return any(has_exit(s) for s in (*node.body, *node.orelse))
    if isinstance(node, ast.With):
        return any(has_exit(s) for s in node.body)
    if isinstance(node, ast.For | ast.While):
        return any(isinstance(n, ast.Return) for n in ast.walk(node))
    return False


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
        or (isinstance(s, ast.With) and always_exits(s.body))
        for s in body
    )


class ControlFlow(Collaborator):
    """Statements and expressions that create regions. Interface: `block_list(body)`,
    `branch(block)`, `build_if(condition, types, blocks)`, `condition(node)`,
    `also_at(node)`, and the handlers `stmt_If`, `stmt_With`, `expr_IfExp`, `expr_BoolOp`."""

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
                return self.scripter.frames[-1].exit(self.scripter, stmt)
            if isinstance(stmt, ast.With):  # `with torch.no_grad():` runs its body as is
                return self.block_list(self.with_body(stmt) + rest)
            if isinstance(stmt, ast.If):
                continuation = self.scripter.raising.raise_if(stmt)
                if continuation is not None:
                    return self.block_list(continuation + rest)
            if isinstance(stmt, ast.If) and has_exit(stmt):
                return self.exit_if(stmt, rest)
            if isinstance(stmt, ast.For):
                expanded = self.scripter.loops.unroll(stmt)
                if expanded is not None:
                    return self.block_list(expanded + rest)
            self.scripter.statements.statement(stmt)
        return None

    def with_body(self, node: ast.With) -> list[ast.stmt]:
        """The body of `with torch.no_grad():` (or `enable_grad`, `inference_mode`,
        `set_grad_enabled(...)`): compiled code computes no gradients either way."""
        for item in node.items:
            call = item.context_expr
            function = (
                self.scripter.expressions.expr(call.func) if isinstance(call, ast.Call) else None
            )
            name = getattr(getattr(function, "obj", None), "__name__", "")
            module = getattr(getattr(function, "obj", None), "__module__", "") or ""
            if name not in GRAD_MODES or not module.startswith(("torch", "frontend.torch")):
                raise self.error(
                    call,
                    "only `with torch.no_grad():` and the other grad modes are supported",
                    "move other context managers outside the scripted function",
                )
            if item.optional_vars is not None:
                raise self.error(item.optional_vars, "`with ... as name` is not supported")
        return list(node.body)

    def stmt_With(self, node: ast.With) -> None:  # noqa: N802
        for stmt in self.with_body(node):
            self.scripter.statements.statement(stmt)

    @contextmanager
    def branch(self, block: Block) -> Iterator[None]:
        """Script into `block` with a private copy of the variables."""
        saved = (self.scripter.builder.block, dict(self.scripter.env), dict(self.scripter.unusable))
        self.scripter.builder.block = block
        try:
            yield
        finally:
            self.scripter.builder.block, self.scripter.env, self.scripter.unusable = saved

    def condition(self, node: ast.expr) -> Value:
        """The test of an `if`/`while`: a Python bool (decided now) or a `!torch.bool`."""
        return self.scripter.values.to_bool(self.scripter.expressions.expr(node), node)

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
                leaf = self.block_list(statements) or self.scripter.frames[-1].fallthrough(
                    self.scripter, node
                )
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
            operands=[self.scripter.builder.materialize(cond)],
            result_types=[types],
            regions=[Region(blocks[0]), Region(blocks[1])],
        )
        self.scripter.builder.insert(op)
        return op

    # ---- if without exits: merge the variables ----

    def stmt_If(self, node: ast.If) -> None:  # noqa: N802
        continuation = self.scripter.raising.raise_if(node)
        if continuation is not None:
            for stmt in continuation:
                self.scripter.statements.statement(stmt)
            return
        cond = self.condition(node.test)
        if isinstance(cond, bool):
            for stmt in node.body if cond else node.orelse:
                self.scripter.statements.statement(stmt)
            return
        before = dict(self.scripter.env)
        blocks = (Block(), Block())
        envs: list[dict[str, Value]] = []
        assigned: list[dict[str, ast.AST]] = []  # per branch: variable -> its last assignment
        for block, body in zip(blocks, (node.body, node.orelse)):
            with self.branch(block):
                for stmt in body:
                    self.scripter.statements.statement(stmt)
                envs.append(dict(self.scripter.env))
                assigned.append(dict(self.scripter.assignments))
        self.branch_assignments = assigned
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
                    self.scripter.env[name] = then_value
                    continue
                merged.append((name, *self.materialize_in(blocks, then_value, else_value)))
        for block, index in zip(blocks, (1, 2)):
            block.add_op(PrimIfYieldOp([m[index] for m in merged]))  # type: ignore[misc]
        types = [join(t.type, e.type) for _, t, e in merged]
        op = self.build_if(cond, types, blocks)
        for (name, _, _), result in zip(merged, op.results):
            result.name_hint = name
            self.scripter.env[name] = result

    def materialize_in(
        self, blocks: tuple[Block, Block], *values: Value
    ) -> tuple[SSAValue, SSAValue]:
        out: list[SSAValue] = []
        saved = self.scripter.builder.block
        for block, value in zip(blocks, values):
            self.scripter.builder.block = block
            out.append(self.scripter.builder.materialize(value))
        self.scripter.builder.block = saved
        return out[0], out[1]

    def branch_places(self, name: str, kinds: list[str]) -> tuple[tuple[str, ast.AST], ...]:
        """Where each branch of the `if` being merged last assigned `name`."""
        found = [a.get(name) for a in getattr(self, "branch_assignments", [])]
        if len(found) != 2 or found[0] is None or found[1] is None or found[0] is found[1]:
            return ()
        return tuple(
            (f"`{name}` is {kind} here ({branch} branch)", place)
            for kind, branch, place in zip(kinds, ("true", "false"), found)
        )

    def is_mergeable(self, node: ast.If, name: str, then_value: Value, else_value: Value) -> bool:
        """False (and `name` unusable after the `if`) unless both branches define it alike."""

        if then_value is None or else_value is None:
            message = f"`{name}` is not defined on every path through this `if`"
            self.scripter.values.mark_unusable(
                name, Unusable(message, node, "define it before the `if`")
            )
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
            kinds = [_article(kind_of(v)) for v in (then_value, else_value)]
            self.scripter.values.mark_unusable(
                name,
                Unusable(
                    f"`{name}` is {kinds[0]} in the true branch and {kinds[1]} in the false "
                    "branch of this `if`",
                    node,
                    "give it the same type in both branches",
                    self.branch_places(name, kinds),
                ),
            )
            return False
        return True

    # ---- expressions with branches ----

    def expr_IfExp(self, node: ast.IfExp) -> Value:  # noqa: N802
        cond = self.condition(node.test)
        if isinstance(cond, bool):
            return self.scripter.expressions.expr(node.body if cond else node.orelse)
        blocks = (Block(), Block())
        leaves: list[Leaf] = []
        for block, expr in zip(blocks, (node.body, node.orelse)):
            with self.branch(block):
                value = self.scripter.builder.materialize(self.scripter.expressions.expr(expr))
                block.add_op(PrimIfYieldOp([value]))
                leaves.append(Leaf([value], expr, ["conditional expression"]))
        return self.build_if(cond, self.merged_types(*leaves), blocks).results[0]

    def expr_BoolOp(self, node: ast.BoolOp) -> Value:  # noqa: N802
        """`a and b` / `a or b` on bools, short-circuiting like Python (a prim.If each)."""
        is_and = isinstance(node.op, ast.And)
        result = self.scripter.values.to_bool(
            self.scripter.expressions.expr(node.values[0]), node.values[0]
        )
        for operand in node.values[1:]:
            if isinstance(result, bool):
                if result != is_and:  # False and ..., True or ...: decided
                    return result
                result = self.scripter.values.to_bool(
                    self.scripter.expressions.expr(operand), operand
                )
                continue
            result = self.short_circuit(result, operand, is_and)
        return result

    def short_circuit(self, lhs: Value, operand: ast.expr, is_and: bool) -> Value:
        blocks = (Block(), Block())
        evaluated, skipped = (blocks[0], blocks[1]) if is_and else (blocks[1], blocks[0])
        with self.branch(evaluated):
            value = self.scripter.builder.materialize(
                self.scripter.values.to_bool(self.scripter.expressions.expr(operand), operand)
            )
            evaluated.add_op(PrimIfYieldOp([value]))
        with self.branch(skipped):
            skipped.add_op(PrimIfYieldOp([self.scripter.builder.materialize(not is_and)]))
        return self.build_if(lhs, [BoolType()], blocks).results[0]


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
