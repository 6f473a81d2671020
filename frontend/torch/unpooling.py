"""`F.max_unpool2d` / `F.max_unpool3d`: `torch._max_unpool` (`dialects/torch/ops/unpooling.py`),
which computes PyTorch's output size and decomposes into the ATen ops.

Scripts run these functions as the twins of PyTorch's (`frontend/ir/resolve.py`); traces record
them as the counterparts of PyTorch's functions.
"""

from __future__ import annotations

from frontend.torch import functions as _torch
from frontend.torch.tensor import Tensor


def max_unpool2d(
    input: Tensor,
    indices: Tensor,
    kernel_size,  # an int or ints: no one annotation the scripter reads
    stride=None,
    padding=0,
    output_size=None,
) -> Tensor:
    """Each element of `input` at its flat index of an (H, W) plane of zeros. Scriptable."""
    return _torch._max_unpool(input, indices, 2, kernel_size, stride, padding, output_size)


def max_unpool3d(
    input: Tensor,
    indices: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    output_size=None,
) -> Tensor:
    """Each element of `input` at its flat index of a (D, H, W) volume of zeros. Scriptable."""
    return _torch._max_unpool(input, indices, 3, kernel_size, stride, padding, output_size)
