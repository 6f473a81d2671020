"""xDSL's interpreter as an executor of tsjit's `linalg`, `memref` and `loops` IR (tiny shapes).

`run_xdsl_ir(module, "f", args)` runs `func.func @f` with xDSL's own implementations of func,
arith, math, scf, memref, tensor and linalg, plus what they lack (`scalars.py`,
`structured.py`, the library kernels in `library.py`; value conversions in `values.py`). It
is independent of the numba path (no Python source is generated), so comparing it with the
eager references checks each lowering on its own. Tensors are numpy arrays (copied into xDSL
`ShapedArray`s and back), scalars Python numbers. It runs about 10^4 loop iterations a
second: keep shapes to a few dozen elements.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.interpreters import arith as arith_impls
from xdsl.interpreters import builtin as builtin_impls
from xdsl.interpreters import func as func_impls
from xdsl.interpreters import linalg as linalg_impls
from xdsl.interpreters import math as math_impls
from xdsl.interpreters import memref as memref_impls
from xdsl.interpreters import scf as scf_impls
from xdsl.interpreters import tensor as tensor_impls

from lowering.xdsl_interpreter import library, scalars, structured
from lowering.xdsl_interpreter.values import from_runtime, to_runtime

__all__ = ["make_interpreter", "run_xdsl_ir"]


def make_interpreter(module: ModuleOp) -> Interpreter:
    """An interpreter for `module` with xDSL's implementations and tsjit's additions."""
    interpreter = Interpreter(module)
    for functions in (
        arith_impls.ArithFunctions(),
        builtin_impls.BuiltinFunctions(),
        func_impls.FuncFunctions(),
        linalg_impls.LinalgFunctions(),
        math_impls.MathFunctions(),
        memref_impls.MemRefFunctions(),
        scf_impls.ScfFunctions(),
        tensor_impls.TensorFunctions(),
    ):
        interpreter.register_implementations(functions)
    interpreter.register_implementations(library.LibraryFunctions())
    for functions in (*scalars.ALL_FUNCTIONS, structured.StructuredFunctions()):
        interpreter.register_implementations(functions, override=True)
    return interpreter


def run_xdsl_ir(module: ModuleOp, function_name: str, args: Sequence[Any]) -> Any:
    """Run `@function_name` on numpy arrays and Python scalars; one result or a tuple."""
    function = _function(module, function_name)
    inputs = function.function_type.inputs.data
    outputs = function.function_type.outputs.data
    if len(args) != len(inputs):
        raise TypeError(f"@{function_name} takes {len(inputs)} arguments, {len(args)} given")
    values = tuple(to_runtime(a, t) for a, t in zip(args, inputs))
    results = make_interpreter(module).call_op(function_name, values)
    converted = [from_runtime(r, t) for r, t in zip(results, outputs, strict=True)]
    return converted[0] if len(converted) == 1 else tuple(converted)


def _function(module: ModuleOp, name: str) -> func.FuncOp:
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op
    raise ValueError(f"no function @{name} in the module")
