"""PyTorch's `torch.jit` helpers as a script sees them, the way TorchScript does:

- `torch.jit.is_scripting()` is True and `torch.jit.is_tracing()` False while scripting;
- `has_torch_function*(...)` (`torch.overrides`, the guards of `torch.nn.functional`) is False,
  as in TorchScript: scripted values are plain tensors;
- `torch.jit.annotate(T, value)` is `value` (`torch.jit.annotate(List[Tensor], [])` an empty
  list that `append` grows);
- functions marked `@torch.jit.ignore` or `@torch.jit.unused` stay Python, like
  `@frontend.ignore` (an unused one raises when called, as PyTorch makes it).
"""

from __future__ import annotations

import sys
from typing import Any

NOT_JIT_API = object()
"""`jit_api_value`'s answer for objects that are not one of these helpers."""

_IGNORING_MODIFIERS = ("ignore", "unused")


def _torch_jit_function(obj: Any, name: str) -> bool:
    torch = sys.modules.get("torch")
    jit = getattr(torch, "jit", None) if torch is not None else None
    return jit is not None and obj is getattr(jit, name, None)


def jit_api_value(obj: Any, args: list[Any]) -> Any:
    """The value of calling `obj(*args)` while scripting when `obj` is `is_scripting`,
    `is_tracing` or `annotate`; NOT_JIT_API otherwise."""
    if _torch_jit_function(obj, "is_scripting"):
        return True
    if _torch_jit_function(obj, "is_tracing"):
        return False
    if _torch_jit_function(obj, "annotate") and len(args) == 2:
        return args[1]
    if _is_torch_function_guard(obj):
        return False
    return NOT_JIT_API


_GUARDS = ("has_torch_function", "has_torch_function_unary", "has_torch_function_variadic")


def _is_torch_function_guard(obj: Any) -> bool:
    overrides = sys.modules.get("torch.overrides")
    return overrides is not None and any(obj is getattr(overrides, n, None) for n in _GUARDS)


def is_ignored(fn: Any) -> bool:
    """`fn` stays Python when a script calls it: `@frontend.ignore`, `@torch.jit.ignore` or
    `@torch.jit.unused`."""
    if getattr(fn, "__tsjit_ignore__", False):
        return True
    modifier = getattr(fn, "_torchscript_modifier", None)
    return str(modifier).startswith(_IGNORING_MODIFIERS)
