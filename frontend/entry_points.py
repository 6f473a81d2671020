"""Entry points of scripting: a function, or each compiled method of a module.

`frontend.script` builds the IR (`FunctionScripter`); this module wraps it in the public
`ScriptFunction` / `ScriptMethod` / `ScriptModule`, so the script package never imports the
API that imports it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from frontend.errors import ScriptError
from frontend.function import ScriptFunction, python_name
from frontend.module import ScriptMethod, ScriptModule, exported_method_names
from frontend.run.python_binding import PythonBinder
from frontend.run.python_calls import SplitError, has_python_calls, prepare_steps
from frontend.run.variants import Variants
from frontend.script.annotations import ListLength, VarArgs
from frontend.script.calls import Compilation
from frontend.script.scripter import FunctionScripter
from frontend.script.value_kinds import ModuleValue


def script_function(fn: Callable[..., Any]) -> ScriptFunction:
    """The function and every function it calls, as one module with `fn` first.

    With structured arguments (Optional, List, Tuple, str) calls go through `Variants`.
    """
    specs = FunctionScripter(fn, entry=True).parameter_specs()
    default = default_graph(lambda c: build_function(fn, c), specs)
    binder = python_binder(fn, specs)
    if binder is not None:
        default.variants = Variants(default.name, specs, lambda c: build_function(fn, c), binder)
    return default


def python_binder(
    fn: Callable[..., Any], specs: list[tuple[str, Any]], method: bool = False
) -> PythonBinder | None:
    """The Python binder calls must go through when arguments have defaults or are
    structured."""
    binder = PythonBinder(fn, method)
    parameters = binder.signature.parameters.values()
    structured = any(spec is not None and spec.is_structured for _, spec in specs)
    defaults = any(p.default is not inspect.Parameter.empty for p in parameters)
    return binder if structured or defaults else None


def build_function(fn: Callable[..., Any], constants: dict[str, Any]) -> ScriptFunction:
    compilation = Compilation()
    entry = FunctionScripter(fn, compilation, constants=constants, entry=True).build_function()
    module = compilation.module(entry)
    module.verify()
    function = ScriptFunction(module, entry.op.sym_name.data, fn)
    function.result_structure = entry.results
    attach_python_calls(function)
    return function


def attach_python_calls(function: ScriptFunction) -> None:
    """Programs that call ignored functions run as compiled segments around those calls."""
    if not has_python_calls(function.module):
        return
    try:
        function.steps = prepare_steps(function.module, python_name(function.name))
    except SplitError as err:
        raise ScriptError(
            str(err), hint="call the ignored function outside `if` and loops"
        ) from None


def script_module(obj: Any) -> ScriptModule:
    methods = {name: script_method(obj, name) for name in exported_method_names(obj)}
    if not methods:
        raise ScriptError(f"cannot script {type(obj).__name__}: it has no forward method")
    return ScriptModule(obj, methods)


def script_method(obj: Any, name: str) -> ScriptMethod:
    """`obj.<name>` with `self` bound to `obj`; through `Variants` for structured arguments."""
    default = default_method(obj, name)
    scripter = FunctionScripter(
        default.function.python_fn, self_value=ModuleValue(obj, ""), entry=True
    )  # type: ignore[arg-type]
    specs = scripter.parameter_specs()
    binder = python_binder(scripter.fn, specs, method=True)
    if binder is not None:
        default.variants = Variants(
            default.function.name, specs, lambda c: build_method(obj, name, c), binder
        )
    return default


def default_method(obj: Any, name: str) -> ScriptMethod:
    """The method's default graph (see `default_graph`)."""
    fn = getattr(type(obj), name)
    try:
        return build_method(obj, name, {})
    except ScriptError:
        scripter = FunctionScripter(fn, self_value=ModuleValue(obj, ""), entry=True)
        specs = scripter.parameter_specs()
    return default_graph(lambda c: build_method(obj, name, c), specs)


def default_graph(build: Callable[[dict[str, Any]], Any], specs: list[tuple[str, Any]]) -> Any:
    """The graph `.graph` shows before a call. Calls specialize on `*args` counts and
    `List[int]` values; a body that needs them (`args[1]`, `len(shape)`) shows the first
    count (1 to 4) it scripts for, as run-time items; else the first error."""
    try:
        return build({})
    except ScriptError as first:
        sized = [(n, s.kind) for n, s in specs if s is not None and s.kind in ("varargs", "list")]
        if not sized:
            raise
        for count in range(1, 5):
            kinds = {"varargs": VarArgs(count), "list": ListLength(count)}
            try:
                return build({name: kinds[kind] for name, kind in sized})
            except ScriptError:
                continue
        raise first from None


def build_method(obj: Any, name: str, constants: dict[str, Any]) -> ScriptMethod:
    from frontend.script.leaf_modules import leaf_rule

    fn = getattr(type(obj), name)
    rule = leaf_rule(obj) if name == "forward" else None
    if rule is not None:
        problem = rule.check(obj)
        if problem:
            raise ScriptError(f"cannot script {type(obj).__name__}: {problem}", hint=rule.hint)
        fn = rule.forward
    compilation = Compilation()
    symbol = f"{type(obj).__name__}.{name}"
    scripter = FunctionScripter(
        fn, compilation, self_value=ModuleValue(obj, ""), constants=constants, name=symbol,
        entry=True,
    )  # fmt: skip
    entry = scripter.build_function()
    module = compilation.module(entry)
    module.verify()
    function = ScriptFunction(module, symbol, fn)
    function.result_structure = entry.results
    attach_python_calls(function)
    return ScriptMethod(obj, name, function, entry.param_paths)
