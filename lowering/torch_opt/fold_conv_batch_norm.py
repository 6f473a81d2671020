"""Folds an inference batch norm into the convolution that feeds it (`torch-fold-conv-bn`).

**Expects:** torch-dialect functions; the pattern applies where `torch.aten.batch_norm` with
`training = false` reads the only result of a `torch.aten.conv2d` and every weight involved
(conv weight and bias, norm weight, bias, running mean and variance) is a `torch.vtensor.literal`
or `None` (after `frontend.freeze`).
**Produces:** the same function with each such pair replaced by one `conv2d` whose weight and
bias are new literals: with `s = weight / sqrt(running_var + eps)`,
`W' = W * s[:, None, None, None]` and `b' = (b - running_mean) * s + bias` (computed in
float64, stored in the weight's dtype). Anything else is left unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dialects.torch.op_base import ConstantLikeOp, TorchOp
from dialects.torch.ops.prim import ConstantNoneOp, ValueTensorLiteralOp

_MISSING = object()


@dataclass(frozen=True)
class TorchFoldConvBatchNormPass(ModulePass):
    """Conv2d followed by an inference BatchNorm with constant weights -> one conv2d."""

    name = "torch-fold-conv-bn"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for norm in [o for o in op.walk() if o.name == "torch.aten.batch_norm"]:
            fold(norm)


def fold(norm: Operation) -> bool:
    """Fold `norm` into its producing conv2d if the pattern applies; whether it did."""
    conv = norm.operands[0].owner
    if not isinstance(conv, TorchOp) or not conv.name.startswith("torch.aten.conv2d"):
        return False
    if not conv.results[0].has_one_use() or _constant(norm.operands[5]) is not False:
        return False
    weight, bias = _array(conv.operands[1]), _array(conv.operands[2])
    scale, shift, mean, var = (_array(v) for v in norm.operands[1:5])
    eps = _constant(norm.operands[7])
    if any(a is _MISSING for a in (weight, bias, scale, shift, mean, var)) or mean is None:
        return False
    if var is None or weight is None or not isinstance(eps, int | float):
        return False
    channels = weight.shape[0]
    s = (np.ones(channels) if scale is None else scale.astype(np.float64)) / np.sqrt(
        var.astype(np.float64) + eps
    )
    b = np.zeros(channels) if bias is None else bias.astype(np.float64)
    b = (b - mean) * s + (0.0 if shift is None else shift.astype(np.float64))
    new_weight = ValueTensorLiteralOp((weight * s[:, None, None, None]).astype(weight.dtype))
    new_bias = ValueTensorLiteralOp(b.astype(weight.dtype))
    operands = [conv.operands[0], new_weight.result, new_bias.result, *conv.operands[3:]]
    folded = type(conv).build(operands)
    Rewriter.insert_op([new_weight, new_bias, folded], InsertPoint.before(norm))
    folded.results[0].name_hint = norm.results[0].name_hint
    norm.results[0].replace_all_uses_with(folded.results[0])
    Rewriter.erase_op(norm)
    Rewriter.erase_op(conv)
    return True


def _array(value: SSAValue) -> Any:
    """A literal's array, None for `None`, _MISSING for anything computed."""
    owner = value.owner
    if isinstance(owner, ConstantNoneOp):
        return None
    if isinstance(owner, ValueTensorLiteralOp):
        return np.asarray(owner.python_value())
    return _MISSING


def _constant(value: SSAValue) -> Any:
    owner = value.owner
    return owner.python_value() if isinstance(owner, ConstantLikeOp) else _MISSING
