"""xDSL's interpreter as an executor of tsjit's `linalg`, `memref` and `loops` IR (tiny shapes).

`run_xdsl_ir(module, "f", args)` runs `func.func @f` with xDSL's own implementations of func,
arith, math, scf, memref, tensor and linalg, plus what they lack (`scalars.py`,
`structured.py`). It is independent of the numba path (no Python source is generated), so
comparing it with the eager references checks each lowering on its own. Tensors are numpy
arrays (copied into xDSL `ShapedArray`s and back), scalars Python numbers. It runs about 10^4
loop iterations a second: keep shapes to a few dozen elements.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp, ShapedType
from xdsl.interpreter import Interpreter
from xdsl.interpreters import arith as arith_impls
from xdsl.interpreters import builtin as builtin_impls
from xdsl.interpreters import func as func_impls
from xdsl.interpreters import linalg as linalg_impls
from xdsl.interpreters import math as math_impls
from xdsl.interpreters import memref as memref_impls
from xdsl.interpreters import scf as scf_impls
from xdsl.interpreters import tensor as tensor_impls
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.utils.ptr import RawPtr, TypedPtr
from xdsl.ir import Attribute

from dialects.torch.dtypes import dtype_of_attr
from lowering.xdsl_interpreter import scalars, structured

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


def _numpy_dtype(element: Attribute) -> np.dtype[Any]:
    if element == builtin.i1:
        return np.dtype(np.int8)  # i1 elements are stored one signed byte each
    return dtype_of_attr(element).numpy


def to_runtime(value: Any, typ: Attribute) -> Any:
    """A numpy array or Python scalar as the interpreter's value of IR type `typ`."""
    if isinstance(typ, ShapedType):
        element = typ.get_element_type()
        array = np.require(value, dtype=_numpy_dtype(element), requirements="C")  # keeps 0-d
        data = TypedPtr(RawPtr(bytearray(array.tobytes())), xtype=element)  # type: ignore[arg-type]
        return ShapedArray(data, list(array.shape))
    if isinstance(typ, builtin.IntegerType | builtin.IndexType):
        return IntegerAttr(int(value), typ, truncate_bits=True)  # type: ignore[arg-type]
    return FloatAttr(float(value), typ)  # type: ignore[arg-type]


def from_runtime(value: Any, typ: Attribute) -> Any:
    """The interpreter's value of IR type `typ` as a numpy array or Python scalar."""
    if isinstance(typ, ShapedType):
        element = typ.get_element_type()
        raw = value.data_ptr.raw
        flat = np.frombuffer(
            raw.memory, _numpy_dtype(element), count=len(value.data), offset=raw.offset
        )
        array = flat.reshape(value.shape).copy()
        return array != 0 if element == builtin.i1 else array
    if typ == builtin.i1:
        return value.value.data != 0
    if isinstance(typ, builtin.IntegerType | builtin.IndexType):
        return int(value.value.data)
    return float(value.value.data)
