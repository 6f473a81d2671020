"""The eager library programs are generated and checked with: PyTorch, else `frontend.torch`."""

from __future__ import annotations

import importlib
import linecache
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from fuzzing.program import FUNCTION_NAME, Program


@dataclass(frozen=True)
class Eager:
    """A PyTorch-like namespace (`torch`, `F`) and how to move values in and out of it."""

    name: str
    torch: ModuleType
    functional: ModuleType

    def tensor(self, array: np.ndarray) -> Any:
        return self.torch.from_numpy(np.array(array, copy=True))

    def is_tensor(self, value: Any) -> bool:
        return isinstance(value, self.torch.Tensor)

    def to_numpy(self, value: Any) -> Any:
        """Tensors (also in tuples) as numpy arrays; Python scalars stay."""
        if isinstance(value, tuple | list):
            return tuple(self.to_numpy(v) for v in value)
        if self.is_tensor(value):
            return np.array(value.numpy(), copy=True)
        return value

    def namespace(self) -> dict[str, Any]:
        """The globals a program's source runs with."""
        return {"torch": self.torch, "F": self.functional, "__builtins__": __builtins__}


def eager_library(name: str = "auto") -> Eager:
    """`torch` (PyTorch), `frontend` (frontend.torch), or `auto`: PyTorch if it is installed."""
    if name in ("auto", "torch"):
        try:
            torch = importlib.import_module("torch")
            return Eager("torch", torch, importlib.import_module("torch.nn.functional"))
        except ImportError:
            if name == "torch":
                raise
    torch = importlib.import_module("frontend.torch")
    return Eager("frontend", torch, importlib.import_module("frontend.torch.nn.functional"))


_LOADED: dict[tuple[str, str], Any] = {}


def load_function(program: Program, library: Eager) -> Any:
    """The program as a Python function whose source `inspect` can read (for scripting).

    The source is registered in `linecache` under a name unique to its text, so
    `frontend.script` reads it like a function from a file.
    """
    source = program.source()
    key = (source, library.name)
    if key not in _LOADED:
        filename = f"<fuzz-{abs(hash(key)):x}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace = library.namespace()
        exec(compile(source, filename, "exec"), namespace)
        _LOADED[key] = namespace[FUNCTION_NAME]
    return _LOADED[key]
