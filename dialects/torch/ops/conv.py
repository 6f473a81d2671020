"""Convolution: `conv2d` and `conv1d`, each with numeric padding and its `padding="same"/"valid"`
overload (conv1d runs as conv2d over a unit dim).

Input (N, C_in, H, W) or unbatched (C_in, H, W); weight (C_out, C_in / groups, kH, kW); bias
(C_out). `padding="same"` pads d * (k - 1) in total per dim, the odd one at the bottom/right,
and needs stride 1. Stride, numeric padding, dilation and groups are compile-time constants.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.spatial import IntList, OneDimOp, conv_output_size, image_dims, pair
from dialects.torch.ops.views import AtenPermuteOp
from dialects.torch.types import (
    DYN,
    IntType,
    ListType,
    NoneType,
    StrType,
    ValueTensorType,
)

Pads = tuple[tuple[int, int], tuple[int, int]]  # ((top, bottom), (left, right)); -1 if unknown


def conv_pads(padding: Any, kernel: tuple[int, int], stride: tuple[int, int],
              dilation: tuple[int, int]) -> Pads:  # fmt: skip
    """Padding as (before, after) per spatial dim; for "same" it depends on the kernel size
    (-1 while that is `?`)."""
    if padding == "valid":
        return (0, 0), (0, 0)
    if padding == "same":
        if stride != (1, 1):
            raise ShapeError("padding='same' is not supported for strided convolutions")
        pads = []
        for k, d in zip(kernel, dilation, strict=True):
            total = DYN if k == DYN else d * (k - 1)
            pads.append((DYN, DYN) if k == DYN else (total // 2, total - total // 2))
        return pads[0], pads[1]
    if isinstance(padding, str):
        raise ShapeError(f"Invalid padding string: '{padding}'")
    p = pair("conv2d", "padding", padding)
    if min(p) < 0:
        raise ShapeError("negative padding is not supported")
    return (p[0], p[0]), (p[1], p[1])


def check_conv(x: tuple[int, ...], w: tuple[int, ...], bias: Any, groups: int) -> None:
    """torch's checks on channels, groups and bias (`?` sizes pass)."""
    if len(w) != 4:
        raise ShapeError(f"conv2d: weight should have 4 dimensions, got {len(w)}")
    if groups <= 0:
        raise ShapeError("non-positive groups is not supported")
    if w[0] != DYN and w[0] % groups:
        raise ShapeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{list(w)}] instead"
        )
    channels = x[-3]
    if channels == 0 or w[1] == 0:  # PyTorch then gives an empty result of 0 channels, not
        raise ShapeError(  # the zeros of the empty sum: a shape rule of its own
            "conv2d of an input with 0 channels is not supported (PyTorch gives an empty "
            "result of 0 channels)"
        )
    if DYN not in (channels, w[1]) and channels != w[1] * groups:
        raise ShapeError(
            f"Given groups={groups}, weight of size {list(w)}, expected input{list(x)} to have "
            f"{w[1] * groups} channels, but got {channels} channels instead"
        )
    if isinstance(bias, TensorMeta) and bias.shape is not None:
        mismatch = DYN not in (bias.shape[0], w[0]) and bias.shape[0] != w[0]
        if len(bias.shape) != 1 or mismatch:
            raise ShapeError(
                f"Given weight of size {list(w)}, expected bias to be 1-dimensional with {w[0]} "
                f"elements, but got bias of size {list(bias.shape)} instead"
            )


def conv_dtype(x: TensorMeta, w: TensorMeta, bias: Any) -> Any:
    dtypes = {x.dtype, w.dtype} | ({bias.dtype} if isinstance(bias, TensorMeta) else set())
    if None in dtypes:
        return None
    if len(dtypes) > 1:
        raise TypeError(f"conv2d: input, weight and bias must have one dtype, got {dtypes}")
    dtype = dtypes.pop()
    if dtype.is_bool:
        raise TypeError("conv2d: not implemented for 'Bool'")
    return dtype


