"""`beta * self + alpha * product` ops: addmv, addr, baddbmm and addbmm. Each decomposes into
its product (mv, outer, bmm, bmm summed over the batch) and `mul` / `add` (self is ignored when
beta is 0, as in torch; self broadcasts to the product's shape).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import DType, dtype_of_numpy, promote
from dialects.torch.meta import TensorMeta
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.elementwise import AtenAddTensorOp, AtenMulScalarOp
from dialects.torch.ops.linear import AtenBmmOp, AtenMmOp, check_expandable
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.products import AtenMvOp, AtenOuterOp
from dialects.torch.ops.reduction import AtenSumDimIntListOp
from dialects.torch.types import BoolType, FloatType, IntType, ValueTensorType

ScalarOperand = IntType | FloatType | BoolType


def scaled_sum(seq: OpSequence, bias: SSAValue, product: SSAValue, beta: Any, alpha: Any) -> None:
    """`beta * bias + alpha * product` (`bias` ignored when beta is 0)."""
    if arg_value(beta) == 0:
        if arg_value(alpha) != 1:
            seq.call(AtenMulScalarOp, product, alpha)
        return
    if arg_value(beta) != 1:
        bias = seq.call(AtenMulScalarOp, bias, beta)
    seq.call(AtenAddTensorOp, bias, product, alpha)


class _AddProductOp(TorchOp):
    """`beta * self + alpha * PRODUCT(a, b)`; self broadcasts to the product's shape."""

    PRODUCT = AtenMmOp

    @classmethod
    def product_type(cls, a: TensorMeta, b: TensorMeta) -> ValueTensorType:
        (typ,) = cls.PRODUCT.infer(a, b)
        assert isinstance(typ, ValueTensorType)
        return typ

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        bias, a, b = args[:3]
        product = cls.product_type(a, b)
        if bias.shape is not None and product.sizes is not None:
            check_expandable(cls.name.removeprefix("torch.aten."), bias.shape, product.sizes)
        return [ValueTensorType(product.sizes, cls.result_dtype(bias.dtype, product.element))]

    @classmethod
    def result_dtype(cls, bias: DType | None, product: DType | None) -> DType | None:
        """The product's: the matrix products want one dtype (torch's check)."""
        if None not in (bias, product) and bias != product:
            raise TypeError(
                f"{cls.name.removeprefix('torch.aten.')}: expected self and the product to "
                f"have the same dtype, got {bias.name} and {product.name}"  # type: ignore[union-attr]
            )
        return product

    @classmethod
    def product_eager(cls, a: Any, b: Any) -> Any:
        return np.matmul(a, b)

    @classmethod
    def eager(cls, bias: Any, a: Any, b: Any, beta: Any = 1, alpha: Any = 1) -> Any:
        scalar = bias.dtype.type
        product = scalar(alpha) * cls.product_eager(a, b)
        return product if beta == 0 else scalar(beta) * bias + product

    def decompose(self) -> Any:
        bias, a, b, beta, alpha = self.operands
        seq = OpSequence()
        product = self.build_product(seq, a, b)
        if product is None:
            return None
        scaled_sum(seq, bias, product, beta, alpha)
        return seq.ops

    def build_product(self, seq: OpSequence, a: SSAValue, b: SSAValue) -> SSAValue | None:
        return seq.call(self.PRODUCT, a, b)


