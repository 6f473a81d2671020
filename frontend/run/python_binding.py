"""Calls bound as Python binds them: the same arguments accepted, Python's own `TypeError`.

A compiled function or method is called like the Python function it came from: positional
and keyword arguments, defaults, and the mistakes (a missing, unexpected, duplicated or extra
argument) read exactly as Python's for the same call of the plain function. `inspect`'s binder
decides the arguments; on a mistake, a stub with the function's parameter list (names, kinds,
which have defaults) and its name is called the same way, so the message is the interpreter's
(`f() missing 1 required positional argument: 'bias'`), not `inspect`'s wording.

Interface: `binder_for(fn, method=False)` (one `PythonBinder` per function, kept);
`PythonBinder(fn, method=False)`; `.signature` (without `self` for a method),
`.bind(args, kwargs)` (an `inspect.BoundArguments`, defaults applied; Python's `TypeError`),
`.positional(args, kwargs)` (the bound values in parameter order), `.call_error(args, kwargs)`
(Python's `TypeError` for a call the stub refuses, else None); `python_call_error(fn, args,
method=False)` for any callable (None where it has no Python signature).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

_P = inspect.Parameter
_MARKERS = {_P.VAR_POSITIONAL: "*", _P.VAR_KEYWORD: "**"}


class PythonBinder:
    """Binds calls of `fn` (a method without its `self`) with Python's rules and messages."""

    def __init__(self, fn: Callable[..., Any], method: bool = False) -> None:
        if inspect.ismethod(fn):  # a bound method: Python counts its `self` in messages
            fn, method = fn.__func__, True
        full = inspect.signature(fn)
        parameters = list(full.parameters.values())
        self.method = method and bool(parameters)
        self.signature = full.replace(parameters=parameters[1:] if self.method else parameters)
        self._stub = _stub(fn, parameters)

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> inspect.BoundArguments:
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as err:
            raise (self.call_error(args, kwargs) or err) from None
        bound.apply_defaults()
        return bound

    def positional(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(self.bind(args, kwargs).arguments.values())

    def call_error(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError | None:
        """Python's `TypeError` for this call of the plain function, None if Python takes it."""
        try:
            self._stub(*((None,) if self.method else ()), *args, **kwargs)
        except TypeError as err:
            return TypeError(str(err))
        return None


@functools.lru_cache(maxsize=512)
def binder_for(fn: Callable[..., Any], method: bool = False) -> PythonBinder:
    """The binder of `fn`, made once (calls with keywords or mistakes reuse it)."""
    return PythonBinder(fn, method)


def python_call_error(
    fn: Callable[..., Any], args: tuple[Any, ...], method: bool = False
) -> TypeError | None:
    """Python's `TypeError` for calling `fn` with these positional arguments; None if Python
    takes them or `fn` has no Python signature (a builtin, a callable object)."""
    if not (inspect.isfunction(fn) or inspect.ismethod(fn)):
        return None
    return binder_for(fn, method).call_error(args, {})


def _stub(fn: Callable[..., Any], parameters: list[inspect.Parameter]) -> Callable[..., Any]:
    """A function with `fn`'s parameter list and name whose body does nothing."""
    text: list[str] = []
    for i, p in enumerate(parameters):
        if p.kind == _P.KEYWORD_ONLY and not any(
            q.kind in (_P.KEYWORD_ONLY, _P.VAR_POSITIONAL) for q in parameters[:i]
        ):
            text.append("*")
        default = "=None" if p.default is not _P.empty else ""
        text.append(_MARKERS.get(p.kind, "") + p.name + default)
        if p.kind == _P.POSITIONAL_ONLY and (
            i + 1 == len(parameters) or parameters[i + 1].kind != _P.POSITIONAL_ONLY
        ):
            text.append("/")
    namespace: dict[str, Any] = {}
    exec(f"def stub({', '.join(text)}):\n    pass\n", namespace)  # noqa: S102 (names only)
    stub = namespace["stub"]
    name = getattr(fn, "__name__", "function")
    qualname = getattr(fn, "__qualname__", name)
    stub.__code__ = stub.__code__.replace(co_name=name, co_qualname=qualname)
    stub.__name__, stub.__qualname__ = name, qualname
    return stub  # type: ignore[no-any-return]
