"""softmax / log_softmax against PyTorch on rows with NaN (either sign bit), infinities,
all -inf, signed zeros and a subnormal-producing spread: the row max is an integer max of
order-preserving keys that passes over negative NaNs (lowering/torch_to_linalg/ordered_keys.py),
and the exp of x - max has no overflow branch; the outputs must still be PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from frontend import script

NAN = np.float32(np.nan)
NEGATIVE_NAN = -np.abs(NAN)  # sign bit set, as x86 makes for inf - inf


def rows(dtype: type) -> np.ndarray:
    x = np.random.default_rng(0).standard_normal((10, 7)).astype(dtype)
    x[0, 3] = NAN
    x[1, 2] = NEGATIVE_NAN
    x[2, :] = -np.inf
    x[3, 4] = np.inf
    x[4, [1, 5]] = np.inf
    x[5, :] = 0.0
    x[5, ::2] = -0.0
    x[6, 0] = -np.inf
    x[7, :] = [-200.0, 0.0, -90.0, -87.5, -103.0, -1e30, 3e38]
    x[8, 6] = NEGATIVE_NAN
    x[8, 2] = np.inf
    assert np.signbit(x[1, 2]) and np.isnan(x[1, 2])
    return x


def softmax_last(x):
    return torch.softmax(x, -1)


def softmax_first(x):
    return torch.softmax(x, 0)


def log_softmax_last(x):
    return torch.log_softmax(x, -1)


@pytest.mark.parametrize("program", [softmax_last, softmax_first, log_softmax_last])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_pytorch(program, dtype):
    x = rows(dtype)
    got = np.asarray(script(program)(x))
    expected = program(torch.from_numpy(x)).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-30)
