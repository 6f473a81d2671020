"""Sliding-window patches: `F.unfold` (im2col) and `F.fold` (col2im), lowered in
`lowering/torch_to_linalg/patches.py`.

For a (N, C, H, W) input, kernel (kh, kw), dilation, padding and stride, there are
L = OH * OW windows (OH, OW as for a convolution); unfold gives (N, C * kh * kw, L) with
`out[n, (c * kh + i) * kw + j, oh * OW + ow] = x[n, c, oh * sh - ph + i * dh, ow * sw - pw +
j * dw]` (0 in the padding); fold is its adjoint: it sums each column back into its window.
Unbatched (C, H, W) / (C * kh * kw, L) inputs work too.

`Tensor.unfold(dim, size, step)` (ATen's `unfold`) is the 1-D sliding window of any tensor:
dim `dim` of length L becomes (L - size) // step + 1 windows and a last dim of `size` elements,
`out[..., i, ..., k] = x[..., i * step + k, ...]`. It decomposes into one `index_select` with
the constant window indices, a view splitting the dim, and a movedim of the window to the end.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.indexing import AtenIndexSelectOp
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.prim import ValueTensorLiteralOp
from dialects.torch.ops.reorder import AtenMovedimIntOp
from dialects.torch.ops.spatial import conv_output_size, pair
from dialects.torch.ops.views import AtenViewOp
from dialects.torch.types import DYN, IntType, ListType, ValueTensorType

Window = tuple[tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, int]]


def window(op_name: str, kernel: Any, dilation: Any, padding: Any, stride: Any) -> Window:
    """(kernel, dilation, padding, stride) pairs, checked as torch does."""
    k, d = pair(op_name, "kernel_size", kernel), pair(op_name, "dilation", dilation)
    p, s = pair(op_name, "padding", padding), pair(op_name, "stride", stride)
    for name, values, low in (("kernel", k, 1), ("dilation", d, 1), ("stride", s, 1)):
        if min(values) < low:
            raise ShapeError(
                f"{op_name}: {name} should be greater than zero, but got {name}_height: "
                f"{values[0]} {name}_width: {values[1]}"
            )
    if min(p) < 0:
        raise ShapeError(
            f"{op_name}: padding should be non-negative, but got pad_height: {p[0]} "
            f"pad_width: {p[1]}"
        )
    return k, d, p, s


def floats_only(op_name: str, x: TensorMeta) -> None:
    if x.dtype is not None and not x.dtype.is_float:
        raise TypeError(f"\"{op_name}_out_cpu\" not implemented for '{x.dtype.name}'")


def blocks(size: tuple[int, int], w: Window) -> tuple[int, int]:
    """(OH, OW): how many windows fit along H and W."""
    (k, d, p, s) = w
    return (
        conv_output_size(size[0], k[0], s[0], 2 * p[0], d[0]),
        conv_output_size(size[1], k[1], s[1], 2 * p[1], d[1]),
    )


@torch_op
class AtenIm2colOp(TorchOp):
    """`F.unfold(x, kernel_size, dilation=1, padding=0, stride=1)`."""

    name = "torch.aten.im2col"
    SCHEMA = (
        "aten::im2col(Tensor self, int[] kernel_size, int[] dilation=[1, 1], "
        "int[] padding=[0, 0], int[] stride=[1, 1]) -> Tensor"
    )
    PY_NAMES = ("F.unfold",)
    SAMPLES = (
        Sample(Tn((1, 2, 4, 5)), [2, 3]),
        Sample(Tn((2, 5, 4), "float64"), [3, 2], [1, 2], [1, 0], [2, 1]),
    )
    self_ = operand_def(ValueTensorType)
    kernel_size = operand_def(ListType)
    dilation = operand_def(ListType)
    padding = operand_def(ListType)
    stride = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, *params = args
        w = window("im2col", *params)
        floats_only("im2col", x)
        if x.shape is None:
            return [ValueTensorType(None, x.dtype)]
        if len(x.shape) not in (3, 4):
            raise ShapeError(
                f"Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch size "
                f"and non-zero dimensions for input, but got: {list(x.shape)}"
            )
        *batch, c, h, width = x.shape
        oh, ow = blocks((h, width), w)
        if (oh != DYN and oh < 1) or (ow != DYN and ow < 1):
            raise ShapeError(
                f"Given input with spatial size ({h}, {width}), kernel_size={list(w[0])}, "
                f"dilation={list(w[1])}, padding={list(w[2])}, calculated shape of the array "
                f"of sliding blocks as ({oh}, {ow}), but its components must be at least one."
            )
        kk = w[0][0] * w[0][1]
        rows = DYN if c == DYN else c * kk
        count = DYN if DYN in (oh, ow) else oh * ow
        return [ValueTensorType((*batch, rows, count), x.dtype)]

    @staticmethod
    def eager(x: Any, kernel_size: Any, dilation: Any = (1, 1), padding: Any = (0, 0),
              stride: Any = (1, 1)) -> Any:  # fmt: skip
        (k, d, p, s) = window("im2col", kernel_size, dilation, padding, stride)
        batched = x if x.ndim == 4 else x[None]
        n, c, h, w = batched.shape
        oh, ow = blocks((h, w), (k, d, p, s))
        padded = np.pad(batched, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
        out = np.zeros((n, c, k[0], k[1], oh, ow), x.dtype)
        for i in range(k[0]):
            for j in range(k[1]):
                rows = slice(i * d[0], i * d[0] + s[0] * (oh - 1) + 1, s[0])
                cols = slice(j * d[1], j * d[1] + s[1] * (ow - 1) + 1, s[1])
                out[:, :, i, j] = padded[:, :, rows, cols]
        result = out.reshape(n, c * k[0] * k[1], oh * ow)
        return result if x.ndim == 4 else result[0]


@torch_op
class AtenCol2imOp(TorchOp):
    """`F.fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1)`: each column
    summed back into its window of an (N, C, *output_size) tensor."""

    name = "torch.aten.col2im"
    SCHEMA = (
        "aten::col2im(Tensor self, int[] output_size, int[] kernel_size, "
        "int[] dilation=[1, 1], int[] padding=[0, 0], int[] stride=[1, 1]) -> Tensor"
    )
    PY_NAMES = ("F.fold",)
    SAMPLES = (
        Sample(Tn((1, 12, 4)), [3, 4], [2, 3]),
        Sample(Tn((12, 6), "float64"), [4, 5], [3, 2], [1, 2], [1, 0], [2, 1]),
    )
    self_ = operand_def(ValueTensorType)
    output_size = operand_def(ListType)
    kernel_size = operand_def(ListType)
    dilation = operand_def(ListType)
    padding = operand_def(ListType)
    stride = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, output_size, *params = args
        size = pair("col2im", "output_size", output_size)
        w = window("col2im", *params)
        floats_only("col2im", x)
        if x.shape is None:
            return [ValueTensorType(None, x.dtype)]
        if len(x.shape) not in (2, 3):
            raise ShapeError(
                "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size "
                f"and non-zero dimensions for input, but got: {list(x.shape)}"
            )
        *batch, rows, count = x.shape
        kk = w[0][0] * w[0][1]
        if rows != DYN and rows % kk:
            raise ShapeError(
                "Expected size of input's dimension 1 to be divisible by the product of "
                f"kernel_size, but got input.size(1)={rows} and kernel_size={list(w[0])}"
            )
        oh, ow = blocks(size, w)
        if count != DYN and count != oh * ow:
            raise ShapeError(
                f"Given output_size={list(size)}, kernel_size={list(w[0])}, "
                f"dilation={list(w[1])}, padding={list(w[2])}, stride={list(w[3])}, expected "
                f"size of input's dimension 2 to match the calculated number of sliding "
                f"blocks {oh} * {ow} = {oh * ow}, but got input.size(2)={count}."
            )
        channels = DYN if rows == DYN else rows // kk
        return [ValueTensorType((*batch, channels, *size), x.dtype)]

    @staticmethod
    def eager(x: Any, output_size: Any, kernel_size: Any, dilation: Any = (1, 1),
              padding: Any = (0, 0), stride: Any = (1, 1)) -> Any:  # fmt: skip
        AtenCol2imOp.infer(TensorMeta.of_array(x), output_size, kernel_size, dilation, padding,
                           stride)  # fmt: skip
        size = pair("col2im", "output_size", output_size)
        (k, d, p, s) = window("col2im", kernel_size, dilation, padding, stride)
        batched = x if x.ndim == 3 else x[None]
        n = batched.shape[0]
        c = batched.shape[1] // (k[0] * k[1])
        oh, ow = blocks(size, (k, d, p, s))
        cols = batched.reshape(n, c, k[0], k[1], oh, ow)
        padded = np.zeros((n, c, size[0] + 2 * p[0], size[1] + 2 * p[1]), x.dtype)
        for i in range(k[0]):
            for j in range(k[1]):
                rows = slice(i * d[0], i * d[0] + s[0] * (oh - 1) + 1, s[0])
                columns = slice(j * d[1], j * d[1] + s[1] * (ow - 1) + 1, s[1])
                padded[:, :, rows, columns] += cols[:, :, i, j]
        out = padded[:, :, p[0] : p[0] + size[0], p[1] : p[1] + size[1]]
        return out if x.ndim == 3 else out[0]


@torch_op
class AtenUnfoldOp(TorchOp):
    """`x.unfold(dimension, size, step)`: the windows of `size` elements every `step` along a
    dim, as a new last dim."""

    name = "torch.aten.unfold"
    SCHEMA = "aten::unfold(Tensor self, int dimension, int size, int step) -> Tensor"
    PY_NAMES = ("Tensor.unfold",)
    SAMPLES = (Sample(Tn((3, 7)), 1, 3, 2), Sample(Tn((6, 2, 3), "int64"), 0, 2, 1))
    self_ = operand_def(ValueTensorType)
    dimension = operand_def(IntType)
    size = operand_def(IntType)
    step = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, x: TensorMeta, dimension: Any, size: Any, step: Any) -> list[Attribute]:
        if not all(isinstance(v, int) for v in (dimension, size, step)):
            raise TypeError("unfold: `dimension`, `size` and `step` must be constant ints")
        if x.shape is None or DYN in x.shape:  # the window indices need the length
            return [ValueTensorType(None, x.dtype)]
        if not x.shape:
            raise ShapeError("unfold: a 0-d tensor is not supported")
        dim = normalize_dim(dimension, len(x.shape))
        if size > x.shape[dim]:
            raise ShapeError(
                f"maximum size for tensor at dimension {dim} is {x.shape[dim]} but size is {size}"
            )
        if step <= 0:
            raise ShapeError(f"step is {step} but must be > 0")
        if size < 0:
            raise ShapeError(f"size is {size} but must be >= 0")
        windows = (x.shape[dim] - size) // step + 1
        shape = (*x.shape[:dim], windows, *x.shape[dim + 1 :], size)
        return [ValueTensorType(shape, x.dtype)]

    @staticmethod
    def indices(length: int, size: int, step: int) -> Any:
        windows = (length - size) // step + 1
        return (np.arange(windows)[:, None] * step + np.arange(size)[None, :]).reshape(-1)

    @classmethod
    def eager(cls, x: Any, dimension: int, size: int, step: int) -> Any:
        (result,) = cls.infer(TensorMeta.of_array(x), dimension, size, step)
        dim = normalize_dim(dimension, x.ndim)
        picked = np.take(x, cls.indices(x.shape[dim], size, step), axis=dim)
        split = picked.reshape(*x.shape[:dim], -1, size, *x.shape[dim + 1 :])
        return np.moveaxis(split, dim + 1, -1).reshape(result.sizes).copy()

    def decompose(self) -> Any:
        x = self.self_
        if not isinstance(x.type, ValueTensorType) or x.type.sizes is None or DYN in x.type.sizes:
            return None
        shape = x.type.sizes
        dimension, size, step = (arg_value(v) for v in self.operands[1:])
        dim = normalize_dim(dimension, len(shape))
        s = OpSequence()
        index = s.add(ValueTensorLiteralOp(self.indices(shape[dim], size, step))).results[0]
        picked = s.call(AtenIndexSelectOp, x, dim, index)
        split = s.call(AtenViewOp, picked, [*shape[:dim], -1, size, *shape[dim + 1 :]])
        s.call(AtenMovedimIntOp, split, dim + 1, -1)
        return s.ops


OPS = (
    AtenUnfoldOp,
    AtenIm2colOp,
    AtenCol2imOp,
)
