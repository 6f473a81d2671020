"""The arith and math ops tsjit emits that xDSL's interpreter has no implementation for.

Runtime scalars are `IntegerAttr` / `FloatAttr` (xDSL 0.75). Float ops compute in float64 and
`FloatAttr` rounds the result to the op's type, so f32 arithmetic is exact for + - * / sqrt and
within an ulp for transcendental functions. Integers are read as signed (`to_signed`) unless
the op is unsigned, and wrapped to the result width like the hardware does.
"""

from __future__ import annotations

import builtins
import math as pymath
import struct
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import arith, builtin, cf, math
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.interpreters.builtin import scalar_attr
from xdsl.ir import Attribute, Operation
from xdsl.utils.comparisons import to_signed, to_unsigned
from xdsl.utils.exceptions import InterpretationError

from lowering.ir_marks import raised_exception

Impl = Callable[[InterpreterFunctions, Interpreter, Operation, tuple[Any, ...]], tuple[Any, ...]]


def width(interpreter: Interpreter, typ: Attribute) -> int:
    if isinstance(typ, builtin.IndexType):
        return interpreter.index_bitwidth
    assert isinstance(typ, builtin.IntegerType), f"not an integer type: {typ}"
    return typ.width.data


def signed(interpreter: Interpreter, value: IntegerAttr, typ: Attribute) -> int:
    return to_signed(value.value.data, width(interpreter, typ))


def unsigned(interpreter: Interpreter, value: IntegerAttr, typ: Attribute) -> int:
    return to_unsigned(value.value.data, width(interpreter, typ))


def as_int(interpreter: Interpreter, value: int, typ: Attribute) -> IntegerAttr:
    return scalar_attr(value, typ, interpreter.index_bitwidth)  # type: ignore[return-value]


def _float64(function: Callable[..., Any]) -> Callable[..., float]:
    def run(*values: float) -> float:
        with np.errstate(all="ignore"):
            return float(function(*(np.float64(v) for v in values)))

    return run


def _round_half_away(x: float) -> float:
    return float(np.copysign(np.floor(np.abs(x) + 0.5), x)) if np.isfinite(x) else x


UNARY_FLOAT: dict[type[Operation], Callable[[float], float]] = {
    arith.NegfOp: _float64(np.negative),
    math.AbsFOp: _float64(np.abs),
    math.CeilOp: _float64(np.ceil),
    math.FloorOp: _float64(np.floor),
    math.TruncOp: _float64(np.trunc),
    math.RoundOp: _round_half_away,
    math.RoundEvenOp: _float64(np.rint),
    math.ExpOp: _float64(np.exp),
    math.Exp2Op: _float64(np.exp2),
    math.ExpM1Op: _float64(np.expm1),
    math.LogOp: _float64(np.log),
    math.Log2Op: _float64(np.log2),
    math.Log10Op: _float64(np.log10),
    math.Log1pOp: _float64(np.log1p),
    math.SqrtOp: _float64(np.sqrt),
    math.RsqrtOp: _float64(lambda x: 1.0 / np.sqrt(x)),
    math.CbrtOp: _float64(np.cbrt),
    math.TanhOp: _float64(np.tanh),
    math.SinOp: _float64(np.sin),
    math.CosOp: _float64(np.cos),
    math.TanOp: _float64(np.tan),
    math.AtanOp: _float64(np.arctan),
    math.SinhOp: _float64(np.sinh),
    math.CoshOp: _float64(np.cosh),
    math.ErfOp: lambda x: pymath.erf(x) if not pymath.isnan(x) else x,
}
BINARY_FLOAT: dict[type[Operation], Callable[[float, float], float]] = {
    arith.DivfOp: _float64(np.divide),
    arith.MaxnumfOp: _float64(np.fmax),
    arith.MinnumfOp: _float64(np.fmin),
    math.PowFOp: _float64(np.power),
    math.Atan2Op: _float64(np.arctan2),
    math.CopySignOp: _float64(np.copysign),
}


