"""Normalization: softmax, log_softmax, layer_norm, batch_norm (inference), dropout (eval),
group_norm, instance_norm and local_response_norm.

- group_norm: (N, C, *) viewed as (N, G, C / G * prod(*)), each group normalized
  (`layer_norm` over the last dim), viewed back, then `weight[c] * y + bias[c]`.
- instance_norm with the input's statistics: `layer_norm` over the spatial dims (2, ...),
  then the per-channel affine; with running statistics (`use_input_stats=False`) it is
  `batch_norm` in inference mode. Running statistics are never updated here.

local_response_norm: `torch-decompose` writes it as the square, zero padding of the channel dim, the sum of `size`
shifted slices of it, then elementwise ops (no sizes needed).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import DType
from dialects.torch.families import explicit_dtype
from dialects.torch.meta import Dynamic, ShapeError, TensorMeta, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import (
    AtenAddScalarOp,
    AtenAddTensorOp,
    AtenDivScalarOp,
    AtenDivTensorOp,
    AtenMulScalarOp,
    AtenMulTensorOp,
    AtenPowTensorScalarOp,
)
from dialects.torch.ops.casts import AtenTypeAsOp
from dialects.torch.ops.data_movement import AtenSliceTensorOp
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.padding import AtenConstantPadNdOp
from dialects.torch.ops.views import AtenReshapeOp
from dialects.torch.types import (
    DYN,
    BoolType,
    FloatType,
    IntType,
    ListType,
    NoneType,
    ValueTensorType,
)
from dialects.torch.types import ValueTensorType as VT

OptionalTensor = VT | NoneType


def named(op: type[TorchOp], args: tuple[Any, ...]) -> dict[str, Any]:
    return {a.name: v for a, v in zip(op.parsed_schema().arguments, args)}


def constant(op: type[TorchOp], name: str, value: Any) -> Any:
    if isinstance(value, Dynamic):
        raise TypeError(f"{op.name}: `{name}` must be a constant")
    return value


def float_input(op: type[TorchOp], x: TensorMeta, dtype: DType | None = None) -> DType | None:
    """The dtype the op computes in: `dtype` if given, else the input's; floats only."""
    result = dtype or x.dtype
    if result is not None and not result.is_float:
        raise TypeError(f"{op.name}: expected a floating point input, got {result.name}")
    return result


def softmax(x: Any, dim: int, log: bool) -> Any:
    """Numerically stable: the maximum along `dim` is subtracted first (an empty `dim`: -inf,
    so a tensor of size 0 gives an empty result, not numpy's "no identity" error)."""
    shifted = x - np.max(x, axis=dim, keepdims=True, initial=-np.inf)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        total = np.sum(np.exp(shifted), axis=dim, keepdims=True)
        return shifted - np.log(total) if log else np.exp(shifted) * (1 / total)  # ATen's order


class SoftmaxOp(TorchOp):
    """`exp(x - max) / sum(exp(x - max))` along `dim` (or its log), in `dtype` if given."""

    LOG = False

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        values = named(cls, args)
        x: TensorMeta = values["self"]
        dtype = float_input(cls, x, explicit_dtype(values))
        if x.rank is not None:
            normalize_dim(constant(cls, "dim", values["dim"]), x.rank)
        return [VT(x.shape, dtype)]

    @classmethod
    def eager(cls, x: Any, dim: int, dtype: Any = None) -> Any:  # type: ignore[override]
        if dtype is not None:
            x = x.astype(explicit_dtype({"dtype": dtype}).numpy)  # type: ignore[union-attr]
        return softmax(x, dim, cls.LOG)

    def softmax_dim(self) -> int:
        rank = self.operands[0].type.get_num_dims()  # type: ignore[attr-defined]
        return normalize_dim(self.arg_values()[1], rank)


SOFTMAX_SAMPLES = (
    Sample(Tn((3, 5), low=-20, high=20), -1),
    Sample(Tn((4, 3), "float64", -5, 5), 0),
    Sample(Tn((2, 3, 4)), 1, dtype=7),
    Sample(Tn((6,), "int64", -3, 3), 0, dtype=6),
)


