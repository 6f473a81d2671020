"""An RNN's weights, multiplied from the right inside a scripted loop, are transposed once in
front of it (`convert-linalg-to-library-calls`): same results as PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import frontend

torch = pytest.importorskip("torch")


def rnn(x, h, w, u):
    for t in range(x.shape[0]):
        h = torch.tanh(x[t] @ w + h @ u)
    return h


def test_rnn_weights_transposed_once_match_torch() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 40), dtype=np.float32)
    h = rng.standard_normal((3, 48), dtype=np.float32)
    w = rng.standard_normal((40, 48), dtype=np.float32) * 0.2
    u = rng.standard_normal((48, 48), dtype=np.float32) * 0.2
    program = frontend.script(rnn)
    actual = np.asarray(program(x, h, w, u))
    expected = rnn(*(torch.from_numpy(a) for a in (x, h, w, u))).numpy()
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)
    assert "tsjit_matmul_nt_f32" in program.code
    assert "tsjit_matmul_nn_f32" not in program.code  # both right operands hoisted
