"""Indices out of range raise what PyTorch raises, before any memory is read or written: ints
(`x[i]`, `select`, `narrow`, with a start known only at run time too) and index tensors
(`index_select`, `gather`, `embedding`, `take_along_dim`, `scatter*`, `index_add` / `copy` /
`fill`, `one_hot`, `x[idx]`, `x[idx] = v`); negative indices wrap exactly where torch wraps
them. The compiled code and the eager tier (the numpy references) both raise torch's
exception type; in-range calls of the same programs still agree with torch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import frontend
from dialects.torch.ops.index_rules import RULES

torch = pytest.importorskip("torch")
F = torch.nn.functional

FAR = 1 << 40  # far past any buffer: reading there was a SIGSEGV


def getitem(x, i: int):
    return x[i]


def select_cols(x, i: int):
    return x.select(1, i)


def narrow_at(x, t):
    return x.narrow(0, int(t), 2)  # the start is known only at run time


def narrow_args(x, s: int, n: int):
    return x.narrow(0, s, n)


def index_select(x, i):
    return x.index_select(0, i)


def gather(x, i):
    return x.gather(0, i)


def embedding(w, i):
    return F.embedding(i, w)


def take_along(x, i):
    return torch.take_along_dim(x, i, 0)


def take_flat(x, i):
    return torch.take_along_dim(x, i)


def scatter(x, i):
    return x.scatter(0, i, 1.0)


def scatter_add(x, i, s):
    return x.scatter_add(0, i, s)


def index_add(x, i, s):
    return x.index_add(0, i, s)


def index_copy(x, i, s):
    return x.index_copy(0, i, s)


def index_fill(x, i):
    return x.index_fill(0, i, -1.0)


def one_hot(i):
    return F.one_hot(i, 3)


def rows_at(x, i):
    return x[i]


def put_rows(x, i):
    y = x.clone()
    y[i] = 0.0
    return y


X = torch.arange(12.0).reshape(3, 4)
ONES = torch.ones(3, 4)
COMPILED: dict[Any, Any] = {}
EAGER: dict[Any, Any] = {}


def compiled(fn: Any) -> Any:
    if fn not in COMPILED:
        COMPILED[fn] = frontend.script(fn)
    return COMPILED[fn]


def eager(fn: Any) -> Any:
    """The eager tier: the torch IR run op by op with the numpy references."""
    if fn not in EAGER:
        EAGER[fn] = frontend.script(fn, backend="interpreter")
    return EAGER[fn]


def column(i: list[int]) -> Any:
    return torch.tensor(i)[:, None]


def rows(i: list[int]) -> Any:
    return torch.tensor(i)[:, None].repeat(1, 4)


def calls(i: list[int]) -> list[tuple[Any, tuple[Any, ...]]]:
    """Every index-tensor op called with the indices `i` (3 of them)."""
    t = torch.tensor(i)
    return [
        (index_select, (X, t)),
        (gather, (X, rows(i))),
        (embedding, (X, t)),
        (take_along, (X, rows(i))),
        (take_flat, (X, t)),
        (scatter, (X, column(i))),
        (scatter_add, (X, column(i), torch.ones(3, 1))),
        (index_add, (X, t, ONES)),
        (index_copy, (X, t, ONES)),
        (index_fill, (X, t)),
        (one_hot, (t,)),
        (rows_at, (X, t)),
        (put_rows, (X, t)),
    ]


def outcome(fn: Any, args: tuple[Any, ...]) -> Any:
    try:
        return fn(*args)
    except Exception as err:
        return err


def assert_like_torch(fn: Any, args: tuple[Any, ...], expected: Any = None) -> None:
    """The compiled `fn` raises torch's exception type, or returns torch's result."""
    expected = outcome(fn, args) if expected is None else expected
    if isinstance(expected, Exception):
        with pytest.raises(type(expected)):
            compiled(fn)(*args)
        return
    actual = compiled(fn)(*args)
    np.testing.assert_allclose(np.asarray(actual), expected.numpy())


def assert_eager_like_torch(fn: Any, args: tuple[Any, ...], expected: Any) -> None:
    """The eager tier, on numpy arrays (so the numpy references run), raises torch's
    exception type or returns torch's result."""
    arrays = tuple(a.numpy() for a in args)
    if isinstance(expected, Exception):
        with pytest.raises(type(expected)):
            eager(fn)(*arrays)
        return
    np.testing.assert_allclose(np.asarray(eager(fn)(*arrays)), expected.numpy())


