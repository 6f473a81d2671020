"""Ops on Python scalars (`!torch.int`, `!torch.float`, `!torch.bool`), as TorchScript emits them.

Scalar arithmetic and comparisons (`aten.add.int`, `aten.lt.float`, ...), conversions between
scalar kinds (`aten.Float.Scalar`, `aten.Int.float`, `aten.Bool.int`), tensor-to-scalar
conversions (`aten.Bool.Tensor` for `if x.sum() > 0:`) and the index maths of `for` loops
(`aten.__range_length`, `aten.__derive_index`). Each op carries its scalar `payload`, from
which one generic pattern lowers it to arith.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import f64, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import BoolType, FloatType, IntType, ValueTensorType

_TYPES: dict[str, type[Attribute]] = {"int": IntType, "float": FloatType, "bool": BoolType}


_SAMPLE_VALUES: dict[str, tuple[Any, Any]] = {
    "int": (7, -3),
    "float": (2.5, -1.25),
    "bool": (True, False),
    "Scalar": (3, 3),
}


class ScalarOp(TorchOp):
    """An op on scalars whose result kind is fixed (`RESULT`); lowered from `payload`."""

    RESULT: ClassVar[str]  # "int", "float" or "bool"

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return [_TYPES[cls.RESULT]()]

    @staticmethod
    def payload(b: ScalarBuilder, *args: SSAValue) -> SSAValue:
        """The arith body; arguments are i64 / f64 / i1 values in schema order."""
        raise NotImplementedError


def _binary(
    aten: str,
    kind: str,
    result_kind: str,
    eager_fn: Callable[[Any, Any], Any],
    payload_fn: Callable[[ScalarBuilder, SSAValue, SSAValue], SSAValue],
    py_name: str,
) -> type[ScalarOp]:
    """One scalar binary op, e.g. `aten::add.int(int a, int b) -> int` for `a + b`."""
    base, _, overload = aten.partition(".")

    @torch_op
    class Op(ScalarOp):
        __doc__ = f"`a {py_name} b` on Python {kind}s (TorchScript `aten::{aten}`)."
        __qualname__ = f"Aten{base.strip('_').title()}{overload.title()}Op"
        name = f"torch.aten.{aten}"
        SCHEMA = f"aten::{aten}({kind} a, {kind} b) -> {result_kind}"
        PY_NAMES = (f"operator.{py_name}",)
        SAMPLES = (Sample(*_SAMPLE_VALUES[kind]),)
        RESULT = result_kind
        a = operand_def(_TYPES[kind])
        b = operand_def(_TYPES[kind])
        result = result_def(_TYPES[result_kind])
        eager = staticmethod(eager_fn)
        payload = staticmethod(payload_fn)

    Op.__name__ = Op.__qualname__
    return Op


def _floordiv(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.emit(arith.FloorDivSIOp(x, y))


def _remainder(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """Python's `%`: the sign of the divisor (x - floordiv(x, y) * y)."""
    return b.sub(x, b.mul(_floordiv(b, x, y), y))


def _cmp(predicate: str) -> Callable[[ScalarBuilder, SSAValue, SSAValue], SSAValue]:
    return lambda b, x, y: b.cmp(predicate, x, y)


AtenAddIntOp = _binary("add.int", "int", "int", operator.add, ScalarBuilder.add, "add")


AtenSubIntOp = _binary("sub.int", "int", "int", operator.sub, ScalarBuilder.sub, "sub")


AtenMulIntOp = _binary("mul.int", "int", "int", operator.mul, ScalarBuilder.mul, "mul")


AtenFloordivIntOp = _binary("floordiv.int", "int", "int", operator.floordiv, _floordiv, "floordiv")


AtenRemainderIntOp = _binary("remainder.int", "int", "int", operator.mod, _remainder, "mod")


AtenAddFloatOp = _binary("add.float", "float", "float", operator.add, ScalarBuilder.add, "add")


AtenSubFloatOp = _binary("sub.float", "float", "float", operator.sub, ScalarBuilder.sub, "sub")


