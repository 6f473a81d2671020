"""Reductions of frontend.torch written with ops (scriptable and traceable): `std_mean`,
`var_mean`, `aminmax`, `nanmean`, `allclose`, `cosine_similarity`, `pairwise_distance`.

A script of `torch.<name>` (or `F.<name>`) runs the function of the same name here
(`frontend/ir/resolve.py` `frontend_twin`); a trace records the ops it calls. Each is written
for tensors of any rank (scripting does not know ranks or dtypes), with PyTorch's defaults.
"""

from __future__ import annotations

from frontend.torch import functions as _torch
from frontend.torch.tensor import Tensor


def std_mean(
    input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False,
    correction: float | None = None,
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """`torch.std_mean`: (std, mean) over `dim` (all dims when None); `unbiased=False` or
    `correction=` as in `torch.std` (both must be known while scripting)."""
    mean = input.mean(dim, keepdim)
    if correction is not None:
        return input.std(dim, correction=correction, keepdim=keepdim), mean
    if unbiased is None or unbiased:
        return input.std(dim, correction=1, keepdim=keepdim), mean
    return input.std(dim, correction=0, keepdim=keepdim), mean


def var_mean(
    input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False,
    correction: float | None = None,
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """`torch.var_mean`: (var, mean) over `dim` (all dims when None), like `std_mean`."""
    mean = input.mean(dim, keepdim)
    if correction is not None:
        return input.var(dim, correction=correction, keepdim=keepdim), mean
    if unbiased is None or unbiased:
        return input.var(dim, correction=1, keepdim=keepdim), mean
    return input.var(dim, correction=0, keepdim=keepdim), mean


def aminmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """`torch.aminmax`: (min, max) over `dim`, or of all elements when None."""
    if dim is None:
        return input.amin([], keepdim), input.amax([], keepdim)
    return input.amin([dim], keepdim), input.amax([dim], keepdim)


def nanmean(input: Tensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """`torch.nanmean`: the mean of the elements that are not NaN (NaN where none is)."""
    kept = _torch.logical_not(input.isnan())
    total = _torch.nansum(input, dim, keepdim, dtype=dtype)
    return total / kept.sum(dim, keepdim)


def allclose(
    input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
    equal_nan: bool = False,
) -> bool:  # fmt: skip
    """`torch.allclose`: |input - other| <= atol + rtol * |other| everywhere (broadcast; equal
    infinities are close; NaNs only with `equal_nan`), a Python bool."""
    close = _torch.logical_or((input - other).abs() <= atol + rtol * other.abs(), input == other)
    if equal_nan:
        close = _torch.logical_or(close, _torch.logical_and(input.isnan(), other.isnan()))
    return bool(close.all())


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-08) -> Tensor:
    """`F.cosine_similarity` (= `torch.cosine_similarity`): as PyTorch computes it, each
    (broadcast) input divided by its 2-norm along `dim` clamped to `eps`, then summed
    products along `dim`."""
    a = x1 * _torch.ones_like(x2)
    b = x2 * _torch.ones_like(x1)
    a_norm = a.norm(2, dim, True).clamp_min(eps)
    b_norm = b.norm(2, dim, True).clamp_min(eps)
    return ((a / a_norm) * (b / b_norm)).sum(dim)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-06, keepdim: bool = False
) -> Tensor:
    """`F.pairwise_distance`: the p-norm of `x1 - x2 + eps` along the last dim."""
    return (x1 - x2 + eps).norm(p, -1, keepdim)


FUNCTIONS = (
    std_mean, var_mean, aminmax, nanmean, allclose, cosine_similarity, pairwise_distance,
)  # fmt: skip
