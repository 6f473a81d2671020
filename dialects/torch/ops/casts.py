"""Dtype conversions: `x.to(dtype)` and the `x.float()` / `double()` / `long()` / `int()` /
`bool()` methods.

TorchScript spells `x.float()` as `aten::to.dtype(x, 6, ...)`. Here a spelling in PY_NAMES
cannot bind an argument, so each method maps to its own op with the dtype fixed by the op:
ATen's `_cast_Float`, `_cast_Double`, `_cast_Long` and `_cast_Int` (real ops, so PyTorch
checks them), `_cast_Half` (`x.half()`), plus `_cast_Bool` and `_cast_BFloat16`
(`x.bfloat16()`), which ATen lacks and tsjit adds in the same pattern. All of
them lower through the one elementwise pattern: the payload is the identity and the
conversion is the cast from the compute dtype (the input's) to the result dtype.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import (
    BFLOAT16,
    BOOL,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    INT32,
    INT64,
    DType,
    dtype_of_code,
    dtype_of_numpy,
)
from dialects.torch.families import ElementwiseOp
from dialects.torch.meta import TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.half_rounding import BFLOAT16 as BFLOAT16_BITS
from dialects.torch.ops.half_rounding import round_array
from dialects.torch.ops.prim import ConstantBoolOp, ConstantIntOp, ConstantNoneOp
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import BoolType, IntType, NoneType, ValueTensorType


class CastOp(ElementwiseOp):
    """Computes in the input dtype; the result dtype is the target (`target_dtype`).

    Floats convert to integers by truncation toward zero and to bool by `!= 0` (NaN is
    true), as in torch; out-of-range values are undefined there and here.
    """

    DTYPE_ARGS = ("self",)

    @classmethod
    def target_dtype(cls, args: tuple[Any, ...]) -> DType:
        raise NotImplementedError

    @classmethod
    def result_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        return cls.target_dtype(args)

    @classmethod
    def eager(cls, x: Any, *_: Any) -> Any:  # type: ignore[override]
        meta = TensorMeta.of_array(x)
        return converted(x, cls.target_dtype((meta,)))

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, *_: Any) -> SSAValue:
        return x


def converted(x: Any, dtype: DType) -> Any:
    """`x`'s values in `dtype`; bfloat16 values in their float32 carrier (numpy has none)."""
    if dtype is BFLOAT16:
        return round_array(x.astype(np.float32), BFLOAT16_BITS)
    return x.astype(dtype.numpy)


CAST_SAMPLES = (
    Sample(Tn((3, 4), low=-3.0, high=3.0)),
    Sample(Tn((5,), "int64", -3, 3)),
    Sample(Tn((4,), "bool")),
)