@torch_op
class AtenAddmvOp(_AddProductOp):
    """`torch.addmv(self, mat, vec, beta=1, alpha=1)`."""

    name = "torch.aten.addmv"
    SCHEMA = (
        "aten::addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) "
        "-> Tensor"
    )
    PY_NAMES = ("torch.addmv", "Tensor.addmv")
    SAMPLES = (Sample(Tn((3,)), Tn((3, 4)), Tn((4,))),
               Sample(Tn((1,)), Tn((2, 3)), Tn((3,)), beta=0.5, alpha=2.0))  # fmt: skip
    PRODUCT = AtenMvOp
    self_ = operand_def(ValueTensorType)
    mat = operand_def(ValueTensorType)
    vec = operand_def(ValueTensorType)
    beta = operand_def(ScalarOperand)
    alpha = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenAddrOp(_AddProductOp):
    """`torch.addr(self, vec1, vec2, beta=1, alpha=1)`: `beta * self + alpha * outer`."""

    name = "torch.aten.addr"
    SCHEMA = (
        "aten::addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) "
        "-> Tensor"
    )
    PY_NAMES = ("torch.addr", "Tensor.addr")
    SAMPLES = (
        Sample(Tn((3, 4)), Tn((3,)), Tn((4,)), beta=2.0),
        Sample(Tn((3, 3), "float64"), Tn((3,), "int32"), Tn((3,), "int32")),
    )
    PRODUCT = AtenOuterOp
    self_ = operand_def(ValueTensorType)
    vec1 = operand_def(ValueTensorType)
    vec2 = operand_def(ValueTensorType)
    beta = operand_def(ScalarOperand)
    alpha = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def product_eager(cls, a: Any, b: Any) -> Any:
        return np.multiply.outer(a, b)

    @classmethod
    def result_dtype(cls, bias: DType | None, product: DType | None) -> DType | None:
        """Unlike the matrix products, torch's addr promotes: `self` and the outer product
        may differ in dtype (an int64 `self` and float32 vectors give float32)."""
        return None if bias is None or product is None else promote(bias, product)

    @classmethod
    def eager(cls, bias: Any, a: Any, b: Any, beta: Any = 1, alpha: Any = 1) -> Any:
        vectors = promote(dtype_of_numpy(a.dtype), dtype_of_numpy(b.dtype))
        scalar = promote(dtype_of_numpy(bias.dtype), vectors).numpy.type
        product = scalar(alpha) * cls.product_eager(a, b).astype(scalar)
        return product if beta == 0 else scalar(beta) * bias.astype(scalar) + product


@torch_op
class AtenBaddbmmOp(_AddProductOp):
    """`torch.baddbmm(self, batch1, batch2, beta=1, alpha=1)`: `beta * self + alpha * bmm`."""

    name = "torch.aten.baddbmm"
    SCHEMA = (
        "aten::baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, "
        "Scalar alpha=1) -> Tensor"
    )
    PY_NAMES = ("torch.baddbmm", "Tensor.baddbmm")
    SAMPLES = (Sample(Tn((2, 3, 4)), Tn((2, 3, 5)), Tn((2, 5, 4)), beta=0.5, alpha=2.0),
               Sample(Tn((4,), "float64"), Tn((2, 3, 2), "float64"), Tn((2, 2, 4), "float64")))  # fmt: skip
    PRODUCT = AtenBmmOp
    self_ = operand_def(ValueTensorType)
    batch1 = operand_def(ValueTensorType)
    batch2 = operand_def(ValueTensorType)
    beta = operand_def(ScalarOperand)
    alpha = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenAddbmmOp(_AddProductOp):
    """`torch.addbmm(self, batch1, batch2, beta=1, alpha=1)`: `beta * self + alpha *
    bmm(batch1, batch2).sum(0)`."""

    name = "torch.aten.addbmm"
    SCHEMA = (
        "aten::addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, "
        "Scalar alpha=1) -> Tensor"
    )
    PY_NAMES = ("torch.addbmm", "Tensor.addbmm")
    SAMPLES = (Sample(Tn((3, 4)), Tn((2, 3, 5)), Tn((2, 5, 4)), alpha=0.5),)
    PRODUCT = AtenBmmOp
    self_ = operand_def(ValueTensorType)
    batch1 = operand_def(ValueTensorType)
    batch2 = operand_def(ValueTensorType)
    beta = operand_def(ScalarOperand)
    alpha = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def product_type(cls, a: TensorMeta, b: TensorMeta) -> ValueTensorType:
        (typ,) = AtenBmmOp.infer(a, b)
        assert isinstance(typ, ValueTensorType)
        return ValueTensorType(None if typ.sizes is None else typ.sizes[1:], typ.element)

    @classmethod
    def product_eager(cls, a: Any, b: Any) -> Any:
        return np.matmul(a, b).sum(0)

    def build_product(self, seq: OpSequence, a: SSAValue, b: SSAValue) -> SSAValue | None:
        return seq.call(AtenSumDimIntListOp, seq.call(AtenBmmOp, a, b), [0], False, None)


OPS = (AtenAddmvOp, AtenAddrOp, AtenBaddbmmOp, AtenAddbmmOp)
