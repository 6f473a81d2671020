"""Source lines for errors found when a call fixes the argument types.

Shape and dtype rules run again when a call gives the arguments' types, and lowering checks
what it needs (`correction` must be a constant); such errors name the function and the op
but not where the op is. `with_location` appends the source line, found two ways:

- the function is scripted again with the call's argument types (and its `int` arguments
  as constants where known): the scripter runs the same rules with those types and raises a
  located `ScriptError` at the failing expression;
- else the op named in the message (`torch.aten.std.correction`) is looked up by its Python
  spellings (`torch.std`, `Tensor.std`) among the function's calls; a unique match is it.

Either way the result is only a better message: anything that goes wrong here leaves the
message as it was.
"""

from __future__ import annotations

import ast
import inspect
import re
from typing import TYPE_CHECKING, Any

from frontend.errors import ScriptError, SourceLocation

if TYPE_CHECKING:
    from frontend.function import ScriptFunction

OP_NAME = re.compile(r"\btorch\.(?:aten|prim)\.[\w.]+")


def with_location(
    fn: ScriptFunction, message: str, signature: str, ints: dict[int, int] | None = None
) -> str:
    """`message` followed by the failing source line, when it can be found."""
    try:
        location = rescripted_location(fn, signature, ints or {}) or op_call_location(fn, message)
    except Exception:  # only a better message: never a new failure
        location = None
    return message if location is None else f"{message}\n{location.render()}"


def rescripted_location(
    fn: ScriptFunction, signature: str, ints: dict[int, int]
) -> SourceLocation | None:
    """Where scripting `fn` with the argument types of `signature` fails, if it does."""
    from frontend.script import FunctionScripter
    from frontend.script_calls import Compilation
    from lowering.signature import parse_signature

    python_fn = fn.python_fn
    names = [a.name for a in fn.arguments]
    if not inspect.isfunction(python_fn) or any("." in n for n in names):
        return None  # methods and tuple arguments: not rebuilt here
    types = parse_signature(signature)
    constants = {names[i]: value for i, value in ints.items()}
    arg_types = {n: t for n, t in zip(names, types) if n not in constants}
    try:
        FunctionScripter(
            python_fn, Compilation(), arg_types=arg_types, constants=constants
        ).build_function()
    except ScriptError as err:
        return err.location
    return None


def op_call_location(fn: ScriptFunction, message: str) -> SourceLocation | None:
    """The one call in `fn`'s source spelled like the op the message names, if unique."""
    from dialects.torch.registry import BY_NAME
    from frontend.script import load_source

    found = OP_NAME.search(message)
    python_fn = fn.python_fn
    if found is None or not inspect.isfunction(python_fn):
        return None
    op = BY_NAME.get(found.group(0).rstrip("."))
    if op is None:
        return None
    spelled = {s.rpartition(".")[2] for s in op.PY_NAMES if not s.startswith("operator.")}
    node, source = load_source(python_fn)
    calls = [c for c in ast.walk(node) if isinstance(c, ast.Call) and _called_name(c) in spelled]
    return source.location(calls[0]) if len(calls) == 1 else None


def _called_name(call: ast.Call) -> Any:
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    if isinstance(call.func, ast.Name):
        return call.func.id
    return None
