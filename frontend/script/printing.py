"""`print(...)` in scripted code: at the function's top level it runs in Python between
compiled parts of the program (a `torch.prim.PythonCall` of print), tensors shown as torch
tensors when PyTorch is loaded (else numpy arrays). An f-string argument is evaluated there
too, in Python, with the function's local values it names and its globals
(`print(f"step {t}: {x.shape}, {x.sum():.3f}")`); f-strings elsewhere are refused (a
`raise` message keeps their source text instead).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from dialects.torch.ops.prim import PrimPythonCallOp
from frontend.ir.builder import Value, kind_of
from frontend.run.python_registry import register
from frontend.script.collaborator import Collaborator


@dataclass
class FormattedString:
    """An f-string met while scripting: printed by Python with these local values."""

    node: ast.JoinedStr
    names: list[str]
    values: list[Value]


@dataclass
class Printer:
    """The Python side of a scripted print: `layout` is, per print argument, None for a
    value, else an f-string's code and how many values it takes."""

    layout: list[tuple[Any, list[str]] | None]
    options: dict[str, str]
    scope: dict[str, Any] = field(default_factory=dict)

    def __call__(self, *values: Any) -> None:
        it = iter(_shown(v) for v in values)
        shown = []
        for entry in self.layout:
            if entry is None:
                shown.append(next(it))
                continue
            code, names = entry
            local = {name: next(it) for name in names}
            shown.append(eval(code, self.scope, local))  # noqa: S307 (the user's own f-string)
        print(*shown, **self.options)


def _shown(value: Any) -> Any:
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(value))
    return value


class Printing(Collaborator):
    """`print` and f-strings. Interface: `builtin_print(node, args)` and the handler
    `expr_JoinedStr`."""

    def expr_JoinedStr(self, node: ast.JoinedStr) -> Value:  # noqa: N802
        names = sorted(
            {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in self.scripter.env}
        )
        return FormattedString(node, names, [self.scripter.env[n] for n in names])

    def builtin_print(self, node: ast.Call, args: list[Value]) -> Value:
        if self.scripter.builder.block is not self.scripter.entry_block:
            raise self.error(
                node,
                "print() inside `if` or a loop is not supported (it runs in Python between "
                "compiled parts of the program)",
                "print before or after the `if` or loop (a loop over range(<a number known "
                "while scripting>) without break/continue unrolls, and may print)",
            )
        options = {k.arg: self.scripter.expressions.expr(k.value) for k in node.keywords}  # type: ignore[attr-defined]
        if set(options) - {"sep", "end"} or not all(isinstance(v, str) for v in options.values()):
            raise self.error(node, "print() takes only `sep` and `end` strings here")
        layout: list[tuple[Any, list[str]] | None] = []
        operands: list[SSAValue] = []
        for value in args:
            parts = value.values if isinstance(value, FormattedString) else [value]
            for part in parts:
                if not isinstance(part, SSAValue | int | float | str | None):
                    raise self.error(node, f"print() of {kind_of(part)} is not supported")
                operands.append(self.scripter.builder.materialize(part))
            if isinstance(value, FormattedString):
                code = compile(ast.Expression(value.node), "<f-string>", "eval")
                layout.append((code, value.names))
            else:
                layout.append(None)
        printer = Printer(layout, options, self.scripter.globals)  # type: ignore[arg-type]
        self.scripter.builder.insert(PrimPythonCallOp(register(printer), operands, []))
        return None