class Conv2dBase(TorchOp):
    """Shape rule and reference shared by the two conv2d overloads."""

    @classmethod
    def window(cls, args: tuple[Any, ...], kernel: tuple[int, int]) -> tuple[Any, ...]:
        """(stride, pads, dilation, groups) of the call."""
        stride, dilation = pair("conv2d", "stride", args[3]), pair("conv2d", "dilation", args[5])
        if min(stride) <= 0 or min(dilation) <= 0:
            raise ShapeError("conv2d: stride and dilation must be positive")
        if not isinstance(args[6], int):
            raise TypeError("conv2d: `groups` must be a constant int")
        return stride, conv_pads(args[4], kernel, stride, dilation), dilation, args[6]

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, w, bias = args[:3]
        dtype = conv_dtype(x, w, bias)
        shape = image_dims("conv2d", x)
        if shape is None or w.shape is None:
            return [ValueTensorType(None, dtype)]
        stride, pads, dilation, groups = cls.window(args, (w.shape[2], w.shape[3]))
        check_conv(shape, w.shape, bias, groups)
        out_hw = []
        for size, k, s, (before, after), d in zip(shape[-2:], w.shape[2:], stride, pads, dilation):
            total = DYN if DYN in (before, after) else before + after
            padded = DYN if DYN in (size, total) else size + total
            if DYN not in (padded, k) and d * (k - 1) + 1 > padded:
                raise ShapeError(
                    f"Calculated padded input size per channel: ({padded}). Kernel size: ({k}). "
                    "Kernel size can't be greater than actual input size"
                )
            same = args[4] == "same"
            out_hw.append(
                size if same else conv_output_size(size, k, s, 0 if total == DYN else total, d)
            )
        return [ValueTensorType((*shape[:-3], w.shape[0], *out_hw), dtype)]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        x, w, bias = args[:3]
        stride, pads, dilation, groups = cls.window(args, (w.shape[2], w.shape[3]))
        return conv2d_reference(x, w, bias, stride, pads, dilation, groups)