@pytest.mark.parametrize("i", [0, 2, -1, -3, 3, 5, -4, FAR, -FAR])
def test_int_index(i: int) -> None:
    assert_like_torch(getitem, (X, i))
    assert_like_torch(select_cols, (X, i))


@pytest.mark.parametrize("start", [0, 1, -2, -3, 2, 3, -4, FAR, -FAR])
def test_narrow_with_a_start_known_at_run_time(start: int) -> None:
    assert_like_torch(narrow_at, (X, torch.tensor(start)))


@pytest.mark.parametrize(("start", "length"), [(1, 2), (-3, 3), (3, 0), (2, 2), (-1, 2), (FAR, 0)])
def test_narrow_with_int_arguments(start: int, length: int) -> None:
    assert_like_torch(narrow_args, (X, start, length))


CASES = {
    "in range": [0, 2, 1],
    "negative": [-1, 0, 1],
    "past the end": [0, 7, 1],
    "far": [FAR, 0, 1],
    "far negative": [0, -FAR, 1],
}


@pytest.mark.parametrize("case", list(CASES))
def test_index_tensors(case: str) -> None:
    for fn, args in calls(CASES[case]):
        expected = outcome(fn, args)
        if fn is take_along and case != "in range":  # torch reads past the end here
            expected = outcome(gather, args)
        assert_like_torch(fn, args, expected)
        assert_eager_like_torch(fn, args, expected)


@pytest.mark.parametrize("case", list(CASES))
def test_the_rules_table_follows_torch(case: str) -> None:
    """Each eager reference's own check (`index_rules.py`) raises torch's type and message."""
    t = torch.tensor(CASES[case])
    for name, call in {
        "index_select": lambda: X.index_select(0, t),
        "gather": lambda: X.gather(0, rows(CASES[case])),
        "index_add": lambda: X.index_add(0, t, ONES),
        "index_copy": lambda: X.index_copy(0, t, ONES),
        "index_fill": lambda: X.index_fill(0, t, 1.0),
        "index": lambda: X[t],
    }.items():
        expected = outcome(call, ())
        if not isinstance(expected, Exception):
            RULES[name].checked(t.numpy(), 3)
            continue
        with pytest.raises(type(expected)) as raised:
            RULES[name].checked(t.numpy(), 3)
        assert str(raised.value) == str(expected).splitlines()[0], name


def test_a_bad_index_in_a_loop_run_in_threads_raises() -> None:
    """An index checked where it is read, in a loop big enough to run in row chunks on
    several threads: the chunk that meets it raises, nothing is read out of bounds."""
    x = torch.zeros(600, 600)
    i = torch.zeros(600, 600, dtype=torch.int64)
    i[500, 7] = 600
    with pytest.raises(RuntimeError, match="out of bounds"):
        compiled(gather)(x, i)
    i[500, 7] = -1
    with pytest.raises(RuntimeError, match="out of bounds"):
        compiled(gather)(x, i)
    i[500, 7] = 599
    np.testing.assert_array_equal(np.asarray(compiled(gather)(x, i)), x.gather(0, i).numpy())


def test_weights_used_as_indices_are_checked() -> None:
    """An index that comes from a module's weights is an ordinary operand: checked."""

    class Lookup(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("rows", torch.tensor([0, 9]))

        def forward(self, x):
            return x.index_select(0, self.rows)

    module = frontend.script(Lookup())
    with pytest.raises(IndexError):
        module(X)


def test_index_counts_other_than_the_source_size() -> None:
    """The bound is the source's size, not the number of indices."""
    for i in ([2], [2, 0, 1, 2, 1]):
        t = torch.tensor(i)
        assert_like_torch(index_select, (X, t))
        assert_like_torch(embedding, (X, t))
        assert_like_torch(index_fill, (X, t))
    assert_like_torch(index_select, (X, torch.tensor([3])))
    assert_like_torch(gather, (X, rows([2, 1, 2, 0, 2])[:5]))
