"""`frontend.torch.nn.functional` (`F`): every op spelling `F.<name>` as a function, plus
`dropout`, which is random and therefore no op: identity unless `training`, else a Bernoulli
mask from the frontend.torch generator (scaled by 1/(1-p), like PyTorch)."""

from __future__ import annotations

from typing import Any

from frontend.torch.ops import functions_for
from frontend.torch.random import rng
from frontend.torch.tensor import Tensor

globals().update(functions_for("F"))


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


def __getattr__(name: str) -> Any:
    raise AttributeError(
        f"frontend.torch.nn.functional has no '{name}': no registered op spells F.{name} "
        "(see dialects/torch/ops)"
    )
