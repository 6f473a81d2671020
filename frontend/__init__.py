"""tsjit's user API: script functions and modules into the torch dialect and run them compiled."""

from __future__ import annotations

from typing import Any

# Load the `frontend.script` submodule before defining the `script` function below: the
# import machinery binds a submodule as an attribute of its package when it first loads.
from frontend import ops
from frontend import script as _script_module  # noqa: F401
from frontend.custom_ops import Library, library
from frontend.entry_points import script_function, script_module
from frontend.errors import LoadError, ScriptError
from frontend.freeze import freeze
from frontend.function import ScriptFunction
from frontend.module import ScriptMethod, ScriptModule, export, ignore
from frontend.run.tiers import CompileWarning, check_mode, each_function, set_compile_mode
from frontend.script.modules import is_module
from frontend.serialization import dumps, load, loads, save
from frontend.torch_interop import compile_backend, from_torch_export
from lowering.pipeline import Stage
from lowering.run.threads import get_num_threads, set_num_threads


def script(obj: Any, backend: str = "compiled", compile: str | None = None) -> Any:
    """Compile a function or an `nn.Module` to torch IR (like `torch.jit.script`).

    A function gives a `ScriptFunction`; a module (from `frontend.torch.nn` or `torch.nn`) a
    `ScriptModule` with `forward` and the `@frontend.export` methods compiled. Raises
    `ScriptError` pointing at the source of anything that cannot be scripted.
    `compile="background"` (the default, unless `$TSJIT_COMPILE` says `now`): a call with no
    compiled code for its signature runs at once on the eager tier while the code compiles
    in a background thread, and later calls switch to it (`wait_compiled()` waits for it);
    `compile="now"`: every call runs compiled code, compiled first when needed.
    `backend="interpreter"` runs the torch IR op by op with the eager references instead of
    compiling it: a reference executor for tests (a function or module that is already
    scripted switches to that backend).
    """
    mode = check_mode(compile) if compile is not None else None
    if backend != "compiled":
        return _with_backend(script(obj, compile=compile), backend)
    if isinstance(obj, ScriptFunction | ScriptModule):
        return set_compile_mode(obj, mode) if mode is not None else obj
    if is_module(obj):
        scripted: Any = script_module(obj)
    elif isinstance(obj, type):
        raise ScriptError(
            f"cannot script the class {obj.__name__}: script an instance",
            hint=f"frontend.script({obj.__name__}(...))",
        )
    elif not callable(obj):
        raise ScriptError(f"cannot script a {type(obj).__name__}: expected a function or a module")
    else:
        scripted = script_function(obj)
    return set_compile_mode(scripted, mode) if mode is not None else scripted


def _with_backend(scripted: Any, backend: str) -> Any:
    if backend != "interpreter":
        raise ValueError(f"unknown backend {backend!r}: expected 'compiled' or 'interpreter'")
    return each_function(scripted, lambda f: setattr(f, "backend", backend))


from frontend.trace.errors import TraceError, TracerWarning, TracingCheckError  # noqa: E402
from frontend.trace.tracer import TracedFunction, TracedModule, trace, trace_module  # noqa: E402

__all__ = [
    "compile_backend",
    "CompileWarning",
    "from_torch_export",
    "Library",
    "freeze",
    "LoadError",
    "dumps",
    "get_num_threads",
    "load",
    "loads",
    "save",
    "set_num_threads",
    "TraceError",
    "TracedFunction",
    "TracedModule",
    "TracerWarning",
    "TracingCheckError",
    "trace",
    "trace_module",
    "ScriptError",
    "ScriptFunction",
    "ScriptMethod",
    "ScriptModule",
    "Stage",
    "export",
    "ignore",
    "library",
    "ops",
    "script",
]
