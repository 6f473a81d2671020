"""Results whose size depends on the values (x[mask], masked_select, nonzero, argwhere,
torch.where(cond), unique, unique_consecutive) scripted and traced, against PyTorch: empty
results, 0-d / 1-D / 3-D inputs, results used afterwards, one compiled program for every
count, torch's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import frontend

torch = pytest.importorskip("torch")


def positive(x):
    return x[x > 0]


def masked(x, m):
    return x[m]


def inner_mask(x, m):
    return x[:, m] * 2


def positive_sum(x):
    return x[x > 0].sum()


def masked_mean(x, m):
    return x[m].mean()


def masked_select(x, m):
    return torch.masked_select(x, m)


def first_coordinates(x):
    return torch.nonzero(x > 0)[:, 0]


def nonzero(x):
    return torch.nonzero(x)


def argwhere(x):
    return x.argwhere()


def where_rows_cols(x):
    rows, cols = torch.where(x > 0)
    return rows * 10 + cols


def picked_rows(x):
    rows, cols = (x > 0).nonzero(as_tuple=True)
    return x[rows].sum(1) + cols


def unique_all(x):
    return torch.unique(x, return_inverse=True, return_counts=True)


def run_lengths(x):
    values, counts = x.unique_consecutive(return_counts=True)
    return values * counts


class Gate(torch.nn.Module):
    def forward(self, x) -> Any:
        kept = x[x.sum(1) > 0]
        return kept.relu() + 1


def rand(*shape: int, seed: int = 0) -> Any:
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def mask(*shape: int, seed: int = 1) -> Any:
    return torch.from_numpy(np.asarray(np.random.default_rng(seed).random(shape) > 0.5))


def assert_same(got: Any, expected: Any) -> None:
    if isinstance(expected, tuple):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e)
        return
    got = torch.as_tensor(got)
    assert got.dtype == expected.dtype
    assert tuple(got.shape) == tuple(expected.shape)
    torch.testing.assert_close(got, expected, equal_nan=True)


X3 = rand(2, 3, 4)
NAN = float("nan")
CASES = [
    # (function, argument sets: some select nothing, one 0-d / 1-D / 3-D each)
    (positive, [(rand(6, 4),), (-torch.ones(3, 4),), (rand(5),), (X3,)]),
    (masked, [(X3, mask(2, 3)), (X3, torch.zeros(2, 3, dtype=torch.bool)), (X3, mask(2))]),
    (masked, [(X3, torch.tensor(True)), (rand(), torch.tensor(False))]),  # 0-d masks
    (inner_mask, [(rand(3, 5), mask(5)), (rand(2, 5), torch.zeros(5, dtype=torch.bool))]),
    (positive_sum, [(rand(4, 3),), (-torch.ones(2),)]),
    (masked_mean, [(rand(4, 3), mask(4, 3))]),
    (masked_select, [(rand(3, 4), mask(3, 4)), (rand(3, 1), mask(4)), (rand(2, 2), mask())]),
    (first_coordinates, [(rand(5, 4),), (-torch.ones(2, 2),)]),
    (nonzero, [(torch.tensor([[0, 3], [2, 0]]),), (torch.tensor(2.5),), (torch.tensor(0.0),)]),
    (nonzero, [(mask(2, 3, 2),), (torch.zeros(0, 3),)]),
    (argwhere, [(torch.tensor([0.0, float("nan"), -1.0, 0.0]),)]),
    (where_rows_cols, [(rand(3, 4),), (-torch.ones(2, 2),)]),
    (picked_rows, [(rand(3, 4),), (-torch.ones(2, 2),)]),
    (unique_all, [(torch.tensor([[3, 1, 2], [1, 3, 3]]),), (torch.tensor([], dtype=torch.long),)]),
    (unique_all, [(torch.tensor([NAN, 1.0, 1.0, NAN, 0.5]),), (torch.tensor(4.0),)]),
    (run_lengths, [(torch.tensor([1, 1, 2, 2, 3, 1]),), (torch.tensor([], dtype=torch.long),)]),
]


IDS = [f"{fn.__name__}-{i}" for i, (fn, _) in enumerate(CASES)]


@pytest.mark.parametrize(("fn", "argument_sets"), CASES, ids=IDS)
def test_scripted_matches_pytorch(fn: Any, argument_sets: list[tuple[Any, ...]]) -> None:
    scripted = frontend.script(fn)
    for args in argument_sets:
        assert_same(scripted(*args), fn(*args))


def test_one_program_serves_every_count() -> None:
    scripted = frontend.script(positive)
    for seed in range(3):
        x = rand(4, 5, seed=seed)
        assert_same(scripted(x), positive(x))
    assert len(scripted._compiled) == 1


def test_module_method() -> None:
    gate = Gate()
    scripted = frontend.script(gate)
    x = rand(5, 3)
    assert_same(scripted(x), gate(x))
    assert_same(scripted(-torch.ones(2, 3)), gate(-torch.ones(2, 3)))


@pytest.mark.parametrize(
    "fn", [positive_sum, where_rows_cols, picked_rows, unique_all, masked_select]
)
def test_traced_matches_pytorch(fn: Any) -> None:
    example = (rand(3, 4), mask(3, 4)) if fn is masked_select else (rand(3, 4),)
    traced = frontend.trace(fn, example)
    assert_same(traced(*example), fn(*example))
    other = (
        (rand(2, 4, seed=5), mask(2, 4, seed=6)) if fn is masked_select else (-torch.ones(2, 4),)
    )
    assert_same(traced(*other), fn(*other))


def test_mask_of_the_wrong_shape() -> None:
    import frontend.torch as ft

    with pytest.raises(IndexError, match=r"shape of the mask \[3\] at index 0 does not match"):
        ft.ones(4, 2)[ft.ones(3, dtype=ft.bool)]
    scripted = frontend.script(masked)
    with pytest.raises(ValueError, match=r"shape of the mask \[3\] at index 0 does not match"):
        scripted(rand(4, 2), torch.ones(3, dtype=torch.bool))
    with pytest.raises(TypeError, match="too many indices for tensor of dimension 2"):
        scripted(rand(4, 2), torch.ones(4, 2, 2, dtype=torch.bool))


def test_masked_select_needs_a_bool_mask() -> None:
    scripted = frontend.script(masked_select)
    with pytest.raises(TypeError, match="masked_select: expected BoolTensor for mask"):
        scripted(rand(3), torch.ones(3))


def masked_plus(x, m, y):
    return x[m] + y


def test_value_sized_dim_meeting_another_size() -> None:
    scripted = frontend.script(masked_plus)
    x, y = rand(4), rand(2)
    two = torch.tensor([True, False, True, False])
    assert_same(scripted(x, two, y), masked_plus(x, two, y))
    for m in (torch.tensor([True, False, False, False]), torch.tensor([True, True, True, False])):
        with pytest.raises(RuntimeError, match="The size of tensor a must match the size"):
            scripted(x, m, y)  # torch broadcasts a count of 1; the compiled code raises


def _rows_times(x, w):
    return x[x.sum(1) > 0].T @ w


def _rows_beside(x, y):
    return torch.cat([x[x.sum(1) > 0], y], 1)


@pytest.mark.parametrize(
    ("fn", "make_other", "message"),
    [
        (_rows_times, lambda n: torch.randn(n, 3), "cannot be multiplied"),
        (_rows_beside, lambda n: torch.randn(n, 2), "must match except in the dimension"),
    ],
)
def test_value_sized_dim_checked_in_products_and_cat(fn, make_other, message):
    x = torch.randn(6, 4)
    count = int((x.sum(1) > 0).sum())
    scripted = frontend.script(fn)
    other = make_other(count)
    torch.testing.assert_close(scripted(x, other), fn(x, other))
    with pytest.raises(RuntimeError, match=message):
        scripted(x, make_other(count + 1))


def unique_sorted_counts(x):
    return torch.unique(x, sorted=True, return_inverse=False, return_counts=True)


def test_unique_keeps_every_flag() -> None:
    """`torch.unique` is one of PyTorch's boolean-dispatched functions: its flags reach its op."""
    x = torch.tensor([3, 1, 3, 2])
    assert_same(frontend.script(unique_all)(x), unique_all(x))
    assert_same(frontend.script(unique_sorted_counts)(x), unique_sorted_counts(x))
