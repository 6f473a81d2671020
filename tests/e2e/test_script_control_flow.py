"""Scripted programs with control flow, scalars and indexing: compiled == the Python function.

Each program runs eagerly on numpy arrays (through `frontend.torch`) and compiled through
every stage; programs that use PyTorch-only methods (`x.size(i)`, `x.dim()`) run eagerly on
torch tensors. Each program is compiled once and called with every input set of its case.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pytest

import frontend
from frontend import torch

RNG = np.random.default_rng(0)
DEBUG = False  # a global flag: `if DEBUG:` is decided while scripting


def vec(n: int = 5, scale: float = 1.0) -> np.ndarray:
    return (RNG.standard_normal(n) * scale).astype(np.float32)


def mat(r: int, c: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.standard_normal((r, c)) * scale).astype(np.float32)


# ---- the seed programs ----


def foo(x, y):
    if x.max() > y.max():
        r = x
    else:
        r = y
    return r


def decision_gate(x):
    if x.sum() > 0:
        return x
    else:
        return -x


def cell(x, h, w, b):
    y = x @ w + b
    if y.sum() > 0:
        g = y
    else:
        g = -y
    new_h = torch.tanh(g + h)
    return new_h, new_h


def rnn(x, h, w, u, b):
    for t in range(x.shape[0]):
        h = torch.tanh(x[t] @ w + h @ u + b)
    return h


# ---- if / elif / else, conditional expressions, early return ----


def sign_class(x):
    s = x.sum()
    if s > 1.0:
        out = x * 2.0
    elif s < -1.0:
        out = x - 1.0
    else:
        out = x
    return out


def scalar_if(x, n: int):
    if n > 2:
        y = x * n
    else:
        y = x + 1.0
    return y


def ternary(x, n: int):
    return x if n % 2 == 0 else -x


def tensor_ternary(x, y):
    z = x - y if x.sum() > y.sum() else y - x
    return z * 2.0


def early_return(x):
    if x.max() > 1.5:
        return x * 0.0
    y = x + 1.0
    if y.sum() > 5.0:
        return y
    return -y


def nested_returns(x, n: int):
    if n > 0:
        if x.sum() > 0:
            return x + n
        return x - n
    return x * 0.5


def one_sided(x, n: int):
    y = x
    if n > 3:
        y = y * 3.0
    return y + 1.0


def tuple_branches(x, y):
    if x.sum() > y.sum():
        return x, y
    return y, x


def global_flag(x):
    if DEBUG:
        x = x * 100.0
    return x + 1.0


def bool_logic(x, a: int, b: int):
    if (a > 0 and b > 0) or not a < 10:
        return x + 1.0
    return x - 1.0


def short_circuit(x, i: int):
    # x[i] is only evaluated when i is in range
    if i < x.shape[0] and x[i] > 0:
        return x * 2.0
    return x


# ---- loops ----


def sum_rows(x):
    acc = x[0] * 0.0
    for i in range(x.shape[0]):
        acc = acc + x[i]
    return acc


def range_bounds(x, lo: int, hi: int):
    total = 0
    for i in range(lo, hi):
        total = total + i
    return x * total


def range_step(x, n: int):
    total = 0
    for i in range(n, 0, -3):
        total = total + i * i
    return x + total, total


def while_count(x, n: int):
    i = 0
    while i < n:
        x = x * 1.5
        i += 1
    return x, i


def while_break(x, n: int):
    i = 0
    while True:
        i = i + 1
        if i >= n:
            break
        x = x + 1.0
    return x, i


def for_continue(x, n: int):
    acc = x
    for i in range(n):
        if i % 2 == 1:
            continue
        acc = acc + i
    return acc


def for_break_tensor(x):
    acc = x * 0.0
    steps = 0
    for _ in range(x.shape[0]):
        if acc.sum() > 2.0:
            break
        acc = acc + torch.relu(x)
        steps = steps + 1
    return acc, steps


def while_tensor(x):
    while x.sum() < 100.0:
        x = x * 2.0 + 1.0
    return x


def nested_loops(x, n: int, m: int):
    total = 0
    for i in range(n):
        for j in range(m):
            if j > i:
                break
            total = total + i * j
    return x + total


def merge_in_loop(x, n: int):
    y = x
    for i in range(n):
        if i % 3 == 0:
            y = y * 0.5
        else:
            y = y + 1.0
    return y


def carried_scalar_and_tensor(x, n: int):
    scale = 1.0
    y = x
    for _ in range(n):
        y = torch.tanh(y * scale)
        scale = scale * 0.5
    return y, scale


# ---- scalars ----


def int_arithmetic(x, n: int):
    a = n // 3 + n % 3 * 2 - 1
    b = -n * a
    return x * a + b, a, b


def float_arithmetic(x, f: float, n: int):
    g = f / 2 + n
    h = g * f - 0.5
    return x * h, h


def to_scalars(x):
    s = float(x.sum())
    k = int(x.max() * 10.0)
    return x * s + k, s, k


# ---- indexing and shapes ----


def index_rows(x):
    return x[0] + x[-1], x[1]


def index_slices(x):
    return x[:, 1:3], x[1:, ::2], x[..., -1]


def index_mixed(x):
    return x[0, 1:], x[..., 1:2, 0], x[-2:]


def shape_loop(x):
    n, m = x.shape
    acc = x[:, 0] * 0.0
    for j in range(m):
        acc = acc + x[:, j] * j
    return acc, n * m


def length(x):
    total = x[0] * 0.0
    for i in range(len(x)):
        if i < len(x) - 1:
            total = total + x[i] * x[i + 1]
    return total


# ---- PyTorch-only methods (eager on torch tensors) ----


def size_dim(x):
    rows = x.size(0)
    out = x
    if x.dim() == 2:
        out = x * x.size(1)
    return out, rows


def numel_like(x):
    n = 1
    for _ in range(x.dim()):
        n = n * 2
    return x.sum() / (x.size(0) * x.size(1)), n


# ---- the cases: program and input sets ----

W4 = mat(4, 4, 0.4)
CASES: list[tuple[Callable[..., Any], list[tuple[Any, ...]]]] = [
    (foo, [(vec(), vec()), (vec() + 5, vec())]),
    (decision_gate, [(np.abs(vec()),), (-np.abs(vec()),)]),
    (cell, [(mat(3, 4), mat(3, 4), W4, vec(4)), (mat(3, 4), mat(3, 4), -W4, vec(4))]),
    (rnn, [(mat(50, 4), np.zeros(4, np.float32), W4, W4.T.copy(), vec(4))]),
    (sign_class, [(vec() + 2,), (vec() - 2,), (vec(5, 0.01),)]),
    (scalar_if, [(vec(), 5), (vec(), 1)]),
    (ternary, [(vec(), 4), (vec(), 3)]),
    (tensor_ternary, [(vec(), vec()), (vec() - 3, vec())]),
    (early_return, [(vec() + 3,), (np.abs(vec(5, 0.2)) + 1,), (vec(5, 0.1) - 1,)]),
    (nested_returns, [(np.abs(vec()), 2), (-np.abs(vec()), 2), (vec(), 0)]),
    (one_sided, [(vec(), 5), (vec(), 1)]),
    (tuple_branches, [(vec() + 1, vec()), (vec() - 1, vec())]),
    (global_flag, [(vec(),)]),
    (bool_logic, [(vec(), 1, 1), (vec(), 1, -1), (vec(), 20, -1), (vec(), -1, 5)]),
    (short_circuit, [(np.abs(vec()), 2), (vec(), 7)]),
    (sum_rows, [(mat(6, 3),), (mat(1, 3),)]),
    (range_bounds, [(vec(), 2, 7), (vec(), 5, 1)]),
    (range_step, [(vec(), 10), (vec(), 0)]),
    (while_count, [(vec(), 4), (vec(), 0)]),
    (while_break, [(vec(), 5), (vec(), 1)]),
    (for_continue, [(vec(), 7)]),
    (for_break_tensor, [(np.abs(vec(8)),), (-np.abs(vec(3)),)]),
    (while_tensor, [(np.abs(vec()),), (vec() + 200,)]),
    (nested_loops, [(vec(), 4, 5)]),
    (merge_in_loop, [(vec(), 7)]),
    (carried_scalar_and_tensor, [(vec(), 4)]),
    (int_arithmetic, [(vec(), 17), (vec(), -7)]),
    (float_arithmetic, [(vec(), 2.5, 3), (vec(), -1.0, -2)]),
    (to_scalars, [(vec(),)]),
    (index_rows, [(mat(4, 3),)]),
    (index_slices, [(mat(4, 5),)]),
    (index_mixed, [(RNG.standard_normal((3, 4, 2)).astype(np.float32),)]),
    (shape_loop, [(mat(3, 4),)]),
    (length, [(vec(6),), (vec(1),)]),
]
TORCH_CASES: list[tuple[Callable[..., Any], list[tuple[Any, ...]]]] = [
    (size_dim, [(mat(3, 4),)]),
    (numel_like, [(mat(3, 4),), (mat(1, 5),)]),
]


@cache
def scripted(fn: Callable[..., Any]) -> frontend.ScriptFunction:
    return frontend.script(fn)


def assert_same(actual: Any, expected: Any) -> None:
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e)
        return
    if hasattr(expected, "numpy"):
        expected = expected.numpy()
    if hasattr(actual, "numpy"):
        actual = actual.numpy()
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.shape == e.shape, f"shape {a.shape} != expected {e.shape}"
    np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-5)


def params(cases: list[tuple[Callable[..., Any], list[tuple[Any, ...]]]]) -> list[Any]:
    return [pytest.param(fn, inputs, id=fn.__name__) for fn, inputs in cases]


@pytest.mark.parametrize(("fn", "inputs"), params(CASES))
def test_compiled_matches_python(fn: Callable[..., Any], inputs: list[tuple[Any, ...]]) -> None:
    compiled = scripted(fn)
    for args in inputs:
        assert_same(compiled(*args), fn(*args))


@pytest.mark.parametrize(("fn", "inputs"), params(TORCH_CASES))
def test_compiled_matches_pytorch(fn: Callable[..., Any], inputs: list[tuple[Any, ...]]) -> None:
    real_torch = pytest.importorskip("torch")
    compiled = scripted(fn)
    for args in inputs:
        eager = fn(*[real_torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args])
        assert_same(compiled(*args), eager)


def test_seed_graphs_show_prim_if() -> None:
    for fn in (foo, decision_gate):
        graph = scripted(fn).graph
        assert "torch.aten.Bool.Tensor" in graph
        assert "torch.prim.If" in graph


def test_rnn_is_one_loop() -> None:
    graph = scripted(rnn).graph
    assert graph.count("torch.prim.Loop ") == 1
    assert "scf.for" in scripted(rnn).ir("loops", "f32[?,4],f32[4],f32[4,4],f32[4,4],f32[4]")


def test_break_lowers_to_while() -> None:
    loops = scripted(while_break).ir("loops", "f32[?],int")
    assert "scf.while" in loops


def test_eager_reference_with_pytorch() -> None:
    """The seed `foo` and the RNN also match real PyTorch (not only the numpy eager run)."""
    real_torch = pytest.importorskip("torch")
    x, y = vec(), vec()
    expected = np.where(x.max() > y.max(), x, y)
    assert_same(scripted(foo)(real_torch.from_numpy(x), real_torch.from_numpy(y)), expected)