AtenMulFloatOp = _binary("mul.float", "float", "float", operator.mul, ScalarBuilder.mul, "mul")


AtenDivFloatOp = _binary(
    "div.float", "float", "float", operator.truediv, ScalarBuilder.div, "truediv"
)


AtenMinIntOp = _binary("min.int", "int", "int", min, ScalarBuilder.minimum, "min")


AtenMaxIntOp = _binary("max.int", "int", "int", max, ScalarBuilder.maximum, "max")


AtenMinFloatOp = _binary("min.float", "float", "float", min, ScalarBuilder.minimum, "min")


AtenMaxFloatOp = _binary("max.float", "float", "float", max, ScalarBuilder.maximum, "max")


for _op, _fn in ((AtenMinIntOp, "min"), (AtenMaxIntOp, "max"), (AtenMinFloatOp, "min"),
                 (AtenMaxFloatOp, "max")):  # fmt: skip
    _op.__doc__ = f"`{_fn}(a, b)` of numbers known at run time (TorchScript `prim::{_fn}`)."


_COMPARISONS = (
    ("eq", operator.eq),
    ("ne", operator.ne),
    ("lt", operator.lt),
    ("le", operator.le),
    ("gt", operator.gt),
    ("ge", operator.ge),
)


AtenEqIntOp, AtenNeIntOp, AtenLtIntOp, AtenLeIntOp, AtenGtIntOp, AtenGeIntOp = (
    _binary(f"{p}.int", "int", "bool", fn, _cmp(p), p) for p, fn in _COMPARISONS
)


AtenEqFloatOp, AtenNeFloatOp, AtenLtFloatOp, AtenLeFloatOp, AtenGtFloatOp, AtenGeFloatOp = (
    _binary(f"{p}.float", "float", "bool", fn, _cmp(p), p) for p, fn in _COMPARISONS
)


AtenAndBoolOp = _binary("__and__.bool", "bool", "bool", operator.and_, ScalarBuilder.and_, "and_")


AtenOrBoolOp = _binary("__or__.bool", "bool", "bool", operator.or_, ScalarBuilder.or_, "or_")


def _unary(
    aten: str,
    kind: str,
    result_kind: str,
    eager_fn: Callable[[Any], Any],
    payload_fn: Callable[[ScalarBuilder, SSAValue], SSAValue],
    doc: str,
    py_names: tuple[str, ...] = (),
    samples: tuple[Any, ...] | None = None,
) -> type[ScalarOp]:
    """One scalar op of one argument, e.g. `aten::neg.int(int a) -> int` (its samples: the
    given values, else a negative one of `kind`)."""
    base, _, overload = aten.partition(".")

    @torch_op
    class Op(ScalarOp):
        __doc__ = f"{doc} (TorchScript `aten::{aten}`)."
        __qualname__ = f"Aten{base.strip('_').title()}{overload.title()}Op"
        name = f"torch.aten.{aten}"
        SCHEMA = f"aten::{aten}({kind} a) -> {result_kind}"
        PY_NAMES = py_names
        SAMPLES = tuple(Sample(v) for v in (samples or (_SAMPLE_VALUES[kind][1],)))
        RESULT = result_kind
        a = operand_def(_TYPES[kind] if kind != "Scalar" else IntType | FloatType)
        result = result_def(_TYPES[result_kind])
        eager = staticmethod(eager_fn)
        payload = staticmethod(payload_fn)

    Op.__name__ = Op.__qualname__
    return Op


