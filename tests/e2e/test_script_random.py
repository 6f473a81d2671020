"""Random tensors in scripted code draw from the generator of the function the script names,
in the eager program's order: with the same seed, the same numbers."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import frontend
import frontend.torch as ft


def reparameterized(mu, logvar):  # type: ignore[no-untyped-def]
    std = torch.exp(0.5 * logvar)
    eps = torch.randn_like(std)
    noise = torch.rand(mu.size(0), 3, dtype=torch.float64)
    picks = torch.randint(0, 10, (2,))
    return mu + eps * std, noise, picks


def frontend_noise(x):  # type: ignore[no-untyped-def]
    return x + ft.randn(x.shape[0])


def test_pytorch_random_tensors_match_eager_with_the_same_seed():
    mu, logvar = torch.randn(4, 3), torch.randn(4, 3)
    scripted = frontend.script(reparameterized)
    torch.manual_seed(0)
    got = scripted(mu, logvar)
    torch.manual_seed(0)
    expected = reparameterized(mu, logvar)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-6)
    assert "torch.prim.PythonCall" in str(scripted.graph)


def test_frontend_random_tensors_use_its_generator():
    x = np.zeros(5, dtype=np.float32)
    ft.manual_seed(3)
    got = frontend.script(frontend_noise)(x)
    ft.manual_seed(3)
    np.testing.assert_allclose(np.asarray(got), ft.randn(5).numpy(), rtol=1e-6)


def test_random_tensors_in_a_loop_are_a_located_error():
    def in_loop(x):  # type: ignore[no-untyped-def]
        for _ in range(x.shape[0]):
            x = x + torch.randn(3)
        return x

    with pytest.raises(frontend.ScriptError, match=r"torch.randn\(\) inside `if` or a loop"):
        frontend.script(in_loop)
