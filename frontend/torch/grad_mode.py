"""`no_grad`, `enable_grad`, `inference_mode`: accepted for compatibility, and do nothing.

frontend.torch has no autograd, so every computation already runs as under `no_grad`.
`enable_grad` does not turn gradients on: tensors still cannot require them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any


class _NoOpGradMode:
    """A context manager and decorator that leaves everything as it is."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_NoOpGradMode):  # noqa: N801
    pass


class enable_grad(_NoOpGradMode):  # noqa: N801
    pass


class inference_mode(_NoOpGradMode):  # noqa: N801
    pass
