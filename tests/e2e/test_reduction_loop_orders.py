"""Reductions whose loops are reordered for speed give PyTorch's results.

Whole-array reductions run in parallel chunks (`scf-split-reductions`); reductions over an
outer dim (a softmax over dim 0 too) run the reduced dim outside a block of contiguous
columns (`lowering/loops/outer_reduction_loops.py`). Sizes are chosen so that chunks and blocks
are uneven.
"""

from __future__ import annotations

import numpy as np
import pytest

import frontend

torch = pytest.importorskip("torch")


def total(x):
    return x.sum()


def mean_square_error(y, t):
    return ((y - t) ** 2).mean()


def largest(x):
    return x.max()


def smallest(x):
    return x.amin()


def product(x):
    return x.prod()


def column_sums(x):
    return x.sum(0)


def middle_means(x):
    return x.mean(1)


def column_max(x):
    return x.amax(0)


def softmax_first(x):
    return torch.softmax(x, 0)


def _random(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _check(fn, *arrays: np.ndarray, rtol: float = 1e-5, atol: float = 1e-5) -> None:
    expected = fn(*(torch.from_numpy(a) for a in arrays)).numpy()
    actual = np.asarray(frontend.script(fn)(*arrays))
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("fn", [total, largest, smallest])
@pytest.mark.parametrize("shape", [(300, 70), (1, 5), (17,), (1000, 33)])
def test_whole_array_reductions(fn, shape) -> None:
    _check(fn, _random(*shape), rtol=1e-4, atol=1e-4)


def test_product_and_a_fused_mean() -> None:
    x = 1 + _random(40, 30) / 100
    _check(product, x, rtol=1e-4)
    _check(mean_square_error, _random(513, 257), _random(513, 257, seed=1), rtol=1e-4)


@pytest.mark.parametrize("fn", [total, largest, smallest])
def test_nan_and_inf_reach_the_result(fn) -> None:
    x = _random(200, 50)
    x[123, 7] = np.nan
    _check(fn, x)
    y = _random(200, 50)
    y[3, 3] = np.inf
    _check(fn, y)
    y[150, 3] = -np.inf
    _check(fn, y)


def test_an_empty_sum_is_zero() -> None:
    _check(total, np.zeros((0, 5), dtype=np.float32))


@pytest.mark.parametrize("fn", [column_sums, column_max])
@pytest.mark.parametrize("shape", [(257, 300), (3, 1000), (1000, 3), (1, 1)])
def test_reductions_over_an_outer_dim(fn, shape) -> None:
    _check(fn, _random(*shape), rtol=1e-4, atol=1e-4)


def test_a_middle_dim_mean_with_nan() -> None:
    x = _random(5, 129, 260)
    x[2, 100, 259] = np.nan
    _check(middle_means, x, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(257, 300), (3, 1000), (1000, 3)])
def test_a_softmax_over_the_first_dim(shape) -> None:
    """Its exponentials are written next to their sums, inside the loop over columns."""
    x = _random(*shape) * 10
    x[1, 2] = np.nan
    x[:, 0] = -np.inf
    _check(softmax_first, x, rtol=1e-5, atol=1e-6)


def first_maximum(x):
    return x.argmax(-1)


def first_minimum_over_rows(x):
    return x.min(0)


def test_argmax_takes_the_first_maximum_or_the_first_nan() -> None:
    """The index is a second fold: the first position equal to the row's extreme."""
    x = np.array(
        [[1, 3, 3, 2], [np.nan, 1, np.nan, 5], [-0.0, 0.0, -1, -2], [2, 2, 2, 2],
         [-np.inf, -np.inf, -np.inf, -np.inf], [1, 5, np.inf, np.nan]],
        dtype=np.float32,
    )  # fmt: skip
    _check(first_maximum, x)
    _check(first_maximum, _random(300, 1000))
    ints = np.random.default_rng(0).integers(-3, 3, (50, 40)).astype(np.int32)
    expected = torch.from_numpy(ints).argmax(-1).numpy()
    np.testing.assert_array_equal(frontend.script(first_maximum)(ints), expected)


def test_min_over_the_first_dim_gives_values_and_first_indices() -> None:
    x = np.random.default_rng(0).integers(-2, 2, (30, 300)).astype(np.float32)
    x[7, 3] = np.nan
    values, indices = frontend.script(first_minimum_over_rows)(x)
    expected = torch.from_numpy(x).min(0)
    np.testing.assert_array_equal(values, expected.values.numpy())
    np.testing.assert_array_equal(indices, expected.indices.numpy())
