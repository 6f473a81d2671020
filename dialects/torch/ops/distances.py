"""Distances: `torch.dist` and `torch.cdist`, which decompose into a difference and a norm
(`dialects/torch/ops/norms.py`) in `torch-decompose`."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import DType
from dialects.torch.families import ScalarOperand
from dialects.torch.meta import ShapeError, TensorMeta, broadcast_shapes
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import AtenSubTensorOp
from dialects.torch.ops.norms import AtenNormScalarOp, AtenNormScalarOptDimOp, order_value, p_norm
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.views import AtenUnsqueezeOp
from dialects.torch.types import NoneType, StrType, ValueTensorType


def _float_dtype(cls: Any, *tensors: TensorMeta) -> DType | None:
    dtypes = [t.dtype for t in tensors]
    if None in dtypes:
        return None
    for dtype in dtypes:
        if dtype is not None and not dtype.is_float:
            raise TypeError(f"{cls.name}: expected floating point inputs, got {dtype.name}")
    return max(dtypes, key=lambda d: d.numpy.itemsize)  # type: ignore[union-attr]


@torch_op
class AtenDistOp(TorchOp):
    """`torch.dist(x, y, p=2)`: the p-norm of `x - y` (broadcast), a 0-d tensor."""

    name = "torch.aten.dist"
    SCHEMA = "aten::dist(Tensor self, Tensor other, Scalar p=2) -> Tensor"
    PY_NAMES = ("torch.dist", "Tensor.dist")
    SAMPLES = (Sample(Tn((3, 4)), Tn((4,))), Sample(Tn((2, 3), "float64"), Tn((2, 3)), 1))
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    p = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, other, p = args
        order_value(cls, p)
        broadcast_shapes([x.shape, other.shape])
        return [ValueTensorType((), _float_dtype(cls, x, other))]

    @staticmethod
    def eager(x: Any, other: Any, p: Any = 2) -> Any:
        return p_norm(np.subtract(x, other), float(p), None, False)

    def decompose(self) -> Any:
        s = OpSequence()
        difference = s.call(AtenSubTensorOp, self.self_, self.other, 1)
        s.call(AtenNormScalarOp, difference, self.p)
        return s.ops


@torch_op
class AtenCdistOp(TorchOp):
    """`torch.cdist(x1, x2, p=2)`: the p-norm distance of every row of `x1` [..., P, M] to
    every row of `x2` [..., R, M], [..., P, R] (one difference tensor [..., P, R, M] then a
    norm over M; `compute_mode` is accepted and changes nothing)."""

    name = "torch.aten.cdist"
    SCHEMA = "aten::cdist(Tensor x1, Tensor x2, float p=2., str? compute_mode=None) -> Tensor"
    PY_NAMES = ("torch.cdist",)
    SAMPLES = (
        Sample(Tn((4, 3)), Tn((5, 3))),
        Sample(Tn((2, 3, 2), "float64"), Tn((2, 4, 2), "float64"), 1.0),
    )
    x1 = operand_def(ValueTensorType)
    x2 = operand_def(ValueTensorType)
    p = operand_def(ScalarOperand)
    compute_mode = operand_def(StrType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x1, x2, p = args[:3]
        order = order_value(cls, p)
        if order < 0:
            raise ShapeError("cdist only supports non-negative p values")
        dtype = _float_dtype(cls, x1, x2)
        if None not in (x1.dtype, x2.dtype) and x1.dtype != x2.dtype:
            raise TypeError(
                f"expected scalar type {_TORCH_NAMES[x1.dtype.name]} but found "
                f"{_TORCH_NAMES[x2.dtype.name]}"
            )
        if x1.shape is None or x2.shape is None:
            return [ValueTensorType(None, dtype)]
        if len(x1.shape) < 2 or len(x2.shape) < 2:
            raise ShapeError(f"cdist only supports at least 2D tensors, X1 got: {len(x1.shape)}D")
        if _sizes_agree(x1.shape[-1], x2.shape[-1]) is False:
            raise ShapeError(
                "X1 and X2 must have the same number of columns. X1: "
                f"{x1.shape[-1]} X2: {x2.shape[-1]}"
            )
        batch = broadcast_shapes([x1.shape[:-2], x2.shape[:-2]])
        assert batch is not None
        return [ValueTensorType((*batch, x1.shape[-2], x2.shape[-2]), dtype)]

    @staticmethod
    def eager(x1: Any, x2: Any, p: Any = 2.0, compute_mode: Any = None) -> Any:
        difference = x1[..., :, None, :] - x2[..., None, :, :]
        return p_norm(difference, float(p), [-1], False)

    def decompose(self) -> Any:
        s = OpSequence()
        unsqueeze = AtenUnsqueezeOp
        rows = s.call(unsqueeze, self.x1, -2)
        columns = s.call(unsqueeze, self.x2, -3)
        difference = s.call(AtenSubTensorOp, rows, columns, 1)
        s.call(AtenNormScalarOptDimOp, difference, self.p, [-1], False, None, None)
        return s.ops


_TORCH_NAMES = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
                "bool": "Bool"}  # fmt: skip


def _sizes_agree(a: int, b: int) -> bool | None:
    """Whether two sizes agree: None while either is known only at run time."""
    if a < 0 or b < 0:
        return None
    return a == b


OPS = (
    AtenDistOp,
    AtenCdistOp,
)
