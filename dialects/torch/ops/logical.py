"""Logical and bitwise ops, bit shifts, and selection: logical_and/or/xor/not,
bitwise_and/or/xor/not, bitwise_left_shift / bitwise_right_shift (`x << n`, also on Python
ints), where (three-argument forms) and masked_fill.

Counts outside [0, bits) follow torch's kernels: a left shift gives 0, a right shift the
sign (`x >> (bits - 1)`); float and bool tensors are refused like torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.ir import SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import BOOL, DType
from dialects.torch.families import BinaryOp, BinaryScalarOp, ElementwiseOp, ScalarOperand, UnaryOp
from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.scalars import ScalarOp
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import IntType, ValueTensorType


class _Logical:
    """Any dtype in, bool out: each input is read as `x != 0` (NaN is true, like torch)."""

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        dtype = super().compute_dtype(args)  # type: ignore[misc]
        return None if dtype is None else BOOL


LOGICAL_SAMPLES = (
    Sample(Tn((3, 4), "bool"), Tn((4,), "bool")),
    Sample(Tn((5,), "int64", -1, 1.5), Tn((5,), "float32", -1, 1.5)),
)


def _logical(stem: str, numpy_fn: Any, builder_fn: str) -> Any:
    def eager_fn(x: Any, y: Any) -> Any:
        return numpy_fn(x, y)

    def payload_fn(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        return getattr(b, builder_fn)(x, y)

    @torch_op
    class Op(_Logical, BinaryOp):
        __doc__ = (
            f"Elementwise logical {stem} of the inputs read as bools (`torch.logical_{stem}`)."
        )
        __qualname__ = f"AtenLogical{stem.title()}Op"
        name = f"torch.aten.logical_{stem}"
        SCHEMA = f"aten::logical_{stem}(Tensor self, Tensor other) -> Tensor"
        PY_NAMES = (f"torch.logical_{stem}", f"Tensor.logical_{stem}", f"np.logical_{stem}")
        SAMPLES = LOGICAL_SAMPLES
        eager = staticmethod(eager_fn)
        payload = staticmethod(payload_fn)

    return Op


AtenLogicalAndOp = _logical("and", np.logical_and, "and_")


AtenLogicalOrOp = _logical("or", np.logical_or, "or_")


AtenLogicalXorOp = _logical("xor", np.logical_xor, "xor")


@torch_op
class AtenLogicalNotOp(_Logical, UnaryOp):
    """`not x` elementwise, the input read as bool (`torch.logical_not`)."""

    name = "torch.aten.logical_not"
    SCHEMA = "aten::logical_not(Tensor self) -> Tensor"
    PY_NAMES = ("torch.logical_not", "Tensor.logical_not", "np.logical_not")
    SAMPLES = (Sample(Tn((3, 4), "bool")), Sample(Tn((5,), "float64", -1, 1.5)))

    @staticmethod
    def eager(x: Any) -> Any:
        return np.logical_not(x)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.not_(x)


def _bitwise(stem: str, numpy_fn: Any, builder_fn: str, operator_name: str) -> tuple[Any, Any]:
    """The Tensor and Scalar forms of one bitwise op; integers and bools only."""

    def eager_fn(x: Any, y: Any) -> Any:
        return numpy_fn(x, y)

    def payload_fn(b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
        return getattr(b, builder_fn)(x, y)

    names = (f"torch.bitwise_{stem}", f"Tensor.bitwise_{stem}", f"operator.{operator_name}")

    @torch_op
    class TensorForm(BinaryOp):
        __doc__ = f"Bitwise {stem} of integer or bool tensors (`a {operator_name} b`)."
        __qualname__ = f"AtenBitwise{stem.title()}TensorOp"
        name = f"torch.aten.bitwise_{stem}.Tensor"
        SCHEMA = f"aten::bitwise_{stem}.Tensor(Tensor self, Tensor other) -> Tensor"
        PY_NAMES = (*names, f"np.bitwise_{stem}")
        REJECTS = ("float",)
        SAMPLES = (
            Sample(Tn((3, 4), "bool"), Tn((4,), "bool")),
            Sample(Tn((5,), "int64", -9, 9), Tn((5,), "int32", -9, 9)),
        )
        eager = staticmethod(eager_fn)
        payload = staticmethod(payload_fn)

    @torch_op
    class ScalarForm(BinaryScalarOp):
        __doc__ = f"Bitwise {stem} with a Python int or bool."
        __qualname__ = f"AtenBitwise{stem.title()}ScalarOp"
        name = f"torch.aten.bitwise_{stem}.Scalar"
        SCHEMA = f"aten::bitwise_{stem}.Scalar(Tensor self, Scalar other) -> Tensor"
        PY_NAMES = names
        REJECTS = ("float",)
        SAMPLES = (Sample(Tn((6,), "int64", -9, 9), 5), Sample(Tn((4,), "bool"), True))
        eager = staticmethod(eager_fn)
        payload = staticmethod(payload_fn)

    return TensorForm, ScalarForm


AtenBitwiseAndTensorOp, AtenBitwiseAndScalarOp = _bitwise("and", np.bitwise_and, "and_", "and_")


AtenBitwiseOrTensorOp, AtenBitwiseOrScalarOp = _bitwise("or", np.bitwise_or, "or_", "or_")


AtenBitwiseXorTensorOp, AtenBitwiseXorScalarOp = _bitwise("xor", np.bitwise_xor, "xor", "xor")


@torch_op
class AtenBitwiseNotOp(UnaryOp):
    """`~x`: bitwise not of integers, logical not of bools (`torch.bitwise_not`)."""

    name = "torch.aten.bitwise_not"
    SCHEMA = "aten::bitwise_not(Tensor self) -> Tensor"
    PY_NAMES = ("torch.bitwise_not", "Tensor.bitwise_not", "operator.invert", "np.invert")
    REJECTS = ("float",)
    SAMPLES = (Sample(Tn((3, 4), "bool")), Sample(Tn((5,), "int32", -9, 9)))

    @staticmethod
    def eager(x: Any) -> Any:
        return np.invert(x)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.invert(x)


def _require_bool(value: Any, what: str) -> None:
    if isinstance(value, TensorMeta) and value.dtype not in (None, BOOL):
        raise TypeError(f"{what} must be a bool tensor, got {value.dtype.name}")


class _Where:
    """`torch.where(condition, self, other)`: the branches promote, the condition is bool."""

    PY_NAMES = ("torch.where", "np.where")
    RAW_ARGS = ("condition",)

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        _require_bool(cls.named_args(args).get("condition"), "where: the condition")  # type: ignore[attr-defined]
        return super().compute_dtype(args)  # type: ignore[misc]

    @staticmethod
    def eager(condition: Any, x: Any, y: Any) -> Any:
        return np.where(condition, x, y)

    @staticmethod
    def payload(b: ScalarBuilder, condition: SSAValue, x: SSAValue, y: SSAValue) -> SSAValue:
        return b.select(condition, x, y)


@torch_op
class AtenWhereSelfOp(_Where, ElementwiseOp):
    """`self` where `condition`, else `other`, all three broadcast (`torch.where(c, a, b)`)."""

    name = "torch.aten.where.self"
    SCHEMA = "aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor"
    SAMPLES = (
        Sample(Tn((3, 4), "bool"), Tn((3, 4)), Tn((4,))),
        Sample(Tn((3, 1), "bool"), Tn((1, 4), "int32"), Tn((3, 4), "float64")),
    )
    condition = operand_def(ValueTensorType)
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenWhereScalarSelfOp(_Where, ElementwiseOp):
    """`torch.where(condition, number, tensor)`."""

    name = "torch.aten.where.ScalarSelf"
    SCHEMA = "aten::where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor"
    SAMPLES = (Sample(Tn((2, 3), "bool"), 1.5, Tn((3,), "int64")),)
    condition = operand_def(ValueTensorType)
    self_ = operand_def(ScalarOperand)
    other = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenWhereScalarOtherOp(_Where, ElementwiseOp):
    """`torch.where(condition, tensor, number)`, e.g. masking with `float("-inf")`."""

    name = "torch.aten.where.ScalarOther"
    SCHEMA = "aten::where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor"
    SAMPLES = (
        Sample(Tn((3, 4), "bool"), Tn((3, 4)), float("-inf")),
        Sample(Tn((4,), "bool"), Tn((2, 4), "int32"), 2),
    )
    condition = operand_def(ValueTensorType)
    self_ = operand_def(ValueTensorType)
    other = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenWhereScalarOp(_Where, ElementwiseOp):
    """`torch.where(condition, number, number)`: int64, float32 or bool like the numbers."""

    name = "torch.aten.where.Scalar"
    SCHEMA = "aten::where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor"
    SAMPLES = (Sample(Tn((3, 4), "bool"), 1.0, 0), Sample(Tn((5,), "bool"), 3, -1))
    condition = operand_def(ValueTensorType)
    self_ = operand_def(ScalarOperand)
    other = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


class _MaskedFill:
    """`value` where `mask`, else `self`; the result keeps self's dtype (value is cast)."""

    PY_NAMES = ("torch.masked_fill", "Tensor.masked_fill")
    DTYPE_ARGS = ("self",)
    RAW_ARGS = ("mask",)

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        named = cls.named_args(args)  # type: ignore[attr-defined]
        _require_bool(named.get("mask"), "masked_fill: the mask")
        value = named.get("value")
        if isinstance(value, TensorMeta) and value.rank not in (None, 0):
            raise ShapeError(
                "masked_fill only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.rank} dimension(s)"
            )
        return super().compute_dtype(args)  # type: ignore[misc]

    @staticmethod
    def eager(x: Any, mask: Any, value: Any) -> Any:
        return np.where(mask, value, x)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, mask: SSAValue, value: SSAValue) -> SSAValue:
        return b.select(mask, value, x)


