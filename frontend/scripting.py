"""Entry points of scripting: a function, or each compiled method of a module."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from frontend.errors import ScriptError
from frontend.function import ScriptFunction
from frontend.leaf_modules import leaf_rule
from frontend.module import ScriptMethod, ScriptModule, exported_method_names
from frontend.script import FunctionScripter
from frontend.script_calls import Compilation
from frontend.script_modules import ModuleValue


def script_function(fn: Callable[..., Any]) -> ScriptFunction:
    """The function and every function it calls, as one module with `fn` first."""
    compilation = Compilation()
    entry = FunctionScripter(fn, compilation).build_function()
    module = compilation.module(entry)
    module.verify()
    return ScriptFunction(module, entry.op.sym_name.data, fn)


def script_module(obj: Any) -> ScriptModule:
    methods = {name: script_method(obj, name) for name in exported_method_names(obj)}
    if not methods:
        raise ScriptError(f"cannot script {type(obj).__name__}: it has no forward method")
    return ScriptModule(obj, methods)


def script_method(obj: Any, name: str) -> ScriptMethod:
    fn = getattr(type(obj), name)
    rule = leaf_rule(obj) if name == "forward" else None
    if rule is not None:
        problem = rule.check(obj)
        if problem:
            raise ScriptError(f"cannot script {type(obj).__name__}: {problem}", hint=rule.hint)
        fn = rule.forward
    compilation = Compilation()
    symbol = f"{type(obj).__name__}.{name}"
    scripter = FunctionScripter(fn, compilation, self_value=ModuleValue(obj, ""), name=symbol)
    entry = scripter.build_function()
    module = compilation.module(entry)
    module.verify()
    function = ScriptFunction(module, symbol, fn)
    return ScriptMethod(obj, name, function, entry.param_paths)