def _is_nonzero(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    return b.cmp("ne", x, b.const(0, x))


AtenNotOp = _unary(
    "__not__", "bool", "bool", operator.not_, ScalarBuilder.not_, "`not a`", ("operator.not_",)
)


AtenNegIntOp = _unary(
    "neg.int", "int", "int", operator.neg, ScalarBuilder.neg, "`-a` on an int", ("operator.neg",)
)


AtenNegFloatOp = _unary(
    "neg.float",
    "float",
    "float",
    operator.neg,
    ScalarBuilder.neg,
    "`-a` on a float",
    ("operator.neg",),
)


AtenFloatScalarOp = _unary(
    "Float.Scalar", "Scalar", "float", float, lambda b, x: b.cast(x, f64), "`float(a)` of a number"
)


AtenIntFloatOp = _unary(
    "Int.float",
    "float",
    "int",
    int,
    lambda b, x: b.cast(x, i64),
    "`int(a)` of a float, truncating toward zero",
)


AtenBoolIntOp = _unary("Bool.int", "int", "bool", bool, _is_nonzero, "`bool(a)`: `a != 0`")


AtenBoolFloatOp = _unary(
    "Bool.float", "float", "bool", bool, _is_nonzero, "`bool(a)`: `a != 0.0`, so NaN is true"
)


def _numpy_float(fn: Callable[[Any], Any]) -> Callable[[Any], float]:
    """`fn` in float64 with numpy's nan / inf where Python's `math` raises (`math.sqrt(-1)`),
    as the compiled code gives."""

    def eager(a: Any) -> float:
        with np.errstate(all="ignore"):
            return float(fn(np.float64(a)))

    return eager


_POSITIVE, _SIGNED = (2.25, 0.5), (-1.25, 2.5)


AtenSqrtFloatOp = _unary("sqrt.float", "float", "float", _numpy_float(np.sqrt),
                         ScalarBuilder.sqrt, "`math.sqrt(a)`", samples=_POSITIVE)  # fmt: skip


AtenExpFloatOp = _unary("exp.float", "float", "float", _numpy_float(np.exp),
                        ScalarBuilder.exp, "`math.exp(a)`", samples=_SIGNED)  # fmt: skip


AtenLogFloatOp = _unary("log.float", "float", "float", _numpy_float(np.log),
                        ScalarBuilder.log, "`math.log(a)`", samples=_POSITIVE)  # fmt: skip


AtenFloorFloatOp = _unary("floor.float", "float", "int", lambda a: int(np.floor(a)),
                          lambda b, x: b.cast(b.floor(x), i64), "`math.floor(a)`: an int",
                          samples=_SIGNED)  # fmt: skip


AtenCeilFloatOp = _unary("ceil.float", "float", "int", lambda a: int(np.ceil(a)),
                         lambda b, x: b.neg(b.cast(b.floor(b.neg(x)), i64)),
                         "`math.ceil(a)`: an int", samples=_SIGNED)  # fmt: skip


@torch_op
class AtenRangeLengthOp(ScalarOp):
    """The trip count of `range(lo, hi, step)` (TorchScript `aten::__range_length`)."""

    name = "torch.aten.__range_length"
    SCHEMA = "aten::__range_length(int lo, int hi, int step) -> int"
    SAMPLES = (Sample(2, 11, 3), Sample(5, 0, -2))
    RESULT = "int"
    lo = operand_def(IntType)
    hi = operand_def(IntType)
    step = operand_def(IntType)
    result = result_def(IntType)

    @staticmethod
    def eager(lo: Any, hi: Any, step: Any) -> Any:
        return len(range(lo, hi, step))

    @staticmethod
    def payload(b: ScalarBuilder, *args: SSAValue) -> SSAValue:
        """max(0, (hi - lo + step - sign(step)) // step)."""
        lo, hi, step = args
        one = b.const(1, step)
        toward_zero = b.select(
            b.cmp("gt", step, b.const(0, step)), b.sub(step, one), b.add(step, one)
        )
        count = b.emit(arith.FloorDivSIOp(b.add(b.sub(hi, lo), toward_zero), step))
        return b.maximum(count, b.const(0, count))


@torch_op
class AtenDeriveIndexOp(ScalarOp):
    """The loop variable of iteration `index` of `range(start, ..., step)`: start + index * step."""

    name = "torch.aten.__derive_index"
    SCHEMA = "aten::__derive_index(int index, int start, int step) -> int"
    SAMPLES = (Sample(3, 2, 5),)
    RESULT = "int"
    index = operand_def(IntType)
    start = operand_def(IntType)
    step = operand_def(IntType)
    result = result_def(IntType)

    @staticmethod
    def eager(index: Any, start: Any, step: Any) -> Any:
        return start + index * step

    @staticmethod
    def payload(b: ScalarBuilder, *args: SSAValue) -> SSAValue:
        index, start, step = args
        return b.add(start, b.mul(index, step))


class TensorToScalarOp(TorchOp):
    """`aten::<Kind>.Tensor(Tensor a) -> <kind>`: the value of a one-element tensor."""

    RESULT: ClassVar[str]
    a = operand_def(ValueTensorType)
    result = result_def(IntType | FloatType | BoolType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x: TensorMeta = args[0]
        if x.shape is not None and all(d >= 0 for d in x.shape) and int(np.prod(x.shape)) != 1:
            raise ShapeError(
                f"a Tensor with {int(np.prod(x.shape))} elements cannot be converted to Scalar"
            )
        return [_TYPES[cls.RESULT]()]


@torch_op
class AtenBoolTensorOp(TensorToScalarOp):
    """`bool(t)` of a one-element tensor, as in `if x.sum() > 0:` (TorchScript `aten::Bool`)."""

    name = "torch.aten.Bool.Tensor"
    SCHEMA = "aten::Bool.Tensor(Tensor a) -> bool"
    PY_NAMES = ("Tensor.__bool__",)
    SAMPLES = (Sample(Tn((1,))), Sample(Tn((1,), "bool")))
    RESULT = "bool"

    @staticmethod
    def eager(a: Any) -> Any:
        return bool(np.asarray(a).reshape(()))


@torch_op
class AtenFloatTensorOp(TensorToScalarOp):
    """`float(t)` of a one-element tensor (TorchScript `aten::Float.Tensor`)."""

    name = "torch.aten.Float.Tensor"
    SCHEMA = "aten::Float.Tensor(Tensor a) -> float"
    PY_NAMES = ("Tensor.__float__",)
    SAMPLES = (Sample(Tn((1,))), Sample(Tn((1, 1), "int64")))
    RESULT = "float"

    @staticmethod
    def eager(a: Any) -> Any:
        return float(np.asarray(a).reshape(()))


@torch_op
class AtenIntTensorOp(TensorToScalarOp):
    """`int(t)` of a one-element tensor, truncating floats (TorchScript `aten::Int.Tensor`)."""

    name = "torch.aten.Int.Tensor"
    SCHEMA = "aten::Int.Tensor(Tensor a) -> int"
    PY_NAMES = ("Tensor.__int__",)
    SAMPLES = (Sample(Tn((1,), "float32", -9.0, 9.0)), Sample(Tn((1,), "int64", -9, 9)))
    RESULT = "int"

    @staticmethod
    def eager(a: Any) -> Any:
        return int(np.asarray(a).reshape(()))


OPS = (
    AtenAddIntOp,
    AtenSubIntOp,
    AtenMulIntOp,
    AtenFloordivIntOp,
    AtenRemainderIntOp,
    AtenAddFloatOp,
    AtenSubFloatOp,
    AtenMulFloatOp,
    AtenDivFloatOp,
    AtenMinIntOp,
    AtenMaxIntOp,
    AtenMinFloatOp,
    AtenMaxFloatOp,
    AtenEqIntOp,
    AtenNeIntOp,
    AtenLtIntOp,
    AtenLeIntOp,
    AtenGtIntOp,
    AtenGeIntOp,
    AtenEqFloatOp,
    AtenNeFloatOp,
    AtenLtFloatOp,
    AtenLeFloatOp,
    AtenGtFloatOp,
    AtenGeFloatOp,
    AtenAndBoolOp,
    AtenOrBoolOp,
    AtenNotOp,
    AtenNegIntOp,
    AtenNegFloatOp,
    AtenFloatScalarOp,
    AtenIntFloatOp,
    AtenBoolIntOp,
    AtenBoolFloatOp,
    AtenSqrtFloatOp,
    AtenExpFloatOp,
    AtenLogFloatOp,
    AtenFloorFloatOp,
    AtenCeilFloatOp,
    AtenRangeLengthOp,
    AtenDeriveIndexOp,
    AtenBoolTensorOp,
    AtenFloatTensorOp,
    AtenIntTensorOp,
)
