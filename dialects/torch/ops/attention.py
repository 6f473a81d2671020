"""`_attention_bias`: an attention mask (bool or float) as the float bias added to the scores.

PyTorch's attention functions take masks of either kind and branch on the mask's dtype
(`F._canonical_mask`); a script does not know dtypes, so that branch is this op, resolved by
`torch-decompose` once the types are known: a bool mask becomes `-inf` where it masks and `0`
elsewhere (in the query's dtype), a float mask is itself (it must have the query's dtype).
`masked_where_true` says which bool value masks: True for `nn.MultiheadAttention`'s masks
(True = ignore), False for `F.scaled_dot_product_attention`'s (True = take part).
ATen has no such op; tsjit adds it (spelled `torch._attention_bias`) for
`frontend/torch/attention.py`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import BOOL, FLOAT32
from dialects.torch.meta import Dynamic, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.casts import AtenToDtypeOp
from dialects.torch.ops.logical import AtenWhereScalarOp
from dialects.torch.ops.prim import ConstantBoolOp, ConstantFloatOp, ConstantIntOp, ConstantNoneOp
from dialects.torch.types import BoolType, ValueTensorType


@torch_op
class AtenAttentionBiasOp(TorchOp):
    """The additive bias of an attention mask: `-inf` where a bool mask masks, else 0; a float
    mask as it is. The result has the mask's shape and the query's dtype."""

    name = "torch.aten._attention_bias"
    SCHEMA = "aten::_attention_bias(Tensor mask, Tensor query, bool masked_where_true) -> Tensor"
    PY_NAMES = ("torch._attention_bias",)
    SAMPLES = (
        Sample(Tn((3, 4), "bool"), Tn((2, 3, 5)), True),
        Sample(Tn((2, 4), "float64"), Tn((4, 3), "float64"), False),
    )
    mask = operand_def(ValueTensorType)
    query = operand_def(ValueTensorType)
    masked_where_true = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        mask, query, masked_where_true = args
        if isinstance(masked_where_true, Dynamic):
            raise TypeError("_attention_bias: `masked_where_true` must be known while scripting")
        kind = mask.dtype
        if query.dtype is not None and not query.dtype.is_float:
            raise TypeError(f"attention: expected a floating query, but got {query.dtype.name}")
        if kind is not None and not (kind.is_bool or kind.is_float):
            raise TypeError("only bool and floating types of masks are supported")
        if kind is not None and kind.is_float and query.dtype not in (None, kind):
            raise TypeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                f"attn_mask.dtype: {kind.name} and query.dtype: {query.dtype.name} instead."
            )
        return [ValueTensorType(mask.shape, query.dtype)]

    @staticmethod
    def eager(mask: Any, query: Any, masked_where_true: bool) -> Any:
        if mask.dtype != np.bool_:
            return mask
        masked = mask if masked_where_true else ~mask
        return np.where(masked, -np.inf, 0.0).astype(query.dtype)

    def fold(self) -> Any:
        mask_type = self.mask.type
        if isinstance(mask_type, ValueTensorType) and mask_type == self.result.type:
            return [self.mask]  # a float mask of the query's dtype is its own bias
        return None

    def decompose(self) -> Any:
        mask = TensorMeta.of_type(self.mask.type)  # type: ignore[arg-type]
        dtype = TensorMeta.of_type(self.query.type).dtype  # type: ignore[arg-type]
        masked = self.masked_where_true.owner
        if mask.dtype != BOOL or dtype is None or not isinstance(masked, ConstantBoolOp):
            return None
        where_true = masked.python_value()
        inf, zero = ConstantFloatOp(float("-inf")), ConstantFloatOp(0.0)
        picked = (inf, zero) if where_true else (zero, inf)
        bias = AtenWhereScalarOp.build([self.mask, picked[0].result, picked[1].result])
        ops: list[Any] = [inf, zero, bias]
        if dtype != FLOAT32:
            code, flag, none = (
                ConstantIntOp(dtype.scalar_type),
                ConstantBoolOp(False),
                ConstantNoneOp(),
            )
            cast = AtenToDtypeOp.build(
                [bias.result, code.result, flag.result, flag.result, none.result]
            )
            ops += [code, flag, none, cast]
        return ops


OPS = (AtenAttentionBiasOp,)
