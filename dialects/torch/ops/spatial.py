"""Rules shared by convolution and pooling: `int[2]` arguments, output sizes, (N,)C,H,W inputs,
and `OneDimOp`, the base of the 1-D forms that run as their 2-D op over a unit dim.

Window parameters (kernel, stride, padding, dilation) must be compile-time constants: they
shape the loops. Image sizes may be `?`; the output size is then `?` and computed at run time
with the same formulas (`conv_output_size`, `pool_output_size`).

The 1-D forms: input (N, C, L) or unbatched (C, L). The shape rule, the reference and the decomposition
(`torch-decompose`: unsqueeze the height, the 2-D op, squeeze it) all go through the 2-D op,
whose window arguments get a unit height: kernel / stride / dilation 1, padding 0.
"""

from __future__ import annotations

from typing import Any, ClassVar

from xdsl.ir import Attribute

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import TorchOp
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.views import AtenSqueezeDimOp, AtenUnsqueezeOp
from dialects.torch.types import (
    DYN,
    IntType,
    ListType,
    ValueTensorType,
)


def pair(
    op_name: str, arg_name: str, value: Any, empty: tuple[int, int] | None = None
) -> tuple[int, int]:
    """An `int[2]` argument: an int or a one- or two-element list of constant ints.

    `empty` is what an empty list or None means (max_pool2d's `stride=[]` is the kernel size).
    """
    if value is None and empty is not None:
        return empty
    if isinstance(value, int) and not isinstance(value, bool):
        return value, value
    if isinstance(value, list | tuple) and all(isinstance(v, int) for v in value):
        if len(value) == 0 and empty is not None:
            return empty
        if len(value) == 1:
            return value[0], value[0]
        if len(value) == 2:
            return value[0], value[1]
    raise TypeError(f"{op_name}: `{arg_name}` must be one or two constant ints, got {value!r}")


def image_dims(op_name: str, x: TensorMeta) -> tuple[int, ...] | None:
    """The input's shape if it is a 3-D (C, H, W) or 4-D (N, C, H, W) image batch."""
    if x.shape is None:
        return None
    if len(x.shape) not in (3, 4):
        raise ShapeError(
            f"{op_name}: Expected 3D (unbatched) or 4D (batched) input, but got input of size: "
            f"{list(x.shape)}"
        )
    return x.shape


def conv_output_size(size: int, kernel: int, stride: int, pad_total: int, dilation: int) -> int:
    """floor((size + pad_total - dilation * (kernel - 1) - 1) / stride) + 1, `?` stays `?`."""
    if DYN in (size, kernel):
        return DYN
    return (size + pad_total - dilation * (kernel - 1) - 1) // stride + 1


def pool_output_size(
    size: int, kernel: int, stride: int, pad: int, dilation: int, ceil_mode: bool
) -> int:
    """torch's `pooling_output_shape`: with ceil_mode the last window may hang over the end,
    but must start inside the input or its left padding."""
    if size == DYN:
        return DYN
    span = size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = span // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def check_window(op_name: str, kernel: tuple[int, int], stride: tuple[int, int],
                 padding: tuple[int, int], dilation: tuple[int, int]) -> None:  # fmt: skip
    """torch's checks on pooling windows."""
    if min(stride) <= 0:
        raise ShapeError(f"{op_name}: stride should not be zero")
    if min(kernel) <= 0:
        raise ShapeError(
            f"{op_name}: kernel size should be greater than zero, but got {list(kernel)}"
        )
    if min(dilation) <= 0:
        raise ShapeError(
            f"{op_name}: dilation should be greater than zero, but got {list(dilation)}"
        )
    for k, p, d in zip(kernel, padding, dilation, strict=True):
        if p < 0 or p > (d * (k - 1) + 1) // 2:
            raise ShapeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation={d}"
            )