def _ceildiv(a: int, b: int) -> int:
    if b == 0:
        raise InterpretationError("arith.ceildivsi: division by zero")
    return -(-a // b)


def _ipow(a: int, b: int) -> int:
    if b < 0:  # MLIR: 1 for a == 1, +-1 for a == -1, 0 otherwise
        return 1 if a == 1 else (-1) ** (-b) if a == -1 else 0
    return a**b


SIGNED_UNARY_INT: dict[type[Operation], Callable[[int], int]] = {math.AbsIOp: abs}
SIGNED_BINARY_INT: dict[type[Operation], Callable[[int, int], int]] = {
    arith.MaxSIOp: max,
    arith.MinSIOp: min,
    arith.CeilDivSIOp: _ceildiv,
    math.IPowIOp: _ipow,
}
UNSIGNED_BINARY_INT: dict[type[Operation], Callable[[int, int], int]] = {
    arith.MaxUIOp: max,
    arith.MinUIOp: min,
}


def _unary_float(fn: Callable[[float], float]) -> Impl:
    def run(ft: Any, interp: Interpreter, op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (FloatAttr(fn(args[0].value.data), op.results[0].type),)  # type: ignore[arg-type]

    return run


def _binary_float(fn: Callable[[float, float], float]) -> Impl:
    def run(ft: Any, interp: Interpreter, op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
        value = fn(args[0].value.data, args[1].value.data)
        return (FloatAttr(value, op.results[0].type),)  # type: ignore[arg-type]

    return run


def _unary_int(fn: Callable[[int], int]) -> Impl:
    def run(ft: Any, interp: Interpreter, op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
        typ = op.results[0].type
        return (as_int(interp, fn(signed(interp, args[0], typ)), typ),)

    return run


def _binary_int(fn: Callable[[int, int], int], read: Callable[..., int]) -> Impl:
    def run(ft: Any, interp: Interpreter, op: Operation, args: tuple[Any, ...]) -> tuple[Any, ...]:
        typ = op.results[0].type
        value = fn(read(interp, args[0], typ), read(interp, args[1], typ))
        return (as_int(interp, value, typ),)

    return run


def _table_functions() -> type[InterpreterFunctions]:
    """One `InterpreterFunctions` class holding an `@impl` per table entry."""
    namespace: dict[str, Any] = {}
    tables: list[tuple[dict[type[Operation], Any], Callable[[Any], Impl]]] = [
        (UNARY_FLOAT, _unary_float),
        (BINARY_FLOAT, _binary_float),
        (SIGNED_UNARY_INT, _unary_int),
        (SIGNED_BINARY_INT, lambda fn: _binary_int(fn, signed)),
        (UNSIGNED_BINARY_INT, lambda fn: _binary_int(fn, unsigned)),
    ]
    for table, make in tables:
        for op_type, fn in table.items():
            namespace[f"run_{op_type.name.replace('.', '_')}"] = impl(op_type)(make(fn))
    return register_impls(type("TableFunctions", (InterpreterFunctions,), namespace))


TableFunctions = _table_functions()


# ---- casts ----

_BITS_FORMATS = {("f", 32): "<f", ("f", 64): "<d", ("i", 32): "<i", ("i", 64): "<q"}


def _bits_format(interpreter: Interpreter, typ: Attribute) -> str:
    if isinstance(typ, builtin.Float32Type | builtin.Float64Type):
        return _BITS_FORMATS[("f", typ.bitwidth)]
    return _BITS_FORMATS[("i", width(interpreter, typ))]


@register_impls
class CastFunctions(InterpreterFunctions):
    """Conversions between integer widths, float widths, and integers and floats."""

    @impl(arith.SIToFPOp)
    def run_sitofp(self, interp: Interpreter, op: arith.SIToFPOp, args: tuple[Any, ...]):
        return (FloatAttr(float(signed(interp, args[0], op.input.type)), op.result.type),)

    @impl(arith.UIToFPOp)
    def run_uitofp(self, interp: Interpreter, op: arith.UIToFPOp, args: tuple[Any, ...]):
        return (FloatAttr(float(unsigned(interp, args[0], op.input.type)), op.result.type),)

    @impl(arith.FPToSIOp)
    def run_fptosi(self, interp: Interpreter, op: arith.FPToSIOp, args: tuple[Any, ...]):
        value = args[0].value.data
        if not pymath.isfinite(value):
            raise InterpretationError(f"arith.fptosi of {value} is undefined")
        return (as_int(interp, int(value), op.result.type),)

    @impl(arith.ExtFOp)
    def run_extf(self, interp: Interpreter, op: arith.ExtFOp, args: tuple[Any, ...]):
        return (FloatAttr(args[0].value.data, op.result.type),)  # type: ignore[arg-type]

    @impl(arith.TruncFOp)
    def run_truncf(self, interp: Interpreter, op: arith.TruncFOp, args: tuple[Any, ...]):
        return (FloatAttr(args[0].value.data, op.result.type),)  # type: ignore[arg-type]

    @impl(arith.ExtSIOp)
    def run_extsi(self, interp: Interpreter, op: arith.ExtSIOp, args: tuple[Any, ...]):
        return (as_int(interp, signed(interp, args[0], op.input.type), op.result.type),)

    @impl(arith.ExtUIOp)
    def run_extui(self, interp: Interpreter, op: arith.ExtUIOp, args: tuple[Any, ...]):
        return (as_int(interp, unsigned(interp, args[0], op.input.type), op.result.type),)

    @impl(arith.TruncIOp)
    def run_trunci(self, interp: Interpreter, op: arith.TruncIOp, args: tuple[Any, ...]):
        return (as_int(interp, args[0].value.data, op.result.type),)

    @impl(arith.BitcastOp)
    def run_bitcast(self, interp: Interpreter, op: arith.BitcastOp, args: tuple[Any, ...]):
        source, target = op.operands[0].type, op.results[0].type
        raw = args[0].value.data
        if isinstance(source, builtin.IntegerType):
            raw = to_signed(raw, width(interp, source))
        (value,) = struct.unpack(
            _bits_format(interp, target), struct.pack(_bits_format(interp, source), raw)
        )
        if isinstance(target, builtin.IntegerType):
            return (as_int(interp, value, target),)
        return (FloatAttr(value, target),)  # type: ignore[arg-type]


@register_impls
class AssertFunctions(InterpreterFunctions):
    """`cf.assert`: the run-time checks of the lowering (index bounds, raised errors) raise
    the exception its message names (`lowering/ir_marks.py`)."""

    @impl(cf.AssertOp)
    def run_assert(self, interp: Interpreter, op: cf.AssertOp, args: tuple[Any, ...]):
        if not args[0]:
            kind, message = raised_exception(op.msg.data)
            raise getattr(builtins, kind, AssertionError)(message)
        return ()


ALL_FUNCTIONS: tuple[InterpreterFunctions, ...] = (
    TableFunctions(),
    CastFunctions(),
    AssertFunctions(),
)
