"""Transposed convolution: `conv_transpose2d` (and `conv_transpose1d`, the 2-D op over a unit
height), decomposed into `conv2d`.

Input (N, C_in, H, W) or unbatched (C_in, H, W); weight (C_in, C_out / groups, kH, kW). The
output has size `(H - 1) * stride - 2 * padding + dilation * (kH - 1) + output_padding + 1`.
`torch-decompose` writes it as PyTorch defines it: the input with `stride - 1` zeros between
its elements (a reshape to (N, C, H, 1, W, 1), zero padding of the unit dims, a reshape back),
padded by `dilation * (k - 1) - padding` (plus `output_padding` after; negative amounts crop),
convolved with stride 1 by the kernel flipped in space and with its channel dims swapped in
each group. The kernel's sizes must be known (a module's weights are): while they are not, the
result type stays open and the frontend compiles the call for its exact shapes.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.conv import AtenConv2dOp, conv_dtype
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.padding import AtenConstantPadNdOp
from dialects.torch.ops.reorder import AtenFlipOp
from dialects.torch.ops.spatial import OneDimOp, image_dims, pair
from dialects.torch.ops.views import (
    AtenFlattenUsingIntsOp,
    AtenReshapeOp,
    AtenSqueezeDimOp,
    AtenTransposeIntOp,
    AtenUnsqueezeOp,
)
from dialects.torch.types import DYN, IntType, ListType, NoneType, ValueTensorType

IntList = ListType | IntType


def window(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """(stride, padding, output_padding, groups, dilation) of a conv_transpose2d call."""
    stride, padding, output_padding = (
        pair("conv_transpose2d", what, value)
        for what, value in zip(("stride", "padding", "output_padding"), args[3:6])
    )
    dilation = pair("conv_transpose2d", "dilation", args[7])
    groups = args[6]
    if not isinstance(groups, int) or groups <= 0:
        raise ShapeError("conv_transpose2d: non-positive groups is not supported")
    if min(stride) <= 0 or min(dilation) <= 0 or min(padding) < 0 or min(output_padding) < 0:
        raise ShapeError("conv_transpose2d: stride and dilation must be positive, padding not negative")  # fmt: skip
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= max(s, d):
            raise ShapeError(
                "output padding must be smaller than either stride or dilation, but got "
                f"output_padding: {list(output_padding)} stride: {list(stride)} dilation: "
                f"{list(dilation)}"
            )
    return stride, padding, output_padding, groups, dilation


def _bias_fits(shape: tuple[int, ...], channels: int) -> bool:
    return len(shape) == 1 and (DYN in (shape[0], channels) or shape[0] == channels)


def output_size(size: int, k: int, s: int, p: int, op: int, d: int) -> int:
    if DYN in (size, k):
        return DYN
    return (size - 1) * s - 2 * p + d * (k - 1) + op + 1


@torch_op
class AtenConvTranspose2dOp(TorchOp):
    """`F.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups,
    dilation)`: the gradient of conv2d with respect to its input (a "deconvolution")."""

    name = "torch.aten.conv_transpose2d.input"
    SCHEMA = (
        "aten::conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, "
        "int[2] stride=[1, 1], int[2] padding=[0, 0], int[2] output_padding=[0, 0], "
        "int groups=1, int[2] dilation=[1, 1]) -> Tensor"
    )
    PY_NAMES = ("F.conv_transpose2d", "torch.conv_transpose2d")
    SAMPLES = (
        Sample(Tn((1, 4, 3, 4), low=-1, high=1), Tn((4, 3, 3, 2), low=-1, high=1),
               Tn((6,), low=-1, high=1), [2, 1], [1, 0], [1, 0], 2, 1),
        Sample(Tn((2, 3, 3), "float64"), Tn((2, 2, 2, 3), "float64"), None, 3, 2, 1, 1, [1, 2]),
    )  # fmt: skip
    input = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    bias = operand_def(ValueTensorType | NoneType)
    stride = operand_def(IntList)
    padding = operand_def(IntList)
    output_padding = operand_def(IntList)
    groups = operand_def(IntType)
    dilation = operand_def(IntList)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, w, bias = args[:3]
        dtype = conv_dtype(x, w, bias)
        shape = image_dims("conv_transpose2d", x)
        stride, padding, output_padding, groups, dilation = window(args)
        if shape is None or w.shape is None:
            return [ValueTensorType(None, dtype)]
        if len(w.shape) != 4:
            raise ShapeError(f"conv_transpose2d: weight should have 4 dimensions, got {len(w.shape)}")  # fmt: skip
        channels = shape[-3]
        if DYN not in (channels, w.shape[0]) and channels != w.shape[0]:
            raise ShapeError(
                f"Given transposed=1, weight of size {list(w.shape)}, expected input "
                f"{list(shape)} to have {w.shape[0]} channels, but got {channels} channels instead"
            )
        if w.shape[0] != DYN and w.shape[0] % groups:
            raise ShapeError(f"conv_transpose2d: the weight's {w.shape[0]} input channels are not divisible by groups={groups}")  # fmt: skip
        out_channels = DYN if w.shape[1] == DYN else w.shape[1] * groups
        bias_shape = bias.shape if isinstance(bias, TensorMeta) else None
        if bias_shape is not None and not _bias_fits(bias_shape, out_channels):
            raise ShapeError(f"conv_transpose2d: expected bias of {out_channels} elements, got shape {list(bias_shape)}")  # fmt: skip
        sizes = [
            output_size(n, k, s, p, op, d)
            for n, k, s, p, op, d in zip(
                shape[-2:], w.shape[2:], stride, padding, output_padding, dilation
            )
        ]
        if any(n != DYN and n <= 0 for n in sizes):
            raise ShapeError(f"conv_transpose2d: the output size {sizes} is too small")
        if DYN in w.shape:  # the decomposition reshapes the kernel: compiled per exact shape
            return [ValueTensorType(None, dtype)]
        return [ValueTensorType((*shape[:-3], out_channels, *sizes), dtype)]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        x, w, bias = args[:3]
        (sh, sw), (ph, pw), (oph, opw), groups, (dh, dw) = window(args)
        batch = x if x.ndim == 4 else x[None]
        wide = np.float64 if x.dtype.kind == "f" else np.int64
        n, cin, h, wd = batch.shape
        _, cg, kh, kw = w.shape
        full = np.zeros(
            (n, cg * groups, (h - 1) * sh + dh * (kh - 1) + 1 + oph,
             (wd - 1) * sw + dw * (kw - 1) + 1 + opw), dtype=wide,
        )  # fmt: skip
        ig = cin // groups
        for g in range(groups):
            xs = batch[:, g * ig : (g + 1) * ig].astype(wide)
            ws = w[g * ig : (g + 1) * ig].astype(wide)
            for i in range(kh):
                for j in range(kw):
                    rows = slice(i * dh, i * dh + sh * (h - 1) + 1, sh)
                    cols = slice(j * dw, j * dw + sw * (wd - 1) + 1, sw)
                    full[:, g * cg : (g + 1) * cg, rows, cols] += np.einsum(
                        "nchw,co->nohw", xs, ws[:, :, i, j]
                    )
        out_h = (h - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1
        out_w = (wd - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1
        out = full[:, :, ph : ph + out_h, pw : pw + out_w]
        if bias is not None:
            out = out + bias.astype(wide)[None, :, None, None]
        return (out if x.ndim == 4 else out[0]).astype(x.dtype)

    def decompose(self) -> Any:
        x, w = self.input, self.weight
        if not isinstance(x.type, ValueTensorType) or x.type.sizes is None:
            return None
        if not isinstance(w.type, ValueTensorType) or w.type.sizes is None or DYN in w.type.sizes:
            return None
        stride, padding, output_padding, groups, dilation = window(tuple(self.arg_values()))
        s = OpSequence()
        batched = x.type.rank == 4
        image = x if batched else s.call(AtenUnsqueezeOp, x, 0)
        if stride != (1, 1):  # stride - 1 zeros after each element: (N, C, H, s, W, s)
            spread = s.call(AtenUnsqueezeOp, s.call(AtenUnsqueezeOp, image, 3), 5)
            pads = [0, stride[1] - 1, 0, 0, 0, stride[0] - 1]
            spread = s.call(AtenConstantPadNdOp, spread, pads, 0)
            image = s.call(AtenFlattenUsingIntsOp, s.call(AtenFlattenUsingIntsOp, spread, 4, 5), 2, 3)  # fmt: skip
        cin, cg, kh, kw = w.type.sizes
        pads = []
        for k, p, op, st, d in reversed(
            list(zip((kh, kw), padding, output_padding, stride, dilation))
        ):
            before = d * (k - 1) - p
            pads += [before, before + op - (st - 1)]
        image = s.call(AtenConstantPadNdOp, image, pads, 0)
        kernel = s.call(AtenReshapeOp, w, [groups, cin // groups, cg, kh, kw])
        kernel = s.call(AtenTransposeIntOp, kernel, 1, 2)
        kernel = s.call(AtenReshapeOp, kernel, [groups * cg, cin // groups, kh, kw])
        kernel = s.call(AtenFlipOp, kernel, [2, 3])
        out = s.call(AtenConv2dOp, image, kernel, self.bias, [1, 1], [0, 0], list(dilation), groups)
        if not batched:
            s.call(AtenSqueezeDimOp, out, 0)
        return s.ops


@torch_op
class AtenConvTranspose1dOp(OneDimOp):
    """`F.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups,
    dilation)`: conv_transpose2d over a height of one."""

    name = "torch.aten.conv_transpose1d"
    SCHEMA = (
        "aten::conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, "
        "int[1] stride=[1], int[1] padding=[0], int[1] output_padding=[0], int groups=1, "
        "int[1] dilation=[1]) -> Tensor"
    )
    PY_NAMES = ("F.conv_transpose1d", "torch.conv_transpose1d")
    TWO_D = AtenConvTranspose2dOp
    WINDOW: ClassVar[dict[int, int]] = {3: 1, 4: 0, 5: 0, 7: 1}
    WEIGHT = True
    SAMPLES = (
        Sample(Tn((2, 4, 5), low=-1, high=1), Tn((4, 3, 3), low=-1, high=1),
               Tn((6,), low=-1, high=1), 2, 1, 1, 2, 1),
    )  # fmt: skip
    input = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    bias = operand_def(ValueTensorType | NoneType)
    stride = operand_def(IntList)
    padding = operand_def(IntList)
    output_padding = operand_def(IntList)
    groups = operand_def(IntType)
    dilation = operand_def(IntList)
    result = result_def(ValueTensorType)


OPS = (
    AtenConvTranspose2dOp,
    AtenConvTranspose1dOp,
)
