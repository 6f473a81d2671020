"""tsjit's user API: script functions into the torch dialect and run them compiled."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import ModuleOp

# Load the `frontend.script` submodule before defining the `script` function below: the
# import machinery binds a submodule as an attribute of its package when it first loads.
from frontend import script as _script_module
from frontend.errors import ScriptError
from frontend.function import ScriptFunction
from lowering.pipeline import Stage


def script(fn: Callable[..., Any]) -> ScriptFunction:
    """Compile `fn`'s source to torch IR (like `torch.jit.script`); raises ScriptError."""
    if isinstance(fn, ScriptFunction):
        return fn
    function = _script_module.FunctionScripter(fn).build()
    module = ModuleOp([function])
    module.verify()
    return ScriptFunction(module, function.sym_name.data, fn)


__all__ = ["ScriptError", "ScriptFunction", "Stage", "script"]