def check_output(op_name: str, shape: tuple[int, ...], out_hw: tuple[int, int]) -> None:
    if any(d != DYN and d <= 0 for d in out_hw):
        channels = "x".join("?" if d == DYN else str(d) for d in shape[-3:])
        outs = "x".join("?" if d == DYN else str(d) for d in (shape[-3], *out_hw))
        raise ShapeError(
            f"{op_name}: Given input size: ({channels}). Calculated output size: ({outs}). "
            "Output size is too small"
        )


IntList = ListType | IntType


def single(op_name: str, arg_name: str, value: Any) -> list[int]:
    """An `int[1]` argument as a list: [] (a pooling stride's default, also None), or [v]."""
    if value is None:
        return []
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    if (
        isinstance(value, list | tuple)
        and len(value) <= 1
        and all(isinstance(v, int) for v in value)
    ):
        return list(value)
    raise TypeError(f"{op_name}: `{arg_name}` must be one constant int, got {value!r}")


class OneDimOp(TorchOp):
    """A 1-D op computed by `TWO_D` with a unit height; `WINDOW` gives, per argument
    position, the value the height takes in a window argument (None: passed as it is)."""

    TWO_D: ClassVar[type[TorchOp]]
    WINDOW: ClassVar[dict[int, int]]
    WEIGHT: ClassVar[bool] = False  # conv1d: the weight (C_out, C_in / g, k) gets a height too

    @classmethod
    def short_name(cls) -> str:
        return cls.name.removeprefix("torch.aten.").split(".")[0]

    @classmethod
    def two_d_args(cls, args: tuple[Any, ...], unsqueeze: Any) -> list[Any]:
        """The 2-D op's arguments; `unsqueeze(x)` gives a tensor argument its height."""
        out: list[Any] = []
        for index, value in enumerate(args):
            if index == 0 or (index == 1 and cls.WEIGHT):
                out.append(unsqueeze(value))
            elif index in cls.WINDOW:
                values = single(cls.short_name(), cls.arg_name(index), value)
                out.append([cls.WINDOW[index], *values] if values else [])
            else:
                out.append(value)
        return out

    @classmethod
    def arg_name(cls, index: int) -> str:
        return cls.parsed_schema().arguments[index].name

    @classmethod
    def check_rank(cls, x: TensorMeta) -> None:
        if x.shape is not None and len(x.shape) not in (2, 3):
            raise ShapeError(
                f"Expected 2D (unbatched) or 3D (batched) input to {cls.short_name()}, but got "
                f"input of size: {list(x.shape)}"
            )

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x = args[0]
        cls.check_rank(x)

        def unsqueeze(meta: Any) -> Any:
            if not isinstance(meta, TensorMeta) or meta.shape is None:
                return meta
            return TensorMeta((*meta.shape[:-1], 1, meta.shape[-1]), meta.dtype)

        (result,) = cls.TWO_D.infer(*cls.two_d_args(args, unsqueeze))
        sizes = result.sizes  # type: ignore[attr-defined]
        if sizes is None:
            return [result]
        return [ValueTensorType((*sizes[:-2], sizes[-1]), result.element)]  # type: ignore[attr-defined]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        cls.check_rank(TensorMeta.of_array(args[0]))
        out = cls.TWO_D.run_eager(*cls.two_d_args(args, lambda a: a[..., None, :]))
        return out[..., 0, :]

    def decompose(self) -> Any:
        x = self.operands[0]
        if not isinstance(x.type, ValueTensorType) or x.type.rank is None:
            return None
        s = OpSequence()
        converted = self.two_d_args(tuple(self.arg_values()), lambda a: a)
        args: list[Any] = []
        for index, operand in enumerate(self.operands):
            if index == 0 or (index == 1 and self.WEIGHT):
                args.append(s.call(AtenUnsqueezeOp, operand, -2))
            else:
                args.append(converted[index] if index in self.WINDOW else operand)
        args += converted[len(self.operands) :]  # the 2-D op's extra arguments
        two_d = s.call(self.TWO_D, *args)
        s.call(AtenSqueezeDimOp, two_d, -2)
        return s.ops
