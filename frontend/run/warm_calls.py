"""Calls a warm process runs compiled from its first call: the frontend's side of call records.

`lowering/run/call_records.py` keeps, across processes, the calls that ran on a program's
general code once numba had compiled it. Per scripted function, `WarmCalls`
- `recorded(signature, values)`: whether such a call is on record, so that `ShapeGuard.check`
  skips the torch-opt lowering of the exact shapes (0.17 to 0.19 s of pass imports in a fresh
  process) and a tiered call may run compiled code at once instead of the eager tier;
- `remember(signature, values)`: records a call that just ran on the general code.

Only calls whose signature has no `int` argument are recorded (an `int` may feed a shape, and
finding out lowers the program). The call text is the exact signature with each array's numba
layout (always C-contiguous after `prepare`; read-only and unaligned arrays are other numba
types, compiled apart). The checker digest covers this file and `shape_guard.py`, whose rules
decide whether the general code serves a call: a change of either makes every record miss.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from xdsl.ir import Attribute

from dialects.torch.types import IntType
from frontend.run.shape_guard import exact_signature_text
from lowering.run.call_records import has_record, may_have_records, record_key, write_record
from lowering.signature import format_signature

Signature = tuple[Attribute, ...]
CHECKERS = ("shape_guard.py", "warm_calls.py")  # the frontend code an outcome depends on


@functools.cache
def checker_digest() -> str:
    """SHA-256 of the sources that decide whether the general code serves a call."""
    digest = hashlib.sha256()
    for name in CHECKERS:
        digest.update((Path(__file__).parent / name).read_bytes())
    return digest.hexdigest()


def call_text(signature: Signature, values: list[Any]) -> str:
    """The exact signature of a call and the numba layout of each array argument."""
    layouts = [_layout(v) for v in values if isinstance(v, np.ndarray)]
    return f"{exact_signature_text(signature, values)};{','.join(layouts)}"


def _layout(array: np.ndarray) -> str:
    flags = array.flags
    return "C" + ("" if flags.writeable else "r") + ("" if flags.aligned else "u")


def has_numba_cache(modules: list[ModuleType]) -> bool:
    """Whether each module that defines numba functions has numba's index files on disk."""
    for module in modules:
        if not any(_defines(module, v) for v in vars(module).values()):
            continue
        path = Path(module.__file__ or "")
        if not any((path.parent / "__pycache__").glob(f"{path.stem}.*.nbi")):
            return False
    return True


def _defines(module: ModuleType, value: Any) -> bool:
    """Whether `value` is a numba dispatcher of a function written in `module` (not one it
    imports from another)."""
    function = getattr(value, "py_func", None)
    return hasattr(value, "signatures") and getattr(function, "__module__", None) == module.__name__


class WarmCalls:
    """Per scripted function: its recorded calls (see the module docstring)."""

    def __init__(self, function: Any) -> None:
        self.function = function  # a ScriptFunction
        self.parts: dict[Signature, tuple[str, ...] | None] = {}  # program cache key parts
        self.known: set[str] = set()  # record keys found or written by this process

    def program_parts(self, signature: Signature) -> tuple[str, ...] | None:
        """The program cache's key parts of the program for `signature` (memoized: the IR
        text of a model with large weights takes the digests of their bytes)."""
        from lowering.run.program_cache import program_parts

        if signature not in self.parts:
            fn = self.function
            text = format_signature(list(signature))
            self.parts[signature] = program_parts(fn.module, fn.name, text)
        return self.parts[signature]

    def _key(self, signature: Signature, values: list[Any]) -> str | None:
        if any(isinstance(t, IntType) for t in signature):
            return None
        parts = self.program_parts(signature)
        if parts is None:  # a program the program cache does not remember
            return None
        return record_key(parts, checker_digest(), call_text(signature, values))

    def recorded(self, signature: Signature, values: list[Any]) -> bool:
        if not may_have_records():  # a fresh cache: no key to compute on the first call
            return False
        key = self._key(signature, values)
        if key is None:
            return False
        if key not in self.known and has_record(key):
            self.known.add(key)
        return key in self.known

    def loadable(self, signature: Signature, values: list[Any]) -> bool:
        """Whether the call is on record and the program cache has its program's text: its
        compiled code loads without lowering (and numba's, see `has_numba_cache`)."""
        if not self.recorded(signature, values):
            return False
        from lowering.run.program_cache import program_key, remembered  # (see call_records)

        parts = self.program_parts(signature)
        return parts is not None and remembered(program_key(*parts)) is not None

    def remember(self, signature: Signature, values: list[Any]) -> None:
        key = self._key(signature, values)
        if key is not None and key not in self.known:
            write_record(key)
            self.known.add(key)
