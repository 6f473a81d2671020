"""Where a compile spends its time: `TSJIT_LOGS=compile` prints one report per compile.

A report is opened around one compile (`compile_report("MyCell.forward f32[4,4],...")`) in
the thread that compiles; inside it, `timed("pass torch-inline")` and `record(...)` add lines
(each pass of `lowering.pipeline.lower`, the python target, the program cache, each numba
function that numba compiles: its `numba:compile` events, nested ones indented, and the
functions numba loaded from its disk cache). The report goes to stderr when the outermost
`compile_report` of the thread ends. With the switch off every hook is a no-op (one check of
a module constant).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any


def enabled() -> bool:
    """Whether `compile` is one of the comma-separated names in `$TSJIT_LOGS`."""
    return "compile" in os.environ.get("TSJIT_LOGS", "").replace(" ", "").split(",")


ENABLED = enabled()
_LOCAL = threading.local()


class Report:
    """The timed lines of one compile: (depth, label, seconds or None for a note)."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.lines: list[tuple[int, str, float | None]] = []
        self.depth = 0
        self.start = time.perf_counter()

    def add(self, label: str, seconds: float | None, depth: int | None = None) -> None:
        self.lines.append((self.depth if depth is None else depth, label, seconds))

    def text(self) -> str:
        total = time.perf_counter() - self.start
        out = [f"tsjit compile {self.title}: {total * 1e3:.1f} ms"]
        for depth, label, seconds in self.lines:
            shown = f"{seconds * 1e3:9.1f} ms" if seconds is not None else " " * 12
            out.append(f"  {shown}  {'  ' * depth}{label}")
        return "\n".join(out)


def current() -> Report | None:
    return getattr(_LOCAL, "report", None)


@contextlib.contextmanager
def compile_report(title: str) -> Iterator[Report | None]:
    """Collects the lines of the compile run inside; prints them when the outermost ends."""
    if not ENABLED or current() is not None:
        yield current()
        return
    _install_numba_listener()
    report = Report(title)
    _LOCAL.report = report
    try:
        yield report
    finally:
        _LOCAL.report = None
        print(report.text(), file=sys.stderr, flush=True)


@contextlib.contextmanager
def timed(label: str) -> Iterator[None]:
    """Adds a line `label` with the time spent inside (nested lines indented under it)."""
    report = current()
    if report is None:
        yield
        return
    index = len(report.lines)
    report.add(label, 0.0)
    report.depth += 1
    start = time.perf_counter()
    try:
        yield
    finally:
        report.depth -= 1
        depth, _, _ = report.lines[index]
        report.lines[index] = (depth, label, time.perf_counter() - start)


def note(label: str) -> None:
    """Adds an untimed line (a cache hit, a count)."""
    report = current()
    if report is not None:
        report.add(label, None)


def numba_cache_hits(modules: list[Any]) -> None:
    """Notes the numba functions of `modules` that numba loaded from its disk cache."""
    report = current()
    if report is None:
        return
    loaded = []
    for module in modules:
        for name, value in vars(module).items():
            hits = getattr(value, "_cache_hits", None)
            if hits and getattr(value, "__module__", None) == module.__name__:
                loaded.append(name)
    if loaded:
        report.add(f"numba disk cache: loaded {', '.join(sorted(loaded))}", None)


_LISTENING = False
_LISTEN_LOCK = threading.Lock()


def _install_numba_listener() -> None:
    """Registers (once per process) a listener of numba's `numba:compile` events."""
    global _LISTENING
    with _LISTEN_LOCK:
        if _LISTENING:
            return
        from numba.core import event

        class NumbaCompiles(event.Listener):
            def on_start(self, ev: Any) -> None:
                report = current()
                if report is None:
                    return
                stack = getattr(_LOCAL, "numba", [])
                _LOCAL.numba = stack
                stack.append((len(report.lines), time.perf_counter()))
                dispatcher = ev.data.get("dispatcher")
                name = getattr(getattr(dispatcher, "py_func", None), "__name__", "?")
                args = ", ".join(str(a) for a in ev.data.get("args", ()))
                report.add(f"numba {name}({args})", 0.0)
                report.depth += 1

            def on_end(self, ev: Any) -> None:
                report = current()
                stack = getattr(_LOCAL, "numba", [])
                if report is None or not stack:
                    return
                index, start = stack.pop()
                report.depth -= 1
                depth, label, _ = report.lines[index]
                report.lines[index] = (depth, label, time.perf_counter() - start)

        event.register("numba:compile", NumbaCompiles())
        _LISTENING = True