@torch_op
class AtenMaskedFillScalarOp(_MaskedFill, ElementwiseOp):
    """`self` with a Python number where `mask` is true (`x.masked_fill(mask, -inf)`)."""

    name = "torch.aten.masked_fill.Scalar"
    SCHEMA = "aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor"
    SAMPLES = (
        Sample(Tn((3, 4)), Tn((4,), "bool"), float("-inf")),
        Sample(Tn((3, 1), "int64"), Tn((1, 4), "bool"), 1.5),
    )
    self_ = operand_def(ValueTensorType)
    mask = operand_def(ValueTensorType)
    value = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenMaskedFillTensorOp(_MaskedFill, ElementwiseOp):
    """`self` with a 0-d tensor's value where `mask` is true."""

    name = "torch.aten.masked_fill.Tensor"
    SCHEMA = "aten::masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor"
    SAMPLES = (Sample(Tn((2, 3), "float64"), Tn((2, 3), "bool"), Tn((), "int64")),)
    self_ = operand_def(ValueTensorType)
    mask = operand_def(ValueTensorType)
    value = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


def _bits(x: SSAValue) -> int:
    return x.type.width.data  # type: ignore[attr-defined,no-any-return]


def _out_of_range(b: ScalarBuilder, n: SSAValue, limit: int) -> SSAValue:
    """`n < 0 or n >= limit`."""
    return b.or_(b.cmp("lt", n, b.const(0, n)), b.cmp("ge", n, b.const(limit, n)))


