"""Python constructs of the TorchScript subset decided while scripting: `assert`,
`isinstance`, `min`/`max` of run-time numbers, lists grown with `append` in loops over constant
ranges (unrolled), list comprehensions, list slices, `enumerate`/`zip`, `getattr(self, ...)`,
and in-place tensor methods (`y.add_(1)`) on tensors nothing else shares."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import frontend
from frontend.errors import ScriptError


def checked_twice(x):
    assert x.dim() == 2, "expects a matrix"  # known only at run time: not checked
    assert isinstance(x, torch.Tensor)
    return x * 2


def failing_assert(x):
    assert isinstance(x, int), "x must be an int"
    return x


def smaller_of(x):
    n = min(x.shape[0], 3)
    m = max(x.shape[1] / 2, 1.5)
    return x[:n] * m


def grown_lists(x):
    rows = []
    for i in range(2):
        cols = []
        for j in range(3):
            cols.append(x * (i + j))
        rows.append(torch.cat(cols))
    return torch.stack(rows)


def comprehensions(x):
    evens = [x * i for i in range(5) if i % 2 == 0]
    parts = [x[:, i : i + 2] for i in range(0, 4, 2)]
    return torch.stack(evens).sum(0), torch.cat(parts[::-1], dim=1)


def append_in_a_runtime_loop(x):
    outs = []
    for i in range(x.shape[0]):
        if i > 0:
            outs.append(x[i])
    return torch.stack(outs)


def returns_a_list(x):
    return [x, (x * 2, x + 1)]


def in_place_updates(x):
    y = x * 2
    y.add_(1)
    y.mul_(3).clamp_(min=0.0)
    acc = x * 0
    for i in range(x.shape[0]):
        acc.add_(x[i])
    return y + acc


def in_place_on_an_argument(x):
    x.add_(1)
    return x


def in_place_on_an_alias(x):
    y = x * 2
    z = y
    y.add_(1)
    return z


def in_place_on_a_view(x):
    y = x * 2
    row = y[0]
    row.add_(1)
    return y


class Layers(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
        self.scales = (1.0, 0.5, 0.25)
        self.gate = nn.Linear(4, 4)
        self.names = ("gate",)

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x) * (i + 1)
        for layer, scale in zip(self.layers, self.scales):
            x = x + layer(x) * scale
        for name in self.names:
            x = getattr(self, name)(x)
        return x


X = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)


@pytest.mark.parametrize(
    "program", [checked_twice, smaller_of, grown_lists, comprehensions, in_place_updates]
)
def test_construct_matches_pytorch(program) -> None:
    expected = program(torch.from_numpy(X))
    actual = frontend.script(program)(X)
    for a, e in zip(actual if isinstance(actual, tuple) else (actual,),
                    expected if isinstance(expected, tuple) else (expected,)):  # fmt: skip
        np.testing.assert_allclose(a, e.numpy(), rtol=1e-5, atol=1e-6)


def test_enumerate_zip_and_getattr_over_modules() -> None:
    torch.manual_seed(0)
    model = Layers().eval()
    with torch.no_grad():
        expected = model(torch.from_numpy(X)).numpy()
    np.testing.assert_allclose(frontend.script(model)(X), expected, rtol=1e-5, atol=1e-6)


def test_an_assert_that_fails_while_scripting_is_an_error() -> None:
    with pytest.raises(ScriptError, match="fails `assert isinstance"):
        frontend.script(failing_assert)


def test_append_under_a_run_time_condition_is_an_error() -> None:
    with pytest.raises(ScriptError, match="append\\(\\) to a list inside a branch") as info:
        frontend.script(append_in_a_runtime_loop)
    assert "once per iteration" in str(info.value)


def test_a_returned_list_is_a_list_of_tensors() -> None:
    x = torch.ones(2)
    result = frontend.script(returns_a_list)(x)
    assert isinstance(result, list) and isinstance(result[1], tuple)
    assert all(isinstance(t, torch.Tensor) for t in (result[0], *result[1]))
    np.testing.assert_allclose(result[1][0].numpy(), [2.0, 2.0])


@pytest.mark.parametrize(
    ("program", "why"),
    [
        (in_place_on_an_argument, "the argument `x` (the caller's tensor would not change)"),
        (in_place_on_an_alias, "`y`, which is also `z`"),
        (in_place_on_a_view, "`row`, a view of another tensor (torch.aten.select.int)"),
    ],
)
def test_in_place_where_pytorch_would_share_the_update_is_an_error(program, why) -> None:
    with pytest.raises(ScriptError, match="in-place `add_` on") as info:
        frontend.script(program)
    assert why in str(info.value)
    assert "hint: copy it first: y = x.clone()" in str(info.value)


def rows_by_index(x, index, grid):
    return x[index] * 2, x[grid].sum(-1)


def rows_by_mask(x):
    return x[x > 0]


def test_a_tensor_indexed_by_an_index_tensor() -> None:
    index = np.array([3, -1, 0, 0], dtype=np.int64)
    grid = np.array([[0, 1], [-2, 2]], dtype=np.int32)
    expected = rows_by_index(*(torch.from_numpy(a) for a in (X, index, grid)))
    actual = frontend.script(rows_by_index)(X, index, grid)
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(a, e.numpy(), rtol=1e-6)


def test_a_boolean_mask_index_picks_the_masked_elements() -> None:
    expected = rows_by_mask(torch.from_numpy(X)).numpy()  # tests/e2e/test_value_sized.py
    np.testing.assert_array_equal(frontend.script(rows_by_mask)(X), expected)


def items(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i].sum().item()
    count = x.argmax().item()  # an int64 tensor: an int
    return x * total + count


def test_item_gives_a_number() -> None:
    expected = items(torch.from_numpy(X)).numpy()
    np.testing.assert_allclose(frontend.script(items)(X), expected, rtol=1e-5, atol=1e-5)
    assert "torch.aten.Int.Tensor" in frontend.script(items).graph


def returns_from_a_constant_range(x):
    for i in range(4):
        if x.sum() > i:  # decided at run time: each unrolled copy is a branch
            return x * i
        x = x + 1
    return -x


@pytest.mark.parametrize("scale", [0.1, 5.0])
def test_return_inside_a_loop_over_a_constant_range(scale) -> None:
    x = X * scale
    expected = returns_from_a_constant_range(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(frontend.script(returns_from_a_constant_range)(x), expected)


def cpu_device_and_attributes(x):
    positions = torch.arange(x.shape[1], device=x.device)
    zeros = torch.zeros(x.shape[0], 1, device="cpu", dtype=torch.float32)
    y = x.to(x.device).detach().cpu()
    top = x.max(1).values + x.min(dim=1)[0] + x.max(0).indices
    return y + positions + zeros + x.T @ x + top


def test_the_cpu_device_transpose_attribute_and_named_pairs() -> None:
    expected = cpu_device_and_attributes(torch.from_numpy(X)).numpy()
    actual = frontend.script(cpu_device_and_attributes)(X)
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def to_cuda(x):
    return torch.zeros(2, device="cuda") + x


def test_another_device_is_a_located_error() -> None:
    with pytest.raises(ScriptError, match="only the cpu device is supported"):
        frontend.script(to_cuda)


def causal_scores(x, n: int):
    mask = torch.tril(torch.ones(x.shape[0], x.shape[0])) == 0
    upper = torch.triu(x, diagonal=1)
    scale = torch.tensor(0.5) * torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64).sum()
    return x.masked_fill(mask, float("-inf")).softmax(-1) + upper * scale + torch.tensor(n)


def test_tensor_literals_and_triangles() -> None:
    expected = causal_scores(torch.from_numpy(X), 3).numpy()
    actual = frontend.script(causal_scores)(X, 3)
    assert actual.dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


def layer_norm_of_the_last_size(x):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],))


def test_layer_norm_of_a_size_known_at_run_time() -> None:
    expected = layer_norm_of_the_last_size(torch.from_numpy(X)).numpy()
    actual = frontend.script(layer_norm_of_the_last_size)(X)
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def follows_the_dtype(x, y):
    z = torch.zeros(3, dtype=x.dtype)
    w = y.to(x.dtype)
    if x.dtype == torch.float32:
        return x.sum() + z.sum() + w.sum(), torch.ones_like(y, dtype=x.dtype)
    return x.sum() * 0, torch.ones_like(y, dtype=x.dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_dtype_attribute(dtype) -> None:
    x, y = torch.ones(3, dtype=dtype), torch.arange(3)
    scripted = frontend.script(follows_the_dtype)
    for got, expected in zip(scripted(x, y), follows_the_dtype(x, y)):
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got.numpy(), expected.numpy())
    assert "torch.prim.dtype" in str(scripted.graph)


def bools_as_numbers_and_reflected_ops(x):
    a = float(torch.allclose(x, x)) + int(torch.equal(x, x * 2))
    return a + 2 % (x.abs() + 1) + abs(x * 3) + torch.nn.functional.relu(x, inplace=True)


def test_bools_as_numbers_reflected_remainder_and_inplace_keyword() -> None:
    x = torch.randn(3, 4)
    expected = bools_as_numbers_and_reflected_ops(x.clone()).numpy()
    got = frontend.script(bools_as_numbers_and_reflected_ops)(x)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def normalize(x):  # the name of frontend.torch's F.normalize, which it calls
    return torch.nn.functional.normalize(x) * 2


def test_a_function_named_like_its_callee() -> None:
    x = torch.randn(3, 4)
    np.testing.assert_allclose(frontend.script(normalize)(x), normalize(x).numpy(), rtol=1e-6)


def dropout_keywords(x):
    return torch.nn.functional.dropout(x, 0.5, training=False) * 2


def test_dropout_with_the_training_keyword() -> None:
    x = torch.randn(3)
    np.testing.assert_allclose(frontend.script(dropout_keywords)(x), x.numpy() * 2)


def grad_modes_and_small_syntax(x):
    with torch.no_grad():
        y = x * 2
    y[1] += x.sum()
    n = x.size(0)
    if 0 < n < 10:
        y = y + 1
    return sum([y, x, x * 3])


def test_grad_modes_chained_comparisons_augmented_items_and_sum() -> None:
    x = torch.randn(3, 4)
    expected = grad_modes_and_small_syntax(x).numpy()
    np.testing.assert_allclose(frontend.script(grad_modes_and_small_syntax)(x), expected, rtol=1e-6)


def other_context_manager(x):
    with open("f") as handle:
        return x + len(handle.name)


def test_other_context_managers_are_located_errors() -> None:
    with pytest.raises(ScriptError, match=r"only `with torch.no_grad\(\):`"):
        frontend.script(other_context_manager)


def sorted_constants(x):
    a = [3, 0, 2]
    a.sort()
    b = [1.5, -2.0, 4.0]
    b.sort(reverse=True)
    return x * a[0] + b[0], a == [0, 2, 3], b != [4.0, 1.5, -2.0], a == (0, 2, 3)


def test_sort_and_compare_lists_known_while_scripting() -> None:
    x = torch.randn(3)
    got, expected = frontend.script(sorted_constants)(x), sorted_constants(x)
    torch.testing.assert_close(torch.as_tensor(np.asarray(got[0])), expected[0])
    assert tuple(got[1:]) == tuple(expected[1:]) == (True, False, False)


def sort_run_time_values(x):
    a = [x.shape[0], 2]
    a.sort()
    return x * a[0]


def test_sort_of_run_time_values_is_an_error() -> None:
    with pytest.raises(ScriptError, match="values known only at run time"):
        frontend.script(sort_run_time_values)(torch.randn(3))