@torch_op
class AtenToDtypeOp(CastOp):
    """`x.to(dtype)`: the same values converted to `dtype` (a ScalarType code in the IR)."""

    name = "torch.aten.to.dtype"
    SCHEMA = (
        "aten::to.dtype(Tensor self, ScalarType dtype, bool non_blocking=False, "
        "bool copy=False, MemoryFormat? memory_format=None) -> Tensor"
    )
    PY_NAMES = ("Tensor.to",)
    STATIC_ARGS = ("dtype", "non_blocking", "copy", "memory_format")
    SAMPLES = (
        Sample(Tn((3, 4), low=-3.0, high=3.0), dtype=FLOAT64.scalar_type),
        Sample(Tn((2, 3), "float64", -3.0, 3.0), dtype=INT32.scalar_type),
        Sample(Tn((5,), "int32", -3, 3), dtype=BOOL.scalar_type),
        Sample(Tn((4,), "bool"), dtype=FLOAT32.scalar_type),
    )
    self_ = operand_def(ValueTensorType)
    dtype = operand_def(IntType)
    non_blocking = operand_def(BoolType)
    copy = operand_def(BoolType)
    memory_format = operand_def(NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def target_dtype(cls, args: tuple[Any, ...]) -> DType:
        code = cls.static_arg(args, "dtype")
        if not isinstance(code, int):
            raise TypeError(f"{cls.name}: `dtype` must be a dtype, got {code!r}")
        return dtype_of_code(code)

    @classmethod
    def eager(cls, x: Any, dtype: int, *_: Any) -> Any:  # type: ignore[override]
        return converted(x, dtype_of_code(dtype))


def _method_cast(suffix: str, method: str, dtype: DType) -> Any:
    @torch_op
    class MethodCast(CastOp):
        __doc__ = f"`x.{method}()`: the same values as {dtype.name} (see the module docstring)."
        __qualname__ = f"AtenCast{suffix}Op"
        name = f"torch.aten._cast_{suffix}"
        SCHEMA = f"aten::_cast_{suffix}(Tensor self, bool non_blocking=False) -> Tensor"
        PY_NAMES = (f"torch._cast_{suffix}", f"Tensor.{method}")
        STATIC_ARGS = ("non_blocking",)
        TARGET: ClassVar[DType] = dtype
        SAMPLES = CAST_SAMPLES[:2] if suffix != "Bool" else CAST_SAMPLES[:1]
        self_ = operand_def(ValueTensorType)
        non_blocking = operand_def(BoolType)
        result = result_def(ValueTensorType)

        @classmethod
        def target_dtype(cls, args: tuple[Any, ...]) -> DType:
            return cls.TARGET

    return MethodCast


AtenCastFloatOp = _method_cast("Float", "float", FLOAT32)


AtenCastDoubleOp = _method_cast("Double", "double", FLOAT64)


AtenCastLongOp = _method_cast("Long", "long", INT64)


AtenCastIntOp = _method_cast("Int", "int", INT32)


AtenCastBoolOp = _method_cast("Bool", "bool", BOOL)


AtenCastHalfOp = _method_cast("Half", "half", FLOAT16)


AtenCastBFloat16Op = _method_cast("BFloat16", "bfloat16", BFLOAT16)


@torch_op
class AtenTypeAsOp(TorchOp):
    """`x.type_as(other)`: `x`'s values in `other`'s dtype; decomposes into `x.to(dtype)`
    once the types are known (`torch-decompose`)."""

    name = "torch.aten.type_as"
    SCHEMA = "aten::type_as(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("Tensor.type_as",)
    SAMPLES = (
        Sample(Tn((3, 4), low=-3.0, high=3.0), Tn((2,), "int64")),
        Sample(Tn((5,), "int32", -3, 3), Tn((1, 1), "float64")),
    )
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, other = args
        return [ValueTensorType(x.shape, other.dtype)]

    @staticmethod
    def eager(x: Any, other: Any) -> Any:
        return x.astype(other.dtype)

    def decompose(self) -> Any:
        dtype = self.other.type.element  # type: ignore[attr-defined]
        if dtype is None:
            return None
        code, flag, none = ConstantIntOp(dtype.scalar_type), ConstantBoolOp(False), ConstantNoneOp()
        operands = [self.self_, code.result, flag.result, flag.result, none.result]
        return [code, flag, none, AtenToDtypeOp.build(operands)]


@torch_op
class PrimDtypeOp(TorchOp):
    """`x.dtype` while `x`'s dtype is unknown (scripting): its ScalarType code, an int
    (TorchScript's prim::dtype); folds to a constant once types are refined, so
    `x.dtype == torch.float32` decides an `if` at compile time."""

    name = "torch.prim.dtype"
    SCHEMA = "prim::dtype(Tensor a) -> int"
    PY_NAMES = ()
    SAMPLES = (Sample(Tn((3,))), Sample(Tn((2, 2), "int64")))
    a = operand_def(ValueTensorType)
    result = result_def(IntType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return [IntType()]

    @staticmethod
    def eager(x: Any) -> Any:
        return dtype_of_numpy(x.dtype).scalar_type

    def fold(self) -> Any:
        typ = self.a.type
        dtype = typ.element if isinstance(typ, ValueTensorType) else None
        return None if dtype is None else [dtype.scalar_type]


OPS = (
    AtenToDtypeOp,
    AtenCastFloatOp,
    AtenCastDoubleOp,
    AtenCastLongOp,
    AtenCastIntOp,
    AtenCastBoolOp,
    AtenCastHalfOp,
    AtenCastBFloat16Op,
    AtenTypeAsOp,
    PrimDtypeOp,
)
