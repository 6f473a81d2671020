"""`frontend.torch.nn.functional` (`F`): every op spelling `F.<name>` as a function, plus

- `dropout`: random, so no op: identity unless `training`, else a Bernoulli mask from the
  frontend.torch generator (scaled by 1/(1-p), like PyTorch); `dropout1d/2d/3d`,
  `alpha_dropout` and `feature_alpha_dropout`: the identity, refused in training;
- `instance_norm` (`torch.instance_norm`'s arguments in F's order), `interpolate` (the
  resizing ops by mode), `normalize`, `mse_loss`,
  `l1_loss` and `cross_entropy`, written with ops; the other losses and `softmin`
  (`frontend/torch/losses.py`);
- `batch_norm` and `embedding`, while the registry has only their ATen spellings
  (`torch.batch_norm`, `torch.embedding`, whose arguments come in another order): thin wrappers
  that call those ops; `batch_norm(training=True)` normalizes with the batch's statistics.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from dialects.torch.registry import BY_PY_NAME
from frontend.torch import functions as _torch
from frontend.torch.functional_ops import GENERATED
from frontend.torch.losses import FUNCTIONS as LOSSES
from frontend.torch.random import rng
from frontend.torch.tensor import Tensor

globals().update(GENERATED)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    keep = rng().random(tuple(input.shape)) >= p
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    mask = Tensor.wrap((keep * scale).astype(input.numpy().dtype))
    result = input * mask
    if inplace:
        input.numpy()[...] = result.numpy()
        return input
    return result


def _eval_dropout(name: str, input: Tensor, p: float, training: bool) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if training and p > 0.0:
        raise NotImplementedError(f"F.{name} in training mode is not supported (call .eval())")
    return input


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """`F.dropout1d`: the identity unless training (random channel masks: not supported)."""
    return _eval_dropout("dropout1d", input, p, training)


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """`F.dropout2d`: the identity unless training."""
    return _eval_dropout("dropout2d", input, p, training)


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """`F.dropout3d`: the identity unless training."""
    return _eval_dropout("dropout3d", input, p, training)


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """`F.alpha_dropout`: the identity unless training."""
    return _eval_dropout("alpha_dropout", input, p, training)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """`F.feature_alpha_dropout`: the identity unless training."""
    return _eval_dropout("feature_alpha_dropout", input, p, training)


def _batch_norm(
    input: Tensor,
    running_mean: Optional[Tensor],  # noqa: UP045  (typing spellings the scripter reads)
    running_var: Optional[Tensor],  # noqa: UP045
    weight: Optional[Tensor] = None,  # noqa: UP045
    bias: Optional[Tensor] = None,  # noqa: UP045
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize each channel (dim 1); running statistics are not updated here (the module
    does that), as in `torch.nn.functional.batch_norm` called without them. Scriptable: a
    scripted `F.batch_norm` is this function (`frontend/script/call_sites.py`)."""
    if not training:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: running_mean and running_var are needed unless training")
        return _torch.batch_norm(
            input, weight, bias, running_mean, running_var, False, momentum, eps, False
        )
    return _batch_statistics_norm(input, weight, bias, eps)


