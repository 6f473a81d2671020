"""`cross_entropy_loss`: the op behind `F.cross_entropy`, for class-index targets (class
weights, ignore_index) and class-probability targets, both with label smoothing.

Which formula applies depends on the target's dtype (integer: indices, float: probabilities),
which scripting does not know; so `F.cross_entropy` (frontend/torch/nn/functional.py) calls
this op, and `decompose` picks the formula once types are known (`torch-decompose`), writing
it with core ops. PyTorch's formulas, with `logp = log_softmax(input, class_dim)`, class_dim
1 (0 for an unbatched `[C]` input), C classes, smoothing e, weights w (1 when absent):
- indices: `nll = -w[t] * logp[t]` (0 where t == ignore_index); `smooth = -sum_c w_c logp_c`
  (0 there too); 'mean' divides each sum by the summed w[t] of the counted targets; the loss
  is `(1 - e) * nll + e / C * smooth` after reduction;
- probabilities: `-sum_c w_c logp_c ((1 - e) t_c + e / C)`; 'mean' is the mean over the
  non-class dims.
`reduction` is torch's enum: 0 none, 1 mean, 2 sum.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import Dynamic, ShapeError
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import (
    AtenAddTensorOp,
    AtenDivScalarOp,
    AtenDivTensorOp,
    AtenMulScalarOp,
    AtenMulTensorOp,
    AtenNegOp,
)
from dialects.torch.ops.comparison import AtenNeScalarOp
from dialects.torch.ops.indexing import AtenEmbeddingOp, AtenGatherOp
from dialects.torch.ops.normalization import AtenLogSoftmaxIntOp
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.reduction import AtenMeanOp, AtenSumDimIntListOp, AtenSumOp
from dialects.torch.ops.reorder import AtenMovedimIntOp
from dialects.torch.ops.views import AtenSqueezeDimOp, AtenUnsqueezeOp
from dialects.torch.types import FloatType, IntType, NoneType, ValueTensorType

NONE, MEAN, SUM = 0, 1, 2


def _constant(name: str, value: Any) -> Any:
    if isinstance(value, Dynamic):
        raise TypeError(f"cross_entropy: `{name}` must be known while scripting")
    return value


@torch_op
class AtenCrossEntropyLossOp(TorchOp):
    """`F.cross_entropy(input, target, weight, ignore_index=, reduction=, label_smoothing=)`
    as one op (see the module docstring)."""

    name = "torch.aten.cross_entropy_loss"
    SCHEMA = (
        "aten::cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, "
        "int reduction=1, int ignore_index=-100, float label_smoothing=0.0) -> Tensor"
    )
    PY_NAMES = ("torch.cross_entropy_loss",)
    SAMPLES = (
        Sample(Tn((4, 5)), Tn((4,), "int64", 0, 4.99), Tn((5,), low=0.5), 1, 2, 0.1),
        Sample(Tn((3, 4, 2), "float64"), Tn((3, 4, 2), "float64", 0, 1), None, 0, -100, 0.2),
    )
    self_ = operand_def(ValueTensorType)
    target = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType | NoneType)
    reduction = operand_def(IntType)
    ignore_index = operand_def(IntType)
    label_smoothing = operand_def(FloatType | IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, target, _weight, reduction, _ignore, smoothing = args
        reduction = _constant("reduction", reduction)
        if not 0.0 <= _constant("label_smoothing", smoothing) <= 1.0:
            raise ShapeError(f"label_smoothing must be between 0.0 and 1.0. Got: {smoothing}")
        if x.dtype is not None and not x.dtype.is_float:
            raise TypeError(f"cross_entropy: expected floating point input, got {x.dtype.name}")
        if x.shape is None or target.shape is None or target.dtype is None:
            return [ValueTensorType(None if reduction == NONE else (), x.dtype)]
        class_dim = 0 if len(x.shape) == 1 else 1
        per_element = x.shape[:class_dim] + x.shape[class_dim + 1 :]
        if target.dtype.is_float:
            if len(target.shape) != len(x.shape):
                raise ShapeError(
                    f"cross_entropy: probability targets need the input's shape {list(x.shape)}, "
                    f"got {list(target.shape)}"
                )
        elif len(target.shape) != len(per_element):
            raise ShapeError(
                f"cross_entropy: class-index targets need {len(per_element)} dims for input "
                f"shape {list(x.shape)}, got {list(target.shape)}"
            )
        return [ValueTensorType(per_element if reduction == NONE else (), x.dtype)]

    @staticmethod
    def eager(
        x: Any, target: Any, weight: Any = None, reduction: int = MEAN, ignore_index: int = -100,
        label_smoothing: float = 0.0,
    ) -> Any:  # fmt: skip
        return cross_entropy_reference(x, target, weight, reduction, ignore_index, label_smoothing)

    def decompose(self) -> Any:
        x, target = self.self_, self.target
        if not isinstance(target.type, ValueTensorType) or target.type.element is None:
            return None
        reduction, _, smoothing = self.arg_values()[3:]
        s = OpSequence()
        class_dim = 0 if x.type.rank == 1 else 1  # type: ignore[attr-defined]
        logp = s.call(AtenLogSoftmaxIntOp, x, class_dim, None)
        weight = None if isinstance(self.weight.type, NoneType) else self.weight
        classes = s.size(x, class_dim)
        if target.type.element.is_float:
            _probabilities(s, logp, target, weight, class_dim, reduction, smoothing, classes)
        else:
            ignore_index = self.ignore_index
            _indices(
                s, logp, target, weight, class_dim, reduction, ignore_index, smoothing, classes
            )
        return s.ops


def _class_sum(s: OpSequence, values: SSAValue, weight: Any, class_dim: int) -> SSAValue:
    """`-sum_c w_c * values_c` over the class dim."""
    if weight is not None:
        values = s.call(AtenMulTensorOp, s.call(AtenMovedimIntOp, values, class_dim, -1), weight)
        class_dim = -1
    total = s.call(AtenSumDimIntListOp, values, [class_dim], False, None)
    return s.call(AtenNegOp, total)


def _reduce(s: OpSequence, losses: SSAValue, reduction: int, divisor: Any) -> SSAValue:
    """'none': the losses; 'sum'; 'mean': the sum over `divisor` (a tensor), or the mean."""
    if reduction == NONE:
        return losses
    total = s.call(AtenSumOp, losses, None)
    if reduction == SUM:
        return total
    if divisor is None:
        return s.call(AtenMeanOp, losses, None)
    return s.call(AtenDivTensorOp, total, s.call(AtenSumOp, divisor, None))


def _smoothed(
    s: OpSequence, main: SSAValue, smooth: SSAValue, smoothing: float, classes: Any
) -> SSAValue:
    """`(1 - e) * main + e / C * smooth`."""
    kept = s.call(AtenMulScalarOp, main, 1.0 - smoothing)
    spread = s.call(AtenDivScalarOp, s.call(AtenMulScalarOp, smooth, smoothing), classes)
    return s.call(AtenAddTensorOp, kept, spread, 1)


def _indices(
    s: OpSequence, logp: SSAValue, target: SSAValue, weight: Any, class_dim: int,
    reduction: int, ignore_index: SSAValue, smoothing: float, classes: Any,
) -> None:  # fmt: skip
    counted = s.call(AtenNeScalarOp, target, ignore_index)
    safe = s.call(AtenMulTensorOp, target, counted)
    index = s.call(AtenUnsqueezeOp, safe, class_dim)
    picked = s.call(AtenSqueezeDimOp, s.call(AtenGatherOp, logp, class_dim, index, False),
                    class_dim)  # fmt: skip
    weights: SSAValue = counted
    if weight is not None:
        table = s.call(AtenUnsqueezeOp, weight, 1)
        per_target = s.call(AtenSqueezeDimOp, s.call(AtenEmbeddingOp, table, safe, -1, False,
                                                       False), -1)  # fmt: skip
        weights = s.call(AtenMulTensorOp, per_target, counted)
    nll = s.call(AtenNegOp, s.call(AtenMulTensorOp, picked, weights))
    result = _reduce(s, nll, reduction, weights)
    if smoothing > 0.0:
        smooth = s.call(AtenMulTensorOp, _class_sum(s, logp, weight, class_dim), counted)
        _smoothed(s, result, _reduce(s, smooth, reduction, weights), smoothing, classes)


def _probabilities(
    s: OpSequence, logp: SSAValue, target: SSAValue, weight: Any, class_dim: int,
    reduction: int, smoothing: float, classes: Any,
) -> None:  # fmt: skip
    losses = _class_sum(s, s.call(AtenMulTensorOp, logp, target), weight, class_dim)
    if smoothing > 0.0:
        losses = _smoothed(s, losses, _class_sum(s, logp, weight, class_dim), smoothing, classes)
    _reduce(s, losses, reduction, None)


def _log_softmax(x: Any, axis: int) -> Any:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _reference_reduce(losses: Any, reduction: int, divisor: Any) -> Any:
    if reduction == NONE:
        return losses
    if reduction == SUM:
        return np.sum(losses)
    return np.mean(losses) if divisor is None else np.sum(losses) / np.sum(divisor)


def cross_entropy_reference(
    x: Any, target: Any, weight: Any, reduction: int, ignore_index: int, smoothing: float
) -> Any:
    """PyTorch's cross entropy in numpy (float64), the formulas of the module docstring."""
    axis = 0 if x.ndim == 1 else 1
    classes = x.shape[axis]
    logp = _log_softmax(x.astype(np.float64), axis)
    w = np.ones(classes) if weight is None else weight.astype(np.float64)
    moved = np.moveaxis(logp, axis, -1)
    smooth = -np.sum(moved * w, axis=-1)
    with np.errstate(all="ignore"):
        if target.dtype.kind == "f":
            main = -np.sum(moved * w * np.moveaxis(target, axis, -1), axis=-1)
            losses = (1 - smoothing) * main + smoothing / classes * smooth
            return _reference_reduce(losses, reduction, None)
        counted = target != ignore_index
        safe = np.where(counted, target, 0)
        picked = np.take_along_axis(moved, safe[..., None], axis=-1)[..., 0]
        weights = w[safe] * counted
        nll = _reference_reduce(-picked * weights, reduction, weights)
        if smoothing == 0.0:
            return nll
        spread = _reference_reduce(smooth * counted, reduction, weights)
        return (1 - smoothing) * nll + smoothing / classes * spread


OPS = (AtenCrossEntropyLossOp,)
