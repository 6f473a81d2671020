"""Scripting of calls to Python functions and methods: each callee is scripted on demand into
its own `func.func` of the same module and called with `func.call` (the `torch-inline` pass
inlines them before type refinement).

A callee is specialized for its call site: an unannotated argument takes the type of the IR
value passed (tensor, int, float, bool); Python values known while scripting (numbers, `None`,
strings, tuples of them) are bound as constants of the callee; annotated arguments must match.
A module's parameters and buffers reach a method as leading function arguments named by their path
(`%linear.weight`), which the caller passes on from its own.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, SSAValue

from dialects.torch.types import BoolType, FloatType, IntType, ValueTensorType
from frontend.builder import IRBuilder, Value, kind_of
from frontend.errors import ScriptError

if TYPE_CHECKING:
    from frontend.script_modules import ModuleValue

UNKNOWN_TENSOR = ValueTensorType(None, None)
_SCALAR_TYPES = {"int": IntType(), "float": FloatType(), "bool": BoolType()}


@dataclass
class ScriptedFunction:
    """A function of the module being built: its IR and the parameter paths it takes first."""

    op: func.FuncOp
    param_paths: list[str]


@dataclass
class Compilation:
    """The functions scripted for one entry point: callees are added as they are scripted."""

    functions: list[ScriptedFunction] = field(default_factory=list[ScriptedFunction])
    by_key: dict[tuple[Any, ...], ScriptedFunction] = field(default_factory=dict)
    in_progress: list[tuple[tuple[Any, ...], str]] = field(default_factory=list)

    def unique_name(self, base: str) -> str:
        taken = {f.op.sym_name.data for f in self.functions} | {n for _, n in self.in_progress}
        name, n = base, 1
        while name in taken:
            name, n = f"{base}_{n}", n + 1
        return name

    def module(self, entry: ScriptedFunction) -> ModuleOp:
        """The entry function first (the pipeline's convention), then its callees."""
        return ModuleOp([entry.op, *(f.op for f in self.functions if f is not entry)])


@dataclass(frozen=True)
class Callee:
    """What a call site asks for: a Python function, maybe a method bound to a module."""

    fn: Callable[..., Any]
    name: str  # the base IR symbol: `helper`, `MyDecisionGate.forward`
    self_value: ModuleValue | None = None  # the module as the caller reaches it

    def own_self(self) -> ModuleValue | None:
        """The module as the callee sees it: the root of its own parameter paths."""
        if self.self_value is None:
            return None
        return type(self.self_value)(self.self_value.obj, "")


class CallsMixin:
    """`FunctionScripter`'s calls of scripted functions and methods."""

    if TYPE_CHECKING:
        compilation: Compilation
        builder: IRBuilder

        def error(self, node: ast.AST, message: str, hint: str = "") -> ScriptError: ...
        def module_tensor(self, module: ModuleValue, path: str, node: ast.AST) -> SSAValue: ...

    def call_scripted(
        self, node: ast.Call, callee: Callee, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        """Script `callee` for these arguments (once per kind signature) and call it."""
        from frontend.script import FunctionScripter

        params = self.bind_call(node, callee, args, kwargs)
        runtime = {n: v for n, v in params.items() if _is_runtime(v)}
        constants = {n: v for n, v in params.items() if not _is_runtime(v)}
        types = {n: _type_of(self.builder.materialize(v)) for n, v in runtime.items()}
        key = (
            callee.fn,
            None if callee.self_value is None else id(callee.self_value.obj),
            tuple((n, str(t)) for n, t in types.items()),
            tuple((n, _constant_key(v)) for n, v in constants.items()),
        )
        scripted = self.compilation.by_key.get(key)
        if scripted is None:
            if any(k == key for k, _ in self.compilation.in_progress):
                raise self.error(
                    node,
                    f"recursive call of `{callee.name}` is not supported",
                    "write the recursion as a loop",
                )
            name = self.compilation.unique_name(callee.name)
            self.compilation.in_progress.append((key, name))
            try:
                scripter = FunctionScripter(
                    callee.fn, self.compilation, self_value=callee.own_self(),
                    arg_types=types, constants=constants, name=name,
                )  # fmt: skip
                scripted = scripter.build_function()
            finally:
                self.compilation.in_progress.pop()
            self.compilation.functions.append(scripted)
            self.compilation.by_key[key] = scripted
        return self.emit_call(node, callee, scripted, [runtime[n] for n in types])

    def bind_call(
        self, node: ast.Call, callee: Callee, args: list[Value], kwargs: dict[str, Value]
    ) -> dict[str, Value]:
        """Python's argument binding, with defaults filled in; `self` is not a parameter."""
        try:
            signature = inspect.signature(callee.fn)
        except (TypeError, ValueError) as err:
            raise self.error(node, f"cannot read the signature of `{callee.name}`: {err}") from None
        parameters = list(signature.parameters.values())
        if callee.self_value is not None:
            parameters = parameters[1:]
        signature = signature.replace(parameters=parameters)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as err:
            raise self.error(node, f"wrong arguments for `{callee.name}`: {err}") from None
        bound.apply_defaults()
        return dict(bound.arguments)

    def emit_call(
        self, node: ast.Call, callee: Callee, scripted: ScriptedFunction, args: list[Value]
    ) -> Value:
        owner = callee.self_value
        params: list[SSAValue] = []
        for path in scripted.param_paths:
            assert owner is not None
            params.append(self.module_tensor(owner, path, node))
        operands = params + [self.builder.materialize(a) for a in args]
        outputs = list(scripted.op.function_type.outputs.data)
        call = self.builder.insert(func.CallOp(scripted.op.sym_name.data, operands, outputs))
        results = list(call.results)
        return results[0] if len(results) == 1 else tuple(results)


def _is_runtime(value: Value) -> bool:
    """IR values are call operands; Python values (numbers, None, str, objects) are bound as
    constants of the callee, which is specialized on them (so `dim` arguments stay constant)."""
    return isinstance(value, SSAValue)


def _type_of(value: SSAValue) -> Attribute:
    kind = kind_of(value)
    if kind == "Tensor":
        return UNKNOWN_TENSOR
    if kind in _SCALAR_TYPES:
        return _SCALAR_TYPES[kind]
    return value.type


def _constant_key(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return ("value", type(value).__name__, value)
