"""The kernel registry: every compiled kernel, looked up by name when generated code is imported.

Two kinds share it. The built-in kernels (`lowering/run/kernels/`: sorts, scans, linear
algebra, index_put, nonzero) are `Kernel` objects, each under the name of its `KernelRef`
(`dialects/torch/kernel_refs.py`); they are known from the start. The kernels of custom ops
are registered at run time with `register_kernel`.

A custom op `my_ops::warp_perspective` lowers to a call of the kernel `my_ops.warp_perspective`
(see `lowering/torch_to_linalg/custom.py`). A kernel is a numba-compilable function that takes
the op's arguments in schema order (tensors as arrays, scalars as int/float/bool) followed by
one output array per result, allocated by the caller with the result's shape and dtype, and
writes each result into its output: `kernel(src, M, out)`. It returns nothing, and it must not
write its inputs or keep references to them.

Generated code is a real file in a cache keyed by the hash of its text (`lowering/run/jit.py`), and
numba caches the machine code of its functions, kernel included. So the generated text names
the kernel together with `source_digest(kernel)`: editing the kernel (or a numba function it
calls) gives new text, thus a new cache entry, never stale machine code.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import marshal
from collections.abc import Callable
from typing import Any

import numba
from numba.core.dispatcher import Dispatcher

from lowering.run.kernel import Kernel
from lowering.run.kernels import along_dim, index_put, linear_algebra, value_sized

BUILTIN_KERNELS: dict[str, Kernel] = {
    k.name: k
    for k in (*along_dim.KERNELS, *index_put.KERNELS, *linear_algebra.KERNELS, *value_sized.KERNELS)
}
"""Name -> built-in kernel (its digest is taken when it is first looked up)."""

_KERNELS: dict[str, tuple[Any, str]] = {}  # name -> (numba dispatcher, source digest)


class KernelError(RuntimeError):
    """A kernel that is not registered, or not the one the generated code was made for."""


def register_kernel(name: str, function: Callable[..., Any]) -> None:
    """Register the kernel `name` (`my_ops.warp_perspective`); a plain Python function is
    wrapped with `numba.njit`, a numba dispatcher is used as it is. ValueError if `name` is
    taken, TypeError if `function` is not a Python function."""
    if name in _KERNELS or name in BUILTIN_KERNELS:
        raise ValueError(f"a kernel named {name} is already registered")
    dispatcher = function if isinstance(function, Dispatcher) else None
    if dispatcher is None:
        if not inspect.isfunction(function):
            raise TypeError(
                f"the kernel of {name} must be a Python function (numba-compilable) or a "
                f"numba.njit function, not {type(function).__name__}"
            )
        dispatcher = numba.njit(function)
    _KERNELS[name] = (dispatcher, source_digest(dispatcher.py_func))


def kernel_digest(name: str) -> str:
    """The source digest of the registered kernel `name`; KernelError if there is none."""
    return _entry(name)[1]


def kernel(name: str, digest: str) -> Any:
    """The numba dispatcher of kernel `name`, for generated code that was made for `digest`."""
    dispatcher, current = _entry(name)
    if digest != current:
        raise KernelError(
            f"the kernel {name} changed after this code was generated from it; recompile"
        )
    return dispatcher


def _entry(name: str) -> tuple[Any, str]:
    if name not in _KERNELS and name in BUILTIN_KERNELS:
        function = BUILTIN_KERNELS[name].function
        _KERNELS[name] = (function, source_digest(function.py_func))
    if name not in _KERNELS:
        raise KernelError(
            f"no kernel {name} is registered: define its library (frontend.library(...)) "
            "before running code that uses it"
        )
    return _KERNELS[name]


# ---- digests ----


def source_digest(function: Callable[..., Any]) -> str:
    """SHA-256 over the source of `function` and of the numba functions it calls (by global
    name, transitively): what the compiled kernel depends on."""
    digest = hashlib.sha256()
    seen: set[int] = set()
    pending = [function]
    while pending:
        fn = pending.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        digest.update(_source_of(fn))
        pending.extend(_called_numba_functions(fn))
    return digest.hexdigest()


def _source_of(fn: Any) -> bytes:
    try:
        return inspect.getsource(fn).encode()
    except (OSError, TypeError):  # no file (made by exec, or in an interactive session)
        return marshal.dumps(fn.__code__)


def _called_numba_functions(fn: Any) -> list[Any]:
    code = getattr(fn, "__code__", None)
    if code is None:
        return []
    names = set(code.co_names)
    for const in code.co_consts:  # nested functions and comprehensions
        if inspect.iscode(const):
            names |= set(const.co_names)
    found = [getattr(fn, "__globals__", {}).get(n) for n in sorted(names)]
    for cell in getattr(fn, "__closure__", None) or ():
        with contextlib.suppress(ValueError):  # an empty cell
            found.append(cell.cell_contents)
    return [f.py_func for f in found if isinstance(f, Dispatcher)]
