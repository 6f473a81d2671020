"""Filling a tensor with one value: `x.fill_(v)` / `torch.fill(x, v)` (a Python number or a
0-d tensor, cast to x's dtype) and `x.zero_()`. In scripts the in-place spellings update a
plain variable with the functional op's result (frontend/script/tensor_methods.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import DType
from dialects.torch.families import ElementwiseOp, ScalarOperand, UnaryOp
from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import ValueTensorType


class _Fill:
    """`value` everywhere, in self's dtype (a float into an int tensor truncates, like torch)."""

    PY_NAMES = ("torch.fill", "Tensor.fill")
    DTYPE_ARGS = ("self",)
    IN_PLACE = True  # `x.fill_(v)`: the result written back

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        value = cls.named_args(args).get("value")  # type: ignore[attr-defined]
        if isinstance(value, TensorMeta) and value.rank not in (None, 0):
            raise ShapeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.rank} dimensions."
            )
        return super().compute_dtype(args)  # type: ignore[misc]

    @classmethod
    def infer(cls, *args: Any) -> list[Any]:
        return [ValueTensorType(args[0].shape, cls.compute_dtype(args))]

    @staticmethod
    def eager(x: Any, value: Any) -> Any:
        return np.full(x.shape, value, dtype=x.dtype)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, value: SSAValue) -> SSAValue:
        return value


@torch_op
class AtenFillScalarOp(_Fill, ElementwiseOp):
    """`x.fill_(1.5)`, `torch.fill(x, 2)`: x's shape and dtype, every element `value`."""

    name = "torch.aten.fill.Scalar"
    SCHEMA = "aten::fill.Scalar(Tensor self, Scalar value) -> Tensor"
    SAMPLES = (Sample(Tn((5,), "int64", -3, 3), 2.7),)
    self_ = operand_def(ValueTensorType)
    value = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenFillTensorOp(_Fill, ElementwiseOp):
    """`x.fill_(t)` with a 0-d tensor `t` (other ranks are torch's RuntimeError)."""

    name = "torch.aten.fill.Tensor"
    SCHEMA = "aten::fill.Tensor(Tensor self, Tensor value) -> Tensor"
    SAMPLES = (Sample(Tn((2, 3), "float64"), Tn((), "int64")),)
    self_ = operand_def(ValueTensorType)
    value = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenZeroOp(UnaryOp):
    """`x.zero_()`: x's shape and dtype, all zeros (`Tensor.zero` is the functional form)."""

    name = "torch.aten.zero"
    SCHEMA = "aten::zero(Tensor self) -> Tensor"
    PY_NAMES = ("Tensor.zero",)
    IN_PLACE = True
    SAMPLES = (Sample(Tn((4,), "bool")),)

    @staticmethod
    def eager(x: Any) -> Any:
        return np.zeros_like(x)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.const(0, x)


OPS = (AtenFillScalarOp, AtenFillTensorOp, AtenZeroOp)
