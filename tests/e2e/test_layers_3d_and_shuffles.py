"""3-D pooling layers, max pooling with indices, ChannelShuffle and the small functions
(isclose, allclose, ldexp, Tensor.unfold) a user scripts or traces, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import frontend
from frontend import torch as ft
from frontend.errors import ScriptError

torch.manual_seed(0)
X = torch.randn(2, 4, 4, 5, 6)
LAYERS = {
    "avg_pool3d": (nn.AvgPool3d(2), ft.nn.AvgPool3d(2)),
    "avg_pool3d_padded": (
        nn.AvgPool3d((3, 2, 3), (2, 1, 2), 1, True, False),
        ft.nn.AvgPool3d((3, 2, 3), (2, 1, 2), 1, True, False),
    ),
    "max_pool3d": (nn.MaxPool3d(2, 1, 1, dilation=(1, 2, 1)), ft.nn.MaxPool3d(2, 1, 1, (1, 2, 1))),
    "adaptive_avg_pool3d": (nn.AdaptiveAvgPool3d((2, 1, 3)), ft.nn.AdaptiveAvgPool3d((2, 1, 3))),
    "adaptive_max_pool3d": (nn.AdaptiveMaxPool3d(2), ft.nn.AdaptiveMaxPool3d(2)),
    "channel_shuffle": (nn.ChannelShuffle(2), ft.nn.ChannelShuffle(2)),
}


def check(actual, expected) -> None:
    np.testing.assert_allclose(np.asarray(actual), expected.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["script", "trace"])
@pytest.mark.parametrize("name", LAYERS)
def test_layer_compiles_like_pytorch(name, kind) -> None:
    layer = LAYERS[name][0]
    program = frontend.script(layer) if kind == "script" else frontend.trace(layer, (X,))
    with torch.no_grad():
        check(program(X), layer(X))


@pytest.mark.parametrize("name", LAYERS)
def test_frontend_torch_layer_runs_like_pytorch(name) -> None:
    theirs, ours = LAYERS[name]
    check(ours(ft.from_numpy(X.numpy())).numpy(), theirs(X))


class Functions(nn.Module):
    def forward(self, a, b):
        windows = a.unfold(1, 2, 2) * torch.ldexp(a, b.long())[:, :2, None]
        return torch.isclose(a, b, rtol=0.5, atol=0.1), windows, F.channel_shuffle(a[None], 3)


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_functions_compile_like_pytorch(kind) -> None:
    a, b = torch.randn(3, 4), torch.randn(3, 4) * 3
    model = Functions()
    program = frontend.script(model) if kind == "script" else frontend.trace(model, (a, b))
    for actual, expected in zip(program(a, b), model(a, b), strict=True):
        check(actual, expected)


def test_allclose_scripts_to_a_bool() -> None:
    def close(a, b):
        return torch.allclose(a, b, 0.0, 0.5)

    program = frontend.script(close)
    a = torch.randn(3, 4)
    assert program(a, a + 0.25) is True
    assert program(a, a + 1.0) is False


def test_isclose_refuses_mixed_dtypes_like_torch() -> None:
    def close(a, b):
        return torch.isclose(a, b)

    with pytest.raises((ScriptError, TypeError), match="Float did not match Double"):
        frontend.script(close)(torch.ones(2), torch.ones(2, dtype=torch.float64))


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_max_pool2d_returns_the_indices_pytorch_picks(kind) -> None:
    x = torch.randn(2, 3, 7, 6)
    x[0, 0, 1, 1] = float("nan")
    x[1, 1, 2:4, 2:4] = 5.0  # ties: the first maximum of the window
    layer = nn.MaxPool2d(3, 2, 1, return_indices=True)
    program = frontend.script(layer) if kind == "script" else frontend.trace(layer, (x,))
    (values, indices), (expected_values, expected_indices) = program(x), layer(x)
    check(values, expected_values)
    np.testing.assert_array_equal(np.asarray(indices), expected_indices.numpy())


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_adaptive_max_pool2d_returns_the_indices_pytorch_picks(kind) -> None:
    x = torch.randn(2, 3, 7, 5)
    x[0, 1, 2, 2] = float("nan")
    x[1, 0, :3, :2] = 4.0  # ties: the first maximum of the window
    layer = nn.AdaptiveMaxPool2d((3, 2), return_indices=True)
    program = frontend.script(layer) if kind == "script" else frontend.trace(layer, (x,))
    (values, indices), (expected_values, expected_indices) = program(x), layer(x)
    check(values, expected_values)
    np.testing.assert_array_equal(np.asarray(indices), expected_indices.numpy())
