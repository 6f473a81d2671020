"""Eager functions generated from the op registry: `tanh`, `add`, `matmul`, ... on numpy arrays.

Each spelling `torch.<name>` / `F.<name>` declared by an op becomes one function that picks
the overload by its arguments (like PyTorch) and runs the op's numpy reference.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dialects.torch.meta import kind_of_value
from dialects.torch.op_base import TorchOp
from dialects.torch.registry import BY_PY_NAME
from frontend.binding import DEFAULT, bind


def eager_kind(value: Any) -> str:
    """The binding kind of an eager argument."""
    if isinstance(value, np.ndarray):
        return "Tensor"
    if value is None:
        return "None"
    scalar = kind_of_value(value)
    if scalar is not None:
        return scalar
    if isinstance(value, list | tuple):
        return "list[int]" if all(isinstance(v, int) for v in value) else "list[?]"
    return type(value).__name__


def call_eager(candidates: tuple[type[TorchOp], ...], args: Any, kwargs: dict[str, Any]) -> Any:
    op, arguments, values = bind(candidates, args, kwargs, eager_kind)
    plain = [v.value if isinstance(v, DEFAULT) else v for v in values]
    plain = [
        [v] if a.type == "int[]" and isinstance(v, int) else v for a, v in zip(arguments, plain)
    ]
    return op.run_eager(*plain)


def make_function(spelling: str) -> Callable[..., Any]:
    candidates = BY_PY_NAME[spelling]
    name = spelling.split(".", 1)[1]

    def function(*args: Any, **kwargs: Any) -> Any:
        args = tuple(np.asarray(a) if isinstance(a, np.generic) else a for a in args)
        return call_eager(candidates, args, kwargs)

    function.__name__ = name
    function.__qualname__ = name
    function.__doc__ = "\n".join(op.SCHEMA for op in candidates)
    return function


def functions_for(prefix: str) -> dict[str, Callable[..., Any]]:
    """Every registered spelling `<prefix>.<name>` as an eager function, by name."""
    return {
        spelling.split(".", 1)[1]: make_function(spelling)
        for spelling in BY_PY_NAME
        if spelling.startswith(prefix + ".")
    }
