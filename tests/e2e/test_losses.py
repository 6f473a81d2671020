"""F.cross_entropy, F.nll_loss, F.mse_loss, F.l1_loss and F.normalize (frontend.torch's
Python, written with ops), scripted and traced, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import frontend


def cross_entropy_mean(x, y):
    return F.cross_entropy(x, y)


def cross_entropy_sum(x, y):
    return F.cross_entropy(x, y, reduction="sum")


def cross_entropy_each(x, y):
    return F.cross_entropy(x, y, reduction="none")


def nll_of_log_softmax(x, y):
    return F.nll_loss(F.log_softmax(x, 1), y, ignore_index=1)


def squared_and_absolute(x, y):
    target = y.float() / 4.0
    return F.mse_loss(x[:, 0], target) + F.l1_loss(x[:, 1], target, reduction="sum")


def normalized(x, y):
    return F.normalize(x, dim=-1) + F.normalize(x, p=1.0, dim=0)


def weighted(x, y):
    return F.cross_entropy(x, y, weight=torch.tensor([1.0, 2.0, 0.5, 1.5]), label_smoothing=0.1)


X = torch.randn(5, 4)
Y = torch.tensor([0, 3, 1, -100, 2])


@pytest.mark.parametrize("kind", ["script", "trace"])
@pytest.mark.parametrize(
    "program",
    [cross_entropy_mean, cross_entropy_sum, cross_entropy_each, nll_of_log_softmax,
     squared_and_absolute, normalized, weighted],
)  # fmt: skip
def test_loss_matches_pytorch(kind, program) -> None:
    y = Y if program.__name__.startswith(("cross_entropy", "weighted")) else Y.clamp(min=0)
    expected = program(X, y).numpy()
    compiled = frontend.script(program) if kind == "script" else frontend.trace(program, (X, y))
    np.testing.assert_allclose(compiled(X.numpy(), y.numpy()), expected, rtol=1e-5, atol=1e-6)

