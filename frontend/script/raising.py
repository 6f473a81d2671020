"""Scripting of `raise` and `assert`: run-time errors of a compiled program.

A `raise` that scripting reaches where the path is decided while scripting (the function's own
block) is the script's error: the program always raises. Under a run-time condition or in a
loop it becomes `torch.prim.RaiseException` (TorchScript's prim::RaiseException), which the
compiled program raises when it gets there: `if x.dim() != 2: raise ValueError(...)` checks
its input like the eager program. An `if` one of whose branches ends in `raise` puts that
branch under a `torch.prim.If` of its own and continues with the other branch as if it were
unconditional (its variables stay defined after the `if`). `assert cond, msg` is
`if not cond: raise AssertionError(msg)`.

Messages are known while scripting: an f-string keeps the source text of its run-time parts
(`f"got {x.dim()}"` raises "got {x.dim()}").
"""

from __future__ import annotations

import ast

from xdsl.ir import Block

from dialects.torch.ops.prim import RAISABLE, PrimIfYieldOp, PrimRaiseExceptionOp
from frontend.script.collaborator import Collaborator


def raising_branch(node: ast.If) -> int | None:
    """0 if only the `if` branch ends in `raise`, 1 if only the `else` branch does, else None."""
    ends = [bool(body) and isinstance(body[-1], ast.Raise) for body in (node.body, node.orelse)]
    if ends[0] == ends[1]:
        return None
    return 0 if ends[0] else 1


def exception_of(node: ast.Raise) -> tuple[str, str]:
    """(exception class, message) of `raise Kind(message)`; an unknown class is RuntimeError."""
    exc = node.exc
    if isinstance(exc, ast.Call):
        kind, args = _class_name(exc.func), exc.args
    else:
        kind, args = _class_name(exc), []
    message = message_text(args[0]) if args else ""
    return (kind if kind in RAISABLE else "RuntimeError"), message


def _class_name(node: ast.expr | None) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return "RuntimeError"


def message_text(node: ast.expr) -> str:
    """A message known while scripting: a string constant, an f-string with the source text of
    its run-time parts in braces, or the source of any other expression."""
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                assert isinstance(value, ast.FormattedValue)
                parts.append("{" + ast.unparse(value.value) + "}")
        return "".join(parts)
    return ast.unparse(node)


class Raising(Collaborator):
    """`raise` and `assert`. Interface: `raise_if(node)` and the handlers `stmt_Raise`,
    `stmt_Assert`."""

    def stmt_Raise(self, node: ast.Raise) -> None:  # noqa: N802
        if node.exc is None:
            raise self.error(node, "a bare `raise` (re-raise) is not supported")
        if self.scripter.builder.block is self.scripter.entry_block:
            raise self.error(node, f"the program raises {ast.unparse(node.exc)}")
        self.scripter.builder.insert(PrimRaiseExceptionOp(*exception_of(node)))

    def stmt_Assert(self, node: ast.Assert) -> None:  # noqa: N802
        """Checked while scripting where the condition is known then; else at run time."""
        condition = self.scripter.control.condition(node.test)
        message = message_text(node.msg) if node.msg is not None else ""
        if condition is True:
            return
        if condition is False and self.scripter.builder.block is self.scripter.entry_block:
            suffix = f": {message}" if message else ""
            raise self.error(node, f"the program fails `assert {ast.unparse(node.test)}`{suffix}")
        blocks = (Block(), Block())
        blocks[0].add_op(PrimIfYieldOp([]))
        blocks[1].add_ops([PrimRaiseExceptionOp("AssertionError", message), PrimIfYieldOp([])])
        self.scripter.control.build_if(condition, [], blocks)

    def raise_if(self, node: ast.If) -> list[ast.stmt] | None:
        """For an `if` one branch of which ends in `raise`: that branch under a
        `torch.prim.If` of its own; returns the other branch's statements, which run next
        (None: no branch raises, nothing scripted)."""
        raising = raising_branch(node)
        if raising is None:
            return None
        condition = self.scripter.control.condition(node.test)
        bodies = (node.body, node.orelse)
        if isinstance(condition, bool):  # decided while scripting
            return bodies[0] if condition else bodies[1]
        blocks = (Block(), Block())
        with self.scripter.control.branch(blocks[raising]):
            for stmt in bodies[raising]:
                self.scripter.statements.statement(stmt)
        for block in blocks:
            block.add_op(PrimIfYieldOp([]))
        self.scripter.control.build_if(condition, [], blocks)
        return bodies[1 - raising]
