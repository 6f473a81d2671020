"""A row `x[t]` that only library matmuls read is a view of `x`, not a copy
(`memref-row-views`): same results as PyTorch, for a row reached by a negative index too."""

from __future__ import annotations

import numpy as np
import pytest

import frontend

torch = pytest.importorskip("torch")


def rnn(x, h, w, u, b):
    for t in range(x.shape[0]):
        h = torch.tanh(x[t] @ w + h @ u + b)
    return h


def last_row_product(x, w):
    return x[-1] @ w + x[0]


def arrays(*shapes: tuple[int, ...]) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [(rng.standard_normal(s) * 0.3).astype(np.float32) for s in shapes]


def test_rnn_reads_its_input_rows_in_place_and_matches_torch() -> None:
    args = arrays((5, 3, 40), (3, 48), (40, 48), (48, 48), (48,))
    program = frontend.script(rnn)
    actual = np.asarray(program(*args))
    expected = rnn(*(torch.from_numpy(a) for a in args)).numpy()
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)
    loops = program.ir("loops")
    assert "memref.subview %x" in loops
    assert "memref.load %x" not in loops  # no copy of the row


def test_a_row_also_read_elementwise_is_still_right() -> None:
    x, w = arrays((4, 6, 40), (40, 40))
    program = frontend.script(last_row_product)
    actual = np.asarray(program(x, w))
    expected = last_row_product(torch.from_numpy(x), torch.from_numpy(w)).numpy()
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)
    assert "memref.subview %x" in program.ir("loops")
