"""Pooling: max_pool2d, avg_pool2d, adaptive_avg_pool2d on (N,) C, H, W inputs, their 1-D forms
(max_pool1d, avg_pool1d, adaptive_avg_pool1d), and adaptive max pooling without indices.

Windows that reach into the padding (or past the end with `ceil_mode`) only cover the input
elements inside them: max ignores the rest; avg divides by the window size clipped to the
padded input (`count_include_pad`), by the input elements it covers, or by `divisor_override`.
Integer averages truncate like torch's integer division.

Adaptive max pooling: output cell `i` of a dim of size n pooled to `out` covers `[floor(i * n / out),
ceil((i + 1) * n / out))`, as in PyTorch. The max over a rectangle is the max over its rows of
the max over its columns, so `torch-decompose` pools each dim on its own: one `slice` + `amax`
per output cell, concatenated. The windows need the input's sizes: while they are unknown
the result type stays open, and the frontend compiles the call for its exact shapes. ATen's
`adaptive_max_pool2d`, which also returns the indices, is in `pooling_indices.py`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.data_movement import AtenSliceTensorOp
from dialects.torch.ops.joining import AtenCatOp
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.reduction import AtenAmaxOp
from dialects.torch.ops.spatial import (
    IntList,
    OneDimOp,
    check_output,
    check_window,
    image_dims,
    pair,
    pool_output_size,
)
from dialects.torch.types import (
    DYN,
    BoolType,
    IntType,
    ListType,
    NoneType,
    ValueTensorType,
)

IntPair = ListType | IntType


def no_bool(op_name: str, x: TensorMeta) -> None:
    if x.dtype is not None and x.dtype.is_bool:
        raise TypeError(f"\"{op_name}\" not implemented for 'Bool'")


def window_starts(out: int, stride: int, pad: int) -> np.ndarray:  # type: ignore[type-arg]
    return np.arange(out) * stride - pad


def window_reduce(x: Any, rows: list[np.ndarray], cols: list[np.ndarray], reduce: Any) -> Any:  # type: ignore[type-arg]
    """`reduce` over each (rows[oh], cols[ow]) block of the last two dims of `x`."""
    out = np.empty(
        (*x.shape[:-2], len(rows), len(cols)), dtype=np.float64 if x.dtype.kind == "f" else np.int64
    )
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            out[..., i, j] = reduce(x[..., r[:, None], c[None, :]], axis=(-2, -1))
    return out


def clipped(starts: np.ndarray, kernel: int, dilation: int, size: int) -> list[np.ndarray]:  # type: ignore[type-arg]
    """The in-bounds indices of each window (start + k * dilation for k < kernel)."""
    windows = starts[:, None] + np.arange(kernel)[None, :] * dilation
    return [w[(w >= 0) & (w < size)] for w in windows]


class PoolOp(TorchOp):
    """The (kernel, stride, padding, dilation, ceil_mode) of a call and its output shape."""

    @classmethod
    def window(cls, args: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError

    @classmethod
    def output_hw(cls, shape: tuple[int, ...], args: tuple[Any, ...]) -> tuple[int, int]:
        kernel, stride, padding, dilation, ceil_mode = cls.window(args)
        return tuple(  # type: ignore[return-value]
            pool_output_size(n, k, s, p, d, ceil_mode)
            for n, k, s, p, d in zip(shape[-2:], kernel, stride, padding, dilation, strict=True)
        )

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x = args[0]
        name = cls.name.removeprefix("torch.aten.")
        no_bool(name, x)
        shape = image_dims(name, x)
        if shape is None:
            return [ValueTensorType(None, x.dtype)]
        check_window(name, *cls.window(args)[:4])
        out_hw = cls.output_hw(shape, args)
        check_output(name, shape, out_hw)
        return [ValueTensorType((*shape[:-2], *out_hw), x.dtype)]

    @classmethod
    def windows(cls, x: Any, args: tuple[Any, ...]) -> tuple[list[Any], list[Any]]:
        """The in-bounds rows and columns of every output position."""
        kernel, stride, padding, dilation, _ = cls.window(args)
        out_hw = cls.output_hw(x.shape, args)
        return tuple(  # type: ignore[return-value]
            clipped(window_starts(o, s, p), k, d, n)
            for o, s, p, k, d, n in zip(
                out_hw, stride, padding, kernel, dilation, x.shape[-2:], strict=True
            )
        )


@torch_op
class AtenMaxPool2dOp(PoolOp):
    """`F.max_pool2d(x, kernel_size, stride=kernel_size, padding=0, dilation=1, ceil_mode=False)`:
    the largest element of each window (NaN if the window holds one)."""

    name = "torch.aten.max_pool2d"
    SCHEMA = (
        "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2]? stride=None, int[2] padding=[0, 0], "
        "int[2] dilation=[1, 1], bool ceil_mode=False) -> Tensor"
    )
    PY_NAMES = ("F.max_pool2d", "torch.max_pool2d")
    SAMPLES = (
        Sample(Tn((1, 2, 6, 6)), 2),
        Sample(Tn((2, 2, 7, 6), "float64"), 3, 2, 1, 1, True),
        Sample(Tn((2, 7, 7), "int64", -50, 50), [3, 2], [2, 1], [1, 0], [2, 1]),
    )
    self_ = operand_def(ValueTensorType)
    kernel_size = operand_def(IntPair)
    stride = operand_def(IntPair | NoneType)
    padding = operand_def(IntPair)
    dilation = operand_def(IntPair)
    ceil_mode = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def window(cls, args: tuple[Any, ...]) -> tuple[Any, ...]:
        kernel = pair("max_pool2d", "kernel_size", args[1])
        stride = pair("max_pool2d", "stride", args[2], empty=kernel)
        padding, dilation = (
            pair("max_pool2d", "padding", args[3]),
            pair("max_pool2d", "dilation", args[4]),
        )
        if not isinstance(args[5], bool):
            raise TypeError("max_pool2d: `ceil_mode` must be a constant bool")
        return kernel, stride, padding, dilation, args[5]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        x = args[0]
        rows, cols = cls.windows(x, args)
        return window_reduce(x, rows, cols, np.max).astype(x.dtype)


@torch_op
class AtenAvgPool2dOp(PoolOp):
    """`F.avg_pool2d(x, kernel_size, stride=kernel_size, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)`: the mean of each window."""

    name = "torch.aten.avg_pool2d"
    SCHEMA = (
        "aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2]? stride=None, int[2] padding=[0, 0], "
        "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor"
    )
    PY_NAMES = ("F.avg_pool2d", "torch.avg_pool2d")
    SAMPLES = (
        Sample(Tn((1, 2, 6, 6)), 2),
        Sample(Tn((2, 2, 7, 6), "float64"), 3, 2, 1, True),
        Sample(Tn((1, 1, 7, 7)), 3, 2, 1, True, False),
        Sample(Tn((2, 5, 6), "int64", -50, 50), [3, 2], 1, [1, 1], False, True, 5),
    )
    self_ = operand_def(ValueTensorType)
    kernel_size = operand_def(IntPair)
    stride = operand_def(IntPair | NoneType)
    padding = operand_def(IntPair)
    ceil_mode = operand_def(BoolType)
    count_include_pad = operand_def(BoolType)
    divisor_override = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def window(cls, args: tuple[Any, ...]) -> tuple[Any, ...]:
        kernel = pair("avg_pool2d", "kernel_size", args[1])
        stride = pair("avg_pool2d", "stride", args[2], empty=kernel)
        padding = pair("avg_pool2d", "padding", args[3])
        if not all(isinstance(a, bool) for a in args[4:6]):
            raise TypeError(
                "avg_pool2d: `ceil_mode` and `count_include_pad` must be constant bools"
            )
        if args[6] is not None and not isinstance(args[6], int):
            raise TypeError("avg_pool2d: `divisor_override` must be a constant int")
        if args[6] == 0:
            raise ShapeError("divisor must be not zero")
        return kernel, stride, padding, (1, 1), args[4]

    @classmethod
    def divisors(cls, x: Any, args: tuple[Any, ...]) -> Any:
        """The divisor of each output position (rows x cols)."""
        kernel, stride, padding, _, _ = cls.window(args)
        if args[6] is not None:
            return args[6]
        out_hw = cls.output_hw(x.shape, args)
        counts = []
        for o, s, p, k, n in zip(out_hw, stride, padding, kernel, x.shape[-2:], strict=True):
            start = window_starts(o, s, p)
            end = np.minimum(start + k, n + p)
            if not args[5]:
                start, end = np.maximum(start, 0), np.minimum(end, n)
            counts.append(end - start)
        return counts[0][:, None] * counts[1][None, :]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        x = args[0]
        rows, cols = cls.windows(x, args)
        sums = window_reduce(x, rows, cols, np.sum)
        divisors = cls.divisors(x, args)
        if x.dtype.kind == "f":
            return (sums / divisors).astype(x.dtype)
        return np.trunc(sums / divisors).astype(x.dtype)  # C++ integer division


def adaptive_bounds(out: int, size: int) -> tuple[list[int], list[int]]:
    """torch's adaptive windows: [floor(o * size / out), ceil((o + 1) * size / out))."""
    starts = [(o * size) // out for o in range(out)]
    ends = [-(-((o + 1) * size) // out) for o in range(out)]
    return starts, ends


@torch_op
class AtenAdaptiveAvgPool2dOp(TorchOp):
    """`F.adaptive_avg_pool2d(x, output_size)`: output (oh, ow) averages input rows
    [floor(oh * H / OH), ceil((oh + 1) * H / OH)) and the same for columns."""

    name = "torch.aten.adaptive_avg_pool2d"
    SCHEMA = "aten::adaptive_avg_pool2d(Tensor self, int[2] output_size) -> Tensor"
    PY_NAMES = ("F.adaptive_avg_pool2d", "torch.adaptive_avg_pool2d")
    SAMPLES = (
        Sample(Tn((1, 2, 6, 6)), [1, 1]),
        Sample(Tn((2, 2, 7, 5), "float64"), [3, 4]),
        Sample(Tn((2, 5, 5)), 7),
    )
    self_ = operand_def(ValueTensorType)
    output_size = operand_def(IntPair)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, size = args
        if x.dtype is not None and not x.dtype.is_float:
            raise TypeError(f"\"adaptive_avg_pool2d\" not implemented for '{x.dtype.name}'")
        out_hw = pair("adaptive_avg_pool2d", "output_size", size)
        if min(out_hw) < 0:
            raise ShapeError(
                f"adaptive_avg_pool2d: output_size must be non-negative, got {list(out_hw)}"
            )
        shape = image_dims("adaptive_avg_pool2d", x)
        if shape is None:
            return [ValueTensorType(None, x.dtype)]
        return [ValueTensorType((*shape[:-2], *out_hw), x.dtype)]

    @staticmethod
    def eager(x: Any, output_size: Any) -> Any:
        out_hw = pair("adaptive_avg_pool2d", "output_size", output_size)
        windows = [
            [np.arange(s, e) for s, e in zip(*adaptive_bounds(o, n), strict=True)]
            for o, n in zip(out_hw, x.shape[-2:], strict=True)
        ]
        return window_reduce(x, windows[0], windows[1], np.mean).astype(x.dtype)


@torch_op
class AtenMaxPool1dOp(OneDimOp):
    """`F.max_pool1d(x, kernel_size, stride=kernel_size, padding=0, dilation=1, ceil_mode)`."""

    name = "torch.aten.max_pool1d"
    SCHEMA = (
        "aten::max_pool1d(Tensor self, int[1] kernel_size, int[1]? stride=None, int[1] padding=[0], "
        "int[1] dilation=[1], bool ceil_mode=False) -> Tensor"
    )
    PY_NAMES = ("F.max_pool1d", "torch.max_pool1d")
    TWO_D = AtenMaxPool2dOp
    WINDOW: ClassVar[dict[int, int]] = {1: 1, 2: 1, 3: 0, 4: 1}
    SAMPLES = (
        Sample(Tn((2, 3, 9)), 3, 2, 1, 1, True),
        Sample(Tn((3, 8), "float64"), 2),
    )
    self_ = operand_def(ValueTensorType)
    kernel_size = operand_def(IntList)
    stride = operand_def(IntList | NoneType)
    padding = operand_def(IntList)
    dilation = operand_def(IntList)
    ceil_mode = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def check_rank(cls, x: TensorMeta) -> None:
        super().check_rank(x)
        if x.dtype is not None and not x.dtype.is_float:
            names = {"int64": "Long", "int32": "Int", "bool": "Bool"}
            raise TypeError(f"\"max_pool1d_impl\" not implemented for '{names[x.dtype.name]}'")


@torch_op
class AtenAvgPool1dOp(OneDimOp):
    """`F.avg_pool1d(x, kernel_size, stride=kernel_size, padding=0, ceil_mode,
    count_include_pad)`."""

    name = "torch.aten.avg_pool1d"
    SCHEMA = (
        "aten::avg_pool1d(Tensor self, int[1] kernel_size, int[1]? stride=None, int[1] padding=[0], "
        "bool ceil_mode=False, bool count_include_pad=True) -> Tensor"
    )
    PY_NAMES = ("F.avg_pool1d", "torch.avg_pool1d")
    TWO_D = AtenAvgPool2dOp
    WINDOW: ClassVar[dict[int, int]] = {1: 1, 2: 1, 3: 0}
    SAMPLES = (Sample(Tn((2, 3, 9)), 3, 2, 1, True, False), Sample(Tn((3, 8), "float64"), 2))
    self_ = operand_def(ValueTensorType)
    kernel_size = operand_def(IntList)
    stride = operand_def(IntList | NoneType)
    padding = operand_def(IntList)
    ceil_mode = operand_def(BoolType)
    count_include_pad = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def two_d_args(cls, args: tuple[Any, ...], unsqueeze: Any) -> list[Any]:
        return [*super().two_d_args(args, unsqueeze), None]  # divisor_override


@torch_op
class AtenAdaptiveAvgPool1dOp(OneDimOp):
    """`F.adaptive_avg_pool1d(x, output_size)`: the average of each of `output_size` windows
    spread evenly over the length."""

    name = "torch.aten.adaptive_avg_pool1d"
    SCHEMA = "aten::adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor"
    PY_NAMES = ("F.adaptive_avg_pool1d", "torch.adaptive_avg_pool1d")
    TWO_D = AtenAdaptiveAvgPool2dOp
    WINDOW: ClassVar[dict[int, int]] = {1: 1}
    SAMPLES = (Sample(Tn((2, 3, 7)), 3), Sample(Tn((3, 8), "float64"), [1]))
    self_ = operand_def(ValueTensorType)
    output_size = operand_def(IntList)
    result = result_def(ValueTensorType)


def windows(size: int, out: int) -> list[tuple[int, int]]:
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _sizes(value: Any, rank: int) -> list[int]:
    values = list(value) if isinstance(value, list | tuple) else [value]
    values = values * rank if len(values) == 1 else values
    if len(values) != rank or not all(isinstance(v, int) and v > 0 for v in values):
        raise TypeError(f"adaptive_max_pool: `output_size` must be {rank} positive constant ints")
    return values


@torch_op
class AtenAdaptiveMaxPool2dValuesOp(TorchOp):
    """`F.adaptive_max_pool2d(x, output_size)` / `F.adaptive_max_pool1d(x, output_size)`: the
    largest element of each of `output_size` windows spread evenly over the last dims of an
    (N,) C, H, W (or N, C, L) input."""

    name = "torch.aten._adaptive_max_pool2d_values"
    SCHEMA = "aten::_adaptive_max_pool2d_values(Tensor self, int[] output_size) -> Tensor"
    PY_NAMES = ("F.adaptive_max_pool2d", "torch._adaptive_max_pool2d_values")
    SAMPLES = (Sample(Tn((2, 3, 7, 5)), [3, 2]), Sample(Tn((2, 6, 4), "float64"), 4))
    self_ = operand_def(ValueTensorType)
    output_size = operand_def(ListType | IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, output_size = args
        sizes = _sizes(output_size, 2)
        if x.dtype is not None and not x.dtype.is_float:
            raise TypeError(f"\"adaptive_max_pool2d\" not implemented for '{x.dtype.name}'")
        if x.shape is None:
            return [ValueTensorType(None, x.dtype)]
        if len(x.shape) not in (3, 4):
            raise ShapeError(
                f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(x.shape)}"
            )
        if DYN in x.shape[-2:]:  # the windows are constants: compiled per exact shape
            return [ValueTensorType(None, x.dtype)]
        return [ValueTensorType((*x.shape[:-2], *sizes), x.dtype)]

    @staticmethod
    def eager(x: Any, output_size: Any) -> Any:
        out = x
        for axis, size in zip((-2, -1), _sizes(output_size, 2)):
            parts = [
                np.take(out, range(start, end), axis=axis).max(axis=axis, keepdims=True)
                for start, end in windows(out.shape[axis], size)
            ]
            out = np.concatenate(parts, axis=axis)
        return out

    def decompose(self) -> Any:
        x = self.self_
        if not isinstance(x.type, ValueTensorType) or x.type.sizes is None:
            return None
        if DYN in x.type.sizes[-2:]:
            return None
        amax = AtenAmaxOp
        s = OpSequence()
        out = x
        rank = len(x.type.sizes)
        for axis, size in zip((rank - 2, rank - 1), _sizes(self.arg_values()[1], 2)):
            parts = [
                s.call(amax, s.call(AtenSliceTensorOp, out, axis, start, end, 1), [axis], True)
                for start, end in windows(x.type.sizes[axis], size)
            ]
            out = s.call(AtenCatOp, s.list_of(parts), axis)
        return s.ops


@torch_op
class AtenAdaptiveMaxPool1dValuesOp(OneDimOp):
    """`F.adaptive_max_pool1d(x, output_size)`: the 2-D op over a height of one."""

    name = "torch.aten._adaptive_max_pool1d_values"
    SCHEMA = "aten::_adaptive_max_pool1d_values(Tensor self, int[1] output_size) -> Tensor"
    PY_NAMES = ("F.adaptive_max_pool1d", "torch._adaptive_max_pool1d_values")
    TWO_D = AtenAdaptiveMaxPool2dValuesOp
    WINDOW: ClassVar[dict[int, int]] = {1: 1}
    SAMPLES = (Sample(Tn((2, 3, 7)), 3),)
    self_ = operand_def(ValueTensorType)
    output_size = operand_def(ListType | IntType)
    result = result_def(ValueTensorType)


OPS = (
    AtenMaxPool2dOp,
    AtenAvgPool2dOp,
    AtenAdaptiveAvgPool2dOp,
    AtenMaxPool1dOp,
    AtenAvgPool1dOp,
    AtenAdaptiveAvgPool1dOp,
    AtenAdaptiveMaxPool2dValuesOp,
    AtenAdaptiveMaxPool1dValuesOp,
)
