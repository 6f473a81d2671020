"""Shared checks for the reliability tests: time limits and "no internal error" chains."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

INTERNAL_ERRORS = (
    AttributeError, KeyError, IndexError, AssertionError, NameError, UnboundLocalError,
    RecursionError, ZeroDivisionError, StopIteration,
)  # fmt: skip
"""Exceptions that mean tsjit itself broke, whatever the input was."""


class TimeLimitExceeded(AssertionError):
    """The call did not finish in time (a hang)."""


def within(seconds: float, fn: Callable[[], Any]) -> Any:
    """`fn()` in a worker thread; its exception re-raised here; TimeLimitExceeded if slow.

    A hung worker cannot be killed, but the test fails instead of hanging the suite.
    """
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = fn()
        except BaseException as err:  # re-raised in the caller's thread
            outcome["error"] = err

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise TimeLimitExceeded(f"no result after {seconds} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def internal_cause(error: BaseException) -> BaseException | None:
    """The first internal error among the explicit causes (`raise ... from err`) of `error`.

    tsjit wraps a pass that breaks as `TypeError(...) from PipelineError(...) from <error>`;
    an exception merely handled while raising (`__context__`, e.g. the ZeroDivisionError of
    the user's `1 / 0` turned into a ScriptError) is a deliberate translation, not a leak.
    """
    seen = 0
    current = error.__cause__
    while current is not None and seen < 20:
        if isinstance(current, INTERNAL_ERRORS):
            return current
        current = current.__cause__
        seen += 1
    return None
