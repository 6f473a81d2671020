"""Resizing (`F.interpolate`, `nn.Upsample`) of (N, C, *) inputs with 1 to 3 spatial dims:
`_resize_nearest`, `_resize_nearest_exact`, `_resize_linear` and `_resize_cubic` (ATen's
`upsample_nearest{1,2,3}d.vec`, `_upsample_nearest_exact*d.vec`, `upsample_linear1d.vec`,
`upsample_bilinear2d.vec`, ... as one op per mode: `F.interpolate` picks by mode only, since
a script does not know the rank).

Each spatial dim is resized on its own (the modes are separable), with PyTorch's source
positions: nearest `min(floor(i * scale), n - 1)` (`i // 2` when doubling, `i` when the size
stays), nearest-exact `min(floor((i + 0.5) * scale), n - 1)`, linear
`max((i + 0.5) * scale - 0.5, 0)` (or `i * (n - 1) / (out - 1)` with align_corners) between
its floor and the next element, cubic the four around `i * scale` (same formula, not clamped
at 0) with PyTorch's coefficients (A = -0.75), edges repeated; `scale` is `1 / scale_factor` when given, else `n / out`,
computed in the input's float precision. `torch-decompose` writes each dim as `index_select`
at a constant index (and for linear a weighted sum of two), so the input's spatial sizes must
be known: while they are not, the result type stays open and the frontend compiles the call
for its exact shapes.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import Dynamic, ShapeError
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import AtenAddTensorOp, AtenMulTensorOp
from dialects.torch.ops.indexing import AtenIndexSelectOp
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.prim import ValueTensorLiteralOp
from dialects.torch.types import DYN, BoolType, FloatType, IntType, ListType, NoneType
from dialects.torch.types import ValueTensorType as VT

Sizes = ListType | IntType | NoneType


Scales = ListType | FloatType | IntType | NoneType


def _per_dim(name: str, what: str, value: Any, count: int) -> list[Any] | None:
    if value is None:
        return None
    values = list(value) if isinstance(value, list | tuple) else [value] * count
    if len(values) != count or any(isinstance(v, Dynamic) for v in values):
        raise TypeError(f"{name}: `{what}` must be {count} numbers known while scripting")
    return values


def output_sizes(name: str, shape: tuple[int, ...], size: Any, scales: Any,
                 count: int) -> tuple[list[int], list[float | None]]:  # fmt: skip
    """The output's spatial sizes (`?` while an input size is) and the scale of each dim."""
    sizes, factors = (
        _per_dim(name, "output_size", size, count),
        _per_dim(name, "scale_factors", scales, count),
    )
    if (sizes is None) == (factors is None):
        raise ShapeError("Must specify exactly one of output_size and scale_factors")
    spatial = shape[-count:]
    if factors is not None:
        sizes = [DYN if n == DYN else math.floor(n * float(f)) for n, f in zip(spatial, factors)]
        return sizes, [float(f) for f in factors]
    return list(sizes), [None] * count  # type: ignore[arg-type]


Taps = list[tuple[Any, Any]]  # (source index, weight or None) per output position, summed


def _cubic_weights(t: Any, dtype: Any) -> list[Any]:
    """PyTorch's cubic convolution coefficients (A = -0.75) at fraction `t`."""
    a = dtype.type(-0.75)

    def near(x: Any) -> Any:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: Any) -> Any:  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def source_taps(mode: str, size: int, out: int, scale: float | None,
                align_corners: bool, dtype: Any) -> Taps:  # fmt: skip
    """Where each output position along one dim reads: nearest modes one source element,
    linear two (weighted), cubic four (clamped to the edges)."""
    i = np.arange(out)
    if mode in ("linear", "cubic") and align_corners:
        step = dtype.type((size - 1) / (out - 1)) if out > 1 else dtype.type(0)
    else:
        step = dtype.type(1.0 / scale) if scale else dtype.type(size / out)
    if mode == "nearest":
        if out == size:
            index = i
        elif out == 2 * size:
            index = i >> 1
        else:
            index = np.minimum(np.floor(i.astype(np.float32) * np.float32(step)), size - 1)
        return [(index.astype(np.int64), None)]
    if mode == "nearest-exact":
        index = np.minimum(np.floor((i.astype(np.float32) + 0.5) * np.float32(step)), size - 1)
        return [(index.astype(np.int64), None)]
    if align_corners:
        source = i.astype(dtype) * step
    else:
        source = (i.astype(dtype) + dtype.type(0.5)) * step - dtype.type(0.5)
    if mode == "cubic":
        start = np.floor(source).astype(np.int64)
        weights = _cubic_weights((source - start).astype(dtype), dtype)
        return [(np.clip(start - 1 + k, 0, size - 1), weights[k].astype(dtype)) for k in range(4)]
    source = np.maximum(source, 0)
    index0 = source.astype(np.int64)
    weight1 = np.clip(source - index0.astype(dtype), 0, 1).astype(dtype)
    return [(index0, (1 - weight1).astype(dtype)), (np.minimum(index0 + 1, size - 1), weight1)]


