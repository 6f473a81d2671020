"""More of `torch.linalg` written with other ops: `multi_dot` (a chain of matmuls), `vecdot`
(`sum(x * y, dim)`), `linalg.diagonal` (diagonal of the last two dims) and `torch.logdet`
(from slogdet: NaN for a negative determinant, -inf for a singular matrix)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.aten_lookup import aten
from dialects.torch.ops.linear_algebra import AtenLinalgSlogdetOp, check_square
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.tensor_lists import listed, tensor_list
from dialects.torch.types import IntType, ListType, ValueTensorType


def _float_name(dtype: Any) -> str:
    return {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int"}.get(
        dtype.name, dtype.name
    )


@torch_op
class AtenLinalgMultiDotOp(TorchOp):
    """`torch.linalg.multi_dot([a, b, c, ...])`: `a @ b @ c ...`; the first and the last may
    be 1-D (a row, a column), the others 2-D, all of one dtype."""

    name = "torch.aten.linalg_multi_dot"
    SCHEMA = "aten::linalg_multi_dot(Tensor[] tensors) -> Tensor"
    PY_NAMES = ("torch.linalg.multi_dot",)
    SAMPLES = (Sample([Tn((3,)), Tn((3, 4)), Tn((4, 2))]),)
    tensors = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        tensors = tensor_list("multi_dot", args[0])
        if len(tensors) < 2:
            raise ShapeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
        for position, t in enumerate(tensors):
            edge = position in (0, len(tensors) - 1)
            if t.rank is not None and (t.rank not in (1, 2) if edge else t.rank != 2):
                which = "the first tensor" if position == 0 else "the last tensor"
                if edge:
                    raise ShapeError(f"multi_dot(): {which} must be 1D or 2D but got {t.rank}D")
                raise ShapeError(f"multi_dot(): tensor {position} must be 2D but got {t.rank}D")
            first = tensors[0].dtype
            if None not in (t.dtype, first) and t.dtype != first:
                raise TypeError(
                    "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                    f"{_float_name(first).lower()} and tensor {position} "
                    f"{_float_name(t.dtype).lower()}"
                )
        result: Any = tensors[0]
        for t in tensors[1:]:
            (typ,) = aten("matmul").infer(result, t)
            result = TensorMeta.of_type(typ)  # type: ignore[arg-type]
        return [result.to_type()]

    @staticmethod
    def eager(tensors: Any) -> Any:
        out = tensors[0]
        for t in tensors[1:]:
            out = out @ t
        return np.asarray(out)

    def decompose(self) -> Any:
        tensors = listed(self)
        if not tensors:
            return None
        seq = OpSequence()
        result = tensors[0]
        for t in tensors[1:]:
            result = seq.call(aten("matmul"), result, t)
        return seq.ops


@torch_op
class AtenLinalgVecdotOp(TorchOp):
    """`torch.linalg.vecdot(x, y, dim=-1)`: `(x * y).sum(dim)`, broadcast; floats of one
    dtype (torch's messages)."""

    name = "torch.aten.linalg_vecdot"
    SCHEMA = "aten::linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor"
    PY_NAMES = ("torch.linalg.vecdot",)
    SAMPLES = (Sample(Tn((2, 3)), Tn((3,))),)
    x = operand_def(ValueTensorType)
    y = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, y, dim = args
        if x.dtype is not None and not x.dtype.is_float:
            raise TypeError(
                "linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                f"{_float_name(x.dtype)}"
            )
        if None not in (x.dtype, y.dtype) and x.dtype != y.dtype:
            raise TypeError(
                "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                f"{_float_name(x.dtype)} and y of type {_float_name(y.dtype)} instead"
            )
        (product,) = aten("mul.Tensor").infer(x, y)
        return aten("sum.dim_IntList").infer(TensorMeta.of_type(product), [dim], False, None)  # type: ignore[arg-type]

    @staticmethod
    def eager(x: Any, y: Any, dim: int = -1) -> Any:
        return (x * y).sum(dim).astype(np.result_type(x, y))

    def decompose(self) -> Any:
        x, y, dim = self.operands
        seq = OpSequence()
        product = seq.call(aten("mul.Tensor"), x, y)
        seq.call(aten("sum.dim_IntList"), product, [arg_value(dim)], False, None)
        return seq.ops


@torch_op
class AtenLinalgDiagonalOp(TorchOp):
    """`torch.linalg.diagonal(A, *, offset=0, dim1=-2, dim2=-1)`: `torch.diagonal` with the
    last two dims by default."""

    name = "torch.aten.linalg_diagonal"
    SCHEMA = "aten::linalg_diagonal(Tensor A, *, int offset=0, int dim1=-2, int dim2=-1) -> Tensor"
    PY_NAMES = ("torch.linalg.diagonal",)
    SAMPLES = (Sample(Tn((2, 3, 4)), offset=1),)
    A = operand_def(ValueTensorType)
    offset = operand_def(IntType)
    dim1 = operand_def(IntType)
    dim2 = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return aten("diagonal").infer(*args)

    @staticmethod
    def eager(a: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
        return np.diagonal(a, offset, dim1, dim2).copy()

    def decompose(self) -> Any:
        seq = OpSequence()
        seq.call(aten("diagonal"), *self.operands)
        return seq.ops


@torch_op
class AtenLogdetOp(TorchOp):
    """`torch.logdet(A)` / `A.logdet()`: log(det), NaN where det < 0, -inf where it is 0."""

    name = "torch.aten.logdet"
    SCHEMA = "aten::logdet(Tensor self) -> Tensor"
    PY_NAMES = ("torch.logdet", "Tensor.logdet")
    SAMPLES = (Sample(Tn((2, 3, 3), "float64")),)
    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        check_square("logdet", args[0])
        return [AtenLinalgSlogdetOp.infer(*args)[0]]

    @staticmethod
    def eager(a: Any) -> Any:
        sign, log = AtenLinalgSlogdetOp.eager(a)
        return np.where(sign < 0, np.nan, log).astype(a.dtype)

    def decompose(self) -> Any:
        if known_rank(self.self_) is None:
            return None
        seq = OpSequence()
        slogdet = seq.add(AtenLinalgSlogdetOp.build([self.self_]))
        sign, log = slogdet.results
        negative = seq.call(aten("lt.Scalar"), sign, 0)
        seq.call(aten("where.ScalarSelf"), negative, float("nan"), log)
        return seq.ops


OPS = (AtenLinalgMultiDotOp, AtenLinalgVecdotOp, AtenLinalgDiagonalOp, AtenLogdetOp)
