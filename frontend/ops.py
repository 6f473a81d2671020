"""`frontend.ops.<library>.<op>`: the custom ops that libraries define, callable like torch ops.

`frontend.ops.my_ops.warp_perspective(x, m)` binds its arguments to the op's schema and runs
through `frontend.torch.dispatch`, like every `frontend.torch` function: eagerly it runs the
op's numpy reference (tensors come back as `frontend.torch.Tensor`s), inside `frontend.trace`
it records the op, and the script frontend resolves the function object to the op
(`frontend/ir/resolve.py`, spelling `ops.my_ops.warp_perspective`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dialects.torch.registry import BY_PY_NAME
from frontend.torch.dispatch import dispatch


class OpNamespace:
    """The ops of one library: `frontend.ops.my_ops`."""

    def __init__(self, library: str) -> None:
        self._library = library
        self._ops: dict[str, Callable[..., Any]] = {}

    def add(self, name: str, function: Callable[..., Any]) -> None:
        self._ops[name] = function
        setattr(self, name, function)

    def __getattr__(self, name: str) -> Any:  # only called for names that are not defined
        if name.startswith("__"):
            raise AttributeError(name)
        defined = ", ".join(sorted(self._ops)) or "none yet"
        raise AttributeError(
            f"library {self._library!r} defines no op {name!r} (its ops: {defined})"
        )

    def __dir__(self) -> list[str]:
        return sorted(self._ops)

    def __repr__(self) -> str:
        return f"<frontend.ops.{self._library}: {', '.join(sorted(self._ops))}>"


_NAMESPACES: dict[str, OpNamespace] = {}


def namespace(library: str) -> OpNamespace:
    """The namespace of `library`, made on first use."""
    return _NAMESPACES.setdefault(library, OpNamespace(library))


def make_op_function(library: str, name: str) -> Callable[..., Any]:
    """The Python function of the op spelled `ops.<library>.<name>` (all its overloads)."""
    spelling = f"ops.{library}.{name}"

    def function(*args: Any, **kwargs: Any) -> Any:
        return dispatch(BY_PY_NAME[spelling], args, kwargs)

    function.__name__ = name
    function.__qualname__ = f"{library}.{name}"
    function.__module__ = __name__
    function.__doc__ = "\n".join(op.SCHEMA for op in BY_PY_NAME[spelling])
    return function


def __getattr__(name: str) -> OpNamespace:
    if name in _NAMESPACES:
        return _NAMESPACES[name]
    raise AttributeError(
        f"frontend.ops has no library {name!r}: define its ops first with "
        f"frontend.library({name!r}).define(...)"
    )
