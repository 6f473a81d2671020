"""`native_dropout`, ATen's dropout returning its mask too: in evaluation mode
(`train=False`) the input itself and an all-true bool mask; training mode is random and
refused, like `dropout(train=True)`."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import BOOL
from dialects.torch.meta import Dynamic
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.constructors import AtenOnesLikeOp
from dialects.torch.ops.op_sequence import Decomposition, OpSequence
from dialects.torch.types import BoolType, FloatType, IntType, NoneType
from dialects.torch.types import ValueTensorType as VT


@torch_op
class AtenNativeDropoutOp(TorchOp):
    """`torch.native_dropout(x, p, train)`: (x, ones_like(x, dtype=bool)) when `train` is
    False (None means training, as in ATen)."""

    name = "torch.aten.native_dropout"
    SCHEMA = "aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)"
    PY_NAMES = ("torch.native_dropout",)
    SAMPLES = (Sample(Tn((3, 4)), 0.5, False), Sample(Tn((5,), "int64"), 0.0, False))
    input = operand_def(VT)
    p = operand_def(FloatType | IntType)
    train = operand_def(BoolType | NoneType)
    output = result_def(VT)
    mask = result_def(VT)

    @classmethod
    def infer(cls, x: Any, p: Any, train: Any) -> list[Attribute]:
        if isinstance(p, Dynamic) or isinstance(train, Dynamic):
            raise TypeError(f"{cls.name}: `p` and `train` must be constants")
        if train is not False:
            raise TypeError(
                f"{cls.name}: train={train} drops random elements; tsjit compiles dropout in "
                "evaluation mode only (train=False, e.g. after model.eval())"
            )
        return [x.to_type(), VT(x.shape, BOOL)]

    @staticmethod
    def eager(x: Any, p: float, train: Any) -> Any:
        return x, np.ones(x.shape, dtype=np.bool_)

    def decompose(self) -> Any:
        s = OpSequence()
        mask = s.call(AtenOnesLikeOp, self.input, BOOL.scalar_type)
        return Decomposition(s.ops, [self.input, mask])


OPS = (AtenNativeDropoutOp,)
