"""The per-call fast path: same results and errors as the full path, torch in -> torch out."""

from __future__ import annotations

import numpy as np
import pytest

import frontend


def scale_add(x, y, k: int):
    return x * k + y


@pytest.fixture(scope="module")
def fn() -> frontend.ScriptFunction:
    return frontend.script(scale_add)


def test_second_call_takes_the_fast_path_with_the_same_result(fn) -> None:
    x, y = np.arange(6, dtype=np.float32).reshape(2, 3), np.ones(3, np.float32)
    first = fn(x, y, 2)
    assert len(fn._fast_calls.kernels) >= 1
    np.testing.assert_array_equal(fn(x, y, 2), first)
    np.testing.assert_array_equal(fn(x, y, 3), x * 3 + y)


def test_errors_still_come_from_the_full_path(fn) -> None:
    x, y = np.ones((2, 3), np.float32), np.ones(3, np.float32)
    fn(x, y, 2)
    with pytest.raises(TypeError, match="argument 'k' must be int"):
        fn(x, y, True)
    with pytest.raises(TypeError, match="argument 'x' must be a tensor"):
        fn([1.0, 2.0], y, 2)
    with pytest.raises(ValueError, match="do not fit"):
        fn(x, np.ones(4, np.float32), 2)


def test_non_contiguous_and_torch_arguments(fn) -> None:
    pt = pytest.importorskip("torch")
    x = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    y = np.ones(2, np.float32)
    np.testing.assert_array_equal(fn(x, y, 2), x * 2 + y)
    tx, ty = pt.from_numpy(np.ascontiguousarray(x)), pt.from_numpy(y)
    for _ in range(2):  # the full path, then the fast one
        result = fn(tx, ty, 2)
        assert isinstance(result, pt.Tensor)
        np.testing.assert_array_equal(result.numpy(), x * 2 + y)
