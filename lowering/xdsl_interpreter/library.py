"""The library kernels (`lowering/linalg_to_library_calls.py`) for xDSL's interpreter.

The numba path emits hand-tuned kernels for `func.call @tsjit.<kernel>_<dtype>`; here each is
a numpy reference working in place on the interpreter's buffers, so loops-level IR with
library calls runs without numba too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import memref
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    impl,
    impl_external,
    register_impls,
)
from xdsl.interpreters.shaped_array import ShapedArray

from lowering.xdsl_interpreter.values import _numpy_dtype

DTYPES = ("f32", "f64")


def view(value: ShapedArray[Any]) -> np.ndarray:
    """A writable numpy view of a shaped value's buffer."""
    raw = value.data_ptr.raw
    dtype = _numpy_dtype(value.data_ptr.xtype)  # type: ignore[arg-type]
    flat = np.frombuffer(raw.memory, dtype, count=len(value.data), offset=raw.offset)
    return flat.reshape(value.shape)


def index(value: Any) -> int:
    return int(value.value.data) if hasattr(value, "value") else int(value)


def matmul_nt(a: Any, bt: Any, c: Any) -> None:
    out = view(c)
    out += view(a) @ view(bt).T


def matmul_nn(a: Any, b: Any, c: Any) -> None:
    out = view(c)
    out += view(a) @ view(b)


def transpose(b: Any, bt: Any) -> None:
    view(bt)[...] = view(b).T


def conv2d(x: Any, w: Any, out: Any, *strides: Any) -> None:
    sh, sw, dh, dw = (index(s) for s in strides)
    xs, ws, result = view(x), view(w), view(out)
    kh, kw = ws.shape[2:]
    oh, ow = result.shape[2:]
    for u in range(kh):
        for v in range(kw):
            window = xs[:, :, u * dh : u * dh + sh * oh : sh, v * dw : v * dw + sw * ow : sw]
            result += np.einsum("ncyz,oc->noyz", window, ws[:, :, u, v])


KERNELS = {"matmul_nt": matmul_nt, "matmul_nn": matmul_nn, "transpose": transpose,
           "conv2d": conv2d}  # fmt: skip


def _external(kernel: Any, symbol: str) -> Any:
    @impl_external(symbol)
    def run(self: Any, interpreter: Interpreter, op: Any, args: tuple[Any, ...]) -> tuple[()]:
        kernel(*args)
        return ()

    return run


def run_cast(self: Any, interpreter: Interpreter, op: Any, args: tuple[Any, ...]) -> Any:
    """`memref.cast` (made for library call operands): the same buffer."""
    return args


def _functions() -> type[InterpreterFunctions]:
    namespace: dict[str, Any] = {"run_cast": impl(memref.CastOp)(run_cast)}
    namespace |= {
        f"run_{name}_{dtype}": _external(kernel, f"tsjit.{name}_{dtype}")
        for name, kernel in KERNELS.items()
        for dtype in DTYPES
    }
    return register_impls(type("LibraryFunctions", (InterpreterFunctions,), namespace))


LibraryFunctions = _functions()
