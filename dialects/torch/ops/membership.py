"""`torch.isin(elements, test_elements, *, assume_unique=False, invert=False)`: whether each
element occurs in `test_elements` (compared after type promotion, like `==`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import BOOL
from dialects.torch.families import ScalarOperand
from dialects.torch.meta import TensorMeta
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.aten_lookup import aten
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.types import BoolType, ValueTensorType


class _Isin(TorchOp):
    PY_NAMES = ("torch.isin",)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        elements = args[0]
        shape = elements.shape if isinstance(elements, TensorMeta) else ()
        return [ValueTensorType(shape, BOOL)]

    @staticmethod
    def eager(elements: Any, test: Any, assume_unique: bool = False, invert: bool = False) -> Any:
        return np.isin(elements, test, invert=invert)

    def finish(self, seq: OpSequence, found: Any) -> Any:
        if arg_value(self.operands[3]) is True:
            seq.call(aten("logical_not"), found)
        return seq.ops


@torch_op
class AtenIsinTensorTensorOp(_Isin):
    """`torch.isin(x, t)`: `(x.unsqueeze(-1) == t.flatten()).any(-1)` (a bool per element)."""

    name = "torch.aten.isin.Tensor_Tensor"
    SCHEMA = (
        "aten::isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, "
        "bool assume_unique=False, bool invert=False) -> Tensor"
    )
    SAMPLES = (Sample(Tn((5,), "int64", -3, 3), Tn((3,), "float32", -3, 3), invert=True),)
    elements = operand_def(ValueTensorType)
    test_elements = operand_def(ValueTensorType)
    assume_unique = operand_def(BoolType)
    invert = operand_def(BoolType)
    result = result_def(ValueTensorType)

    def decompose(self) -> Any:
        elements, test = self.operands[0], self.operands[1]
        if known_rank(elements) is None:
            return None
        seq = OpSequence()
        column = seq.call(aten("unsqueeze"), elements, -1)
        row = seq.call(aten("reshape"), test, [-1])
        equal = seq.call(aten("eq.Tensor"), column, row)
        return self.finish(seq, seq.call(aten("any.dim"), equal, -1, False))


@torch_op
class AtenIsinTensorScalarOp(_Isin):
    """`torch.isin(x, 3)`: `x == 3`."""

    name = "torch.aten.isin.Tensor_Scalar"
    SCHEMA = (
        "aten::isin.Tensor_Scalar(Tensor elements, Scalar test_element, *, "
        "bool assume_unique=False, bool invert=False) -> Tensor"
    )
    SAMPLES = (Sample(Tn((6,), "int64", -2, 2), 1),)
    elements = operand_def(ValueTensorType)
    test_element = operand_def(ScalarOperand)
    assume_unique = operand_def(BoolType)
    invert = operand_def(BoolType)
    result = result_def(ValueTensorType)

    def decompose(self) -> Any:
        seq = OpSequence()
        found = seq.call(aten("eq.Scalar"), self.operands[0], self.operands[1])
        return self.finish(seq, found)


@torch_op
class AtenIsinScalarTensorOp(_Isin):
    """`torch.isin(3, t)`: a 0-d bool, `(t == 3).any()`."""

    name = "torch.aten.isin.Scalar_Tensor"
    SCHEMA = (
        "aten::isin.Scalar_Tensor(Scalar element, Tensor test_elements, *, "
        "bool assume_unique=False, bool invert=False) -> Tensor"
    )
    SAMPLES = (Sample(2, Tn((2, 3), "int64", -3, 3)),)
    element = operand_def(ScalarOperand)
    test_elements = operand_def(ValueTensorType)
    assume_unique = operand_def(BoolType)
    invert = operand_def(BoolType)
    result = result_def(ValueTensorType)

    def decompose(self) -> Any:
        seq = OpSequence()
        equal = seq.call(aten("eq.Scalar"), self.operands[1], self.operands[0])
        return self.finish(seq, seq.call(aten("any"), equal))


OPS = (AtenIsinTensorTensorOp, AtenIsinTensorScalarOp, AtenIsinScalarTensorOp)
