"""Statements (`scripter.statements`): the dispatch of one statement to the collaborator that
scripts its kind, expression statements, and assignment to every kind of target.

Exits (`return`, `break`, `continue`) and statements that take the rest of a statement list
are handled by the control flow's `block_list` (`frontend/script/control.py`); everything else
reaches `statement`, which looks the statement's `ast` class up in `handlers`.

Interface: `statement(stmt)`, `assign(target, value)`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import cached_property
from typing import Any

from xdsl.ir import SSAValue

from dialects.torch.ops.pieces import AtenUnbindIntOp
from dialects.torch.ops.prim import PrimListUnpackOp
from frontend.ir.builder import Value, kind_of
from frontend.script.collaborator import Collaborator
from frontend.script.starred import has_star
from frontend.script.value_kinds import ShapeValue


class Statements(Collaborator):
    """Statements: dispatch by kind (`handlers`), expression statements, assignment."""

    @cached_property
    def handlers(self) -> dict[type[ast.stmt], Callable[[Any], None]]:
        """Which collaborator scripts each kind of statement."""
        s = self.scripter
        return {
            ast.Expr: self.stmt_Expr,
            ast.Pass: self.stmt_Pass,
            ast.Assign: self.stmt_Assign,
            ast.AnnAssign: self.stmt_AnnAssign,
            ast.AugAssign: self.stmt_AugAssign,
            ast.If: s.control.stmt_If,
            ast.With: s.control.stmt_With,
            ast.For: s.loops.stmt_For,
            ast.While: s.loops.stmt_While,
            ast.Raise: s.raising.stmt_Raise,
            ast.Assert: s.raising.stmt_Assert,
        }

    def statement(self, stmt: ast.stmt) -> None:
        """One statement without exits (`return`/`break`/`continue` go through `block_list`)."""
        method = self.handlers.get(type(stmt))
        if method is None:
            raise self.error(
                stmt,
                f"`{type(stmt).__name__}` statements are not supported in scripted functions",
                _STATEMENT_HINTS.get(type(stmt), ""),
            )
        method(stmt)

    def stmt_Expr(self, node: ast.Expr) -> None:  # noqa: N802
        if isinstance(node.value, ast.Constant):  # docstring
            return
        self.scripter.expressions.expr(node.value)

    def stmt_Pass(self, node: ast.Pass) -> None:  # noqa: N802
        return

    def stmt_Assign(self, node: ast.Assign) -> None:  # noqa: N802
        value = self.scripter.expressions.expr(node.value)
        for target in node.targets:
            self.assign(target, value)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:  # noqa: N802
        if node.value is None:
            raise self.error(node, "a declaration without a value is not supported")
        self.assign(node.target, self.scripter.expressions.expr(node.value))

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:  # noqa: N802
        if isinstance(node.target, ast.Subscript):  # `y[1] += v`: `y[1] = y[1] + v`
            read = ast.copy_location(
                ast.Subscript(node.target.value, node.target.slice, ast.Load()), node
            )
            self.assign(
                node.target,
                self.scripter.operators.binop(
                    node,
                    node.op,
                    self.scripter.expressions.expr(read),
                    self.scripter.expressions.expr(node.value),
                ),
            )
            return
        if not isinstance(node.target, ast.Name):
            raise self.error(
                node.target,
                "augmented assignment to this target is not supported",
                "assign to a plain variable: `x = x + y`",
            )
        current = self.scripter.expressions.lookup(node.target)
        result = self.scripter.operators.binop(
            node, node.op, current, self.scripter.expressions.expr(node.value)
        )
        operator = ast.unparse(ast.AugAssign(ast.Name("a"), node.op, ast.Name("b"))).split()[1]
        self.assign(
            node.target,
            self.scripter.tensor_methods.keep_dtype(node, operator, current, result),
        )

    def assign(self, target: ast.expr, value: Value) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, SSAValue) and value.name_hint is None:
                value.name_hint = target.id
            self.scripter.env[target.id] = value
            self.scripter.unusable.pop(target.id, None)
            self.scripter.assignments[target.id] = target
            return
        if isinstance(target, ast.Subscript):
            self.scripter.stores.assign_into(target, value)
            return
        if has_star(target):  # `b, *rest = x.shape`
            self.scripter.starred.assign_starred(target, value)  # type: ignore[arg-type]
            return
        if isinstance(target, ast.Tuple) and isinstance(value, ShapeValue):
            value = self.scripter.values.unpack_shape(target, value, len(target.elts))
        if isinstance(target, ast.Tuple) and kind_of(value) == "Tensor":  # `a, b = t`: rows
            value = self.scripter.ops.emit(target, (AtenUnbindIntOp,), [value, 0], {})[0]
        if (
            isinstance(target, ast.Tuple)
            and isinstance(value, SSAValue)
            and kind_of(value).startswith("list[")
        ):
            unpack = self.scripter.builder.insert(PrimListUnpackOp(value, len(target.elts)))
            value = tuple(unpack.results)
        if isinstance(target, ast.Tuple) and isinstance(value, tuple):
            if len(target.elts) != len(value):
                raise self.error(
                    target, f"cannot unpack {len(value)} values into {len(target.elts)}"
                )
            for t, v in zip(target.elts, value):
                self.assign(t, v)
            return
        raise self.error(
            target,
            f"assignment to `{ast.unparse(target)}` is not supported",
            "assign to a variable name or a tuple of names",
        )


_STATEMENT_HINTS: dict[type[ast.stmt], str] = {
    ast.Try: "try/except is not supported; move error handling outside the scripted function",
    ast.FunctionDef: "nested functions are not supported; define it at module level",
    ast.Global: "`global` is not supported; pass the value as an argument",
    ast.Nonlocal: "`nonlocal` is not supported; pass the value as an argument",
    ast.Import: "import at module level, outside the scripted function",
    ast.ImportFrom: "import at module level, outside the scripted function",
    ast.Delete: "`del` is not supported",
}
