"""Emits a whole loops-level module: constant globals, helpers, functions; the `python` target."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects import builtin, func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.utils.target import Target

from lowering.python_target.function_emitter import FunctionEmitter, fresh_name, sanitize
from lowering.python_target.tables import HEADER, HELPERS, PythonEmitError, dtype_of

# ---- module emission and the target ----


def global_definition(op: memref.GlobalOp, name: str) -> str:
    """A constant `memref.global` as a module-level (read-only) numpy array."""
    value = op.initial_value
    if not isinstance(value, builtin.DenseIntOrFPElementsAttr) or op.constant is None:
        raise PythonEmitError(f"python target: memref.global @{op.sym_name.data} is not constant")
    type_ = op.type
    assert isinstance(type_, MemRefType)
    shape = tuple(type_.get_shape())
    data = value.data.data.hex()
    dtype = dtype_of(type_.element_type)
    return f'{name} = np.frombuffer(bytes.fromhex("{data}"), dtype={dtype}).reshape({shape})\n'


def function_symbols(funcs: Sequence[func.FuncOp | memref.GlobalOp]) -> dict[str, str]:
    """IR symbol -> unique Python function name (`@torch.aten.relu` -> `torch_aten_relu`)."""
    symbols: dict[str, str] = {}
    for op in funcs:
        name = fresh_name(sanitize(op.sym_name.data), lambda n: n in symbols.values())
        symbols[op.sym_name.data] = name
    return symbols


def emit_python(module: ModuleOp) -> str:
    """The Python source of every `func.func` in `module`, ready for `lowering.jit`."""
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    constants = [op for op in module.ops if isinstance(op, memref.GlobalOp)]
    for op in module.ops:
        if not isinstance(op, func.FuncOp | memref.GlobalOp):
            raise PythonEmitError(f"python target: cannot emit top-level op '{op.name}'")
    symbols = function_symbols([*funcs, *constants])
    emitters = [FunctionEmitter(symbols) for _ in funcs]
    bodies = [e.emit_function(f) for e, f in zip(emitters, funcs)]
    helpers = sorted(set().union(*(e.helpers for e in emitters)))
    arrays = [global_definition(op, symbols[op.sym_name.data]) for op in constants]
    return "\n\n".join([HEADER, *(HELPERS[h] for h in helpers), *arrays, *bodies])


@dataclass(frozen=True)
class PythonTarget(Target):
    """`xdsl-opt -t python`: prints the numba source of a loops-level module."""

    name = "python"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(emit_python(module))
