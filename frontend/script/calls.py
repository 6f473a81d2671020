"""Scripting of calls to Python functions and methods: each callee is scripted on demand into
its own `func.func` of the same module and called with `func.call` (the `torch-inline` pass
inlines them before type refinement).

A callee is specialized for its call site: an unannotated argument takes the type of the IR
value passed (tensor, int, float, bool); Python values known while scripting (numbers, `None`,
strings, tuples of them) are bound as constants of the callee; annotated arguments must match.
A module's parameters and buffers reach a method as leading function arguments named by their path
(`%self.linear.weight`), which the caller passes on from its own.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.rewriter import Rewriter

from dialects.torch.ops.prim import PrimPythonCallOp
from dialects.torch.types import ValueTensorType
from frontend.ir.builder import Value, kind_of
from frontend.run.python_registry import register, result_types
from frontend.script.collaborator import Collaborator
from frontend.script.control import regroup_tuples
from frontend.script.dicts import DictKeys
from frontend.script.value_kinds import MethodValue, ModuleValue

UNKNOWN_TENSOR = ValueTensorType(None, None)


class CompiledFunction:
    """A function compiled from Python source: a call of one scripts `python_fn` as a callee.

    `frontend.function.ScriptFunction` derives from it; the scripter checks for this base, so
    it never imports the public API (which imports the scripter).
    """

    python_fn: Callable[..., Any] | None


@dataclass
class ScriptedFunction:
    """A function of the module being built: its IR and the parameter paths it takes first."""

    op: func.FuncOp
    param_paths: list[str]
    results: Any = None  # the tuple structure of the results (`flatten_tuples`), None for one


@dataclass
class Compilation:
    """The functions scripted for one entry point: callees are added as they are scripted."""

    functions: list[ScriptedFunction] = field(default_factory=list[ScriptedFunction])
    by_key: dict[tuple[Any, ...], ScriptedFunction] = field(default_factory=dict)
    in_progress: list[tuple[tuple[Any, ...], str]] = field(default_factory=list)
    imported: dict[tuple[Any, ...], ScriptedFunction] = field(default_factory=dict)  # graphs
    reserved: set[str] = field(default_factory=set)  # names of functions being scripted

    def unique_name(self, base: str) -> str:
        taken = {f.op.sym_name.data for f in self.functions} | {n for _, n in self.in_progress}
        taken |= self.reserved
        taken |= {f.op.sym_name.data for f in self.imported.values()}
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


class Calls(Collaborator):
    """Calls of scripted callees, ignored Python functions and traced graphs. Interface:
    `call_scripted`, `call_python`, `call_graph` (each `(node, callee, args, kwargs)`)."""

    def call_scripted(
        self, node: ast.Call, callee: Callee, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        """Script `callee` for these arguments (once per kind signature) and call it."""
        params = self.bind_call(node, callee, args, kwargs)
        operands: dict[str, list[SSAValue]] = {}
        constants: dict[str, Any] = {}
        for name, value in params.items():
            passed = self.passed_values(node, name, value)
            if passed is None:
                constants[name] = value
            else:
                operands[name] = passed
                if isinstance(value, dict):
                    constants[name] = DictKeys(tuple(value))
        types: dict[str, Attribute | list[Attribute]] = {
            n: _type_of(vs[0]) if _is_single(params[n]) else [_type_of(v) for v in vs]
            for n, vs in operands.items()
        }
        scripted = self.specialized(node, callee, types, constants)
        return self.emit_call(node, callee, scripted, [v for vs in operands.values() for v in vs])

    def specialized(
        self,
        node: ast.Call,
        callee: Callee,
        types: dict[str, Attribute | list[Attribute]],
        constants: dict[str, Any],
    ) -> ScriptedFunction:
        """The callee scripted for these argument types and constants, once per compilation."""
        compilation = self.scripter.compilation
        key = (
            callee.fn,
            None if callee.self_value is None else id(callee.self_value.obj),
            tuple((n, str(t)) for n, t in types.items()),
            tuple((n, _constant_key(v)) for n, v in constants.items()),
        )
        scripted = compilation.by_key.get(key)
        if scripted is not None:
            return scripted
        if any(k == key for k, _ in compilation.in_progress):
            raise self.error(
                node,
                f"recursive call of `{callee.name}` is not supported",
                "write the recursion as a loop",
            )
        name = compilation.unique_name(callee.name)
        compilation.in_progress.append((key, name))
        try:
            scripted = self.scripter.script_callee(
                callee.fn, self_value=callee.own_self(), arg_types=types, constants=constants,
                name=name,
            )  # fmt: skip
        finally:
            compilation.in_progress.pop()
        compilation.functions.append(scripted)
        compilation.by_key[key] = scripted
        return scripted

    def call_python(
        self, node: ast.Call, fn: Callable[..., Any], args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        """A call of an `@frontend.ignore`d function: `torch.prim.PythonCall`, run by Python
        between compiled segments. Its return annotation gives the results (a tensor if none)."""
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as err:
            raise self.error(node, f"wrong arguments for `{_name(fn)}`: {err}") from None
        bound.apply_defaults()
        operands: list[SSAValue] = []
        for name, value in bound.arguments.items():
            if isinstance(value, tuple) or not (
                isinstance(value, SSAValue) or _is_python_constant(value)
            ):
                raise self.error(
                    node,
                    f"argument `{name}` of the ignored function `{_name(fn)}` must be a tensor, "
                    f"a number, a string or None, not {kind_of(value)}",
                )
            operands.append(self.scripter.builder.materialize(value))
        types = result_types(fn)
        call = self.scripter.builder.insert(PrimPythonCallOp(register(fn), operands, types or []))
        if types is None:
            return None
        results = list(call.results)
        return results[0] if len(results) == 1 else tuple(results)

    def call_graph(
        self, node: ast.Call, function: Any, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        """Call a captured graph (a traced function or module) through a copy of its IR.

        Its functions join this module under fresh names; traced weights are constants in
        the graph, so the call passes only the arguments.
        """
        if kwargs:
            raise self.error(node, "a traced function takes positional arguments only")
        expected = len(function.arguments)
        if len(args) != expected:
            raise self.error(
                node, f"`{function.name}` takes {expected} arguments, {len(args)} given"
            )
        operands = [self.scripter.builder.materialize(a) for a in args]
        types = [o.type for o in operands]
        key = (id(function), tuple(str(t) for t in types))
        scripted = self.scripter.compilation.imported.get(key)
        if scripted is None:
            scripted = self.import_graph(function, types)
            self.scripter.compilation.imported[key] = scripted
        return self.emit_call(node, Callee(lambda: None, function.name), scripted, operands)

    def import_graph(self, function: Any, types: list[Attribute]) -> ScriptedFunction:
        taken = {f.op.sym_name.data for f in self.scripter.compilation.functions}
        taken |= {f.op.sym_name.data for f in self.scripter.compilation.imported.values()}
        copies, entry = renamed_copies(function.module, function.name, taken)
        for op in copies:
            forget_shapes(op, types if op is entry else None)
        imported = [ScriptedFunction(op, []) for op in copies]
        self.scripter.compilation.functions.extend(imported)
        return next(f for f in imported if f.op is entry)

    def passed_values(self, node: ast.Call, name: str, value: Value) -> list[SSAValue] | None:
        """The call operands for one argument; None binds it as a constant of the callee.

        A tuple holding IR values is passed element by element; a list holding IR values
        (`[x.size(0), 4]`) as one `!torch.list`.
        """

        if isinstance(value, ModuleValue | MethodValue):
            raise self.error(
                node,
                f"argument `{name}`: modules and methods cannot be passed to functions",
                "call the module in the caller and pass its result",
            )
        if isinstance(value, SSAValue):
            return [value]
        if isinstance(value, dict) and any(_holds_ir(v) for v in value.values()):
            return [self.dict_item_value(node, name, key, v) for key, v in value.items()]
        if not isinstance(value, tuple | list) or not any(_holds_ir(v) for v in value):
            return None
        if isinstance(value, list):
            return [self.scripter.builder.materialize(value)]
        return [self.scripter.builder.materialize(v) for v in value]

    def dict_item_value(self, node: ast.Call, name: str, key: Any, value: Value) -> SSAValue:
        """One value of a dict passed to a callee: a tensor, number or list, not a tuple."""
        if isinstance(value, tuple | dict):
            what = type(value).__name__ if isinstance(value, tuple) else "dict"
            raise self.error(
                node,
                f"argument `{name}`: the dict's value for {key!r} is a {what}; "
                "a dict passed to a function may hold tensors, numbers and lists",
            )
        return self.scripter.builder.materialize(value)

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
            params.append(self.scripter.modules.module_tensor(owner, path, node))
        operands = params + [self.scripter.builder.materialize(a) for a in args]
        outputs = list(scripted.op.function_type.outputs.data)
        call = self.scripter.builder.insert(
            func.CallOp(scripted.op.sym_name.data, operands, outputs)
        )
        return regroup_tuples(list(call.results), scripted.results)


def renamed_copies(
    module: ModuleOp, entry_name: str, taken: set[str]
) -> tuple[list[func.FuncOp], func.FuncOp]:
    """Copies of `module`'s functions under names not in `taken` (calls renamed too), and
    the copy of `entry_name`."""
    copies = [op.clone() for op in module.ops if isinstance(op, func.FuncOp)]
    renamed: dict[str, str] = {}
    for op in copies:
        name, n = op.sym_name.data, 1
        while name in taken or name in renamed.values():
            name, n = f"{op.sym_name.data}_{n}", n + 1
        renamed[op.sym_name.data] = name
    for op in copies:
        op.sym_name = StringAttr(renamed[op.sym_name.data])
        for call in op.walk():
            if isinstance(call, func.CallOp):
                call.callee = SymbolRefAttr(renamed[call.callee.string_value()])
    entry = next(op for op in copies if op.sym_name.data == renamed[entry_name])
    return copies, entry


def forget_shapes(function: func.FuncOp, arg_types: list[Attribute] | None = None) -> None:
    """Make a captured graph generic: tensor arguments take `arg_types` (the caller's operand
    types; unknown if None) and computed tensors unknown types (traces record the example's
    exact shapes); `torch-refine-types` recomputes them per call. Constants (ops without
    operands, e.g. traced weights) keep their types."""
    block = function.body.block
    for index, arg in enumerate(block.args):
        new = arg_types[index] if arg_types is not None else UNKNOWN_TENSOR
        if isinstance(arg.type, ValueTensorType) and new != arg.type:
            Rewriter.replace_value_with_new_type(arg, new)
    for op in function.walk():
        if not op.operands or op is function:
            continue
        for result in op.results:
            if isinstance(result.type, ValueTensorType):
                Rewriter.replace_value_with_new_type(result, UNKNOWN_TENSOR)
    returned = block.last_op
    outputs = [v.type for v in returned.operands] if returned is not None else []
    function.function_type = FunctionType.from_lists([a.type for a in block.args], outputs)


def _name(fn: Any) -> str:
    return getattr(fn, "__qualname__", type(fn).__name__)


def _is_python_constant(value: Value) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


def _holds_ir(value: Value) -> bool:
    if isinstance(value, tuple | list):
        return any(_holds_ir(v) for v in value)
    return isinstance(value, SSAValue)


def _is_single(value: Value) -> bool:
    """One operand (a value or a list); a tuple or a dict is passed as one operand per
    element."""
    return not isinstance(value, tuple | dict)


def _type_of(value: SSAValue) -> Attribute:
    """The callee's argument type: exactly the operand's (`func.call` requires equal types)."""
    return value.type


def _constant_key(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(_constant_key(v) for v in value))
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return ("value", type(value).__name__, value)
