"""The Python functions that compiled programs call back (`torch.prim.PythonCall "<key>"`).

Scripting a call of an ignored function (or `print`, or a random tensor function) registers
the callable under a key (`register`) that the op carries; running the program looks it up
(`registered`). `result_types` reads the results a function's return annotation promises.
"""

from __future__ import annotations

import inspect
import itertools
import typing
from collections.abc import Callable
from typing import Any

from xdsl.ir import Attribute

from dialects.torch.types import BoolType, FloatType, IntType, ValueTensorType

UNKNOWN_TENSOR = ValueTensorType(None, None)
_REGISTRY: dict[str, Callable[..., Any]] = {}
_COUNTER = itertools.count(1)


def register(fn: Callable[..., Any]) -> str:
    """A key under which compiled programs find `fn` (bound methods keep their module)."""
    key = f"{getattr(fn, '__qualname__', 'fn')}#{next(_COUNTER)}"
    _REGISTRY[key] = fn
    return key


def result_types(fn: Callable[..., Any]) -> list[Attribute] | None:
    """The results the annotation promises: `-> Tensor` (or none) one tensor, `-> int` an
    int, `-> Tuple[...]` one per element; None for `-> None`."""
    try:
        annotation = typing.get_type_hints(fn).get("return", inspect.Signature.empty)
    except Exception:  # unresolvable string annotations: treat as a tensor
        annotation = inspect.Signature.empty
    if annotation is type(None) or annotation is None:
        return None
    items = typing.get_args(annotation) if typing.get_origin(annotation) is tuple else None
    return [_type_of(a) for a in items] if items else [_type_of(annotation)]


def _type_of(annotation: Any) -> Attribute:
    scalars = {int: IntType(), float: FloatType(), bool: BoolType()}
    return scalars.get(annotation, UNKNOWN_TENSOR)


def registered(key: str) -> Callable[..., Any]:
    """The function registered under `key`."""
    return _REGISTRY[key]
