"""Loss functions of `F` written with ops (scriptable and traceable), PyTorch's formulas:
binary_cross_entropy (weight), binary_cross_entropy_with_logits (weight, pos_weight; from
logsigmoid, so large logits do not overflow), kl_div (log_target; reduction 'batchmean'),
smooth_l1_loss (beta), huber_loss (delta, weight), soft_margin_loss, margin_ranking_loss,
cosine_embedding_loss, nll_loss (class weights, ignore_index), and F.softmin.

Every loss takes `reduction` 'mean', 'sum' or 'none' (a ValueError otherwise); the
deprecated `size_average` / `reduce` choose it as in PyTorch (nll_loss refuses them).
`F.cross_entropy` is in `frontend/torch/nn/functional.py`. Functions are written for inputs
of any rank (scripting does not know ranks); input and target sizes are not compared.
"""

from __future__ import annotations

from frontend.torch import functional_ops as F
from frontend.torch import functions as _torch
from frontend.torch.tensor import Tensor

EPSILON = 1e-12  # torch's cosine_embedding_loss: added to each squared magnitude
LOG_FLOOR = -100.0  # torch's binary_cross_entropy: each log is at least this


def reduced(
    losses: Tensor, reduction: str = "mean", size_average: bool | None = None,
    reduce: bool | None = None,
) -> Tensor:  # fmt: skip
    """The mean, the sum, or the losses themselves ('none'); the deprecated `size_average` /
    `reduce`, when given, decide instead (as in PyTorch: reduce=False: none; else
    size_average=False: sum; else mean)."""
    if size_average is not None or reduce is not None:
        if reduce is not None and not reduce:
            return losses
        if size_average is not None and not size_average:
            return losses.sum()
        return losses.mean()
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    if reduction != "none":
        raise ValueError(reduction + " is not a valid value for reduction")
    return losses


def binary_cross_entropy(
    input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
    reduce: bool | None = None, reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """`-w * (t * log(x) + (1 - t) * log(1 - x))`, each log at least -100 (as PyTorch)."""
    log_x = input.log().clamp_min(LOG_FLOOR)
    log_rest = (1.0 - input).log().clamp_min(LOG_FLOOR)
    losses = -(target * log_x + (1.0 - target) * log_rest)
    if weight is not None:
        losses = losses * weight
    return reduced(losses, reduction, size_average, reduce)


def binary_cross_entropy_with_logits(
    input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
    reduce: bool | None = None, reduction: str = "mean", pos_weight: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """`(1 - t) * x - (1 + (pos_weight - 1) * t) * logsigmoid(x)`, times `weight`."""
    log_sigmoid = F.logsigmoid(input)
    if pos_weight is None:
        losses = (1.0 - target) * input - log_sigmoid
    else:
        losses = (1.0 - target) * input - ((pos_weight - 1.0) * target + 1.0) * log_sigmoid
    if weight is not None:
        losses = losses * weight
    return reduced(losses, reduction, size_average, reduce)


def kl_div(
    input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
    reduction: str = "mean", log_target: bool = False,
) -> Tensor:  # fmt: skip
    """`t * (log t - x)` (0 where t is 0), or `exp(t) * (t - x)` with `log_target`;
    'batchmean' divides the sum by the batch size (dim 0)."""
    if log_target:
        losses = target.exp() * (target - input)
    else:
        losses = _torch.xlogy(target, target) - target * input
    if reduction == "batchmean":
        return losses.sum() / input.size(0)
    return reduced(losses, reduction, size_average, reduce)


def smooth_l1_loss(
    input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
    reduction: str = "mean", beta: float = 1.0,
) -> Tensor:  # fmt: skip
    """`0.5 d^2 / beta` where `d = |x - t| < beta`, else `d - 0.5 beta` (beta 0: l1)."""
    if beta < 0.0:
        raise ValueError("smooth_l1_loss does not support negative values for beta.")
    distance = (input - target).abs()
    if beta == 0.0:
        return reduced(distance, reduction, size_average, reduce)
    losses = _torch.where(distance < beta, 0.5 * distance * distance / beta, distance - 0.5 * beta)
    return reduced(losses, reduction, size_average, reduce)


def huber_loss(
    input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """`0.5 d^2` where `d = |x - t| < delta`, else `delta * (d - 0.5 delta)`, times `weight`."""
    distance = (input - target).abs()
    losses = _torch.where(
        distance < delta, 0.5 * distance * distance, delta * (distance - 0.5 * delta)
    )
    if weight is not None:
        losses = losses * weight
    return reduced(losses, reduction)


def soft_margin_loss(
    input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """`log(1 + exp(-t * x))`."""
    return reduced(_torch.log1p((-target * input).exp()), reduction, size_average, reduce)


def margin_ranking_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
    size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """`max(0, -t * (x1 - x2) + margin)`."""
    losses = (-target * (input1 - input2) + margin).clamp_min(0.0)
    return reduced(losses, reduction, size_average, reduce)


def cosine_embedding_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
    size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """`1 - cos(x1, x2)` where t is 1, `max(0, cos - margin)` where t is -1, else 0; the
    cosine along the last dim, each squared magnitude plus 1e-12 (as PyTorch)."""
    products = (input1 * input2).sum(-1)
    magnitudes = ((input1 * input1).sum(-1) + EPSILON) * ((input2 * input2).sum(-1) + EPSILON)
    cosine = products / magnitudes.sqrt()
    similar = _torch.where(target == 1, 1.0 - cosine, 0.0)
    dissimilar = _torch.where(target == -1, (cosine - margin).clamp_min(0.0), 0.0)
    return reduced(similar + dissimilar, reduction, size_average, reduce)


def class_weights(weight: Tensor, target: Tensor) -> Tensor:
    """`weight[target]` for class indices of any shape."""
    return _torch.embedding(weight.unsqueeze(1), target).squeeze(-1)


def nll_loss(
    input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
    ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """`-w[t] * input[n, t]` of log-probabilities `[N, C, ...]` and class indices `[N, ...]`
    (targets equal to `ignore_index` count for nothing); 'mean' divides by the summed
    weights of the counted targets."""
    if size_average is not None or reduce is not None:
        raise ValueError("nll_loss: size_average and reduce are deprecated, use reduction=")
    kept = target != ignore_index
    safe = target * kept
    picked = input.gather(1, safe.unsqueeze(1)).squeeze(1)
    if weight is None:
        losses = -picked * kept
        if reduction == "mean":
            return losses.sum() / kept.sum()
        return reduced(losses, reduction)
    weights = class_weights(weight, safe) * kept
    losses = -picked * weights
    if reduction == "mean":
        return losses.sum() / weights.sum()
    return reduced(losses, reduction)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """`softmax(-input, dim, dtype)`; `dim` must be given (PyTorch's implicit choice is
    deprecated)."""
    if dim is None:
        raise ValueError("softmin: pass `dim` (the implicit dim choice is not supported)")
    return _torch.softmax(-input, dim, dtype=dtype)


FUNCTIONS = (
    binary_cross_entropy, binary_cross_entropy_with_logits, kl_div, smooth_l1_loss, huber_loss,
    soft_margin_loss, margin_ranking_loss, cosine_embedding_loss, nll_loss, softmin,
)  # fmt: skip