def shift_left(b: ScalarBuilder, x: SSAValue, n: SSAValue) -> SSAValue:
    """`x << n`, 0 for a count outside [0, bits) (torch's lshift kernel)."""
    bad = _out_of_range(b, n, _bits(x))
    shifted = b.emit(arith.ShLIOp(x, b.select(bad, b.const(0, n), n)))
    return b.select(bad, b.const(0, x), shifted)


def shift_right(b: ScalarBuilder, x: SSAValue, n: SSAValue) -> SSAValue:
    """Arithmetic `x >> n`; a count outside [0, bits - 1) shifts by bits - 1 (the sign)."""
    limit = _bits(x) - 1
    return b.emit(arith.ShRSIOp(x, b.select(_out_of_range(b, n, limit), b.const(limit, n), n)))


def eager_left(x: Any, n: Any) -> Any:
    x, n = np.asarray(x), np.asarray(n)
    bits = x.dtype.itemsize * 8
    bad = (n < 0) | (n >= bits)
    shifted = np.left_shift(x, np.where(bad, 0, n).astype(x.dtype))
    return np.where(bad, 0, shifted).astype(x.dtype)


def eager_right(x: Any, n: Any) -> Any:
    x, n = np.asarray(x), np.asarray(n)
    limit = x.dtype.itemsize * 8 - 1
    return np.right_shift(x, np.where((n < 0) | (n >= limit), limit, n).astype(x.dtype))


