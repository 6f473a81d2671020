"""Batched matmuls run as loops of 2-D library matmuls on views
(`lowering/bufferize/unbatch_contractions.py`) and give PyTorch's results."""

from __future__ import annotations

import numpy as np
import pytest

import frontend

torch = pytest.importorskip("torch")
F = torch.nn.functional


def bmm(a, b):
    return torch.bmm(a, b)


def scores(q, k):
    return q @ k.transpose(-2, -1)


def linear_3d(x, w, b):
    return F.linear(x, w, b)


def batched_then_relu(a, b):
    return torch.relu(a @ b) + 1


def _random(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _check(fn, *arrays: np.ndarray) -> None:
    expected = fn(*(torch.from_numpy(a) for a in arrays)).numpy()
    actual = np.asarray(frontend.script(fn)(*arrays))
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("batch", "m", "k", "n"), [(3, 50, 17, 61), (1, 8, 8, 8), (5, 1, 9, 2)])
def test_bmm(batch: int, m: int, k: int, n: int) -> None:
    _check(bmm, _random(batch, m, k), _random(batch, k, n, seed=1))


def test_attention_scores_over_two_batch_dims() -> None:
    _check(scores, _random(2, 3, 33, 16), _random(2, 3, 29, 16, seed=1))


def test_linear_of_a_3d_input_shares_its_weight() -> None:
    _check(linear_3d, _random(4, 37, 24), _random(53, 24, seed=1), _random(53, seed=2))


def test_a_batched_matmul_feeding_elementwise_ops() -> None:
    _check(batched_then_relu, _random(6, 20, 30), _random(6, 30, 50, seed=1))


def test_a_batch_of_transposed_views() -> None:
    a = _random(4, 30, 20).transpose(0, 2, 1)  # non-contiguous input: a strided numpy view
    _check(bmm, a, _random(4, 30, 10, seed=1))
