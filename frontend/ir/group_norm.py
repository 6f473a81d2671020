"""`aten::native_group_norm` as a composition of tsjit's ops (`frontend/ir/aten_aliases.py`)."""

from __future__ import annotations

import frontend.torch as _torch
from frontend.torch.tensor import Tensor


def native_group_norm(
    input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int, C: int, HxW: int,  # noqa: N803
    group: int, eps: float,
) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """`aten::native_group_norm`: (`group_norm` of the input, the mean and 1 / the std of
    each sample's group, both of shape [N, group]); `C` and `HxW` only restate the shape."""
    out = _torch.group_norm(input, group, weight, bias, eps)
    grouped = input.reshape([N, group, -1])
    mean = grouped.mean([2])
    rstd = (grouped.var([2], correction=0) + eps).rsqrt()
    return out, mean, rstd