@torch_op
class AtenSoftmaxIntOp(SoftmaxOp):
    """Softmax along `dim` (`torch.softmax`, `F.softmax(x, dim)`, `x.softmax(dim)`)."""

    name = "torch.aten.softmax.int"
    SCHEMA = "aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.softmax", "Tensor.softmax", "F.softmax", "torch.special.softmax")
    SAMPLES = SOFTMAX_SAMPLES[:2]
    self_ = operand_def(VT)
    dim = operand_def(IntType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(VT)


@torch_op
class AtenLogSoftmaxIntOp(SoftmaxOp):
    """`(x - max) - log(sum(exp(x - max)))` along `dim` (`torch.log_softmax`)."""

    name = "torch.aten.log_softmax.int"
    SCHEMA = "aten::log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = (
        "torch.log_softmax",
        "Tensor.log_softmax",
        "F.log_softmax",
        "torch.special.log_softmax",
    )
    LOG = True
    SAMPLES = SOFTMAX_SAMPLES[2:]
    self_ = operand_def(VT)
    dim = operand_def(IntType)
    dtype = operand_def(IntType | NoneType)
    result = result_def(VT)


def _check_param(
    op: type[TorchOp], what: str, param: Any, shape: tuple[int, ...], x: TensorMeta
) -> None:
    if not isinstance(param, TensorMeta):
        return
    if param.shape is not None and not _shapes_agree(param.shape, shape):
        raise ShapeError(
            f"{op.name}: expected {what} of shape {list(shape)}, got {list(param.shape)}"
        )
    if None not in (param.dtype, x.dtype) and param.dtype != x.dtype:
        raise TypeError(f"{op.name}: {what} is {param.dtype.name} but the input is {x.dtype.name}")  # type: ignore[union-attr]


def _is_runtime_int(value: Any) -> bool:
    return isinstance(value, Dynamic) and value.kind == "int"


