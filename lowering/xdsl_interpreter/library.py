"""The library kernels (`lowering/loops/library_calls.py`) for xDSL's interpreter.

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


def matmul_nt(a: np.ndarray, bt: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return a @ bt.T


def matmul_nn(a: np.ndarray, b: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return a @ b


def unpacked(packed: np.ndarray, k_size: int, n: int) -> np.ndarray:
    """b [k, n] from the column panels of `pack_nn` / `pack_nt` ([panels, k, GEMM_COLS])."""
    from lowering.python_target.gemm_tile import GEMM_COLS

    panels = packed.reshape(-1, k_size, GEMM_COLS)
    return np.concatenate(list(panels), axis=1)[:, :n]


def matmul_packed(a: np.ndarray, packed: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return a @ unpacked(packed, a.shape[1], shape[1])


def matmul_pair(
    a: np.ndarray, b: np.ndarray, a2: np.ndarray, b2: np.ndarray, shape: tuple[int, ...]
) -> np.ndarray:
    return matmul_packed(a, b, shape) + matmul_packed(a2, b2, shape)


def conv2d(x: np.ndarray, w: np.ndarray, shape: tuple[int, ...], *strides: int) -> np.ndarray:
    sh, sw, dh, dw = strides
    kh, kw = w.shape[2:]
    oh, ow = shape[2:]
    result = np.zeros(shape, dtype=x.dtype)
    for u in range(kh):
        for v in range(kw):
            window = x[:, :, u * dh : u * dh + sh * oh : sh, v * dw : v * dw + sw * ow : sw]
            result += np.einsum("ncyz,oc->noyz", window, w[:, :, u, v])
    return result


OPERATIONS = {"matmul_nt": matmul_nt, "matmul_nn": matmul_nn, "matmul_packed": matmul_packed,
              "matmul_pair": matmul_pair, "conv2d": conv2d}  # fmt: skip
"""Each operation's result (its inputs, the output's shape, its index operands)."""

FINISHES = ("", "_set", "_bias", "_set_relu", "_bias_relu")


def finished(operation: str, suffix: str) -> Any:
    """The kernel `operation + suffix` (`lowering/python_target/library_kernels.py`): the
    output accumulates the result, or is overwritten by it (+ a bias along dim 1, then a relu
    that keeps NaN)."""
    compute = OPERATIONS[operation]

    def kernel(*args: Any) -> None:
        buffers = [a for a in args if isinstance(a, ShapedArray)]
        indices = [index(a) for a in args if not isinstance(a, ShapedArray)]
        *inputs, out = (view(b) for b in buffers)
        bias = inputs.pop() if "_bias" in suffix else None
        total = compute(*inputs, out.shape, *indices)
        if bias is not None:
            total = total + bias.reshape((-1,) + (1,) * (out.ndim - 2))
        if not suffix:
            total = out + total
        if "_relu" in suffix:
            total = np.where((total > 0) | np.isnan(total), total, 0)
        out[...] = total

    return kernel


def pack(transposed: bool) -> Any:
    def kernel(b: Any, packed: Any) -> None:
        from lowering.python_target.gemm_tile import GEMM_COLS

        matrix = view(b).T if transposed else view(b)
        k_size, n = matrix.shape
        panels = -(-n // GEMM_COLS)
        wide = np.zeros((k_size, panels * GEMM_COLS), dtype=matrix.dtype)
        wide[:, :n] = matrix
        blocks = wide.reshape(k_size, panels, GEMM_COLS).transpose(1, 0, 2)
        view(packed)[...] = blocks.reshape(-1)

    return kernel


KERNELS = {
    operation + suffix: finished(operation, suffix)
    for operation in OPERATIONS
    for suffix in FINISHES
}
KERNELS |= {"pack_nn": pack(False), "pack_nt": pack(True)}


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
