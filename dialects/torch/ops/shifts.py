"""Bit shifts: `x << n` / `x >> n` (`torch.bitwise_left_shift` / `bitwise_right_shift`,
`Tensor.__lshift__` / `__rshift__`) on integer tensors, and `a << b` on Python ints known at
run time (TorchScript `aten::__lshift__.int`).

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

from dialects.torch.families import BinaryOp, BinaryScalarOp, ElementwiseOp, ScalarOperand
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.scalar import ScalarOp
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import IntType, ValueTensorType


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
    AtenBitwiseLeftShiftTensorOp, AtenBitwiseLeftShiftTensorScalarOp,
    AtenBitwiseLeftShiftScalarTensorOp, AtenBitwiseRightShiftTensorOp,
    AtenBitwiseRightShiftTensorScalarOp, AtenBitwiseRightShiftScalarTensorOp,
    AtenLshiftIntOp, AtenRshiftIntOp,
)  # fmt: skip
