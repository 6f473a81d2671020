"""tsjit's user API: script functions into the torch dialect and run them compiled."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from frontend.errors import ScriptError
from frontend.function import ScriptFunction
from lowering.pipeline import Stage


def script(fn: Callable[..., Any]) -> ScriptFunction:
    """Compile `fn`'s source to torch IR (like `torch.jit.script`); raises ScriptError."""
    from frontend.script import FunctionScripter

    if isinstance(fn, ScriptFunction):
        return fn
    function = FunctionScripter(fn).build()
    module = ModuleOp([function])
    module.verify()
    return ScriptFunction(module, function.sym_name.data, fn)


__all__ = ["ScriptError", "ScriptFunction", "Stage", "script"]
