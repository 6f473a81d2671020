"""Functions generated from the op registry: `torch.tanh`, `torch.add`, `F.relu`, ...

Each spelling `torch.<name>` / `F.<name>` declared by an op becomes one function that takes
Tensors, numpy arrays and Python scalars, picks the overload by its arguments (like
PyTorch) through `dispatch`, and returns Tensors (a tuple of them for multi-result ops).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dialects.torch.op_base import TorchOp
from dialects.torch.registry import BY_PY_NAME
from frontend.torch.dispatch import dispatch, eager_kind

__all__ = [
    "eager_kind",
    "functions_for",
    "make_function",
    "namespace_functions",
    "no_such_function",
]


def make_function(spelling: str, candidates: tuple[type[TorchOp], ...]) -> Callable[..., Any]:
    name = spelling.split(".", 1)[1]

    def function(*args: Any, **kwargs: Any) -> Any:
        return dispatch(candidates, args, kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = "\n".join(op.SCHEMA for op in candidates)
    return function


def functions_for(prefix: str) -> dict[str, Callable[..., Any]]:
    """Every registered spelling `<prefix>.<name>` as a function, by name."""
    return {
        spelling.split(".", 1)[1]: make_function(spelling, candidates)
        for spelling, candidates in BY_PY_NAME.items()
        if spelling.startswith(prefix + ".")
    }


def namespace_functions(prefix: str) -> dict[str, Callable[..., Any]]:
    """A function per op spelling `<prefix><name>` (`torch.special.`, `torch.linalg.`), by name:
    what a `frontend.torch` submodule holds."""
    return {
        spelling.removeprefix(prefix): make_function(spelling, candidates)
        for spelling, candidates in BY_PY_NAME.items()
        if spelling.startswith(prefix)
    }


def no_such_function(module: str, prefix: str) -> Callable[[str], Any]:
    """The module `__getattr__` of such a submodule: names no op spells are AttributeErrors."""

    def missing(name: str) -> Any:
        raise AttributeError(f"{module} has no '{name}': no registered op spells {prefix}{name}")

    return missing
