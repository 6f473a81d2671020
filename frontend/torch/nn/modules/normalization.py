"""`BatchNorm1d`/`BatchNorm2d` and `LayerNorm`.

Batch norm in eval mode normalizes with the running statistics. In training mode it
normalizes with the batch's statistics and updates the running ones in place (momentum,
unbiased variance, `num_batches_tracked`), as PyTorch does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from frontend.torch import creation
from frontend.torch.nn import functional as F
from frontend.torch.nn.module import Module
from frontend.torch.nn.parameter import Parameter
from frontend.torch.tensor import Tensor


class _BatchNorm(Module):
    EXPECTED_RANKS: tuple[int, ...] = ()

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(creation.ones(num_features, dtype=dtype))
            if bias:
                self.bias = Parameter(creation.zeros(num_features, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", creation.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", creation.tensor(0))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def _check_input(self, input: Tensor) -> None:
        if input.ndim not in self.EXPECTED_RANKS:
            expected = " or ".join(f"{r}D" for r in self.EXPECTED_RANKS)
            raise ValueError(f"expected {expected} input (got {input.ndim}D input)")
        if input.shape[1] != self.num_features:
            raise ValueError(
                f"{type(self).__name__}: expected {self.num_features} channels in dim 1, "
                f"got input of shape {list(input.shape)}"
            )

    def forward(self, input: Tensor) -> Tensor:
        self._check_input(input)
        use_batch_stats = self.training or self.running_mean is None
        if self.training and self.track_running_stats:
            self._update_running_stats(input)
        mean = None if use_batch_stats else self.running_mean
        var = None if use_batch_stats else self.running_var
        momentum = 0.0 if self.momentum is None else self.momentum
        return F.batch_norm(
            input, mean, var, self.weight, self.bias, use_batch_stats, momentum, self.eps
        )

    def _update_running_stats(self, input: Tensor) -> None:
        """running = (1 - momentum) * running + momentum * batch (unbiased variance)."""
        values = input.numpy()
        axes = tuple(d for d in range(values.ndim) if d != 1)
        count = values.size // values.shape[1]
        if count <= 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size "
                f"{list(input.shape)}"
            )
        self.num_batches_tracked.numpy()[...] += 1
        factor = (
            1.0 / float(self.num_batches_tracked.item()) if self.momentum is None else self.momentum
        )
        mean = values.mean(axis=axes, dtype=np.float64)
        var = values.var(axis=axes, dtype=np.float64) * count / (count - 1)
        for buffer, batch in ((self.running_mean, mean), (self.running_var, var)):
            data = buffer.numpy()
            data[...] = ((1 - factor) * data + factor * batch).astype(data.dtype)

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    EXPECTED_RANKS = (2, 3)


class BatchNorm2d(_BatchNorm):
    EXPECTED_RANKS = (4,)


class LayerNorm(Module):
    def __init__(
        self,
        normalized_shape: Any,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
        self.normalized_shape = tuple(shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(creation.ones(self.normalized_shape, dtype=dtype))
            if bias:
                self.bias = Parameter(creation.zeros(self.normalized_shape, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, list(self.normalized_shape), self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )
