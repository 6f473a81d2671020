"""3-D pooling: max_pool3d, avg_pool3d, adaptive_avg_pool3d and adaptive max pooling without
indices, on (N,) C, D, H, W inputs.

A pooling window is a box, so every one of these pools each dim on its own: `torch-decompose`
runs the 2-D op over (H, W) of the input flattened to (L * D, H, W), then the 2-D op over
(D, OH * OW) of that result viewed as (L, D, OH * OW) with a unit-width window, and views the
result back as (..., OD, OH, OW). The max of a box is the max over D of the max over (H, W);
an average is the box's sum (both 2-D steps with `divisor_override=1`) divided by its divisor,
a constant of the shapes (integers truncate like C++); an adaptive average is the mean over D
of the means over (H, W), whose boxes all have the same size. The decompositions need the
input's sizes: while they are unknown the result type stays open and the frontend compiles
the call for its exact shapes.
"""

from __future__ import annotations

import itertools
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import AtenDivTensorModeOp, AtenDivTensorOp
from dialects.torch.ops.data_movement import AtenSliceTensorOp
from dialects.torch.ops.joining import AtenCatOp
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.pooling import (
    AtenAdaptiveAvgPool2dOp,
    AtenAdaptiveMaxPool2dValuesOp,
    AtenAvgPool2dOp,
    AtenMaxPool2dOp,
    adaptive_bounds,
    clipped,
    window_starts,
)
from dialects.torch.ops.prim import ConstantStrOp, ValueTensorLiteralOp
from dialects.torch.ops.reduction import AtenAmaxOp
from dialects.torch.ops.spatial import check_window, pool_output_size
from dialects.torch.ops.views import AtenFlattenUsingIntsOp, AtenViewOp
from dialects.torch.types import (
    DYN,
    BoolType,
    IntType,
    ListType,
    NoneType,
    ValueTensorType,
)

IntTriple = ListType | IntType
TORCH_DTYPE = {"int64": "Long", "int32": "Int", "bool": "Bool", "float32": "Float",
               "float64": "Double"}  # fmt: skip


def triple(
    op_name: str, arg_name: str, value: Any, empty: tuple[int, ...] | None = None
) -> tuple[int, int, int]:
    """An `int[3]` argument: an int or a one- or three-element list of constant ints."""
    if (value is None or (isinstance(value, list | tuple) and not value)) and empty is not None:
        return empty  # type: ignore[return-value]
    if isinstance(value, int) and not isinstance(value, bool):
        return value, value, value
    if isinstance(value, list | tuple) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        if len(value) == 1:
            return value[0], value[0], value[0]
        if len(value) == 3:
            return value[0], value[1], value[2]
    raise TypeError(f"{op_name}: `{arg_name}` must be one or three constant ints, got {value!r}")


def volume_dims(op_name: str, x: TensorMeta) -> tuple[int, ...] | None:
    """The input's shape if it is a 4-D (C, D, H, W) or 5-D (N, C, D, H, W) volume batch."""
    if x.shape is None:
        return None
    if len(x.shape) not in (4, 5) or 0 in x.shape[-3:]:
        if op_name.startswith("adaptive"):
            raise ShapeError(f"{op_name}(): Expected 4D or 5D tensor, but got: {list(x.shape)}")
        raise ShapeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    return x.shape


def open_result(x: TensorMeta) -> bool:
    """Whether the result's type stays open: the decomposition needs every size."""
    return x.shape is None or DYN in x.shape


def box_reduce(x: Any, windows: list[list[Any]], reduce: Any) -> Any:
    """`reduce` over each box (windows[0][i], windows[1][j], windows[2][k]) of x's last dims."""
    shape = (*x.shape[:-3], *(len(w) for w in windows))
    out = np.empty(shape, dtype=np.float64 if x.dtype.kind == "f" else np.int64)
    for position in itertools.product(*(range(len(w)) for w in windows)):
        rows = np.ix_(*(w[i] for w, i in zip(windows, position, strict=True)))
        out[(..., *position)] = reduce(x[(..., *rows)], axis=(-3, -2, -1))
    return out


class Pool3dOp(TorchOp):
    """The (kernel, stride, padding, dilation, ceil_mode) of a call; shape rule; decomposition."""

    TWO_D: ClassVar[Any]  # the 2-D op each step runs

    @classmethod
    def short_name(cls) -> str:
        return cls.name.removeprefix("torch.aten.")

    @classmethod
    def window(cls, args: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError

    @classmethod
    def output_dhw(cls, shape: tuple[int, ...], args: tuple[Any, ...]) -> tuple[int, ...]:
        kernel, stride, padding, dilation, ceil_mode = cls.window(args)
        return tuple(
            pool_output_size(n, k, s, p, d, ceil_mode)
            for n, k, s, p, d in zip(shape[-3:], kernel, stride, padding, dilation, strict=True)
        )

    @classmethod
    def check_dtype(cls, x: TensorMeta) -> None:
        if x.dtype is not None and x.dtype.is_bool:
            raise TypeError(f"\"{cls.short_name()}\" not implemented for 'Bool'")

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x = args[0]
        cls.check_dtype(x)
        shape = volume_dims(cls.short_name(), x)
        window = cls.window(args)
        check_window(cls.short_name(), *window[:4])
        if shape is None or open_result(x):
            return [ValueTensorType(None, x.dtype)]
        out = cls.output_dhw(shape, args)
        if min(out) <= 0:
            sizes = "x".join(str(d) for d in shape[-4:])
            outs = "x".join(str(d) for d in (shape[-4], *out))
            raise ShapeError(
                f"Given input size: ({sizes}). Calculated output size: ({outs}). "
                "Output size is too small"
            )
        return [ValueTensorType((*shape[:-3], *out), x.dtype)]

    @classmethod
    def windows(cls, x: Any, args: tuple[Any, ...]) -> list[list[Any]]:
        """The in-bounds indices along D, H and W of every output position."""
        kernel, stride, padding, dilation, _ = cls.window(args)
        out = cls.output_dhw(x.shape, args)
        return [
            clipped(window_starts(o, s, p), k, d, n)
            for o, s, p, k, d, n in zip(
                out, stride, padding, kernel, dilation, x.shape[-3:], strict=True
            )
        ]

    def two_d_args(self, window: tuple[Any, ...], axis: str) -> list[Any]:
        """The 2-D op's window arguments after the input: over (H, W) or over (D, unit)."""
        raise NotImplementedError

    def decompose(self) -> Any:
        x = self.operands[0]
        if not isinstance(x.type, ValueTensorType) or x.type.sizes is None or DYN in x.type.sizes:
            return None
        window = self.window(tuple(self.arg_values()))
        s = OpSequence()
        out = separable(s, x, type(self).TWO_D, lambda axis: self.two_d_args(window, axis))
        self.finish(s, out, x.type.sizes)
        return s.ops

    def finish(self, s: OpSequence, out: SSAValue, sizes: tuple[int, ...]) -> None:
        """The ops after the two 2-D steps (an average's division)."""


def separable(s: OpSequence, x: SSAValue, two_d: Any, args_for: Any) -> SSAValue:
    """`two_d` over (H, W), then over (D, unit width), viewed back as (..., OD, OH, OW)."""
    assert isinstance(x.type, ValueTensorType) and x.type.sizes is not None
    lead = list(x.type.sizes[:-3])
    rank = len(x.type.sizes)
    planes = s.call(AtenFlattenUsingIntsOp, x, 0, rank - 3)
    hw = s.call(two_d, planes, *args_for("hw"))
    _, oh, ow = hw.type.sizes  # type: ignore[attr-defined]
    depth = s.call(AtenViewOp, hw, [int(np.prod(lead)), x.type.sizes[-3], oh * ow])
    pooled = s.call(two_d, depth, *args_for("d"))
    return s.call(AtenViewOp, pooled, [*lead, pooled.type.sizes[1], oh, ow])  # type: ignore[attr-defined]


def split(window: tuple[Any, ...], axis: str, unit: tuple[int, int]) -> list[list[int]]:
    """kernel, stride, padding (and dilation) for one step: (H, W), or (D, unit)."""
    if axis == "hw":
        return [list(w[1:]) for w in window]
    return [[w[0], u] for w, u in zip(window, unit, strict=False)]


@torch_op
class AtenMaxPool3dOp(Pool3dOp):
    """`F.max_pool3d(x, kernel_size, stride=kernel_size, padding=0, dilation=1, ceil_mode=False)`:
    the largest element of each box (NaN if the box holds one)."""

    name = "torch.aten.max_pool3d"
    SCHEMA = (
        "aten::max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], "
        "int[3] padding=[0, 0, 0], int[3] dilation=[1, 1, 1], bool ceil_mode=False) -> Tensor"
    )
    PY_NAMES = ("F.max_pool3d", "torch.max_pool3d")
    TWO_D = AtenMaxPool2dOp
    SAMPLES = (
        Sample(Tn((1, 2, 4, 5, 6)), 2),
        Sample(Tn((2, 5, 6, 7), "int64", -50, 50), [3, 2, 3], [2, 1, 2], [1, 0, 1], [1, 2, 1],
               True),
    )  # fmt: skip
    self_ = operand_def(ValueTensorType)
    kernel_size = operand_def(IntTriple)
    stride = operand_def(IntTriple | NoneType)
    padding = operand_def(IntTriple)
    dilation = operand_def(IntTriple)
    ceil_mode = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def window(cls, args: tuple[Any, ...]) -> tuple[Any, ...]:
        name = cls.short_name()
        kernel = triple(name, "kernel_size", args[1])
        stride = triple(name, "stride", args[2], empty=kernel)
        padding, dilation = triple(name, "padding", args[3]), triple(name, "dilation", args[4])
        if not isinstance(args[5], bool):
            raise TypeError(f"{name}: `ceil_mode` must be a constant bool")
        return kernel, stride, padding, dilation, args[5]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        x = args[0]
        return box_reduce(x, cls.windows(x, args), np.max).astype(x.dtype)

    def two_d_args(self, window: tuple[Any, ...], axis: str) -> list[Any]:
        kernel, stride, padding, dilation, ceil_mode = window
        return [*split((kernel, stride, padding, dilation), axis, (1, 1, 0, 1)), ceil_mode]


@torch_op
class AtenAvgPool3dOp(Pool3dOp):
    """`F.avg_pool3d(x, kernel_size, stride=kernel_size, padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)`: the mean of each box."""

    name = "torch.aten.avg_pool3d"
    SCHEMA = (
        "aten::avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], "
        "int[3] padding=[0, 0, 0], bool ceil_mode=False, bool count_include_pad=True, "
        "int? divisor_override=None) -> Tensor"
    )
    PY_NAMES = ("F.avg_pool3d", "torch.avg_pool3d")
    TWO_D = AtenAvgPool2dOp
    SAMPLES = (
        Sample(Tn((1, 2, 4, 5, 6)), 2),
        Sample(Tn((2, 2, 5, 6, 7), "float64"), 3, 2, 1, True, False),
        Sample(Tn((2, 5, 6, 5), "int64", -50, 50), [3, 2, 3], 1, [1, 1, 0], False, True, 5),
    )
    self_ = operand_def(ValueTensorType)
    kernel_size = operand_def(IntTriple)
    stride = operand_def(IntTriple | NoneType)
    padding = operand_def(IntTriple)
    ceil_mode = operand_def(BoolType)
    count_include_pad = operand_def(BoolType)
    divisor_override = operand_def(IntType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def check_dtype(cls, x: TensorMeta) -> None:
        if x.dtype is not None and x.dtype.is_bool:
            raise TypeError("\"avg_pool3d_out_frame\" not implemented for 'Bool'")

    @classmethod
    def window(cls, args: tuple[Any, ...]) -> tuple[Any, ...]:
        name = cls.short_name()
        kernel = triple(name, "kernel_size", args[1])
        stride = triple(name, "stride", args[2], empty=kernel)
        padding = triple(name, "padding", args[3])
        if not all(isinstance(a, bool) for a in args[4:6]):
            raise TypeError(f"{name}: `ceil_mode` and `count_include_pad` must be constant bools")
        if args[6] is not None and not isinstance(args[6], int):
            raise TypeError(f"{name}: `divisor_override` must be a constant int")
        if args[6] == 0:
            raise ShapeError("divisor must be not zero")
        return kernel, stride, padding, (1, 1, 1), args[4]

    @classmethod
    def divisors(cls, shape: tuple[int, ...], args: tuple[Any, ...]) -> Any:
        """The divisor of each output position (OD x OH x OW)."""
        kernel, stride, padding, _, _ = cls.window(args)
        if args[6] is not None:
            return np.array(args[6])
        counts = []
        for o, s, p, k, n in zip(
            cls.output_dhw(shape, args), stride, padding, kernel, shape[-3:], strict=True
        ):
            start = window_starts(o, s, p)
            end = np.minimum(start + k, n + p)
            if not args[5]:
                start, end = np.maximum(start, 0), np.minimum(end, n)
            counts.append(end - start)
        return counts[0][:, None, None] * counts[1][None, :, None] * counts[2][None, None, :]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        x = args[0]
        sums = box_reduce(x, cls.windows(x, args), np.sum)
        quotient = sums / cls.divisors(x.shape, args)
        return (quotient if x.dtype.kind == "f" else np.trunc(quotient)).astype(x.dtype)

    def two_d_args(self, window: tuple[Any, ...], axis: str) -> list[Any]:
        kernel, stride, padding, _, ceil_mode = window
        return [*split((kernel, stride, padding), axis, (1, 1, 0)), ceil_mode, True, 1]

    def finish(self, s: OpSequence, out: SSAValue, sizes: tuple[int, ...]) -> None:
        dtype = out.type.element  # type: ignore[attr-defined]
        divisors = self.divisors(sizes, tuple(self.arg_values())).astype(dtype.numpy)
        literal = s.add(ValueTensorLiteralOp(np.ascontiguousarray(divisors))).results[0]
        if dtype.is_float:
            s.call(AtenDivTensorOp, out, literal)
        else:
            s.call(AtenDivTensorModeOp, out, literal, s.add(ConstantStrOp("trunc")).results[0])


class AdaptivePool3dOp(TorchOp):
    """`output_size` (three sizes), the shape rule and the separable decomposition."""

    TWO_D: ClassVar[Any]

    @classmethod
    def short_name(cls) -> str:
        return cls.PY_NAMES[0].removeprefix("F.")

    @classmethod
    def sizes(cls, value: Any) -> tuple[int, int, int]:
        sizes = triple(cls.short_name(), "output_size", value)
        if min(sizes) < 0:
            raise ShapeError(f"{cls.short_name()}: output_size must be non-negative")
        return sizes

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, output_size = args
        if x.dtype is not None and not x.dtype.is_float:
            name = cls.short_name()
            raise TypeError(f"\"{name}_cpu\" not implemented for '{TORCH_DTYPE[x.dtype.name]}'")
        out = cls.sizes(output_size)
        shape = volume_dims(cls.short_name(), x)
        if shape is None or open_result(x):
            return [ValueTensorType(None, x.dtype)]
        return [ValueTensorType((*shape[:-3], *out), x.dtype)]

    @classmethod
    def eager_reduce(cls, x: Any, output_size: Any, reduce: Any) -> Any:
        windows = [
            [np.arange(s, e) for s, e in zip(*adaptive_bounds(o, n), strict=True)]
            for o, n in zip(cls.sizes(output_size), x.shape[-3:], strict=True)
        ]
        return box_reduce(x, windows, reduce).astype(x.dtype)

    def decompose(self) -> Any:
        x = self.operands[0]
        if not isinstance(x.type, ValueTensorType) or x.type.sizes is None or DYN in x.type.sizes:
            return None
        od, oh, ow = self.sizes(self.arg_values()[1])
        s = OpSequence()
        if self.TWO_D is AtenAdaptiveAvgPool2dOp:
            steps = {"hw": [[oh, ow]], "d": [[od, oh * ow]]}
            separable(s, x, self.TWO_D, steps.__getitem__)
            return s.ops
        # max: (H, W) by the 2-D op, then one slice + amax per window along D
        rank = len(x.type.sizes)
        planes = s.call(AtenFlattenUsingIntsOp, x, 0, rank - 3)
        hw = s.call(self.TWO_D, planes, [oh, ow])
        out = s.call(AtenViewOp, hw, [*x.type.sizes[:-2], oh, ow])
        depth = rank - 3
        parts = [
            s.call(AtenAmaxOp, s.call(AtenSliceTensorOp, out, depth, start, end, 1), [depth], True)
            for start, end in zip(*adaptive_bounds(od, x.type.sizes[depth]), strict=True)
        ]
        s.call(AtenCatOp, s.list_of(parts), depth)
        return s.ops


@torch_op
class AtenAdaptiveAvgPool3dOp(AdaptivePool3dOp):
    """`F.adaptive_avg_pool3d(x, output_size)`: output (od, oh, ow) averages the input box
    [floor(o * n / out), ceil((o + 1) * n / out)) along each of D, H and W."""

    name = "torch.aten.adaptive_avg_pool3d"
    SCHEMA = "aten::adaptive_avg_pool3d(Tensor self, int[3] output_size) -> Tensor"
    PY_NAMES = ("F.adaptive_avg_pool3d", "torch.adaptive_avg_pool3d")
    TWO_D = AtenAdaptiveAvgPool2dOp
    SAMPLES = (Sample(Tn((1, 2, 5, 6, 7)), [2, 3, 4]), Sample(Tn((2, 3, 4, 5), "float64"), 1))
    self_ = operand_def(ValueTensorType)
    output_size = operand_def(IntTriple)
    result = result_def(ValueTensorType)

    @classmethod
    def eager(cls, x: Any, output_size: Any) -> Any:
        return cls.eager_reduce(x, output_size, np.mean)


@torch_op
class AtenAdaptiveMaxPool3dValuesOp(AdaptivePool3dOp):
    """`F.adaptive_max_pool3d(x, output_size)`: the largest element of each adaptive box."""

    name = "torch.aten._adaptive_max_pool3d_values"
    SCHEMA = "aten::_adaptive_max_pool3d_values(Tensor self, int[] output_size) -> Tensor"
    PY_NAMES = ("F.adaptive_max_pool3d", "torch._adaptive_max_pool3d_values")
    TWO_D = AtenAdaptiveMaxPool2dValuesOp
    SAMPLES = (Sample(Tn((1, 2, 5, 6, 7)), [2, 3, 4]), Sample(Tn((2, 3, 4, 5), "float64"), 2))
    self_ = operand_def(ValueTensorType)
    output_size = operand_def(ListType | IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def eager(cls, x: Any, output_size: Any) -> Any:
        return cls.eager_reduce(x, output_size, np.max)


OPS = (AtenMaxPool3dOp, AtenAvgPool3dOp, AtenAdaptiveAvgPool3dOp, AtenAdaptiveMaxPool3dValuesOp)
