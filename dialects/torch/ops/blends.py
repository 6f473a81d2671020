"""Ternary blends: lerp (Scalar and Tensor weight), addcmul and addcdiv, lowered from their
payloads with torch's broadcasting and type promotion."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import DType
from dialects.torch.families import ElementwiseOp, ScalarOperand
from dialects.torch.meta import TensorMeta
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.math_functions import float_only
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import ValueTensorType


def lerp(start: Any, end: Any, weight: Any) -> Any:
    """torch's two-sided formula (exact at weight 0 and 1)."""
    diff = end - start
    return np.where(np.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))


class _Lerp:
    PY_NAMES = ("torch.lerp", "Tensor.lerp")

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        named = cls.named_args(args)  # type: ignore[attr-defined]
        dtypes = {n: v.dtype for n, v in named.items() if isinstance(v, TensorMeta)}
        if None not in dtypes.values():
            first = dtypes["self"]
            for name, dtype in dtypes.items():
                if dtype != first:
                    raise TypeError(
                        f"expected dtype {_torch_type(first)} for `{name}` but got dtype "
                        f"{_torch_type(dtype)}"
                    )
        return float_only("lerp_kernel_scalar", super().compute_dtype(args))  # type: ignore[misc]

    @staticmethod
    def eager(start: Any, end: Any, weight: Any) -> Any:
        return lerp(start, end, weight)

    @staticmethod
    def payload(b: ScalarBuilder, start: SSAValue, end: SSAValue, weight: SSAValue) -> SSAValue:
        diff = b.sub(end, start)
        low = b.add(start, b.mul(weight, diff))
        high = b.sub(end, b.mul(diff, b.sub(b.const(1.0, weight), weight)))
        return b.select(b.cmp("lt", b.abs(weight), b.const(0.5, weight)), low, high)


def _torch_type(dtype: DType) -> str:
    return {"float32": "float", "float64": "double", "int64": "long", "int32": "int",
            "bool": "bool"}[dtype.name]  # fmt: skip


@torch_op
class AtenLerpScalarOp(_Lerp, ElementwiseOp):
    """`self + weight * (end - self)` for a Python number weight; floating point only, self
    and end of one dtype (`torch.lerp`)."""

    name = "torch.aten.lerp.Scalar"
    SCHEMA = "aten::lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor"
    DTYPE_ARGS = ("self", "end")
    SAMPLES = (
        Sample(Tn((3, 4)), Tn((4,)), 0.3),
        Sample(Tn((5,), "float64"), Tn((5,), "float64"), 0.75),
    )
    self_ = operand_def(ValueTensorType)
    end = operand_def(ValueTensorType)
    weight = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenLerpTensorOp(_Lerp, ElementwiseOp):
    """`self + weight * (end - self)` with a broadcast weight tensor (`torch.lerp`)."""

    name = "torch.aten.lerp.Tensor"
    SCHEMA = "aten::lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor"
    DTYPE_ARGS = ("self", "end", "weight")
    SAMPLES = (Sample(Tn((3, 4)), Tn((3, 4)), Tn((4,), low=-0.5, high=1.5)),)
    self_ = operand_def(ValueTensorType)
    end = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


class _AddcOp(ElementwiseOp):
    """`self + value * (tensor1 <op> tensor2)`, broadcast and promoted together."""

    DTYPE_ARGS = ("self", "tensor1", "tensor2")
    self_ = operand_def(ValueTensorType)
    tensor1 = operand_def(ValueTensorType)
    tensor2 = operand_def(ValueTensorType)
    value = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenAddcmulOp(_AddcOp):
    """`self + value * tensor1 * tensor2` (`torch.addcmul`)."""

    name = "torch.aten.addcmul"
    SCHEMA = ("aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) "
              "-> Tensor")  # fmt: skip
    PY_NAMES = ("torch.addcmul", "Tensor.addcmul")
    REJECTS = ("bool",)
    SAMPLES = (Sample(Tn((3, 4)), Tn((4,)), Tn((3, 1)), value=0.5),
               Sample(Tn((5,), "int64"), Tn((5,), "int64"), Tn((5,), "int64"), value=3))  # fmt: skip

    @staticmethod
    def eager(x: Any, t1: Any, t2: Any, value: Any = 1) -> Any:
        return x + value * t1 * t2

    @staticmethod
    def payload(
        b: ScalarBuilder, x: SSAValue, t1: SSAValue, t2: SSAValue, value: SSAValue
    ) -> SSAValue:
        return b.add(x, b.mul(b.mul(value, t1), t2))


@torch_op
class AtenAddcdivOp(_AddcOp):
    """`self + value * tensor1 / tensor2`; floating point only (`torch.addcdiv`)."""

    name = "torch.aten.addcdiv"
    SCHEMA = ("aten::addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) "
              "-> Tensor")  # fmt: skip
    PY_NAMES = ("torch.addcdiv", "Tensor.addcdiv")
    SAMPLES = (Sample(Tn((3, 4)), Tn((4,)), Tn((3, 1), low=0.5, high=2.0), value=-0.5),)

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        dtype = super().compute_dtype(args)
        if dtype is not None and not dtype.is_float:
            raise TypeError(
                "Integer division with addcdiv is no longer supported, and in a future "
                "release addcdiv will perform a true division of tensor1 and tensor2. The "
                "historic addcdiv behavior can be implemented as (input + value * "
                "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                "behavior is just the latter implementation: (input + value * tensor1 / "
                "tensor2), for all dtypes."
            )
        return dtype

    @staticmethod
    def eager(x: Any, t1: Any, t2: Any, value: Any = 1) -> Any:
        with np.errstate(divide="ignore", invalid="ignore"):
            return x + value * (t1 / t2)

    @staticmethod
    def payload(
        b: ScalarBuilder, x: SSAValue, t1: SSAValue, t2: SSAValue, value: SSAValue
    ) -> SSAValue:
        return b.add(x, b.mul(value, b.div(t1, t2)))


OPS = (
    AtenLerpScalarOp,
    AtenLerpTensorOp,
    AtenAddcmulOp,
    AtenAddcdivOp,
)
