"""Who sees `frontend.torch`'s op calls and tensor events: the interceptor installed in this
thread (a tracer's recorder), if any.

`Tensor` reports the events that are not op calls (conversions to Python values, aliases,
in-place changes) to `notify()`; `frontend.torch.dispatch` sends op calls to the installed
interceptor, or runs them eagerly when none is installed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any


class Interceptor:
    """Sees every op call and tensor event while installed."""

    def dispatch(
        self, candidates: Sequence[Any], args: Sequence[Any], kwargs: dict[str, Any]
    ) -> Any:
        """Run one of `candidates` (overloads of one spelling) on the call's arguments."""
        raise NotImplementedError(f"{type(self).__name__} does not run op calls")

    def converting(self, tensor: Any, target: str) -> None:
        """`tensor`'s values are about to become a Python/numpy value (`target` says which)."""

    def aliased(self, new: Any, source: Any) -> None:
        """`new` holds the same values as `source` (clone, detach, contiguous, ...)."""

    def updated(self, tensor: Any, value: Any) -> None:
        """An in-place op (`x.add_(y)`, `x += y`) gave `tensor` the values of `value`."""

    def mutating(self, tensor: Any, how: str) -> None:
        """`tensor` is about to be changed in a way no op describes (`x[i] = v`)."""

    def reading_size(self, tensor: Any, dim: int | None) -> None:
        """A size of `tensor` (dim `dim`, or all of them: `shape`, `numel`) becomes a Python
        int that the program may compute with."""


_SILENT = Interceptor()  # the events' receiver when nothing is installed: ignores them
_LOCAL = threading.local()


def installed() -> Interceptor | None:
    """The innermost interceptor installed in this thread, if any."""
    stack: list[Interceptor] = getattr(_LOCAL, "stack", [])
    return stack[-1] if stack else None


def notify() -> Interceptor:
    """Where a tensor reports an event: the installed interceptor, else one that ignores it."""
    return installed() or _SILENT


@contextmanager
def intercepting(interceptor: Interceptor) -> Iterator[Interceptor]:
    """Install `interceptor` for the calls made in this thread inside the `with` block."""
    stack: list[Interceptor] = _LOCAL.__dict__.setdefault("stack", [])
    stack.append(interceptor)
    try:
        yield interceptor
    finally:
        stack.pop()