def conv2d_reference(x: Any, w: Any, bias: Any, stride: tuple[int, int], pads: Pads,
                     dilation: tuple[int, int], groups: int) -> Any:  # fmt: skip
    """Sum over kernel positions of channel contractions, accumulated in float64 / int64."""
    batch = x if x.ndim == 4 else x[None]
    wide = np.float64 if x.dtype.kind == "f" else np.int64
    padded = np.pad(batch.astype(wide), ((0, 0), (0, 0), *pads))
    cout, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    oh = (padded.shape[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (padded.shape[3] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((batch.shape[0], cout, oh, ow), dtype=wide)
    og = cout // groups
    for g in range(groups):
        xs, ws = padded[:, g * cg : (g + 1) * cg], w[g * og : (g + 1) * og].astype(wide)
        for i in range(kh):
            for j in range(kw):
                rows = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh)
                cols = slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)
                patch = xs[:, :, rows, cols]
                out[:, g * og : (g + 1) * og] += np.einsum("nchw,oc->nohw", patch, ws[:, :, i, j])
    if bias is not None:
        out += bias.astype(wide)[None, :, None, None]
    return (out if x.ndim == 4 else out[0]).astype(x.dtype)


@torch_op
class AtenConv2dOp(Conv2dBase):
    """`F.conv2d(input, weight, bias, stride, padding, dilation, groups)` with numeric padding.

    ```mlir
    %r = torch.aten.conv2d %x, %w, %b, %stride, %padding, %dilation, %int1 : !torch.vtensor<[?,2,6,6],f32>, !torch.vtensor<[4,2,3,3],f32>, !torch.vtensor<[4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.int -> !torch.vtensor<[?,4,6,6],f32>
    ```
    """

    name = "torch.aten.conv2d"
    SCHEMA = (
        "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=[1, 1], "
        "int[2] padding=[0, 0], int[2] dilation=[1, 1], int groups=1) -> Tensor"
    )
    PY_NAMES = ("F.conv2d", "torch.conv2d")
    SAMPLES = (
        Sample(Tn((1, 2, 6, 6), low=-1, high=1), Tn((4, 2, 3, 3), low=-1, high=1),
               Tn((4,), low=-1, high=1)),
        Sample(Tn((2, 4, 7, 6), "float64"), Tn((4, 2, 3, 2), "float64"), None, [2, 1], [1, 2],
               [1, 2], 2),
        Sample(Tn((3, 5, 5), "int64", -3, 3), Tn((2, 3, 2, 2), "int64", -3, 3), None, 1, 1),
    )  # fmt: skip
    input = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    bias = operand_def(ValueTensorType | NoneType)
    stride = operand_def(ListType | IntType)
    padding = operand_def(ListType | IntType)
    dilation = operand_def(ListType | IntType)
    groups = operand_def(IntType)
    result = result_def(ValueTensorType)


@torch_op
class AtenConv2dPaddingOp(Conv2dBase):
    """`F.conv2d(..., padding="same" | "valid")`: "same" keeps H and W (stride 1 only)."""

    name = "torch.aten.conv2d.padding"
    SCHEMA = (
        "aten::conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, "
        'int[2] stride=[1, 1], str padding="valid", int[2] dilation=[1, 1], int groups=1) '
        "-> Tensor"
    )
    PY_NAMES = ("F.conv2d", "torch.conv2d")
    SAMPLES = (
        Sample(Tn((1, 2, 6, 6), low=-1, high=1), Tn((3, 2, 4, 3), low=-1, high=1),
               Tn((3,), low=-1, high=1), 1, "same"),
        Sample(Tn((1, 2, 5, 5), "float64"), Tn((2, 1, 3, 3), "float64"), None, 1, "same", 2, 2),
        Sample(Tn((2, 6, 5)), Tn((2, 2, 2, 2)), None, 1, "valid"),
    )  # fmt: skip
    input = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    bias = operand_def(ValueTensorType | NoneType)
    stride = operand_def(ListType | IntType)
    padding = operand_def(StrType)
    dilation = operand_def(ListType | IntType)
    groups = operand_def(IntType)
    result = result_def(ValueTensorType)


@torch_op
class AtenConv1dOp(OneDimOp):
    """`F.conv1d(input, weight, bias, stride, padding, dilation, groups)`: conv2d over a
    height of one."""

    name = "torch.aten.conv1d"
    SCHEMA = (
        "aten::conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=[1], "
        "int[1] padding=[0], int[1] dilation=[1], int groups=1) -> Tensor"
    )
    PY_NAMES = ("F.conv1d", "torch.conv1d")
    TWO_D = AtenConv2dOp
    WINDOW: ClassVar[dict[int, int]] = {3: 1, 4: 0, 5: 1}
    WEIGHT = True
    SAMPLES = (
        Sample(Tn((2, 4, 9), low=-1, high=1), Tn((6, 2, 3), low=-1, high=1),
               Tn((6,), low=-1, high=1), 2, 1, 2, 2),
        Sample(Tn((3, 7), "float64"), Tn((2, 3, 2), "float64")),
    )  # fmt: skip
    input = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    bias = operand_def(ValueTensorType | NoneType)
    stride = operand_def(IntList)
    padding = operand_def(IntList)
    dilation = operand_def(IntList)
    groups = operand_def(IntType)
    result = result_def(ValueTensorType)


@torch_op
class AtenConv1dPaddingOp(OneDimOp):
    """`F.conv1d(..., padding="same" | "valid")`."""

    name = "torch.aten.conv1d.padding"
    SCHEMA = (
        "aten::conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, "
        'int[1] stride=[1], str padding="valid", int[1] dilation=[1], int groups=1) -> Tensor'
    )
    PY_NAMES = ("F.conv1d", "torch.conv1d")
    TWO_D = AtenConv2dPaddingOp
    WINDOW: ClassVar[dict[int, int]] = {3: 1, 5: 1}
    WEIGHT = True
    SAMPLES = (Sample(Tn((1, 2, 8)), Tn((3, 2, 4)), Tn((3,)), 1, "same", 2),)
    input = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    bias = operand_def(ValueTensorType | NoneType)
    stride = operand_def(IntList)
    padding = operand_def(StrType)
    dilation = operand_def(IntList)
    groups = operand_def(IntType)
    result = result_def(ValueTensorType)


@torch_op
class AtenConvTbcOp(TorchOp):
    """`torch.conv_tbc(x, weight, bias, pad=0)`: a 1-D convolution of a (time, batch, C_in)
    input with a (K, C_in, C_out) weight, giving (time + 2 * pad - K + 1, batch, C_out):
    conv1d of the permuted input and weight, permuted back."""

    name = "torch.aten.conv_tbc"
    SCHEMA = "aten::conv_tbc(Tensor self, Tensor weight, Tensor bias, int pad=0) -> Tensor"
    PY_NAMES = ("torch.conv_tbc", "Tensor.conv_tbc")
    SAMPLES = (Sample(Tn((6, 2, 3)), Tn((2, 3, 4)), Tn((4,)), 1),
               Sample(Tn((5, 1, 2), "float64"), Tn((3, 2, 2), "float64"), Tn((2,), "float64")))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    bias = operand_def(ValueTensorType)
    pad = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(
        cls, x: TensorMeta, weight: TensorMeta, bias: TensorMeta, pad: Any
    ) -> list[Attribute]:
        if not isinstance(pad, int):
            raise TypeError("conv_tbc: `pad` must be a constant int")
        if x.shape is not None and len(x.shape) != 3:
            raise ShapeError("Input must have 3 dims: time, batch, in_channel")
        if weight.shape is not None and len(weight.shape) != 3:
            raise ShapeError(
                "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels."
            )
        if bias.shape is not None and len(bias.shape) != 1:
            raise ShapeError("Bias must be 1-D")
        if x.shape is None or weight.shape is None:
            return [ValueTensorType(None, x.dtype)]
        if DYN not in (x.shape[2], weight.shape[1]) and x.shape[2] != weight.shape[1]:
            raise ShapeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
        if (
            bias.shape is not None
            and DYN not in (bias.shape[0], weight.shape[2])
            and (bias.shape[0] != weight.shape[2])
        ):
            raise ShapeError("Bias size must equal dim 2 in the weight tensor (output channels).")
        time = conv_output_size(x.shape[0], weight.shape[0], 1, 2 * pad, 1)
        return [ValueTensorType((time, x.shape[1], weight.shape[2]), x.dtype)]

    @staticmethod
    def eager(x: Any, weight: Any, bias: Any, pad: int = 0) -> Any:
        padded = np.pad(x, ((pad, pad), (0, 0), (0, 0)))
        k = weight.shape[0]
        steps = padded.shape[0] - k + 1
        out = np.broadcast_to(bias, (steps, x.shape[1], weight.shape[2])).astype(np.float64)
        for i in range(k):
            out = out + padded[i : i + steps] @ weight[i]
        return out

    def decompose(self) -> Any:
        s = OpSequence()
        x = s.call(AtenPermuteOp, self.self_, [1, 2, 0])
        w = s.call(AtenPermuteOp, self.weight, [2, 1, 0])
        pad = self.arg_values()[3]
        y = s.call(AtenConv1dOp, x, w, self.bias, [1], [pad], [1], 1)
        s.call(AtenPermuteOp, y, [2, 0, 1])
        return s.ops


OPS = (
    AtenConvTbcOp,
    AtenConv2dOp,
    AtenConv2dPaddingOp,
    AtenConv1dOp,
    AtenConv1dPaddingOp,
)
