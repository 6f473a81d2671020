"""What tracing reports: `TracerWarning`, `TraceError`, and the user's source line they name.

A warning or error names the line of the *user's* program that made a tensor leave the
graph, found by walking the stack past tsjit's own packages and the libraries that call back
into it (PyTorch, numpy).
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass

import dialects
import lowering

FRONTEND_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class TracerWarning(UserWarning):
    """The trace may be wrong for other inputs (a tensor became a Python value, ...)."""


class TraceError(RuntimeError):
    """Tracing cannot record the program (with `strict=True`: anything that would warn)."""


class TracingCheckError(TraceError):
    """`check_trace` found that the traced graph does not match the Python function."""


@dataclass(frozen=True)
class SourceLine:
    """A line of the user's program."""

    filename: str
    lineno: int
    function: str
    module: str

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno} (in {self.function})"


def _package_dir(module: object) -> str:
    return os.path.dirname(os.path.abspath(module.__file__))  # type: ignore[attr-defined]


def _library_dirs() -> tuple[str, ...]:
    dirs = [FRONTEND_DIR] + [_package_dir(m) for m in (dialects, lowering)]
    for name in ("torch", "numpy"):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__file__", None):
            dirs.append(_package_dir(module))
    return tuple(d + os.sep for d in dirs)


def user_line() -> SourceLine | None:
    """The innermost frame that belongs to the user's program (not tsjit, PyTorch or numpy)."""
    libraries = _library_dirs()
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        internal = path.startswith(libraries) or frame.f_code.co_filename.startswith("<frozen")
        if not internal:
            module = frame.f_globals.get("__name__", "")
            return SourceLine(path, frame.f_lineno, frame.f_code.co_name, module)
        frame = frame.f_back  # type: ignore[assignment]
    return None


def user_line_of(error: BaseException) -> SourceLine | None:
    """The innermost frame of the user's program in `error`'s traceback."""
    libraries = _library_dirs()
    found = None
    tb = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        path = os.path.abspath(code.co_filename)
        if not path.startswith(libraries) and not code.co_filename.startswith("<frozen"):
            module = tb.tb_frame.f_globals.get("__name__", "")
            found = SourceLine(path, tb.tb_lineno, code.co_name, module)
        tb = tb.tb_next
    return found


def report(message: str, strict: bool) -> None:
    """Warn (`TracerWarning`, attributed to the user's line) or, if `strict`, raise TraceError."""
    where = user_line()
    if strict:
        prefix = f"{where}: " if where is not None else ""
        raise TraceError(prefix + message)
    if where is None:
        warnings.warn(message, TracerWarning, stacklevel=2)
        return
    warnings.warn_explicit(
        message, TracerWarning, where.filename, where.lineno, module=where.module
    )
