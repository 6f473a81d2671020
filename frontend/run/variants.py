"""Specializations of an entry function on the Python structure of its arguments.

An argument annotated `Optional[X]`, `List[int]`, `Tuple[...]` or `str` shapes the graph itself
(`frontend/script/annotations.py`): a call computes the structure of its arguments (which optionals
are None, the list and string values, tuple lengths), scripts the function once per structure
with those values as constants, and passes the remaining values as flat arguments.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from frontend.run.python_binding import PythonBinder
from frontend.script.annotations import ArgSpec, constant_of, flatten, structure_of

Build = Callable[[dict[str, Any]], Callable[..., Any]]


class Variants:
    """Builds and caches one compiled callable per argument structure."""

    def __init__(
        self,
        name: str,
        specs: list[tuple[str, ArgSpec | None]],
        build: Build,
        binder: PythonBinder,
    ) -> None:
        self.name = name
        self.specs = specs
        self.build = build
        self.binder = binder  # the Python parameters (without `self`): defaults, call errors
        self._cache: dict[tuple[Any, ...], Callable[..., Any]] = {}
        self._lock = threading.Lock()

    def __call__(self, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> Any:
        bound = self.binder.bind(args, kwargs or {})
        args = tuple(bound.arguments[name] for name, _ in self.specs)
        key = tuple(self._structure(name, spec, v) for (name, spec), v in zip(self.specs, args))
        variant = self._cache.get(key) or self._variant(key, args)
        flat = [x for (_, spec), v in zip(self.specs, args) for x in flatten(spec, v)]
        return variant(*flat)

    def _structure(self, name: str, spec: ArgSpec | None, value: Any) -> Any:
        try:
            return structure_of(spec, value)
        except TypeError as err:
            raise TypeError(f"{self.name}(): argument '{name}' ({spec}): {err}") from None

    def _variant(self, key: tuple[Any, ...], args: tuple[Any, ...]) -> Callable[..., Any]:
        with self._lock:
            if key not in self._cache:
                constants = {}
                for (name, spec), value in zip(self.specs, args):
                    constant = constant_of(spec, value)
                    if constant is not NotImplemented:
                        constants[name] = constant
                self._cache[key] = self.build(constants)
            return self._cache[key]