class UpsampleOp(TorchOp):
    """Shape rule, reference and decomposition of the resizing ops."""

    MODE: ClassVar[str]
    LINEAR: ClassVar[bool] = False

    @classmethod
    def short_name(cls) -> str:
        return cls.name.removeprefix("torch.aten.").split(".")[0]

    @classmethod
    def unpack(cls, args: tuple[Any, ...]) -> tuple[Any, Any, Any, bool]:
        if cls.LINEAR:
            x, size, align_corners, scales = args
            if not isinstance(align_corners, bool):
                raise TypeError(f"{cls.short_name()}: `align_corners` must be known while scripting")  # fmt: skip
            return x, size, scales, align_corners
        x, size, scales = args
        return x, size, scales, False

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, size, scales, _ = cls.unpack(args)
        name = cls.short_name()
        if x.dtype is not None and (x.dtype.is_bool or (cls.LINEAR and not x.dtype.is_float)):
            raise TypeError(f"\"{name}\" not implemented for '{x.dtype.name}'")
        if x.shape is None:
            return [VT(None, x.dtype)]
        if len(x.shape) not in (3, 4, 5):
            raise ShapeError(
                f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {len(x.shape)}D) "
                f"for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                f"nearest-exact (got {cls.MODE})"
            )
        if cls.MODE == "cubic" and len(x.shape) != 4:
            raise ShapeError(f"Got {len(x.shape)}D input, but bicubic mode needs 4D input")
        sizes, _ = output_sizes(name, x.shape, size, scales, len(x.shape) - 2)
        if any(n != DYN and n <= 0 for n in sizes):
            raise ShapeError(f"{name}: output sizes must be positive, got {sizes}")
        if DYN in x.shape[2:]:  # the code indexes with constants: compiled per exact shape
            return [VT(None, x.dtype)]
        return [VT((*x.shape[:2], *sizes), x.dtype)]

    @classmethod
    def positions(cls, args: tuple[Any, ...], shape: tuple[int, ...], dtype: Any) -> list[Any]:
        _, size, scales, align_corners = cls.unpack(args)
        sizes, factors = output_sizes(cls.short_name(), shape, size, scales, len(shape) - 2)
        opmath = np.dtype(np.float64 if dtype == np.float64 else np.float32)
        return [
            source_taps(cls.MODE, n, out, f, align_corners, opmath)
            for n, out, f in zip(shape[2:], sizes, factors)
        ]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        x = args[0]
        out = x
        for k, taps in enumerate(cls.positions(args, x.shape, x.dtype)):
            axis = 2 + k
            view = (-1,) + (1,) * (x.ndim - 1 - axis)
            parts = [
                np.take(out, index, axis=axis) * (1 if w is None else w.reshape(view))
                for index, w in taps
            ]
            out = sum(parts[1:], parts[0])
        return out.astype(x.dtype)

    def decompose(self) -> Any:
        x = self.operands[0]
        if not isinstance(x.type, VT) or x.type.sizes is None or DYN in x.type.sizes[2:]:
            return None
        shape = tuple(x.type.sizes)
        dtype = x.type.element.numpy  # type: ignore[union-attr]
        s = OpSequence()
        out = x
        for k, taps in enumerate(self.positions(tuple(self.arg_values()), shape, dtype)):
            axis = 2 + k
            view = (-1,) + (1,) * (len(shape) - 1 - axis)
            total = None
            for index, weight in taps:
                part = s.call(AtenIndexSelectOp, out, axis, self.literal(s, index))
                if weight is not None:
                    w = self.literal(s, weight.astype(dtype).reshape(view))
                    part = s.call(AtenMulTensorOp, part, w)
                total = part if total is None else s.call(AtenAddTensorOp, total, part, 1)
            out = total
        return s.ops

    @staticmethod
    def literal(s: OpSequence, array: Any) -> Any:
        return s.add(ValueTensorLiteralOp(np.ascontiguousarray(array))).results[0]


def _resize_op(aten: str, mode: str, linear: bool, doc: str,
               samples: tuple[Sample, ...]) -> type[UpsampleOp]:  # fmt: skip
    corners = "bool align_corners, " if linear else ""
    body: dict[str, Any] = {
        "__doc__": doc,
        "name": f"torch.aten.{aten}",
        "SCHEMA": f"aten::{aten}(Tensor input, int[]? output_size, {corners}"
        "float[]? scale_factors) -> Tensor",
        "PY_NAMES": (f"torch.{aten}",),
        "MODE": mode,
        "LINEAR": linear,
        "SAMPLES": samples,
        "input": operand_def(VT),
        "output_size": operand_def(Sizes),
        **({"align_corners": operand_def(BoolType)} if linear else {}),
        "scale_factors": operand_def(Scales),
        "result": result_def(VT),
    }
    name = "Aten" + "".join(part.title() for part in aten.split("_")) + "Op"
    return torch_op(type(name, (UpsampleOp,), body))


