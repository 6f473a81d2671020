"""Rules shared by convolution and pooling: `int[2]` arguments, output sizes, (N,)C,H,W inputs.

Window parameters (kernel, stride, padding, dilation) must be compile-time constants: they
shape the loops. Image sizes may be `?`; the output size is then `?` and computed at run time
with the same formulas (`conv_output_size`, `pool_output_size`).
"""

from __future__ import annotations

from typing import Any

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.types import DYN


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
