"""Tensor element types: one table linking torch names, numpy dtypes and IR element types."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute


@dataclass(frozen=True)
class DType:
    """One tensor element type: its torch name, numpy dtype, torch-dialect and signless IR types."""

    name: str  # torch spelling: "float32"
    numpy: np.dtype  # type: ignore[type-arg]
    torch_attr: Attribute  # element type inside !torch.vtensor (si64, f32, i1)
    # element type after lowering (i64, f32, i1): signless, except uint8's ui8, which keeps
    # the sign so that payloads pick unsigned arith ops (`divui`, `cmpi ult`, `extui`)
    signless_attr: Attribute
    category: int  # 0 bool, 1 integer, 2 floating: torch's promotion categories
    scalar_type: int  # torch ScalarType code, the value of a `dtype=` argument in the IR

    @property
    def is_float(self) -> bool:
        return self.category == 2

    @property
    def is_bool(self) -> bool:
        return self.category == 0

    @property
    def is_half(self) -> bool:
        """float16 or bfloat16: computed in float32 and rounded after each op (emulated)."""
        return self.name in HALF_NAMES

    @property
    def itemsize(self) -> int:
        """Bytes per element in torch (bfloat16's numpy carrier is float32: 2, not 4)."""
        return 2 if self.name == "bfloat16" else int(self.numpy.itemsize)

    def __repr__(self) -> str:
        return f"torch.{self.name}"


si64 = IntegerType(64, Signedness.SIGNED)
si32 = IntegerType(32, Signedness.SIGNED)
si16 = IntegerType(16, Signedness.SIGNED)
si8 = IntegerType(8, Signedness.SIGNED)
ui8 = IntegerType(8, Signedness.UNSIGNED)

BOOL = DType("bool", np.dtype(np.bool_), i1, i1, 0, 11)
UINT8 = DType("uint8", np.dtype(np.uint8), ui8, ui8, 1, 0)
INT8 = DType("int8", np.dtype(np.int8), si8, i8, 1, 1)
INT16 = DType("int16", np.dtype(np.int16), si16, i16, 1, 2)
INT32 = DType("int32", np.dtype(np.int32), si32, i32, 1, 3)
INT64 = DType("int64", np.dtype(np.int64), si64, i64, 1, 4)
FLOAT16 = DType("float16", np.dtype(np.float16), f16, f16, 2, 5)
# numpy has no bfloat16: its arrays are float32 arrays holding bfloat16 values (the carrier)
BFLOAT16 = DType("bfloat16", np.dtype(np.float32), bf16, bf16, 2, 15)
FLOAT32 = DType("float32", np.dtype(np.float32), f32, f32, 2, 6)
FLOAT64 = DType("float64", np.dtype(np.float64), f64, f64, 2, 7)

ALL_DTYPES: tuple[DType, ...] = (
    BOOL,
    UINT8,
    INT8,
    INT16,
    INT32,
    INT64,
    FLOAT16,
    BFLOAT16,
    FLOAT32,
    FLOAT64,
)
HALF_NAMES = ("float16", "bfloat16")
DEFAULT_FLOAT = FLOAT32
DEFAULT_INT = INT64

_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES if d is not BFLOAT16}
_BY_ATTR = {d.torch_attr: d for d in ALL_DTYPES} | {d.signless_attr: d for d in ALL_DTYPES}
_BY_NAME = {d.name: d for d in ALL_DTYPES} | {
    "float": FLOAT32,
    "double": FLOAT64,
    "long": INT64,
    "half": FLOAT16,
}
_BY_CODE = {d.scalar_type: d for d in ALL_DTYPES}
_SHORT = {
    "f32": FLOAT32,
    "f64": FLOAT64,
    "f16": FLOAT16,
    "bf16": BFLOAT16,
    "i64": INT64,
    "si64": INT64,
    "i32": INT32,
    "si32": INT32,
    "i16": INT16,
    "si16": INT16,
    "i8": INT8,
    "ui8": UINT8,
    "si8": INT8,
    "i1": BOOL,
    "b": BOOL,
    "bool": BOOL,
}


def dtype_of_numpy(dt: object) -> DType:
    """The DType of a numpy dtype; TypeError for dtypes tsjit does not support."""
    found = _BY_NUMPY.get(np.dtype(dt))  # type: ignore[call-overload]
    if found is None:
        supported = ", ".join(d.name for d in ALL_DTYPES)
        raise TypeError(f"unsupported dtype {np.dtype(dt)}; tsjit supports {supported}")  # type: ignore[call-overload]
    return found


def dtype_of_attr(attr: Attribute) -> DType:
    """The DType of an IR element type (torch-signed or signless)."""
    found = _BY_ATTR.get(attr)
    if found is None:
        raise TypeError(f"unsupported element type {attr}")
    return found


def dtype_of_name(name: str) -> DType:
    """The DType spelled `name` (`float32`, `f32`, `si64`, `long`, ...)."""
    found = _BY_NAME.get(name) or _SHORT.get(name)
    if found is None:
        raise TypeError(f"unknown dtype name {name!r}")
    return found


def dtype_of_code(code: int) -> DType:
    """The DType of a torch ScalarType code (6 is float32)."""
    found = _BY_CODE.get(code)
    if found is None:
        raise TypeError(f"unsupported torch ScalarType code {code}")
    return found


def is_unsigned_attr(attr: Attribute) -> bool:
    """uint8's lowered element type (ui8): integer ops on it are the unsigned ones."""
    return isinstance(attr, IntegerType) and attr.signedness.data == Signedness.UNSIGNED


def is_float_attr(attr: Attribute) -> bool:
    return isinstance(attr, Float16Type | BFloat16Type | Float32Type | Float64Type)


# ---- promotion (torch semantics) ----


def promote(a: DType, b: DType) -> DType:
    """torch.promote_types for two tensor dtypes of the same priority (uint8 with int8 is int16)."""
    if a.category != b.category:
        return a if a.category > b.category else b
    if {a.name, b.name} == {UINT8.name, INT8.name}:
        return INT16
    if {a.name, b.name} == {FLOAT16.name, BFLOAT16.name}:
        return FLOAT32
    return a if a.itemsize >= b.itemsize else b


def scalar_category(value_kind: str) -> int:
    return {"bool": 0, "int": 1, "float": 2}[value_kind]


def result_type(tensors: list[tuple[DType, int]], scalar_kinds: list[str]) -> DType:
    """torch.result_type: tensors as (dtype, rank), Python scalars by kind ('int', 'float', 'bool').

    Dimensioned tensors win over 0-d tensors, which win over Python scalars; an operand of a
    higher category still raises the result (int tensor + float scalar -> default float).
    """
    dims = [d for d, rank in tensors if rank != 0]
    zero_dims = [d for d, rank in tensors if rank == 0]
    result = _fold(dims)
    zero = _fold(zero_dims)
    if zero is not None and (result is None or zero.category > result.category):
        result = zero
    for kind in scalar_kinds:
        category = scalar_category(kind)
        if result is None or category > result.category:
            result = {0: BOOL, 1: DEFAULT_INT, 2: DEFAULT_FLOAT}[category]
    if result is None:
        raise TypeError("result_type needs at least one operand")
    return result


def _fold(dtypes: list[DType]) -> DType | None:
    if not dtypes:
        return None
    out = dtypes[0]
    for d in dtypes[1:]:
        out = promote(out, d)
    return out
