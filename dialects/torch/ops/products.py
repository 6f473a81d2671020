"""Products built from matmul and elementwise ops: outer / ger, dot, vdot, inner, mv, kron,
cross, and the `beta * self + alpha * product` forms addmv, addr, baddbmm, addbmm.

All decompose (`torch-decompose`): the products into matmul, kron into a broadcasting
multiply and a view, cross into rolls (`a.roll(-1) * b.roll(-2) - ...`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import DType, dtype_of_numpy, promote
from dialects.torch.meta import ShapeError, TensorMeta, broadcast_shapes, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import (
    AtenAddTensorOp,
    AtenMulScalarOp,
    AtenMulTensorOp,
    AtenSubTensorOp,
)
from dialects.torch.ops.linear import AtenBmmOp, AtenMatmulOp, AtenMmOp, check_expandable
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.reduction import AtenSumDimIntListOp
from dialects.torch.ops.reorder import AtenRollOp
from dialects.torch.ops.views import AtenTransposeIntOp, AtenUnsqueezeOp, AtenViewOp
from dialects.torch.types import DYN, BoolType, FloatType, IntType, NoneType, ValueTensorType

ScalarOperand = IntType | FloatType | BoolType


def _rank_must_be(op_name: str, what: str, x: TensorMeta, rank: int) -> None:
    if x.rank is not None and x.rank != rank:
        raise ShapeError(f"{op_name}: {what} must be a {rank}D tensor, got {x.rank}D")


@torch_op
class AtenOuterOp(TorchOp):
    """`torch.outer(a, b)` / `torch.ger`: `a[i] * b[j]` for 1-D a and b (dtypes promote)."""

    name = "torch.aten.outer"
    SCHEMA = "aten::outer(Tensor self, Tensor vec2) -> Tensor"
    PY_NAMES = ("torch.outer", "Tensor.outer", "torch.ger", "Tensor.ger")
    SAMPLES = (Sample(Tn((3,)), Tn((4,))), Sample(Tn((2,), "int64"), Tn((3,), "int64")))
    self_ = operand_def(ValueTensorType)
    vec2 = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        a, b = args
        _rank_must_be("outer", "self", a, 1)
        _rank_must_be("outer", "vec2", b, 1)
        column = TensorMeta(None if a.shape is None else (*a.shape, 1), a.dtype)
        return AtenMulTensorOp.infer(column, b)

    @staticmethod
    def eager(a: Any, b: Any) -> Any:
        return np.multiply.outer(a, b)

    def decompose(self) -> Any:
        seq = OpSequence()
        column = seq.call(AtenUnsqueezeOp, self.self_, 1)
        seq.call(AtenMulTensorOp, column, self.vec2)
        return seq.ops


class _DotOp(TorchOp):
    """dot / vdot: the sum of `a[i] * b[i]` for 1-D a and b of one dtype, a 0-d tensor."""

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        a, b = args
        op_name = cls.name.removeprefix("torch.aten.")
        _rank_must_be(op_name, "1st argument", a, 1)
        _rank_must_be(op_name, "2nd argument", b, 1)
        if a.dtype is not None and b.dtype is not None and a.dtype != b.dtype:
            raise TypeError(
                f"{op_name} : expected both vectors to have same dtype, but found "
                f"{a.dtype.name} and {b.dtype.name}"
            )
        sizes = (a.shape or (DYN,))[:1] + (b.shape or (DYN,))[:1]
        if DYN not in sizes and sizes[0] != sizes[1]:
            raise ShapeError(
                f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                f"[{b.shape[0]}] to have the same number of elements, but got "
                f"{a.shape[0]} and {b.shape[0]} elements respectively"
            )
        return AtenMatmulOp.infer(a, b)

    @staticmethod
    def eager(a: Any, b: Any) -> Any:
        return np.asarray(np.dot(a, b))

    def decompose(self) -> Any:
        seq = OpSequence()
        seq.call(AtenMatmulOp, *self.operands)
        return seq.ops


@torch_op
class AtenDotOp(_DotOp):
    """`torch.dot(a, b)`."""

    name = "torch.aten.dot"
    SCHEMA = "aten::dot(Tensor self, Tensor tensor) -> Tensor"
    PY_NAMES = ("torch.dot", "Tensor.dot")
    SAMPLES = (Sample(Tn((5,)), Tn((5,))), Sample(Tn((3,), "int64"), Tn((3,), "int64")))
    self_ = operand_def(ValueTensorType)
    tensor = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenVdotOp(_DotOp):
    """`torch.vdot(a, b)`: `dot` (the conjugate of a real tensor is itself)."""

    name = "torch.aten.vdot"
    SCHEMA = "aten::vdot(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("torch.vdot", "Tensor.vdot")
    SAMPLES = (Sample(Tn((4,), "float64"), Tn((4,), "float64")),)
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenInnerOp(TorchOp):
    """`torch.inner(a, b)`: sums `a[..., k] * b[..., k]` over the last dims; the result has
    shape `a.shape[:-1] + b.shape[:-1]` (a 0-d operand multiplies)."""

    name = "torch.aten.inner"
    SCHEMA = "aten::inner(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("torch.inner", "Tensor.inner")
    SAMPLES = (Sample(Tn((2, 4)), Tn((3, 4))), Sample(Tn((2, 3), "int64"), Tn((2, 2, 3), "int64")))
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        a, b = args
        if a.rank == 0 or b.rank == 0:
            return AtenMulTensorOp.infer(a, b)
        (typ,) = AtenMatmulOp.infer(TensorMeta(None, a.dtype), TensorMeta(None, b.dtype))
        if a.shape is None or b.shape is None:
            return [typ]
        if DYN not in (a.shape[-1], b.shape[-1]) and a.shape[-1] != b.shape[-1]:
            raise ShapeError(
                f"inner() the last dimension must match on both input tensors but got shapes "
                f"{list(a.shape)} and {list(b.shape)}"
            )
        assert isinstance(typ, ValueTensorType)
        return [ValueTensorType((*a.shape[:-1], *b.shape[:-1]), typ.element)]

    @staticmethod
    def eager(a: Any, b: Any) -> Any:
        return np.asarray(np.inner(a, b))

    def decompose(self) -> Any:
        """`matmul(a, b2.t())` with b2 = b as a matrix of rows, viewed back to the result."""
        a, b = self.operands
        rank_a, rank_b = known_rank(a), known_rank(b)
        if rank_a is None or rank_b is None:
            return None
        seq = OpSequence()
        if rank_a == 0 or rank_b == 0:
            seq.call(AtenMulTensorOp, a, b)
            return seq.ops
        if rank_b == 1:
            seq.call(AtenMatmulOp, a, b)
            return seq.ops
        rows = seq.call(AtenViewOp, b, [-1, seq.size(b, rank_b - 1)])
        product = seq.call(AtenMatmulOp, a, seq.call(AtenTransposeIntOp, rows, 0, 1))
        seq.call(AtenViewOp, product, [*seq.sizes(a)[:-1], *seq.sizes(b)[:-1]])
        return seq.ops


@torch_op
class AtenMvOp(TorchOp):
    """`torch.mv(mat, vec)`: matrix (n x m) times vector (m), a vector (n)."""

    name = "torch.aten.mv"
    SCHEMA = "aten::mv(Tensor self, Tensor vec) -> Tensor"
    PY_NAMES = ("torch.mv", "Tensor.mv")
    SAMPLES = (Sample(Tn((3, 4)), Tn((4,))), Sample(Tn((2, 3), "int64"), Tn((3,), "int64")))
    self_ = operand_def(ValueTensorType)
    vec = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        mat, vec = args
        if mat.rank is not None and vec.rank is not None and (mat.rank, vec.rank) != (2, 1):
            raise ShapeError(f"vector + matrix @ vector expected, got 1, {mat.rank}, {vec.rank}")
        return AtenMatmulOp.infer(mat, vec)

    @staticmethod
    def eager(mat: Any, vec: Any) -> Any:
        return mat @ vec

    def decompose(self) -> Any:
        seq = OpSequence()
        seq.call(AtenMatmulOp, *self.operands)
        return seq.ops


@torch_op
class AtenKronOp(TorchOp):
    """`torch.kron(a, b)`: the Kronecker product; the lower-rank operand gains leading size-1
    dims, and result dim d has size `a.shape[d] * b.shape[d]`."""

    name = "torch.aten.kron"
    SCHEMA = "aten::kron(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("torch.kron", "Tensor.kron")
    SAMPLES = (Sample(Tn((2, 3)), Tn((2, 2))), Sample(Tn((2,), "int64"), Tn((2, 3), "int64")))
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        a, b = args
        (typ,) = AtenMulTensorOp.infer(TensorMeta((), a.dtype), TensorMeta((), b.dtype))
        assert isinstance(typ, ValueTensorType)
        if a.shape is None or b.shape is None:
            return [ValueTensorType(None, typ.element)]
        rank = max(len(a.shape), len(b.shape))
        sa = (1,) * (rank - len(a.shape)) + a.shape
        sb = (1,) * (rank - len(b.shape)) + b.shape
        shape = tuple(DYN if DYN in (x, y) else x * y for x, y in zip(sa, sb))
        return [ValueTensorType(shape, typ.element)]

    @staticmethod
    def eager(a: Any, b: Any) -> Any:
        return np.kron(a, b)

    def decompose(self) -> Any:
        """`a` as (a0, 1, a1, 1, ...) times `b` as (b0, b1, ...) interleaved, then merged."""
        a, b = self.operands
        rank_a, rank_b = known_rank(a), known_rank(b)
        if rank_a is None or rank_b is None:
            return None
        rank = max(rank_a, rank_b)
        seq = OpSequence()
        sa = [1] * (rank - rank_a) + seq.sizes(a)
        sb = [1] * (rank - rank_b) + seq.sizes(b)
        spread_a = seq.call(AtenViewOp, a, [s for d in sa for s in (d, 1)])
        spread_b = seq.call(AtenViewOp, b, [s for d in sb for s in (1, d)])
        product = seq.call(AtenMulTensorOp, spread_a, spread_b)
        seq.call(AtenViewOp, product, _merged_sizes(seq, product, rank))
        return seq.ops


def _merged_sizes(seq: OpSequence, product: SSAValue, rank: int) -> list[Any]:
    """The sizes of `product` (rank 2 * rank) with each pair of dims merged."""
    from dialects.torch.ops.scalars import AtenMulIntOp

    sizes = seq.sizes(product)
    merged: list[Any] = []
    for d in range(rank):
        x, y = sizes[2 * d], sizes[2 * d + 1]
        merged.append(
            x * y if isinstance(x, int) and isinstance(y, int) else seq.call(AtenMulIntOp, x, y)
        )
    return merged


def cross_dim(a: TensorMeta, b: TensorMeta, dim: Any) -> int | None:
    """The non-negative dim of the 3-vectors: `dim`, or (None) the first dim of size 3."""
    if a.shape is None or b.shape is None:
        return None
    if dim is None:
        for d, n in enumerate(broadcast_shapes([a.shape, b.shape]) or ()):
            if n == 3:
                return d
            if n == DYN:
                raise TypeError(
                    "cross: without `dim` the first dim of size 3 is used, and dim "
                    f"{d}'s size is only known at run time: pass `dim`"
                )
        raise ShapeError("no dimension of size 3 in input")
    if not isinstance(dim, int):
        raise TypeError("cross: `dim` must be a constant int")
    return normalize_dim(dim, len(a.shape))


@torch_op
class AtenCrossOp(TorchOp):
    """`torch.cross(a, b, dim)`: the cross product of 3-vectors along `dim` (size 3 in both;
    the other dims broadcast); no dim: the first dim of size 3."""

    name = "torch.aten.cross"
    SCHEMA = "aten::cross(Tensor self, Tensor other, int? dim=None) -> Tensor"
    PY_NAMES = ("torch.cross", "Tensor.cross")
    SAMPLES = (Sample(Tn((2, 3)), Tn((2, 3)), 1),
               Sample(Tn((3, 2), "int64"), Tn((3, 1), "int64"), 0))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    dim = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        a, b, dim = args
        if a.rank is not None and b.rank is not None and a.rank != b.rank:
            raise ShapeError("linalg.cross: inputs must have the same number of dimensions.")
        (typ,) = AtenMulTensorOp.infer(a, b)
        d = cross_dim(a, b, dim)
        if d is None:
            return [typ]
        if a.shape[d] not in (3, DYN) or b.shape[d] not in (3, DYN):
            raise ShapeError(
                f"linalg.cross: inputs dimension {d} must have length 3. Got {a.shape[d]} "
                f"and {b.shape[d]}"
            )
        return [typ]

    @staticmethod
    def eager(a: Any, b: Any, dim: Any = None) -> Any:
        d = cross_dim(TensorMeta.of_array(a), TensorMeta.of_array(b), dim)
        a, b = np.broadcast_arrays(a, b)
        return np.cross(a, b, axis=d)

    def decompose(self) -> Any:
        a, b, dim = self.operands
        if known_rank(a) is None or known_rank(b) is None:
            return None
        d = [cross_dim(*(TensorMeta.of_type(v.type) for v in (a, b)), arg_value(dim))]
        seq = OpSequence()
        first = seq.call(
            AtenMulTensorOp, seq.call(AtenRollOp, a, [-1], d), seq.call(AtenRollOp, b, [-2], d)
        )
        second = seq.call(
            AtenMulTensorOp, seq.call(AtenRollOp, a, [-2], d), seq.call(AtenRollOp, b, [-1], d)
        )
        seq.call(AtenSubTensorOp, first, second, 1)
        return seq.ops


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


OPS = (
    AtenOuterOp,
    AtenDotOp,
    AtenVdotOp,
    AtenInnerOp,
    AtenMvOp,
    AtenKronOp,
    AtenCrossOp,
    AtenAddmvOp,
    AtenAddrOp,
    AtenBaddbmmOp,
    AtenAddbmmOp,
)
