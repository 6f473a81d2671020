"""Parallel twins compile in the background, the first time a call crosses the grain size.

A generated function with parallel loops is `f_parallel` and `f_serial` behind a plain Python
`f` that runs `f_parallel` when its arrays hold `PARALLEL_GRAIN` elements or more
(`lowering/python_target/module_emitter.py`); numba compiles each variant on its first call,
so the first call above the grain used to wait for a compile (1.2 s for a two-op program).
For code compiled in the background, `hold(module)` replaces the module's `PARALLEL_GRAIN`
global by a `GrainProbe`: an `int` that every `size >= PARALLEL_GRAIN` of the module finds
false (the call runs the serial variant) and that, the first time such a size is above the
real grain, queues a job that compiles each `*_parallel` numba function for the argument
types its `*_serial` twin was compiled for. When no twin of the module misses a signature,
the real grain is put back and calls of that size run in parallel.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

GRAIN = "PARALLEL_GRAIN"
_LOCK = threading.Lock()
_PENDING: dict[str, threading.Event] = {}  # module name -> twins being compiled


class GrainProbe(int):
    """`PARALLEL_GRAIN` while a module's parallel twins are not compiled: `size >= probe`
    is False, and the first size at or above the real grain calls `crossed` once."""

    crossed: Callable[[], None]
    fired: bool

    def __le__(self, size: object) -> bool:  # `size >= probe` (the reflected comparison)
        if isinstance(size, int) and size >= int(self) and not self.fired:
            self.fired = True
            self.crossed()
        return False

    def __ge__(self, size: object) -> bool:  # `probe <= size`
        return self.__le__(size)


def missing_twins(module: ModuleType) -> list[tuple[Any, Any]]:
    """(parallel dispatcher, argument types) for each signature a `*_serial` numba function
    of `module` is compiled for and its `*_parallel` twin is not."""
    found = []
    namespace = vars(module)
    for name, parallel in list(namespace.items()):
        if "_parallel" not in name or not hasattr(parallel, "signatures"):
            continue
        serial = namespace.get(name.replace("_parallel", "_serial", 1))
        if serial is None or not hasattr(serial, "signatures"):
            continue
        done = set(parallel.signatures)
        found += [(parallel, sig) for sig in serial.signatures if sig not in done]
    return found


def hold(module: ModuleType) -> None:
    """Puts calls of `module` on their serial variants (see the module docstring), for a
    module with parallel twins; `settle` after the run that compiles its serial code."""
    with _LOCK:
        real = getattr(module, GRAIN, None)
        if not isinstance(real, int) or isinstance(real, GrainProbe):
            return
        if not any("_parallel" in n and hasattr(v, "signatures") for n, v in vars(module).items()):
            return
        probe = GrainProbe(real)
        probe.fired = False
        probe.crossed = lambda: _queue_twins(module, real)
        setattr(module, GRAIN, probe)


def settle(module: ModuleType) -> None:
    """Puts the real grain back when no twin misses a signature (and none is compiling)."""
    with _LOCK:
        probe = getattr(module, GRAIN, None)
        held = isinstance(probe, GrainProbe) and module.__name__ not in _PENDING
        if held and not missing_twins(module):
            setattr(module, GRAIN, int(probe))


def _queue_twins(module: ModuleType, real: int) -> None:
    from frontend.run.compile_thread import WORKER

    with _LOCK:
        if module.__name__ in _PENDING:
            return
        event = _PENDING[module.__name__] = threading.Event()
    WORKER.submit(lambda: _compile_twins(module, real, event))


def _compile_twins(module: ModuleType, real: int, event: threading.Event) -> None:
    from lowering import compile_log
    from lowering.run.jit import young_collections_only

    title = f"parallel twins of {module.__name__}"
    try:
        with young_collections_only(), compile_log.compile_report(title):
            while todo := missing_twins(module):
                for dispatcher, sig in todo:
                    dispatcher.compile(sig)
        with _LOCK:
            setattr(module, GRAIN, real)
    except Exception as err:  # the module stays on its serial variants
        import warnings

        from frontend.run.compile_thread import CompileWarning

        message = f"{title}: compiling failed, calls stay serial: {type(err).__name__}: {err}"
        warnings.warn(message, CompileWarning, stacklevel=1)
    finally:
        with _LOCK:
            del _PENDING[module.__name__]
        event.set()


def pending_twins(names: set[str]) -> list[threading.Event]:
    """The events of the twin compiles running for the modules `names`."""
    with _LOCK:
        return [e for n, e in _PENDING.items() if n in names and not e.is_set()]
