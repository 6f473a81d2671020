"""`ScriptModule`: a scripted `nn.Module` — compiled methods, `.graph` per method, the hierarchy.

`frontend.script(module)` scripts `forward` and every method marked `@frontend.export`. Each
method is a `ScriptFunction` whose leading arguments are the parameters and buffers it reads
(`%self.linear.weight`); a call passes their current values, so `load_state_dict` on the original
module is seen by the next call without recompiling. Submodules are reachable as attributes
(`scripted.linear`, itself a `ScriptModule`), and everything else (parameters, plain
attributes, `state_dict()`) reads through to the original module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from frontend.function import ScriptFunction, bind_keywords
from frontend.run.archive_format import archive_format
from frontend.run.python_binding import python_call_error
from frontend.script.modules import is_base_forward, is_module, resolve_path, tensor_array


def export(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a module method to be compiled besides `forward` (like `torch.jit.export`)."""
    fn.__tsjit_export__ = True  # type: ignore[attr-defined]
    return fn


def ignore(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a method or function to stay Python (like `torch.jit.ignore`): it is never
    scripted; a scripted call of it runs in Python between compiled segments of the caller.
    Annotate its return type if it does not return one tensor (`-> None`, `-> int`,
    `-> Tuple[Tensor, Tensor]`)."""
    fn.__tsjit_ignore__ = True  # type: ignore[attr-defined]
    return fn


def exported_method_names(module: Any) -> list[str]:
    """`forward` (if the class defines one) and the methods marked for export, in order."""
    names: list[str] = []
    if callable(getattr(type(module), "forward", None)) and not is_base_forward(type(module)):
        names.append("forward")
    for klass in reversed(type(module).__mro__):
        for name, value in vars(klass).items():
            if name not in names and _is_exported(value):
                names.append(name)
    return names


def _is_exported(value: Any) -> bool:
    if getattr(value, "__tsjit_export__", False):
        return True
    modifier = getattr(value, "_torchscript_modifier", None)  # @torch.jit.export
    return modifier is not None and getattr(modifier, "name", "") == "EXPORT"


class ScriptMethod:
    """One compiled method: its function and the parameter paths it is called with."""

    def __init__(self, owner: Any, name: str, function: ScriptFunction, params: list[str]) -> None:
        self.owner = owner
        self.name = name
        self.function = function
        self.param_paths = params
        self.variants: Any = None  # frontend.run.variants.Variants for structured arguments

    @property
    def graph(self) -> str:
        return self.function.graph

    @property
    def code(self) -> str:
        return self.function.code

    def ir(self, stage: Any = "torch", signature: str | None = None) -> str:
        return self.function.ir(stage, signature)

    def wait_compiled(self, timeout: float | None = None) -> bool:
        """See `ScriptFunction.wait_compiled`."""
        from frontend.run.tiers import wait_program

        return wait_program(self, timeout)

    def parameter_values(self) -> list[Any]:
        values = []
        for path in self.param_paths:
            array = tensor_array(resolve_path(self.owner, path))
            if array is None:
                raise TypeError(f"{self.function.name}(): `self.{path}` is no longer a tensor")
            values.append(array)
        return values

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.variants is not None:
            return self.variants(args, kwargs)
        if kwargs:
            args = bind_keywords(self.function, args, kwargs, method=True)
        user = len(self.function.arguments) - len(self.param_paths)
        if len(args) != user:
            raise self.arity_error(args, user)
        return self.function(*self.parameter_values(), *args)

    def __reduce__(self) -> tuple[Any, ...]:
        import pickle

        raise pickle.PicklingError(
            f"cannot pickle the method {self.function.name} alone: pickle the module it belongs "
            "to (a scripted, traced or loaded module pickles by value) and call the method there"
        )

    def arity_error(self, args: tuple[Any, ...], user: int) -> TypeError:
        """Python's error for the method called with the wrong number of arguments."""
        python_fn = self.function.python_fn
        error = None if python_fn is None else python_call_error(python_fn, args, method=True)
        return error or TypeError(
            f"{self.function.name}() takes {user} argument{'s' if user != 1 else ''} "
            f"but {len(args)} were given"
        )

    def __repr__(self) -> str:
        return f"<tsjit.ScriptMethod {self.function.name}>"


class ScriptModule:
    """A scripted module: compiled methods, `.graph`, submodules, the original's attributes."""

    def __init__(self, original: Any, methods: dict[str, ScriptMethod]) -> None:
        object.__setattr__(self, "original", original)
        object.__setattr__(self, "methods", methods)
        object.__setattr__(self, "_children", {})

    @property
    def original_name(self) -> str:
        return type(self.original).__name__

    # ---- methods ----

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if "forward" not in self.methods:
            raise TypeError(f"{self.original_name} has no forward method")
        return self.methods["forward"](*args, **kwargs)

    @property
    def forward(self) -> ScriptMethod:
        return self._method("forward")

    def _method(self, name: str) -> ScriptMethod:
        if name not in self.methods:
            raise AttributeError(f"{self.original_name} has no compiled method {name!r}")
        return self.methods[name]

    @property
    def graph(self) -> str:
        return self._method("forward").graph

    @property
    def code(self) -> str:
        return self._method("forward").code

    def ir(self, stage: Any = "torch", signature: str | None = None) -> str:
        return self._method("forward").ir(stage, signature)

    def wait_compiled(self, timeout: float | None = None) -> bool:
        """Waits for the background compiles of every method (see `ScriptFunction`)."""
        from frontend.run.tiers import wait_program

        return wait_program(self, timeout)

    def save(self, path: Any) -> None:
        """Write the compiled methods and their weights to one file (`frontend.load` reads it)."""
        archive_format().save(self, path)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles by value: what `save` writes (the methods' torch IR, the weights' current
        values), never the original module or its class; unpickling gives what
        `frontend.load` gives."""
        return archive_format().pickled(self)

    # ---- attributes read through to the original ----

    def __getattr__(self, name: str) -> Any:
        methods = object.__getattribute__(self, "methods")
        if name in methods:
            return methods[name]
        original = object.__getattribute__(self, "original")
        children = object.__getattribute__(self, "_children")
        modules = getattr(original, "_modules", {})
        if name in modules and is_module(modules[name]):
            if name not in children:
                from frontend import script

                children[name] = script(modules[name])
            return children[name]
        return getattr(original, name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(
            f"cannot set {name!r} on a ScriptModule; change the original module "
            "(parameters are read at each call) or script it again"
        )

    def named_children(self) -> list[tuple[str, Any]]:
        modules = getattr(self.original, "_modules", {})
        return [(n, getattr(self, n)) for n, m in modules.items() if m is not None]

    def __repr__(self) -> str:
        lines = [f"RecursiveScriptModule(original_name={self.original_name}"]
        for name, child in self.named_children():
            text = repr(child).replace("\n", "\n  ")
            lines.append(f"  ({name}): {text}")
        return "\n".join(lines) + ")" if len(lines) > 1 else lines[0] + ")"