def _shift_ops(
    stem: str,
    operator_name: str,
    eager_fn: Callable[[Any, Any], Any],
    payload_fn: Callable[[ScalarBuilder, SSAValue, SSAValue], SSAValue],
) -> tuple[Any, Any, Any]:
    """The Tensor, Tensor_Scalar and Scalar_Tensor forms of one shift."""
    aten = f"bitwise_{stem}_shift"
    names = (f"torch.{aten}", f"Tensor.{aten}", f"operator.{operator_name}")
    title = f"AtenBitwise{stem.title()}Shift"

    class _Shift:
        REJECTS = ("float", "bool")
        eager = staticmethod(eager_fn)
        payload = staticmethod(payload_fn)

    @torch_op
    class TensorForm(_Shift, BinaryOp):
        __doc__ = f"`x {operator_name} n` of integer tensors, broadcast (`torch.{aten}`)."
        __qualname__ = f"{title}TensorOp"
        name = f"torch.aten.{aten}.Tensor"
        SCHEMA = f"aten::{aten}.Tensor(Tensor self, Tensor other) -> Tensor"
        PY_NAMES = (*names, f"np.{stem}_shift")
        SAMPLES = (Sample(Tn((3, 4), "int64", -99, 99), Tn((4,), "int64", -2, 66)),)

    @torch_op
    class TensorScalarForm(_Shift, BinaryScalarOp):
        __doc__ = f"`x {operator_name} 3`: an integer tensor shifted by a Python int."
        __qualname__ = f"{title}TensorScalarOp"
        name = f"torch.aten.{aten}.Tensor_Scalar"
        SCHEMA = f"aten::{aten}.Tensor_Scalar(Tensor self, Scalar other) -> Tensor"
        PY_NAMES = names
        SAMPLES = (Sample(Tn((6,), "int64", -99, 99), 3),)

    @torch_op
    class ScalarTensorForm(_Shift, ElementwiseOp):
        __doc__ = f"`1 {operator_name} n`: a Python int shifted by an integer tensor."
        __qualname__ = f"{title}ScalarTensorOp"
        name = f"torch.aten.{aten}.Scalar_Tensor"
        SCHEMA = f"aten::{aten}.Scalar_Tensor(Scalar self, Tensor other) -> Tensor"
        PY_NAMES = (f"torch.{aten}",)
        SAMPLES = (Sample(-5, Tn((6,), "int32", -1, 34)),)
        self_ = operand_def(ScalarOperand)
        other = operand_def(ValueTensorType)
        result = result_def(ValueTensorType)

    for op in (TensorForm, TensorScalarForm, ScalarTensorForm):
        op.__name__ = op.__qualname__
    return TensorForm, TensorScalarForm, ScalarTensorForm


(AtenBitwiseLeftShiftTensorOp, AtenBitwiseLeftShiftTensorScalarOp,
 AtenBitwiseLeftShiftScalarTensorOp) = _shift_ops("left", "lshift", eager_left, shift_left)  # fmt: skip


(AtenBitwiseRightShiftTensorOp, AtenBitwiseRightShiftTensorScalarOp,
 AtenBitwiseRightShiftScalarTensorOp) = _shift_ops("right", "rshift", eager_right, shift_right)  # fmt: skip


def _int_shift(aten: str, py_name: str, python_fn: Any, payload_fn: Any) -> type[ScalarOp]:
    @torch_op
    class Op(ScalarOp):
        __doc__ = (
            f"`a {py_name} b` on Python ints known at run time (TorchScript `aten::{aten}`); "
            "a count outside [0, 64) follows torch's tensor rule instead of raising."
        )
        __qualname__ = f"Aten{py_name.title()}IntOp"
        name = f"torch.aten.{aten}"
        SCHEMA = f"aten::{aten}(int a, int b) -> int"
        PY_NAMES = (f"operator.{py_name}",)
        SAMPLES = (Sample(-7, 3),)
        RESULT = "int"
        a = operand_def(IntType)
        b = operand_def(IntType)
        result = result_def(IntType)
        eager = staticmethod(lambda a, b: int(python_fn(np.int64(a), np.int64(b))))
        payload = staticmethod(payload_fn)

    Op.__name__ = Op.__qualname__
    return Op


AtenLshiftIntOp = _int_shift("__lshift__.int", "lshift", eager_left, shift_left)


AtenRshiftIntOp = _int_shift("__rshift__.int", "rshift", eager_right, shift_right)


OPS = (
    AtenLogicalAndOp,
    AtenLogicalOrOp,
    AtenLogicalXorOp,
    AtenLogicalNotOp,
    AtenBitwiseAndTensorOp,
    AtenBitwiseAndScalarOp,
    AtenBitwiseOrTensorOp,
    AtenBitwiseOrScalarOp,
    AtenBitwiseXorTensorOp,
    AtenBitwiseXorScalarOp,
    AtenBitwiseNotOp,
    AtenWhereSelfOp,
    AtenWhereScalarSelfOp,
    AtenWhereScalarOtherOp,
    AtenWhereScalarOp,
    AtenMaskedFillScalarOp,
    AtenMaskedFillTensorOp,
    AtenBitwiseLeftShiftTensorOp,
    AtenBitwiseLeftShiftTensorScalarOp,
    AtenBitwiseLeftShiftScalarTensorOp,
    AtenBitwiseRightShiftTensorOp,
    AtenBitwiseRightShiftTensorScalarOp,
    AtenBitwiseRightShiftScalarTensorOp,
    AtenLshiftIntOp,
    AtenRshiftIntOp,
)
