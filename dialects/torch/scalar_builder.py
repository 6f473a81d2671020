"""Builds the arith/math scalar bodies that elementwise and reduction ops declare as `payload`."""

from __future__ import annotations

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from dialects.torch.dtypes import is_float_attr, is_unsigned_attr

_FLOAT_PREDICATES = {"gt": "ogt", "lt": "olt", "ge": "oge", "le": "ole", "eq": "oeq", "ne": "une"}
_INT_PREDICATES = {"gt": "sgt", "lt": "slt", "ge": "sge", "le": "sle", "eq": "eq", "ne": "ne"}
_UINT_PREDICATES = {"gt": "ugt", "lt": "ult", "ge": "uge", "le": "ule", "eq": "eq", "ne": "ne"}


class ScalarBuilder:
    """Appends scalar ops to a block, choosing float or integer arith ops from the operand type.

    Payloads are written once against this builder and work for every dtype:
    `b.add(x, b.mul(y, alpha))` becomes `arith.addf`/`arith.mulf` on f32 and `addi`/`muli`
    on i64. Multiplying by a constant 1 or adding a constant 0 folds away.
    """

    def __init__(self, block: Block) -> None:
        self.block = block

    def emit(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    # ---- constants and casts ----

    def const(self, value: float | bool, like: SSAValue | Attribute) -> SSAValue:
        """A constant of `like`'s type (or of the type `like` itself)."""
        typ = like.type if isinstance(like, SSAValue) else like
        if is_float_attr(typ):
            return self.emit(arith.ConstantOp(FloatAttr(float(value), typ)))  # type: ignore[arg-type]
        assert isinstance(typ, IntegerType | IndexType), f"no constant of type {typ}"
        if isinstance(typ, IntegerType) and typ.width.data == 1:
            value = int(bool(value))
        if is_unsigned_attr(typ):  # arith constants are signless: bitcast the same bits
            bits = self.const(_signless_bits(int(value), typ), _signless(typ))
            return self.emit(arith.BitcastOp(bits, typ))
        return self.emit(arith.ConstantOp(IntegerAttr(int(value), typ)))

    def cast(self, x: SSAValue, to: Attribute) -> SSAValue:
        """Convert between float, signed integer and bool element types, folding constants."""
        if x.type == to:
            return x
        folded = constant_value(x)
        if folded is not None:
            return self.const(folded, to)
        if isinstance(to, IntegerType) and to.width.data == 1:  # bool(x) is x != 0
            return self.cmp("ne", x, self.const(0, x))
        return self.emit(_cast_op(x, to))

    # ---- arithmetic ----

    def add(self, x: SSAValue, y: SSAValue) -> SSAValue:
        """`x + y`; for bools torch's `True + True` is True: or (an i1 addi would wrap to 0,
        and numba's `+` of two bools gives the int 2)."""
        if constant_value(y) == 0:
            return x
        if _is_bool(x.type):
            return self.or_(x, y)
        op = arith.AddfOp(x, y) if is_float_attr(x.type) else arith.AddiOp(x, y)
        return self.emit(op)

    def sub(self, x: SSAValue, y: SSAValue) -> SSAValue:
        if constant_value(y) == 0:
            return x
        op = arith.SubfOp(x, y) if is_float_attr(x.type) else arith.SubiOp(x, y)
        return self.emit(op)

    def mul(self, x: SSAValue, y: SSAValue) -> SSAValue:
        if constant_value(y) == 1:
            return x
        op = arith.MulfOp(x, y) if is_float_attr(x.type) else arith.MuliOp(x, y)
        return self.emit(op)

    def div(self, x: SSAValue, y: SSAValue) -> SSAValue:
        if is_unsigned_attr(x.type):
            return self.emit(arith.DivUIOp(x, y))
        op = arith.DivfOp(x, y) if is_float_attr(x.type) else arith.DivSIOp(x, y)
        return self.emit(op)

    def neg(self, x: SSAValue) -> SSAValue:
        if is_float_attr(x.type):
            return self.emit(arith.NegfOp(x))
        return self.sub(self.const(0, x), x)

    def floordiv(self, x: SSAValue, y: SSAValue) -> SSAValue:
        """Division rounded down: Python's `//` for integers, `floor(x / y)` for floats with
        the infinities of torch's fmod-based quotient: `+-inf // y` is nan, and a finite
        nonzero `x // +-inf` of the other sign is -1 (floor(-0.0) would give -0)."""
        if is_unsigned_attr(x.type):
            return self.emit(arith.DivUIOp(x, y))
        if not is_float_attr(x.type):
            return self.emit(arith.FloorDivSIOp(x, y))
        zero, inf = self.const(0.0, x), self.const(float("inf"), x)
        floored = self.floor(self.div(x, y))
        opposite_signs = self.cmp("lt", self.mul(x, y), zero)  # 0 * inf is nan: not below 0
        y_inf = self.cmp("eq", self.abs(y), inf)
        floored = self.select(self.and_(y_inf, opposite_signs), self.const(-1.0, x), floored)
        x_inf = self.cmp("eq", self.abs(x), inf)
        nan = self.const(float("nan"), x)
        return self.select(self.and_(x_inf, self.cmp("ne", y, zero)), nan, floored)

    def truncdiv(self, x: SSAValue, y: SSAValue) -> SSAValue:
        """Division rounded toward zero (C semantics for integers)."""
        if is_float_attr(x.type):
            return self.trunc(self.div(x, y))
        return self.div(x, y)

    def pow(self, x: SSAValue, y: SSAValue) -> SSAValue:
        """`x ** y` in one dtype; a constant exponent of 1, 2 or 0.5 becomes x, x*x, sqrt(x)."""
        exponent = constant_value(y)
        if exponent == 1:
            return x
        if exponent == 2:
            return self.mul(x, x)
        if is_float_attr(x.type):
            if exponent == 0.5:
                return self.sqrt(x)
            return self.emit(math.PowFOp(x, y))
        return self.emit(math.IPowIOp(x, y))

    def maximum(self, x: SSAValue, y: SSAValue) -> SSAValue:
        """NaN-propagating max, like torch.maximum (for bools: or)."""
        if _is_bool(x.type):
            return self.or_(x, y)
        if is_unsigned_attr(x.type):
            return self.emit(arith.MaxUIOp(x, y))
        op = arith.MaximumfOp(x, y) if is_float_attr(x.type) else arith.MaxSIOp(x, y)
        return self.emit(op)

    def minimum(self, x: SSAValue, y: SSAValue) -> SSAValue:
        """NaN-propagating min, like torch.minimum (for bools: and)."""
        if _is_bool(x.type):
            return self.and_(x, y)
        if is_unsigned_attr(x.type):
            return self.emit(arith.MinUIOp(x, y))
        op = arith.MinimumfOp(x, y) if is_float_attr(x.type) else arith.MinSIOp(x, y)
        return self.emit(op)

    def abs(self, x: SSAValue) -> SSAValue:
        if is_unsigned_attr(x.type):
            return x
        op = math.AbsFOp(x) if is_float_attr(x.type) else math.AbsIOp(x)
        return self.emit(op)

    def select(self, cond: SSAValue, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.emit(arith.SelectOp(cond, x, y))

    def cmp(self, predicate: str, x: SSAValue, y: SSAValue) -> SSAValue:
        """Compare with `gt`/`lt`/`ge`/`le`/`eq`/`ne`; float compares are ordered except `ne`."""
        if is_float_attr(x.type):
            return self.emit(arith.CmpfOp(x, y, _FLOAT_PREDICATES[predicate]))
        predicates = _UINT_PREDICATES if is_unsigned_attr(x.type) else _INT_PREDICATES
        return self.emit(arith.CmpiOp(x, y, predicates[predicate]))

    def is_nan(self, x: SSAValue) -> SSAValue:
        return self.emit(arith.CmpfOp(x, x, "uno"))

    def and_(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.emit(arith.AndIOp(x, y))

    def or_(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.emit(arith.OrIOp(x, y))

    def xor(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.emit(arith.XOrIOp(x, y))

    def not_(self, x: SSAValue) -> SSAValue:
        """Logical not of a bool."""
        return self.emit(arith.XOrIOp(x, self.const(True, x)))

    def invert(self, x: SSAValue) -> SSAValue:
        """Bitwise not (`~x`) of an integer or bool: xor with all ones."""
        return self.emit(arith.XOrIOp(x, self.const(-1, x)))

    def index_cast(self, x: SSAValue, to: Attribute) -> SSAValue:
        return self.emit(arith.IndexCastOp(x, to))

    @staticmethod
    def is_float(x: SSAValue) -> bool:
        return is_float_attr(x.type)

    # ---- transcendental (float only) ----

    def exp(self, x: SSAValue) -> SSAValue:
        return self.emit(math.ExpOp(x))

    def tanh(self, x: SSAValue) -> SSAValue:
        return self.emit(math.TanhOp(x))

    def log(self, x: SSAValue) -> SSAValue:
        return self.emit(math.LogOp(x))

    def sqrt(self, x: SSAValue) -> SSAValue:
        return self.emit(math.SqrtOp(x))

    def rsqrt(self, x: SSAValue) -> SSAValue:
        return self.emit(math.RsqrtOp(x))

    def erf(self, x: SSAValue) -> SSAValue:
        return self.emit(math.ErfOp(x))

    def floor(self, x: SSAValue) -> SSAValue:
        return self.emit(math.FloorOp(x))

    def trunc(self, x: SSAValue) -> SSAValue:
        return self.emit(math.TruncOp(x))

    def log1p(self, x: SSAValue) -> SSAValue:
        return self.emit(math.Log1pOp(x))

    def expm1(self, x: SSAValue) -> SSAValue:
        return self.emit(math.ExpM1Op(x))

    def ceil(self, x: SSAValue) -> SSAValue:
        return self.emit(math.CeilOp(x))

    def round_even(self, x: SSAValue) -> SSAValue:
        """Round half to even (`torch.round`, C's nearbyint)."""
        return self.emit(math.RoundEvenOp(x))

    def math_fn(self, op_type: type[Operation], *operands: SSAValue) -> SSAValue:
        """Any float `math` op by class: `b.math_fn(math.SinOp, x)`, `(math.Atan2Op, y, x)`."""
        return self.emit(op_type(*operands))  # type: ignore[call-arg]


def _is_bool(typ: Attribute) -> bool:
    return isinstance(typ, IntegerType) and typ.width.data == 1


def constant_value(value: SSAValue) -> float | int | None:
    """The Python value of an `arith.constant` scalar, else None."""
    owner = value.owner
    if isinstance(owner, arith.BitcastOp) and is_unsigned_attr(value.type):
        bits = constant_value(owner.input)
        return None if bits is None else int(bits) % (1 << value.type.width.data)  # type: ignore[attr-defined]
    if not isinstance(owner, arith.ConstantOp):
        return None
    attr = owner.value
    if isinstance(attr, FloatAttr | IntegerAttr):
        return attr.value.data  # type: ignore[union-attr]
    return None


def _cast_op(x: SSAValue, to: Attribute) -> Operation:
    src = x.type
    if is_float_attr(src) and is_float_attr(to):
        wider = src.bitwidth < to.bitwidth  # type: ignore[union-attr]
        return arith.ExtFOp(x, to) if wider else arith.TruncFOp(x, to)  # type: ignore[arg-type]
    if isinstance(src, IntegerType) and is_float_attr(to):
        if src.width.data == 1 or is_unsigned_attr(src):
            return arith.UIToFPOp(x, to)  # type: ignore[arg-type]
        return arith.SIToFPOp(x, to)  # type: ignore[arg-type]
    if is_float_attr(src) and isinstance(to, IntegerType):
        return arith.FPToUIOp(x, to) if is_unsigned_attr(to) else arith.FPToSIOp(x, to)
    assert isinstance(src, IntegerType) and isinstance(to, IntegerType), f"cast {src} -> {to}"
    if src.width.data < to.width.data:
        zero_extends = src.width.data == 1 or is_unsigned_attr(src)
        return arith.ExtUIOp(x, to) if zero_extends else arith.ExtSIOp(x, to)
    if src.width.data == to.width.data:  # int8 <-> uint8: the same bits
        return arith.BitcastOp(x, to)
    return arith.TruncIOp(x, to)


def _signless(typ: IntegerType) -> IntegerType:
    return IntegerType(typ.width.data)


def _signless_bits(value: int, typ: IntegerType) -> int:
    """`value` wrapped to `typ`'s width, as a signless constant of that width holds it."""
    width = typ.width.data
    bits = value % (1 << width)
    return bits - (1 << width) if bits >= 1 << (width - 1) else bits
