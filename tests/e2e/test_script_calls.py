"""Calls between scripted functions, annotated argument types, tuples, and loops over tensors
and tuples: each program runs compiled and is compared with the same Python run eagerly."""

from __future__ import annotations

from typing import List, Optional, Tuple  # noqa: UP035

import numpy as np
import pytest

import frontend

torch = pytest.importorskip("torch")
Tensor = torch.Tensor


def affine(x, scale: float, shift: float):
    return x * scale + shift


def calls_twice(x):
    return affine(x, 2.0, 1.0) + affine(affine(x, 0.5, 0.0), 3.0, -1.0)


def gate(x):
    if x.sum() > 0:
        return x
    return -x


def calls_with_control_flow(x, y):
    return gate(x) * gate(y)


def pair(x):
    return torch.relu(x), torch.tanh(x)


def unpacks_a_call(x):
    a, b = pair(x)
    return a - b


def lstm_like(x, state: Tuple[Tensor, Tensor]):  # noqa: UP006
    h, c = state
    c = torch.sigmoid(x + h) * c + torch.tanh(x)
    return torch.tanh(c), c


def carries_a_tuple(xs, h, c):
    state = (h, c)
    for t in range(xs.shape[0]):
        state = lstm_like(xs[t], state)
    return state


def nested_return(x):
    return x + 1, (x * 2, x - 1)


def optional_bias(x, bias: Optional[Tensor] = None):  # noqa: UP045
    if bias is not None:
        return x + bias
    return x * 1.0


def union_syntax(x, y: Tensor | None, k: int):
    out = x * k
    if y is None:
        return out
    return out - y


def reduce_dims(x, dims: List[int]):  # noqa: UP006
    return torch.amax(x, dims, keepdim=True)


def mode_switch(x, mode: str = "double"):
    if mode == "double":
        return x * 2.0
    return x


def default_args(x, k: int = 3, scale: float = 0.5):
    for _ in range(k):
        x = x * scale + 1.0
    return x


def over_rows(x):
    total = x[0] * 0.0
    for row in x:
        total = total + torch.relu(row)
    return total


def over_tuple(x, y):
    acc = x * 0.0
    for v in (x, y, x * y):
        acc = acc + v
    return acc


def return_in_unrolled_loop(x, y):
    for v in (x, y):
        if v.sum() > 0:
            return v
    return x + y


def callee_with_loop(x, n: int):
    for _ in range(n):
        x = torch.tanh(x)
    return x


def calls_a_loop(x, n: int):
    return callee_with_loop(x, n) + callee_with_loop(x, 2)


R = np.random.default_rng(0)


def t(*shape: int, sign: float = 1.0) -> Tensor:
    return torch.from_numpy((R.uniform(-1, 1, size=shape) + sign).astype(np.float32))


CASES = [
    (calls_twice, lambda: (t(3, 4),), {}),
    (calls_with_control_flow, lambda: (t(4, sign=-1.5), t(4, sign=1.5)), {}),
    (unpacks_a_call, lambda: (t(2, 3),), {}),
    (carries_a_tuple, lambda: (t(5, 2, 3), t(2, 3), t(2, 3)), {}),
    (nested_return, lambda: (t(3),), {}),
    (optional_bias, lambda: (t(2, 3), t(3)), {}),
    (optional_bias, lambda: (t(2, 3),), {}),
    (optional_bias, lambda: (t(2, 3),), {"bias": None}),
    (union_syntax, lambda: (t(3), t(3), 4), {}),
    (union_syntax, lambda: (t(3), None, 4), {}),
    (reduce_dims, lambda: (t(2, 3, 4), [0, 2]), {}),
    (reduce_dims, lambda: (t(2, 3, 4), [1]), {}),
    (mode_switch, lambda: (t(3), "double"), {}),
    (mode_switch, lambda: (t(3), "same"), {}),
    (default_args, lambda: (t(3),), {}),
    (default_args, lambda: (t(3), 2), {"scale": 2.0}),
    (over_rows, lambda: (t(4, 3),), {}),
    (over_tuple, lambda: (t(3), t(3)), {}),
    (return_in_unrolled_loop, lambda: (t(3, sign=-1.5), t(3, sign=1.5)), {}),
    (return_in_unrolled_loop, lambda: (t(3, sign=-1.5), t(3, sign=-1.5)), {}),
    (calls_a_loop, lambda: (t(3), 3), {}),
]
IDS = [f"{fn.__name__}-{i}" for i, (fn, _, _) in enumerate(CASES)]


def assert_same(actual, expected) -> None:
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e)
        return
    np.testing.assert_allclose(np.asarray(actual), expected.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("fn", "make_args", "kwargs"), CASES, ids=IDS)
def test_compiled_matches_eager(fn, make_args, kwargs) -> None:
    args = make_args()
    scripted = frontend.script(fn)
    assert_same(scripted(*args, **kwargs), fn(*args, **kwargs))


def test_callees_are_functions_of_the_module_until_inlined() -> None:
    scripted = frontend.script(calls_twice)
    assert scripted.graph.count("func.func") == 4  # one affine per distinct constant pair
    assert "func.call @affine" in scripted.graph
    assert "func.call" not in scripted.ir("torch-opt")


def recursive(x, n: int):
    if n == 0:
        return x
    return recursive(x, n - 1)


def passes_a_module(x):
    return helper_taking_module(torch.nn.Linear(2, 2), x)


def helper_taking_module(m, x):
    return x


def test_recursion_is_a_located_error() -> None:
    with pytest.raises(frontend.ScriptError, match="recursive call") as info:
        frontend.script(recursive)
    assert info.value.line == recursive.__code__.co_firstlineno + 3


def wrong_annotation_call(x):
    return typed(x)


def typed(n: int):
    return n + 1


def test_a_call_that_does_not_fit_the_annotation_points_at_the_callee() -> None:
    with pytest.raises(frontend.ScriptError, match="declared int") as info:
        frontend.script(wrong_annotation_call)
    assert info.value.line == typed.__code__.co_firstlineno


def test_wrong_structure_at_call_time_names_the_argument() -> None:
    scripted = frontend.script(lstm_like)
    with pytest.raises(TypeError, match="argument 'state'"):
        scripted(t(3), t(3))


def passthrough(x, scale: float):
    if scale == 1.0:
        return x
    return x * scale


def calls_a_passthrough(x):
    return passthrough(x, 1.0) + passthrough(x, 3.0)


def test_a_callee_that_returns_its_argument_inlines() -> None:
    """torch-inline gives the call's operand where the callee returns its argument."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(frontend.script(calls_a_passthrough)(x), x * 4)


def int_tolerances(x, y):
    return x.isclose(y, 0, 3) & torch.isclose(x, y, rtol=1, atol=0)


def test_an_int_constant_where_the_schema_takes_a_float_is_that_float() -> None:
    x = np.array([0, -5, 3, 10], np.int64)
    y = np.array([1, -1, 3, 30], np.int64)
    expected = int_tolerances(torch.from_numpy(x), torch.from_numpy(y)).numpy()
    np.testing.assert_array_equal(frontend.script(int_tolerances)(x, y), expected)