AtenResizeNearestOp = _resize_op(
    "_resize_nearest", "nearest", False,
    "`F.interpolate(x, ..., mode='nearest')` of an (N, C, L), (N, C, H, W) or (N, C, D, H, W) "
    "input (ATen's `upsample_nearest{1,2,3}d.vec`).",
    (Sample(Tn((1, 2, 3, 4)), None, [2.0, 1.5]), Sample(Tn((2, 1, 5), "int64"), [7], None)),
)  # fmt: skip


AtenResizeNearestExactOp = _resize_op(
    "_resize_nearest_exact", "nearest-exact", False,
    "`F.interpolate(x, ..., mode='nearest-exact')` (ATen's `_upsample_nearest_exact*d.vec`).",
    (Sample(Tn((1, 2, 5, 4)), [3, 7], None),),
)  # fmt: skip


AtenResizeLinearOp = _resize_op(
    "_resize_linear", "linear", True,
    "`F.interpolate(x, ..., mode='linear' | 'bilinear' | 'trilinear', align_corners=...)` "
    "(ATen's `upsample_linear1d.vec`, `upsample_bilinear2d.vec`, ...).",
    (Sample(Tn((1, 2, 3, 4)), None, False, [2.0, 1.5]),
     Sample(Tn((2, 1, 4), "float64"), [5], True, None)),
)  # fmt: skip


AtenResizeCubicOp = _resize_op(
    "_resize_cubic", "cubic", True,
    "`F.interpolate(x, ..., mode='bicubic', align_corners=...)` of an (N, C, H, W) input "
    "(ATen's `upsample_bicubic2d.vec`; the taps past an edge read the edge).",
    (Sample(Tn((1, 2, 3, 4)), None, False, [2.0, 1.5]),
     Sample(Tn((2, 1, 4, 3), "float64"), [5, 2], True, None)),
)  # fmt: skip


def _image(name: str, x: Any) -> None:
    if x.shape is not None and len(x.shape) != 4:
        raise ShapeError(f"{name}: expected a 4-D (N, C, H, W) input, got {len(x.shape)}-D")


@torch_op
class AtenUpsampleNearest2dVecOp(UpsampleOp):
    """ATen's `upsample_nearest2d.vec` (`torch._C._nn.upsample_nearest2d(x, size, factors)`):
    `F.interpolate(x, size or scale_factor, mode='nearest')` of an (N, C, H, W) input."""

    name = "torch.aten.upsample_nearest2d.vec"
    SCHEMA = (
        "aten::upsample_nearest2d.vec(Tensor input, int[]? output_size, float[]? scale_factors)"
        " -> Tensor"
    )
    PY_NAMES = ("torch._C._nn.upsample_nearest2d",)
    MODE = "nearest"
    SAMPLES = (Sample(Tn((1, 2, 3, 4)), None, [2.0, 1.5]),)
    input = operand_def(VT)
    output_size = operand_def(Sizes)
    scale_factors = operand_def(Scales)
    result = result_def(VT)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        _image("upsample_nearest2d", args[0])
        return super().infer(*args)


@torch_op
class AtenUpsampleNearest2dOp(UpsampleOp):
    """ATen's `upsample_nearest2d(x, output_size, scales_h, scales_w)`: nearest resizing to
    `output_size`, reading source row `floor(i / scales_h)` when a scale is given (else
    `floor(i * H / OH)`), as ATen computes it."""

    name = "torch.aten.upsample_nearest2d"
    SCHEMA = (
        "aten::upsample_nearest2d(Tensor self, int[2] output_size, float? scales_h=None, "
        "float? scales_w=None) -> Tensor"
    )
    PY_NAMES = ("torch._C._nn.upsample_nearest2d",)
    MODE = "nearest"
    SAMPLES = (Sample(Tn((1, 2, 3, 4)), [5, 7]), Sample(Tn((2, 2, 3, 2), "float64"), [7, 4], 2.5))
    self_ = operand_def(VT)
    output_size = operand_def(ListType)
    scales_h = operand_def(FloatType | NoneType)
    scales_w = operand_def(FloatType | NoneType)
    result = result_def(VT)

    @classmethod
    def unpack(cls, args: tuple[Any, ...]) -> tuple[Any, Any, Any, bool]:
        return args[0], args[1], None, False

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        _image("upsample_nearest2d", args[0])
        if any(isinstance(v, Dynamic) for v in args[2:]):
            raise TypeError("upsample_nearest2d: the scales must be known while scripting")
        return super().infer(*args)

    @classmethod
    def positions(cls, args: tuple[Any, ...], shape: tuple[int, ...], dtype: Any) -> list[Any]:
        sizes, _ = output_sizes(cls.short_name(), shape, args[1], None, 2)
        return [
            source_taps("nearest", n, out, f, False, np.dtype(np.float32))
            for n, out, f in zip(shape[2:], sizes, args[2:4], strict=True)
        ]


OPS = (
    AtenUpsampleNearest2dVecOp,
    AtenUpsampleNearest2dOp,
    AtenResizeNearestOp,
    AtenResizeNearestExactOp,
    AtenResizeLinearOp,
    AtenResizeCubicOp,
)
