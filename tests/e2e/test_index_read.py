"""Reading through several index tensors (`x[rows, cols]`, `x[i0, :, i2]`, `x[:, i, j]`,
`x[a[:, None], b[None, :]]`, lists of ints, `y[i0, i1] += v`) scripted and traced, against
PyTorch: int64 and int32 indices, negative ones, 0-size index tensors (the same compiled
program), and IndexError for an index out of range or shapes that do not broadcast."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest

import frontend

torch = pytest.importorskip("torch")


def reads(x, r, c):
    return (
        x[r, c],  # adjacent leading dims: [n, 6]
        x[r, :, c],  # separated: the index shape first, [n, 5]
        x[r, 1:3],  # a slice after the index tensor: [n, 2, 6]
        x[:, r, c],  # adjacent inner dims: [4, n]
        x[r[:, None], c[None, :]],  # ranks broadcast together: [n, n, 6]
        x[[0, 2], [1, -1]],  # lists of ints: [2, 6]
        x[r, 0, c],  # the int selects first: [n]
        x[0, :, c],  # the int selects first, so c stays in place: [5, n]
    )


def pick_and_add(logits, targets, v):
    picked = logits[torch.arange(logits.shape[0]), targets]
    y = logits.clone()
    y[torch.arange(logits.shape[0]), targets] += v
    return picked, y


X = torch.randn(4, 5, 6)
R = torch.tensor([0, -1, 2])
C = torch.tensor([4, -5, 1], dtype=torch.int32)
EMPTY_R = torch.zeros(0, dtype=torch.int64)
EMPTY_C = torch.zeros(0, dtype=torch.int32)


@cache
def compiled(kind: str, name: str) -> Any:
    """One scripted or traced program per function, reused by the tests."""
    fn = {"reads": reads, "pick_and_add": pick_and_add}[name]
    if kind == "script":
        return frontend.script(fn)
    example = (X, R, C) if name == "reads" else (torch.randn(5, 4), R.repeat(2)[:5], X[0, 0, :5])
    return frontend.trace(fn, example)


def assert_same(actual: Any, expected: Any) -> None:
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        a = torch.as_tensor(np.asarray(a))
        assert a.dtype == e.dtype
        assert a.shape == e.shape
        torch.testing.assert_close(a, e)


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_reads_match_pytorch(kind: str) -> None:
    fn = compiled(kind, "reads")
    assert_same(fn(X, R, C), reads(X, R, C))
    assert_same(fn(X, EMPTY_R, EMPTY_C), reads(X, EMPTY_R, EMPTY_C))  # 0-size index tensors


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_pick_each_rows_target_and_add_through_it(kind: str) -> None:
    fn = compiled(kind, "pick_and_add")
    logits, targets, v = torch.randn(5, 4), torch.tensor([3, 0, -1, 2, 2]), torch.randn(5)
    assert_same(fn(logits, targets, v), pick_and_add(logits, targets, v))


@pytest.mark.parametrize("kind", ["script", "trace"])
@pytest.mark.parametrize(
    ("r", "c"),
    [([0, 4, 1], [0, 0, 0]), ([0, 1, 1], [0, -7, 0])],
    ids=["past-the-end", "below-minus-size"],
)
def test_an_index_out_of_range_is_an_index_error(kind: str, r: list[int], c: list[int]) -> None:
    rows, cols = torch.tensor(r), torch.tensor(c, dtype=torch.int32)
    with pytest.raises(IndexError):
        reads(X, rows, cols)
    with pytest.raises(IndexError, match="out of bounds for dimension"):
        compiled(kind, "reads")(X, rows, cols)


def test_index_shapes_that_do_not_broadcast_are_refused() -> None:
    rows, cols = torch.tensor([0, 1, 2]), torch.tensor([0, 1], dtype=torch.int32)
    with pytest.raises(IndexError, match="shape mismatch"):
        X[rows, cols]
    with pytest.raises(ValueError, match="could not be broadcast together"):
        compiled("script", "reads")(X, rows, cols)


def mask_and_index(x, m, i):
    return x[m, i]


def test_a_mask_with_another_index_tensor_is_refused() -> None:
    mask, index = torch.tensor([True, False, True, True]), torch.tensor([0, 1, 2])
    with pytest.raises(TypeError, match="a boolean mask must be the only index tensor"):
        frontend.script(mask_and_index)(X, mask, index)


def masked_rows(x, a, b):
    return x[b, a[a >= 0]]  # a's count is known only at run time


def test_run_time_sizes_that_do_not_broadcast_are_an_index_error() -> None:
    fn = frontend.script(masked_rows)
    a, b = torch.tensor([0, -1, 2]), torch.tensor([3, 2])
    assert_same([fn(X, a, b)], [masked_rows(X, a, b)])
    b = torch.tensor([3, 2, 1])
    with pytest.raises(IndexError, match="shape mismatch"):
        masked_rows(X, a, b)
    with pytest.raises(IndexError, match="shape mismatch"):
        fn(X, a, b)
