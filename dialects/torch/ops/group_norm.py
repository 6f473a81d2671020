"""Group and instance normalization (`F.group_norm`, `F.instance_norm`), decomposed into
`layer_norm` over the right dims plus a per-channel scale and shift.

- group_norm: (N, C, *) viewed as (N, G, C / G * prod(*)), each group normalized
  (`layer_norm` over the last dim), viewed back, then `weight[c] * y + bias[c]`.
- instance_norm with the input's statistics: `layer_norm` over the spatial dims (2, ...),
  then the per-channel affine; with running statistics (`use_input_stats=False`) it is
  `batch_norm` in inference mode. Running statistics are never updated here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import Dynamic, ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.casts import AtenTypeAsOp
from dialects.torch.ops.elementwise import AtenAddTensorOp, AtenMulTensorOp
from dialects.torch.ops.normalization import AtenBatchNormOp, AtenLayerNormOp, batch_norm
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.views import AtenReshapeOp
from dialects.torch.types import DYN, BoolType, FloatType, IntType, NoneType, ValueTensorType

OptionalTensor = ValueTensorType | NoneType


def _float_input(name: str, x: TensorMeta) -> None:
    if x.dtype is not None and not x.dtype.is_float:
        raise TypeError(f"{name}: expected a floating-point input, got {x.dtype.name}")
    if x.rank is not None and x.rank < 2:
        raise ShapeError(f"{name}: expected an input with at least 2 dims, got {x.rank}")


def _check_channels(name: str, what: str, value: Any, channels: int) -> None:
    if not isinstance(value, TensorMeta) or value.shape is None:
        return
    if len(value.shape) != 1 or (
        DYN not in (value.shape[0], channels) and (value.shape[0] != channels)
    ):
        raise ShapeError(
            f"{name}: expected {what} to be a vector of {channels} channels, got shape "
            f"{list(value.shape)}"
        )


def _affine(s: OpSequence, y: SSAValue, weight: SSAValue, bias: SSAValue, rank: int) -> None:
    """`y * weight[c] + bias[c]` over dim 1 (each optional)."""
    channel_view = [-1] + [1] * (rank - 2)
    if not isinstance(weight.type, NoneType):
        y = s.call(AtenMulTensorOp, y, s.call(AtenReshapeOp, weight, channel_view))
    if not isinstance(bias.type, NoneType):
        s.call(AtenAddTensorOp, y, s.call(AtenReshapeOp, bias, channel_view), 1)


def _reference_affine(y: Any, weight: Any, bias: Any) -> Any:
    view = (1, -1) + (1,) * (y.ndim - 2)
    if weight is not None:
        y = y * weight.reshape(view)
    if bias is not None:
        y = y + bias.reshape(view)
    return y


def _normalized(x: Any, axes: tuple[int, ...], eps: float) -> Any:
    wide = x.astype(np.float64)
    mean = wide.mean(axis=axes, keepdims=True)
    var = wide.var(axis=axes, keepdims=True)
    return (wide - mean) / np.sqrt(var + eps)


@torch_op
class AtenGroupNormOp(TorchOp):
    """`F.group_norm(input, num_groups, weight, bias, eps)`: the channels in `num_groups`
    groups, each normalized over its channels and positions (biased variance), then each
    channel scaled and shifted."""

    name = "torch.aten.group_norm"
    SCHEMA = (
        "aten::group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, "
        "float eps=1e-05, bool cudnn_enabled=True) -> Tensor"
    )
    PY_NAMES = ("F.group_norm", "torch.group_norm")
    SAMPLES = (
        Sample(Tn((2, 6, 3, 2)), 3, Tn((6,)), Tn((6,))),
        Sample(Tn((3, 4, 5), "float64"), 2, None, None, 1e-3),
    )
    input = operand_def(ValueTensorType)
    num_groups = operand_def(IntType)
    weight = operand_def(OptionalTensor)
    bias = operand_def(OptionalTensor)
    eps = operand_def(FloatType | IntType)
    cudnn_enabled = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, groups, weight, bias = args[:4]
        _float_input("group_norm", x)
        if isinstance(groups, Dynamic) or not isinstance(groups, int):
            raise TypeError("group_norm: `num_groups` must be an int known while scripting")
        channels = DYN if x.shape is None else x.shape[1]
        if channels != DYN and (groups <= 0 or channels % groups):
            raise ShapeError(
                "Expected number of channels in input to be divisible by num_groups, but got "
                f"input of shape {list(x.shape)} and num_groups={groups}"
            )
        _check_channels("group_norm", "weight", weight, channels)
        _check_channels("group_norm", "bias", bias, channels)
        return [ValueTensorType(x.shape, x.dtype)]

    @staticmethod
    def eager(x: Any, groups: int, weight: Any = None, bias: Any = None, eps: float = 1e-5,
              cudnn_enabled: bool = True) -> Any:  # fmt: skip
        grouped = x.reshape(x.shape[0], groups, -1)
        y = _normalized(grouped, (2,), eps).reshape(x.shape)
        return _reference_affine(y, weight, bias).astype(x.dtype)

    def decompose(self) -> Any:
        x = self.input
        if not isinstance(x.type, ValueTensorType) or x.type.rank is None:
            return None
        s = OpSequence()
        groups = self.arg_values()[1]
        grouped = s.call(AtenReshapeOp, x, [s.size(x, 0), groups, -1])
        y = s.call(AtenLayerNormOp, grouped, [s.size(grouped, 2)], None, None, self.eps, False)
        y = s.call(AtenReshapeOp, y, s.sizes(x))
        _affine(s, y, self.weight, self.bias, x.type.rank)
        return s.ops


@torch_op
class AtenInstanceNormOp(TorchOp):
    """`torch.instance_norm`: each channel of each sample normalized over its positions
    (`use_input_stats`), or with the running statistics; then scaled and shifted."""

    name = "torch.aten.instance_norm"
    SCHEMA = (
        "aten::instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
        "Tensor? running_var, bool use_input_stats, float momentum, float eps, "
        "bool cudnn_enabled) -> Tensor"
    )
    PY_NAMES = ("torch.instance_norm",)
    SAMPLES = (
        Sample(Tn((2, 3, 4, 5)), Tn((3,)), Tn((3,)), None, None, True, 0.1, 1e-5, False),
        Sample(Tn((2, 3, 6), "float64"), None, None, Tn((3,), "float64"),
               Tn((3,), "float64", 0.5, 2.0), False, 0.1, 1e-5, False),
    )  # fmt: skip
    input = operand_def(ValueTensorType)
    weight = operand_def(OptionalTensor)
    bias = operand_def(OptionalTensor)
    running_mean = operand_def(OptionalTensor)
    running_var = operand_def(OptionalTensor)
    use_input_stats = operand_def(BoolType)
    momentum = operand_def(FloatType | IntType)
    eps = operand_def(FloatType | IntType)
    cudnn_enabled = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, weight, bias, mean, var, use_input_stats = args[:6]
        _float_input("instance_norm", x)
        if not isinstance(use_input_stats, bool):
            raise TypeError("instance_norm: `use_input_stats` must be known while scripting")
        if not use_input_stats and not (
            isinstance(mean, TensorMeta) and isinstance(var, TensorMeta)
        ):
            raise ShapeError("Expected running_mean and running_var to be defined when use_input_stats is false")  # fmt: skip
        if x.rank is not None and x.rank < 3:
            raise ShapeError(f"instance_norm: expected an input with at least 3 dims, got {x.rank}")
        channels = DYN if x.shape is None else x.shape[1]
        for what, value in (("weight", weight), ("bias", bias), ("running_mean", mean),
                            ("running_var", var)):  # fmt: skip
            _check_channels("instance_norm", what, value, channels)
        return [ValueTensorType(x.shape, x.dtype)]

    @staticmethod
    def eager(x: Any, weight: Any, bias: Any, mean: Any, var: Any, use_input_stats: bool,
              momentum: float, eps: float, cudnn_enabled: bool) -> Any:  # fmt: skip
        if not use_input_stats:
            return batch_norm(x, weight, bias, mean, var, eps).astype(x.dtype)
        y = _normalized(x, tuple(range(2, x.ndim)), eps)
        return _reference_affine(y, weight, bias).astype(x.dtype)

    def decompose(self) -> Any:
        x = self.input
        if not isinstance(x.type, ValueTensorType) or x.type.rank is None:
            return None
        s = OpSequence()
        if not self.arg_values()[5]:  # running statistics, in the input's dtype as torch uses
            mean, var = (_as_dtype_of(s, v, x) for v in (self.running_mean, self.running_var))
            s.call(AtenBatchNormOp, x, self.weight, self.bias, mean, var, False,
                   self.momentum, self.eps, False)  # fmt: skip
            return s.ops
        spatial = s.sizes(x)[2:]
        y = s.call(AtenLayerNormOp, x, spatial, None, None, self.eps, False)
        _affine(s, y, self.weight, self.bias, x.type.rank)
        return s.ops


def _as_dtype_of(s: OpSequence, value: SSAValue, like: SSAValue) -> SSAValue:
    """`value` in `like`'s dtype (`type_as`) when it is a tensor of another dtype."""
    typ, target = value.type, like.type
    if not isinstance(typ, ValueTensorType) or not isinstance(target, ValueTensorType):
        return value
    if typ.element is None or typ.element == target.element:
        return value
    return s.call(AtenTypeAsOp, value, like)


OPS = (AtenGroupNormOp, AtenInstanceNormOp)