def _batch_statistics_norm(
    input: Tensor, weight: Tensor | None, bias: Tensor | None, eps: float
) -> Tensor:
    """Training mode: each channel normalized with the batch's own statistics."""
    if isinstance(input, np.ndarray):  # called as Python from a script: arrays in and out
        tensors = [None if a is None else Tensor.wrap(a) for a in (input, weight, bias)]
        return _batch_statistics_norm(*tensors, eps).numpy()  # type: ignore[arg-type]
    dims = [0, *range(2, input.ndim)]
    centered = input - input.mean(dims, keepdim=True)  # type: ignore[attr-defined]
    variance = (centered * centered).mean(dims, keepdim=True)  # type: ignore[attr-defined]
    out = centered * _torch.rsqrt(variance + eps)
    channels = [1, -1] + [1] * (input.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(channels)  # type: ignore[attr-defined]
    if bias is not None:
        out = out + bias.reshape(channels)  # type: ignore[attr-defined]
    return out


# A script of F.batch_norm(training=True) calls this as Python (like `@frontend.ignore`): its
# statistics depend on the rank, which scripting does not know.
_batch_statistics_norm.__tsjit_ignore__ = True  # type: ignore[attr-defined]


def _embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: Optional[int] = None,  # noqa: UP045
    max_norm: Optional[float] = None,  # noqa: UP045
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """The rows of `weight` at `input` (`torch.embedding` with its arguments swapped).
    Scriptable: a scripted `F.embedding` is this function (`frontend/script/call_sites.py`)."""
    if max_norm is not None:
        raise NotImplementedError("F.embedding(max_norm=...) is not supported")
    index = -1 if padding_idx is None else padding_idx
    return _torch.embedding(weight, input, index, scale_grad_by_freq, sparse)


def instance_norm(
    input: Tensor,
    running_mean: Optional[Tensor] = None,  # noqa: UP045
    running_var: Optional[Tensor] = None,  # noqa: UP045
    weight: Optional[Tensor] = None,  # noqa: UP045
    bias: Optional[Tensor] = None,  # noqa: UP045
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """`F.instance_norm`: `torch.instance_norm` with its arguments in F's order (running
    statistics are read, never updated). Scriptable."""
    return _torch.instance_norm(
        input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, False
    )


def interpolate(
    input: Tensor,
    size=None,  # an int or ints: no one annotation the scripter reads
    scale_factor=None,
    mode: str = "nearest",
    align_corners: Optional[bool] = None,  # noqa: UP045
    recompute_scale_factor: Optional[bool] = None,  # noqa: UP045
    antialias: bool = False,
) -> Tensor:
    """`F.interpolate` of (N, C, *) inputs: modes nearest, nearest-exact, (bi/tri)linear,
    bicubic (`dialects/torch/ops/resize.py`) and area with a size of an (N, C, H, W) input (adaptive
    average pooling). Scriptable."""
    if antialias:
        raise NotImplementedError("F.interpolate(antialias=True) is not supported")
    if recompute_scale_factor:
        raise NotImplementedError("F.interpolate(recompute_scale_factor=True) is not supported")
    if mode in ("nearest", "nearest-exact", "area") and align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    corners = False if align_corners is None else align_corners
    if mode == "nearest":
        return _torch._resize_nearest(input, size, scale_factor)
    if mode == "nearest-exact":
        return _torch._resize_nearest_exact(input, size, scale_factor)
    if mode in ("linear", "bilinear", "trilinear"):
        return _torch._resize_linear(input, size, corners, scale_factor)
    if mode == "bicubic":
        return _torch._resize_cubic(input, size, corners, scale_factor)
    if mode == "area" and size is not None:
        return _torch.adaptive_avg_pool2d(input, size)
    raise NotImplementedError(f"F.interpolate: mode={mode!r} is not supported")


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None
) -> Tensor:
    """`F.normalize`: `input / max(norm_p(input, dim), eps)`. Scriptable."""
    if out is not None:
        raise NotImplementedError("F.normalize(out=...) is not supported")
    if p == 2.0:
        norm = (input * input).sum(dim, keepdim=True).sqrt()
    else:
        norm = (input.abs() ** p).sum(dim, keepdim=True) ** (1.0 / p)
    return input / norm.clamp_min(eps)


def mse_loss(
    input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
    reduction: str = "mean", weight: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """`F.mse_loss`: the squared differences, averaged, summed or not (`reduction`)."""
    if weight is not None:
        raise NotImplementedError("F.mse_loss(weight=...) is not supported")
    return _reduced((input - target) * (input - target), reduction)


def l1_loss(
    input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
    reduction: str = "mean", weight: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """`F.l1_loss`: the absolute differences, averaged, summed or not (`reduction`)."""
    if weight is not None:
        raise NotImplementedError("F.l1_loss(weight=...) is not supported")
    return _reduced((input - target).abs(), reduction)


def cross_entropy(
    input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
    ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:  # fmt: skip
    """`F.cross_entropy` of logits `[N, C, ...]` (or `[C]`) and class indices `[N, ...]` or
    class probabilities (the input's shape), with class weights, ignore_index and label
    smoothing: the op `torch.cross_entropy_loss`, whose formula depends on the target's dtype
    (dialects/torch/ops/losses.py)."""
    if size_average is not None or reduce is not None:
        raise ValueError("cross_entropy: size_average and reduce are deprecated, use reduction=")
    if reduction == "mean":
        return _torch.cross_entropy_loss(input, target, weight, 1, ignore_index, label_smoothing)
    if reduction == "sum":
        return _torch.cross_entropy_loss(input, target, weight, 2, ignore_index, label_smoothing)
    if reduction != "none":
        raise ValueError(reduction + " is not a valid value for reduction")
    return _torch.cross_entropy_loss(input, target, weight, 0, ignore_index, label_smoothing)


def _reduced(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    if reduction != "none":
        raise ValueError("reduction must be 'mean', 'sum' or 'none'")
    return losses


from frontend.torch.attention import (  # noqa: E402, F401  (written with the functions above)
    multi_head_attention_forward,
    scaled_dot_product_attention,
)
from frontend.torch.nn.activation_functions import *  # noqa: E402, F403  (F.elu, F.relu6, ...)
from frontend.torch.unpooling import max_unpool2d, max_unpool3d  # noqa: E402, F401

globals().update({f.__name__: f for f in LOSSES})  # kl_div, nll_loss, ... (frontend/torch/losses)

if "F.batch_norm" not in BY_PY_NAME and "torch.batch_norm" in BY_PY_NAME:
    batch_norm = _batch_norm
if "F.embedding" not in BY_PY_NAME and "torch.embedding" in BY_PY_NAME:
    embedding = _embedding


def __getattr__(name: str) -> Any:
    raise AttributeError(
        f"frontend.torch.nn.functional has no '{name}': no registered op spells F.{name} "
        "(see dialects/torch/ops)"
    )