def _shapes_agree(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return len(a) == len(b) and all(x == y or DYN in (x, y) for x, y in zip(a, b))


def layer_norm(x: Any, shape: Any, weight: Any, bias: Any, eps: float) -> Any:
    """torch's order: (x - mean) * rsqrt(biased var + eps) * weight + bias, in x's dtype."""
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    count = x.dtype.type(int(np.prod(shape)))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.sum(x, axis=axes, keepdims=True) / count
        var = np.sum((x - mean) ** 2, axis=axes, keepdims=True) / count
        out = (x - mean) * (1 / np.sqrt(var + x.dtype.type(eps)))
    out = out if weight is None else out * weight
    return out if bias is None else out + bias


@torch_op
class AtenLayerNormOp(TorchOp):
    """Normalizes over the trailing `normalized_shape` dims (biased variance, `eps`), then
    scales by `weight` and shifts by `bias` when given (`F.layer_norm`)."""

    name = "torch.aten.layer_norm"
    SCHEMA = (
        "aten::layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
        "Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor"
    )
    PY_NAMES = ("torch.layer_norm", "F.layer_norm")
    SAMPLES = (
        Sample(Tn((2, 3, 4)), [4], Tn((4,)), Tn((4,))),
        Sample(Tn((3, 2, 5), "float64"), [2, 5], None, Tn((2, 5), "float64"), 1e-3),
    )
    input = operand_def(VT)
    normalized_shape = operand_def(ListType)
    weight = operand_def(OptionalTensor)
    bias = operand_def(OptionalTensor)
    eps = operand_def(FloatType | IntType)
    cudnn_enable = operand_def(BoolType)
    result = result_def(VT)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        values = named(cls, args)
        x: TensorMeta = values["input"]
        dtype = float_input(cls, x)
        sizes = constant(cls, "normalized_shape", values["normalized_shape"])
        if not all(isinstance(d, int) or _is_runtime_int(d) for d in sizes):
            raise TypeError(f"{cls.name}: `normalized_shape` must be a list of ints")
        # only its length matters to the lowering: a size known at run time (`x.shape[-1]`)
        # is checked like a `?` dim
        shape = tuple(DYN if _is_runtime_int(d) else d for d in sizes)
        if x.shape is not None and not _shapes_agree(x.shape[len(x.shape) - len(shape) :], shape):
            raise ShapeError(
                f"{cls.name}: input of shape {list(x.shape)} does not end in normalized_shape "
                f"{list(shape)}"
            )
        for what in ("weight", "bias"):
            _check_param(cls, what, values[what], shape, x)
        return [VT(x.shape, dtype)]

    @staticmethod
    def eager(x: Any, shape: Any, weight: Any = None, bias: Any = None, eps: float = 1e-5,
              cudnn_enable: bool = True) -> Any:  # fmt: skip
        return layer_norm(x, list(shape), weight, bias, eps)

    def normalized_rank(self) -> int:
        return len(self.arg_values()[1])


def batch_norm(x: Any, weight: Any, bias: Any, mean: Any, var: Any, eps: float) -> Any:
    """torch's inference form: scale = weight / sqrt(var + eps), x * scale + (bias - mean * scale)."""
    view = (1, -1) + (1,) * (x.ndim - 2)
    scale = 1 / np.sqrt(var + x.dtype.type(eps))
    scale = scale if weight is None else scale * weight
    shift = -mean * scale if bias is None else bias - mean * scale
    return x * scale.reshape(view) + shift.reshape(view)


@torch_op
class AtenBatchNormOp(TorchOp):
    """Batch normalization in inference mode (`training=False`): each channel (dim 1) is
    normalized with its running mean and variance, then scaled and shifted
    (`torch.batch_norm`; `F.batch_norm` orders its arguments differently, see the README)."""

    name = "torch.aten.batch_norm"
    SCHEMA = (
        "aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
        "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) "
        "-> Tensor"
    )
    PY_NAMES = ("torch.batch_norm",)
    SAMPLES = (
        Sample(Tn((2, 3, 4, 4)), Tn((3,)), Tn((3,)), Tn((3,)), Tn((3,), low=0.5, high=2.0),
               False, 0.1, 1e-5, False),
        Sample(Tn((4, 5), "float64"), None, None, Tn((5,), "float64"),
               Tn((5,), "float64", 0.5, 2.0), False, 0.1, 1e-3, False),
    )  # fmt: skip
    input = operand_def(VT)
    weight = operand_def(OptionalTensor)
    bias = operand_def(OptionalTensor)
    running_mean = operand_def(OptionalTensor)
    running_var = operand_def(OptionalTensor)
    training = operand_def(BoolType)
    momentum = operand_def(FloatType | IntType)
    eps = operand_def(FloatType | IntType)
    cudnn_enabled = operand_def(BoolType)
    result = result_def(VT)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        values = named(cls, args)
        x: TensorMeta = values["input"]
        if constant(cls, "training", values["training"]) is not False:
            raise TypeError(
                f"{cls.name}: training=True updates running statistics; tsjit compiles "
                "batch_norm in inference mode only (call model.eval())"
            )
        for what in ("running_mean", "running_var"):
            if not isinstance(values[what], TensorMeta):
                raise TypeError(f"{cls.name}: {what} must be defined in evaluation mode")
        dtype = float_input(cls, x)
        if x.rank is not None and x.rank < 2:
            raise ShapeError(f"{cls.name}: expected an input of rank 2 or more, got {x.rank}")
        channels = (DYN if x.shape is None else x.shape[1],)
        for what in ("weight", "bias", "running_mean", "running_var"):
            _check_param(cls, what, values[what], channels, x)
        return [VT(x.shape, dtype)]

    @staticmethod
    def eager(x: Any, weight: Any, bias: Any, mean: Any, var: Any, training: bool,
              momentum: float, eps: float, cudnn_enabled: bool) -> Any:  # fmt: skip
        return batch_norm(x, weight, bias, mean, var, eps)


@torch_op
class AtenDropoutOp(TorchOp):
    """Dropout in evaluation mode (`train=False`) is the identity; `train=True` is random
    and rejected (`torch.dropout`, `F.dropout(x, p, training)` positionally)."""

    name = "torch.aten.dropout"
    SCHEMA = "aten::dropout(Tensor input, float p, bool train) -> Tensor"
    PY_NAMES = ("torch.dropout", "F.dropout")
    SAMPLES = (Sample(Tn((3, 4)), 0.5, False), Sample(Tn((5,), "int64"), 0.0, False))
    input = operand_def(VT)
    p = operand_def(FloatType | IntType)
    train = operand_def(BoolType)
    result = result_def(VT)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, p, train = args
        p = constant(cls, "p", p)
        if not 0 <= p <= 1:
            raise ShapeError(f"dropout probability has to be between 0 and 1, but got {p}")
        if constant(cls, "train", train) is not False:
            raise TypeError(
                f"{cls.name}: train=True drops random elements; tsjit compiles dropout in "
                "evaluation mode only (train=False, e.g. after model.eval())"
            )
        return [x.to_type()]

    @staticmethod
    def eager(x: Any, p: float, train: bool) -> Any:
        return x


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


@torch_op
class AtenLocalResponseNormOp(TorchOp):
    """`F.local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0)` over dim 1 of an
    input with 3 or more dims."""

    name = "torch.aten._local_response_norm"
    SCHEMA = (
        "aten::_local_response_norm(Tensor input, int size, float alpha=0.0001, "
        "float beta=0.75, float k=1.0) -> Tensor"
    )
    PY_NAMES = ("F.local_response_norm",)
    SAMPLES = (Sample(Tn((2, 5, 3, 4)), 3), Sample(Tn((2, 6, 5), "float64"), 4, 0.01, 0.5, 2.0))
    input = operand_def(ValueTensorType)
    size = operand_def(IntType)
    alpha = operand_def(FloatType | IntType)
    beta = operand_def(FloatType | IntType)
    k = operand_def(FloatType | IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, size = args[:2]
        if isinstance(size, Dynamic) or not isinstance(size, int) or size <= 0:
            raise TypeError("local_response_norm: `size` must be a positive int known while scripting")  # fmt: skip
        if x.dtype is not None and not x.dtype.is_float:
            raise TypeError(f"local_response_norm: expected a floating input, got {x.dtype.name}")
        if x.rank is not None and x.rank < 3:
            raise ShapeError(
                f"Expected 3D or higher dimensionality input (got {x.rank} dimensions)"
            )
        return [ValueTensorType(x.shape, x.dtype)]

    @staticmethod
    def eager(x: Any, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Any:
        widths = [(0, 0)] * x.ndim
        widths[1] = (size // 2, (size - 1) // 2)
        squares = np.pad(x.astype(np.float64) ** 2, widths)
        channels = x.shape[1]
        total = sum(squares[:, j : j + channels] for j in range(size))
        return (x / (k + alpha * total / size) ** beta).astype(x.dtype)

    def decompose(self) -> Any:
        x = self.input
        if not isinstance(x.type, ValueTensorType) or x.type.rank is None:
            return None
        size = self.arg_values()[1]
        s = OpSequence()
        squares = s.call(AtenMulTensorOp, x, x)
        pads = [0, 0] * (x.type.rank - 2) + [size // 2, (size - 1) // 2]
        padded = s.call(AtenConstantPadNdOp, squares, pads, 0.0)
        total = None
        for j in range(size):
            end = j - (size - 1) if j < size - 1 else None  # the padded dim is C + size - 1
            window = s.call(AtenSliceTensorOp, padded, 1, j, end, 1)
            total = window if total is None else s.call(AtenAddTensorOp, total, window, 1)
        scaled = s.call(AtenDivScalarOp, s.call(AtenMulScalarOp, total, self.alpha), size)
        base = s.call(AtenAddScalarOp, scaled, self.k, 1)
        s.call(AtenDivTensorOp, x, s.call(AtenPowTensorScalarOp, base, self.beta))
        return s.ops


OPS = (
    AtenSoftmaxIntOp,
    AtenLogSoftmaxIntOp,
    AtenLayerNormOp,
    AtenBatchNormOp,
    AtenDropoutOp,
    AtenGroupNormOp,
    AtenInstanceNormOp,
    AtenLocalResponseNormOp,
)
