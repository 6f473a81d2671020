"""Scripting a lambda: `frontend.script(lambda x: x * 2 + 1)`.

`inspect.getsourcelines` gives a lambda's whole line, which is often no statement of its own
(`"relu": (lambda x: x.relu(), ...),` inside a dict). The lambda is found instead in the
`ast` of its whole file: the `ast.Lambda` on the code's first line with the code's parameter
names, and, when several match, the one whose body spans the positions of the code's
instructions. It is scripted as `def lambda_<line>(params): return body`, with the file's
line numbers kept for error locations.

A lambda inside a scripted function (`LocalLambda`) is no function of the program: each
call evaluates its body where it is called.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from frontend.errors import ScriptError, SourceFile
from frontend.ir.builder import Value
from frontend.script.collaborator import Collaborator


@contextmanager
def source_required(fn: Callable[..., Any]) -> Iterator[None]:
    """Turns `inspect`'s failures to find `fn`'s source into a ScriptError."""
    try:
        yield
    except (OSError, TypeError) as err:
        raise ScriptError(
            f"cannot script {getattr(fn, '__qualname__', fn)!r}: its source is not available",
            hint="define the function in a .py file (not in `python -c` or an interactive prompt)",
        ) from err


def is_lambda(fn: Any) -> bool:
    return getattr(fn, "__name__", None) == "<lambda>" and hasattr(fn, "__code__")


def lambda_source(fn: Callable[..., Any]) -> tuple[ast.FunctionDef, SourceFile]:
    """The lambda as a function definition, and its file (line 1 is the file's line 1)."""
    with source_required(fn):
        lines, _ = inspect.findsource(fn)
        filename = inspect.getsourcefile(fn) or "<unknown>"
    code = fn.__code__
    node = _the_lambda(ast.parse("".join(lines)), code)
    if node is None:
        raise ScriptError(
            f"cannot script the lambda on line {code.co_firstlineno} of {filename}: it cannot "
            "be told apart from another lambda there",
            hint="define it with `def`",
        )
    body = ast.Return(node.body)
    definition = ast.FunctionDef(
        name=f"lambda_{code.co_firstlineno}",
        args=node.args,
        body=[ast.copy_location(body, node.body)],
        decorator_list=[],
        returns=None,
        type_comment=None,
    )
    ast.copy_location(definition, node)
    ast.fix_missing_locations(definition)
    return definition, SourceFile(filename, "".join(lines).splitlines(), 1, 0)


def _the_lambda(tree: ast.AST, code: Any) -> ast.Lambda | None:
    params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    candidates = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Lambda)
        and node.lineno == code.co_firstlineno
        and tuple(a.arg for a in (*node.args.args, *node.args.kwonlyargs)) == params
    ]
    if len(candidates) > 1:
        candidates = [n for n in candidates if _spans(n.body, code)]
    return candidates[0] if len(candidates) == 1 else None


def _spans(body: ast.expr, code: Any) -> bool:
    """Whether every instruction of `code` with a source range (not the empty one of the
    function's prologue) lies inside `body`."""
    start = (body.lineno, body.col_offset)
    end = (body.end_lineno or body.lineno, body.end_col_offset or body.col_offset)
    positions = [
        (line, col, end_line, end_col)
        for line, end_line, col, end_col in code.co_positions()
        if line is not None
        and col is not None
        and end_line is not None
        and end_col is not None
        and (end_line, end_col) > (line, col)
    ]
    return bool(positions) and all(
        start <= (line, col) and (end_line, end_col) <= end
        for line, col, end_line, end_col in positions
    )


@dataclass(frozen=True)
class LocalLambda:
    """A lambda written inside a scripted function (`area = lambda t: t[:, 2] * t[:, 3]`):
    each call evaluates its body in place, its parameters bound to the call's values and its
    other names read from the function at the call (Python's late binding)."""

    node: ast.Lambda


class Lambdas(Collaborator):
    """Lambdas inside scripted functions. Interface: `call_lambda(node, callee, args, kwargs)`
    and the handler `expr_Lambda`."""

    def expr_Lambda(self, node: ast.Lambda) -> Value:  # noqa: N802
        spec = node.args
        if spec.vararg or spec.kwarg or spec.kwonlyargs or spec.posonlyargs or spec.defaults:
            raise self.error(
                node, "a lambda with defaults, *args, **kwargs or keyword-only parameters is "
                "not supported", "list its parameters plainly",
            )  # fmt: skip
        return LocalLambda(node)  # type: ignore[return-value]

    def call_lambda(
        self, node: ast.Call, callee: LocalLambda, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        names = [a.arg for a in callee.node.args.args]
        bound = dict(zip(names, args))
        for name, value in kwargs.items():
            if name not in names or name in bound:
                raise self.error(node, f"the lambda got an unexpected or repeated `{name}=`")
            bound[name] = value
        if len(args) > len(names) or set(bound) != set(names):
            raise self.error(node, f"the lambda takes {len(names)} arguments ({', '.join(names)})")
        saved = {name: self.scripter.env[name] for name in names if name in self.scripter.env}
        self.scripter.env.update(bound)
        try:
            return self.scripter.expressions.expr(callee.node.body)
        finally:
            for name in names:
                self.scripter.env.pop(name, None)
            self.scripter.env.update(saved)
