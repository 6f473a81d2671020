"""Source lines for errors found when a call fixes the argument types.

Shape and dtype rules run again when a call gives the arguments' types, and lowering checks
what it needs (`correction` must be a constant); such errors name the function and the op
but not where the op is. `with_location` appends the source line: the function is scripted
again with the call's argument types (and its `int` arguments as constants where known),
recording where each op comes from. If the scripter's rules fail with those types, its
located `ScriptError` gives the place; else the op the message names
(`torch.aten.std.correction`) is looked up among the recorded ops, and a unique one is it.

Either way the result is only a better message: anything that goes wrong here leaves the
message as it was.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any, Protocol

from xdsl.ir import Operation

from dialects.torch.types import ValueTensorType
from frontend.errors import ScriptError, SourceLocation
from frontend.script.calls import Compilation
from frontend.script.op_calls import OpCalls
from frontend.script.scripter import FunctionScripter
from lowering.signature import parse_signature


class Argument(Protocol):
    name: str


class ScriptFunction(Protocol):
    """What is read of a `frontend.function.ScriptFunction`: its Python function and
    arguments (the public API imports this module, not the other way)."""

    python_fn: Callable[..., Any] | None
    arguments: list[Argument]


OP_NAME = re.compile(r"\btorch\.(?:aten|prim)\.[\w.]+")


def with_location(
    fn: ScriptFunction, message: str, signature: str, ints: dict[int, int] | None = None
) -> str:
    """`message` followed by the failing source line, when it can be found."""
    try:
        location = find_location(fn, message, signature, ints or {})
    except Exception:  # only a better message: never a new failure
        location = None
    return message if location is None else f"{message}\n{location.render()}"


def find_location(
    fn: ScriptFunction, message: str, signature: str, ints: dict[int, int]
) -> SourceLocation | None:
    """Where scripting `fn` with the argument types of `signature` fails, else where the one
    op that `message` names comes from."""
    python_fn = fn.python_fn
    names = [a.name for a in fn.arguments]
    if not inspect.isfunction(python_fn) or any("." in n for n in names):
        return None  # methods and tuple arguments: not rebuilt here
    types = parse_signature(signature)
    constants = {names[i]: value for i, value in ints.items()}
    arg_types = {n: t for n, t in zip(names, types) if n not in constants}
    scripter = RecordingScripter(python_fn, Compilation(), arg_types=arg_types, constants=constants)
    try:
        scripter.build_function()
    except ScriptError as err:
        return err.location
    found = OP_NAME.search(message)
    if found is None:
        return None
    ops = [(op, where) for op, where in scripter.emitted if op.name == found.group(0).rstrip(".")]
    if len(ops) > 1:  # a refusal such as "must be a constant" is about a value known at run time
        ops = [(op, where) for op, where in ops if _has_run_time_scalar(op)]
    return ops[0][1] if len(ops) == 1 else None


def _has_run_time_scalar(op: Operation) -> bool:
    """Whether a non-tensor operand of `op` is not a constant of the program."""
    return any(
        not isinstance(v.type, ValueTensorType)
        and not (isinstance(v.owner, Operation) and v.owner.name.startswith("torch.constant."))
        for v in op.operands
    )


class RecordingScripter(FunctionScripter):
    """A scripter that notes the name and source location of each op it emits."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.emitted: list[tuple[Operation, SourceLocation]] = []
        self.ops = RecordingOpCalls(self)


class RecordingOpCalls(OpCalls):
    """`OpCalls` that append each op it emits, and where, to `scripter.emitted`."""

    def emit(self, node: Any, candidates: Any, args: Any, kwargs: Any) -> Any:
        results = super().emit(node, candidates, args, kwargs)
        if results:
            self.scripter.emitted.append((results[0].owner, self.scripter.source.location(node)))
        return results
