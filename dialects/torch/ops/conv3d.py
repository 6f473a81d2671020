"""3-D convolution: `conv3d` with numeric padding and its `padding="same"/"valid"` overload,
run as conv2d over depth slices, and `conv_transpose3d`, run as conv3d.

Input (N, C_in, D, H, W) or unbatched (C_in, D, H, W); weight (C_out, C_in / groups, kD, kH,
kW); bias (C_out). `padding="same"` pads d * (k - 1) in total per dim, the odd one after, and
needs stride 1. `torch-decompose` pads the input once (zeros), then for each depth tap i of
the kernel takes the strided depth slice it reads for every output depth, folds those depths
into the batch (`[N * OD, C, H', W']`) and runs `conv2d` with the kernel's slice i (the bias
with the first tap); the taps' sum is unfolded back to (N, C_out, OD, OH, OW). The depth and
the kernel's sizes must be known (while they are not, the result type stays open and the
frontend compiles the call for its exact shapes); N, H and W may be known at run time only.

`conv_transpose3d` (weight (C_in, C_out / groups, kD, kH, kW)) decomposes as 2-D's does
(`conv_transpose.py`): `stride - 1` zeros after each input element (unit dims after D, H and
W, zero-padded, flattened back), padding `dilation * (k - 1) - padding` before and that plus
`output_padding` after (negative amounts crop), then conv3d with stride 1 by the kernel
flipped in space with its channel dims swapped in each group.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import AtenAddTensorOp
from dialects.torch.ops.conv import AtenConv2dOp, check_conv, conv2d_reference, conv_dtype
from dialects.torch.ops.conv_transpose import output_size
from dialects.torch.ops.data_movement import AtenSelectIntOp, AtenSliceTensorOp
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.padding import AtenConstantPadNdOp
from dialects.torch.ops.pooling3d import triple
from dialects.torch.ops.reorder import AtenFlipOp
from dialects.torch.ops.spatial import conv_output_size
from dialects.torch.ops.views import (
    AtenFlattenUsingIntsOp,
    AtenPermuteOp,
    AtenReshapeOp,
    AtenSqueezeDimOp,
    AtenTransposeIntOp,
    AtenUnsqueezeOp,
    AtenViewOp,
)
from dialects.torch.types import DYN, IntType, ListType, NoneType, StrType, ValueTensorType

Pads3 = tuple[tuple[int, int], tuple[int, int], tuple[int, int]]  # (before, after) per dim


def conv3d_pads(padding: Any, kernel: tuple[int, ...], stride: tuple[int, ...],
                dilation: tuple[int, ...]) -> Pads3:  # fmt: skip
    """Padding as (before, after) for D, H and W."""
    if padding == "valid":
        return (0, 0), (0, 0), (0, 0)
    if padding == "same":
        if stride != (1, 1, 1):
            raise ShapeError("padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) for k, d in zip(kernel, dilation, strict=True)]
        return tuple((t // 2, t - t // 2) for t in totals)  # type: ignore[return-value]
    if isinstance(padding, str):
        raise ShapeError(f"Invalid padding string: '{padding}'")
    p = triple("conv3d", "padding", padding)
    if min(p) < 0:
        raise ShapeError("negative padding is not supported")
    return (p[0], p[0]), (p[1], p[1]), (p[2], p[2])


class Conv3dBase(TorchOp):
    """Shape rule, reference and decomposition shared by the two conv3d overloads."""

    @classmethod
    def window(cls, args: tuple[Any, ...], kernel: tuple[int, ...]) -> tuple[Any, ...]:
        """(stride, pads, dilation, groups) of the call."""
        stride, dilation = (
            triple("conv3d", "stride", args[3]),
            triple("conv3d", "dilation", args[5]),
        )
        if min(stride) <= 0 or min(dilation) <= 0:
            raise ShapeError("conv3d: stride and dilation must be positive")
        if not isinstance(args[6], int):
            raise TypeError("conv3d: `groups` must be a constant int")
        return stride, conv3d_pads(args[4], kernel, stride, dilation), dilation, args[6]

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, w, bias = args[:3]
        dtype = conv_dtype(x, w, bias)
        if x.shape is not None and len(x.shape) not in (4, 5):
            raise ShapeError(
                f"Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of "
                f"size: {list(x.shape)}"
            )
        if w.shape is not None and len(w.shape) != 5:
            raise ShapeError(f"conv3d: weight should have 5 dimensions, got {len(w.shape)}")
        if x.shape is None or w.shape is None or DYN in (x.shape[-3], *w.shape[2:]):
            return [ValueTensorType(None, dtype)]  # open: compiled for the exact shapes
        stride, pads, dilation, groups = cls.window(args, w.shape[2:])
        image = (*x.shape[:-4], x.shape[-4], *x.shape[-2:])  # channels at -3, as conv2d's
        check_conv(image, (*w.shape[:2], *w.shape[3:]), bias, groups)
        out = []
        for size, k, s, (before, after), d in zip(
            x.shape[-3:], w.shape[2:], stride, pads, dilation
        ):
            padded = DYN if DYN in (size, k) else size + before + after
            if padded != DYN and d * (k - 1) + 1 > padded:
                raise ShapeError(
                    f"Calculated padded input size per channel: ({padded}). Kernel size: ({k}). "
                    "Kernel size can't be greater than actual input size"
                )
            out.append(conv_output_size(size, k, s, before + after, d))
        return [ValueTensorType((*x.shape[:-4], w.shape[0], *out), dtype)]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        x, w, bias = args[:3]
        stride, pads, dilation, groups = cls.window(args, w.shape[2:])
        batch = x if x.ndim == 5 else x[None]
        padded = np.pad(batch, ((0, 0), (0, 0), *pads))
        depth = (padded.shape[2] - dilation[0] * (w.shape[2] - 1) - 1) // stride[0] + 1
        planes = []
        for od in range(depth):
            total = None
            for i in range(w.shape[2]):
                image = padded[:, :, od * stride[0] + i * dilation[0]]
                part = conv2d_reference(image, w[:, :, i], bias if i == 0 else None,
                                        stride[1:], ((0, 0), (0, 0)), dilation[1:], groups)  # fmt: skip
                total = part if total is None else total + part
            planes.append(total)
        out = np.stack(planes, axis=2)
        return out if x.ndim == 5 else out[0]

    def decompose(self) -> Any:
        x, w, bias = self.operands[:3]
        xt, wt = x.type, w.type
        if not isinstance(xt, ValueTensorType) or not isinstance(wt, ValueTensorType):
            return None
        if xt.sizes is None or wt.sizes is None or DYN in (xt.sizes[-3], *wt.sizes[2:]):
            return None
        args = tuple(self.arg_values())
        stride, pads, dilation, groups = self.window(args, wt.sizes[2:])
        s = OpSequence()
        batched = len(xt.sizes) == 5
        value = x if batched else s.call(AtenUnsqueezeOp, x, 0)
        if any(p for pair in pads for p in pair):
            flat_pads = [p for pair in reversed(pads) for p in pair]  # W first, as torch's pad
            value = s.call(AtenConstantPadNdOp, value, flat_pads, 0)
        depth = xt.sizes[-3] + sum(pads[0])
        out_depth = (depth - dilation[0] * (wt.sizes[2] - 1) - 1) // stride[0] + 1
        total = None
        for i in range(wt.sizes[2]):
            start = i * dilation[0]
            slab = s.call(AtenSliceTensorOp, value, 2, start,
                          start + stride[0] * (out_depth - 1) + 1, stride[0])  # fmt: skip
            images = s.call(
                AtenFlattenUsingIntsOp, s.call(AtenPermuteOp, slab, [0, 2, 1, 3, 4]), 0, 1
            )
            kernel = s.call(AtenSelectIntOp, w, 2, i)
            part = s.call(AtenConv2dOp, images, kernel, bias if i == 0 else None,
                          list(stride[1:]), [0, 0], list(dilation[1:]), groups)  # fmt: skip
            total = part if total is None else s.call(AtenAddTensorOp, total, part, 1)
        assert total is not None
        self.unfold(s, total, value, out_depth)
        if not batched:
            s.call(AtenSqueezeDimOp, s.ops[-1].results[0], 0)
        return s.ops

    @staticmethod
    def unfold(s: OpSequence, total: SSAValue, value: SSAValue, out_depth: int) -> None:
        """[N * OD, C_out, OH, OW] back to (N, C_out, OD, OH, OW)."""
        sizes = [s.size(value, 0), out_depth, *(s.size(total, d) for d in (1, 2, 3))]
        volume = s.call(AtenViewOp, total, sizes)
        s.call(AtenPermuteOp, volume, [0, 2, 1, 3, 4])


@torch_op
class AtenConv3dOp(Conv3dBase):
    """`F.conv3d(input, weight, bias, stride, padding, dilation, groups)` with numeric padding."""

    name = "torch.aten.conv3d"
    SCHEMA = (
        "aten::conv3d(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=[1, 1, 1], "
        "int[3] padding=[0, 0, 0], int[3] dilation=[1, 1, 1], int groups=1) -> Tensor"
    )
    PY_NAMES = ("F.conv3d", "torch.conv3d")
    SAMPLES = (
        Sample(Tn((1, 2, 4, 5, 5), low=-1, high=1), Tn((3, 2, 3, 3, 2), low=-1, high=1),
               Tn((3,), low=-1, high=1), 1, 1),
        Sample(Tn((2, 4, 5, 6, 5), "float64"), Tn((4, 2, 2, 3, 2), "float64"), None, [2, 1, 2],
               [1, 0, 1], [2, 1, 1], 2),
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
class AtenConv3dPaddingOp(Conv3dBase):
    """`F.conv3d(..., padding="same" | "valid")`: "same" keeps D, H and W (stride 1 only)."""

    name = "torch.aten.conv3d.padding"
    SCHEMA = (
        "aten::conv3d.padding(Tensor input, Tensor weight, Tensor? bias=None, "
        'int[3] stride=[1, 1, 1], str padding="valid", int[3] dilation=[1, 1, 1], '
        "int groups=1) -> Tensor"
    )
    PY_NAMES = ("F.conv3d", "torch.conv3d")
    SAMPLES = (Sample(Tn((2, 4, 5, 4)), Tn((2, 2, 2, 3, 2)), Tn((2,)), 1, "same", [1, 2, 1], 1),)
    input = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    bias = operand_def(ValueTensorType | NoneType)
    stride = operand_def(ListType | IntType)
    padding = operand_def(StrType)
    dilation = operand_def(ListType | IntType)
    groups = operand_def(IntType)
    result = result_def(ValueTensorType)


def transpose_window(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """(stride, padding, output_padding, groups, dilation) of a conv_transpose3d call."""
    name = "conv_transpose3d"
    stride, padding, output_padding = (
        triple(name, what, value)
        for what, value in zip(("stride", "padding", "output_padding"), args[3:6], strict=True)
    )
    dilation, groups = triple(name, "dilation", args[7]), args[6]
    if not isinstance(groups, int) or groups <= 0:
        raise ShapeError(f"{name}: non-positive groups is not supported")
    if min(stride) <= 0 or min(dilation) <= 0 or min(padding) < 0 or min(output_padding) < 0:
        raise ShapeError(f"{name}: stride and dilation must be positive, padding not negative")
    for op, st, d in zip(output_padding, stride, dilation, strict=True):
        if op >= max(st, d):
            raise ShapeError(
                "output padding must be smaller than either stride or dilation, but got "
                f"output_padding: {list(output_padding)} stride: {list(stride)} dilation: "
                f"{list(dilation)}"
            )
    return stride, padding, output_padding, groups, dilation


@torch_op
class AtenConvTranspose3dOp(TorchOp):
    """`F.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups,
    dilation)`: the gradient of conv3d with respect to its input."""

    name = "torch.aten.conv_transpose3d.input"
    SCHEMA = (
        "aten::conv_transpose3d.input(Tensor input, Tensor weight, Tensor? bias=None, "
        "int[3] stride=[1, 1, 1], int[3] padding=[0, 0, 0], int[3] output_padding=[0, 0, 0], "
        "int groups=1, int[3] dilation=[1, 1, 1]) -> Tensor"
    )
    PY_NAMES = ("F.conv_transpose3d", "torch.conv_transpose3d")
    SAMPLES = (
        Sample(Tn((1, 4, 2, 3, 3), low=-1, high=1), Tn((4, 1, 2, 3, 2), low=-1, high=1),
               Tn((2,), low=-1, high=1), [2, 1, 2], [1, 0, 1], [1, 0, 0], 2, 1),
        Sample(Tn((2, 3, 2, 2), "float64"), Tn((2, 2, 2, 2, 1), "float64"), None, 2, 1, 0, 1,
               [1, 2, 1]),
    )  # fmt: skip
    input = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    bias = operand_def(ValueTensorType | NoneType)
    stride = operand_def(ListType | IntType)
    padding = operand_def(ListType | IntType)
    output_padding = operand_def(ListType | IntType)
    groups = operand_def(IntType)
    dilation = operand_def(ListType | IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, w, bias = args[:3]
        dtype = conv_dtype(x, w, bias)
        stride, padding, output_padding, groups, dilation = transpose_window(args)
        if x.shape is not None and len(x.shape) not in (4, 5):
            raise ShapeError(
                f"Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got "
                f"input of size: {list(x.shape)}"
            )
        if x.shape is None or w.shape is None or DYN in w.shape:
            return [ValueTensorType(None, dtype)]  # open: compiled for the exact shapes
        if len(w.shape) != 5:
            raise ShapeError(f"conv_transpose3d: weight should have 5 dimensions, got {len(w.shape)}")  # fmt: skip
        channels = x.shape[-4]
        if channels not in (DYN, w.shape[0]):
            raise ShapeError(
                f"Given transposed=1, weight of size {list(w.shape)}, expected input "
                f"{list(x.shape)} to have {w.shape[0]} channels, but got {channels} channels "
                "instead"
            )
        if w.shape[0] % groups:
            raise ShapeError(f"conv_transpose3d: the weight's {w.shape[0]} input channels are not divisible by groups={groups}")  # fmt: skip
        out_channels = w.shape[1] * groups
        if isinstance(bias, TensorMeta) and bias.shape not in (None, (out_channels,)):
            raise ShapeError(f"conv_transpose3d: expected bias of {out_channels} elements, got shape {list(bias.shape)}")  # fmt: skip
        sizes = [
            output_size(n, k, st, p, op, d)
            for n, k, st, p, op, d in zip(
                x.shape[-3:], w.shape[2:], stride, padding, output_padding, dilation, strict=True
            )
        ]
        if any(n != DYN and n <= 0 for n in sizes):
            raise ShapeError(f"conv_transpose3d: the output size {sizes} is too small")
        return [ValueTensorType((*x.shape[:-4], out_channels, *sizes), dtype)]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        x, w, bias = args[:3]
        stride, padding, output_padding, groups, dilation = transpose_window(args)
        batch = x if x.ndim == 5 else x[None]
        wide = np.float64 if x.dtype.kind == "f" else np.int64
        kernel, sizes = w.shape[2:], batch.shape[2:]
        full_sizes = [(n - 1) * st + d * (k - 1) + 1 + op for n, st, d, k, op
                      in zip(sizes, stride, dilation, kernel, output_padding, strict=True)]  # fmt: skip
        cg = w.shape[1]
        full = np.zeros((batch.shape[0], cg * groups, *full_sizes), dtype=wide)
        ig = batch.shape[1] // groups
        for g in range(groups):
            xs, ws = batch[:, g * ig : (g + 1) * ig].astype(wide), w[g * ig : (g + 1) * ig]
            for tap in np.ndindex(*kernel):
                at = tuple(
                    slice(t * d, t * d + st * (n - 1) + 1, st)
                    for t, d, st, n in zip(tap, dilation, stride, sizes, strict=True)
                )
                part = np.einsum("ncdhw,co->nodhw", xs, ws[(slice(None), slice(None), *tap)])
                full[(slice(None), slice(g * cg, (g + 1) * cg), *at)] += part
        crop = tuple(
            slice(p, p + (n - 1) * st - 2 * p + d * (k - 1) + op + 1)
            for p, n, st, d, k, op in zip(
                padding, sizes, stride, dilation, kernel, output_padding, strict=True
            )
        )
        out = full[(slice(None), slice(None), *crop)]
        if bias is not None:
            out = out + bias.astype(wide)[None, :, None, None, None]
        return (out if x.ndim == 5 else out[0]).astype(x.dtype)

    def decompose(self) -> Any:
        x, w = self.input, self.weight
        xt, wt = x.type, w.type
        if not isinstance(xt, ValueTensorType) or xt.sizes is None:
            return None
        if not isinstance(wt, ValueTensorType) or wt.sizes is None or DYN in wt.sizes:
            return None
        stride, padding, output_padding, groups, dilation = transpose_window(
            tuple(self.arg_values())
        )
        s = OpSequence()
        batched = len(xt.sizes) == 5
        image = x if batched else s.call(AtenUnsqueezeOp, x, 0)
        if stride != (1, 1, 1):  # stride - 1 zeros after each element: (N, C, D, s, H, s, W, s)
            spread = image
            for dim in (3, 5, 7):
                spread = s.call(AtenUnsqueezeOp, spread, dim)
            pads = [0, stride[2] - 1, 0, 0, 0, stride[1] - 1, 0, 0, 0, stride[0] - 1]
            spread = s.call(AtenConstantPadNdOp, spread, pads, 0)
            for start in (6, 4, 2):
                spread = s.call(AtenFlattenUsingIntsOp, spread, start, start + 1)
            image = spread
        cin, cg, *kernel = wt.sizes
        pads = []
        for k, p, op, st, d in reversed(
            list(zip(kernel, padding, output_padding, stride, dilation, strict=True))
        ):
            before = d * (k - 1) - p
            pads += [before, before + op - (st - 1)]
        image = s.call(AtenConstantPadNdOp, image, pads, 0)
        flipped = s.call(AtenReshapeOp, w, [groups, cin // groups, cg, *kernel])
        flipped = s.call(AtenTransposeIntOp, flipped, 1, 2)
        flipped = s.call(AtenReshapeOp, flipped, [groups * cg, cin // groups, *kernel])
        flipped = s.call(AtenFlipOp, flipped, [2, 3, 4])
        out = s.call(AtenConv3dOp, image, flipped, self.bias, [1, 1, 1], [0, 0, 0],
                     list(dilation), groups)  # fmt: skip
        if not batched:
            s.call(AtenSqueezeDimOp, out, 0)
        return s.ops


OPS = (AtenConv3dOp, AtenConv3dPaddingOp, AtenConvTranspose3dOp)
